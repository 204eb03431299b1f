// SPDX-License-Identifier: BSD-3-Clause
// Lab 02 demo: the two naive kernels of lab02::kTechniques on a size x size problem, timed like the
// classic version (variant, launch configuration, ms, GFLOP/s, speedup over the slowest variant).
#include <algorithm>
#include <functional>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "cudalab/bench.cuh"
#include "cudalab/demo.hpp"
#include "cudalab/device_buffer.cuh"
#include "cudalab/matrix.hpp"
#include "naive_matmul.cuh"

namespace {

struct Variant {
  std::string name;
  std::string launch;  // "<<<grid, block>>>" as launched
  cudalab::GpuWork run;
};

/// Largest size whose every row of C `--check` compares with the host reference, which is
/// single-threaded and costs O(rows x n^2): a few seconds for all of a 2048 C, but the better
/// part of an hour for a 16384 one. Beyond it, 8 whole rows at the top, in the middle and at
/// the bottom (every column, the right edge included; a few seconds at 16384).
constexpr int kFullCheckSize = 2048;

std::string dims(dim3 d) {
  return d.y == 1 ? std::to_string(d.x)
                  : "(" + std::to_string(d.x) + "," + std::to_string(d.y) + ")";
}

std::string launch_text(dim3 grid, dim3 block) {
  return "<<<" + dims(grid) + ", " + dims(block) + ">>>";
}

int run(const cudalab::DemoOptions& opt) {
  const int n = opt.size;  // M = N = K = n
  const std::size_t count = std::size_t(n) * n;
  // ±1 inputs: every result is a small integer, so the check can be exact.
  const std::vector<float> h_a = cudalab::random_matrix(n, n, cudalab::Fill::PlusMinusOne, 1);
  const std::vector<float> h_b = cudalab::random_matrix(n, n, cudalab::Fill::PlusMinusOne, 2);
  cudalab::DeviceBuffer<float> d_a(count), d_b(count), d_c(count);
  d_a.upload(h_a);
  d_b.upload(h_b);
  const float* a = d_a.data();
  const float* b = d_b.data();
  float* c = d_c.data();

  // The techniques of the table: one block per row with 32 and 256 threads, one thread per
  // element with the --block square, 32 x 8 and 1 x 32 blocks (1 x 32 puts a warp down a column
  // of C: the same kernel, uncoalesced).
  const std::vector<dim3> row_blocks = {dim3(32), dim3(256)};
  const std::vector<dim3> element_blocks = {dim3(opt.block, opt.block), dim3(32, 8), dim3(1, 32)};
  std::vector<Variant> variants;
  for (const lab02::Technique& x : lab02::kTechniques) {
    for (const dim3 block : x.blocks_2d ? element_blocks : row_blocks) {
      const dim3 grid = x.blocks_2d ? lab02::thread_per_element_grid(n, n, block) : dim3(n);
      variants.push_back({x.title + std::string(block.x == 1 ? " (x=1: uncoalesced)" : ""),
                          launch_text(grid, block), [=, launch = x.launcher](cudaStream_t s) {
                            launch(a, b, c, n, n, n, block, s);
                          }});
    }
  }

  std::vector<cudalab::ReferenceRows> expected;
  if (opt.check) expected = cudalab::reference_rows(h_a, h_b, n, kFullCheckSize);
  std::vector<double> ms;
  std::vector<std::string> verdicts;
  int status = 0;
  const cudalab::OutputCheck check = [&] {
    return cudalab::compare_rows(expected, d_c.to_host(), n);
  };
  for (const Variant& v : variants) {
    // Poisoned with NaN first: a kernel that skips elements cannot pass the check.
    const auto r = cudalab::run_variant(v.run, opt.reps, v.name + " " + v.launch,
                                        opt.check ? check : nullptr, [&] { d_c.fill_bytes(0xFF); });
    if (!r.ok) status = 1;
    verdicts.push_back(r.verdict);
    ms.push_back(r.median_ms);
  }

  const double slowest = *std::max_element(ms.begin(), ms.end());
  const double flop = 2.0 * n * double(n) * n;
  cudalab::Table table({"variant", "launch", "ms", "GFLOP/s", "speedup", "check"});
  for (std::size_t i = 0; i < variants.size(); ++i) {
    table.add_row({variants[i].name, variants[i].launch, cudalab::fixed(ms[i], 3),
                   cudalab::fixed(flop / (ms[i] * 1e6), 1),
                   cudalab::fixed(slowest / ms[i], 2) + "x", verdicts[i]});
  }
  table.print(std::cout);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  cudalab::DemoLimits limits;
  limits.default_size = 2048;
  limits.max_size = 16384;
  limits.default_block = 16;
  return cudalab::run_demo(
      argc, argv, "lab02 naive_matmul: one block per row vs one thread per element", limits, run);
}
