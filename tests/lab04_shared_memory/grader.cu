// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 04: static and dynamic shared-memory tiled matmul.
//
// Every graded GPU test runs the student's launcher under stream capture (provenance: the
// graph may hold only the lab's own kernel), then replays the graph on two data sets behind
// the same pointers: small integers (exact) and uniform floats (relative tolerance growing
// with k). Before each replay the output is filled with NaN and so is the shared memory of
// every SM, so a kernel that reads shared memory it never wrote, or skips an element of C,
// fails.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/kit.cuh"
#include "common/matmul_grading.cuh"
#include "cudalab/bench.cuh"
#include "cudalab/ceilings.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/grading.hpp"
#include "cudalab/graph_capture.cuh"
#include "cudalab/testing.hpp"
#include "cudalab/tools.hpp"
#include "shared_memory.cuh"

namespace {

using cudalab::testing::CapturedWork;
using cudalab::testing::GraphRules;

constexpr int kPerfSize = 4096;

using matmul_grading::expect_correct_product;
using matmul_grading::expect_large_a_rows;
using matmul_grading::Launch;
using matmul_grading::only_kernel;
using matmul_grading::Shape;
using matmul_grading::shape_name;

// Odd shapes: 1, primes, one past a tile, rectangles both ways, k below and above tiles.
const Shape kShapes[] = {{1, 1, 1},      {17, 33, 5},  {129, 65, 257}, {1000, 3, 777},
                         {3, 1000, 64},  {64, 64, 64}, {33, 31, 100},  {2, 300, 1030},
                         {257, 129, 33}, {96, 160, 32}};

void launch_static(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t s) {
  lab04::matmul_tiled_static(a, b, c, m, n, k, s);
}

/// The student's dynamic launcher with a fixed @p plan, as a Launch.
Launch launch_dynamic(const lab04::DynamicTilePlan& plan) {
  return [plan](const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t s) {
    lab04::matmul_tiled_dynamic(a, b, c, m, n, k, plan, s);  // CudaError without opt-in
  };
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

/// The static launch the interface defines: block (T, T) over the T x T tiles of C, no
/// dynamic shared memory.
const matmul_grading::Rules kStaticRules = matmul_grading::tiled_launch(
    lab04::tiled_static_kernel(), lab04::kStaticTile, dim3(lab04::kStaticTile, lab04::kStaticTile),
    0u, "block (kStaticTile, kStaticTile) over the tiles of C");

/// The dynamic launch @p plan defines: block (tile, tile) over the tile x tile tiles of C,
/// plan.smem_bytes of dynamic shared memory (not more, not less).
matmul_grading::Rules dynamic_rules(const lab04::DynamicTilePlan& plan) {
  return matmul_grading::tiled_launch(
      lab04::tiled_dynamic_kernel(), plan.tile, dim3(plan.tile, plan.tile),
      static_cast<unsigned>(plan.smem_bytes), "the plan: block (tile, tile), plan.smem_bytes");
}

/// The student's planner for @p budget on this device, then the student's launcher. The
/// plan is made outside the capture (it is host code).
void expect_dynamic_product(std::size_t budget, const Shape& s) {
  const lab04::DynamicTilePlan plan =
      lab04::plan_dynamic_tile(lab04::current_smem_limits(), budget, s.k);
  SCOPED_TRACE("plan: tile " + std::to_string(plan.tile) + ", depth " + std::to_string(plan.depth) +
               ", " + std::to_string(plan.smem_bytes) + " bytes");
  expect_correct_product(launch_dynamic(plan), dynamic_rules(plan), s);
}

/// A plan the test sets itself (not the student's planner): tile x depth, opt-in flag
/// from the device's default limit.
lab04::DynamicTilePlan forced_plan(int tile, int depth) {
  lab04::DynamicTilePlan p;
  p.tile = tile;
  p.depth = depth;
  p.smem_bytes = 2 * sizeof(float) * std::size_t(tile) * depth;
  p.needs_optin = p.smem_bytes > lab04::current_smem_limits().per_block_default;
  return p;
}

// ---------------------------------------------------------------------------
// plan_dynamic_tile (CPU)
// ---------------------------------------------------------------------------
constexpr lab04::SmemLimits kH100{48 * 1024, 227 * 1024, 1024};  // sm_90: 227 KB opt-in

struct PlanCase {
  const char* what;
  lab04::SmemLimits limits;
  std::size_t budget;
  int k;
  int tile;
  int depth;
  bool optin;
};

TEST(PlanDynamicTileCpu, HandDerivedPlans) {
  const PlanCase cases[] = {
      // 2 * 32 * 32 * 4 B = 8 KB per 32-deep step: 48 KB holds 6 steps.
      {"48 KB, large k", kH100, 48 * 1024, 4096, 32, 192, false},
      {"64 KB needs opt-in", kH100, 64 * 1024, 4096, 32, 256, true},
      {"1 MB is capped at the 227 KB opt-in limit", kH100, 1 << 20, 4096, 32, 896, true},
      {"k = 5 needs one step", kH100, 48 * 1024, 5, 32, 32, false},
      {"k = 100 needs four steps", kH100, 48 * 1024, 100, 32, 128, false},
      {"k = 1030 with 100 KB", kH100, 100 * 1024, 1030, 32, 384, true},
      {"256 threads: 16x16 tiles, 2 KB per step",
       {48 * 1024, 227 * 1024, 256},
       48 * 1024,
       4096,
       16,
       384,
       false},
      {"100 threads: 8x8 tiles, 512 B per step",
       {48 * 1024, 227 * 1024, 100},
       2048,
       4096,
       8,
       32,
       false},
      {"no opt-in on this device", {48 * 1024, 48 * 1024, 1024}, 1 << 20, 4096, 32, 192, false},
      {"budget between steps rounds down", kH100, 20000, 4096, 32, 64, false},
  };
  for (const PlanCase& c : cases) {
    SCOPED_TRACE(c.what);
    const lab04::DynamicTilePlan p = lab04::plan_dynamic_tile(c.limits, c.budget, c.k);
    EXPECT_EQ(p.tile, c.tile);
    EXPECT_EQ(p.depth, c.depth);
    EXPECT_EQ(p.smem_bytes, 2 * sizeof(float) * std::size_t(c.tile) * c.depth);
    EXPECT_EQ(p.needs_optin, c.optin);
  }
}

TEST(PlanDynamicTileCpu, RejectsImpossibleRequests) {
  EXPECT_THROW(lab04::plan_dynamic_tile(kH100, 48 * 1024, 0), std::invalid_argument) << "k = 0";
  EXPECT_THROW(lab04::plan_dynamic_tile(kH100, 4096, 64), std::invalid_argument)
      << "4 KB cannot hold one 32-deep step (8 KB)";
  EXPECT_THROW(lab04::plan_dynamic_tile({48 * 1024, 227 * 1024, 32}, 48 * 1024, 64),
               std::invalid_argument)
      << "32 threads per block cannot form an 8x8 tile";
}

TEST(PlanDynamicTileCpu, RandomLimitsKeepTheInvariants) {
  auto rng = cudalab::make_rng(41);
  std::uniform_int_distribution<int> threads_d(64, 1024), k_d(1, 5000);
  std::uniform_int_distribution<std::size_t> bytes_d(16 * 1024, 256 * 1024);
  for (int trial = 0; trial < 500; ++trial) {
    lab04::SmemLimits lim{bytes_d(rng), 0, threads_d(rng)};
    lim.per_block_optin = std::max(lim.per_block_default, bytes_d(rng));
    const std::size_t budget = bytes_d(rng);
    const int k = k_d(rng);
    const std::string where = "limits {" + std::to_string(lim.per_block_default) + ", " +
                              std::to_string(lim.per_block_optin) + ", " +
                              std::to_string(lim.max_threads_per_block) + "}, budget " +
                              std::to_string(budget) + ", k " + std::to_string(k);
    const lab04::DynamicTilePlan p = lab04::plan_dynamic_tile(lim, budget, k);
    const std::size_t usable = std::min(budget, lim.per_block_optin);
    ASSERT_TRUE(p.tile == 8 || p.tile == 16 || p.tile == 32) << where << ": tile " << p.tile;
    ASSERT_LE(p.tile * p.tile, lim.max_threads_per_block) << where;
    ASSERT_TRUE(p.tile == 32 || 4 * p.tile * p.tile > lim.max_threads_per_block)
        << where << ": a larger tile fits";
    ASSERT_TRUE(p.depth >= p.tile && p.depth % p.tile == 0) << where << ": depth " << p.depth;
    ASSERT_EQ(p.smem_bytes, 2 * sizeof(float) * std::size_t(p.tile) * p.depth) << where;
    ASSERT_LE(p.smem_bytes, usable) << where;
    const bool capped_by_k = p.depth >= k;
    const bool next_does_not_fit =
        2 * sizeof(float) * std::size_t(p.tile) * (p.depth + p.tile) > usable;
    ASSERT_TRUE(capped_by_k || next_does_not_fit)
        << where << ": depth " << p.depth << " could be deeper";
    ASSERT_LT(p.depth - p.tile, k) << where << ": depth " << p.depth << " is deeper than k needs";
    ASSERT_EQ(p.needs_optin, p.smem_bytes > lim.per_block_default) << where;
  }
}

// The dynamic launcher takes the plan as an argument: it must refuse one the planner would not
// make (the contract's "inconsistent plan") and bad sizes, before it touches CUDA. Each bad
// plan here is one of the student planner's own plans with one field broken; a launcher that
// trusts its plan would launch a block of the wrong shape, read past its shared buffer, or fail
// later with a CUDA error instead of std::invalid_argument. Nothing is launched: the pointers
// are host dummies, only checked, never dereferenced.
TEST(PlanDynamicTileCpu, LauncherRejectsPlansThePlannerWouldNotMakeAndBadSizes) {
  float h_dummy[1] = {0.0f};
  const float* p = h_dummy;
  float* q = h_dummy;
  struct Request {
    lab04::SmemLimits limits;
    std::size_t budget;
    int k;
  };
  const Request requests[] = {{kH100, 48 * 1024, 4096},
                              {kH100, 100 * 1024, 1030},
                              {{48 * 1024, 227 * 1024, 256}, 48 * 1024, 4096},
                              {{48 * 1024, 227 * 1024, 100}, 2048, 4096}};
  for (const Request& r : requests) {
    const lab04::DynamicTilePlan good = lab04::plan_dynamic_tile(r.limits, r.budget, r.k);
    const std::string what = "the planner's plan tile " + std::to_string(good.tile) + ", depth " +
                             std::to_string(good.depth) + ", " + std::to_string(good.smem_bytes) +
                             " bytes";
    ASSERT_TRUE(good.tile == 8 || good.tile == 16 || good.tile == 32)
        << what << ": not a plan (the planner is the student's; the cases below break one of its "
        << "fields)";
    ASSERT_TRUE(good.depth >= good.tile && good.depth % good.tile == 0) << what;
    ASSERT_EQ(good.smem_bytes, 2 * sizeof(float) * std::size_t(good.tile) * good.depth) << what;
    SCOPED_TRACE(what);

    struct Broken {
      const char* why;
      lab04::DynamicTilePlan plan;
    };
    std::vector<Broken> broken;
    auto with = [&](const char* why, auto change) {
      lab04::DynamicTilePlan b = good;
      change(b);
      broken.push_back({why, b});
    };
    with("tile 12 (not 8, 16 or 32)", [](lab04::DynamicTilePlan& b) {
      b.tile = 12;
      b.depth = 48;
      b.smem_bytes = 2 * sizeof(float) * 12 * 48;
    });
    with("tile 64 (a block of 4096 threads)", [](lab04::DynamicTilePlan& b) {
      b.tile = 64;
      b.depth = 64;
      b.smem_bytes = 2 * sizeof(float) * 64 * 64;
    });
    with("tile 0", [](lab04::DynamicTilePlan& b) { b.tile = 0; });
    with("depth 0", [](lab04::DynamicTilePlan& b) {
      b.depth = 0;
      b.smem_bytes = 0;
    });
    with("depth one less than the plan's (not a multiple of tile), bytes to match",
         [](lab04::DynamicTilePlan& b) {
           b.depth -= 1;
           b.smem_bytes = 2 * sizeof(float) * std::size_t(b.tile) * b.depth;
         });
    with("depth half a tile (below tile), bytes to match", [](lab04::DynamicTilePlan& b) {
      b.depth = b.tile / 2;
      b.smem_bytes = 2 * sizeof(float) * std::size_t(b.tile) * b.depth;
    });
    with("negative depth", [](lab04::DynamicTilePlan& b) { b.depth = -b.tile; });
    with("smem_bytes 4 short of the two slices",
         [](lab04::DynamicTilePlan& b) { b.smem_bytes -= 4; });
    with("smem_bytes of one slice only (A without B)",
         [](lab04::DynamicTilePlan& b) { b.smem_bytes /= 2; });
    with("smem_bytes twice the slices", [](lab04::DynamicTilePlan& b) { b.smem_bytes *= 2; });
    for (const Broken& b : broken) {
      EXPECT_THROW(lab04::matmul_tiled_dynamic(p, p, q, 64, 64, r.k, b.plan), std::invalid_argument)
          << "matmul_tiled_dynamic accepted an inconsistent plan: " << b.why << " (tile "
          << b.plan.tile << ", depth " << b.plan.depth << ", " << b.plan.smem_bytes << " bytes)";
    }
    EXPECT_THROW(lab04::matmul_tiled_dynamic(p, p, q, 0, 64, r.k, good), std::invalid_argument)
        << "m = 0";
    EXPECT_THROW(lab04::matmul_tiled_dynamic(p, p, q, 64, -1, r.k, good), std::invalid_argument)
        << "n = -1";
    EXPECT_THROW(lab04::matmul_tiled_dynamic(p, p, q, 64, 64, 0, good), std::invalid_argument)
        << "k = 0";
    EXPECT_THROW(lab04::matmul_tiled_dynamic(p, p, q, 65536 * good.tile, 64, r.k, good),
                 std::invalid_argument)
        << "65536 tile rows (gridDim.y allows 65535)";
  }
}

// ---------------------------------------------------------------------------
// Correctness on odd shapes (GPU)
// ---------------------------------------------------------------------------
class GivenNaiveGpu : public ::testing::TestWithParam<Shape> {};
TEST_P(GivenNaiveGpu, ExactOnOddShapes) {
  CUDALAB_REQUIRE_GPU();
  expect_correct_product([](const float* a, const float* b, float* c, int m, int n, int k,
                            cudaStream_t s) { lab04::matmul_naive(a, b, c, m, n, k, s); },
                         matmul_grading::only_kernel_rules(lab04::naive_kernel()), GetParam());
}
INSTANTIATE_TEST_SUITE_P(Shapes, GivenNaiveGpu,
                         ::testing::Values(Shape{17, 33, 5}, Shape{129, 65, 257}), shape_name);

// The given baseline's argument checks (the contract of matmul_naive()). Given code, not graded;
// nothing is launched: the pointers are host dummies, never dereferenced.
TEST(GivenArgumentChecksCpu, NaiveBaselineRejectsBadSizesBlocksAndTallGrids) {
  float h_dummy[1] = {0.0f};
  const float* p = h_dummy;
  float* q = h_dummy;
  EXPECT_THROW(lab04::matmul_naive(p, p, q, 0, 4, 4), std::invalid_argument) << "m = 0";
  EXPECT_THROW(lab04::matmul_naive(p, p, q, 4, -1, 4), std::invalid_argument) << "n = -1";
  EXPECT_THROW(lab04::matmul_naive(p, p, q, 4, 4, 0), std::invalid_argument) << "k = 0";
  EXPECT_THROW(lab04::matmul_naive(p, p, q, 4, 4, 4, nullptr, 33), std::invalid_argument)
      << "a 33x33 block (1089 threads)";
  EXPECT_THROW(lab04::matmul_naive(p, p, q, 4, 4, 4, nullptr, 0), std::invalid_argument)
      << "a 0x0 block";
  EXPECT_THROW(lab04::matmul_naive(p, p, q, 65536 * lab04::kNaiveBlock, 4, 4),
               std::invalid_argument)
      << "65536 block rows (gridDim.y allows 65535)";
}

// The static-tile launcher is given (the kernel is the student's): its contract, checked before
// any CUDA call. The largest grid it must accept, 65535 tile rows, is
// IndexRangeGpu.StaticKernelPast2To31ElementsOfC.
TEST(GivenArgumentChecksCpu, StaticTileLauncherRejectsBadSizesAndTallGrids) {
  cudalab::kit::expect_product_launcher_rejects_bad_sizes(
      [](const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t s) {
        lab04::matmul_tiled_static(a, b, c, m, n, k, s);
      },
      "matmul_tiled_static", lab04::kStaticTile);
}

// The grader's static-tile baseline of the perf test is itself correct (not graded).
TEST(GivenGraderStaticGpu, ExactOnOddShapes) {
  CUDALAB_REQUIRE_GPU();
  for (const Shape s : {Shape{17, 33, 5}, Shape{129, 65, 257}, Shape{1000, 3, 777}}) {
    expect_correct_product(grader_static_tiled, kGraderStaticKernel, s);
  }
}

class TiledStaticGpu : public ::testing::TestWithParam<Shape> {};
TEST_P(TiledStaticGpu, CorrectOnOddShapes) {
  CUDALAB_REQUIRE_GPU();
  expect_correct_product(launch_static, kStaticRules, GetParam());
}
INSTANTIATE_TEST_SUITE_P(Shapes, TiledStaticGpu, ::testing::ValuesIn(kShapes), shape_name);

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

// ---------------------------------------------------------------------------
// Index range (GPU): A holds more than 2^31 elements, so a row offset row * k computed in
// int overflows. A is filled on the device from a hash of the element index; the host
// checks sampled rows past the 2^31-element mark. The same for B and for C below.
// ---------------------------------------------------------------------------

TEST(IndexRangeGpu, StaticKernelPast2To31Elements) {
  CUDALAB_REQUIRE_GPU();
  expect_large_a_rows(launch_static, kStaticRules, lab04::kStaticTile, 3);
}

TEST(IndexRangeGpu, DynamicKernelPast2To31Elements) {
  CUDALAB_REQUIRE_GPU();
  const lab04::DynamicTilePlan plan = forced_plan(32, 64);
  expect_large_a_rows(launch_dynamic(plan), dynamic_rules(plan), plan.tile, 3);
}

// B (1040 x 2^21 + 3) and C (65535 tiles of rows x about 2^31 / rows columns) past 2^31
// elements, A and the other operand far below: offsets p * n and row * n must be 64-bit too.
TEST(IndexRangeGpu, StaticKernelPast2To31ElementsOfB) {
  CUDALAB_REQUIRE_GPU();
  matmul_grading::expect_large_b_columns(launch_static, kStaticRules, lab04::kStaticTile, true);
}

TEST(IndexRangeGpu, DynamicKernelPast2To31ElementsOfB) {
  CUDALAB_REQUIRE_GPU();
  const lab04::DynamicTilePlan plan = forced_plan(32, 64);
  matmul_grading::expect_large_b_columns(launch_dynamic(plan), dynamic_rules(plan), 7, true);
}

TEST(IndexRangeGpu, StaticKernelPast2To31ElementsOfC) {
  CUDALAB_REQUIRE_GPU();
  matmul_grading::expect_large_c_rows(launch_static, kStaticRules, lab04::kStaticTile, true);
}

TEST(IndexRangeGpu, DynamicKernelPast2To31ElementsOfC) {
  CUDALAB_REQUIRE_GPU();
  const lab04::DynamicTilePlan plan = forced_plan(32, 64);
  matmul_grading::expect_large_c_rows(launch_dynamic(plan), dynamic_rules(plan), plan.tile, false);
}

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

TEST_F(TiledPerf, StaticTilesBeatNaive) {
  const cudalab::Comparison cmp =
      race_->time(naive(), {launch_static, kStaticRules(Shape{N, N, N}), "the static kernel"},
                  "static 32x32 tiles, 4096^2");
  if (HasFailure()) return;  // no speed verdict for a wrong result
  cudalab::testing::record_measurement("static_tflops", race_->tflops(cmp.candidate.median_ms),
                                       "TFLOP/s");
  cudalab::testing::expect_speedup(cmp, "static 32x32 tiles vs naive 16x16");
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

TEST(TiledSassCpu, StaticKernelStagesItsTilesInSharedMemory) {
  cudalab::kit::expect_sass(lab04::tiled_static_kernel(), shared_tile_rules());
}

TEST(TiledSassCpu, DynamicKernelStagesItsTilesInSharedMemory) {
  cudalab::kit::expect_sass(lab04::tiled_dynamic_kernel(), shared_tile_rules());
}

}  // namespace
