// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 08, pack_rows.cu: the rows of A packed bit for bit as cudalab::bits::pack_rows
// does, under stream capture and replayed on new inputs behind the same pointers, and the
// packer's bandwidth as a share of a device-to-device copy. Helpers in xnor_grading.cuh
// (kRowPacker).
#include "xnor_grading.cuh"

namespace {

using namespace lab08_grading;

class PackRowsGpu : public ::testing::TestWithParam<PackShape> {};

TEST_P(PackRowsGpu, MatchesHostPackerBitForBit) {
  CUDALAB_REQUIRE_GPU();
  expect_packs_on_two_inputs(kRowPacker, GetParam(), 10);  // M = rows, K = cols
}

INSTANTIATE_TEST_SUITE_P(Shapes, PackRowsGpu, ::testing::ValuesIn(kPackShapes), shape_name);

TEST_F(PackPerf, PackRowsReachesShareOfCopyBandwidth) {
  judge_packer(kRowPacker, 800);
}

}  // namespace
