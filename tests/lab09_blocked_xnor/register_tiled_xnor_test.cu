// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 09, register_tiled_xnor.cu (advanced): the register-tiled 64-bit binary matmul
// of lab09::kTechniques (128 x 128 block tiles, 8-word stages), exact on shapes around its
// tiles and stages and past 2^24 bits, and its sanitizer runs. It runs under stream capture
// (the graph may hold only the lab's kernel), then on new inputs behind the same pointers,
// with NaN-poisoned outputs and shared memory. Its share of the popcount ceiling and its speed
// against cuBLAS: blocked_xnor_test.cu. Helpers in blocked_xnor_grading.cuh.
#include <cstdint>

#include "blocked_xnor_grading.cuh"

namespace {

using namespace lab09_grading;

// ---------------------------------------------------------------------------
// Advanced: the register-tiled 64-bit kernel (128 x 128 block tiles, 8-word stages).
// ---------------------------------------------------------------------------
const Shape kRegisterShapes[] = {{1, 1, 1},         {1, 129, 63},    {127, 129, 64},
                                 {128, 128, 512},   {129, 130, 513}, {257, 1, 1000},
                                 {300, 257, 1500},  {3, 500, 4097},  {640, 384, 2048},
                                 {1000, 700, 1111}, {5, 140, 20001}};

class RegisterTiledGpu : public ::testing::TestWithParam<Shape> {};

TEST_P(RegisterTiledGpu, SixtyFourBitRegisterTileIsExact) {
  CUDALAB_REQUIRE_GPU();
  expect_technique_exact<std::uint64_t>("register_tiled_xnor", GetParam());
}

INSTANTIATE_TEST_SUITE_P(Shapes, RegisterTiledGpu, ::testing::ValuesIn(kRegisterShapes),
                         shape_name);

// ---------------------------------------------------------------------------
// Range edge (lab09_grading::RangeFixture): K above 2^24 bits on a 2 x 3 product.
// ---------------------------------------------------------------------------
class RegisterTiledRangeGpu : public RangeFixture {};

TEST_F(RegisterTiledRangeGpu, CountsPastTwoToThe24Bits) {
  expect_counts_past_2_to_24_bits<std::uint64_t>("register_tiled_xnor", 60);
}

// ---------------------------------------------------------------------------
// Races, memory errors, barriers (compute-sanitizer) on a shape with partial tiles and
// stages, apart from the required 16x16 kernels' (tiled_xnor_test.cu): a student who skipped
// the advanced kernel fails only its own tests.
// ---------------------------------------------------------------------------
constexpr const char* kRegisterSanitized = "Shapes/RegisterTiledGpu.*/129x130x513";

CUDALAB_SANITIZER_SUITE(RegisterTiledXnorSanitizer, kRegisterSanitized, racecheck, memcheck,
                        synccheck)

}  // namespace
