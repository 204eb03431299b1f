// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 05: the bank-conflict model (CPU) and the conflict microbenchmarks (GPU).
#include <algorithm>
#include <array>
#include <cstdio>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "bank_conflict.cuh"
#include "common/kit.cuh"
#include "common/technique_tests.hpp"
#include "cudalab/bank_model.hpp"
#include "cudalab/bench.cuh"
#include "cudalab/ceilings.cuh"
#include "cudalab/conflict_meter.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/gpu_lock.hpp"
#include "cudalab/grading.hpp"
#include "cudalab/graph_capture.cuh"
#include "cudalab/testing.hpp"
#include "cudalab/tools.hpp"

namespace {

namespace bank = cudalab::bank;
using Words = std::array<std::int64_t, 32>;

constexpr int kChainSteps = 4096;  // dependent loads per microbenchmark run (+ a seeded extra)
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

std::string describe_words(const Words& w) {
  std::string s = "{";
  for (int i = 0; i < 32; ++i)
    s += (i ? ", " : "") + std::to_string(w[static_cast<std::size_t>(i)]);
  return s + "}";
}

::testing::AssertionResult degree_is(const bank::WarpRequest& r, int expected,
                                     const std::string& what) {
  int got = 0;
  try {
    got = lab05::conflict_degree(r);
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure()
           << what << ": expected degree " << expected << ", conflict_degree threw: " << e.what();
  }
  if (got == expected) return ::testing::AssertionSuccess();
  // AssertionResult streams each value into a fresh message, so a std::hex manipulator
  // would not reach the mask: format it here.
  char mask[16];
  std::snprintf(mask, sizeof mask, "0x%08x", static_cast<unsigned>(r.active_mask));
  auto f = ::testing::AssertionFailure();
  f << what << ": expected degree " << expected << ", got " << got << " (" << r.access_bytes
    << "-byte accesses, active mask " << mask << ", byte addresses {";
  for (int i = 0; i < 32; ++i) f << (i ? ", " : "") << r.byte_address[static_cast<std::size_t>(i)];
  return f << "})";
}

// ---------------------------------------------------------------------------
// bank_of (CPU)
// ---------------------------------------------------------------------------
TEST(BankOfCpu, FourByteBanksRoundRobin) {
  const std::uint64_t fixed[] = {0,   1,   3,   4,   7,    8,    124,
                                 127, 128, 129, 132, 4096, 4100, (std::uint64_t{1} << 33) + 12};
  for (const std::uint64_t a : fixed) {
    EXPECT_EQ(lab05::bank_of(a), int((a / 4) % 32)) << "byte address " << a;
  }
  auto rng = cudalab::make_rng(51);
  std::uniform_int_distribution<std::uint64_t> addr(0, std::uint64_t{1} << 40);
  for (int t = 0; t < 2000; ++t) {
    const std::uint64_t a = addr(rng);
    ASSERT_EQ(lab05::bank_of(a), int((a / 4) % 32))
        << "byte address " << a << " (" << cudalab::seed_note() << ")";
  }
}

// ---------------------------------------------------------------------------
// conflict_degree (CPU): hand-derived expectations
// ---------------------------------------------------------------------------
// A stride of s elements of w bytes inside a phase of L = 32 / (w / 4) lanes: the lanes
// land on 32 / gcd(s, L) ... distinct bank groups, and each bank gets gcd(s, L) words.
TEST(ConflictDegreeCpu, FourByteStridesOneToSixtyFour) {
  for (int s = 1; s <= 64; ++s) {
    EXPECT_TRUE(degree_is(bank::from_word_indices(bank::strided_words(s)), std::gcd(s, 32),
                          "4-byte stride " + std::to_string(s)));
  }
}

TEST(ConflictDegreeCpu, SeededOffsetsDoNotChangeStrideDegrees) {
  auto rng = cudalab::make_rng(52);
  std::uniform_int_distribution<std::int64_t> offset(0, 100000);
  for (int s = 1; s <= 64; ++s) {
    const std::int64_t o = offset(rng);
    EXPECT_TRUE(
        degree_is(bank::from_word_indices(bank::strided_words(s, o)), std::gcd(s, 32),
                  "4-byte stride " + std::to_string(s) + " from word " + std::to_string(o)));
  }
}

TEST(ConflictDegreeCpu, VectorWidthsUseHalfAndQuarterWarps) {
  for (int s = 1; s <= 64; ++s) {
    EXPECT_TRUE(degree_is(bank::from_element_indices(bank::strided_words(s), 8), std::gcd(s, 16),
                          "8-byte (float2) stride " + std::to_string(s)));
    EXPECT_TRUE(degree_is(bank::from_element_indices(bank::strided_words(s), 16), std::gcd(s, 8),
                          "16-byte (float4) stride " + std::to_string(s)));
  }
  // float2 lane i -> element i: lanes 0 and 16 share banks 0-1 but not a phase.
  EXPECT_TRUE(degree_is(bank::from_element_indices(bank::strided_words(1), 8), 1,
                        "float2, consecutive elements"));
  // float4 lanes 0 and 8 (words 0-3 and 32-35) are in different quarter-warps: free.
  EXPECT_TRUE(degree_is(bank::from_element_indices(bank::strided_words(1), 16), 1,
                        "float4, consecutive elements"));
  // float4, lanes 0 and 1 of the first quarter-warp on elements 0 and 8 (bank 0-3 twice).
  Words w = bank::strided_words(1);
  w[1] = 8;
  EXPECT_TRUE(
      degree_is(bank::from_element_indices(w, 16), 2, "float4, element 8 next to element 0"));
}

TEST(ConflictDegreeCpu, BroadcastAndMulticastAreFree) {
  auto rng = cudalab::make_rng(53);
  std::uniform_int_distribution<std::int64_t> word(0, 5000);
  const std::int64_t b = word(rng);
  EXPECT_TRUE(degree_is(bank::from_word_indices(bank::broadcast_words(b)), 1,
                        "every lane reads word " + std::to_string(b)));
  Words w{};
  for (int i = 0; i < 32; ++i)
    w[static_cast<std::size_t>(i)] = b + i / 8;  // 4 words, 8 readers each
  EXPECT_TRUE(degree_is(bank::from_word_indices(w), 1, "groups of 8 lanes share a word"));
  for (int i = 0; i < 32; ++i) w[static_cast<std::size_t>(i)] = (i % 2) * 32;  // 2 words of bank 0
  EXPECT_TRUE(degree_is(bank::from_word_indices(w), 2, "16 lanes on word 0, 16 on word 32"));
  for (int i = 0; i < 32; ++i) w[static_cast<std::size_t>(i)] = (i % 4) * 64 + 3;
  EXPECT_TRUE(degree_is(bank::from_word_indices(w), 4, "4 words of bank 3, 8 readers each"));
  EXPECT_TRUE(
      degree_is(bank::from_element_indices(bank::broadcast_words(b), 16), 1, "float4 broadcast"));
}

TEST(ConflictDegreeCpu, PermutingLanesKeepsTheDegree) {
  auto rng = cudalab::make_rng(54);
  for (const int s : {1, 2, 3, 4, 8, 16, 32, 33}) {
    for (int trial = 0; trial < 20; ++trial) {
      Words w = bank::strided_words(s);
      std::shuffle(w.begin(), w.end(), rng);
      ASSERT_TRUE(
          degree_is(bank::from_word_indices(w), std::gcd(s, 32),
                    "lanes of stride " + std::to_string(s) + " permuted " + describe_words(w)));
    }
  }
}

TEST(ConflictDegreeCpu, InactiveLanesDoNotCount) {
  auto r = bank::from_word_indices(bank::strided_words(32));
  r.active_mask = 0x00000007u;
  EXPECT_TRUE(degree_is(r, 3, "stride 32, lanes 0-2 active"));
  r.active_mask = 0x80000000u;
  EXPECT_TRUE(degree_is(r, 1, "stride 32, lane 31 alone"));
  r.active_mask = 0;
  EXPECT_TRUE(degree_is(r, 0, "no active lane"));
  auto r8 = bank::from_element_indices(bank::strided_words(4), 8);  // 4-way per half-warp
  r8.active_mask = 0x00110000u;  // lanes 16 and 20: elements 64 and 80, both in banks 0-1
  EXPECT_TRUE(degree_is(r8, 2, "float2 stride 4, lanes 16 and 20 active"));
  r8.active_mask = 0x00000011u | 0x00110000u;  // lanes 0, 4 and 16, 20: 2-way per half
  EXPECT_TRUE(degree_is(r8, 2, "float2 stride 4, two lanes of each half-warp"));
}

TEST(ConflictDegreeCpu, RejectsOtherAccessWidths) {
  auto r = bank::from_word_indices(bank::strided_words(1));
  for (const int width : {0, 1, 2, 12, 32}) {
    r.access_bytes = width;
    EXPECT_THROW(lab05::conflict_degree(r), std::invalid_argument) << "access_bytes " << width;
  }
}

// ---------------------------------------------------------------------------
// conflict_degree (CPU): agreement with the common model on seeded random requests
// ---------------------------------------------------------------------------
TEST(ConflictDegreeCpu, AgreesWithTheReferenceModelOnRandomRequests) {
  auto rng = cudalab::make_rng(55);
  const int widths[] = {4, 8, 16};
  std::uniform_int_distribution<int> pick_width(0, 2);
  std::uniform_int_distribution<std::uint32_t> mask(0, 0xFFFFFFFFu);
  for (int trial = 0; trial < 20000; ++trial) {
    const int width = widths[pick_width(rng)];
    // Few distinct elements (range 1..300) so that conflicts and broadcasts both occur.
    std::uniform_int_distribution<std::int64_t> element(0, 1 + trial % 300);
    Words e{};
    for (auto& x : e) x = element(rng);
    bank::WarpRequest r = bank::from_element_indices(e, width);
    if (trial % 3 == 0) r.active_mask = mask(rng);
    ASSERT_TRUE(degree_is(r, bank::conflict_degree(r), "random request #" + std::to_string(trial)))
        << cudalab::seed_note();
  }
}

// ---------------------------------------------------------------------------
// conflict_degree (CPU): large word indices. Banks depend only on the low bits of a word
// index, but *which words are distinct* depends on all of them: a model that keeps words
// in a fixed-size table, or byte addresses in 32 bits, merges different words into one.
// (Graded: degrees only. The model's pass count for wide accesses can exceed the
// hardware's, e.g. an LDS.128 whose lanes pair up on equal addresses takes 2 wavefronts,
// not 4; no test here grades pass counts of wide accesses.)
// ---------------------------------------------------------------------------
TEST(ConflictDegreeCpu, LargeWordIndicesStayDistinct) {
  auto rng = cudalab::make_rng(58);
  std::uniform_int_distribution<std::int64_t> base_d(0, std::int64_t{1} << 40);
  const std::int64_t base = base_d(rng);
  struct Case {
    std::int64_t stride;  // in words
    int degree;
    const char* what;
  };
  const Case cases[] = {
      {std::int64_t{1} << 20, 32, "words 2^20 apart (a 2^20-entry table aliases them)"},
      {(std::int64_t{1} << 20) + 1, 1, "words 2^20 + 1 apart: 32 different banks"},
      {std::int64_t{1} << 29, 32, "byte addresses 2^31 apart (32-bit addresses alias them)"},
      {std::int64_t{1} << 32, 32, "word indices 2^32 apart (32-bit word indices alias them)"},
      {(std::int64_t{1} << 30) + 2, 2, "stride 2^30 + 2 words: 2-way"},
  };
  for (const Case& c : cases) {
    EXPECT_TRUE(degree_is(bank::from_word_indices(bank::strided_words(c.stride, base)), c.degree,
                          std::string(c.what) + " from word " + std::to_string(base)));
  }
  // Two words per bank only past 2^31 bytes: lanes 0-15 on words w + i, lanes 16-31 on
  // words w + i + 2^29 (same banks, different words): 2-way; with 8-byte accesses the
  // halves are separate phases: conflict-free.
  Words w{};
  for (int i = 0; i < 32; ++i) {
    w[static_cast<std::size_t>(i)] = base + 2 * (i % 16) + (i / 16) * (std::int64_t{1} << 29);
  }
  EXPECT_TRUE(degree_is(bank::from_word_indices(w), 2, "halves 2^31 bytes apart, 4-byte"));
  EXPECT_TRUE(degree_is(bank::from_element_indices(
                            [&] {
                              Words e{};
                              for (int i = 0; i < 32; ++i)
                                e[static_cast<std::size_t>(i)] =
                                    (base / 2) + (i % 16) + (i / 16) * (std::int64_t{1} << 28);
                              return e;
                            }(),
                            8),
                        1, "float2 halves 2^31 bytes apart (separate phases)"));
}

TEST(ConflictDegreeCpu, AgreesWithTheReferenceModelFarFromZero) {
  auto rng = cudalab::make_rng(59);
  const int widths[] = {4, 8, 16};
  std::uniform_int_distribution<int> pick_width(0, 2);
  std::uniform_int_distribution<std::int64_t> base_d(std::int64_t{1} << 20, std::int64_t{1} << 40);
  std::uniform_int_distribution<int> shift_d(18, 34);
  for (int trial = 0; trial < 5000; ++trial) {
    const int width = widths[pick_width(rng)];
    // Elements from a few clusters far apart (multiples of 2^18 .. 2^34 elements): same
    // banks, different words.
    const std::int64_t base = base_d(rng);
    const std::int64_t far = std::int64_t{1} << shift_d(rng);
    std::uniform_int_distribution<std::int64_t> local(0, 1 + trial % 70);
    std::uniform_int_distribution<int> cluster(0, 3);
    Words e{};
    for (auto& x : e) x = base + cluster(rng) * far + local(rng);
    const bank::WarpRequest r = bank::from_element_indices(e, width);
    ASSERT_TRUE(degree_is(r, bank::conflict_degree(r),
                          "request #" + std::to_string(trial) + " from element " +
                              std::to_string(base) + ", clusters " + std::to_string(far) +
                              " apart"))
        << cudalab::seed_note();
  }
}

// ---------------------------------------------------------------------------
// GPU: the microbenchmarks run and end where their chains must end.
// ---------------------------------------------------------------------------
int seeded_steps() {
  auto rng = cudalab::make_rng(56);
  return kChainSteps + std::uniform_int_distribution<int>(1, 31)(rng);  // final words vary
}

/// The name of @p t's kernel, for messages.
const char* kernel_name(const lab05::Technique& t) {
  return t.kernel().name;
}

/// The technique of lab05::kTechniques named @p name.
const lab05::Technique& technique(const std::string& name) {
  return cudalab::kit::technique_named(lab05::kTechniques, name, "lab05::kTechniques");
}

void expect_chain_ends(const lab05::Technique& t, const lab05::MicrobenchResult& r, int steps) {
  const char* name = kernel_name(t);
  const auto expected = lab05::expected_final_words(t.which, steps);
  for (int lane = 0; lane < 32; ++lane) {
    ASSERT_EQ(r.final_word[static_cast<std::size_t>(lane)],
              expected[static_cast<std::size_t>(lane)])
        << name << ": lane " << lane << " should end its " << steps << "-step chain at word "
        << expected[static_cast<std::size_t>(lane)] << " (start word + 32 * steps, mod "
        << lab05::kWords << "), got " << r.final_word[static_cast<std::size_t>(lane)];
  }
  EXPECT_GT(r.cycles_per_access, 0.0) << name << ": no time was recorded";
}

TEST(MicrobenchGpu, ChainsEndOnTheExpectedWords) {
  CUDALAB_REQUIRE_GPU();
  const int steps = seeded_steps();
  for (const lab05::Technique& t : lab05::kTechniques) {
    expect_chain_ends(t, lab05::run_microbench(t.which, steps, 1), steps);
  }
}

/// One microbenchmark launch captured from the given launcher: the graph must hold exactly
/// the student's kernel for @p t.
struct CapturedBench {
  cudalab::DeviceBuffer<long long> d_cycles{32};
  cudalab::DeviceBuffer<int> d_final{32};
  std::unique_ptr<cudalab::testing::CapturedWork> cap;
};

std::unique_ptr<CapturedBench> capture_bench(const lab05::Technique& t, int steps) {
  auto b = std::make_unique<CapturedBench>();
  b->cap = std::make_unique<cudalab::testing::CapturedWork>(cudalab::testing::CapturedWork::capture(
      [&](cudaStream_t s) { t.launcher(steps, b->d_cycles.data(), b->d_final.data(), s); }));
  return b;
}

/// Poisons the outputs and shared memory, replays, and returns what the kernel wrote.
lab05::MicrobenchResult replay(CapturedBench& b, int steps) {
  cudalab::testing::poison(b.d_cycles.data(), 32 * sizeof(long long));
  cudalab::testing::poison(b.d_final.data(), 32 * sizeof(int));
  cudalab::testing::poison_shared_memory();
  CUDA_CHECK(cudaDeviceSynchronize());
  b.cap->run();
  std::array<long long, 32> cycles{};
  b.d_cycles.download(cycles.data());
  lab05::MicrobenchResult r;
  b.d_final.download(r.final_word.data());
  r.cycles_per_access = static_cast<double>(cycles[0]) / steps;
  return r;
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

// The clock64 meter on the pattern the student's kernels really walked: each lane's start
// word is recovered from where its chain ended (final - 32 * steps, mod kWords).
TEST(DegreeVsMeterPerf, MeterOnYourKernelsPatterns) {
  CUDALAB_REQUIRE_GPU();
  const cudalab::AloneOnGpu alone;  // clock64 counts every cycle, another context's too
  const int steps = seeded_steps();
  for (const lab05::Technique& t : lab05::kTechniques) {
    const char* name = kernel_name(t);
    const auto b = capture_bench(t, steps);
    const lab05::MicrobenchResult r = replay(*b, steps);
    Words walked{};
    for (int lane = 0; lane < 32; ++lane) {
      const std::int64_t f = r.final_word[static_cast<std::size_t>(lane)];
      ASSERT_TRUE(f >= 0 && f < lab05::kWords)
          << name << ": lane " << lane << " ended on word " << f;
      const std::int64_t shift = (std::int64_t{bank::kNumBanks} * steps) % lab05::kWords;
      walked[static_cast<std::size_t>(lane)] =
          ((f - shift) % lab05::kWords + lab05::kWords) % lab05::kWords;
    }
    const int intended = t.degree;
    const bank::MeterReading m = bank::measure_word_pattern(walked);
    cudalab::testing::record_measurement(std::string(name) + "_measured_degree", m.degree, "way");
    std::printf("[ METER    ] %-21s walked %s: measured %.2f-way, intended %d-way\n", name,
                describe_words(walked).c_str(), m.degree, intended);
    EXPECT_TRUE(bank::degree_matches(m.degree, intended))
        << name << ": the pattern your kernel walked measures " << m.degree
        << "-way, the microbenchmark must be " << intended << "-way";
  }
}

TEST(DegreeVsMeterPerf, YourModelPredictsTheMeasuredDegree) {
  CUDALAB_REQUIRE_GPU();
  const cudalab::AloneOnGpu alone;  // clock64 counts every cycle, another context's too
  struct Case {
    std::string name;
    Words words;
  };
  std::vector<Case> cases;
  for (const int s : {1, 2, 4, 8, 16, 32, 33})
    cases.push_back({"stride " + std::to_string(s), bank::strided_words(s)});
  auto rng = cudalab::make_rng(57);
  cases.push_back(
      {"broadcast", bank::broadcast_words(std::uniform_int_distribution<int>(0, 1000)(rng))});
  for (const Case& c : cases) {
    const int model = lab05::conflict_degree(bank::from_word_indices(c.words));
    const bank::MeterReading m = bank::measure_word_pattern(c.words);
    std::printf("[ METER    ] %-10s your model %2d-way, measured %6.2f-way (%.2f cycles/access)\n",
                c.name.c_str(), model, m.degree, m.cycles_per_access);
    EXPECT_TRUE(bank::degree_matches(m.degree, model))
        << c.name << ": your model says " << model << "-way, the meter measured " << m.degree
        << "-way (" << m.cycles_per_access << " cycles/access; tolerance +-"
        << bank::meter_tolerance(std::max(model, 1)) << ")";
  }
}

// ---------------------------------------------------------------------------
// Races, memory errors, barriers (compute-sanitizer) over both microbenchmark kernels
// ---------------------------------------------------------------------------
CUDALAB_SANITIZER_SUITE(MicrobenchSanitizer, "MicrobenchGpu.*", racecheck, memcheck, synccheck)

// ---------------------------------------------------------------------------
// Profiler: Nsight Compute counts shared-load wavefronts per load instruction.
// ---------------------------------------------------------------------------
TEST(MicrobenchProfiler, WavefrontsPerLoadMatchTheModel) {
  CUDALAB_REQUIRE_GPU();
  const std::string wavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
  const std::string loads = "smsp__sass_inst_executed_op_shared_ld.sum";
  const lab05::Technique& free_t = technique("conflict_free");
  const lab05::Technique& worst_t = technique("all_conflict");
  const cudalab::testing::NcuRun run = cudalab::testing::run_ncu(
      {wavefronts, loads}, std::string(kernel_name(free_t)) + "|" + kernel_name(worst_t),
      "MicrobenchGpu.ChainsEndOnTheExpectedWords");
  if (!run.available) GTEST_SKIP() << run.skip_reason;
  ASSERT_EQ(run.exit_code, 0) << cudalab::testing::excerpt(run.output);
  int seen = 0;
  for (const auto& k : run.kernels) {
    const bool worst = k.name.find(kernel_name(worst_t)) != std::string::npos;
    const lab05::Technique& t = worst ? worst_t : free_t;
    const int model = lab05::conflict_degree(bank::from_word_indices(lab05::start_words(t.which)));
    const auto w = k.values.find(wavefronts), l = k.values.find(loads);
    ASSERT_TRUE(w != k.values.end() && l != k.values.end() && l->second > 0)
        << k.name << ": metrics missing in the ncu report";
    const double per_load = w->second / l->second;
    cudalab::testing::record_measurement(std::string(t.name) + "_wavefronts_per_load", per_load,
                                         "wavefronts");
    // The chain dominates: steps loads of `model` wavefronts each (the fill is stores).
    EXPECT_NEAR(per_load, model, 0.1 * model + 0.1)
        << k.name << ": ncu counts " << per_load << " wavefronts per shared load, your model says "
        << model;
    ++seen;
  }
  EXPECT_EQ(seen, 2) << "expected one profiled launch of each microbenchmark kernel";
}

}  // namespace
