// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 14, mma_naive.cu: the naive kernel (one warp per 16 x 8 tile, fragments from
// global memory) of lab14::kTechniques, exact on odd shapes and K not a multiple of 256 bits with
// its popcounts (binary_gemm()) under stream capture and on new inputs behind the same pointers;
// its compiled code holds the AND-popc MMA (cuobjdump -sass); memcheck on a ragged shape; its
// speed as a multiple of the popcount ceiling. Helpers in binary_mma_grading.cuh.
#include "binary_mma_grading.cuh"

namespace {

using cudalab::kit::Shape;
using cudalab::kit::shape_name;
using lab14_grading::expect_and_popc_mma;
using lab14_grading::expect_exact_on_two_inputs;
using lab14_grading::kMmaShapes;
using lab14_grading::PerfFixture;
using lab14_grading::technique;

// ---------------------------------------------------------------------------
// Exact on the shapes of the mma.sync kernels (kMmaShapes).
// ---------------------------------------------------------------------------
class NaiveMmaGpu : public ::testing::TestWithParam<Shape> {};

TEST_P(NaiveMmaGpu, IsExact) {
  CUDALAB_REQUIRE_CC(8, 0);
  expect_exact_on_two_inputs(GetParam(), technique("naive"));
}

INSTANTIATE_TEST_SUITE_P(Shapes, NaiveMmaGpu, ::testing::ValuesIn(kMmaShapes), shape_name);

// ---------------------------------------------------------------------------
// The compiled kernel holds the AND-popc MMA in its own code (binary_mma_grading.cuh).
// ---------------------------------------------------------------------------
TEST(NaiveSassCpu, KernelUsesTheAndPopcTensorCoreMma) {
  expect_and_popc_mma(lab14::mma_naive_kernel());
}

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

// ---------------------------------------------------------------------------
// Perf, 4096^3 bits (PerfFixture): its multiple of the popcount ceiling.
// ---------------------------------------------------------------------------
class NaivePerf : public PerfFixture {};

TEST_F(NaivePerf, MultipleOfThePopcCeiling) {
  expect_ceiling_multiple(technique("naive"));
}

}  // namespace
