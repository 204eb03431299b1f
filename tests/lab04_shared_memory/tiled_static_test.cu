// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 04, tiled_static.cu: the static tiles exact on odd shapes, the given launcher's
// argument checks (CPU), A, B and C past 2^31 elements, and the speed against the given naive
// kernel. Its shared-memory staging in the machine code and its sanitizer runs are checked with
// the dynamic tiles' (shared_memory_test.cu). Helpers in shared_memory_grading.cuh.
#include "shared_memory_grading.cuh"

namespace {

using namespace lab04_grading;

class TiledStaticGpu : public ::testing::TestWithParam<Shape> {};
TEST_P(TiledStaticGpu, CorrectOnOddShapes) {
  CUDALAB_REQUIRE_GPU();
  expect_correct_product(launch_static, kStaticRules, GetParam());
}
INSTANTIATE_TEST_SUITE_P(Shapes, TiledStaticGpu, ::testing::ValuesIn(kShapes), shape_name);

// The static-tile launcher is given (the kernel is the student's): its contract, checked before
// any CUDA call. The largest grid it must accept, 65535 tile rows, is
// IndexRangeGpu.StaticKernelPast2To31ElementsOfC.
TEST(GivenArgumentChecksCpu, StaticTileLauncherRejectsBadSizesAndTallGrids) {
  cudalab::kit::expect_product_launcher_rejects_bad_sizes(
      [](const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t s) {
        lab04::matmul_tiled_static(a, b, c, m, n, k, s);
      },
      "matmul_tiled_static", lab04::kStaticTile);
}

// ---------------------------------------------------------------------------
// Index range (GPU): A holds more than 2^31 elements, so a row offset row * k computed in
// int overflows. A is filled on the device from a hash of the element index; the host
// checks sampled rows past the 2^31-element mark. The same for B and for C below.
// ---------------------------------------------------------------------------

TEST(IndexRangeGpu, StaticKernelPast2To31Elements) {
  CUDALAB_REQUIRE_GPU();
  expect_large_a_rows(launch_static, kStaticRules, lab04::kStaticTile, 3);
}

// B (1040 x 2^21 + 3) and C (65535 tiles of rows x about 2^31 / rows columns) past 2^31
// elements, A and the other operand far below: offsets p * n and row * n must be 64-bit too.
TEST(IndexRangeGpu, StaticKernelPast2To31ElementsOfB) {
  CUDALAB_REQUIRE_GPU();
  matmul_grading::expect_large_b_columns(launch_static, kStaticRules, lab04::kStaticTile, true);
}

TEST(IndexRangeGpu, StaticKernelPast2To31ElementsOfC) {
  CUDALAB_REQUIRE_GPU();
  matmul_grading::expect_large_c_rows(launch_static, kStaticRules, lab04::kStaticTile, true);
}

TEST_F(TiledPerf, StaticTilesBeatNaive) {
  const cudalab::Comparison cmp =
      race_->time(naive(), {launch_static, kStaticRules(Shape{N, N, N}), "the static kernel"},
                  "static 32x32 tiles, 4096^2");
  if (HasFailure()) return;  // no speed verdict for a wrong result
  cudalab::testing::record_measurement("static_tflops", race_->tflops(cmp.candidate.median_ms),
                                       "TFLOP/s");
  cudalab::testing::expect_speedup(cmp, "static 32x32 tiles vs naive 16x16");
}

}  // namespace
