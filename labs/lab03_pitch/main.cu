// SPDX-License-Identifier: BSD-3-Clause
// Lab 03 demo: the packed (given) and the pitched thread-per-element matmul on an odd-sized
// problem, where packed rows start at unaligned addresses and pitched rows do not.
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
#include "pitch.cuh"

namespace {

/// One row of the table: how to run the variant and how to read its C back.
struct Variant {
  std::string name;
  std::size_t row_stride;  // bytes from one row of C to the next
  dim3 block;
  cudalab::GpuWork run;
  std::function<std::vector<float>()> result;
  std::function<void()> poison;
};

/// A, B and C (n x n) in one layout, packed or pitched: what a technique's launcher takes,
/// and how to read C back and poison it.
struct Operands {
  const float* a;
  std::size_t pitch_a;
  const float* b;
  std::size_t pitch_b;
  float* c;
  std::size_t pitch_c;
  std::function<std::vector<float>()> result;
  std::function<void()> poison;
};

/// Largest size whose every row of C `--check` compares with the host reference, which is
/// single-threaded and costs O(rows x n^2): a few seconds for all of a 2048 C, but the better
/// part of an hour for a 16384 one. Beyond it, 8 whole rows at the top, in the middle and at
/// the bottom (every column, the right edge included; a few seconds at 16384).
constexpr int kFullCheckSize = 2048;

std::string block_text(dim3 b) {
  return std::to_string(b.x) + "x" + std::to_string(b.y);
}

int run(const cudalab::DemoOptions& opt) {
  const int n = opt.size;  // M = N = K = n
  const std::size_t count = std::size_t(n) * n;
  const std::vector<float> h_a = cudalab::random_matrix(n, n, cudalab::Fill::PlusMinusOne, 1);
  const std::vector<float> h_b = cudalab::random_matrix(n, n, cudalab::Fill::PlusMinusOne, 2);

  // Packed copies for the given baseline, pitched copies for your kernel.
  cudalab::DeviceBuffer<float> d_a(count), d_b(count), d_c(count);
  d_a.upload(h_a);
  d_b.upload(h_b);
  lab03::PitchedMatrix p_a(n, n), p_b(n, n), p_c(n, n);
  p_a.upload(h_a);
  p_b.upload(h_b);
  std::cout << "rows of " << n << " floats: " << n * sizeof(float) << " bytes packed, pitch "
            << p_a.pitch_bytes() << " bytes from cudaMallocPitch\n";

  const std::size_t packed = n * sizeof(float);
  const Operands packed_rows{d_a.data(),
                             packed,
                             d_b.data(),
                             packed,
                             d_c.data(),
                             packed,
                             [&] { return d_c.to_host(); },
                             [&] { d_c.fill_bytes(0xFF); }};
  const Operands pitched_rows{p_a.data(),
                              p_a.pitch_bytes(),
                              p_b.data(),
                              p_b.pitch_bytes(),
                              p_c.data(),
                              p_c.pitch_bytes(),
                              [&] { return p_c.to_host(); },
                              [&] { p_c.fill_bytes(0xFF); }};

  // Every technique of the table, in its layout, with each block.
  std::vector<Variant> variants;
  for (const dim3 block : {dim3(opt.block, opt.block), dim3(32, 8)}) {
    for (const lab03::Technique& t : lab03::kTechniques) {
      const Operands& o = t.packed_rows_only ? packed_rows : pitched_rows;
      variants.push_back({t.title, o.pitch_c, block,
                          [&o, &t, block, n](cudaStream_t s) {
                            t.launcher(o.a, o.pitch_a, o.b, o.pitch_b, o.c, o.pitch_c, n, n, n,
                                       block, s);
                          },
                          o.result, o.poison});
    }
  }

  const std::vector<cudalab::ReferenceRows> expected =
      opt.check ? cudalab::reference_rows(h_a, h_b, n, kFullCheckSize)
                : std::vector<cudalab::ReferenceRows>{};
  std::vector<double> ms(variants.size());
  std::vector<std::string> verdicts(variants.size(), "-");
  int status = 0;
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const Variant& v = variants[i];
    const cudalab::OutputCheck check = [&] {
      return cudalab::compare_rows(expected, v.result(), n);
    };
    const auto r = cudalab::run_variant(v.run, opt.reps, v.name + " block " + block_text(v.block),
                                        opt.check ? check : nullptr, v.poison);
    if (!r.ok) status = 1;
    verdicts[i] = r.verdict;
    ms[i] = r.median_ms;
  }

  const double slowest = *std::max_element(ms.begin(), ms.end());
  const double flop = 2.0 * n * double(n) * n;
  cudalab::Table table({"variant", "row stride (B)", "block", "ms", "GFLOP/s", "speedup", "check"});
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const Variant& v = variants[i];
    table.add_row({v.name, std::to_string(v.row_stride), block_text(v.block),
                   cudalab::fixed(ms[i], 3), cudalab::fixed(flop / (ms[i] * 1e6), 1),
                   cudalab::fixed(slowest / ms[i], 2) + "x", verdicts[i]});
  }
  table.print(std::cout);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  cudalab::DemoLimits limits;
  limits.default_size = 2001;
  limits.max_size = 16384;
  limits.default_block = 16;
  return cudalab::run_demo(argc, argv, "lab03 pitch: pitched vs packed thread-per-element matmul",
                           limits, run);
}
