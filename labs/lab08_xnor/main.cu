// SPDX-License-Identifier: BSD-3-Clause
// Lab 08 demo: the classic ±1 matmul as floats and as bits. Times the float one-block-per-row
// kernel, the packers, and the XNOR kernels of lab08::kTechniques (__popc, the popcount table), at
// the classic <<<M, 32>>> (or --block threads) and at <<<M, 256>>>.
#include <algorithm>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "cudalab/bench.cuh"
#include "cudalab/bits.hpp"
#include "cudalab/demo.hpp"
#include "cudalab/device_buffer.cuh"
#include "cudalab/matrix.hpp"
#include "xnor.cuh"

namespace {

/// Rows of C checked against the host: all of a small C, else a few at both ends.
std::vector<std::pair<int, int>> checked_row_ranges(int n) {
  if (n <= 512) return {{0, n}};
  return {{0, 8}, {n / 2 - 4, n / 2 + 4}, {n - 8, n}};
}

int run(const cudalab::DemoOptions& opt) {
  const int n = opt.size;  // A, B and C are n x n
  const std::size_t count = std::size_t(n) * n;
  const int words = cudalab::bits::words32(n);
  const std::vector<float> h_a = cudalab::random_matrix(n, n, cudalab::Fill::PlusMinusOne, 1);
  const std::vector<float> h_b = cudalab::random_matrix(n, n, cudalab::Fill::PlusMinusOne, 2);
  const std::vector<std::uint32_t> h_a_bits = cudalab::bits::pack_rows(h_a, n, n);
  const std::vector<std::uint32_t> h_b_bits = cudalab::bits::pack_cols_word_major(h_b, n, n);

  cudalab::DeviceBuffer<float> d_a(count), d_b(count), d_c(count);
  cudalab::DeviceBuffer<std::uint32_t> d_a_bits(std::size_t(n) * words);
  cudalab::DeviceBuffer<std::uint32_t> d_b_bits(std::size_t(words) * n);  // word-major
  d_a.upload(h_a);
  d_b.upload(h_b);
  const cudalab::DeviceBuffer<std::uint8_t> d_table = lab08::upload_popcount_table();

  // The packers run once here; their output is checked against the host packer.
  lab08::pack_rows(d_a.data(), d_a_bits.data(), n, n);
  lab08::pack_cols(d_b.data(), d_b_bits.data(), n, n);
  int status = 0;
  std::string pack_verdict = "-";
  if (opt.check) {
    const bool ok = d_a_bits.to_host() == h_a_bits && d_b_bits.to_host() == h_b_bits;
    pack_verdict = ok ? "ok" : "WRONG";
    if (!ok) {
      std::cerr << "pack_rows/pack_cols: the packed words differ from "
                   "cudalab::bits::pack_rows/pack_cols_word_major\n";
      status = 1;
    }
  }

  std::vector<std::pair<std::vector<float>, std::pair<int, int>>> expected_rows;
  if (opt.check) {
    if (n > 512) {
      std::cout << "check: rows 0-7, " << n / 2 - 4 << "-" << n / 2 + 3 << " and " << n - 8 << "-"
                << n - 1 << " of C (every row up to --size 512)\n";
    }
    for (const auto& range : checked_row_ranges(n)) {
      expected_rows.push_back({cudalab::bits::binary_matmul_word_major_rows(
                                   h_a_bits, h_b_bits, n, n, range.first, range.second),
                               range});
    }
  }
  const cudalab::OutputCheck verify = [&] {
    const std::vector<float> got = d_c.to_host();
    for (const auto& [rows, range] : expected_rows) {
      const std::vector<float> part(got.begin() + std::size_t(range.first) * n,
                                    got.begin() + std::size_t(range.second) * n);
      auto cmp = cudalab::compare_matrices(rows, part, range.second - range.first, n, 0.0);
      if (!cmp.ok) {
        cmp.message = "rows from " + std::to_string(range.first) + ": " + cmp.message;
        return cmp;
      }
    }
    return cudalab::MatrixCompare{};
  };

  struct Variant {
    std::string name;
    std::string config;
    std::function<void(cudaStream_t)> work;
    bool is_matmul;
  };
  const int t = opt.block;
  const std::string rows_cfg = "<<<" + std::to_string(n) + ", ";
  std::vector<Variant> variants = {
      {"float one-block-per-row", rows_cfg + std::to_string(t) + ">>>",
       [&](cudaStream_t s) {
         lab08::float_matmul_rows(d_a.data(), d_b.data(), d_c.data(), n, n, n, t, s);
       },
       true},
      {"float one-block-per-row", rows_cfg + "256>>>",
       [&](cudaStream_t s) {
         lab08::float_matmul_rows(d_a.data(), d_b.data(), d_c.data(), n, n, n, 256, s);
       },
       true},
      {"pack rows of A + columns of B", "ballot / thread per word",
       [&](cudaStream_t s) {
         lab08::pack_rows(d_a.data(), d_a_bits.data(), n, n, s);
         lab08::pack_cols(d_b.data(), d_b_bits.data(), n, n, s);
       },
       false},
  };
  // The XNOR kernels of the technique table at both block sizes.
  for (const int threads : {t, 256}) {
    for (const lab08::Technique& x : lab08::kTechniques) {
      variants.push_back({x.title, rows_cfg + std::to_string(threads) + ">>>",
                          [&, launch = x.launcher, threads](cudaStream_t s) {
                            launch(d_a_bits.data(), d_b_bits.data(), d_table.data(), d_c.data(), n,
                                   n, n, threads, s);
                          },
                          true});
    }
  }

  cudalab::Table table({"variant", "config", "ms", "speedup", "TOPS", "check"});
  double baseline_ms = 0.0;
  const double ops = 2.0 * double(n) * n * n;  // one multiply + one add per (i, j, k)
  const std::function<void()> poison = [&] { d_c.fill_bytes(0xFF); };  // NaN: writes nothing, fails
  for (const Variant& v : variants) {
    // The packers were checked above; a matmul is poisoned, run once and checked here.
    const auto r = cudalab::run_variant(v.work, opt.reps, v.name + " " + v.config,
                                        v.is_matmul && opt.check ? verify : nullptr,
                                        v.is_matmul ? poison : nullptr);
    if (!r.ok) status = 1;
    const double ms = r.median_ms;
    if (baseline_ms == 0.0) baseline_ms = ms;
    table.add_row({v.name, v.config, cudalab::fixed(ms, 3),
                   v.is_matmul ? cudalab::fixed(baseline_ms / ms, 2) + "x" : "-",
                   v.is_matmul ? cudalab::fixed(ops / (ms * 1e9), 2) : "-",
                   v.is_matmul ? r.verdict : pack_verdict});
  }
  table.print(std::cout);
  std::cout << "speedup: vs the first row; TOPS: 2*n^3 / time (float FLOPs or bit operations)\n";
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  cudalab::DemoLimits limits;
  limits.default_size = 4096;
  limits.max_size = 16384;
  limits.default_block = lab08::kSeedThreads;
  limits.block_is_2d = false;
  return cudalab::run_demo(argc, argv, "lab08 xnor: ±1 matmul as bits (XNOR + popcount)", limits,
                           run);
}
