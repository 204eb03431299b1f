// SPDX-License-Identifier: BSD-3-Clause
// Lab 02 questions (labs/lab02_naive_matmul/README.md, "Questions"): coalescing.
#include "common/answers.hpp"

namespace {

using cudalab::questions::choice_is;
using cudalab::questions::number_is;
using cudalab::questions::sheet;

TEST(QuestionsCpu, Q1LinesTouchedByAMisalignedWarpLoad) {
  // 32 consecutive floats from column 16 of a row that starts on a 128-byte line.
  const long long first = 16 * 4;
  const long long last = first + 32 * 4 - 1;
  EXPECT_TRUE(number_is(sheet(), "q1", double(last / 128 - first / 128 + 1), 0.0,
                        "128-byte lines of one warp load"));
}

TEST(QuestionsCpu, Q2AddressesOfAReadByAWarpOfOneBlockPerRow) {
  EXPECT_TRUE(number_is(sheet(), "q2", 1.0, 0.0, "different addresses of A in one step"));
}

TEST(QuestionsCpu, Q3FasterOneBlockPerRowLaunchOnTheReferenceGpu) {
  EXPECT_TRUE(choice_is(sheet(), "q3", 'b', "the faster launch on the H200"));
}

TEST(QuestionsCpu, Q4CoalescedOverUncoalescedOnTheReferenceGpu) {
  // docs/reference-run.md: 11.89x (CoalescingPerf, H200).
  EXPECT_TRUE(number_is(sheet(), "q4", 11.89, 0.20, "coalesced over uncoalesced, H200"));
}

}  // namespace
