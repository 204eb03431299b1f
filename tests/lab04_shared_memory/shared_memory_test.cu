// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 04, what spans its files (shared_memory.cuh): small runs of both tiled kernels
// and of the dynamic ones with several plans, re-run under compute-sanitizer, and the shared-memory
// staging of every technique of lab04::kTechniques in the machine code. One test file per
// technique file besides (naive_matmul_test.cu, tiled_static_test.cu, tiled_dynamic_test.cu,
// with plan_dynamic_tile_test.cu for the planner); helpers in shared_memory_grading.cuh.
#include <vector>

#include "shared_memory_grading.cuh"

namespace {

using namespace lab04_grading;

// Small runs of both kernels: what the sanitizer tests below re-run under the tools.
TEST(SmallTiledGpu, StaticAndDynamicKernels) {
  CUDALAB_REQUIRE_GPU();
  for (const Shape s : {Shape{40, 33, 70}, Shape{17, 65, 5}}) {
    expect_correct_product(launch_static, kStaticRules, s);
    expect_dynamic_product(8 * 1024, s);
    expect_dynamic_product(lab04::kDefaultDynamicBudget, s);
    for (const int tile : {8, 16}) {
      const lab04::DynamicTilePlan plan = forced_plan(tile, 3 * tile);
      expect_correct_product(launch_dynamic(plan), dynamic_rules(plan), s);
    }
  }
}

// ---------------------------------------------------------------------------
// Races, memory errors, barriers (compute-sanitizer)
// ---------------------------------------------------------------------------
CUDALAB_SANITIZER_SUITE(TiledSanitizer, "SmallTiledGpu.*", racecheck, memcheck, synccheck)

// ---------------------------------------------------------------------------
// The technique in the machine code (cuobjdump -sass of this grader, no GPU): both tiled
// kernels stage their tiles in shared memory and wait for them at a barrier. A kernel that
// computes straight from global memory under the tiled name has none of STS, LDS, BAR.SYNC.
// ---------------------------------------------------------------------------
std::vector<cudalab::kit::SassRule> shared_tile_rules() {
  using cudalab::kit::sass_requires;
  return {sass_requires({"STS"}, "the tiles must be stored to shared memory (no STS)"),
          sass_requires({"LDS"}, "the products must read the tiles from shared memory (no LDS)"),
          sass_requires({"BAR.SYNC"},
                        "the block must wait at a barrier (__syncthreads) before "
                        "reading the tiles its threads staged")};
}

void stages_its_tiles_in_shared_memory(::testing::Test&, const lab04::Technique& t) {
  cudalab::kit::expect_sass(t.kernel(), shared_tile_rules());
}

[[maybe_unused]] const bool kRegistered = [] {
  for_each_technique("TiledSassCpu.{}KernelStagesItsTilesInSharedMemory",
                     stages_its_tiles_in_shared_memory, __FILE__, __LINE__);
  return true;
}();

}  // namespace
