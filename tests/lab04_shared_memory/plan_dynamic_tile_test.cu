// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 04, the planner of tiled_dynamic.cu on the CPU: plan_dynamic_tile() on plans
// worked out by hand, what it rejects, its invariants over random limits, and what the dynamic
// launcher refuses of a plan the planner would not make. The dynamic tiles on the GPU are
// tiled_dynamic_test.cu; helpers in shared_memory_grading.cuh.
#include <algorithm>
#include <cstddef>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "shared_memory_grading.cuh"

namespace {

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

}  // namespace
