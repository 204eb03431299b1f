// Grader of lab 07: the XOR swizzle and the float4 interleave (CPU, bank model), the
// swizzled transpose and matmul (GPU: exact results on odd shapes, static shared memory of
// an unpadded tile, measured conflict degree, speed against the conflicting kernels,
// sanitizers, Nsight Compute bank-conflict counters).
#include <string>
#include <utility>
#include <vector>

#include "lab06_tile_grading.hpp"
#include "swizzle.cuh"

namespace {

using tile_grading::Lanes;
using tile_grading::MatmulShape;
using tile_grading::Shape;

// ---------------------------------------------------------------------------
// Thresholds. Measured with the reference solution on an NVIDIA H200 (CUDA 13.0), three full runs;
// speed thresholds sit >= 30 % below the lowest measured ratio.
// ---------------------------------------------------------------------------
/// Swizzled vs conflicting matmul at 4096^2: measured 3.504x, 3.505x, 3.505x (6.27 against 1.79
/// TFLOP/s).
constexpr double kMatmulSpeedup = 2.4;
/// Swizzled vs conflicting transpose at 4096^2: measured 1.757x, 1.765x, 1.768x (2270 against 1286
/// GB/s).
constexpr double kTransposeSpeedup = 1.2;
/// Nsight Compute bank conflicts per shared instruction: measured 0 for the swizzled
/// kernels, 11.6 (transpose) and 5.3 (matmul) for the conflicting ones.
constexpr double kMaxConflictsPerInstruction = 0.05;
constexpr double kMinBaselineConflictsPerInstruction = 2.0;
/// Side of the square problems of the perf tests.
constexpr int kPerfSize = 4096;

static_assert(lab07::kTile == smem_tiles::kTile, "the lab and its baselines share the tile size");
constexpr int kTile = lab07::kTile;
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
// Swizzled transpose and matmul (GPU): exact on odd shapes and rectangles.
// ---------------------------------------------------------------------------
class SwizzledTransposeGpu : public ::testing::TestWithParam<Shape> {};

TEST_P(SwizzledTransposeGpu, MatchesTheHostTranspose) {
  CUDALAB_REQUIRE_GPU();
  tile_grading::expect_transpose_with_every_block(lab07::swizzled_transpose, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Shapes, SwizzledTransposeGpu,
                         ::testing::ValuesIn(tile_grading::kTransposeShapes),
                         tile_grading::shape_name);

class SwizzledMatmulGpu : public ::testing::TestWithParam<MatmulShape> {};

TEST_P(SwizzledMatmulGpu, MatchesTheHostMatmulExactly) {
  CUDALAB_REQUIRE_GPU();
  EXPECT_TRUE(tile_grading::matmul_ok(swizzled_matmul, GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Shapes, SwizzledMatmulGpu,
                         ::testing::ValuesIn(tile_grading::kMatmulShapes),
                         tile_grading::matmul_shape_name);

// Every kernel, swizzled and conflicting, once on small odd shapes: what the sanitizer and
// profiler tests re-run under their tools.
TEST(SmallShapesGpu, SwizzledAndConflictingKernelsAreExact) {
  CUDALAB_REQUIRE_GPU();
  tile_grading::expect_small_shapes_exact(swizzled_transpose, swizzled_matmul, "swizzled");
}

// ---------------------------------------------------------------------------
// Swizzling costs no memory: static shared memory equals the unpadded tiles.
// ---------------------------------------------------------------------------
void expect_static_smem(const void* kernel, const std::string& name, int tiles) {
  cudaFuncAttributes attr{};
  CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel));
  const std::size_t expected = std::size_t(tiles) * lab07::kTileWords * sizeof(float);
  cudalab::testing::record_measurement(name + " static shared memory", double(attr.sharedSizeBytes),
                                       "bytes", double(expected));
  EXPECT_EQ(attr.sharedSizeBytes, expected)
      << name << " declares " << attr.sharedSizeBytes << " bytes of static shared memory; " << tiles
      << " unpadded " << kTile << "x" << kTile << " float tile(s) take " << expected
      << " bytes. A swizzle reorders the words of a tile and adds none (a [32][33] padded tile "
      << "would take " << kTile * (kTile + 1) * sizeof(float) << " bytes)";
}

TEST(SwizzledSharedMemoryGpu, TransposeUsesExactlyOneUnpaddedTile) {
  CUDALAB_REQUIRE_GPU();
  expect_static_smem(reinterpret_cast<const void*>(lab07::swizzled_transpose_kernel),
                     "swizzled_transpose_kernel", 1);
}

TEST(SwizzledSharedMemoryGpu, MatmulUsesExactlyTwoUnpaddedTiles) {
  CUDALAB_REQUIRE_GPU();
  expect_static_smem(reinterpret_cast<const void*>(lab07::swizzled_matmul_kernel),
                     "swizzled_matmul_kernel", 2);
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
  tile_grading::expect_transpose_speedup(swizzled_transpose, kPerfSize, kTransposeSpeedup,
                                         "swizzled");
}

TEST(SwizzledPerf, MatmulBeatsTheConflictingMatmul) {
  CUDALAB_REQUIRE_GPU();
  tile_grading::expect_matmul_speedup(swizzled_matmul, kPerfSize, kMatmulSpeedup, "swizzled");
}

// ---------------------------------------------------------------------------
// compute-sanitizer over SmallShapesGpu.
// ---------------------------------------------------------------------------
TEST(SwizzledSanitizer, RacecheckIsClean) {
  CUDALAB_REQUIRE_GPU();
  CUDALAB_EXPECT_SANITIZER_CLEAN("racecheck", "SmallShapesGpu.*");
}

TEST(SwizzledSanitizer, MemcheckIsClean) {
  CUDALAB_REQUIRE_GPU();
  CUDALAB_EXPECT_SANITIZER_CLEAN("memcheck", "SmallShapesGpu.*");
}

TEST(SwizzledSanitizer, SynccheckIsClean) {
  CUDALAB_REQUIRE_GPU();
  CUDALAB_EXPECT_SANITIZER_CLEAN("synccheck", "SmallShapesGpu.*");
}

// ---------------------------------------------------------------------------
// Nsight Compute: bank conflicts per shared-memory instruction, swizzled vs conflicting.
// ---------------------------------------------------------------------------
TEST(SwizzledProfiler, SwizzledKernelsHaveNoBankConflicts) {
  CUDALAB_REQUIRE_GPU();
  TILE_GRADING_EXPECT_FEW_CONFLICTS("swizzled", "SmallShapesGpu.*", kMaxConflictsPerInstruction,
                                    kMinBaselineConflictsPerInstruction);
}

}  // namespace
