// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 12, what spans its files (prefetch.cuh): the checks the register-prefetch and the
// two-stage cp.async kernels both take, registered once over those entries of lab12::kTechniques
// (right on odd shapes, past 2^31 elements of A, B and C, the speed races against the synchronous
// kernel); both against the synchronous kernel on one block per SM, and Nsight Compute's stalls of
// the three kernels on that run. One test file per technique file besides, for what is a
// technique's own (sync_tiled_test.cu, register_prefetch_test.cu, cp_async_pipeline_test.cu,
// tma_pipeline_test.cu, carveout_test.cu); helpers in prefetch_grading.cuh.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "cudalab/device.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/tools.hpp"
#include "prefetch_grading.cuh"

namespace {

using namespace lab12_grading;

/// The techniques the checks below take: the student's kernels that take every shape (parts 1
/// and 2). The given synchronous kernel has GivenSyncGpu alone (sync_tiled_test.cu); the
/// bulk-copy kernel takes k and n multiples of 4 alone and has its own tests
/// (tma_pipeline_test.cu).
constexpr const char* kEveryShape[] = {"register_prefetch", "pipelined"};

// ---------------------------------------------------------------------------
// Correctness on odd shapes: an odd number of k tiles ending in a partial tile is where a
// double-buffered loop most often drops or repeats its last tile. Shapes: 1, primes, one past a
// tile, rectangles both ways; k with an odd number of tiles and a partial last tile (5: 1 tile,
// 70: 3, 135: 5, 257: 9, 777: 25, 1030: 33), an even number (33: 2, 100: 4), and whole tiles (32,
// 64). Shapes/<Technique>Gpu.CorrectOnOddShapes/<shape>.
// ---------------------------------------------------------------------------
const Shape kShapes[] = {{1, 1, 1},      {17, 33, 5},    {40, 33, 70},  {33, 31, 100},
                         {129, 65, 257}, {1000, 3, 777}, {3, 1000, 64}, {2, 300, 1030},
                         {257, 129, 33}, {96, 160, 32},  {61, 67, 135}};

void correct_on_odd_shapes(::testing::Test&, const lab12::Technique& t, const Shape& shape) {
  CUDALAB_REQUIRE_GPU();
  expect_product_with_k_tiles(t.launcher, t.kernel(), shape);
}

// ---------------------------------------------------------------------------
// Index range: A holds more than 2^31 elements, so a row offset row * k computed in int
// overflows. A is filled on the device from a hash of the element index; the host checks
// sampled rows past the 2^31-element mark. B (1040 x 2^21, + 3 where n is odd) and C (65535
// tiles of rows x about 2^31 / rows columns) past 2^31 elements: offsets p * n and row * n must
// be 64-bit too. IndexRangeGpu.<Technique>Past2To31Elements{,OfB,OfC}.
// ---------------------------------------------------------------------------
/// Each kernel's runs past 2^31 elements of B and C: the rows of the run of B, and whether n is
/// odd (else a multiple of 4) in both. Odd for both kernels: a 16-byte copy path only runs on
/// rows whose length is a multiple of 4, so an odd n is what takes the float-by-float edge path
/// past 2^31 elements.
struct WideRuns {
  const char* name;  ///< the technique's
  int b_rows;
  bool odd_n;
};
constexpr WideRuns kWideRuns[] = {{"register_prefetch", lab12::kTile, true},
                                  {"pipelined", 5, true}};

const WideRuns& wide_runs(const lab12::Technique& t) {
  return kit::technique_named(kWideRuns, t.name, "kWideRuns");
}

void past_2_to_31_elements(::testing::Test&, const lab12::Technique& t) {
  CUDALAB_REQUIRE_GPU();
  matmul_grading::expect_large_a_rows(t.launcher, tile_rules(t.kernel()), lab12::kTile, 3);
}

void past_2_to_31_elements_of_b(::testing::Test&, const lab12::Technique& t) {
  CUDALAB_REQUIRE_GPU();
  matmul_grading::expect_large_b_columns(t.launcher, tile_rules(t.kernel()), wide_runs(t).b_rows,
                                         wide_runs(t).odd_n);
}

void past_2_to_31_elements_of_c(::testing::Test&, const lab12::Technique& t) {
  CUDALAB_REQUIRE_GPU();
  matmul_grading::expect_large_c_rows(t.launcher, tile_rules(t.kernel()), lab12::kTile,
                                      wide_runs(t).odd_n);
}

// ---------------------------------------------------------------------------
// Speed (PerfFixture::expect_speedup_over_sync): no large regression at full occupancy
// (FullOccupancyPerf.<Technique>DoesNotRegress), the load latency hidden with one block per SM
// (LatencyExposedPerf.<Technique>HidesTheLoadLatency); each named by the technique's title.
// ---------------------------------------------------------------------------
void does_not_regress(PerfFixture& perf, const lab12::Technique& t) {
  const std::string title = t.title;
  perf.expect_speedup_over_sync(perf.full_occupancy(), t.launcher, t.kernel(),
                                title + " vs synchronous, 4096^2 (full occupancy)",
                                title + " vs synchronous at full occupancy (no large regression)");
}

void hides_the_load_latency(PerfFixture& perf, const lab12::Technique& t) {
  const std::string title = t.title;
  perf.expect_speedup_over_sync(
      perf.latency_exposed(), t.launcher, t.kernel(), title + " vs synchronous, one block per SM",
      title + " vs synchronous, one block per SM, k = " + std::to_string(kLongK));
}

[[maybe_unused]] const bool kRegistered = [] {
  for_each_technique_and_shape(kEveryShape, "Shapes/{}Gpu.CorrectOnOddShapes",
                               correct_on_odd_shapes, kShapes, __FILE__, __LINE__);
  for_each_technique(kEveryShape, "IndexRangeGpu.{}Past2To31Elements", past_2_to_31_elements,
                     __FILE__, __LINE__);
  for_each_technique(kEveryShape, "IndexRangeGpu.{}Past2To31ElementsOfB",
                     past_2_to_31_elements_of_b, __FILE__, __LINE__);
  for_each_technique(kEveryShape, "IndexRangeGpu.{}Past2To31ElementsOfC",
                     past_2_to_31_elements_of_c, __FILE__, __LINE__);
  for_each_technique(kEveryShape, "FullOccupancyPerf.{}DoesNotRegress", does_not_regress, __FILE__,
                     __LINE__);
  for_each_technique(kEveryShape, "LatencyExposedPerf.{}HidesTheLoadLatency",
                     hides_the_load_latency, __FILE__, __LINE__);
  return true;
}();

// ---------------------------------------------------------------------------
// Nsight Compute: where the warps wait. One block per SM, the synchronous kernel and the
// two-stage pipeline on the same data (this test is also what the profiler test re-runs).
// ---------------------------------------------------------------------------
TEST(LatencyExposedGpu, PipelinedMatchesSyncOnOneBlockPerSm) {
  CUDALAB_REQUIRE_GPU();
  const int sms = cudalab::query_device().sm_count;
  const int gy = std::max(1, static_cast<int>(std::sqrt(double(sms))));
  const int gx = std::max(1, sms / gy);
  const int m = gy * lab12::kTile, n = gx * lab12::kTile, k = 2060;  // 65 tiles
  const auto h_a = cudalab::random_matrix(m, k, cudalab::Fill::SmallInt, 7);
  const auto h_b = cudalab::random_matrix(k, n, cudalab::Fill::SmallInt, 8);
  cudalab::DeviceBuffer<float> d_a(h_a.size()), d_b(h_b.size()), d_ref(std::size_t(m) * n),
      d_c(std::size_t(m) * n);
  d_a.upload(h_a);
  d_b.upload(h_b);
  lab12::matmul_sync(d_a.data(), d_b.data(), d_ref.data(), m, n, k);
  const std::vector<float> ref = d_ref.to_host();
  for (const auto& [name, launch] :
       {std::pair{"register prefetch", Launch(lab12::matmul_register_prefetch)},
        std::pair{"two-stage cp.async", Launch(lab12::matmul_pipelined)}}) {
    d_c.fill_bytes(0xFF);
    launch(d_a.data(), d_b.data(), d_c.data(), m, n, k, nullptr);
    EXPECT_TRUE(cudalab::testing::matrices_match(ref, d_c.to_host(), m, n, 0.0)) << name;
  }
}

TEST(PipelinedProfiler, FewerLongScoreboardStallsPerInstruction) {
  CUDALAB_REQUIRE_GPU();
  const std::string long_sb =
      "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio";
  const std::string barrier = "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio";
  // Recorded only: where the rest of the time goes.
  const std::vector<std::string> others = {
      "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio",
      "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio",
      "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio",
      "smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio",
      "smsp__inst_executed.sum",
      "gpu__time_duration.sum"};
  std::vector<std::string> metrics = {long_sb, barrier};
  metrics.insert(metrics.end(), others.begin(), others.end());
  const KernelInfo sync_k = lab12::sync_kernel(), prefetch_k = lab12::register_prefetch_kernel(),
                   pipelined_k = lab12::pipelined_kernel();
  const cudalab::testing::NcuRun run = cudalab::testing::run_ncu(
      metrics, std::string(sync_k.name) + "|" + prefetch_k.name + "|" + pipelined_k.name,
      "LatencyExposedGpu.PipelinedMatchesSyncOnOneBlockPerSm");
  if (!run.available) GTEST_SKIP() << run.skip_reason;
  ASSERT_EQ(run.exit_code, 0) << cudalab::testing::excerpt(run.output);
  double sync = -1, pipelined = -1;
  for (const auto& kern : run.kernels) {
    const auto l = kern.values.find(long_sb), b = kern.values.find(barrier);
    ASSERT_TRUE(l != kern.values.end() && b != kern.values.end())
        << kern.name << ": metrics missing in the ncu report";
    std::string tag = "sync";
    if (kern.name.find(pipelined_k.name) != std::string::npos) tag = "pipelined";
    if (kern.name.find(prefetch_k.name) != std::string::npos) tag = "register_prefetch";
    cudalab::testing::record_measurement(tag + "_long_scoreboard_per_issue", l->second, "warps");
    cudalab::testing::record_measurement(tag + "_barrier_per_issue", b->second, "warps");
    for (const std::string& o : others) {
      const auto v = kern.values.find(o);
      if (v != kern.values.end())
        cudalab::testing::record_measurement(tag + " " + o, v->second, "");
    }
    if (tag == "sync") sync = l->second;
    if (tag == "pipelined") pipelined = l->second;
  }
  ASSERT_GT(sync, 0.0) << "no profiled launch of " << sync_k.name
                       << " (or no long-scoreboard stalls)";
  ASSERT_GE(pipelined, 0.0) << "no profiled launch of " << pipelined_k.name;
  const double share = pipelined / sync;
  const double bound = cudalab::testing::speed_bar("long_scoreboard_share",
                                                   cudalab::testing::Bound::kAtMost, share) /
                       cudalab::speedup_scale();
  cudalab::testing::record_measurement("long_scoreboard_share", share, "x", bound,
                                       cudalab::testing::Bound::kAtMost);
  EXPECT_LE(share, bound) << "long-scoreboard stalls per issued instruction: two-stage "
                          << pipelined << ", synchronous " << sync << " (share " << share
                          << ", needs <= " << bound
                          << "): the loads of the next step should be in flight during the "
                             "multiply, not waited for right after they are issued";
}

}  // namespace
