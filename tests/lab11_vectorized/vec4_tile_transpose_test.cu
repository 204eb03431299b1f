// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 11, vec4_tile_transpose.cu: the SASS of the compiled tile stage (cuobjdump:
// 16-byte global loads and shared loads and stores) and the given launcher's argument checks
// (CPU); the float4 tile stage exact on ragged pitched shapes and with another valid layout,
// broken by a broken layout, its tile one unpadded float4 tile; racecheck, memcheck and
// synccheck; speed against the padded transpose and the device-to-device copy. The layouts'
// bank model and wavefronts: vec4_layouts_test.cu.

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "common/kit.cuh"
#include "cudalab/bank_model.hpp"
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
TEST(Vec4SassCpu, TileStageUses128BitGlobalLoadsAndSharedLoadsAndStores) {
  if (!t::sass_of_this_grader().skip_reason.empty()) {
    GTEST_SKIP() << t::sass_of_this_grader().skip_reason;
  }
  const std::string kernel = lab11::vec4_tile_transpose_kernel<lab11::InterleavedVec4>().name;
  expect_wide_ops({kernel, "InterleavedVec4"}, {"LDG", "STS", "LDS"}, kernel + "<InterleavedVec4>");
}

/// vec4_tile_transpose<Vec4Layout>'s contract, each case one bad argument of an otherwise valid
/// call (8 x 8 floats, 32-byte pitches, a 256-byte aligned input): std::invalid_argument for
/// non-positive sizes, a misaligned input or input pitch, a pitch below its row, or more tile
/// rows than gridDim.y allows.
template <typename Vec4Layout>
void expect_tile_transpose_rejects_bad_arguments(const std::string& layout) {
  struct Case {
    std::size_t in_offset, in_pitch, out_pitch;
    int rows, cols;
    std::string why;
  };
  cudalab::kit::OneChange<Case> cases(Case{0, 32, 32, 8, 8, ""});
  for (const int bad : {0, -1}) {
    cases.add("rows " + std::to_string(bad) + " is not positive", [=](Case& c) { c.rows = bad; });
    cases.add("cols " + std::to_string(bad) + " is not positive", [=](Case& c) { c.cols = bad; });
  }
  for (const std::size_t bad : {4, 8, 12}) {
    cases.add("d_in " + std::to_string(bad) + " bytes past a 16-byte boundary (float4 loads)",
              [=](Case& c) { c.in_offset = bad; });
  }
  for (const std::size_t bad : {34, 36, 40, 44}) {
    cases.add(
        "in_pitch " + std::to_string(bad) + " is not a multiple of 16 (float4 loads of every row)",
        [=](Case& c) { c.in_pitch = bad; });
  }
  for (const std::size_t bad : {0, 16}) {  // multiples of 16
    cases.add("in_pitch " + std::to_string(bad) + " is below the 32-byte input row",
              [=](Case& c) { c.in_pitch = bad; });
  }
  for (const std::size_t bad : {0, 28}) {
    cases.add("out_pitch " + std::to_string(bad) + " is below the 32-byte output row",
              [=](Case& c) { c.out_pitch = bad; });
  }
  const int past = int(cudalab::kMaxGridYZ) * lab11::kTile + 1;
  for (const int rows : {past, std::numeric_limits<int>::max()}) {
    cases.add(std::to_string(rows) + " input rows need more than 65535 tile rows of 32 (gridDim.y)",
              [=](Case& c) {
                c.rows = rows;
                c.out_pitch = std::size_t(rows) * sizeof(float);  // an output row that holds them
              });
  }
  const std::string name = "vec4_tile_transpose<" + layout + ">";
  for (const Case& c : cases.list) {
    const std::string what =
        name + "(d_in=<aligned + " + std::to_string(c.in_offset) +
        ">, in_pitch=" + std::to_string(c.in_pitch) + ", out_pitch=" + std::to_string(c.out_pitch) +
        ", rows=" + std::to_string(c.rows) + ", cols=" + std::to_string(c.cols) + ")";
    EXPECT_TRUE(cudalab::kit::throws_invalid_argument(what, [&] {
      lab11::vec4_tile_transpose<Vec4Layout>(cudalab::kit::unallocated<const float>(c.in_offset),
                                             c.in_pitch, cudalab::kit::unallocated<float>(),
                                             c.out_pitch, c.rows, c.cols);
    })) << c.why;
  }
}

// The tile stage's launcher is given (vec4_tile_transpose.cu, outside the TODO region): not
// graded. Every layout's instance runs the same checks.
TEST(GivenArgumentChecksCpu, Vec4TileTransposeRejectsBadSizesAlignmentsPitchesAndTallGrids) {
  expect_tile_transpose_rejects_bad_arguments<lab11::InterleavedVec4>("InterleavedVec4");
  expect_tile_transpose_rejects_bad_arguments<lab11::PlainVec4>("PlainVec4");
  expect_tile_transpose_rejects_bad_arguments<lab11::MirroredVec4>("MirroredVec4");
  expect_tile_transpose_rejects_bad_arguments<lab11::ProbeVec4>("ProbeVec4");
}

// ---------------------------------------------------------------------------
// The float4 tile stage (GPU): transposes of pitched matrices of any shape.
// ---------------------------------------------------------------------------
using TransposeShape = kit::Extent;

/// Ragged (cols % 4 = 1, 2, 3), single rows and columns, tiles cut at both edges.
const TransposeShape kTransposeShapes[] = {{1, 1},      {1, 5},    {3, 1},    {31, 33},
                                           {33, 66},    {64, 64},  {257, 31}, {100, 1001},
                                           {1000, 999}, {2049, 67}};

/// The pitched transpose problem: in pitch rounded to 512 bytes, out pitch deliberately
/// not a multiple of 16 (4 floats of slack).
/**
 * A pitched transpose's buffers: the input ends at its last row's last element (memcheck sees
 * a read past it) and its rows' padding holds NaN (a padding float that reaches the output
 * shows); the output keeps every row's padding, poisoned, so a write past a row shows.
 */
struct TransposeBuffers {
  int rows, cols;
  std::size_t ip, op;
  cudalab::DeviceBuffer<float> d_in, d_out;
  std::vector<float> h_in;
  TransposeBuffers(int r, int c)
      : rows(r),
        cols(c),
        ip(round_up(std::size_t(c) * 4, 512)),
        op(std::size_t(r) * 4 + 12),
        d_in(ip / 4 * std::size_t(r - 1) + std::size_t(c)),
        d_out(op / 4 * std::size_t(c)) {}
  /// Data set @p set in the rows (host mirror: whole rows of ip bytes), NaN in the padding.
  void fill(int set) {
    h_in = cudalab::random_matrix(
        rows, int(ip / 4), set == 0 ? cudalab::Fill::Uniform : cudalab::Fill::SmallInt, 61 + set);
    for (std::size_t i = 0; i < h_in.size(); ++i) {
      if (i % (ip / 4) >= std::size_t(cols)) h_in[i] = std::numeric_limits<float>::quiet_NaN();
    }
    d_in.upload(h_in.data());  // the first d_in.size() floats: up to the last row's end
  }
  ::testing::AssertionResult check() const {
    const std::vector<float> got = d_out.to_host();
    std::size_t wrong = 0;
    std::ostringstream first;
    for (int orow = 0; orow < cols; ++orow) {
      for (std::size_t ocol = 0; ocol < op / 4; ++ocol) {
        const bool inside = ocol < std::size_t(rows);
        const std::uint32_t want =
            inside ? bits_of(h_in[ocol * (ip / 4) + std::size_t(orow)]) : kPoisonBits;
        const std::uint32_t have = bits_of(got[std::size_t(orow) * (op / 4) + ocol]);
        if (have != want && wrong++ == 0) {
          first << "out(" << orow << ", " << ocol << ")"
                << (inside ? "" : " (row padding, which must not be written)")
                << ": expected bits 0x" << std::hex << want << ", got 0x" << have << std::dec;
        }
      }
    }
    if (wrong == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << wrong << " wrong floats; first: " << first.str() << " (input " << rows << " x "
           << cols << ", pitches " << ip << "/" << op << " bytes). " << cudalab::seed_note();
  }
};

/// vec4_tile_transpose<Layout> exact on four data sets (expect_exact_on_four_data_sets(); the
/// graph: that layout's kernel alone; shared memory poisoned before each replay).
template <typename Layout>
void expect_transpose_ok(int rows, int cols) {
  TransposeBuffers b(rows, cols);
  expect_exact_on_four_data_sets(b, b.d_out, true, lab11::vec4_tile_transpose_kernel<Layout>,
                                 "vec4_tile_transpose", [&](cudaStream_t s) {
                                   lab11::vec4_tile_transpose<Layout>(
                                       b.d_in.data(), b.ip, b.d_out.data(), b.op, rows, cols, s);
                                 });
}

class TileStageGpu : public ::testing::TestWithParam<TransposeShape> {};

TEST_P(TileStageGpu, InterleavedTransposeIsExact) {
  CUDALAB_REQUIRE_GPU();
  expect_transpose_ok<lab11::InterleavedVec4>(GetParam().rows, GetParam().cols);
}

// Any valid float4 layout gives the same transpose: the kernel stores and loads through the
// layout it is given.
TEST_P(TileStageGpu, IsExactWithAnotherValidLayout) {
  CUDALAB_REQUIRE_GPU();
  expect_transpose_ok<lab11::MirroredVec4>(GetParam().rows, GetParam().cols);
}

INSTANTIATE_TEST_SUITE_P(Shapes, TileStageGpu, ::testing::ValuesIn(kTransposeShapes),
                         kit::shape_name);

// A broken layout (two float4 per slot) must break the transpose.
TEST(TileStageLayoutUseGpu, ABrokenLayoutBreaksTheTranspose) {
  CUDALAB_REQUIRE_GPU();
  TransposeBuffers b(64, 64);
  b.fill(0);
  t::poison(b.d_out.data(), b.d_out.bytes());
  lab11::vec4_tile_transpose<lab11::ProbeVec4>(b.d_in.data(), b.ip, b.d_out.data(), b.op, 64, 64);
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto got = b.d_out.to_host();
  std::size_t differ = 0;
  for (int r = 0; r < 64; ++r) {
    for (int c = 0; c < 64; ++c) {
      differ += bits_of(got[std::size_t(r) * (b.op / 4) + c]) !=
                bits_of(b.h_in[std::size_t(c) * (b.ip / 4) + r]);
    }
  }
  t::record_measurement("elements changed by the broken layout", double(differ), "");
  // The slots the broken layout still keeps apart come through: a kernel that writes
  // nothing does not pass by leaving the poison.
  EXPECT_LT(differ, 64u * 64u * 7u / 8u)
      << "with the broken layout half of the float4 should still arrive, but " << differ
      << " of 4096 elements are wrong: does the kernel transpose at all?";
  EXPECT_GT(differ, 64u * 64u / 8u)
      << "with a float4 layout that stores two vectors in one slot the transpose should lose "
      << "half of them, but only " << differ << " of 4096 elements differ: does "
      << lab11::vec4_tile_transpose_kernel<lab11::InterleavedVec4>().name
      << " address its tile through Vec4Layout::index()?";
}

// The tile is float4 and unpadded: the interleave costs no memory.
TEST(TileStageSharedMemoryGpu, TileIsOneUnpaddedFloat4Tile) {
  CUDALAB_REQUIRE_GPU();
  cudaFuncAttributes attr{};
  const cudalab::KernelInfo kernel = lab11::vec4_tile_transpose_kernel<lab11::InterleavedVec4>();
  CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel.function));
  const std::size_t want = std::size_t(lab11::kTileVec4s) * sizeof(float4);
  t::record_measurement("tile stage static shared memory", double(attr.sharedSizeBytes), "bytes",
                        double(want));
  EXPECT_EQ(attr.sharedSizeBytes, want)
      << kernel.name << " declares " << attr.sharedSizeBytes << " bytes of static "
      << "shared memory; one kTile x kTile tile of float4 is " << want << " bytes";
}

// ---------------------------------------------------------------------------
// Small runs the sanitizer and profiler tests re-run under their tools.
// ---------------------------------------------------------------------------
TEST(SmallShapesGpu, TileStageOnRaggedShapes) {
  CUDALAB_REQUIRE_GPU();
  for (const TransposeShape s : {TransposeShape{100, 70}, TransposeShape{37, 99}}) {
    TransposeBuffers b(s.rows, s.cols);
    b.fill(0);
    b.d_out.fill_bytes(0xFF);
    lab11::vec4_tile_transpose<lab11::InterleavedVec4>(b.d_in.data(), b.ip, b.d_out.data(), b.op,
                                                       s.rows, s.cols);
    CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT_TRUE(b.check()) << s.rows << " x " << s.cols;
  }
}

// Whole tiles, both layouts: the Nsight Compute test compares their shared loads.
TEST(ProfiledShapesGpu, TileStageWithInterleavedAndPlainLayouts) {
  CUDALAB_REQUIRE_GPU();
  TransposeBuffers b(256, 256);
  b.fill(0);
  b.d_out.fill_bytes(0xFF);
  lab11::vec4_tile_transpose<lab11::InterleavedVec4>(b.d_in.data(), b.ip, b.d_out.data(), b.op, 256,
                                                     256);
  CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_TRUE(b.check()) << "interleaved";
  b.d_out.fill_bytes(0xFF);
  lab11::vec4_tile_transpose<lab11::PlainVec4>(b.d_in.data(), b.ip, b.d_out.data(), b.op, 256, 256);
  CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_TRUE(b.check()) << "plain";
}

// ---------------------------------------------------------------------------
// Speed (GPU, 8192^2 = 256 MiB per matrix): outputs checked, inputs alternating.
// ---------------------------------------------------------------------------
/// The tile stage (interleaved) on 8192^2 against the padded transpose, and as a share of the
/// device copy.
TEST(TileStagePerf, InterleavedTransposeBeatsPaddedAndNearsTheCopy) {
  CUDALAB_REQUIRE_GPU();
  constexpr std::size_t kPitch = std::size_t(kPerfSide) * 4;
  t::AlternatingInput<float> in = pattern_sets(81);
  cudalab::DeviceBuffer<float> d_out(kPerfCount), d_base(kPerfCount);
  t::CapturedWork cap = t::CapturedWork::capture([&](cudaStream_t s) {
    lab11::vec4_tile_transpose<lab11::InterleavedVec4>(in.live.data(), kPitch, d_out.data(), kPitch,
                                                       kPerfSide, kPerfSide, s);
  });
  ASSERT_TRUE(cap.holds_only(
      kit::only_kernel(lab11::vec4_tile_transpose_kernel<lab11::InterleavedVec4>())));
  auto opts = perf_options(15);
  opts.before_baseline = next_run(in, d_base);
  // Three random rows of every earlier run (kept before the next run's input is copied; each
  // tagged with its input, not the baseline's) must be the transpose of what it read.
  kit::RunRows<float> run_rows = perf_run_rows(d_out.data());
  opts.before_candidate = run_rows.before_each_run(in, next_run(in, d_out));
  const auto cmp = cudalab::compare(
      [&](cudaStream_t s) {
        lab11::padded_transpose(in.live.data(), d_base.data(), kPerfSide, kPerfSide, s);
      },
      cap.as_work(), opts);
  CUDA_CHECK(cudaDeviceSynchronize());
  kit::expect_every_run_transpose(run_rows, in, kPerfSide, kPerfSide, "the timed float4 transpose");
  if (HasFailure()) return;  // no speed verdict for a wrong result
  const std::vector<float> got = d_out.to_host();
  const std::vector<float> want = in.last_input();
  for (int r = 0; r < kPerfSide; ++r) {
    for (int c = 0; c < kPerfSide; ++c) {
      if (got[std::size_t(r) * kPerfSide + c] != want[std::size_t(c) * kPerfSide + r]) {
        FAIL() << "the timed float4 transpose is wrong at out(" << r << ", " << c << ") (input set "
               << in.last() << " with that run's changed elements); no "
               << "speed verdict. " << cudalab::seed_note();
      }
    }
  }
  const double bytes = 2.0 * double(kPerfCount) * sizeof(float);
  const double gbps = bytes / (cmp.candidate.median_ms * 1e6);
  const double copy = t::d2d_copy_gbps(kPerfCount * sizeof(float));
  t::record_measurement("padded transpose share of the device copy",
                        bytes / (cmp.baseline.median_ms * 1e6) / copy, "");
  t::expect_possible(gbps, cudalab::device_ceilings().dram_gbps, "GB/s", "float4 transpose");
  t::expect_speedup(cmp, "float4 interleaved vs padded [32][33] transpose");
  t::expect_share(gbps, copy, "GB/s",
                  "float4 interleaved transpose vs cudaMemcpyAsync device-to-device");
}

// ---------------------------------------------------------------------------
// compute-sanitizer: the tile stage under racecheck, memcheck and synccheck (its input ends at
// its last row's last element, NaN padded: TransposeBuffers).
// ---------------------------------------------------------------------------
constexpr const char* kTileSanitized = "SmallShapesGpu.TileStageOnRaggedShapes";
CUDALAB_SANITIZER_TEST(TileStageSanitizer, RacecheckIsClean, "racecheck", kTileSanitized)
CUDALAB_SANITIZER_TEST(TileStageSanitizer, MemcheckIsClean, "memcheck", kTileSanitized)
CUDALAB_SANITIZER_TEST(TileStageSanitizer, SynccheckIsClean, "synccheck", kTileSanitized)

}  // namespace
