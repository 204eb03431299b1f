// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file prefetch_grading.cuh
 * @brief What the test files of lab 12's grader share: tests registered for techniques of
 * lab12::kTechniques, the launch of every tiled kernel (its graph rules), the product check with
 * the number of k tiles in its trace, the small shapes the sanitizers re-run, and the speed races
 * against the table's given baseline, the synchronous kernel (PerfFixture).
 */
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <optional>
#include <string>

#include "common/kit.cuh"
#include "common/matmul_grading.cuh"
#include "common/technique_tests.hpp"
#include "cudalab/device.cuh"
#include "cudalab/grading.hpp"
#include "cudalab/graph_capture.cuh"
#include "cudalab/testing.hpp"
#include "prefetch.cuh"

namespace lab12_grading {

namespace kit = cudalab::kit;
using cudalab::KernelInfo;
using cudalab::testing::CapturedWork;
using cudalab::testing::GraphRules;
using kit::only_kernel;
using kit::Shape;
using kit::shape_name;
using matmul_grading::Launch;

// ---------------------------------------------------------------------------
// Speed bars: each perf test names its bar ("speedup", "share", ...), and its number and
// provenance are the calibration's (tests/calibration/nvidia-h200.tsv on the reference GPU).
// ---------------------------------------------------------------------------

inline constexpr int kPerfSize = 4096;
/// k of the latency-exposed products: not a multiple of the tile, an odd number of tiles
/// (16396 = 512 x 32 + 12: 513 tiles), a multiple of 4 (the bulk-copy kernel).
inline constexpr int kLongK = 16396;
static_assert((kLongK + lab12::kTile - 1) / lab12::kTile % 2 == 1 && kLongK % lab12::kTile != 0,
              "the long k must end in a partial tile after an odd number of tiles");

inline int k_tiles(int k) {
  return (k + lab12::kTile - 1) / lab12::kTile;
}

/**
 * @brief Registers test @p name ("Suite.Case", "{}" standing for the technique's name in
 * CamelCase, e.g. "IndexRangeGpu.{}Past2To31Elements") for the techniques of lab12::kTechniques
 * that @p names names, in that order; each runs @p body(fixture, technique) in a @p Fixture.
 * tests/tools/test_bar_keys.py reads these calls (the list, the literal name, then the body).
 */
template <class Fixture, std::size_t N>
void for_each_technique(const char* const (&names)[N], const char* name,
                        void (*body)(Fixture&, const lab12::Technique&), const char* file,
                        int line) {
  kit::register_for_each_named(lab12::kTechniques, names, name, body, file, line);
}

/// for_each_technique() once per shape of @p shapes: the case "<Case>/<m>x<n>x<k>" with the
/// shape as its value parameter, as INSTANTIATE_TEST_SUITE_P(..., kit::shape_name) names it;
/// each runs @p body(fixture, technique, shape).
template <class Fixture, std::size_t N, std::size_t S>
void for_each_technique_and_shape(const char* const (&names)[N], const char* name,
                                  void (*body)(Fixture&, const lab12::Technique&, const Shape&),
                                  const Shape (&shapes)[S], const char* file, int line) {
  kit::register_for_each_named(lab12::kTechniques, names, name, body, shapes, file, line);
}

/// The launch every kernel here has (lab12::tile_launch, TileLaunch): only @p kernel, on
/// (kTile, kTile) blocks, one block per kTile x kTile tile of C; the dynamic shared memory is
/// the launcher's choice (0 for static tiles, or one extern buffer of two stages).
inline matmul_grading::Rules tile_rules(const KernelInfo& kernel) {
  return [kernel](const Shape& s) {
    GraphRules rules = only_kernel(kernel);
    const unsigned tile = lab12::kTile;
    rules.expect_launch(kernel.name,
                        dim3((unsigned(s.n) + tile - 1) / tile, (unsigned(s.m) + tile - 1) / tile),
                        dim3(tile, tile), std::nullopt,
                        "lab12::tile_launch: block (kTile, kTile), one per tile of C");
    return rules;
  };
}

/// The shared product check (tests/common/matmul_grading.hpp), with the number of k tiles in
/// the failure trace: the double-buffering tail bugs depend on it.
inline void expect_product_with_k_tiles(const Launch& launch, const KernelInfo& kernel,
                                        const Shape& s) {
  SCOPED_TRACE(std::to_string(k_tiles(s.k)) + " k tiles");
  matmul_grading::expect_correct_product(launch, tile_rules(kernel), s);
}

// ---------------------------------------------------------------------------
// Small runs: what the sanitizer tests re-run under compute-sanitizer (a few blocks; an odd
// number of k tiles with a partial last one). In 41 x 35 x 69 the last row of A and of B
// ends in a partial group of four floats that starts 16-byte aligned: a 16-byte copy of it
// reads past the end of the matrix.
// ---------------------------------------------------------------------------
inline const Shape kSmall[] = {{40, 33, 70}, {17, 65, 100}, {41, 35, 69}};

/// The given baseline of lab12::kTechniques (the synchronous kernel): every race's yardstick.
inline const lab12::Technique& given_baseline() {
  for (const lab12::Technique& t : lab12::kTechniques) {
    if (t.given) return t;
  }
  ADD_FAILURE() << "lab12::kTechniques has no given baseline";
  return lab12::kTechniques[0];
}

// ---------------------------------------------------------------------------
// Speed (cudalab::kit::ProductRace): both kernels are timed as captured graphs (provenance
// checked first), interleaved; the candidate reads one of two input sets (copied behind its
// pointers before every timed run) and its C is NaN before every run; the output of its last
// run must equal the synchronous kernel's on the same set exactly (small integers) and the
// host's on a few rows.
// ---------------------------------------------------------------------------
class PerfFixture : public ::testing::Test {
 public:
  /// Square n^3 product: every SM runs two blocks (full occupancy).
  static Shape full_occupancy() { return {kPerfSize, kPerfSize, kPerfSize}; }

  /// One block per SM: a grid of gy x gx <= SMs blocks, k = kLongK.
  static Shape latency_exposed() {
    const int sms = cudalab::query_device().sm_count;
    const int gy = std::max(1, static_cast<int>(std::sqrt(double(sms))));
    const int gx = std::max(1, sms / gy);
    return {gy * lab12::kTile, gx * lab12::kTile, kLongK};
  }

  /// Times the synchronous kernel (given_baseline()) against @p launch (its graph may hold only
  /// @p kernel) on a @p shape product, checks the last output and the FP32 ceiling; returns the
  /// comparison.
  static cudalab::Comparison time_against_sync(const Shape& shape, const Launch& launch,
                                               const KernelInfo& kernel, const std::string& what) {
    const lab12::Technique& sync = given_baseline();
    kit::ProductRace race(shape);
    const cudalab::Comparison cmp =
        race.time({sync.launcher, only_kernel(sync.kernel()), "the synchronous kernel"},
                  {launch, only_kernel(kernel), what}, what);
    if (::testing::Test::HasFailure()) return cmp;
    cudalab::testing::record_measurement(what + " TFLOP/s", race.tflops(cmp.candidate.median_ms),
                                         "TFLOP/s");
    std::printf("[ SPEED    ] %s: synchronous %.3f ms, candidate %.3f ms\n", what.c_str(),
                cmp.baseline.median_ms, cmp.candidate.median_ms);
    return cmp;
  }

  /// time_against_sync(), then, for a correct result, its speedup against the test's "speedup"
  /// bar (cudalab::testing::expect_speedup(), @p verdict naming the comparison).
  static void expect_speedup_over_sync(const Shape& shape, const Launch& launch,
                                       const KernelInfo& kernel, const std::string& what,
                                       const std::string& verdict) {
    const cudalab::Comparison cmp = time_against_sync(shape, launch, kernel, what);
    if (::testing::Test::HasFailure()) return;
    cudalab::testing::expect_speedup(cmp, verdict);
  }

 protected:
  void SetUp() override { CUDALAB_REQUIRE_GPU(); }
};

}  // namespace lab12_grading
