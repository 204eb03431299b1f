// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 07, vec4_transpose.cu: the given launcher's argument checks for every float4
// layout, the student's float4 transpose exact on shapes with cols % 4 == 0 with the interleaved
// and another valid layout and the output a broken layout predicts, the grader's own
// plain-float4 baseline, the kernel's static shared memory (one unpadded tile), and its speed
// against the plain layout and a device-to-device copy. The interleave on the CPU is
// vec4_slot_test.cu's; the small run, the sanitizers and the Nsight Compute counters are
// swizzle_test.cu's; helpers in swizzle_grading.cuh.
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "swizzle_grading.cuh"

namespace {

using namespace lab07_grading;

// ---------------------------------------------------------------------------
// The launcher's argument checks (CPU: each must throw before any CUDA call). The launcher is
// given (vec4_transpose.cu, outside the TODO regions): not graded.
// ---------------------------------------------------------------------------
/// vec4_transpose<Vec4Layout>'s contract: std::invalid_argument for non-positive sizes,
/// cols % 4 != 0, a d_in that is not 16-byte aligned, or more tile rows than gridDim.y allows.
template <typename Vec4Layout>
void expect_vec4_transpose_rejects_bad_arguments(const std::string& layout) {
  struct Case {
    int rows, cols;
    std::size_t in_offset;  ///< bytes past a 256-byte aligned address
    std::string why;
  };
  const int past = int(cudalab::kMaxGridYZ) * kTile + 1;
  std::vector<Case> cases = {
      {0, 64, 0, "rows = 0 is not positive"},
      {-1, 64, 0, "rows = -1 is not positive"},
      {64, 0, 0, "cols = 0 is not positive"},
      {64, -4, 0, "cols = -4 is not positive (though a multiple of 4)"},
      {past, 64, 0,
       std::to_string(past) + " input rows need 65536 tile rows of 32 (gridDim.y allows 65535)"},
      {std::numeric_limits<int>::max(), 64, 0,
       "INT_MAX input rows need far more than 65535 tile rows of 32"},
  };
  for (const int cols : {1, 2, 3, 5, 62}) {
    cases.push_back({64, cols, 0, "cols = " + std::to_string(cols) + " is not a multiple of 4"});
  }
  for (const std::size_t offset : {4, 8, 12}) {
    cases.push_back({64, 64, offset,
                     "d_in " + std::to_string(offset) +
                         " bytes past a 16-byte boundary (float4 loads need 16-byte alignment)"});
  }
  const std::string name = "vec4_transpose<" + layout + ">";
  for (const Case& c : cases) {
    const std::string what = name + "(d_in=<16-byte aligned + " + std::to_string(c.in_offset) +
                             ">, rows=" + std::to_string(c.rows) +
                             ", cols=" + std::to_string(c.cols) + ")";
    EXPECT_TRUE(cudalab::kit::throws_invalid_argument(what, [&] {
      lab07::vec4_transpose<Vec4Layout>(cudalab::kit::unallocated<const float>(c.in_offset),
                                        cudalab::kit::unallocated<float>(), c.rows, c.cols);
    })) << c.why;
  }
}

TEST(GivenArgumentChecksCpu, Vec4TransposeRejectsBadSizesColsMisalignedInputsAndTallGrids) {
  expect_vec4_transpose_rejects_bad_arguments<lab07::InterleavedVec4>("InterleavedVec4");
  expect_vec4_transpose_rejects_bad_arguments<lab07::PlainVec4>("PlainVec4");
  expect_vec4_transpose_rejects_bad_arguments<lab07::MirroredVec4>("MirroredVec4");
  expect_vec4_transpose_rejects_bad_arguments<lab07::ProbeVec4>("ProbeVec4");
}

// ---------------------------------------------------------------------------
// The float4 transpose (GPU): exact on shapes with cols % 4 == 0, through its layout.
// ---------------------------------------------------------------------------
const Extent kVec4Shapes[] = {{1, 4},   {100, 4},  {4, 100},   {31, 36},    {33, 64},
                              {64, 64}, {257, 28}, {96, 1000}, {1000, 996}, {2049, 68}};

class Vec4TransposeGpu : public ::testing::TestWithParam<Extent> {};

TEST_P(Vec4TransposeGpu, MatchesTheHostTranspose) {
  CUDALAB_REQUIRE_GPU();
  tile_grading::expect_transpose_ok(lab07::vec4_transpose<lab07::InterleavedVec4>, GetParam().rows,
                                    GetParam().cols, lab07::vec4_kernel<lab07::InterleavedVec4>());
}

// Any valid float4 layout must give the same transpose: the kernel stores and loads through
// the layout it is given (a kernel that uses it on one side only fails here).
TEST_P(Vec4TransposeGpu, IsExactWithAnotherValidLayout) {
  CUDALAB_REQUIRE_GPU();
  tile_grading::expect_transpose_ok(lab07::vec4_transpose<lab07::MirroredVec4>, GetParam().rows,
                                    GetParam().cols, lab07::vec4_kernel<lab07::MirroredVec4>());
}

INSTANTIATE_TEST_SUITE_P(Shapes, Vec4TransposeGpu, ::testing::ValuesIn(kVec4Shapes),
                         tile_grading::shape_name);

// ---------------------------------------------------------------------------
// The grader's own plain-float4 transpose (given): the baseline of the "interleaved keeps up
// with the plain layout" ratio. The reference solution's float4 kernel with the plain layout,
// copied here so that the ratio never divides by a kernel the student wrote (the student's
// kernel could run slower with the plain layout than with the interleaved one on purpose).
// ---------------------------------------------------------------------------
__global__ void grader_plain_vec4_tile_kernel(const float* __restrict__ in, float* __restrict__ out,
                                              int rows, int cols) {
  using Layout = lab07::PlainVec4;
  constexpr int kVecsPerRow = lab07::kVec4PerRow;
  __shared__ float4 tile[Layout::kVec4s];    // float4 v of row r at Layout::index(r, v)
  const int tile_row0 = blockIdx.y * kTile;  // first input row of this block's tile
  const int tile_col0 = blockIdx.x * kTile;  // first input column of this block's tile
  const int t = threadIdx.y * kTile + threadIdx.x;
  const int load_row = t / kVecsPerRow;  // 8 consecutive threads share a tile row ...
  const int load_vec = t % kVecsPerRow;  // ... and take its 8 float4
  const int in_row = tile_row0 + load_row;
  const int in_col = tile_col0 + 4 * load_vec;
  if (in_row < rows && in_col < cols) {
    tile[Layout::index(load_row, load_vec)] =
        *reinterpret_cast<const float4*>(in + static_cast<std::size_t>(in_row) * cols + in_col);
  }
  __syncthreads();
  const int lane = threadIdx.x;              // tile row = output column
  const int vec = threadIdx.y;               // float4 = 4 output rows
  const int out_col = tile_row0 + lane;      // output column = input row
  const int out_row0 = tile_col0 + 4 * vec;  // first of the 4 output rows
  if (out_col < rows && out_row0 < cols) {   // cols % 4 == 0: all 4 rows exist
    const float4 q = tile[Layout::index(lane, vec)];
    const float e[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
    for (int j = 0; j < 4; ++j) out[static_cast<std::size_t>(out_row0 + j) * rows + out_col] = e[j];
  }
}

/// The grader's kernel, as its launch below runs it.
const cudalab::KernelInfo kGraderPlainVec4Kernel = {
    reinterpret_cast<const void*>(grader_plain_vec4_tile_kernel), "grader_plain_vec4_tile_kernel",
    dim3(kTile, lab07::kTileVec4s / kTile), 0};

/// The solution's vec4_transpose<PlainVec4> launch, with the grader's kernel (cols % 4 == 0,
/// 16-byte aligned input: the graders' buffers are).
void grader_plain_vec4_transpose(const float* d_in, float* d_out, int rows, int cols,
                                 cudaStream_t stream) {
  const dim3 grid = smem_tiles::tile_grid(rows, cols, "grader_plain_vec4_transpose");
  grader_plain_vec4_tile_kernel<<<grid, kGraderPlainVec4Kernel.block, 0, stream>>>(d_in, d_out,
                                                                                   rows, cols);
  CUDA_CHECK_LAST_LAUNCH();
}

// The grader's plain-float4 baseline of the perf test is itself correct (not graded).
TEST(GivenGraderBaselineGpu, PlainFloat4TransposeMatchesTheHostTranspose) {
  CUDALAB_REQUIRE_GPU();
  for (const Extent s : kVec4Shapes) {
    SCOPED_TRACE(std::to_string(s.rows) + "x" + std::to_string(s.cols));
    tile_grading::expect_transpose_ok(grader_plain_vec4_transpose, s.rows, s.cols,
                                      kGraderPlainVec4Kernel);
  }
}

// A broken layout (ProbeVec4: float4 2j and 2j + 1 of a row share slot 2j) must change the
// output in exactly the way it predicts: both vectors of a pair are read from their one slot,
// so their output elements come out equal, each the input element of one of the two. A
// kernel that ignores the layout it is given (its own indexing, a padded tile) gets the
// pairs right and different; one that writes nothing leaves NaN.
TEST(Vec4LayoutUseGpu, ABrokenLayoutBreaksTheTranspose) {
  CUDALAB_REQUIRE_GPU();
  const int rows = 64;
  const int cols = 64;
  const auto h_in = tile_grading::transpose_input(rows, cols, 0);
  cudalab::DeviceBuffer<float> d_in(h_in.size());
  cudalab::DeviceBuffer<float> d_out(h_in.size());
  d_in.upload(h_in);
  d_out.fill_bytes(0xFF);  // NaN
  cudalab::testing::poison_shared_memory();
  lab07::vec4_transpose<lab07::ProbeVec4>(d_in.data(), d_out.data(), rows, cols);
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto got = d_out.to_host();
  auto in = [&](int r, int c) { return h_in[static_cast<size_t>(r) * cols + c]; };
  auto out = [&](int r, int c) { return got[static_cast<size_t>(c) * rows + r]; };  // of in(r, c)
  std::size_t right = 0;
  std::size_t distinct = 0;
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      const int partner = c ^ 4;  // the same float of the other float4 of the pair
      ASSERT_TRUE(out(r, c) == out(r, partner) &&
                  (out(r, c) == in(r, c) || out(r, c) == in(r, partner)))
          << "with ProbeVec4 (float4 2j and 2j + 1 of a row stored in one slot), the output of "
          << "input (" << r << ", " << c << ") is " << out(r, c) << " and of its partner (" << r
          << ", " << partner << ") " << out(r, partner) << "; a kernel that stores and loads "
          << "through Vec4Layout::index() reads both from that one slot: equal, and either "
          << in(r, c) << " or " << in(r, partner)
          << ". Does vec4_transpose_kernel address its tile only through the layout?";
      if (in(r, c) != in(r, partner)) {  // pairs of equal inputs cannot tell
        ++distinct;
        right += out(r, c) == in(r, c);
      }
    }
  }
  cudalab::testing::record_measurement("elements right with the broken layout", double(right), "");
  EXPECT_EQ(2 * right, distinct) << "each slot holds one float4 of its pair: half the output";
}

// ---------------------------------------------------------------------------
// Swizzling costs no memory: static shared memory equals the unpadded tiles
// (expect_static_smem(), swizzle_grading.cuh).
// ---------------------------------------------------------------------------
// Graded: the student's float4 kernel declares its own tile.
TEST(Vec4SharedMemoryGpu, KernelUsesExactlyOneUnpaddedTile) {
  CUDALAB_REQUIRE_GPU();
  const cudalab::KernelInfo vec4 = lab07::vec4_kernel<lab07::InterleavedVec4>();
  expect_static_smem(vec4, vec4.name, 1);
}

// ---------------------------------------------------------------------------
// Speed (GPU, 4096^2): interleaved vs the plain float4 layout, and vs a copy, output checked.
// ---------------------------------------------------------------------------
// The interleave against the plain float4 layout: the student's kernel vs the grader's copy of
// the reference kernel with the plain layout.
TEST(Vec4Perf, InterleavedKeepsUpWithThePlainFloat4Layout) {
  CUDALAB_REQUIRE_GPU();
  tile_grading::expect_transpose_speedup(
      lab07::vec4_transpose<lab07::InterleavedVec4>, kPerfSize, "float4 interleaved",
      lab07::vec4_kernel<lab07::InterleavedVec4>(), grader_plain_vec4_transpose, "float4 plain");
}

// A transpose is a copy: its bandwidth as a share of a device-to-device copy.
TEST(Vec4Perf, ReachesAShareOfTheCopyBandwidth) {
  CUDALAB_REQUIRE_GPU();
  const std::size_t count = std::size_t(kPerfSize) * kPerfSize;
  // The input alternates between two sets behind one pointer (AlternatingInput): before each
  // timed run an untimed copy puts the next there with about sqrt(n) elements replaced at
  // positions drawn for that run, and the output is poisoned. Three rows of every earlier run,
  // drawn at random after it (kept before the next run's input is copied), and the last output
  // whole must be the transpose of exactly what their run read.
  cudalab::testing::AlternatingInput<float> in(
      tile_grading::transpose_input(kPerfSize, kPerfSize, 0),
      tile_grading::transpose_input(kPerfSize, kPerfSize, 1));
  cudalab::DeviceBuffer<float> d_out(count);
  cudalab::testing::CapturedWork cap = cudalab::testing::CapturedWork::capture([&](cudaStream_t s) {
    lab07::vec4_transpose<lab07::InterleavedVec4>(in.live.data(), d_out.data(), kPerfSize,
                                                  kPerfSize, s);
  });
  ASSERT_TRUE(
      cap.holds_only(tile_grading::only_kernel(lab07::vec4_kernel<lab07::InterleavedVec4>())));
  auto opts = tile_grading::perf_options(21);
  cudalab::kit::RunRows<float> run_rows(d_out.data(), kPerfSize, kPerfSize);
  opts.before_candidate = run_rows.before_each_run(in, [&](cudaStream_t s) {
    in.copy_next(s);
    cudalab::testing::poison(d_out.data(), d_out.bytes(), s);
  });
  const auto stats = cudalab::benchmark(cap.as_work(), opts);
  CUDA_CHECK(cudaDeviceSynchronize());
  cudalab::kit::expect_every_run_transpose(run_rows, in, kPerfSize, kPerfSize,
                                           "the timed float4 transpose");
  if (HasFailure()) return;  // no speed verdict for a wrong result
  ASSERT_TRUE(cudalab::testing::matrices_match(
      tile_grading::host_transpose(in.last_input(), kPerfSize, kPerfSize), d_out.to_host(),
      kPerfSize, kPerfSize, 0.0))
      << "the timed float4 transpose is wrong (input set " << in.last()
      << " with that run's changed elements); no speed verdict";
  const double bytes = 2.0 * double(count) * sizeof(float);
  const double gbps = bytes / (stats.median_ms * 1e6);
  cudalab::testing::expect_possible(gbps, cudalab::device_ceilings().dram_gbps, "GB/s",
                                    "float4 transpose");
  cudalab::testing::expect_share(gbps, cudalab::testing::d2d_copy_gbps(count * sizeof(float)),
                                 "GB/s", "float4 transpose vs device copy");
}

}  // namespace
