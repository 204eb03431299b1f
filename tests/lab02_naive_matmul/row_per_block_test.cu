// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 02, row_per_block.cu: one block per row right on every shape and fill with every
// block size at the edges and in between, under stream capture and on two data sets behind the
// same pointers; K past 70000 (LargeKGpu); A, B and C past 2^31 elements. Its memcheck run and
// its speed against the uncoalesced baseline are checked with the other kernel's
// (naive_matmul_test.cu). Helpers in naive_matmul_grading.cuh.
#include <vector>

#include "common/matmul_grading.cuh"
#include "naive_matmul_grading.cuh"

namespace {

using namespace lab02_grading;

// Every block size the launcher accepts, at the edges (1 and 1024 threads) and in between.
const int kRowThreads[] = {1, 32, 100, 256, 1024};

// ---------------------------------------------------------------------------
// (a) one block per row (GPU): every shape and fill, every block size edge.
// ---------------------------------------------------------------------------
class RowPerBlockGpu : public ::testing::TestWithParam<Param> {};

TEST_P(RowPerBlockGpu, MatchesHostReference) {
  CUDALAB_REQUIRE_GPU();
  std::vector<NamedLaunch> launches;
  for (const int threads : kRowThreads) launches.push_back(row_per_block(threads));
  expect_correct_for_each(std::get<0>(GetParam()), std::get<1>(GetParam()), launches);
}

INSTANTIATE_TEST_SUITE_P(Shapes, RowPerBlockGpu, kAllShapesAndFills, param_name);

// Range edge (GPU): K far larger than any fixed-size staging buffer (naive_matmul_grading.cuh).
TEST_P(LargeKGpu, RowPerBlockHandlesKPast70000) {
  CUDALAB_REQUIRE_GPU();
  std::vector<NamedLaunch> launches;
  for (const int threads : {32, 256, 1024}) launches.push_back(row_per_block(threads));
  expect_correct_for_each(std::get<0>(GetParam()), std::get<1>(GetParam()), launches);
}

// ---------------------------------------------------------------------------
// Index range (GPU): one operand holds more than 2^31 elements while the others stay far
// below, so the offset into that operand (row * k in A, p * n in B, row * n in C) overflows
// when computed in int (tests/common/matmul_grading.cuh). The big operand is filled on the
// device from a hash of the element index; the host checks sampled elements of C.
// ---------------------------------------------------------------------------

TEST(IndexRangeGpu, RowPerBlockPast2To31ElementsOfA) {
  CUDALAB_REQUIRE_GPU();
  // 2,097,120 x 1040 A: one block of 32 threads per row, 3 columns.
  matmul_grading::expect_large_a_rows(
      row_per_block(32).launch, matmul_grading::only_kernel_rules(lab02::row_per_block_kernel()),
      32, 3);
}

TEST(IndexRangeGpu, RowPerBlockPast2To31ElementsOfB) {
  CUDALAB_REQUIRE_GPU();
  // Two rows of C: two blocks of 1024 threads walk all 2^21 + 3 columns of B.
  matmul_grading::expect_large_b_columns(
      row_per_block(1024).launch, matmul_grading::only_kernel_rules(lab02::row_per_block_kernel()),
      2, true);
}

TEST(IndexRangeGpu, RowPerBlockPast2To31ElementsOfC) {
  CUDALAB_REQUIRE_GPU();
  // 65535 * 8 = 524,280 rows of C (one block each) x 4116 columns.
  matmul_grading::expect_large_c_rows(
      row_per_block(256).launch, matmul_grading::only_kernel_rules(lab02::row_per_block_kernel()),
      8, false);
}

}  // namespace
