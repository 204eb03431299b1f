// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file sgemm_grading.cuh
 * @brief What the test files of lab 13's grader share: the grading of a technique of
 * lab13::kTechniques (its kernel instance, its graph rules, tests registered for every
 * technique), the lookups in the grader's machine code, and the race against cuBLAS SGEMM.
 */
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/kit.cuh"
#include "common/matmul_grading.cuh"
#include "common/technique_tests.hpp"
#include "cudalab/bench.cuh"
#include "cudalab/grading.hpp"
#include "cudalab/testing.hpp"
#include "cudalab/tools.hpp"
#include "sgemm.cuh"

namespace lab13_grading {

// The kit's names the test files use (each says `using namespace lab13_grading;`).
namespace kit = cudalab::kit;
namespace sass = cudalab::testing;
using cudalab::KernelInfo;
using kit::only_kernel;
using kit::Shape;
using kit::shape_name;
using matmul_grading::Launch;

/// The side of the timed products (m = n = k).
inline constexpr int kPerfSize = 4096;

// ---------------------------------------------------------------------------
// The techniques of lab13::kTechniques
// ---------------------------------------------------------------------------

/// The kernel instance technique @p t launches for a product of shape @p s.
inline KernelInfo kernel_for(const lab13::Technique& t, const Shape& s) {
  return t.kernel(t.vector_path != nullptr && t.vector_path(s.m, s.n, s.k));
}

/// The graph rules of @p t's products: nothing but the kernel instance of the shape.
inline matmul_grading::Rules rules_of(const lab13::Technique& t) {
  return [t](const Shape& s) { return only_kernel(kernel_for(t, s)); };
}

/// The technique of lab13::kTechniques whose launcher is @p launcher.
inline const lab13::Technique& technique_of(lab13::SgemmLauncher launcher) {
  const auto* t = std::find_if(std::begin(lab13::kTechniques), std::end(lab13::kTechniques),
                               [&](const lab13::Technique& e) { return e.launcher == launcher; });
  if (t == std::end(lab13::kTechniques)) {
    ADD_FAILURE() << "no technique of lab13::kTechniques has this launcher";
    return lab13::kTechniques[0];
  }
  return *t;
}

/**
 * @brief Registers test @p name ("Suite.Case", "{}" standing for the technique's name in
 * CamelCase, e.g. "SgemmPerf.{}ShareOfCublas") for every technique of lab13::kTechniques, in
 * table order; each runs @p body(fixture, technique) in a @p Fixture. tests/tools/test_bar_keys.py
 * reads these calls (the literal name, then the body) to find the speed bars they ask for.
 */
template <class Fixture>
void for_each_technique(const char* name, void (*body)(Fixture&, const lab13::Technique&),
                        const char* file, int line) {
  kit::register_for_each(lab13::kTechniques, name, body, file, line);
}

/// for_each_technique() once per shape of @p shapes: the case "<Case>/<m>x<n>x<k>" with the
/// shape as its value parameter, as INSTANTIATE_TEST_SUITE_P(..., kit::shape_name) names it;
/// each runs @p body(fixture, technique, shape).
template <class Fixture, std::size_t N>
void for_each_technique_and_shape(const char* name,
                                  void (*body)(Fixture&, const lab13::Technique&, const Shape&),
                                  const Shape (&shapes)[N], const char* file, int line) {
  kit::register_for_each(lab13::kTechniques, name, body, shapes, file, line);
}

// ---------------------------------------------------------------------------
// The compiled kernels (cuobjdump -sass of this grader, on the CPU)
// ---------------------------------------------------------------------------

/// The part of a mangled name that names @p kernel: its length and identifier (e.g.
/// "22sgemm_pipelined_kernel"), which no other kernel's name contains.
inline std::string mangled_name(const KernelInfo& kernel) {
  return std::to_string(std::strlen(kernel.name)) + kernel.name;
}

/// Name and opcodes of every SASS function of sm_@p min_sm or later code whose name contains
/// @p part.
inline std::vector<std::pair<std::string, std::vector<std::string>>> sass_functions(
    const std::string& part, int min_sm = 0) {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (const sass::SassFunction& f : sass::sass_of_this_grader().functions) {
    if (cudalab::kit::sm_number(f.arch) < min_sm) continue;
    if (f.name.find(part) != std::string::npos) out.emplace_back(f.name, f.opcodes);
  }
  return out;
}

/// cp.async (LDGSTS) exists from sm_80: the checks that look for it read sm_80 and later code.
inline constexpr int kCpAsyncSm = 80;

/// Why the cp.async checks cannot run: this grader holds no sm_80 or later code (a build for
/// an older GPU, CMAKE_CUDA_ARCHITECTURES=native); empty when it does. The scoreboard shows
/// the objectives whose tests all skip for this reason as unavailable on the GPU.
inline std::string no_cp_async_code() {
  for (const sass::SassFunction& f : sass::sass_of_this_grader().functions) {
    if (cudalab::kit::sm_number(f.arch) >= kCpAsyncSm) return {};
  }
  return "no sm_80 or later code in this grader (built for other architectures); cp.async "
         "(LDGSTS) exists from sm_80, so the SASS of the pipelined kernels is not checked";
}

/// True when an opcode of @p ops starts with @p head (and, if @p wide, is a 128-bit form).
inline bool has_op(const std::vector<std::string>& ops, const std::string& head, bool wide) {
  return std::any_of(ops.begin(), ops.end(), [&](const std::string& op) {
    return op.rfind(head, 0) == 0 && (!wide || op.find(".128") != std::string::npos);
  });
}

/// Local memory (LDL/STL): an accumulator array indexed at run time, or registers spilled.
inline void expect_no_local_memory(const std::string& name, const std::vector<std::string>& ops) {
  EXPECT_FALSE(has_op(ops, "LDL", false) || has_op(ops, "STL", false))
      << name << " reads or writes local memory (LDL/STL): an array indexed at run time, or "
      << "registers spilled";
}

/// The SASS tests: skipped when this grader's machine code cannot be listed.
class StagesSassCpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!sass::sass_of_this_grader().skip_reason.empty()) {
      GTEST_SKIP() << sass::sass_of_this_grader().skip_reason;
    }
  }
};

// ---------------------------------------------------------------------------
// Speed at 4096^3 against cuBLAS SGEMM in the same process. cuBLAS and the stage are timed
// interleaved (cudalab::compare, L2 flushed); the stage is timed as its captured graph
// (provenance checked first) and reads one of two input sets copied behind its pointers
// before every run, with C NaN; the output of its last run must equal cuBLAS's on the same set
// (small integers: exact) and the host's on a few rows.
// ---------------------------------------------------------------------------
class SgemmPerf : public ::testing::Test {
 public:
  static constexpr int n = kPerfSize;

  /// Times cuBLAS (uncaptured: no rule names its kernels) against technique @p t with
  /// cudalab::kit::ProductRace; returns the comparison (speedup = share of cuBLAS).
  cudalab::Comparison time_against_cublas(const lab13::Technique& t) {
    return time_against_cublas(t.launcher, only_kernel(kernel_for(t, Shape{n, n, n})), t.name);
  }

  /// The same for a launcher @p launch whose graph follows @p rules, named @p name.
  cudalab::Comparison time_against_cublas(const Launch& launch,
                                          const cudalab::testing::GraphRules& rules,
                                          const char* name) {
    const Shape shape{n, n, n};
    kit::ProductRace race(shape);
    const lab13::CublasHandle& h = *handle;
    const kit::Racer cublas{
        [&h](const float* a, const float* b, float* c, int m, int nn, int k, cudaStream_t st) {
          lab13::cublas_sgemm(h, a, b, c, m, nn, k, st);
        },
        std::nullopt, "cuBLAS SGEMM"};
    const cudalab::Comparison cmp = race.time(cublas, {launch, rules, name}, name);
    if (::testing::Test::HasFailure()) return cmp;
    const double tflops = race.tflops(cmp.candidate.median_ms);
    const double cublas_tflops = race.tflops(cmp.baseline.median_ms);
    cudalab::testing::record_measurement(std::string(name) + "_tflops", tflops, "TFLOP/s");
    cudalab::testing::record_measurement("cublas_tflops", cublas_tflops, "TFLOP/s");
    std::printf(
        "[ SPEED    ] %s at 4096^3: cuBLAS %.3f ms (%.1f TFLOP/s), stage %.3f ms "
        "(%.1f TFLOP/s) = %.1f %% of cuBLAS\n",
        name, cmp.baseline.median_ms, cublas_tflops, cmp.candidate.median_ms, tflops,
        100.0 * cmp.speedup);
    return cmp;
  }

 protected:
  void SetUp() override {
    CUDALAB_REQUIRE_GPU();
    handle.emplace();
  }

  std::optional<lab13::CublasHandle> handle;
};

/// Records a share of cuBLAS (@p cmp, just judged by expect_speedup()) as a percentage with
/// its tiers above the pass bar, the test's "good" and "excellent" tiers of its "speedup" (a
/// share; cudalab::testing::speed_tiers(), tests/calibration/): the student sees "tier: good
/// (...)", the scoreboard shows the tier reached (not graded beyond the pass bar).
inline void record_percent_with_tiers(const cudalab::Comparison& cmp, const std::string& name) {
  const std::vector<cudalab::testing::Tier> shares =
      cudalab::testing::speed_tiers("speedup", {"good", "excellent"});
  const double bar = cudalab::testing::current_bar("speedup");  // the bar the verdict used
  cudalab::testing::Measurement m;
  m.name = name;
  m.value = 100.0 * cmp.speedup;
  m.unit = "%";
  m.threshold = 100.0 * bar * cudalab::speedup_scale();
  m.bound = cudalab::testing::Bound::kAtLeast;
  m.unscaled_threshold = 100.0 * bar;
  for (const cudalab::testing::Tier& share : shares) {
    m.tiers.push_back({share.name, 100.0 * share.at_least});
  }
  cudalab::testing::record_measurement(m);
}

}  // namespace lab13_grading
