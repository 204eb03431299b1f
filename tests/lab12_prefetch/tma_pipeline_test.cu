// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 12, tma_pipeline.cu (part 3, advanced): the two-stage bulk-copy (TMA) kernel
// right on odd shapes with k and n multiples of 4 under stream capture, the given launcher's
// argument checks, past 2^31 elements of A, B and C, on the small runs the sanitizers re-run,
// its speed against the synchronous kernel, and its bulk copies on mbarriers in the machine
// code. Helpers in prefetch_grading.cuh.
#include <cstddef>
#include <string>

#include "prefetch_grading.cuh"

namespace {

using namespace lab12_grading;

// The bulk-copy kernel needs k and n multiples of 4: the same kinds of k (68: 3 tiles,
// 260: 9, 772: 25, 1028: 33; 36: 2; 32, 64).
const Shape kTmaShapes[] = {{1, 4, 4},     {17, 36, 68},    {129, 68, 260}, {1000, 4, 772},
                            {3, 1000, 64}, {33, 100, 1028}, {257, 132, 36}, {96, 160, 32}};

// ---------------------------------------------------------------------------
// Correctness on odd shapes: an odd number of k tiles ending in a partial tile is where a
// double-buffered loop most often drops or repeats its last tile.
// ---------------------------------------------------------------------------
class TmaPipelineGpu : public ::testing::TestWithParam<Shape> {};

TEST_P(TmaPipelineGpu, CorrectOnOddShapes) {
  CUDALAB_REQUIRE_GPU();
  expect_product_with_k_tiles(lab12::matmul_tma, lab12::tma_kernel(), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Shapes, TmaPipelineGpu, ::testing::ValuesIn(kTmaShapes), shape_name);

// matmul_tma's contract, each case one bad argument of an otherwise valid call (8 x 8 x 8,
// 256-byte aligned pointers). The launcher is given (tma_pipeline.cu, outside the TODO region):
// not graded. Nothing is launched: the pointers are unallocated. What it must accept (any m,
// k and n multiples of 4 down to 4) is TmaPipelineGpu.CorrectOnOddShapes.
TEST(GivenArgumentChecksCpu, TmaLauncherRejectsBadSizesAndMisalignedOperands) {
  struct Case {
    int m, n, k;
    std::size_t a_offset, b_offset;  ///< bytes past a 256-byte aligned address
    std::string why;
  };
  kit::OneChange<Case> cases(Case{8, 8, 8, 0, 0, ""});
  for (const int bad : {0, -1, -4}) {
    const std::string v = std::to_string(bad);
    cases.add("m = " + v + " is not positive", [=](Case& c) { c.m = bad; });
    cases.add("n = " + v + " is not positive", [=](Case& c) { c.n = bad; });
    cases.add("k = " + v + " is not positive", [=](Case& c) { c.k = bad; });
  }
  for (const int bad : {1, 2, 3, 5, 6, 33}) {
    const std::string v = std::to_string(bad);
    cases.add("k = " + v + " is not a multiple of 4 (rows of A off 16-byte boundaries)",
              [=](Case& c) { c.k = bad; });
    cases.add("n = " + v + " is not a multiple of 4 (rows of B off 16-byte boundaries)",
              [=](Case& c) { c.n = bad; });
  }
  for (const std::size_t bad : {4, 8, 12}) {
    const std::string v = std::to_string(bad);
    cases.add("d_a " + v + " bytes past a 16-byte boundary", [=](Case& c) { c.a_offset = bad; });
    cases.add("d_b " + v + " bytes past a 16-byte boundary", [=](Case& c) { c.b_offset = bad; });
  }
  for (const Case& c : cases.list) {
    const std::string what = "matmul_tma(d_a=<aligned + " + std::to_string(c.a_offset) +
                             ">, d_b=<aligned + " + std::to_string(c.b_offset) +
                             ">, m=" + std::to_string(c.m) + ", n=" + std::to_string(c.n) +
                             ", k=" + std::to_string(c.k) + ")";
    EXPECT_TRUE(kit::throws_invalid_argument(what, [&] {
      lab12::matmul_tma(kit::unallocated<const float>(c.a_offset),
                        kit::unallocated<const float>(c.b_offset), kit::unallocated<float>(), c.m,
                        c.n, c.k);
    })) << c.why;
  }
}

// ---------------------------------------------------------------------------
// Index range: A holds more than 2^31 elements, so a row offset row * k computed in int
// overflows. A is filled on the device from a hash of the element index; the host checks
// sampled rows past the 2^31-element mark.
// ---------------------------------------------------------------------------

TEST(TmaIndexRangeGpu, BulkCopiesPast2To31Elements) {
  CUDALAB_REQUIRE_GPU();
  matmul_grading::expect_large_a_rows(lab12::matmul_tma, tile_rules(lab12::tma_kernel()),
                                      lab12::kTile, 4);
}
// B (1040 x 2^21, + 3 where odd widths are allowed) and C (65535 tiles of rows x about
// 2^31 / rows columns) past 2^31 elements: offsets p * n and row * n must be 64-bit too.
TEST(TmaIndexRangeGpu, BulkCopiesPast2To31ElementsOfB) {
  CUDALAB_REQUIRE_GPU();
  matmul_grading::expect_large_b_columns(lab12::matmul_tma, tile_rules(lab12::tma_kernel()),
                                         lab12::kTile, false);
}
TEST(TmaIndexRangeGpu, BulkCopiesPast2To31ElementsOfC) {
  CUDALAB_REQUIRE_GPU();
  matmul_grading::expect_large_c_rows(lab12::matmul_tma, tile_rules(lab12::tma_kernel()),
                                      lab12::kTile, false);
}

// ---------------------------------------------------------------------------
// Small runs: what TmaSanitizer re-runs under compute-sanitizer (k and n multiples of 4). One
// suite per kernel, so a student who skipped the advanced kernel fails only its own tests.
// ---------------------------------------------------------------------------
TEST(SmallTmaGpu, BulkCopyPipeline) {
  CUDALAB_REQUIRE_GPU();
  for (const Shape& s : {Shape{40, 36, 68}, Shape{17, 64, 100}}) {
    expect_product_with_k_tiles(lab12::matmul_tma, lab12::tma_kernel(), s);
  }
}

CUDALAB_SANITIZER_SUITE(TmaSanitizer, "SmallTmaGpu.*", racecheck, synccheck, memcheck)

// ---------------------------------------------------------------------------
// Speed (PerfFixture::expect_speedup_over_sync): the bulk-copy pipeline against the synchronous
// kernel at full occupancy and with one block per SM.
// ---------------------------------------------------------------------------
class TmaPerf : public PerfFixture {};

TEST_F(TmaPerf, DoesNotRegressAtFullOccupancy) {
  expect_speedup_over_sync(full_occupancy(), lab12::matmul_tma, lab12::tma_kernel(),
                           "two-stage bulk copy vs synchronous, 4096^2 (full occupancy)",
                           "two-stage bulk copy vs synchronous at full occupancy");
}

TEST_F(TmaPerf, HidesTheLoadLatencyWithOneBlockPerSm) {
  expect_speedup_over_sync(latency_exposed(), lab12::matmul_tma, lab12::tma_kernel(),
                           "two-stage bulk copy vs synchronous, one block per SM",
                           "two-stage bulk copy vs synchronous, one block per SM");
}

// ---------------------------------------------------------------------------
// The technique in the machine code (cuobjdump -sass of this grader, no GPU). The two-stage
// bulk-copy kernel copies with the TMA unit (UBLKCP, or UTMALDG for a tensor map), completes on
// mbarriers (SYNCS) and holds no cp.async: part 2's kernel under its name fails; sm_90 and later.
// ---------------------------------------------------------------------------
TEST(PipelineSassCpu, TmaKernelCopiesWithBulkCopiesOnMbarriers) {
  kit::expect_sass(
      lab12::tma_kernel(),
      {kit::sass_requires({"UBLKCP", "UTMALDG"},
                          "the tile rows must be copied by the TMA unit (cuda::memcpy_async of "
                          "aligned_size_t<16> on a block-scope cuda::barrier: cp.async.bulk)"),
       kit::sass_requires({"SYNCS"},
                          "the stages must complete on mbarriers (cuda::barrier in "
                          "shared memory)"),
       kit::sass_forbids({"LDGSTS"},
                         "the bulk-copy kernel must not copy with cp.async "
                         "(part 2's technique)")},
      "", 90);
}

}  // namespace
