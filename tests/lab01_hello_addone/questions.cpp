// SPDX-License-Identifier: BSD-3-Clause
// Lab 01 questions (labs/lab01_hello_addone/README.md, "Questions"): launch geometry.
#include "common/answers.hpp"

namespace {

using cudalab::questions::choice_is;
using cudalab::questions::number_is;
using cudalab::questions::sheet;

long long ceil_div(long long n, long long b) {
  return (n + b - 1) / b;
}

TEST(QuestionsCpu, Q1BlocksOfA4097x3MatrixWith16x16Blocks) {
  const long long blocks = ceil_div(3, 16) * ceil_div(4097, 16);
  EXPECT_TRUE(number_is(sheet(), "q1", double(blocks), 0.0, "blocks in the grid"));
}

TEST(QuestionsCpu, Q2IdleThreadsOfA1x100000MatrixWith32x8Blocks) {
  const long long launched = ceil_div(100000, 32) * ceil_div(1, 8) * 32 * 8;
  EXPECT_TRUE(number_is(sheet(), "q2", double(launched - 100000), 0.0, "threads that do nothing"));
}

TEST(QuestionsCpu, Q3BlockShapeThatPutsAWarpAlongARow) {
  EXPECT_TRUE(choice_is(sheet(), "q3", 'a', "the block shape with a warp along a row"));
}

}  // namespace
