// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 07: the XOR swizzle and the float4 interleave (CPU, bank model); the given
// tile kernels run with the swizzle and the student's float4 transpose (GPU: captured on the
// launcher's stream, poisoned memory, two data sets, exact on odd shapes and within tolerance
// on floats, static shared memory of unpadded tiles, the float4 kernel run with other float4
// layouts to show it addresses its tile through the layout it is given, measured conflict
// degree, speed, sanitizers, Nsight Compute bank-conflict counters).
#include <cstddef>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common/tile_grading.hpp"
#include "swizzle.cuh"

namespace {

using tile_grading::Extent;
using tile_grading::Lanes;
using tile_grading::Shape;

// ---------------------------------------------------------------------------
// Thresholds of the counters (the speed bars, with their provenance, are the calibration's:
// tests/calibration/nvidia-h200.tsv).
// ---------------------------------------------------------------------------
/// Nsight Compute bank conflicts per shared instruction: measured 0 for the swizzled
/// kernels, 11.6 (transpose) and 5.3 (matmul) for the conflicting ones.
constexpr double kMaxConflictsPerInstruction = 0.05;
constexpr double kMinBaselineConflictsPerInstruction = 2.0;
/// Side of the square problems of the perf tests.
constexpr int kPerfSize = 4096;

constexpr int kTile = lab07::kTile;
// What the captured graph of a scalar launcher may hold: lab07::swizzled_transpose_kernel()
// or swizzled_matmul_kernel(), the tile kernels with the swizzled layout (named after the
// layout type, which only its instances carry); of the float4 launcher with layout L:
// lab07::vec4_kernel<L>(), the student's float4 transpose with that layout.
constexpr int kVecs = lab07::kVec4PerRow;
/// Rows over which the maps are checked: tiles may be taller than one warp (e.g. 64 x 32
/// or 128 x 32 A tiles), so the swizzle must hold for every row, not only rows 0..31.
constexpr int kRowsChecked = 4 * kTile;

/// Lane l accesses element at(l) = (row, col); returns each lane's word in the swizzled tile.
template <typename At>
Lanes swizzled_words(At at) {
  Lanes w{};
  for (int l = 0; l < kTile; ++l) {
    const auto [row, col] = at(l);
    w[l] = lab07::swizzled_offset(row, col);
  }
  return w;
}

/// Lane l accesses float4 vector at(l) = (row, vec); returns each lane's float4 index.
template <typename At>
Lanes vec4_indices(At at, bool interleaved) {
  Lanes v{};
  for (int l = 0; l < kTile; ++l) {
    const auto [row, vec] = at(l);
    v[l] =
        static_cast<std::int64_t>(row) * kVecs + (interleaved ? lab07::vec4_slot(row, vec) : vec);
  }
  return v;
}

/// Every row of @p map (row, i) -> slot, i < n, is a permutation of 0 .. n - 1.
template <typename Map>
void expect_rows_are_permutations(Map map, int n, const std::string& name) {
  for (int r = 0; r < kRowsChecked; ++r) {
    std::vector<int> taken_by(n, -1);
    for (int i = 0; i < n; ++i) {
      const int s = map(r, i);
      ASSERT_TRUE(s >= 0 && s < n)
          << name << "(" << r << ", " << i << ") = " << s << " lies outside the row (0.." << n - 1
          << "): the element would land in another row"
          << (r >= n ? " (is the row reduced modulo the row length?)" : "");
      ASSERT_EQ(taken_by[s], -1) << name << "(" << r << ", " << i << ") = " << s << " = " << name
                                 << "(" << r << ", " << taken_by[s]
                                 << "): two elements of a row share one place (not a bijection)";
      taken_by[s] = i;
    }
  }
}

void swizzled_transpose(const float* in, float* out, int rows, int cols, cudaStream_t s) {
  lab07::swizzled_transpose(in, out, rows, cols, lab07::kTransposeBlockRows, s);
}

void swizzled_matmul(const float* a, const float* b, float* c, int m, int n, int k,
                     cudaStream_t s) {
  lab07::swizzled_matmul(a, b, c, m, n, k, s);
}

// ---------------------------------------------------------------------------
// The XOR swizzle (CPU, exhaustive, judged by the bank model).
// ---------------------------------------------------------------------------
TEST(SwizzleLayoutCpu, EveryRowIsAPermutationOfItsColumns) {
  expect_rows_are_permutations(lab07::swizzled_col, kTile, "swizzled_col");
}

TEST(SwizzleLayoutCpu, RowAccessIsConflictFree) {
  for (int r = 0; r < kRowsChecked; ++r) {
    ASSERT_TRUE(tile_grading::conflict_free(
        swizzled_words([r](int l) { return std::make_pair(r, l); }),
        "row " + std::to_string(r) + " (lane l reads (" + std::to_string(r) + ", l))"));
  }
}

TEST(SwizzleLayoutCpu, ColumnAccessIsConflictFree) {
  for (int base = 0; base < kRowsChecked; base += kTile) {
    for (int c = 0; c < kTile; ++c) {
      ASSERT_TRUE(tile_grading::conflict_free(
          swizzled_words([base, c](int l) { return std::make_pair(base + l, c); }),
          "column " + std::to_string(c) + " of rows " + std::to_string(base) + ".." +
              std::to_string(base + kTile - 1) + " (lane l reads (" + std::to_string(base) +
              " + l, " + std::to_string(c) + "))"));
    }
  }
}

// ---------------------------------------------------------------------------
// Advanced: the float4 interleave (CPU, 16-byte accesses: quarter-warp phases).
// ---------------------------------------------------------------------------
TEST(Vec4InterleaveCpu, EveryRowIsAPermutationOfItsSlots) {
  expect_rows_are_permutations(lab07::vec4_slot, kVecs, "vec4_slot");
}

TEST(Vec4InterleaveCpu, ColumnAccessOfFloat4IsConflictFree) {
  for (int base = 0; base < kRowsChecked; base += kTile) {
    for (int v = 0; v < kVecs; ++v) {
      ASSERT_TRUE(tile_grading::conflict_free(
          vec4_indices([base, v](int l) { return std::make_pair(base + l, v); }, true),
          "float4 " + std::to_string(v) + " of rows " + std::to_string(base) + ".." +
              std::to_string(base + kTile - 1),
          16));
    }
  }
}

TEST(Vec4InterleaveCpu, RowAccessOfFloat4IsConflictFree) {
  // A warp reads 4 whole rows: lane l takes float4 l % 8 of row base + l / 8.
  for (int base = 0; base < kRowsChecked; base += 4) {
    ASSERT_TRUE(tile_grading::conflict_free(
        vec4_indices([base](int l) { return std::make_pair(base + l / kVecs, l % kVecs); }, true),
        "rows " + std::to_string(base) + ".." + std::to_string(base + 3) + " as float4", 16));
  }
}

// Why the interleave exists (given: the model on the plain layout, no student code).
TEST(GivenVec4ModelCpu, PlainFloat4ColumnAccessIsAnEightWayConflict) {
  const auto plain = vec4_indices([](int l) { return std::make_pair(l, 0); }, false);
  EXPECT_EQ(cudalab::bank::conflict_degree(cudalab::bank::from_element_indices(plain, 16)), 8);
}

// ---------------------------------------------------------------------------
// The launchers' argument checks (CPU: each must throw before any CUDA call). The launchers are
// given (swizzled_tile.cu and vec4_transpose.cu, outside the TODO regions): not graded.
// ---------------------------------------------------------------------------
TEST(GivenArgumentChecksCpu, SwizzledTransposeRejectsBadSizesBlockRowsAndTallGrids) {
  tile_grading::expect_transpose_launcher_rejects_bad_arguments(lab07::swizzled_transpose,
                                                                "swizzled_transpose");
}

TEST(GivenArgumentChecksCpu, SwizzledMatmulRejectsBadSizesAndTallGrids) {
  cudalab::kit::expect_product_launcher_rejects_bad_sizes(swizzled_matmul, "swizzled_matmul",
                                                          kTile);
}

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
// Swizzled transpose and matmul (GPU): exact on odd shapes and rectangles.
// ---------------------------------------------------------------------------
class SwizzledTransposeGpu : public ::testing::TestWithParam<Extent> {};

TEST_P(SwizzledTransposeGpu, MatchesTheHostTranspose) {
  CUDALAB_REQUIRE_GPU();
  tile_grading::expect_transpose_with_every_block(lab07::swizzled_transpose, GetParam(),
                                                  lab07::swizzled_transpose_kernel());
}

INSTANTIATE_TEST_SUITE_P(Shapes, SwizzledTransposeGpu,
                         ::testing::ValuesIn(tile_grading::kTransposeShapes),
                         tile_grading::shape_name);

class SwizzledMatmulGpu : public ::testing::TestWithParam<Shape> {};

TEST_P(SwizzledMatmulGpu, MatchesTheHostMatmulExactly) {
  CUDALAB_REQUIRE_GPU();
  tile_grading::expect_matmul_ok(swizzled_matmul, GetParam(), cudalab::Fill::SmallInt,
                                 lab07::swizzled_matmul_kernel());
}

TEST_P(SwizzledMatmulGpu, MatchesTheHostMatmulOnFloats) {
  CUDALAB_REQUIRE_GPU();
  tile_grading::expect_matmul_ok(swizzled_matmul, GetParam(), cudalab::Fill::Uniform,
                                 lab07::swizzled_matmul_kernel());
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

INSTANTIATE_TEST_SUITE_P(Shapes, SwizzledMatmulGpu,
                         ::testing::ValuesIn(tile_grading::kMatmulShapes),
                         tile_grading::shape_name);

// Edge shapes of the given tile kernels (one element, one column) with the swizzled layout:
// the stub's layout (every element at column 0 of its row) passes them, so not graded.
TEST(GivenTileEdgesGpu, SwizzledKernelsHandleOneElementAndOneColumn) {
  CUDALAB_REQUIRE_GPU();
  tile_grading::expect_given_edge_shapes_exact(lab07::swizzled_transpose,
                                               lab07::swizzled_transpose_kernel(), swizzled_matmul,
                                               lab07::swizzled_matmul_kernel());
}

// Every kernel, swizzled and conflicting, once on small odd shapes: what the sanitizer and
// profiler tests re-run under their tools.
TEST(SmallShapesGpu, SwizzledAndConflictingKernelsAreExact) {
  CUDALAB_REQUIRE_GPU();
  tile_grading::expect_small_shapes_exact(swizzled_transpose, swizzled_matmul, "swizzled");
  EXPECT_TRUE(tile_grading::transpose_ok(lab07::vec4_transpose<lab07::InterleavedVec4>, 100, 72))
      << "float4 transpose";
}

// ---------------------------------------------------------------------------
// Swizzling costs no memory: static shared memory equals the unpadded tiles (the scalar
// kernels are given and declare Layout::kWords; the float4 kernel is the student's).
// ---------------------------------------------------------------------------
void expect_static_smem(const cudalab::KernelInfo& kernel, const std::string& name, int tiles) {
  cudaFuncAttributes attr{};
  CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel.function));
  const std::size_t expected = std::size_t(tiles) * lab07::kTileWords * sizeof(float);
  cudalab::testing::record_measurement(name + " static shared memory", double(attr.sharedSizeBytes),
                                       "bytes", double(expected));
  EXPECT_EQ(attr.sharedSizeBytes, expected)
      << name << " declares " << attr.sharedSizeBytes << " bytes of static shared memory; " << tiles
      << " unpadded " << kTile << "x" << kTile << " float tile(s) take " << expected
      << " bytes. A swizzle reorders the words of a tile and adds none (a [32][33] padded tile "
      << "would take " << kTile * (kTile + 1) * sizeof(float) << " bytes)";
}

// Given: the scalar tile kernels declare Layout::kWords (kTileWords) by construction.
TEST(GivenSwizzledSharedMemoryGpu, TransposeUsesExactlyOneUnpaddedTile) {
  CUDALAB_REQUIRE_GPU();
  expect_static_smem(lab07::swizzled_transpose_kernel(), "swizzled transpose", 1);
}

TEST(GivenSwizzledSharedMemoryGpu, MatmulUsesExactlyTwoUnpaddedTiles) {
  CUDALAB_REQUIRE_GPU();
  expect_static_smem(lab07::swizzled_matmul_kernel(), "swizzled matmul", 2);
}

// Graded: the student's float4 kernel declares its own tile.
TEST(Vec4SharedMemoryGpu, KernelUsesExactlyOneUnpaddedTile) {
  CUDALAB_REQUIRE_GPU();
  const cudalab::KernelInfo vec4 = lab07::vec4_kernel<lab07::InterleavedVec4>();
  expect_static_smem(vec4, vec4.name, 1);
}

// ---------------------------------------------------------------------------
// Measured conflict degree (GPU, clock64 meter) of the swizzle's column and row accesses.
// ---------------------------------------------------------------------------
TEST(SwizzledMeterGpu, ColumnAccessMeasuresConflictFree) {
  CUDALAB_REQUIRE_GPU();
  tile_grading::record_plain_column_degree();
  for (const int c : {0, 13, kTile - 1}) {
    tile_grading::expect_measured_conflict_free(
        swizzled_words([c](int l) { return std::make_pair(l, c); }), "column " + std::to_string(c));
  }
}

TEST(SwizzledMeterGpu, RowAccessMeasuresConflictFree) {
  CUDALAB_REQUIRE_GPU();
  for (const int r : {0, 7, kTile - 1}) {
    tile_grading::expect_measured_conflict_free(
        swizzled_words([r](int l) { return std::make_pair(r, l); }), "row " + std::to_string(r));
  }
}

// ---------------------------------------------------------------------------
// Speed (GPU, 4096^2): swizzled vs conflicting, interleaved, output checked.
// ---------------------------------------------------------------------------
TEST(SwizzledPerf, TransposeBeatsTheConflictingTranspose) {
  CUDALAB_REQUIRE_GPU();
  tile_grading::expect_transpose_speedup(swizzled_transpose, kPerfSize, "swizzled",
                                         lab07::swizzled_transpose_kernel());
}

TEST(SwizzledPerf, MatmulBeatsTheConflictingMatmul) {
  CUDALAB_REQUIRE_GPU();
  tile_grading::expect_matmul_speedup(swizzled_matmul, kPerfSize, "swizzled",
                                      lab07::swizzled_matmul_kernel());
}

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

// ---------------------------------------------------------------------------
// compute-sanitizer over SmallShapesGpu.
// ---------------------------------------------------------------------------
CUDALAB_SANITIZER_TEST(SwizzledSanitizer, RacecheckIsClean, "racecheck", "SmallShapesGpu.*")
CUDALAB_SANITIZER_TEST(SwizzledSanitizer, MemcheckIsClean, "memcheck", "SmallShapesGpu.*")
CUDALAB_SANITIZER_TEST(SwizzledSanitizer, SynccheckIsClean, "synccheck", "SmallShapesGpu.*")

// ---------------------------------------------------------------------------
// Nsight Compute: bank conflicts per shared-memory instruction, swizzled vs conflicting.
// ---------------------------------------------------------------------------
TEST(SwizzledProfiler, SwizzledKernelsHaveNoBankConflicts) {
  CUDALAB_REQUIRE_GPU();
  const std::vector<tile_grading::ConflictComparison> kernels = {
      tile_grading::tile_transpose_comparison(lab07::swizzled_transpose_kernel()),
      tile_grading::tile_matmul_comparison(lab07::swizzled_matmul_kernel())};
  TILE_GRADING_EXPECT_FEW_CONFLICTS_IN(kernels, "SmallShapesGpu.*", kMaxConflictsPerInstruction,
                                       kMinBaselineConflictsPerInstruction);
}

}  // namespace
