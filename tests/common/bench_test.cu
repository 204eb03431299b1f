// SPDX-License-Identifier: BSD-3-Clause
// Unit tests of cudalab/bench.cuh: statistics and verdicts (CPU), timing (GPU).
#include <cstdlib>

#include "cudalab/testing.hpp"

namespace {

struct ScaleEnv {
  explicit ScaleEnv(const char* v) { setenv("CUDALAB_SPEEDUP_SCALE", v, 1); }
  ~ScaleEnv() { unsetenv("CUDALAB_SPEEDUP_SCALE"); }
};

cudalab::Comparison fake(double base_ms, double cand_ms) {
  cudalab::Comparison c;
  c.baseline = cudalab::summarize(std::vector<float>(7, float(base_ms)));
  c.candidate = cudalab::summarize(std::vector<float>(7, float(cand_ms)));
  c.speedup = base_ms / cand_ms;
  return c;
}

TEST(GivenBenchCpu, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(cudalab::median({5, 1, 3}), 3.0);
  EXPECT_DOUBLE_EQ(cudalab::median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(cudalab::median({}), 0.0);
  auto s = cudalab::summarize({3, 9, 1, 4, 7, 2, 8});
  EXPECT_DOUBLE_EQ(s.median_ms, 4.0);
  EXPECT_DOUBLE_EQ(s.min_ms, 1.0);
  EXPECT_DOUBLE_EQ(s.max_ms, 9.0);
}

TEST(GivenBenchCpu, VerdictPrintsBothNumbers) {
  auto v = cudalab::judge_speedup(fake(4.71, 1.0), 3.0, "tiled vs naive");
  EXPECT_TRUE(v.pass);
  EXPECT_NE(v.text.find("speedup 4.71x, needs >= 3.00x"), std::string::npos) << v.text;
  auto w = cudalab::judge_speedup(fake(2.0, 1.0), 3.0, "x");
  EXPECT_FALSE(w.pass);
}

TEST(GivenBenchCpu, ScaleEnvironmentVariableScalesThreshold) {
  {
    ScaleEnv env("0.5");
    auto v = cudalab::judge_speedup(fake(2.0, 1.0), 3.0, "x");
    EXPECT_DOUBLE_EQ(v.threshold, 1.5);
    EXPECT_TRUE(v.pass);
  }
  {
    ScaleEnv env("-1");
    EXPECT_THROW(cudalab::speedup_scale(), std::invalid_argument);
  }
  {
    ScaleEnv env("0.001");  // below the floor: would pass every speed test
    EXPECT_THROW(cudalab::speedup_scale(), std::invalid_argument);
  }
  {
    ScaleEnv env("0.25");  // the floor itself is accepted
    EXPECT_DOUBLE_EQ(cudalab::speedup_scale(), 0.25);
  }
  {
    ScaleEnv env("abc");
    EXPECT_THROW(cudalab::speedup_scale(), std::invalid_argument);
  }
  EXPECT_DOUBLE_EQ(cudalab::speedup_scale(), 1.0);
}

__global__ void spin_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

TEST(GivenBenchGpu, InterleavedComparisonSeesTheLongerKernel) {
  CUDALAB_REQUIRE_GPU();
  cudalab::BenchOptions o;
  o.reps = 7;
  o.flush_l2 = true;
  auto slow = [](cudaStream_t s) { spin_kernel<<<1, 1, 0, s>>>(4'000'000); };
  auto fast = [](cudaStream_t s) { spin_kernel<<<1, 1, 0, s>>>(1'000'000); };
  auto c = cudalab::compare(slow, fast, o);
  ASSERT_EQ(c.baseline.samples_ms.size(), 7u);
  EXPECT_GT(c.speedup, 2.5) << "expected about 4x, got " << c.speedup;
  EXPECT_LT(c.speedup, 6.0) << "expected about 4x, got " << c.speedup;
}

}  // namespace
