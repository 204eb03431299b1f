// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 02, launch_checks.cu (given): the argument checks of both launchers reject bad
// sizes, null pointers and bad blocks, and thread_per_element_matmul() more than 65535 blocks in
// y; nothing is launched. Helpers in naive_matmul_grading.cuh.
#include <stdexcept>

#include "naive_matmul_grading.cuh"

namespace {

// ---------------------------------------------------------------------------
// Argument checks (given code in the launchers): nothing is launched.
// ---------------------------------------------------------------------------
TEST(GivenArgumentChecksCpu, LaunchersRejectBadSizesPointersAndBlocks) {
  float h_dummy[1] = {0.0f};  // only checked for null, never dereferenced
  const float* p = h_dummy;
  float* q = h_dummy;
  EXPECT_THROW(lab02::row_per_block_matmul(p, p, q, 0, 4, 4, 32), std::invalid_argument);
  EXPECT_THROW(lab02::row_per_block_matmul(p, p, q, 4, -1, 4, 32), std::invalid_argument);
  EXPECT_THROW(lab02::row_per_block_matmul(p, p, q, 4, 4, 0, 32), std::invalid_argument);
  EXPECT_THROW(lab02::row_per_block_matmul(p, p, q, 4, 4, 4, 0), std::invalid_argument);
  EXPECT_THROW(lab02::row_per_block_matmul(p, p, q, 4, 4, 4, -32), std::invalid_argument);
  EXPECT_THROW(lab02::row_per_block_matmul(p, p, q, 4, 4, 4, 1025), std::invalid_argument);
  EXPECT_THROW(lab02::row_per_block_matmul(nullptr, p, q, 4, 4, 4, 32), std::invalid_argument);
  EXPECT_THROW(lab02::thread_per_element_matmul(p, p, q, 4, 4, -3, dim3(16, 16)),
               std::invalid_argument);
  EXPECT_THROW(lab02::thread_per_element_matmul(p, p, q, 4, 4, 4, dim3(64, 32)),
               std::invalid_argument);
  EXPECT_THROW(lab02::thread_per_element_matmul(p, p, q, 4, 4, 4, dim3(0, 8)),
               std::invalid_argument);
  EXPECT_THROW(lab02::thread_per_element_matmul(p, p, q, 4, 4, 4, dim3(8, 8, 2)),
               std::invalid_argument);
  EXPECT_THROW(lab02::thread_per_element_matmul(p, p, nullptr, 4, 4, 4, dim3(16, 16)),
               std::invalid_argument);
  EXPECT_THROW(lab02::thread_per_element_matmul(p, p, q, 70000, 4, 4, dim3(1024, 1)),
               std::invalid_argument);  // 70000 blocks in y > 65535
}

}  // namespace
