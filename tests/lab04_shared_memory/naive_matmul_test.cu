// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 04, naive_matmul.cu (given: the baseline of the tiled kernels' speed tests):
// exact on two odd shapes, and the argument checks of matmul_naive() (not graded). Helpers in
// shared_memory_grading.cuh.
#include <stdexcept>

#include "shared_memory_grading.cuh"

namespace {

using namespace lab04_grading;

class GivenNaiveGpu : public ::testing::TestWithParam<Shape> {};
TEST_P(GivenNaiveGpu, ExactOnOddShapes) {
  CUDALAB_REQUIRE_GPU();
  expect_correct_product([](const float* a, const float* b, float* c, int m, int n, int k,
                            cudaStream_t s) { lab04::matmul_naive(a, b, c, m, n, k, s); },
                         matmul_grading::only_kernel_rules(lab04::naive_kernel()), GetParam());
}
INSTANTIATE_TEST_SUITE_P(Shapes, GivenNaiveGpu,
                         ::testing::Values(Shape{17, 33, 5}, Shape{129, 65, 257}), shape_name);

// The given baseline's argument checks (the contract of matmul_naive()). Given code, not graded;
// nothing is launched: the pointers are host dummies, never dereferenced.
TEST(GivenArgumentChecksCpu, NaiveBaselineRejectsBadSizesBlocksAndTallGrids) {
  float h_dummy[1] = {0.0f};
  const float* p = h_dummy;
  float* q = h_dummy;
  EXPECT_THROW(lab04::matmul_naive(p, p, q, 0, 4, 4), std::invalid_argument) << "m = 0";
  EXPECT_THROW(lab04::matmul_naive(p, p, q, 4, -1, 4), std::invalid_argument) << "n = -1";
  EXPECT_THROW(lab04::matmul_naive(p, p, q, 4, 4, 0), std::invalid_argument) << "k = 0";
  EXPECT_THROW(lab04::matmul_naive(p, p, q, 4, 4, 4, nullptr, 33), std::invalid_argument)
      << "a 33x33 block (1089 threads)";
  EXPECT_THROW(lab04::matmul_naive(p, p, q, 4, 4, 4, nullptr, 0), std::invalid_argument)
      << "a 0x0 block";
  EXPECT_THROW(lab04::matmul_naive(p, p, q, 65536 * lab04::kNaiveBlock, 4, 4),
               std::invalid_argument)
      << "65536 block rows (gridDim.y allows 65535)";
}

}  // namespace
