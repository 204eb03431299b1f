// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 06, what spans its files (padding.cuh): every kernel, padded and conflicting,
// once on small odd shapes, re-run under compute-sanitizer, and the Nsight Compute bank-conflict
// counters of the padded kernels against the conflicting ones on those runs. One test file per
// technique file besides (padded_tile_test.cu); helpers in padding_grading.cuh.
#include <vector>

#include "padding_grading.cuh"

namespace {

using namespace lab06_grading;

// Every kernel of the lab, padded and conflicting, once on small odd shapes (the student's
// in-place transpose on 100 x 100, the conflicting transpose on 100 x 70, the matmuls on
// 100 x 70 x 90), and the student's transpose also on one element, a ragged tile pair and a
// ragged T = 3 with the narrowest and the tallest block: what the sanitizer and profiler tests
// re-run under their tools (each operand in its own allocation of exactly its size, so memcheck
// sees an access past its end).
TEST(SmallShapesGpu, PaddedAndConflictingKernelsAreExact) {
  CUDALAB_REQUIRE_GPU();
  EXPECT_TRUE(in_place_ok(100, lab06::kTransposeBlockRows)) << "padded transpose 100x100 in place";
  EXPECT_TRUE(tile_grading::transpose_ok(tile_grading::conflicting_transpose, 100, 70))
      << "conflicting transpose";
  EXPECT_TRUE(tile_grading::matmul_ok(padded_matmul, {100, 70, 90})) << "padded matmul";
  EXPECT_TRUE(tile_grading::matmul_ok(tile_grading::conflicting_matmul, {100, 70, 90}))
      << "conflicting matmul";
  for (const int n : {1, 33, 70}) {
    for (const int block_rows : {1, kTile}) {
      EXPECT_TRUE(in_place_ok(n, block_rows)) << "padded transpose " << n << "x" << n
                                              << " in place, block " << kTile << "x" << block_rows;
    }
  }
}

// ---------------------------------------------------------------------------
// compute-sanitizer over SmallShapesGpu: races (a missing __syncthreads()), out-of-bounds
// accesses (a missing edge check), barrier misuse.
// ---------------------------------------------------------------------------
CUDALAB_SANITIZER_TEST(PaddedSanitizer, RacecheckIsClean, "racecheck", "SmallShapesGpu.*")
CUDALAB_SANITIZER_TEST(PaddedSanitizer, MemcheckIsClean, "memcheck", "SmallShapesGpu.*")
CUDALAB_SANITIZER_TEST(PaddedSanitizer, SynccheckIsClean, "synccheck", "SmallShapesGpu.*")

// ---------------------------------------------------------------------------
// Nsight Compute: bank conflicts per shared-memory instruction, padded vs conflicting.
// ---------------------------------------------------------------------------
// The student's transpose kernel against the conflicting tile transpose, the given matmul with
// the padded layout against the conflicting matmul.
TEST(PaddedProfiler, PaddedKernelsHaveNoBankConflicts) {
  CUDALAB_REQUIRE_GPU();
  const std::vector<tile_grading::ConflictComparison> kernels = {
      {tile_grading::profiled(lab06::padded_transpose_kernel()),
       tile_grading::profiled_tile_kernel(smem_tiles::kTileTransposeKernelName,
                                          smem_tiles::conflicting_transpose_kernel())},
      tile_grading::tile_matmul_comparison(lab06::padded_matmul_kernel())};
  TILE_GRADING_EXPECT_FEW_CONFLICTS_IN(kernels, "SmallShapesGpu.*");
}

}  // namespace
