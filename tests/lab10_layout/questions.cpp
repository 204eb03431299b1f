// SPDX-License-Identifier: BSD-3-Clause
// Lab 10 questions (labs/lab10_layout/README.md, "Questions"): sectors, padding, the model's
// prediction of a DRAM-bound ratio.
#include <cstdint>
#include <set>
#include <vector>

#include "common/answers.hpp"

namespace {

using cudalab::questions::degree_of_words;
using cudalab::questions::number_is;
using cudalab::questions::sheet;

/// Distinct 32-byte sectors of 32 lanes reading 4 bytes at lane * stride_bytes.
int sectors(long long stride_bytes) {
  std::set<long long> s;
  for (long long lane = 0; lane < 32; ++lane) {
    for (long long b = 0; b < 4; ++b) s.insert((lane * stride_bytes + b) / 32);
  }
  return static_cast<int>(s.size());
}

TEST(QuestionsCpu, Q1SectorsOfOneFieldOfTwentyByteRecords) {
  EXPECT_TRUE(number_is(sheet(), "q1", sectors(20), 0.0, "sectors of p[i].x, 20-byte records"));
}

TEST(QuestionsCpu, Q2BytesFetchedPerUsefulByteAtStride32) {
  const double fetched = 32.0 * sectors(128), useful = 32.0 * 4;
  EXPECT_TRUE(number_is(sheet(), "q2", fetched / useful, 0.0,
                        "bytes fetched per useful byte, stride 32 floats"));
}

TEST(QuestionsCpu, Q3ConflictDegreeOfAnUnpaddedEightFieldTile) {
  std::vector<long long> words;
  for (long long lane = 0; lane < 32; ++lane) words.push_back(lane * 8);  // field 0, pitch 8
  EXPECT_TRUE(number_is(sheet(), "q3", degree_of_words(words), 0.0,
                        "conflict degree of the column read with pitch 8"));
}

TEST(QuestionsCpu, Q4ModelRatioOfSoaOverAos3XOnly) {
  EXPECT_TRUE(number_is(sheet(), "q4", double(sectors(12)) / sectors(4), 0.0,
                        "DRAM bytes of AoS3 p.x over SoA x"));
}

}  // namespace
