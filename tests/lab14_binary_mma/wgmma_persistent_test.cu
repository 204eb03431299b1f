// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 14, wgmma_persistent.cu (the advanced part, sm_90a): the persistent wgmma + TMA
// kernel of lab14::kTechniques, exact on ragged shapes with its popcounts (binary_gemm()) under
// stream capture and on new inputs behind the same pointers, its launcher's argument checks (on
// the host), its compiled code (warpgroup MMAs, TMA loads on mbarriers, TMA stores), racecheck,
// memcheck and synccheck, and its epilogue's global loads under ncu. Its speed as a multiple of
// the popcount ceiling, with tiers, is registered over the table in binary_mma_test.cu. Helpers
// in binary_mma_grading.cuh.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "binary_mma_grading.cuh"

namespace {

using namespace lab14_grading;

/// Advanced part, under ncu: global-load instructions per consumer warp per tile of the persistent
/// kernel at most this (the reference: 10, every popcount loaded once before the mainloop; the
/// column popcounts loaded per 32-column chunk: 130, or 18 with 16-byte loads).
constexpr double kPersistentLoadsPerWarpTile = 16.0;

// ---------------------------------------------------------------------------
// Advanced part: the persistent wgmma + TMA kernel (sm_90a: compute capability 9.0 and a build
// whose architectures include 90). Exact on ragged shapes: M and N not multiples of the
// 128 x 256 tile (N % 4 == 0: TMA stores clipped at C's edges, chunks past N skipped), odd N and
// N % 4 == 2 (the direct-store fallback), K tails inside a word, a 256-bit step and a 1024-bit
// stage, K filling the ring of 4 stages exactly (4096) and wrapping it (5200), one word of K
// against the 32-word TMA box (256), more tiles than SMs (1100 x 4100: each block takes several
// tiles, the ring runs across tile boundaries), and K from 65536 on (the wide-K instance: the
// packed 16-bit column popcounts would overflow).
// ---------------------------------------------------------------------------
/// Skips unless binary_mma_persistent() can run here, with the launcher's own reason.
#define LAB14_REQUIRE_PERSISTENT()                                         \
  do {                                                                     \
    CUDALAB_REQUIRE_CC(9, 0);                                              \
    const std::string lab14_why_ = lab14::persistent_unavailable_reason(); \
    if (!lab14_why_.empty()) GTEST_SKIP() << lab14_why_;                   \
  } while (0)

const Shape kPersistentShapes[] = {
    {1, 1, 1},        {16, 8, 256},       {17, 9, 300},     {24, 40, 257},    {33, 47, 515},
    {128, 256, 1024}, {129, 130, 513},    {200, 300, 2000}, {257, 516, 4096}, {100, 1000, 5200},
    {1100, 4100, 64}, {1000, 1996, 1300}, {65, 260, 65536}, {20, 36, 70001}};

class PersistentMmaGpu : public ::testing::TestWithParam<Shape> {};

TEST_P(PersistentMmaGpu, IsExact) {
  LAB14_REQUIRE_PERSISTENT();
  expect_exact_on_two_inputs(GetParam(), technique("persistent"));
}

INSTANTIATE_TEST_SUITE_P(Shapes, PersistentMmaGpu, ::testing::ValuesIn(kPersistentShapes),
                         shape_name);

// Given (not graded): the launcher's argument checks, on the host (no kernel runs).
TEST(GivenPersistentLauncherCpu, RejectsBadArguments) {
  alignas(16) static std::uint32_t words[8] = {};
  alignas(16) static int pops[8] = {};
  alignas(16) static float c[8] = {};
  const auto call = [&](const std::uint32_t* a, const float* cc, int m, int n, int k) {
    lab14::binary_mma_persistent(a, words, pops, pops, const_cast<float*>(cc), m, n, k);
  };
  EXPECT_THROW(call(words, c, 0, 4, 32), std::invalid_argument);
  EXPECT_THROW(call(words, c, 4, -1, 32), std::invalid_argument);
  EXPECT_THROW(call(words, c, 4, 4, 0), std::invalid_argument);
  EXPECT_THROW(call(words + 1, c, 4, 4, 32), std::invalid_argument);  // A 4-byte aligned only
  EXPECT_THROW(call(words, c + 2, 4, 4, 32), std::invalid_argument);  // C 8-byte aligned only
}

// The persistent kernel's SASS (sm_90a code only: the kernel is a trapping stub elsewhere):
// warpgroup MMAs, TMA loads on mbarriers, and the epilogue's TMA stores. Not checked here: that
// the TMA-store epilogue issues no global load (the odd-N fallback loads the column popcounts in
// the same function, so a static LDG count cannot tell); PersistentProfiler counts the loads the
// kernel executes instead.
void expect_persistent_sass(const KernelInfo& info, const char* instance) {
  kit::expect_sass(
      info,
      {kit::sass_requires({"HGMMA", "IGMMA", "BGMMA", "QGMMA"},
                          "the MMAs must be warpgroup MMAs (wgmma) on operands in shared memory"),
       kit::sass_requires({"UTMALDG"},
                          "the stages must be loaded by TMA (cp.async.bulk.tensor ... "
                          "mbarrier::complete_tx)"),
       kit::sass_requires({"SYNCS"}, "the ring must be guarded by mbarriers"),
       kit::sass_requires({"UTMASTG"},
                          "C must leave through TMA stores (cp.async.bulk.tensor.2d.global."
                          "shared::cta) from the staging buffers")},
      instance, 90);
}

TEST(PersistentSassCpu, KernelUsesWgmmaTmaLoadsAndTmaStores) {
  expect_persistent_sass(lab14::wgmma_persistent_kernel(), "<false>");
}

TEST(PersistentSassCpu, WideKInstanceUsesWgmmaTmaLoadsAndTmaStores) {
  expect_persistent_sass(lab14::wgmma_persistent_wide_k_kernel(), "<true>");
}

// ---------------------------------------------------------------------------
// Races, memory errors, barriers (compute-sanitizer), skipped unless the kernel can run here.
// ---------------------------------------------------------------------------
// The persistent kernel on shapes with ragged tiles (TMA stores and the direct-store fallback)
// and K that wraps the ring; racecheck sees the staging buffers' shared stores (the TMA unit's
// reads of them are ordered by the proxy fence and the bulk wait, which it may not model).
constexpr const char* kPersistentSanitized =
    "Shapes/PersistentMmaGpu.*/33x47x515:Shapes/PersistentMmaGpu.*/200x300x2000:"
    "Shapes/PersistentMmaGpu.*/100x1000x5200";

TEST(PersistentMmaSanitizer, RacecheckFindsNoSharedMemoryHazard) {
  LAB14_REQUIRE_PERSISTENT();
  CUDALAB_EXPECT_SANITIZER_CLEAN("racecheck", kPersistentSanitized);
}
TEST(PersistentMmaSanitizer, MemcheckFindsNoOutOfBoundsAccess) {
  LAB14_REQUIRE_PERSISTENT();
  CUDALAB_EXPECT_SANITIZER_CLEAN("memcheck", kPersistentSanitized);
}
TEST(PersistentMmaSanitizer, SynccheckFindsNoInvalidBarrier) {
  LAB14_REQUIRE_PERSISTENT();
  CUDALAB_EXPECT_SANITIZER_CLEAN("synccheck", kPersistentSanitized);
}
// The persistent kernel's epilogue under ncu: global-load instructions per consumer warp per
// tile, from its run on 1100 x 4100 x 64 (153 tiles of 128 x 256 on at most 132 blocks: every
// block's loop crosses tile boundaries; N % 4 == 0, the TMA-store epilogue). The reference loads
// each thread's two row popcounts and its 2 x 4 column popcounts before the mainloop: at most 10
// per warp per tile (9.56 measured on this shape, whose last tile row is partly past M). An
// epilogue that loads the column popcounts per 32-column chunk issues 130 (16-byte loads per chunk:
// at least 18), right results at 11.1-11.7x the popc ceiling (H100), which the perf bar alone
// cannot tell from the reference.
TEST(PersistentProfiler, EpilogueLoadsNoPopcounts) {
  LAB14_REQUIRE_PERSISTENT();
  const std::string loads = "smsp__sass_inst_executed_op_global_ld.sum";
  const Shape shape{1100, 4100, 64};
  const KernelInfo kernel = lab14::wgmma_persistent_kernel();
  const cudalab::testing::NcuRun run = cudalab::testing::run_ncu(
      {loads}, kernel.name, "Shapes/PersistentMmaGpu.IsExact/" + kit::to_string(shape));
  if (!run.available) GTEST_SKIP() << run.skip_reason;
  ASSERT_EQ(run.exit_code, 0) << cudalab::testing::excerpt(run.output);
  ASSERT_FALSE(run.kernels.empty()) << "ncu profiled no launch of " << kernel.name;
  double l = 0.0;
  for (const auto& kern : run.kernels) {
    const auto li = kern.values.find(loads);
    ASSERT_TRUE(li != kern.values.end()) << kern.name << ": " << loads << " missing in the report";
    l += li->second;
  }
  const int tiles = ((shape.m + lab14::kWsBlockM - 1) / lab14::kWsBlockM) *
                    ((shape.n + lab14::kWsBlockN - 1) / lab14::kWsBlockN);
  const double consumer_warps = 2.0 * 128 / 32;  // warpgroups 1 and 2
  const double per_warp_tile = l / (double(run.kernels.size()) * tiles * consumer_warps);
  t::record_measurement("persistent_global_loads_per_warp_tile", per_warp_tile, "",
                        kPersistentLoadsPerWarpTile, t::Bound::kAtMost);
  EXPECT_LE(per_warp_tile, kPersistentLoadsPerWarpTile)
      << kernel.name << ": " << per_warp_tile << " global-load instructions per consumer warp per "
      << "tile (" << l << " in " << run.kernels.size() << " launches of " << tiles
      << " tiles); the reference issues 9.56 here (two row and eight column popcounts per "
      << "thread, before the mainloop, the row loads of rows past M skipped). Does the epilogue "
      << "load the column popcounts per chunk? Load "
      << "them once per tile, before the mainloop, and hand them out with __shfl_sync.";
}

}  // namespace
