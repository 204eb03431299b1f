// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 04, tiled_dynamic.cu on the GPU: the dynamic tiles exact on odd shapes with the
// student's plans, with every plan the launcher can be given (tiles 8, 16, 32 below, at and
// above 48 KB and at the opt-in maximum), the opt-in and the carve-out from the driver's
// defaults, A, B and C past 2^31 elements, and the speed against the given naive kernel and
// against the grader's own static kernel (itself checked here). The planner on the CPU is
// plan_dynamic_tile_test.cu; helpers in shared_memory_grading.cuh.
#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <string>

#include "shared_memory_grading.cuh"

namespace {

using namespace lab04_grading;

class TiledDynamicGpu : public ::testing::TestWithParam<Shape> {};
TEST_P(TiledDynamicGpu, CorrectOnOddShapesWithOneStepSlices) {
  CUDALAB_REQUIRE_GPU();
  expect_dynamic_product(8 * 1024, GetParam());  // depth = tile
}
TEST_P(TiledDynamicGpu, CorrectOnOddShapesWithTheDefaultBudget) {
  CUDALAB_REQUIRE_GPU();
  expect_dynamic_product(lab04::kDefaultDynamicBudget, GetParam());
}
INSTANTIATE_TEST_SUITE_P(Shapes, TiledDynamicGpu, ::testing::ValuesIn(kShapes), shape_name);

// ---------------------------------------------------------------------------
// Every plan the launcher can be given (GPU): tiles 8, 16, 32; slices below, at and above
// the 48 KB default and at the device's opt-in maximum. The plans are set by the test, not
// by the student's planner, so a kernel that assumes one tile edge or a launcher whose
// opt-in threshold is not the plan's fails on every device.
// ---------------------------------------------------------------------------
enum class Depth { Below48KB, At48KB, Above48KB, OptInMax };

struct ForcedPlan {
  int tile;
  Depth depth;
};

std::string depth_name(Depth d) {
  switch (d) {
    case Depth::Below48KB:
      return "Below48KB";
    case Depth::At48KB:
      return "At48KB";
    case Depth::Above48KB:
      return "Above48KB";
    case Depth::OptInMax:
      return "OptInMax";
  }
  return "Unknown";
}

std::string plan_case_name(const ::testing::TestParamInfo<ForcedPlan>& p) {
  return "Tile" + std::to_string(p.param.tile) + depth_name(p.param.depth);
}

class TiledDynamicPlansGpu : public ::testing::TestWithParam<ForcedPlan> {};
TEST_P(TiledDynamicPlansGpu, CorrectWithTheGivenPlan) {
  CUDALAB_REQUIRE_GPU();
  // Each plan from the driver's defaults: no earlier test (a larger plan's opt-in) may have
  // prepared the kernel's shared-memory limit or carve-out for this one.
  const cudalab::kit::FreshKernelState fresh({lab04::tiled_dynamic_kernel()});
  if (HasFatalFailure()) return;
  const ForcedPlan pc = GetParam();
  const lab04::SmemLimits lim = lab04::current_smem_limits();
  const std::size_t step = 2 * sizeof(float) * std::size_t(pc.tile) * pc.tile;  // bytes / tile
  const std::size_t default_steps = lim.per_block_default / step;
  std::size_t steps = 0;
  switch (pc.depth) {
    case Depth::Below48KB:
      steps = default_steps - 1;
      break;
    case Depth::At48KB:
      steps = default_steps;
      break;
    case Depth::Above48KB:
      steps = default_steps + 1;
      break;
    case Depth::OptInMax:
      steps = lim.per_block_optin / step;
      break;
  }
  if (steps * step > lim.per_block_optin) {
    GTEST_SKIP() << "this GPU offers " << lim.per_block_optin
                 << " bytes of shared memory per block with opt-in; the plan needs "
                 << steps * step;
  }
  const lab04::DynamicTilePlan plan = forced_plan(pc.tile, static_cast<int>(steps) * pc.tile);
  SCOPED_TRACE("forced plan: tile " + std::to_string(plan.tile) + ", depth " +
               std::to_string(plan.depth) + ", " + std::to_string(plan.smem_bytes) +
               " bytes, needs_optin " + (plan.needs_optin ? "true" : "false"));
  const Launch launch = launch_dynamic(plan);
  // One partial slice (k < depth: the rest of the slice must be zero-filled, never read
  // stale), then two full slices and a partial third. C is a few tiles, not a multiple.
  const int m = 2 * pc.tile + 5;
  const int n = 3 * pc.tile - 3;
  for (const int k : {std::max(1, plan.depth - 5), 2 * plan.depth + 7}) {
    expect_correct_product(launch, dynamic_rules(plan), Shape{m, n, k});
    if (HasFatalFailure()) return;
  }
}
INSTANTIATE_TEST_SUITE_P(
    Plans, TiledDynamicPlansGpu,
    ::testing::Values(ForcedPlan{8, Depth::Below48KB}, ForcedPlan{8, Depth::At48KB},
                      ForcedPlan{8, Depth::Above48KB}, ForcedPlan{8, Depth::OptInMax},
                      ForcedPlan{16, Depth::Below48KB}, ForcedPlan{16, Depth::At48KB},
                      ForcedPlan{16, Depth::Above48KB}, ForcedPlan{16, Depth::OptInMax},
                      ForcedPlan{32, Depth::Below48KB}, ForcedPlan{32, Depth::At48KB},
                      ForcedPlan{32, Depth::Above48KB}, ForcedPlan{32, Depth::OptInMax}),
    plan_case_name);

TEST(TiledDynamicOptInGpu, PlannedMoreThan48KBWorksAfterOptIn) {
  CUDALAB_REQUIRE_GPU();
  const cudalab::kit::FreshKernelState fresh({lab04::tiled_dynamic_kernel()});
  if (HasFatalFailure()) return;
  const lab04::SmemLimits lim = lab04::current_smem_limits();
  if (lim.per_block_optin < 100 * 1024) {
    GTEST_SKIP() << "this GPU offers only " << lim.per_block_optin
                 << " bytes of shared memory per block with opt-in (the test needs 100 KB)";
  }
  const Shape s{70, 90, 1030};
  const lab04::DynamicTilePlan plan = lab04::plan_dynamic_tile(lim, 100 * 1024, s.k);
  ASSERT_TRUE(plan.needs_optin) << "a " << plan.smem_bytes << "-byte plan should need opt-in";
  expect_dynamic_product(100 * 1024, s);
}

TEST(TiledDynamicOptInGpu, OptedInPlanPrefersTheLargestCarveout) {
  // The launcher's TODO: a plan above 48 KB opts in AND prefers the largest shared-memory
  // carve-out (cudaSharedmemCarveoutMaxShared). The driver reads the preference back. A
  // function attribute outlives the test that set it (it belongs to the process's context), so
  // every plan here starts from the driver's defaults (cudalab::kit::FreshKernelState: no
  // opt-in, preference -1): a launcher that opts in or prefers the carve-out only for some
  // sizes (above 64 KB, say) fails the sizes it skips, alone or after any other test.
  CUDALAB_REQUIRE_GPU();
  const lab04::SmemLimits lim = lab04::current_smem_limits();
  struct SizeClass {
    int tile;
    std::size_t steps;  // depth / tile
    const char* what;
  };
  const std::size_t opt_in_steps_32 = lim.per_block_optin / (2 * sizeof(float) * 32 * 32);
  const SizeClass classes[] = {
      {32, 7, "56 KB (tile 32): between 48 and 64 KB"},
      {16, lim.per_block_default / (2 * sizeof(float) * 16 * 16) + 1,
       "one 16-deep step above 48 KB (tile 16)"},
      {8, lim.per_block_default / (2 * sizeof(float) * 8 * 8) + 1,
       "one 8-deep step above 48 KB (tile 8)"},
      {32, 12, "96 KB (tile 32): above 64 KB"},
      {32, opt_in_steps_32, "the device's opt-in maximum (tile 32)"},
  };
  for (const SizeClass& c : classes) {
    const lab04::DynamicTilePlan plan = forced_plan(c.tile, static_cast<int>(c.steps) * c.tile);
    SCOPED_TRACE(std::string(c.what) + ": forced plan tile " + std::to_string(plan.tile) +
                 ", depth " + std::to_string(plan.depth) + ", " + std::to_string(plan.smem_bytes) +
                 " bytes, from the driver's defaults");
    if (plan.smem_bytes > lim.per_block_optin) {
      std::printf(
          "[ NOTE     ] %s: not run, this GPU offers only %zu bytes per block with opt-in\n",
          c.what, lim.per_block_optin);
      continue;
    }
    const cudalab::kit::FreshKernelState fresh({lab04::tiled_dynamic_kernel()});
    if (HasFatalFailure()) return;
    ASSERT_TRUE(plan.needs_optin) << "a " << plan.smem_bytes << "-byte plan should need opt-in";
    expect_correct_product(launch_dynamic(plan), dynamic_rules(plan), Shape{70, 90, 300});
    if (HasFatalFailure()) return;
    cudaFuncAttributes attr{};
    CUDA_CHECK(cudaFuncGetAttributes(&attr, lab04::tiled_dynamic_kernel().function));
    EXPECT_GE(attr.maxDynamicSharedSizeBytes, static_cast<int>(plan.smem_bytes))
        << "the kernel's dynamic shared-memory limit after the launcher ran the plan";
    EXPECT_EQ(attr.preferredShmemCarveout, static_cast<int>(cudaSharedmemCarveoutMaxShared))
        << "after a " << plan.smem_bytes << "-byte plan the driver reports "
        << "preferredShmemCarveout = " << attr.preferredShmemCarveout << " (-1: never set): "
        << "whenever the plan needs the opt-in, set "
        << "cudaFuncAttributePreferredSharedMemoryCarveout to cudaSharedmemCarveoutMaxShared";
  }
}

// Index range (GPU): A, B and C past 2^31 elements, as the static tiles' (tiled_static_test.cu),
// with a forced plan of tile 32, depth 64.
TEST(IndexRangeGpu, DynamicKernelPast2To31Elements) {
  CUDALAB_REQUIRE_GPU();
  const lab04::DynamicTilePlan plan = forced_plan(32, 64);
  expect_large_a_rows(launch_dynamic(plan), dynamic_rules(plan), plan.tile, 3);
}

TEST(IndexRangeGpu, DynamicKernelPast2To31ElementsOfB) {
  CUDALAB_REQUIRE_GPU();
  const lab04::DynamicTilePlan plan = forced_plan(32, 64);
  matmul_grading::expect_large_b_columns(launch_dynamic(plan), dynamic_rules(plan), 7, true);
}

TEST(IndexRangeGpu, DynamicKernelPast2To31ElementsOfC) {
  CUDALAB_REQUIRE_GPU();
  const lab04::DynamicTilePlan plan = forced_plan(32, 64);
  matmul_grading::expect_large_c_rows(launch_dynamic(plan), dynamic_rules(plan), plan.tile, false);
}

// ---------------------------------------------------------------------------
// The grader's own static-tile kernel (given): the baseline of the "dynamic with the static
// shape" ratio. The reference solution's static kernel, copied here so that the ratio never
// divides by a kernel the student wrote (the student's static kernel could be slowed down
// to flatter the dynamic one).
// ---------------------------------------------------------------------------
__global__ void grader_static_tiled_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                           float* __restrict__ c, int m, int n, int k) {
  constexpr int T = lab04::kStaticTile;
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * T + ty;  // row of C (and of A) this thread owns
  const int col = blockIdx.x * T + tx;  // column of C (and of B) this thread owns
  __shared__ float a_tile[T][T];        // a_tile[ty][j] = A[row][k0 + j] of the current step
  __shared__ float b_tile[T][T];        // b_tile[j][tx] = B[k0 + j][col] of the current step
  float acc = 0.0f;
  for (int k0 = 0; k0 < k; k0 += T) {
    const int a_col = k0 + tx;
    const int b_row = k0 + ty;
    a_tile[ty][tx] = (row < m && a_col < k) ? a[static_cast<std::size_t>(row) * k + a_col] : 0.0f;
    b_tile[ty][tx] = (b_row < k && col < n) ? b[static_cast<std::size_t>(b_row) * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int j = 0; j < T; ++j) acc += a_tile[ty][j] * b_tile[j][tx];
    __syncthreads();
  }
  if (row < m && col < n) c[static_cast<std::size_t>(row) * n + col] = acc;
}

constexpr const char* kGraderStaticKernel = "grader_static_tiled_kernel";

void grader_static_tiled(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                         cudaStream_t stream) {
  constexpr int T = lab04::kStaticTile;
  const dim3 grid((n + T - 1) / T, (m + T - 1) / T);
  grader_static_tiled_kernel<<<grid, dim3(T, T), 0, stream>>>(d_a, d_b, d_c, m, n, k);
  CUDA_CHECK_LAST_LAUNCH();
}

// The grader's static-tile baseline of the perf test is itself correct (not graded).
TEST(GivenGraderStaticGpu, ExactOnOddShapes) {
  CUDALAB_REQUIRE_GPU();
  for (const Shape s : {Shape{17, 33, 5}, Shape{129, 65, 257}, Shape{1000, 3, 777}}) {
    expect_correct_product(grader_static_tiled, kGraderStaticKernel, s);
  }
}

TEST_F(TiledPerf, DynamicTilesKeepUpWithNaive) {
  const lab04::DynamicTilePlan plan =
      lab04::plan_dynamic_tile(lab04::current_smem_limits(), lab04::kDefaultDynamicBudget, N);
  const std::string what = "dynamic tiles (tile " + std::to_string(plan.tile) + ", depth " +
                           std::to_string(plan.depth) + ", " + std::to_string(plan.smem_bytes) +
                           " B) vs naive 16x16";
  const cudalab::Comparison cmp = race_->time(naive(), dynamic(plan), what);
  if (HasFailure()) return;
  cudalab::testing::record_measurement("dynamic_tflops", race_->tflops(cmp.candidate.median_ms),
                                       "TFLOP/s");
  cudalab::testing::expect_speedup(cmp, what);
}

TEST_F(TiledPerf, DynamicWithTheStaticShapeAgainstStatic) {
  // The static kernel's shape (tile 32, one 32-deep step per slice): what remains is the
  // price of choosing the tile edge and depth at run time. The baseline is the grader's own
  // static kernel (the reference one), never the student's.
  const lab04::DynamicTilePlan plan = forced_plan(lab04::kStaticTile, lab04::kStaticTile);
  const cudalab::Comparison cmp = race_->time(
      {grader_static_tiled, only_kernel(kGraderStaticKernel), "the grader's static kernel"},
      dynamic(plan), "dynamic tiles 32x32, depth 32 vs static 32x32");
  if (HasFailure()) return;
  std::printf("[ SPEED    ] static %.3f ms, dynamic (tile 32, depth 32) %.3f ms\n",
              cmp.baseline.median_ms, cmp.candidate.median_ms);
  cudalab::testing::expect_speedup(cmp,
                                   "dynamic 32x32 depth 32 vs static 32x32 (no large regression)");
}

}  // namespace
