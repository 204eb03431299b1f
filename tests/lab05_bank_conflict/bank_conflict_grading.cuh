// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file bank_conflict_grading.cuh
 * @brief What the test files of lab 05's grader share: the microbenchmarks of lab05::kTechniques
 * (looked up by name, their kernels' names for messages), the seeded step count of a chain and
 * the check of where every lane's chain ends, one launch of a microbenchmark captured from its
 * launcher and replayed on poisoned outputs and shared memory (microbench_test.cu,
 * bank_conflict_test.cu), and a warp's 32 word indices written out for messages
 * (conflict_degree_test.cu, bank_conflict_test.cu).
 */
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <string_view>

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

namespace lab05_grading {

// What the test files use from elsewhere (each says `using namespace lab05_grading;`).
namespace bank = cudalab::bank;

using Words = std::array<std::int64_t, 32>;

inline constexpr int kChainSteps =
    4096;  // dependent loads per microbenchmark run (+ a seeded extra)

inline std::string describe_words(const Words& w) {
  std::string s = "{";
  for (int i = 0; i < 32; ++i)
    s += (i ? ", " : "") + std::to_string(w[static_cast<std::size_t>(i)]);
  return s + "}";
}

// ---------------------------------------------------------------------------
// GPU: the microbenchmarks run and end where their chains must end.
// ---------------------------------------------------------------------------
inline int seeded_steps() {
  auto rng = cudalab::make_rng(56);
  return kChainSteps + std::uniform_int_distribution<int>(1, 31)(rng);  // final words vary
}

/// The name of @p t's kernel, for messages.
inline const char* kernel_name(const lab05::Technique& t) {
  return t.kernel().name;
}

/// The technique of lab05::kTechniques named @p name.
inline const lab05::Technique& technique(std::string_view name) {
  return cudalab::kit::technique_named(lab05::kTechniques, name, "lab05::kTechniques");
}

inline void expect_chain_ends(const lab05::Technique& t, const lab05::MicrobenchResult& r,
                              int steps) {
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

/// One microbenchmark launch captured from the given launcher: the graph must hold exactly
/// the student's kernel for @p t.
struct CapturedBench {
  cudalab::DeviceBuffer<long long> d_cycles{32};
  cudalab::DeviceBuffer<int> d_final{32};
  std::unique_ptr<cudalab::testing::CapturedWork> cap;
};

inline std::unique_ptr<CapturedBench> capture_bench(const lab05::Technique& t, int steps) {
  auto b = std::make_unique<CapturedBench>();
  b->cap = std::make_unique<cudalab::testing::CapturedWork>(cudalab::testing::CapturedWork::capture(
      [&](cudaStream_t s) { t.launcher(steps, b->d_cycles.data(), b->d_final.data(), s); }));
  return b;
}

/// Poisons the outputs and shared memory, replays, and returns what the kernel wrote.
inline lab05::MicrobenchResult replay(CapturedBench& b, int steps) {
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

}  // namespace lab05_grading
