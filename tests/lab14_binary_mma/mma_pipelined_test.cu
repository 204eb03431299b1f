// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 14, mma_pipelined.cu: the pipelined kernel (128 x 128 block tiles, cp.async,
// ldmatrix) of lab14::kTechniques: its compiled code fills its stages with cp.async (cuobjdump
// -sass); racecheck, memcheck and synccheck on ragged shapes and a K past the ring of stages; its
// speed against the CUDA cores' popcount peak measured in the same run. What it shares with the
// other tensor-core kernels (exact on odd shapes and K not a multiple of 256 bits nor of the
// 1024-bit stage, the AND-popc MMA in its SASS, its multiple of the popcount ceiling) is
// registered once over the table in binary_mma_test.cu. Helpers in binary_mma_grading.cuh.
#include <cstddef>
#include <string>

#include "binary_mma_grading.cuh"

namespace {

using namespace lab14_grading;

/// Steps of the popcount-peak microbenchmark per timed run (about 0.5 ms on an H200).
constexpr int kPeakIterations = 1024;

// ---------------------------------------------------------------------------
// The compiled kernel copies its tiles with cp.async (the AND-popc MMA in its own code:
// {}SassCpu.KernelUsesTheAndPopcTensorCoreMma, binary_mma_test.cu).
// ---------------------------------------------------------------------------
TEST(PipelinedSassCpu, KernelCopiesItsTilesWithCpAsync) {
  kit::expect_sass(lab14::mma_pipelined_kernel(),
                   {kit::sass_requires({"LDGSTS"},
                                       "the pipelined kernel must fill its stages "
                                       "with cp.async (__pipeline_memcpy_async)")},
                   "", 80);
}

// ---------------------------------------------------------------------------
// Races, memory errors, barriers (compute-sanitizer) on shapes with partial tiles and a K that
// wraps the ring of stages. Written out, not CUDALAB_SANITIZER_SUITE: these need compute
// capability 8.0 (the kit's macros require only a GPU, and a sanitizer run over tests that all
// skip would pass).
// ---------------------------------------------------------------------------
constexpr const char* kPipelinedSanitized =
    "Shapes/PipelinedMmaGpu.*/129x130x513:Shapes/PipelinedMmaGpu.*/128x128x3172";

TEST(PipelinedMmaSanitizer, RacecheckFindsNoSharedMemoryHazard) {
  CUDALAB_REQUIRE_CC(8, 0);
  CUDALAB_EXPECT_SANITIZER_CLEAN("racecheck", kPipelinedSanitized);
}
TEST(PipelinedMmaSanitizer, MemcheckFindsNoOutOfBoundsAccess) {
  CUDALAB_REQUIRE_CC(8, 0);
  CUDALAB_EXPECT_SANITIZER_CLEAN("memcheck", kPipelinedSanitized);
}
TEST(PipelinedMmaSanitizer, SynccheckFindsNoInvalidBarrier) {
  CUDALAB_REQUIRE_CC(8, 0);
  CUDALAB_EXPECT_SANITIZER_CLEAN("synccheck", kPipelinedSanitized);
}

// ---------------------------------------------------------------------------
// Perf, 4096^3 bits (PerfFixture): against the CUDA cores' popcount peak (its multiple of the
// popcount ceiling: PipelinedPerf.MultipleOfThePopcCeiling, binary_mma_test.cu).
// ---------------------------------------------------------------------------
/// The fixture of every {}Perf.MultipleOfThePopcCeiling (binary_mma_test.cu), this suite's other
/// test: the tests of a suite share one fixture class.
using PipelinedPerf = PerfFixture;

// The same-run baseline is the given microbenchmark's XOR-popcount rate on every SM: the most
// any binary GEMM on the CUDA cores can do (lab 09's register-tiled kernel reached 92 % of the
// computed popcount ceiling in the reference run). Rates are compared, in bit multiply-adds per
// second.
TEST_F(PipelinedPerf, BeatsTheCudaCorePopcountPeak) {
  const CapturedWork cap = capture(technique("pipelined"));
  cudalab::DeviceBuffer<int> d_sink(static_cast<std::size_t>(lab14::popcount_peak_threads()));
  d_c.fill_bytes(0xFF);
  const cudalab::Comparison cmp = cudalab::compare(
      [&](cudaStream_t s) { lab14::popcount_peak(kPeakIterations, 0x9e3779b9u, d_sink.data(), s); },
      cap.as_work(), alternating());
  expect_output_correct("binary_mma_pipelined");
  const double peak =
      lab14::popcount_peak_bit_macs(kPeakIterations) / (cmp.baseline.median_ms * 1e9);
  const double rate = double(n) * n * n / (cmp.candidate.median_ms * 1e9);  // Tbit-MAC/s
  const double ratio = rate / peak;
  const double bar = t::speed_bar("pipelined_over_popcount_peak", t::Bound::kAtLeast, ratio);
  const double threshold = bar * cudalab::speedup_scale();
  const cudalab::Ceilings ceilings = cudalab::device_ceilings();
  t::record_measurement("popcount_peak_tbitmacs", peak, "Tbit-MAC/s");
  t::record_measurement("popcount_peak_x_popc_ceiling", peak / ceilings.popc_tbitops, "x");
  t::record_measurement("binary_mma_pipelined_tbitmacs", rate, "Tbit-MAC/s");
  t::record_measurement("pipelined_over_popcount_peak", ratio, "x", threshold, t::Bound::kAtLeast);
  EXPECT_GE(ratio, threshold) << "binary_mma_pipelined (with its popcounts) reaches " << rate
                              << " Tbit-MAC/s (median " << cmp.candidate.median_ms
                              << " ms) = " << ratio << "x the CUDA cores' popcount peak measured "
                              << "in this run (" << peak << " Tbit-MAC/s, median "
                              << cmp.baseline.median_ms << " ms), needs >= " << threshold
                              << "x (bar " << bar << "x x CUDALAB_SPEEDUP_SCALE "
                              << cudalab::speedup_scale() << ")";
}

}  // namespace
