// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 08, pack_cols.cu: the columns of B packed word-major bit for bit as
// cudalab::bits::pack_cols_word_major does, under stream capture and replayed on new inputs
// behind the same pointers, and the packer's bandwidth as a share of a device-to-device copy.
// Helpers in xnor_grading.cuh (kColumnPacker).
#include "xnor_grading.cuh"

namespace {

using namespace lab08_grading;

class PackColsGpu : public ::testing::TestWithParam<PackShape> {};

TEST_P(PackColsGpu, MatchesHostPackerBitForBit) {
  CUDALAB_REQUIRE_GPU();
  expect_packs_on_two_inputs(kColumnPacker, GetParam(), 20);  // N = rows, K = cols
}

INSTANTIATE_TEST_SUITE_P(Shapes, PackColsGpu, ::testing::ValuesIn(kPackShapes), shape_name);

// B is cols x rows here (K = kPackPerfCols elements per column, rows columns).
TEST_F(PackPerf, PackColsReachesShareOfCopyBandwidth) {
  judge_packer(kColumnPacker, 810);
}

}  // namespace
