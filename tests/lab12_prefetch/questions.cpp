// SPDX-License-Identifier: BSD-3-Clause
// Lab 12 questions (labs/lab12_prefetch/README.md, "Questions"): stages, tails, overlap.
#include <algorithm>

#include "common/answers.hpp"

namespace {

using cudalab::questions::number_is;
using cudalab::questions::sheet;

constexpr int kTile = 32;

TEST(QuestionsCpu, Q1SharedBytesOfTheTwoStageKernel) {
  const double bytes = 2.0 /*stages*/ * 2 /*A and B*/ * kTile * kTile * 4 /*bytes per float*/;
  EXPECT_TRUE(
      number_is(sheet(), "q1", bytes, 0.0, "shared bytes per block of the two-stage kernel"));
}

TEST(QuestionsCpu, Q2RealColumnsOfTheLastTile) {
  const int k = 1000;
  const int tiles = (k + kTile - 1) / kTile;
  EXPECT_TRUE(number_is(sheet(), "q2", k - (tiles - 1) * kTile, 0.0,
                        "columns of A's last tile that come from A (k = 1000)"));
}

TEST(QuestionsCpu, Q3SpeedupOfOverlappingLoadAndMultiply) {
  const double load = 800, multiply = 1300;  // cycles per step, one block per SM
  EXPECT_TRUE(number_is(sheet(), "q3", (load + multiply) / std::max(load, multiply), 0.01,
                        "predicted speedup of the two-stage pipeline"));
}

TEST(QuestionsCpu, Q4BlocksPerSmOneRegisterOverTheCap) {
  // cuda_occupancy.h (cudaOccRegAllocationGranularity): registers are allocated per warp in
  // units of 256 on compute capability 3.x to 12.x.
  const int per_warp = (33 * 32 + 255) / 256 * 256;  // 1056 -> 1280
  const int per_block = per_warp * (1024 / 32);      // 32 warps
  EXPECT_TRUE(number_is(sheet(), "q4", 65536 / per_block, 0.0,
                        "1024-thread blocks per SM at 33 registers per thread"));
}

}  // namespace
