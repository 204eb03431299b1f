// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file shared_memory_grading.cuh
 * @brief What the test files of lab 04's grader share: the odd shapes, both tiled launchers as
 * matmul_grading launches with the rules of their graphs (the static launch, a plan's), the
 * student's planner then dynamic launcher, plans the tests set themselves, the speed race
 * (TiledPerf: tiled_static_test.cu, tiled_dynamic_test.cu) and the techniques of
 * lab04::kTechniques (tests registered for every technique).
 *
 * Every graded GPU test runs the student's launcher under stream capture (provenance: the
 * graph may hold only the lab's own kernel), then replays the graph on two data sets behind
 * the same pointers: small integers (exact) and uniform floats (relative tolerance growing
 * with k). Before each replay the output is filled with NaN and so is the shared memory of
 * every SM, so a kernel that reads shared memory it never wrote, or skips an element of C,
 * fails.
 */
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "common/kit.cuh"
#include "common/matmul_grading.cuh"
#include "common/technique_tests.hpp"
#include "cudalab/bench.cuh"
#include "cudalab/check.cuh"
#include "cudalab/testing.hpp"
#include "shared_memory.cuh"

namespace lab04_grading {

// What the test files use from elsewhere (each says `using namespace lab04_grading;`).
using matmul_grading::expect_correct_product;
using matmul_grading::expect_large_a_rows;
using matmul_grading::Launch;
using matmul_grading::only_kernel;
using matmul_grading::Shape;
using matmul_grading::shape_name;

inline constexpr int kPerfSize = 4096;

// Odd shapes: 1, primes, one past a tile, rectangles both ways, k below and above tiles.
inline const Shape kShapes[] = {{1, 1, 1},      {17, 33, 5},  {129, 65, 257}, {1000, 3, 777},
                                {3, 1000, 64},  {64, 64, 64}, {33, 31, 100},  {2, 300, 1030},
                                {257, 129, 33}, {96, 160, 32}};

inline void launch_static(const float* a, const float* b, float* c, int m, int n, int k,
                          cudaStream_t s) {
  lab04::matmul_tiled_static(a, b, c, m, n, k, s);
}

/// The student's dynamic launcher with a fixed @p plan, as a Launch.
inline Launch launch_dynamic(const lab04::DynamicTilePlan& plan) {
  return [plan](const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t s) {
    lab04::matmul_tiled_dynamic(a, b, c, m, n, k, plan, s);  // CudaError without opt-in
  };
}

/// The static launch the interface defines: block (T, T) over the T x T tiles of C, no
/// dynamic shared memory.
inline const matmul_grading::Rules kStaticRules = matmul_grading::tiled_launch(
    lab04::tiled_static_kernel(), lab04::kStaticTile, dim3(lab04::kStaticTile, lab04::kStaticTile),
    0u, "block (kStaticTile, kStaticTile) over the tiles of C");

/// The dynamic launch @p plan defines: block (tile, tile) over the tile x tile tiles of C,
/// plan.smem_bytes of dynamic shared memory (not more, not less).
inline matmul_grading::Rules dynamic_rules(const lab04::DynamicTilePlan& plan) {
  return matmul_grading::tiled_launch(
      lab04::tiled_dynamic_kernel(), plan.tile, dim3(plan.tile, plan.tile),
      static_cast<unsigned>(plan.smem_bytes), "the plan: block (tile, tile), plan.smem_bytes");
}

/// The student's planner for @p budget on this device, then the student's launcher. The
/// plan is made outside the capture (it is host code).
inline void expect_dynamic_product(std::size_t budget, const Shape& s) {
  const lab04::DynamicTilePlan plan =
      lab04::plan_dynamic_tile(lab04::current_smem_limits(), budget, s.k);
  SCOPED_TRACE("plan: tile " + std::to_string(plan.tile) + ", depth " + std::to_string(plan.depth) +
               ", " + std::to_string(plan.smem_bytes) + " bytes");
  expect_correct_product(launch_dynamic(plan), dynamic_rules(plan), s);
}

/// A plan the test sets itself (not the student's planner): tile x depth, opt-in flag
/// from the device's default limit.
inline lab04::DynamicTilePlan forced_plan(int tile, int depth) {
  lab04::DynamicTilePlan p;
  p.tile = tile;
  p.depth = depth;
  p.smem_bytes = 2 * sizeof(float) * std::size_t(tile) * depth;
  p.needs_optin = p.smem_bytes > lab04::current_smem_limits().per_block_default;
  return p;
}

// ---------------------------------------------------------------------------
// Speed (4096^2): cudalab::kit::ProductRace. Both kernels are timed as captured graphs
// (provenance checked first), interleaved; the candidate reads one of two input sets (copied
// behind its pointers before every run) and its C is NaN before every run; the output of its
// last run must equal the baseline's on the same set exactly (small integers) and the host's
// on three rows.
// ---------------------------------------------------------------------------
class TiledPerf : public ::testing::Test {
 protected:
  static constexpr int N = kPerfSize;
  void SetUp() override {
    CUDALAB_REQUIRE_GPU();
    race_ = std::make_unique<cudalab::kit::ProductRace>(Shape{N, N, N}, 11);
  }

  /// The given naive kernel: the baseline of the static and dynamic tiles.
  static cudalab::kit::Racer naive() {
    return {[](const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t s) {
              lab04::matmul_naive(a, b, c, m, n, k, s);
            },
            only_kernel(lab04::naive_kernel()), "the naive kernel"};
  }
  /// The student's dynamic launcher with @p plan, held to the launch the plan defines.
  static cudalab::kit::Racer dynamic(const lab04::DynamicTilePlan& plan) {
    return {launch_dynamic(plan), dynamic_rules(plan)(Shape{N, N, N}), "the dynamic kernel"};
  }

  std::unique_ptr<cudalab::kit::ProductRace> race_;
};

// ---------------------------------------------------------------------------
// The techniques of lab04::kTechniques
// ---------------------------------------------------------------------------

/**
 * @brief Registers test @p name ("Suite.Case", "{}" standing for the technique's name in
 * CamelCase, e.g. "TiledSassCpu.{}KernelStagesItsTilesInSharedMemory") for every technique of
 * lab04::kTechniques, in table order; each runs @p body(fixture, technique) in a @p Fixture.
 * tests/tools/test_bar_keys.py reads these calls (the literal name, then the body) to find the
 * speed bars they ask for.
 */
template <class Fixture>
void for_each_technique(const char* name, void (*body)(Fixture&, const lab04::Technique&),
                        const char* file, int line) {
  cudalab::kit::register_for_each(lab04::kTechniques, name, body, file, line);
}

}  // namespace lab04_grading
