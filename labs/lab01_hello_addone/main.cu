// SPDX-License-Identifier: BSD-3-Clause
// Lab 01 demo: add one to a size x size matrix with several block shapes and report
// the effective bandwidth (each element read once and written once).
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "add_one.cuh"
#include "cudalab/bench.cuh"
#include "cudalab/check.cuh"
#include "cudalab/demo.hpp"
#include "cudalab/device_buffer.cuh"
#include "cudalab/matrix.hpp"

namespace {

/// Largest size whose every row `--check` compares; beyond it, 8 rows at the top, in the
/// middle and at the bottom (whole rows: every column, the right edge included), so that
/// a check at 32768 copies and compares 3 MiB instead of 4 GiB per variant.
constexpr int kFullCheckSize = 8192;

/// The row ranges [first, last) of the matrix that `--check` compares.
std::vector<std::pair<int, int>> checked_rows(int n) {
  if (n <= kFullCheckSize) return {{0, n}};
  return {{0, 8}, {n / 2 - 4, n / 2 + 4}, {n - 8, n}};
}

int run(const cudalab::DemoOptions& opt) {
  const int n = opt.size;
  const std::size_t count = std::size_t(n) * n;
  const std::vector<float> h_in = cudalab::random_matrix(n, n, cudalab::Fill::Uniform, 1);
  cudalab::DeviceBuffer<float> d_data(count);
  const std::vector<std::pair<int, int>> rows = checked_rows(n);
  if (opt.check && rows.size() > 1) {
    std::cout << "check: rows " << rows[0].first << "-" << rows[0].second - 1 << ", "
              << rows[1].first << "-" << rows[1].second - 1 << " and " << rows[2].first << "-"
              << rows[2].second - 1 << " (every row up to --size " << kFullCheckSize << ")\n";
  }

  const dim3 shapes[] = {dim3(opt.block, opt.block), dim3(32, 8), dim3(256, 1), dim3(1, 256)};
  cudalab::Table table({"block", "grid", "ms", "GB/s", "check"});
  int status = 0;
  for (const dim3 block : shapes) {
    // Correctness: one launch on fresh data; timing: repeated launches (the values keep
    // growing; only the time matters there).
    const auto check = [&] {
      for (const auto& [first, last] : rows) {
        const std::size_t begin = std::size_t(first) * n;
        const std::size_t size = std::size_t(last - first) * n;
        std::vector<float> expected(h_in.begin() + begin, h_in.begin() + begin + size);
        for (auto& x : expected) x += 1.0f;
        std::vector<float> got(size);
        CUDA_CHECK(cudaMemcpy(got.data(), d_data.data() + begin, size * sizeof(float),
                              cudaMemcpyDeviceToHost));
        auto cmp = cudalab::compare_matrices(expected, got, last - first, n, 0.0);
        if (!cmp.ok) {
          if (rows.size() > 1) {
            cmp.message = "rows from " + std::to_string(first) + ": " + cmp.message;
          }
          return cmp;
        }
      }
      return cudalab::MatrixCompare{};
    };
    const auto r = cudalab::run_variant(
        [&](cudaStream_t s) { lab01::add_one(d_data.data(), n, n, block, s); }, opt.reps,
        "block " + std::to_string(block.x) + "x" + std::to_string(block.y),
        opt.check ? cudalab::OutputCheck(check) : nullptr, [&] { d_data.upload(h_in); });
    if (!r.ok) status = 1;
    const dim3 grid = lab01::grid_for(n, n, block);
    const double gbs = 2.0 * count * sizeof(float) / (r.median_ms * 1e6);
    table.add_row({std::to_string(block.x) + "x" + std::to_string(block.y),
                   std::to_string(grid.x) + "x" + std::to_string(grid.y),
                   cudalab::fixed(r.median_ms, 4), cudalab::fixed(gbs, 1), r.verdict});
  }
  table.print(std::cout);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  cudalab::DemoLimits limits;
  limits.default_size = 4096;
  limits.max_size = 32768;
  limits.default_block = 16;
  return cudalab::run_demo(argc, argv, "lab01 hello_addone: add one to every element", limits, run);
}
