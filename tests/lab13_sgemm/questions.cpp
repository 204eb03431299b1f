// SPDX-License-Identifier: BSD-3-Clause
// Lab 13 questions (labs/lab13_sgemm/README.md, "Questions"): reuse, occupancy, swizzle.
#include "common/answers.hpp"

namespace {

using cudalab::questions::number_is;
using cudalab::questions::sheet;

TEST(QuestionsCpu, Q1FfmaPerSharedWordOfA16x8Tile) {
  const double ffma = 16.0 * 8.0, words = 16.0 + 8.0;  // per k step of one thread
  EXPECT_TRUE(number_is(sheet(), "q1", ffma / words, 0.01,
                        "FFMA per float read from shared memory with a 16 x 8 thread tile"));
}

TEST(QuestionsCpu, Q2BlocksPerSmAt215Registers) {
  // 215 x 32 = 6880 registers per warp, allocated as 6912 (units of 256); a quarter of the
  // register file (16384) holds 2 such warps, the SM 8: one block of 8 warps.
  EXPECT_TRUE(number_is(sheet(), "q2", 1.0, 0.0,
                        "blocks of 256 threads at 215 registers per thread on one SM"));
}

TEST(QuestionsCpu, Q3SharedBytesOfThePipelinedBlock) {
  const double bytes = 3.0 /*stages*/ * 16 /*k*/ * ((128 + 4) + 256) * 4 /*bytes per float*/;
  EXPECT_TRUE(number_is(sheet(), "q3", bytes, 0.0, "dynamic shared bytes of a pipelined block"));
}

TEST(QuestionsCpu, Q4TileColumnOfASwizzledBlock) {
  // 32 x 16 tiles, groups of 8 rows: block 21 is the 22nd block of group 0, which walks 8 rows
  // per column: column 21 / 8 = 2.
  EXPECT_TRUE(number_is(sheet(), "q4", 2.0, 0.0, "tile column of block 21 (groups of 8 rows)"));
}

}  // namespace
