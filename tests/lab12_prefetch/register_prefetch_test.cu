// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 12, register_prefetch.cu (part 1): the register-prefetch kernel right on odd
// shapes under stream capture, past 2^31 elements of A, B and C, on the small runs the
// sanitizers re-run, and its speed against the synchronous kernel at full occupancy and with
// one block per SM. Helpers in prefetch_grading.cuh.
#include <string>

#include "prefetch_grading.cuh"

namespace {

using lab12_grading::expect_product_with_k_tiles;
using lab12_grading::FullOccupancyPerf;
using lab12_grading::kLongK;
using lab12_grading::kShapes;
using lab12_grading::kSmall;
using lab12_grading::LatencyExposedPerf;
using lab12_grading::Shape;
using lab12_grading::shape_name;
using lab12_grading::tile_rules;

// ---------------------------------------------------------------------------
// Correctness on odd shapes: an odd number of k tiles ending in a partial tile is where a
// double-buffered loop most often drops or repeats its last tile.
// ---------------------------------------------------------------------------
class RegisterPrefetchGpu : public ::testing::TestWithParam<Shape> {};

TEST_P(RegisterPrefetchGpu, CorrectOnOddShapes) {
  CUDALAB_REQUIRE_GPU();
  expect_product_with_k_tiles(lab12::matmul_register_prefetch, lab12::register_prefetch_kernel(),
                              GetParam());
}

INSTANTIATE_TEST_SUITE_P(Shapes, RegisterPrefetchGpu, ::testing::ValuesIn(kShapes), shape_name);

// ---------------------------------------------------------------------------
// Index range: A holds more than 2^31 elements, so a row offset row * k computed in int
// overflows. A is filled on the device from a hash of the element index; the host checks
// sampled rows past the 2^31-element mark.
// ---------------------------------------------------------------------------

TEST(IndexRangeGpu, RegisterPrefetchPast2To31Elements) {
  CUDALAB_REQUIRE_GPU();
  matmul_grading::expect_large_a_rows(lab12::matmul_register_prefetch,
                                      tile_rules(lab12::register_prefetch_kernel()), lab12::kTile,
                                      3);
}
// B (1040 x 2^21, + 3 where odd widths are allowed) and C (65535 tiles of rows x about
// 2^31 / rows columns) past 2^31 elements: offsets p * n and row * n must be 64-bit too.
TEST(IndexRangeGpu, RegisterPrefetchPast2To31ElementsOfB) {
  CUDALAB_REQUIRE_GPU();
  matmul_grading::expect_large_b_columns(lab12::matmul_register_prefetch,
                                         tile_rules(lab12::register_prefetch_kernel()),
                                         lab12::kTile, true);
}
TEST(IndexRangeGpu, RegisterPrefetchPast2To31ElementsOfC) {
  CUDALAB_REQUIRE_GPU();
  matmul_grading::expect_large_c_rows(lab12::matmul_register_prefetch,
                                      tile_rules(lab12::register_prefetch_kernel()), lab12::kTile,
                                      true);
}

// ---------------------------------------------------------------------------
// Small runs: what the sanitizer tests re-run under compute-sanitizer (kSmall). One suite per
// kernel, so a student who skipped the advanced kernel fails only its own tests.
// ---------------------------------------------------------------------------
TEST(SmallPrefetchGpu, RegisterPrefetch) {
  CUDALAB_REQUIRE_GPU();
  for (const Shape& s : kSmall)
    expect_product_with_k_tiles(lab12::matmul_register_prefetch, lab12::register_prefetch_kernel(),
                                s);
}

CUDALAB_SANITIZER_SUITE(PrefetchSanitizer, "SmallPrefetchGpu.*", racecheck, synccheck, memcheck)

// ---------------------------------------------------------------------------
// Speed (PerfFixture::time_against_sync): no large regression at full occupancy, the load
// latency hidden with one block per SM.
// ---------------------------------------------------------------------------
TEST_F(FullOccupancyPerf, RegisterPrefetchDoesNotRegress) {
  const auto cmp = time_against_sync(full_occupancy(), lab12::matmul_register_prefetch,
                                     lab12::register_prefetch_kernel(),
                                     "register prefetch vs synchronous, 4096^2 (full occupancy)");
  if (HasFailure()) return;
  cudalab::testing::expect_speedup(cmp,
                                   "register prefetch vs synchronous at full occupancy (no "
                                   "large regression)");
}

TEST_F(LatencyExposedPerf, RegisterPrefetchHidesTheLoadLatency) {
  const auto cmp = time_against_sync(latency_exposed(), lab12::matmul_register_prefetch,
                                     lab12::register_prefetch_kernel(),
                                     "register prefetch vs synchronous, one block per SM");
  if (HasFailure()) return;
  cudalab::testing::expect_speedup(
      cmp, "register prefetch vs synchronous, one block per SM, k = " + std::to_string(kLongK));
}

}  // namespace
