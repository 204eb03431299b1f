// SPDX-License-Identifier: BSD-3-Clause
// Lab 14 questions (labs/lab14_binary_mma/README.md, "Questions"): the AND identity, the
// instruction's work, a ones-filled tail and the unswizzled ldmatrix.
#include <vector>

#include "common/answers.hpp"

namespace {

using cudalab::questions::conflict_degree;
using cudalab::questions::number_is;
using cudalab::questions::sheet;

TEST(QuestionsCpu, Q1DotProductFromAndAndTheTwoPopcounts) {
  // K = 300, popc(a) = 140, popc(b) = 170, popc(a & b) = 90: popc(a ^ b) = 140 + 170 - 180.
  const int dot = 300 - 2 * (140 + 170 - 2 * 90);
  EXPECT_TRUE(number_is(sheet(), "q1", dot, 0.0, "the ±1 dot product"));
}

TEST(QuestionsCpu, Q2BitMacsOfOneMma) {
  EXPECT_TRUE(number_is(sheet(), "q2", 16.0 * 8 * 256, 0.0, "bit multiply-adds of one m16n8k256"));
}

TEST(QuestionsCpu, Q3ErrorOfAOnesFilledTail) {
  // K = 300: row_words = 12 words = 384 bits; a 1024-bit stage fills 640 bits past the pitch.
  // With ones in A and B there, popc(a & b) grows by 640 and C by 4 x 640.
  EXPECT_TRUE(number_is(sheet(), "q3", 4.0 * (1024 - 384), 0.0, "error of every C element"));
}

TEST(QuestionsCpu, Q4DegreeOfTheUnswizzledLdmatrixPhase) {
  // One 8-lane phase of ldmatrix: rows 0..7 of a stage with 128-byte rows, the same chunk.
  std::vector<long long> bytes;
  for (long long lane = 0; lane < 32; ++lane) bytes.push_back((lane % 8) * 128 + (lane / 8) * 16);
  EXPECT_TRUE(number_is(sheet(), "q4", conflict_degree(bytes, 16), 0.0,
                        "conflict degree of the unswizzled ldmatrix"));
}

}  // namespace
