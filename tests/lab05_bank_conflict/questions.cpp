// SPDX-License-Identifier: BSD-3-Clause
// Lab 05 questions (labs/lab05_bank_conflict/README.md, "Questions"): the bank model.
#include <vector>

#include "common/answers.hpp"

namespace {

using cudalab::questions::conflict_degree;
using cudalab::questions::degree_of_words;
using cudalab::questions::number_is;
using cudalab::questions::sheet;

std::vector<long long> lanes_times(long long step) {
  std::vector<long long> v;
  for (long long lane = 0; lane < 32; ++lane) v.push_back(lane * step);
  return v;
}

TEST(QuestionsCpu, Q1DegreeOfStrideSix) {
  EXPECT_TRUE(number_is(sheet(), "q1", degree_of_words(lanes_times(6)), 0.0,
                        "degree of 4-byte loads, lane i at word 6 i"));
}

TEST(QuestionsCpu, Q2DegreeOfEightByteLoadsSixteenElementsApart) {
  EXPECT_TRUE(number_is(sheet(), "q2", conflict_degree(lanes_times(8 * 16), 8), 0.0,
                        "degree of 8-byte loads, lane i at element 16 i"));
}

TEST(QuestionsCpu, Q3DegreeOfFloat4LoadsFourElementsApart) {
  EXPECT_TRUE(number_is(sheet(), "q3", conflict_degree(lanes_times(16 * 4), 16), 0.0,
                        "degree of 16-byte loads, lane i at element 4 i"));
}

TEST(QuestionsCpu, Q4WavefrontsOfFloat4LoadsFourElementsApart) {
  int wavefronts = 0;
  conflict_degree(lanes_times(16 * 4), 16, &wavefronts);
  EXPECT_TRUE(number_is(sheet(), "q4", wavefronts, 0.0,
                        "wavefronts the model counts for 16-byte loads, lane i at element 4 i"));
}

}  // namespace
