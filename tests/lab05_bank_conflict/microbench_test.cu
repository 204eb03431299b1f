// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 05, microbench.cu: both microbenchmarks of lab05::kTechniques end every lane's
// chain where it must, from the launcher and captured in a graph that holds only their kernel;
// the given launchers' argument checks; the 32-way kernel slower by the threshold in its own
// cycles and in kernel time from outside, every lane's cycles plausible; and both under
// compute-sanitizer. The meter and the profiler on their patterns are in bank_conflict_test.cu.
// Helpers in bank_conflict_grading.cuh.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdio>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bank_conflict_grading.cuh"

namespace {

using namespace lab05_grading;

// Plausibility of the cycles the kernels report (every lane's d_cycles / steps). A dependent
// shared load costs tens of cycles: about 30 conflict-free on an H100 (about 3x that 32-way).
// The floor is a conservative lower bound for any GPU the course runs on (a load, its address
// dependency and the loop cannot retire in fewer than 4 cycles per step); a kernel that stores
// the cycles of one step, or of the loop divided by the steps, reports about 4,000x less. The
// ceilings are about 30x above the H100's numbers: a clock read once (not a difference) or
// cycles multiplied by the steps lands far above them.
constexpr double kMinCyclesPerAccess = 4.0;
constexpr double kMaxConflictFreeCyclesPerAccess = 1000.0;
constexpr double kMaxAllConflictCyclesPerAccess = 4000.0;

TEST(MicrobenchGpu, ChainsEndOnTheExpectedWords) {
  CUDALAB_REQUIRE_GPU();
  const int steps = seeded_steps();
  for (const lab05::Technique& t : lab05::kTechniques) {
    expect_chain_ends(t, lab05::run_microbench(t.which, steps, 1), steps);
  }
}

TEST(MicrobenchGpu, CapturedKernelsChainTwice) {
  CUDALAB_REQUIRE_GPU();
  const int steps = seeded_steps();
  for (const lab05::Technique& t : lab05::kTechniques) {
    const cudalab::testing::GraphRules rules = cudalab::kit::only_kernel(t.kernel());
    // Two step counts: two captures, each replayed twice with poisoned outputs and
    // poisoned shared memory (the kernel must fill its array itself, every launch).
    for (const int n : {steps, steps + 7}) {
      const auto b = capture_bench(t, n);
      ASSERT_TRUE(b->cap->holds_only(rules));
      for (int rep = 0; rep < 2; ++rep) {
        expect_chain_ends(t, replay(*b, n), n);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(MicrobenchGpu, LaunchersRejectBadStepsCountsAndPointers) {
  // The contract of the launchers: launch_microbench() throws std::invalid_argument for
  // steps < 1 or a null pointer, run_microbench() for steps < 1 or launches < 1, before anything
  // is launched (a chain of zero steps would time nothing and report a cycle count of 0 / 0).
  CUDALAB_REQUIRE_GPU();
  cudalab::DeviceBuffer<long long> d_cycles(32);
  cudalab::DeviceBuffer<int> d_final(32);
  for (const lab05::Technique& t : lab05::kTechniques) {
    const lab05::Microbench which = t.which;
    SCOPED_TRACE(kernel_name(t));
    for (const int steps : {0, -1, -4096}) {
      EXPECT_THROW(lab05::launch_microbench(which, steps, d_cycles.data(), d_final.data()),
                   std::invalid_argument)
          << "launch_microbench(steps " << steps << ")";
      EXPECT_THROW(lab05::run_microbench(which, steps, 1), std::invalid_argument)
          << "run_microbench(steps " << steps << ")";
    }
    for (const int launches : {0, -3}) {
      EXPECT_THROW(lab05::run_microbench(which, 16, launches), std::invalid_argument)
          << "run_microbench(launches " << launches << ")";
    }
    EXPECT_THROW(lab05::launch_microbench(which, 16, nullptr, d_final.data()),
                 std::invalid_argument)
        << "launch_microbench(null d_cycles)";
    EXPECT_THROW(lab05::launch_microbench(which, 16, d_cycles.data(), nullptr),
                 std::invalid_argument)
        << "launch_microbench(null d_final_word)";
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << "a rejected call launched a failing kernel";
  // Valid calls right after still chain.
  const int steps = seeded_steps();
  for (const lab05::Technique& t : lab05::kTechniques) {
    expect_chain_ends(t, lab05::run_microbench(t.which, steps, 1), steps);
  }
}

// ---------------------------------------------------------------------------
// Perf: the clock64 measurements need the GPU to themselves for the whole test (AloneOnGpu)
// ---------------------------------------------------------------------------
TEST(MicrobenchPerf, AllConflictIsSlowerByTheThreshold) {
  CUDALAB_REQUIRE_GPU();
  const cudalab::AloneOnGpu alone;  // clock64 counts every cycle, another context's too
  const int steps = seeded_steps();
  const lab05::Technique& free_t = technique("conflict_free");
  const lab05::Technique& worst_t = technique("all_conflict");
  const auto free_run = lab05::run_microbench(free_t.which, steps, 5);
  const auto worst_run = lab05::run_microbench(worst_t.which, steps, 5);
  expect_chain_ends(free_t, free_run, steps);
  expect_chain_ends(worst_t, worst_run, steps);
  if (HasFailure()) return;  // no speed verdict for a wrong kernel
  const bank::MeterCalibration cal = bank::calibrate_meter();
  cudalab::testing::record_measurement("conflict_free_cycles", free_run.cycles_per_access,
                                       "cycles");
  cudalab::testing::record_measurement("all_conflict_cycles", worst_run.cycles_per_access,
                                       "cycles");
  cudalab::testing::record_measurement(
      "conflict_free_degree", bank::degree_from_cycles(free_run.cycles_per_access, cal), "way");
  cudalab::testing::record_measurement(
      "all_conflict_degree", bank::degree_from_cycles(worst_run.cycles_per_access, cal), "way");
  const double ratio = worst_run.cycles_per_access / free_run.cycles_per_access;
  const double threshold =
      cudalab::testing::speed_bar("slowdown", cudalab::testing::Bound::kAtLeast, ratio) *
      cudalab::speedup_scale();
  cudalab::testing::record_measurement("slowdown", ratio, "x", threshold);
  std::printf(
      "[ SPEED    ] 32-way %.2f cycles/load vs conflict-free %.2f: %.2fx slower, needs >= %.2fx\n",
      worst_run.cycles_per_access, free_run.cycles_per_access, ratio, threshold);
  EXPECT_GE(ratio, threshold) << "the 32-way kernel is only " << ratio
                              << "x slower than the conflict-free one (needs >= " << threshold
                              << "x): do all 32 lanes really hit one bank on different words?";
}

// Every measured hardware quantity has bounds: each lane's reported cycles per dependent load
// lies between kMinCyclesPerAccess and the kernel's ceiling (see the constants). Only the
// ratio of the two kernels is judged elsewhere; a kernel that reports the cycles of one step
// (or divides the loop's cycles by the steps) keeps the ratio and fails here.
TEST(MicrobenchPerf, EveryLaneReportsPlausibleCyclesPerLoad) {
  CUDALAB_REQUIRE_GPU();
  const cudalab::AloneOnGpu alone;  // clock64 counts every cycle, another context's too
  const int steps = seeded_steps();
  for (const lab05::Technique& t : lab05::kTechniques) {
    const char* name = kernel_name(t);
    const double ceiling = t.which == lab05::Microbench::ConflictFree
                               ? kMaxConflictFreeCyclesPerAccess
                               : kMaxAllConflictCyclesPerAccess;
    const auto b = capture_bench(t, steps);
    ASSERT_TRUE(b->cap->holds_only(cudalab::kit::only_kernel(t.kernel())));
    const lab05::MicrobenchResult r = replay(*b, steps);
    expect_chain_ends(t, r, steps);
    if (HasFailure()) return;  // no verdict on the cycles of a wrong chase
    std::array<long long, 32> cycles{};
    b->d_cycles.download(cycles.data());
    cudalab::testing::record_measurement(std::string(name) + "_lane0_cycles_per_load",
                                         double(cycles[0]) / steps, "cycles");
    std::printf(
        "[ CYCLES   ] %-21s lane 0: %.2f cycles per dependent load (%d steps), "
        "plausible: %.0f .. %.0f\n",
        name, double(cycles[0]) / steps, steps, kMinCyclesPerAccess, ceiling);
    for (int lane = 0; lane < 32; ++lane) {
      const double per_load = double(cycles[std::size_t(lane)]) / steps;
      EXPECT_TRUE(per_load >= kMinCyclesPerAccess && per_load <= ceiling)
          << name << ": lane " << lane << " reports " << cycles[std::size_t(lane)] << " cycles for "
          << steps << " dependent loads = " << per_load
          << " cycles per load; a dependent shared load takes at least " << kMinCyclesPerAccess
          << " (about 30 on an H100) and this kernel at most " << ceiling
          << ". Store the loop's cycles (clock64() after the loop minus before it), not one "
             "step's, not divided by the steps";
      if (HasFailure()) return;
    }
  }
}

/**
 * One captured launch of a microbenchmark per run of a timing (warm-up and timed), each with
 * its own outputs and its own step count: base + an offset in [0, 64) drawn from
 * std::random_device, no two alike. The step count is the microbenchmark's only input, so no
 * launch repeats the arguments of an earlier one and none can be answered from a remembered
 * result (the work differs by under 0.5 % between runs). work() launches the next one.
 */
struct FreshBenches {
  struct Run {
    int steps;
    std::unique_ptr<CapturedBench> bench;
  };
  std::vector<Run> runs;
  std::size_t next = 0;
  FreshBenches(const lab05::Technique& t, int base, int count) {
    std::vector<int> offsets(64);
    std::iota(offsets.begin(), offsets.end(), 0);
    std::random_device rd;
    std::shuffle(offsets.begin(), offsets.end(), std::mt19937(rd()));
    const cudalab::testing::GraphRules rules = cudalab::kit::only_kernel(t.kernel());
    for (int i = 0; i < count; ++i) {
      const int steps = base + offsets.at(std::size_t(i));
      Run r{steps, capture_bench(t, steps)};
      EXPECT_TRUE(r.bench->cap->holds_only(rules)) << kernel_name(t);
      cudalab::testing::poison(r.bench->d_cycles.data(), r.bench->d_cycles.bytes());
      cudalab::testing::poison(r.bench->d_final.data(), r.bench->d_final.bytes());
      runs.push_back(std::move(r));
    }
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  cudalab::GpuWork work() {
    return [this](cudaStream_t s) { runs.at(next++).bench->cap->launch(s); };
  }
  /// Every launch that ran ended its chains where its own step count says.
  void expect_chains_end(const lab05::Technique& t) const {
    for (std::size_t i = 0; i < next; ++i) {
      lab05::MicrobenchResult r;
      std::array<long long, 32> cycles{};
      runs[i].bench->d_cycles.download(cycles.data());
      runs[i].bench->d_final.download(r.final_word.data());
      r.cycles_per_access = static_cast<double>(cycles[0]) / runs[i].steps;
      SCOPED_TRACE("timing run " + std::to_string(i) + " (" + std::to_string(runs[i].steps) +
                   " steps)");
      expect_chain_ends(t, r, runs[i].steps);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
};

// The kernels' own cycle counts are numbers they write themselves. Here the two kernels are
// timed from outside (captured graphs, events, interleaved) and the 32-way kernel must be
// slower by the threshold; and no kernel may report more cycles than it ran for. Every timed
// launch has a step count of its own (FreshBenches) and its chain ends are checked.
TEST(MicrobenchPerf, KernelDurationsConfirmTheSlowdown) {
  CUDALAB_REQUIRE_GPU();
  const cudalab::AloneOnGpu alone;       // clock64 counts every cycle, another context's too
  const int steps = 4 * seeded_steps();  // long chains: the chase dominates the launch
  const lab05::Technique& free_t = technique("conflict_free");
  const lab05::Technique& worst_t = technique("all_conflict");
  const auto free_b = capture_bench(free_t, steps);
  const auto worst_b = capture_bench(worst_t, steps);
  cudalab::BenchOptions opts;
  opts.flush_l2 = false;  // shared memory only
  FreshBenches free_runs(free_t, steps, opts.warmup + opts.reps);
  FreshBenches worst_runs(worst_t, steps, opts.warmup + opts.reps);
  if (HasFailure()) return;
  const cudalab::Comparison cmp = cudalab::compare(free_runs.work(), worst_runs.work(), opts);
  CUDA_CHECK(cudaDeviceSynchronize());
  free_runs.expect_chains_end(free_t);
  worst_runs.expect_chains_end(worst_t);
  const lab05::MicrobenchResult free_r = replay(*free_b, steps);
  const lab05::MicrobenchResult worst_r = replay(*worst_b, steps);
  expect_chain_ends(free_t, free_r, steps);
  expect_chain_ends(worst_t, worst_r, steps);
  if (HasFailure()) return;
  // cycles / peak clock is the shortest time those cycles can take.
  const double max_mhz = cudalab::device_ceilings().max_clock_mhz;
  cudalab::testing::expect_possible(free_r.cycles_per_access * steps / (max_mhz * 1e3),
                                    cmp.baseline.max_ms, "ms",
                                    "conflict_free_kernel's reported cycles as time");
  cudalab::testing::expect_possible(worst_r.cycles_per_access * steps / (max_mhz * 1e3),
                                    cmp.candidate.max_ms, "ms",
                                    "all_conflict_kernel's reported cycles as time");
  const double slowdown = cmp.candidate.median_ms / cmp.baseline.median_ms;
  const double threshold =
      cudalab::testing::speed_bar("kernel_time_slowdown", cudalab::testing::Bound::kAtLeast,
                                  slowdown) *
      cudalab::speedup_scale();
  cudalab::testing::record_measurement("kernel_time_slowdown", slowdown, "x", threshold);
  EXPECT_GE(slowdown, threshold) << "all_conflict_kernel runs " << cmp.candidate.median_ms
                                 << " ms, conflict_free_kernel " << cmp.baseline.median_ms
                                 << " ms: only " << slowdown << "x slower";
}

// ---------------------------------------------------------------------------
// Races, memory errors, barriers (compute-sanitizer) over both microbenchmark kernels
// ---------------------------------------------------------------------------
CUDALAB_SANITIZER_SUITE(MicrobenchSanitizer, "MicrobenchGpu.*", racecheck, memcheck, synccheck)

}  // namespace
