// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 07, swizzled_tile.cu: the XOR swizzle on the CPU (every row a permutation, rows
// and columns conflict-free in the bank model), the given launchers' argument checks, the given
// tile kernels with the swizzle exact on odd shapes and rectangles and on the edge shapes, their
// static shared memory (unpadded tiles), the measured conflict degree of the swizzle's column
// and row accesses, and their speed against the conflicting kernels. Their small runs, the
// sanitizers and the Nsight Compute counters are swizzle_test.cu's; helpers in
// swizzle_grading.cuh.
#include <string>
#include <utility>

#include "swizzle_grading.cuh"

namespace {

using namespace lab07_grading;

/// Lane l accesses element at(l) = (row, col); returns each lane's word in the swizzled tile.
template <typename At>
Lanes swizzled_words(At at) {
  return tile_grading::lane_words(lab07::swizzled_offset, at);
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
// The launchers' argument checks (CPU: each must throw before any CUDA call). The launchers are
// given (swizzled_tile.cu, outside the TODO region): not graded.
// ---------------------------------------------------------------------------
TEST(GivenArgumentChecksCpu, SwizzledTransposeRejectsBadSizesBlockRowsAndTallGrids) {
  tile_grading::expect_transpose_launcher_rejects_bad_arguments(lab07::swizzled_transpose,
                                                                "swizzled_transpose");
}

TEST(GivenArgumentChecksCpu, SwizzledMatmulRejectsBadSizesAndTallGrids) {
  cudalab::kit::expect_product_launcher_rejects_bad_sizes(swizzled_matmul, "swizzled_matmul",
                                                          kTile);
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

// ---------------------------------------------------------------------------
// Swizzling costs no memory: static shared memory equals the unpadded tiles
// (expect_static_smem(), swizzle_grading.cuh).
// ---------------------------------------------------------------------------
// Given: the scalar tile kernels declare Layout::kWords (kTileWords) by construction.
TEST(GivenSwizzledSharedMemoryGpu, TransposeUsesExactlyOneUnpaddedTile) {
  CUDALAB_REQUIRE_GPU();
  expect_static_smem(lab07::swizzled_transpose_kernel(), "swizzled transpose", 1);
}

TEST(GivenSwizzledSharedMemoryGpu, MatmulUsesExactlyTwoUnpaddedTiles) {
  CUDALAB_REQUIRE_GPU();
  expect_static_smem(lab07::swizzled_matmul_kernel(), "swizzled matmul", 2);
}

// ---------------------------------------------------------------------------
// Measured conflict degree (GPU, clock64 meter) of the swizzle's column and row accesses.
// ---------------------------------------------------------------------------
TEST(SwizzledMeterGpu, ColumnAccessMeasuresConflictFree) {
  CUDALAB_REQUIRE_GPU();
  tile_grading::expect_columns_measure_conflict_free(lab07::swizzled_offset);
}

TEST(SwizzledMeterGpu, RowAccessMeasuresConflictFree) {
  CUDALAB_REQUIRE_GPU();
  tile_grading::expect_rows_measure_conflict_free(lab07::swizzled_offset);
}

// ---------------------------------------------------------------------------
// Speed (GPU, 4096^2): swizzled vs conflicting, output checked.
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

}  // namespace
