// SPDX-License-Identifier: BSD-3-Clause
// Lab 07 questions (labs/lab07_swizzle/README.md, "Questions"): swizzles, checked with the model.
#include <vector>

#include "common/answers.hpp"

namespace {

using cudalab::questions::degree_of_words;
using cudalab::questions::number_is;
using cudalab::questions::sheet;

TEST(QuestionsCpu, Q1DegreeOfTheSnippetWithTheXorOnTheColumn) {
  // s[x][y ^ x] in a float s[32][32]: lane x, y the same for the whole warp.
  int worst = 0;
  for (long long y = 0; y < 32; ++y) {
    std::vector<long long> words;
    for (long long x = 0; x < 32; ++x) words.push_back(x * 32 + (y ^ x));
    worst = std::max(worst, degree_of_words(words));
  }
  EXPECT_TRUE(number_is(sheet(), "q1", worst, 0.0, "degree of s[x][y ^ x]"));
}

TEST(QuestionsCpu, Q2DegreeOfAShiftByRowOver8) {
  // Element (row y, column x) stored at column (x + (y >> 3)) % 32; lanes = rows 0..31.
  std::vector<long long> words;
  for (long long y = 0; y < 32; ++y) words.push_back(y * 32 + (3 + (y >> 3)) % 32);
  EXPECT_TRUE(number_is(sheet(), "q2", degree_of_words(words), 0.0,
                        "degree of a column read with (x + (y >> 3)) % 32"));
}

TEST(QuestionsCpu, Q3StoredColumnWithoutTheReduction) {
  EXPECT_TRUE(number_is(sheet(), "q3", double(3 ^ 40), 0.0, "stored column of (40, 3) by c ^ r"));
}

TEST(QuestionsCpu, Q4DegreeOfTheSeedsRotation) {
  // Element (row y, column x) stored at column (x + y) % 32; lanes = rows 0..31.
  std::vector<long long> words;
  for (long long y = 0; y < 32; ++y) words.push_back(y * 32 + (3 + y) % 32);
  EXPECT_TRUE(number_is(sheet(), "q4", degree_of_words(words), 0.0,
                        "degree of a column read with (x + y) % 32"));
}

}  // namespace
