// SPDX-License-Identifier: BSD-3-Clause
// Lab 08 questions (labs/lab08_xnor/README.md, "Questions"): bits, padding and layout.
#include "common/answers.hpp"

namespace {

using cudalab::questions::number_is;
using cudalab::questions::sheet;

int words32(int k) {
  return (k + 31) / 32;
}

TEST(QuestionsCpu, Q1PaddingBitsOfK100) {
  EXPECT_TRUE(number_is(sheet(), "q1", 32.0 * words32(100) - 100, 0.0, "padding bits for K = 100"));
}

TEST(QuestionsCpu, Q2DotProductFromAnXnorPopcount) {
  const int k = 100;
  const int equal = 70 - (32 * words32(k) - k);
  EXPECT_TRUE(number_is(sheet(), "q2", 2.0 * equal - k, 0.0, "the dot product"));
}

TEST(QuestionsCpu, Q3BytesOfAPacked4096SquareMatrix) {
  EXPECT_TRUE(number_is(sheet(), "q3", 4096.0 * words32(4096) * 4, 0.0,
                        "bytes of a packed 4096 x 4096 matrix"));
}

TEST(QuestionsCpu, Q4LinesOfAWarpLoadFromColumnMajorB) {
  const long long stride_bytes = 4LL * words32(4096);  // column j's words are W words apart
  EXPECT_TRUE(number_is(sheet(), "q4", stride_bytes >= 128 ? 32.0 : 1.0, 0.0,
                        "128-byte lines of one warp load"));
}

}  // namespace
