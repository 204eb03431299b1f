// SPDX-License-Identifier: BSD-3-Clause
// Lab 12 demo: the tiled matmuls of lab12::kTechniques, the synchronous one against register
// prefetch, the two-stage cp.async pipeline and the two-stage bulk-copy (TMA) pipeline, in two
// configurations: a square product that fills every SM with two blocks ("full occupancy":
// another block hides a block's load latency) and a long-k product with one block per SM
// ("latency exposed").
#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "cudalab/bench.cuh"
#include "cudalab/demo.hpp"
#include "cudalab/device.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/matrix.hpp"
#include "prefetch.cuh"

namespace {

/// Times every technique of lab12::kTechniques on one m x n x k product of small integers
/// (exact in float); rows of C are checked against the host when --check is given (a few rows:
/// cheap on any size).
int run_config(const std::string& title, int m, int n, int k, const cudalab::DemoOptions& opt) {
  std::cout << "\n"
            << title << ": C (" << m << " x " << n << ") = A (" << m << " x " << k << ") * B, grid "
            << (n + lab12::kTile - 1) / lab12::kTile << " x "
            << (m + lab12::kTile - 1) / lab12::kTile << " blocks of " << lab12::kThreads
            << " threads\n";
  const auto h_a = cudalab::random_matrix(m, k, cudalab::Fill::SmallInt, 1);
  const auto h_b = cudalab::random_matrix(k, n, cudalab::Fill::SmallInt, 2);
  cudalab::DeviceBuffer<float> d_a(h_a.size()), d_b(h_b.size()), d_c(std::size_t(m) * n);
  d_a.upload(h_a);
  d_b.upload(h_b);
  const int rows[] = {0, m / 2, m - 1};
  const cudalab::OutputCheck verify = [&] {
    const std::vector<float> got = d_c.to_host();
    for (const int r : rows) {
      for (int c = 0; c < n; ++c) {
        double sum = 0.0;
        for (int i = 0; i < k; ++i)
          sum += double(h_a[std::size_t(r) * k + i]) * h_b[std::size_t(i) * n + c];
        const float have = got[std::size_t(r) * n + c];
        if (!(have == float(sum))) {
          cudalab::MatrixCompare bad;
          bad.ok = false;
          bad.message = "C(" + std::to_string(r) + ", " + std::to_string(c) +
                        ") = " + std::to_string(have) + ", expected " + std::to_string(sum);
          return bad;
        }
      }
    }
    return cudalab::MatrixCompare{};
  };
  cudalab::Table table({"variant", "ms", "GFLOP/s", "vs sync", "check"});
  const double flops = 2.0 * m * double(n) * k;
  double sync_ms = 0.0;
  int status = 0;
  for (const lab12::Technique& t : lab12::kTechniques) {
    if (t.k_n_multiples_of_4 && (k % 4 != 0 || n % 4 != 0)) {
      table.add_row({t.title, "-", "-", "-", "k or n not a multiple of 4"});
      continue;
    }
    const auto r = cudalab::run_variant(
        [&](cudaStream_t s) { t.launcher(d_a.data(), d_b.data(), d_c.data(), m, n, k, s); },
        opt.reps, t.title, opt.check ? verify : nullptr, [&] { d_c.fill_bytes(0xFF); });
    if (!r.ok) status = 1;
    if (sync_ms == 0.0) sync_ms = r.median_ms;
    table.add_row({t.title, cudalab::fixed(r.median_ms, 3),
                   cudalab::fixed(flops / (r.median_ms * 1e6), 0),
                   cudalab::fixed(sync_ms / r.median_ms, 2) + "x", r.verdict});
  }
  table.print(std::cout);
  return status;
}

int run(const cudalab::DemoOptions& opt) {
  if (opt.block != lab12::kTile) {
    std::cout << "note: the tile is a compile-time constant (kTile = " << lab12::kTile
              << "); --block " << opt.block << " is ignored\n";
  }
  const int n = opt.size;
  int status = run_config("full occupancy", n, n, n, opt);
  // One block per SM: a grid of at most one block per SM, k long enough to time.
  const int sms = cudalab::query_device().sm_count;
  const int gy = std::max(1, static_cast<int>(std::sqrt(double(sms))));
  const int gx = std::max(1, sms / gy);
  const int k_long = 4 * n + 12;  // not a multiple of the tile; a multiple of 4
  status |= run_config("latency exposed (one block per SM)", gy * lab12::kTile, gx * lab12::kTile,
                       k_long, opt);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  cudalab::DemoLimits limits;
  limits.default_size = 4096;
  limits.max_size = 16384;
  limits.default_block = lab12::kTile;
  return cudalab::run_demo(argc, argv,
                           "lab12 prefetch: synchronous vs prefetched vs pipelined tiled matmul",
                           limits, run);
}
