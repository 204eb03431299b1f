// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file vectorized_grading.cuh
 * @brief What the test files of lab 11's grader share: bit patterns and pitches, the 128-bit
 * SASS lookup, and the inputs, outputs and checked rows of the 8192^2 speed tests.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/kit.cuh"
#include "cudalab/bench.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/grading.hpp"
#include "cudalab/testing.hpp"
#include "cudalab/tools.hpp"

namespace lab11_grading {

// The kit's names the test files use (each says `using namespace lab11_grading;`).
namespace t = cudalab::testing;
namespace kit = cudalab::kit;

/// Side of the square matrices of the speed tests: 8192^2 floats = 256 MiB, >> the L2.
inline constexpr int kPerfSide = 8192;

/// The bits of a poisoned float (t::poison()).
inline constexpr std::uint32_t kPoisonBits = 0xFFFFFFFFu;

/// The bits of @p f.
inline std::uint32_t bits_of(float f) {
  std::uint32_t u = 0;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

/// @p x rounded up to a multiple of @p to.
inline std::size_t round_up(std::size_t x, std::size_t to) {
  return (x + to - 1) / to * to;
}

// ---------------------------------------------------------------------------
// A graded launcher, exact on four data sets behind the same buffers.
// ---------------------------------------------------------------------------
/**
 * Fills data set 0 into @p b (b.fill(set)), captures @p launch (the graph may hold only
 * @p kernel's kernel) and replays it on data sets 0 and 1, each with @p d_out poisoned (and
 * every SM's shared memory where @p poison_shared) and checked by b.check(); then calls
 * @p launch directly twice more with data sets 2 and 3 behind the same pointers
 * (kit::expect_fresh_results_on_same_buffers(@p what)).
 */
template <typename Buffers, typename Launch>
void expect_exact_on_four_data_sets(Buffers& b, cudalab::DeviceBuffer<float>& d_out,
                                    bool poison_shared, cudalab::KernelInfo (*kernel)(),
                                    const char* what, Launch launch) {
  b.fill(0);
  t::CapturedWork cap = t::CapturedWork::capture(launch);
  ASSERT_TRUE(cap.holds_only(kit::only_kernel(kernel())));
  for (int set = 0; set < 2; ++set) {
    SCOPED_TRACE("data set " + std::to_string(set));
    b.fill(set);
    t::poison(d_out.data(), d_out.bytes());
    if (poison_shared) t::poison_shared_memory();
    CUDA_CHECK(cudaDeviceSynchronize());
    cap.run();
    ASSERT_TRUE(b.check());
  }
  // Same buffers, new data: the launcher called directly twice more with the same arguments,
  // new data sets (2 and 3) behind them.
  kit::expect_fresh_results_on_same_buffers(
      what,
      [&](int round) {
        b.fill(2 + round);
        t::poison(d_out.data(), d_out.bytes());
      },
      launch, [&](int) { ASSERT_TRUE(b.check()); }, 2);
}

// ---------------------------------------------------------------------------
// The compiled kernels hold 128-bit instructions (cuobjdump -sass of this grader).
// ---------------------------------------------------------------------------
/// Every SASS function (each architecture) whose name contains all of @p parts uses each
/// opcode of @p ops at 128 bits.
inline void expect_wide_ops(const std::vector<std::string>& parts,
                            const std::vector<std::string>& ops, const std::string& what) {
  static const std::regex wide(R"(^(LDG|STG|LDS|STS)(\.[A-Z0-9_]+)*\.128\b)");
  const t::SassListing& sass = t::sass_of_this_grader();
  int functions = 0;
  for (const t::SassFunction& f : sass.functions) {
    bool match = true;
    for (const auto& p : parts) match = match && f.name.find(p) != std::string::npos;
    if (!match) continue;
    ++functions;
    std::set<std::string> found;  // LDG, STG, LDS, STS at 128 bits
    for (const std::string& op : f.opcodes) {
      std::smatch m;
      if (std::regex_search(op, m, wide)) found.insert(m[1]);
    }
    for (const auto& op : ops) {
      EXPECT_TRUE(found.count(op))
          << what << " (" << f.name << ", " << f.arch << ") has no 128-bit " << op << " (e.g. "
          << op << ".E.128 / " << op << ".128) in its SASS: does it access memory through float4?";
    }
  }
  ASSERT_GT(functions, 0) << "no function named like " << parts.front()
                          << " in cuobjdump -sass of this grader:\n"
                          << sass.excerpt;
}

// ---------------------------------------------------------------------------
// Device-filled patterns: the range test's rows past 2^31 bytes and the speed tests' inputs.
// ---------------------------------------------------------------------------
/// Fills rows x width floats of a pitched matrix with pattern(row, col, salt) of the range
/// test. Static: each grader source that includes this header has its own copy.
static __global__ void fill_pattern_kernel(float* base, std::size_t pitch, int width, int rows,
                                           std::uint32_t salt) {
  for (int row = blockIdx.y; row < rows; row += gridDim.y) {
    float* r = reinterpret_cast<float*>(reinterpret_cast<char*>(base) + std::size_t(row) * pitch);
    for (int col = blockIdx.x * blockDim.x + threadIdx.x; col < width;
         col += gridDim.x * blockDim.x) {
      r[col] =
          float((std::uint32_t(row) * 2654435761u + std::uint32_t(col) * 40503u + salt) & 0xFFFFFu);
    }
  }
}

// ---------------------------------------------------------------------------
// Speed (GPU, 8192^2 = 256 MiB per matrix): outputs checked, inputs alternating.
// ---------------------------------------------------------------------------
/// The benchmark options of a speed test: 2 warm-up runs, @p reps timed runs.
inline cudalab::BenchOptions perf_options(int reps) {
  cudalab::BenchOptions o;
  o.warmup = 2;
  o.reps = reps;
  return o;
}

inline constexpr std::size_t kPerfCount = std::size_t(kPerfSide) * kPerfSide;

/// Two 8192^2 inputs filled on the device from per-run salts (no host generation), alternating
/// behind one live buffer (AlternatingInput): copy_next() (an untimed before_* step) copies the
/// next set there and replaces about sqrt(n) elements at positions drawn for that run.
inline t::AlternatingInput<float> pattern_sets(std::uint64_t stream) {
  auto rng = cudalab::make_rng(stream);
  cudalab::DeviceBuffer<float> sets[2] = {cudalab::DeviceBuffer<float>(kPerfCount),
                                          cudalab::DeviceBuffer<float>(kPerfCount)};
  for (auto& set : sets) {
    fill_pattern_kernel<<<dim3(8, 2048), 256>>>(set.data(), kPerfSide * sizeof(float), kPerfSide,
                                                kPerfSide, std::uint32_t(rng()));
    CUDA_CHECK_LAST_LAUNCH();
  }
  return t::AlternatingInput<float>(std::move(sets[0]), std::move(sets[1]));
}

/// The next input and a poisoned @p out before a timed run (the same for both sides).
inline cudalab::GpuWork next_run(t::AlternatingInput<float>& in,
                                 cudalab::DeviceBuffer<float>& out) {
  return [&in, &out](cudaStream_t s) {
    in.copy_next(s);
    t::poison(out.data(), out.bytes(), s);
  };
}

/// Three rows of an 8192^2 output, drawn at random after every run.
inline kit::RunRows<float> perf_run_rows(const float* out) {
  return kit::RunRows<float>(out, kPerfSide, kPerfSide);
}

}  // namespace lab11_grading
