// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 14, mma_naive.cu: the naive kernel (one warp per 16 x 8 tile, fragments from
// global memory) of lab14::kTechniques under memcheck on a ragged shape. What it shares with the
// other tensor-core kernels (exact on odd shapes and K not a multiple of 256 bits, the AND-popc
// MMA in its SASS, its multiple of the popcount ceiling) is registered once over the table in
// binary_mma_test.cu. Helpers in binary_mma_grading.cuh.
#include "binary_mma_grading.cuh"

namespace {

// ---------------------------------------------------------------------------
// Memory errors (compute-sanitizer) on a shape with partial tiles. Written out, not
// CUDALAB_SANITIZER_SUITE: these need compute capability 8.0 (the kit's macros require only a
// GPU, and a sanitizer run over tests that all skip would pass).
// ---------------------------------------------------------------------------
constexpr const char* kNaiveSanitized = "Shapes/NaiveMmaGpu.*/33x47x515";

TEST(NaiveMmaSanitizer, MemcheckFindsNoOutOfBoundsAccess) {
  CUDALAB_REQUIRE_CC(8, 0);
  CUDALAB_EXPECT_SANITIZER_CLEAN("memcheck", kNaiveSanitized);
}

}  // namespace
