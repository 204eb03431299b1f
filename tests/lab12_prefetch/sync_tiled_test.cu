// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 12, sync_tiled.cu: the given synchronous baseline (lab 04's static tiled kernel,
// the yardstick of every speed race) is right on odd shapes; not graded. Helpers in
// prefetch_grading.cuh.
#include "prefetch_grading.cuh"

namespace {

using namespace lab12_grading;

// ---------------------------------------------------------------------------
// Given: the synchronous baseline is right (not graded).
// ---------------------------------------------------------------------------
class GivenSyncGpu : public ::testing::TestWithParam<Shape> {};

TEST_P(GivenSyncGpu, ExactOnOddShapes) {
  CUDALAB_REQUIRE_GPU();
  expect_product_with_k_tiles(lab12::matmul_sync, lab12::sync_kernel(), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Shapes, GivenSyncGpu,
                         ::testing::Values(Shape{17, 33, 5}, Shape{129, 65, 257},
                                           Shape{2, 300, 1030}),
                         shape_name);

}  // namespace
