// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 12, what spans its files (prefetch.cuh): register prefetch and the two-stage
// cp.async pipeline against the synchronous kernel on one block per SM, and Nsight Compute's
// stalls of the three kernels on that run. One test file per technique file besides
// (sync_tiled_test.cu, register_prefetch_test.cu, cp_async_pipeline_test.cu,
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

using lab12_grading::KernelInfo;
using lab12_grading::Launch;

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
