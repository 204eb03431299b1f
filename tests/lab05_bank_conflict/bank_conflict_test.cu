// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 05, what spans its files (bank_conflict.cuh): the clock64 meter on the patterns
// the microbenchmarks really walked and on the model's patterns (your degree against the measured
// one), and Nsight Compute's shared-load wavefronts per load of both microbenchmarks against the
// model. One test file per technique file besides (conflict_degree_test.cu, microbench_test.cu);
// helpers in bank_conflict_grading.cuh.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bank_conflict_grading.cuh"

namespace {

using namespace lab05_grading;

// ---------------------------------------------------------------------------
// The clock64 meter against the degrees. Perf: the clock64 measurements need the GPU to
// themselves for the whole test (AloneOnGpu)
// ---------------------------------------------------------------------------

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
