// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 07, what spans its files (swizzle.cuh): every kernel, swizzled, conflicting and
// float4, once on small odd shapes, re-run under compute-sanitizer, and the Nsight Compute
// bank-conflict counters of the swizzled kernels against the conflicting ones on those runs.
// One test file per technique file besides (swizzled_tile_test.cu, vec4_transpose_test.cu, with
// vec4_slot_test.cu for the interleave on the CPU); helpers in swizzle_grading.cuh.
#include <vector>

#include "swizzle_grading.cuh"

namespace {

using namespace lab07_grading;

// Every kernel, swizzled and conflicting, once on small odd shapes: what the sanitizer and
// profiler tests re-run under their tools.
TEST(SmallShapesGpu, SwizzledAndConflictingKernelsAreExact) {
  CUDALAB_REQUIRE_GPU();
  tile_grading::expect_small_shapes_exact(swizzled_transpose, swizzled_matmul, "swizzled");
  EXPECT_TRUE(tile_grading::transpose_ok(lab07::vec4_transpose<lab07::InterleavedVec4>, 100, 72))
      << "float4 transpose";
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
  TILE_GRADING_EXPECT_FEW_CONFLICTS_IN(kernels, "SmallShapesGpu.*");
}

}  // namespace
