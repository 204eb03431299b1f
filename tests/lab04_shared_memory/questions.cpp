// SPDX-License-Identifier: BSD-3-Clause
// Lab 04 questions (labs/lab04_shared_memory/README.md, "Questions"): sizes and occupancy.
#include "common/answers.hpp"

namespace {

using cudalab::questions::number_is;
using cudalab::questions::sheet;

TEST(QuestionsCpu, Q1StaticSharedMemoryOfTwo32x32Tiles) {
  EXPECT_TRUE(number_is(sheet(), "q1", 2.0 * 32 * 32 * 4, 0.0, "bytes of two 32 x 32 tiles"));
}

TEST(QuestionsCpu, Q2DynamicSharedMemoryOfATile16Depth320Plan) {
  EXPECT_TRUE(number_is(sheet(), "q2", 2.0 * 16 * 320 * 4, 0.0, "bytes of the plan"));
}

TEST(QuestionsCpu, Q3BlocksPerSmLimitedByRegisters) {
  const int blocks = 65536 / (32 * 512);
  EXPECT_TRUE(number_is(sheet(), "q3", double(blocks), 0.0, "512-thread blocks per SM"));
}

TEST(QuestionsCpu, Q4StaticTilesOverNaiveOnTheReferenceGpu) {
  // docs/reference-run.md: 1.612x (TiledPerf.StaticTilesBeatNaive, H200).
  EXPECT_TRUE(number_is(sheet(), "q4", 1.612, 0.15, "static tiles over naive, H200"));
}

}  // namespace
