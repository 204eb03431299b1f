// SPDX-License-Identifier: BSD-3-Clause
// Lab 11 questions (labs/lab11_vectorized/README.md, "Questions"): heads, pitches, float4
// columns and bytes in flight.
#include <vector>

#include "common/answers.hpp"

namespace {

using cudalab::questions::conflict_degree;
using cudalab::questions::number_is;
using cudalab::questions::sheet;

TEST(QuestionsCpu, Q1Float4InTheBodyOfAnOffsetRow) {
  // 1001 floats from an address 8 bytes past a boundary: a head of 2, then whole float4.
  const int head = 2;
  const int body = (1001 - head) / 4;
  EXPECT_TRUE(number_is(sheet(), "q1", body, 0.0, "float4 in the body of the row"));
}

TEST(QuestionsCpu, Q2HeadLengthsWithAnUnpaddedPitch) {
  // Row r starts at r * 4004 bytes: r * 4004 mod 16 takes the values 0, 4, 8, 12.
  std::vector<bool> seen(4, false);
  int distinct = 0;
  for (long long r = 0; r < 64; ++r) {
    const int head = int((16 - (r * 4004) % 16) % 16) / 4;
    if (!seen[head]) ++distinct;
    seen[head] = true;
  }
  EXPECT_TRUE(number_is(sheet(), "q2", distinct, 0.0, "different head lengths"));
}

TEST(QuestionsCpu, Q3WavefrontsOfAPlainFloat4Column) {
  // Lane l reads float4 0 of row l of a plain tile: byte l * 128.
  std::vector<long long> bytes;
  for (long long lane = 0; lane < 32; ++lane) bytes.push_back(lane * 128);
  int wavefronts = 0;
  conflict_degree(bytes, 16, &wavefronts);
  EXPECT_TRUE(number_is(sheet(), "q3", wavefronts, 0.0, "wavefronts of the plain column read"));
}

TEST(QuestionsCpu, Q4BytesInFlightWithFourWarpsPerSm) {
  const double bytes = 132.0 * 128 * 16;
  EXPECT_TRUE(number_is(sheet(), "q4", bytes, 0.0, "bytes in flight, one float4 per thread"));
}

}  // namespace
