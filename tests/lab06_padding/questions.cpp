// SPDX-License-Identifier: BSD-3-Clause
// Lab 06 questions (labs/lab06_padding/README.md, "Questions"): padding.
#include <vector>

#include "common/answers.hpp"

namespace {

using cudalab::questions::choice_is;
using cudalab::questions::degree_of_words;
using cudalab::questions::number_is;
using cudalab::questions::sheet;

TEST(QuestionsCpu, Q1DegreeOfAColumnWithAPitchOf40) {
  std::vector<long long> words;
  for (long long r = 0; r < 32; ++r) words.push_back(r * 40 + 7);
  EXPECT_TRUE(
      number_is(sheet(), "q1", degree_of_words(words), 0.0, "degree of a column read, pitch 40"));
}

TEST(QuestionsCpu, Q2StaticSharedMemoryOfThePaddedMatmul) {
  EXPECT_TRUE(number_is(sheet(), "q2", (32.0 * 33 + 32 * 32) * 4, 0.0,
                        "bytes of a [32][33] and a [32][32] tile"));
}

TEST(QuestionsCpu, Q3PaddedColumnMatmulOrLab04RowMatmul) {
  // docs/reference-run.md: padded 6.807 TFLOP/s, lab 04's static tiles 8.735 TFLOP/s.
  EXPECT_TRUE(choice_is(sheet(), "q3", 'b', "the faster matmul on the H200"));
}

TEST(QuestionsCpu, Q4PaddedOverConflictingMatmulOnTheReferenceGpu) {
  // docs/reference-run.md: 3.805x (PaddedPerf.MatmulBeatsTheConflictingMatmul, H200).
  EXPECT_TRUE(number_is(sheet(), "q4", 3.805, 0.15, "padded over conflicting matmul, H200"));
}

}  // namespace
