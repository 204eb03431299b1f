// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 11, vec4_copy.cu: the SASS of the compiled copy kernel (cuobjdump: 16-byte
// global loads and stores); the float4 copy exact for widths {1, 3, 4, 5, 1001} and base
// offsets of 0-3 floats, bit for bit, nothing written outside the rows, with two grids
// (captured on the launcher's stream, poisoned memory, two data sets), past 2^31 bytes;
// memcheck (a misaligned float4 is an error); speed against a device-to-device copy and the
// scalar copy (few warps per SM and full occupancy).

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "common/kit.cuh"
#include "cudalab/bench.cuh"
#include "cudalab/ceilings.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/grading.hpp"
#include "cudalab/graph_capture.cuh"
#include "cudalab/matrix.hpp"
#include "cudalab/testing.hpp"
#include "cudalab/tools.hpp"
#include "vectorized.cuh"
#include "vectorized_grading.cuh"

namespace {

using namespace lab11_grading;

// The compiled kernel holds 128-bit instructions (cuobjdump -sass of this grader).
TEST(Vec4SassCpu, CopyKernelMovesItsBodyWith128BitGlobalAccesses) {
  if (!t::sass_of_this_grader().skip_reason.empty()) {
    GTEST_SKIP() << t::sass_of_this_grader().skip_reason;
  }
  const char* kernel = lab11::vec4_copy_kernel().name;
  expect_wide_ops({kernel}, {"LDG", "STG"}, kernel);
}

// ---------------------------------------------------------------------------
// The float4 copy (GPU): exact, bit for bit, for any width and base offset.
// ---------------------------------------------------------------------------
/// A pitched copy problem: rows x width floats, the source and destination rows starting
/// src_off / dst_off floats past a 256-byte aligned allocation, pitches in bytes.
struct CopyCase {
  int width;
  int rows;
  int src_off;
  int dst_off;
  std::size_t src_pitch;  ///< 0: the row rounded up to 512 bytes (as cudaMallocPitch might)
  std::size_t dst_pitch;  ///< 0: the same rule
};

std::size_t pitch_of(const CopyCase& c, std::size_t given) {
  return given != 0 ? given : round_up(std::size_t(c.width) * 4 + 16, 512);
}

std::string copy_case_name(const ::testing::TestParamInfo<CopyCase>& p) {
  const CopyCase& c = p.param;
  return std::to_string(c.width) + "x" + std::to_string(c.rows) + "_offsets" +
         std::to_string(c.src_off) + std::to_string(c.dst_off) + "_pitches" +
         std::to_string(pitch_of(c, c.src_pitch)) + "_" + std::to_string(pitch_of(c, c.dst_pitch));
}

/// Widths {1, 3, 4, 5, 1001} at base offsets 0-3 (float4 path with every head), pitches
/// that break the 16-byte phase and offsets that differ (the scalar path), and a tail-only row.
const CopyCase kCopyCases[] = {
    {1, 7, 1, 1, 0, 0},      {3, 5, 2, 2, 0, 0},          {4, 9, 0, 0, 0, 0},
    {5, 33, 3, 3, 0, 0},     {1001, 65, 1, 1, 0, 0},      {1001, 3, 2, 2, 0, 0},
    {1001, 17, 3, 3, 0, 0},  {1001, 9, 0, 0, 4008, 4008}, {5, 40, 1, 3, 0, 0},
    {4099, 129, 0, 2, 0, 0},
};

/**
 * A pitched copy's device buffers and its host mirrors. The source ends at its last row's
 * last element (memcheck sees a read past it, e.g. a ragged tail read as one float4); the
 * destination keeps its last row's padding and 8 floats after it, all poisoned, so a write
 * past a row shows by value.
 */
struct CopyBuffers {
  CopyCase c;
  std::size_t sp, dp;  ///< pitches in bytes
  cudalab::DeviceBuffer<float> d_src, d_dst;
  std::vector<float> h_src;

  explicit CopyBuffers(const CopyCase& cc)
      : c(cc),
        sp(pitch_of(cc, cc.src_pitch)),
        dp(pitch_of(cc, cc.dst_pitch)),
        d_src(std::size_t(cc.src_off) + sp / 4 * std::size_t(cc.rows - 1) + std::size_t(cc.width)),
        d_dst(std::size_t(cc.dst_off) + dp / 4 * std::size_t(cc.rows) + 8) {}
  const float* src() const { return d_src.data() + c.src_off; }
  float* dst() { return d_dst.data() + c.dst_off; }
  /// Data set @p set behind the source (set 0: uniform floats; others: small integers).
  void fill(int set) {
    h_src = cudalab::random_matrix(1, int(d_src.size()),
                                   set == 0 ? cudalab::Fill::Uniform : cudalab::Fill::SmallInt,
                                   41 + set);
    d_src.upload(h_src);
  }
  /// The destination holds the source's rows bit for bit and the poison everywhere else.
  ::testing::AssertionResult check() const {
    const std::vector<float> got = d_dst.to_host();
    std::size_t wrong = 0;
    std::ostringstream first;
    for (std::size_t i = 0; i < got.size(); ++i) {
      const std::ptrdiff_t rel = std::ptrdiff_t(i) - c.dst_off;  // floats from the dst base
      const std::ptrdiff_t row = rel >= 0 ? rel / std::ptrdiff_t(dp / 4) : -1;
      const std::ptrdiff_t col = rel >= 0 ? rel % std::ptrdiff_t(dp / 4) : -1;
      const bool inside = rel >= 0 && row < c.rows && col < c.width;
      const std::uint32_t want =
          inside ? bits_of(h_src[std::size_t(c.src_off) + std::size_t(row) * (sp / 4) + col])
                 : kPoisonBits;
      if (bits_of(got[i]) != want) {
        if (wrong++ == 0) {
          first << (inside ? "element (row " + std::to_string(row) + ", col " +
                                 std::to_string(col) + ")"
                           : "a float outside the matrix (destination word " + std::to_string(i) +
                                 ", which a copy must not write)")
                << ": expected bits 0x" << std::hex << want << ", got 0x" << bits_of(got[i])
                << std::dec;
        }
      }
    }
    if (wrong == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << wrong << " wrong floats; first: " << first.str() << " (width " << c.width << ", rows "
           << c.rows << ", base offsets " << c.src_off << "/" << c.dst_off << " floats, pitches "
           << sp << "/" << dp << " bytes). " << cudalab::seed_note();
  }
};

/// vec4_copy with @p launch exact on four data sets (expect_exact_on_four_data_sets()).
void expect_copy_ok(const CopyCase& c, const lab11::CopyLaunch& launch) {
  CopyBuffers b(c);
  expect_exact_on_four_data_sets(
      b, b.d_dst, false, lab11::vec4_copy_kernel, "vec4_copy", [&](cudaStream_t s) {
        lab11::vec4_copy(b.src(), b.sp, b.dst(), b.dp, c.width, c.rows, launch, s);
      });
}

class Vec4CopyGpu : public ::testing::TestWithParam<CopyCase> {};

TEST_P(Vec4CopyGpu, IsExactWithTheDefaultGrid) {
  CUDALAB_REQUIRE_GPU();
  expect_copy_ok(GetParam(), {});
}

// Two blocks of one warp: every thread strides over several float4 and rows.
TEST_P(Vec4CopyGpu, IsExactWithATinyGrid) {
  CUDALAB_REQUIRE_GPU();
  expect_copy_ok(GetParam(), {32, 1, 2});
}

INSTANTIATE_TEST_SUITE_P(Cases, Vec4CopyGpu, ::testing::ValuesIn(kCopyCases), copy_case_name);

// Range: row offsets past 2^31 bytes (an int row * pitch wraps); the rows are
// lab11_grading::fill_pattern_kernel's.
float pattern(int row, int col, std::uint32_t salt) {
  return float((std::uint32_t(row) * 2654435761u + std::uint32_t(col) * 40503u + salt) & 0xFFFFFu);
}

TEST(Vec4CopyRangeGpu, RowsPastTwoGibibytesAreCopied) {
  CUDALAB_REQUIRE_GPU();
  constexpr int kWidth = 4093;  // a tail of 1 float after a head of 0
  constexpr std::size_t kPitch = 16384;
  constexpr int kRows = 140000;  // 140000 x 16 KiB = 2.29 GB per matrix
  const std::size_t words = kPitch / 4 * kRows;
  CUDALAB_REQUIRE_FREE_MEMORY(2 * words * sizeof(float));
  cudalab::DeviceBuffer<float> d_src(words), d_dst(words);
  t::CapturedWork cap = t::CapturedWork::capture([&](cudaStream_t s) {
    lab11::vec4_copy(d_src.data(), kPitch, d_dst.data(), kPitch, kWidth, kRows, {}, s);
  });
  ASSERT_TRUE(cap.holds_only(kit::only_kernel(lab11::vec4_copy_kernel())));
  const auto salt = std::uint32_t(cudalab::make_rng(51)());
  fill_pattern_kernel<<<dim3(4, 4096), 256>>>(d_src.data(), kPitch, kWidth, kRows, salt);
  CUDA_CHECK_LAST_LAUNCH();
  t::poison(d_dst.data(), d_dst.bytes());
  CUDA_CHECK(cudaDeviceSynchronize());
  cap.run();
  std::vector<float> row(kWidth);
  for (const int r : {0, 1, 131071, 131072, kRows - 2, kRows - 1}) {
    CUDA_CHECK(cudaMemcpy(row.data(), d_dst.data() + std::size_t(r) * (kPitch / 4),
                          kWidth * sizeof(float), cudaMemcpyDeviceToHost));
    for (int col = 0; col < kWidth; ++col) {
      ASSERT_EQ(bits_of(row[col]), bits_of(pattern(r, col, salt)))
          << "row " << r << " (byte offset " << std::size_t(r) * kPitch << "), col " << col
          << ": a row offset past 2^31 bytes needs size_t arithmetic";
    }
  }
}

// ---------------------------------------------------------------------------
// A small run the sanitizer test re-runs under its tool.
// ---------------------------------------------------------------------------
TEST(SmallShapesGpu, Vec4CopyOnOffsetRows) {
  CUDALAB_REQUIRE_GPU();
  for (const CopyCase& c :
       {CopyCase{1001, 5, 1, 1, 0, 0}, CopyCase{1001, 5, 2, 2, 0, 0}, CopyCase{1001, 5, 3, 3, 0, 0},
        CopyCase{37, 6, 1, 2, 0, 0}, CopyCase{1001, 4, 0, 0, 4008, 4008}}) {
    SCOPED_TRACE(std::to_string(c.width) + " floats, offsets " + std::to_string(c.src_off) + "/" +
                 std::to_string(c.dst_off));
    CopyBuffers b(c);
    b.fill(0);
    b.d_dst.fill_bytes(0xFF);
    lab11::vec4_copy(b.src(), b.sp, b.dst(), b.dp, c.width, c.rows);
    CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT_TRUE(b.check());
  }
}

// ---------------------------------------------------------------------------
// Speed (GPU, 8192^2 = 256 MiB per matrix): outputs checked, inputs alternating.
// ---------------------------------------------------------------------------
/// The float4 copy of 8192^2 floats, captured (only the student's kernel), and its checks.
struct PerfCopy {
  static constexpr std::size_t kPitch = std::size_t(kPerfSide) * 4;
  t::AlternatingInput<float> in = pattern_sets(71);
  cudalab::DeviceBuffer<float> d_out{kPerfCount};
  cudalab::DeviceBuffer<float> d_base{kPerfCount};
  /// The checked rows of the float4 copy's output after every run.
  kit::RunRows<float> run_rows = perf_run_rows(d_out.data());
  double bytes() const { return 2.0 * double(kPerfCount) * sizeof(float); }

  t::CapturedWork capture(const lab11::CopyLaunch& launch) {
    t::CapturedWork cap = t::CapturedWork::capture([&](cudaStream_t s) {
      lab11::vec4_copy(in.live.data(), kPitch, d_out.data(), kPitch, kPerfSide, kPerfSide, launch,
                       s);
    });
    EXPECT_TRUE(cap.holds_only(kit::only_kernel(lab11::vec4_copy_kernel())));
    return cap;
  }
  /// The before_candidate step of the float4 copy: keeps its checked rows as the previous run
  /// left them, then copies the next input and poisons the output.
  cudalab::GpuWork before_copy() { return run_rows.before_each_run(in, next_run(in, d_out)); }
  /// The checked rows of every earlier run (and of the last warm-up) are exactly the rows of
  /// the input that run read (input_view()).
  void expect_every_run_copied() const {
    run_rows.expect_every_run(
        [&](long run) -> const std::vector<float>& { return in.input_view(run); },
        [](const std::vector<float>& input, int r) {
          return std::vector<float>(input.begin() + std::ptrdiff_t(r) * kPerfSide,
                                    input.begin() + std::ptrdiff_t(r + 1) * kPerfSide);
        },
        "the timed float4 copy");
  }
  /// The last timed output is exactly the input its run read (last_input()).
  ::testing::AssertionResult output_ok() const {
    return cudalab::testing::matrices_match(in.last_input(), d_out.to_host(), kPerfSide, kPerfSide,
                                            0.0)
           << " (the timed float4 copy, input set " << in.last()
           << " with that run's changed elements; no speed verdict)";
  }
};

TEST(CopyPerf, Float4CopyReachesTheDeviceCopyBandwidth) {
  CUDALAB_REQUIRE_GPU();
  PerfCopy p;
  t::CapturedWork cap = p.capture({});
  if (HasFailure()) return;
  auto opts = perf_options(15);
  opts.before_candidate = p.before_copy();
  const auto stats = cudalab::benchmark(cap.as_work(), opts);
  CUDA_CHECK(cudaDeviceSynchronize());
  p.expect_every_run_copied();
  if (HasFailure()) return;  // no speed verdict for a wrong result
  ASSERT_TRUE(p.output_ok());
  const double gbps = p.bytes() / (stats.median_ms * 1e6);
  t::expect_possible(gbps, cudalab::device_ceilings().dram_gbps, "GB/s", "float4 copy");
  t::expect_share(gbps, t::d2d_copy_gbps(kPerfCount * sizeof(float)), "GB/s",
                  "float4 copy vs cudaMemcpyAsync device-to-device");
}

/// float4 vs scalar copy, both with @p launch, interleaved; the float4 output checked.
void expect_copy_speedup(const lab11::CopyLaunch& launch, const std::string& what) {
  PerfCopy p;
  t::CapturedWork cap = p.capture(launch);
  if (::testing::Test::HasFailure()) return;
  auto opts = perf_options(9);
  opts.before_baseline = next_run(p.in, p.d_base);
  opts.before_candidate = p.before_copy();  // each run tagged with its input, not the baseline's
  const auto cmp = cudalab::compare(
      [&](cudaStream_t s) {
        lab11::scalar_copy(p.in.live.data(), PerfCopy::kPitch, p.d_base.data(), PerfCopy::kPitch,
                           kPerfSide, kPerfSide, launch, s);
      },
      cap.as_work(), opts);
  CUDA_CHECK(cudaDeviceSynchronize());
  p.expect_every_run_copied();
  if (::testing::Test::HasFailure()) return;  // no speed verdict for a wrong result
  ASSERT_TRUE(p.output_ok());
  const double gbps = p.bytes() / (cmp.candidate.median_ms * 1e6);
  t::record_measurement("float4 copy", gbps, "GB/s");
  t::record_measurement("scalar copy", p.bytes() / (cmp.baseline.median_ms * 1e6), "GB/s");
  t::expect_possible(gbps, cudalab::device_ceilings().dram_gbps, "GB/s", "float4 copy");
  t::expect_speedup(cmp, what);
}

TEST(CopyPerf, Float4BeatsScalarWithFourWarpsPerSm) {
  CUDALAB_REQUIRE_GPU();
  const int sms = cudalab::query_device().sm_count;
  expect_copy_speedup({128, 1, sms}, "float4 vs scalar copy, one block of 128 threads per SM");
}

TEST(CopyPerf, Float4KeepsUpWithScalarAtFullOccupancy) {
  CUDALAB_REQUIRE_GPU();
  expect_copy_speedup({}, "float4 vs scalar copy, a thread per float4 / float (256-thread blocks)");
}

// ---------------------------------------------------------------------------
// compute-sanitizer: the copy under memcheck (a misaligned float4 is an error, and so is a
// read past the source, which ends at its last row's last element: CopyBuffers).
// ---------------------------------------------------------------------------
CUDALAB_SANITIZER_TEST(CopySanitizer, MemcheckIsClean, "memcheck",
                       "SmallShapesGpu.Vec4CopyOnOffsetRows")

}  // namespace
