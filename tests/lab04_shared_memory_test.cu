// Grader of lab 04: static and dynamic shared-memory tiled matmul.
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "cudalab/bench.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/testing.hpp"
#include "cudalab/tools.hpp"
#include "shared_memory.cuh"

namespace {

// Static 32x32 tiles over the naive 16x16 thread-per-element kernel, 4096^2.
// Measured with the reference solution on an NVIDIA H200 (CUDA 13.0), three full runs:
// 1.611x, 1.612x, 1.612x (8.7 TFLOP/s). The threshold sits >= 30 % below (1.611 x 0.7 = 1.13).
constexpr double kStaticOverNaiveThreshold = 1.10;
constexpr int kPerfSize = 4096;

struct Shape {
  int m;
  int n;
  int k;
};

std::string shape_text(const Shape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}
std::string shape_name(const ::testing::TestParamInfo<Shape>& p) {
  return shape_text(p.param);
}

// Odd shapes: 1, primes, one past a tile, rectangles both ways, k below and above tiles.
const Shape kShapes[] = {{1, 1, 1},      {17, 33, 5},  {129, 65, 257}, {1000, 3, 777},
                         {3, 1000, 64},  {64, 64, 64}, {33, 31, 100},  {2, 300, 1030},
                         {257, 129, 33}, {96, 160, 32}};

/// Runs C = A * B with @p launch on small-integer data (exact in float) and compares
/// with the host reference; C is poisoned (NaN) first and followed by sentinels that
/// must survive.
using Launch = std::function<void(const float*, const float*, float*, int, int, int)>;
void expect_exact_product(const Launch& launch, const Shape& s) {
  SCOPED_TRACE("m x n x k = " + shape_text(s));
  const auto h_a = cudalab::random_matrix(s.m, s.k, cudalab::Fill::SmallInt, 1);
  const auto h_b = cudalab::random_matrix(s.k, s.n, cudalab::Fill::SmallInt, 2);
  const std::size_t c_count = std::size_t(s.m) * s.n;
  constexpr std::size_t kGuard = 1024;
  constexpr float kSentinel = -31415.0f;
  cudalab::DeviceBuffer<float> d_a(h_a.size()), d_b(h_b.size()), d_c(c_count + kGuard);
  d_a.upload(h_a);
  d_b.upload(h_b);
  std::vector<float> h_c(c_count, 0.0f);
  h_c.resize(c_count + kGuard, kSentinel);
  d_c.upload(h_c);
  d_c.fill_bytes(0xFF);  // NaN everywhere ...
  CUDA_CHECK(cudaMemcpy(d_c.data() + c_count, h_c.data() + c_count, kGuard * sizeof(float),
                        cudaMemcpyHostToDevice));  // ... then the sentinels after C
  launch(d_a.data(), d_b.data(), d_c.data(), s.m, s.n, s.k);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<float> got = d_c.to_host();
  const std::vector<float> got_c(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(c_count));
  EXPECT_TRUE(cudalab::testing::matrices_match(cudalab::reference_matmul(h_a, h_b, s.m, s.n, s.k),
                                               got_c, s.m, s.n, 0.0));
  for (std::size_t i = 0; i < kGuard; ++i) {
    ASSERT_EQ(got[c_count + i], kSentinel)
        << "element " << i << " past the end of C was written: missing bounds check on the store?";
  }
}

void launch_static(const float* a, const float* b, float* c, int m, int n, int k) {
  lab04::matmul_tiled_static(a, b, c, m, n, k);
}

Launch dynamic_with_budget(std::size_t budget) {
  return [budget](const float* a, const float* b, float* c, int m, int n, int k) {
    const lab04::DynamicTilePlan plan =
        lab04::plan_dynamic_tile(lab04::current_smem_limits(), budget, k);
    lab04::matmul_tiled_dynamic(a, b, c, m, n, k, plan);
  };
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

// ---------------------------------------------------------------------------
// Correctness on odd shapes (GPU)
// ---------------------------------------------------------------------------
class GivenNaiveGpu : public ::testing::TestWithParam<Shape> {};
TEST_P(GivenNaiveGpu, ExactOnOddShapes) {
  CUDALAB_REQUIRE_GPU();
  expect_exact_product([](const float* a, const float* b, float* c, int m, int n,
                          int k) { lab04::matmul_naive(a, b, c, m, n, k); },
                       GetParam());
}
INSTANTIATE_TEST_SUITE_P(Shapes, GivenNaiveGpu,
                         ::testing::Values(Shape{17, 33, 5}, Shape{129, 65, 257}), shape_name);

class TiledStaticGpu : public ::testing::TestWithParam<Shape> {};
TEST_P(TiledStaticGpu, ExactOnOddShapes) {
  CUDALAB_REQUIRE_GPU();
  expect_exact_product(launch_static, GetParam());
}
INSTANTIATE_TEST_SUITE_P(Shapes, TiledStaticGpu, ::testing::ValuesIn(kShapes), shape_name);

class TiledDynamicGpu : public ::testing::TestWithParam<Shape> {};
TEST_P(TiledDynamicGpu, ExactOnOddShapesWithOneStepSlices) {
  CUDALAB_REQUIRE_GPU();
  expect_exact_product(dynamic_with_budget(8 * 1024), GetParam());  // depth = tile
}
TEST_P(TiledDynamicGpu, ExactOnOddShapesWithTheDefaultBudget) {
  CUDALAB_REQUIRE_GPU();
  expect_exact_product(dynamic_with_budget(lab04::kDefaultDynamicBudget), GetParam());
}
INSTANTIATE_TEST_SUITE_P(Shapes, TiledDynamicGpu, ::testing::ValuesIn(kShapes), shape_name);

TEST(TiledDynamicOptInGpu, MoreThan48KBWorksAfterOptIn) {
  CUDALAB_REQUIRE_GPU();
  const lab04::SmemLimits lim = lab04::current_smem_limits();
  if (lim.per_block_optin < 100 * 1024) {
    GTEST_SKIP() << "this GPU offers only " << lim.per_block_optin
                 << " bytes of shared memory per block with opt-in (the test needs 100 KB)";
  }
  const Shape s{70, 90, 1030};
  const lab04::DynamicTilePlan plan = lab04::plan_dynamic_tile(lim, 100 * 1024, s.k);
  ASSERT_TRUE(plan.needs_optin) << "a " << plan.smem_bytes << "-byte plan should need opt-in";
  expect_exact_product(
      [&](const float* a, const float* b, float* c, int m, int n, int k) {
        lab04::matmul_tiled_dynamic(a, b, c, m, n, k, plan);  // CudaError without the opt-in
      },
      s);
}

// Small runs of both kernels: what the sanitizer tests below re-run under the tools.
TEST(SmallTiledGpu, StaticAndDynamicKernels) {
  CUDALAB_REQUIRE_GPU();
  for (const Shape s : {Shape{40, 33, 70}, Shape{17, 65, 5}}) {
    expect_exact_product(launch_static, s);
    expect_exact_product(dynamic_with_budget(8 * 1024), s);
    expect_exact_product(dynamic_with_budget(lab04::kDefaultDynamicBudget), s);
  }
}

// ---------------------------------------------------------------------------
// Races, memory errors, barriers (compute-sanitizer)
// ---------------------------------------------------------------------------
TEST(TiledSanitizer, RacecheckFindsNoSharedMemoryHazard) {
  CUDALAB_REQUIRE_GPU();
  CUDALAB_EXPECT_SANITIZER_CLEAN("racecheck", "SmallTiledGpu.*");
}
TEST(TiledSanitizer, MemcheckFindsNoOutOfBoundsAccess) {
  CUDALAB_REQUIRE_GPU();
  CUDALAB_EXPECT_SANITIZER_CLEAN("memcheck", "SmallTiledGpu.*");
}
TEST(TiledSanitizer, SynccheckFindsNoInvalidBarrier) {
  CUDALAB_REQUIRE_GPU();
  CUDALAB_EXPECT_SANITIZER_CLEAN("synccheck", "SmallTiledGpu.*");
}

// ---------------------------------------------------------------------------
// Speed (4096^2): static tiles vs naive; dynamic vs static recorded.
// ---------------------------------------------------------------------------
class TiledPerf : public ::testing::Test {
 protected:
  static constexpr int N = kPerfSize;
  void SetUp() override {
    CUDALAB_REQUIRE_GPU();
    h_a_ = cudalab::random_matrix(N, N, cudalab::Fill::SmallInt, 11);
    h_b_ = cudalab::random_matrix(N, N, cudalab::Fill::SmallInt, 12);
    d_a_ = cudalab::DeviceBuffer<float>(h_a_.size());
    d_b_ = cudalab::DeviceBuffer<float>(h_b_.size());
    d_ref_ = cudalab::DeviceBuffer<float>(std::size_t(N) * N);
    d_c_ = cudalab::DeviceBuffer<float>(std::size_t(N) * N);
    d_a_.upload(h_a_);
    d_b_.upload(h_b_);
    // Reference: the given naive kernel (exact on small integers: every partial sum is an
    // integer below 2^24), itself spot-checked against the host.
    lab04::matmul_naive(d_a_.data(), d_b_.data(), d_ref_.data(), N, N, N);
    ref_ = d_ref_.to_host();
    auto rng = cudalab::make_rng(13);
    std::uniform_int_distribution<int> pick(0, N - 1);
    for (int t = 0; t < 32; ++t) {
      const int r = pick(rng), c = pick(rng);
      double sum = 0.0;
      for (int i = 0; i < N; ++i)
        sum += double(h_a_[std::size_t(r) * N + i]) * h_b_[std::size_t(i) * N + c];
      ASSERT_EQ(ref_[std::size_t(r) * N + c], sum)
          << "baseline wrong at (" << r << ", " << c << ")";
    }
  }
  /// The candidate's output (timed runs included) must equal the reference exactly.
  void expect_output_correct(const std::string& what) {
    EXPECT_TRUE(cudalab::testing::matrices_match(ref_, d_c_.to_host(), N, N, 0.0)) << what;
  }
  std::vector<float> h_a_, h_b_, ref_;
  cudalab::DeviceBuffer<float> d_a_, d_b_, d_ref_, d_c_;
};

TEST_F(TiledPerf, StaticTilesBeatNaive) {
  d_c_.fill_bytes(0xFF);
  const cudalab::Comparison cmp = cudalab::compare(
      [&](cudaStream_t s) {
        lab04::matmul_naive(d_a_.data(), d_b_.data(), d_ref_.data(), N, N, N, s);
      },
      [&](cudaStream_t s) {
        lab04::matmul_tiled_static(d_a_.data(), d_b_.data(), d_c_.data(), N, N, N, s);
      });
  expect_output_correct("static tiled kernel, 4096^2");
  if (HasFailure()) return;  // no speed verdict for a wrong result
  const double tflops = 2.0 * N * N * double(N) / (cmp.candidate.median_ms * 1e9);
  cudalab::testing::record_measurement("static_tflops", tflops, "TFLOP/s");
  cudalab::testing::expect_speedup(cmp, kStaticOverNaiveThreshold,
                                   "static 32x32 tiles vs naive 16x16");
}

TEST_F(TiledPerf, DynamicVsStaticIsRecorded) {
  const lab04::DynamicTilePlan plan =
      lab04::plan_dynamic_tile(lab04::current_smem_limits(), lab04::kDefaultDynamicBudget, N);
  d_c_.fill_bytes(0xFF);
  cudalab::DeviceBuffer<float> d_static(std::size_t(N) * N);
  const cudalab::Comparison cmp = cudalab::compare(
      [&](cudaStream_t s) {
        lab04::matmul_tiled_static(d_a_.data(), d_b_.data(), d_static.data(), N, N, N, s);
      },
      [&](cudaStream_t s) {
        lab04::matmul_tiled_dynamic(d_a_.data(), d_b_.data(), d_c_.data(), N, N, N, plan, s);
      });
  expect_output_correct("dynamic tiled kernel (tile " + std::to_string(plan.tile) + ", depth " +
                        std::to_string(plan.depth) + "), 4096^2");
  if (HasFailure()) return;
  std::printf("[ SPEED    ] static %.3f ms, dynamic (tile %d, depth %d, %zu B) %.3f ms\n",
              cmp.baseline.median_ms, plan.tile, plan.depth, plan.smem_bytes,
              cmp.candidate.median_ms);
  cudalab::testing::record_measurement("static_ms", cmp.baseline.median_ms, "ms");
  cudalab::testing::record_measurement("dynamic_ms", cmp.candidate.median_ms, "ms");
  cudalab::testing::record_measurement("dynamic_over_static", cmp.speedup, "x");
}

}  // namespace
