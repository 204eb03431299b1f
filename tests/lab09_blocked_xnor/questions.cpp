// SPDX-License-Identifier: BSD-3-Clause
// Lab 09 questions (labs/lab09_blocked_xnor/README.md, "Questions"): the seed's tiles.
#include <vector>

#include "common/answers.hpp"

namespace {

using cudalab::questions::conflict_degree;
using cudalab::questions::degree_of_words;
using cudalab::questions::number_is;
using cudalab::questions::sheet;

// Warp 0 of a 16 x 16 block: lane l has tix = l % 16, tiy = l / 16.
TEST(QuestionsCpu, Q1DegreeOfSwappedAndPaddedIndex) {
  std::vector<long long> words;
  for (long long lane = 0; lane < 32; ++lane) words.push_back((lane / 16) * 17 + lane % 16);
  EXPECT_TRUE(number_is(sheet(), "q1", degree_of_words(words), 0.0, "degree of tiy * 17 + tix"));
}

TEST(QuestionsCpu, Q2DegreeOfTheBTileWithAPitchOf18) {
  // b_tile[tx][kw] with rows of 18 words: lanes tx = 0..15 (twice), kw = 0.
  std::vector<long long> words;
  for (long long lane = 0; lane < 32; ++lane) words.push_back((lane % 16) * 18);
  EXPECT_TRUE(
      number_is(sheet(), "q2", degree_of_words(words), 0.0, "degree of b_tile[tx][kw], pitch 18"));
}

TEST(QuestionsCpu, Q3WorstDegreeOfAWordPerEntryTable) {
  // int table[256]: 256 words, 8 per bank; the worst warp asks for 8 words of one bank.
  std::vector<long long> bytes;
  for (long long lane = 0; lane < 32; ++lane) bytes.push_back(4 * (32 * (lane % 8)));
  EXPECT_TRUE(number_is(sheet(), "q3", conflict_degree(bytes, 4), 0.0,
                        "largest degree of int-table lookups"));
}

TEST(QuestionsCpu, Q4PopcCeilingOfTheReferenceGpu) {
  const double tbit_macs = 132 * 1.98e9 * 16 * 32 / 1e12;
  EXPECT_TRUE(number_is(sheet(), "q4", tbit_macs, 0.02, "popc ceiling of an H200, Tbit-MAC/s"));
}

}  // namespace
