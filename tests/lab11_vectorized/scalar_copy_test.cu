// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 11, scalar_copy.cu (given): the argument checks both copies share (copy_grid(),
// which vec4_copy()'s given launcher calls too) and those of the given baselines, the scalar
// copy and the padded transpose (padded_transpose.cu, whose only checks these are; it is the
// tile stage's baseline in vec4_tile_transpose_test.cu). Given code, not graded; on the CPU.

#include <cstddef>
#include <string>

#include "common/kit.cuh"
#include "cudalab/testing.hpp"
#include "vectorized.cuh"

namespace {

// The given baselines' argument checks (the contracts of scalar_copy(): "as vec4_copy()", and of
// padded_transpose()). Given code, not graded; nothing is launched: the pointers point into a
// host array, only checked (for alignment), never dereferenced.
TEST(GivenArgumentChecksCpu, ScalarCopyAndPaddedTransposeRejectBadArguments) {
  alignas(16) float h_dummy[8] = {};
  const float* p = h_dummy;
  float* q = h_dummy;
  const std::size_t row = 4 * sizeof(float);  // a 4-float row
  EXPECT_THROW(lab11::scalar_copy(p, row, q, row, 0, 2), std::invalid_argument) << "width 0";
  EXPECT_THROW(lab11::scalar_copy(p, row, q, row, 4, -1), std::invalid_argument) << "rows -1";
  EXPECT_THROW(lab11::scalar_copy(p, row - 4, q, row, 4, 2), std::invalid_argument)
      << "a source pitch below the row";
  EXPECT_THROW(lab11::scalar_copy(p, row, q, row - 4, 4, 2), std::invalid_argument)
      << "a destination pitch below the row";
  EXPECT_THROW(lab11::scalar_copy(p, row + 2, q, row, 4, 2), std::invalid_argument)
      << "a source pitch not a multiple of 4";
  EXPECT_THROW(lab11::scalar_copy(p, row, q, row + 1, 4, 2), std::invalid_argument)
      << "a destination pitch not a multiple of 4";
  const float* p_odd = reinterpret_cast<const float*>(reinterpret_cast<const char*>(p) + 2);
  float* q_odd = reinterpret_cast<float*>(reinterpret_cast<char*>(q) + 2);
  EXPECT_THROW(lab11::scalar_copy(p_odd, row, q, row, 4, 2), std::invalid_argument)
      << "a source base 2 bytes past a float";
  EXPECT_THROW(lab11::scalar_copy(p, row, q_odd, row, 4, 2), std::invalid_argument)
      << "a destination base 2 bytes past a float";
  for (const int block : {0, 16, 48, 1056, -32}) {
    lab11::CopyLaunch launch;
    launch.block = block;
    EXPECT_THROW(lab11::scalar_copy(p, row, q, row, 4, 2, launch), std::invalid_argument)
        << "block " << block;
  }
  EXPECT_THROW(lab11::padded_transpose(p, q, 0, 4), std::invalid_argument) << "rows 0";
  EXPECT_THROW(lab11::padded_transpose(p, q, 4, -4), std::invalid_argument) << "cols -4";
  EXPECT_THROW(lab11::padded_transpose(p, q, 65536 * lab11::kTile, 4), std::invalid_argument)
      << "65536 tile rows (gridDim.y allows 65535)";
}

// vec4_copy's contract, clause by clause, each case one bad argument of an otherwise valid call
// (8 x 4 floats, 64-byte pitches, 256 threads). Its checks are given code (copy_grid(), called
// by the given launcher in vec4_copy.cu), so not graded. Nothing is launched: the pointers are
// unallocated. Blocks of 32 are accepted: Vec4CopyGpu.IsExactWithATinyGrid.
TEST(GivenArgumentChecksCpu, Vec4CopyRejectsBadSizesPitchesBasesAndBlocks) {
  struct Case {
    std::size_t src_offset, src_pitch, dst_offset, dst_pitch;  ///< offsets: bytes past 256
    int width, rows, block;
    std::string why;
  };
  cudalab::kit::OneChange<Case> cases(Case{0, 64, 0, 64, 8, 4, 256, ""});
  for (const int bad : {0, -1}) {
    cases.add("width " + std::to_string(bad) + " is not positive", [=](Case& c) { c.width = bad; });
    cases.add("rows " + std::to_string(bad) + " is not positive", [=](Case& c) { c.rows = bad; });
  }
  for (const std::size_t bad : {0, 28}) {  // the row is 8 floats, 32 bytes
    cases.add("src_pitch " + std::to_string(bad) + " is below the 32-byte row",
              [=](Case& c) { c.src_pitch = bad; });
    cases.add("dst_pitch " + std::to_string(bad) + " is below the 32-byte row",
              [=](Case& c) { c.dst_pitch = bad; });
  }
  for (const std::size_t bad : {33, 34, 35, 66}) {
    cases.add("src_pitch " + std::to_string(bad) + " is not a multiple of 4",
              [=](Case& c) { c.src_pitch = bad; });
    cases.add("dst_pitch " + std::to_string(bad) + " is not a multiple of 4",
              [=](Case& c) { c.dst_pitch = bad; });
  }
  for (const std::size_t bad : {1, 2, 3}) {
    cases.add(
        "d_src " + std::to_string(bad) + " bytes past a float (base offsets are whole floats)",
        [=](Case& c) { c.src_offset = bad; });
    cases.add(
        "d_dst " + std::to_string(bad) + " bytes past a float (base offsets are whole floats)",
        [=](Case& c) { c.dst_offset = bad; });
  }
  for (const int bad : {0, -32, 16, 31, 48, 1000, 1025, 1056, 2048}) {
    cases.add("block " + std::to_string(bad) + " is not a multiple of 32 in 32..1024",
              [=](Case& c) { c.block = bad; });
  }
  for (const Case& c : cases.list) {
    const std::string what =
        "vec4_copy(d_src=<aligned + " + std::to_string(c.src_offset) +
        ">, src_pitch=" + std::to_string(c.src_pitch) + ", d_dst=<aligned + " +
        std::to_string(c.dst_offset) + ">, dst_pitch=" + std::to_string(c.dst_pitch) +
        ", width=" + std::to_string(c.width) + ", rows=" + std::to_string(c.rows) +
        ", block=" + std::to_string(c.block) + ")";
    lab11::CopyLaunch launch;
    launch.block = c.block;
    EXPECT_TRUE(cudalab::kit::throws_invalid_argument(what, [&] {
      lab11::vec4_copy(cudalab::kit::unallocated<const float>(c.src_offset), c.src_pitch,
                       cudalab::kit::unallocated<float>(c.dst_offset), c.dst_pitch, c.width, c.rows,
                       launch);
    })) << c.why;
  }
}

}  // namespace
