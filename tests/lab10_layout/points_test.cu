// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 10, the particle kernels (points.cu): the weighted distance in SoA and AoS4
// layouts and the x-only count through any stride, exact on small integers and close on random
// floats for N = 1, 31, 33 and 10^6 + 7; the count past 2^31 elements; memcheck on partial
// warps. Every graded launcher runs under stream capture (the graph may hold only the lab's
// kernel and, for the count, the memset that zeroes it), then on new inputs behind the same
// pointers, with NaN-poisoned outputs. Their speed is tested in layout_perf_test.cu.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "common/kit.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/grading.hpp"
#include "cudalab/graph_capture.cuh"
#include "cudalab/testing.hpp"
#include "cudalab/tools.hpp"
#include "layout.cuh"
#include "layout_grading.cuh"

namespace {

using namespace lab10_grading;

/// Relative tolerance of the weighted distance on random floats (a few roundings).
constexpr double kFloatTolerance = 1e-5;

// ===========================================================================
// GPU: the particle kernels, exact on small integers and close on random floats, for
// N = 1, 31, 33 (partial warps) and 10^6 + 7.
// ===========================================================================

/// Host particles: x, y, z, m.
struct HostParticles {
  std::vector<float> x, y, z, m;
};

HostParticles make_particles(int n, bool integers, std::uint64_t stream) {
  HostParticles h;
  auto rng = cudalab::make_rng(stream);
  std::uniform_int_distribution<int> small(-8, 8);
  std::uniform_real_distribution<float> real(-10.0f, 10.0f);
  for (std::vector<float>* v : {&h.x, &h.y, &h.z, &h.m}) {
    v->resize(std::size_t(n));
    for (float& e : *v) e = integers ? static_cast<float>(small(rng)) : real(rng);
  }
  for (float& e : h.m) e = std::fabs(e);
  return h;
}

std::vector<float> host_distance(const HostParticles& h, float3 c) {
  std::vector<float> out(h.x.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double dx = double(h.x[i]) - c.x, dy = double(h.y[i]) - c.y, dz = double(h.z[i]) - c.z;
    out[i] = static_cast<float>(double(h.m[i]) * (dx * dx + dy * dy + dz * dz));
  }
  return out;
}

std::vector<float> interleave4(const HostParticles& h) {
  std::vector<float> a(4 * h.x.size());
  for (std::size_t i = 0; i < h.x.size(); ++i) {
    a[4 * i] = h.x[i];
    a[4 * i + 1] = h.y[i];
    a[4 * i + 2] = h.z[i];
    a[4 * i + 3] = h.m[i];
  }
  return a;
}

class PointsGpu : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { CUDALAB_REQUIRE_GPU(); }
  /// Two replays of @p cap: small integers (exact), then random floats (kFloatTolerance);
  /// @p load puts a data set behind the captured pointers. Then the launcher itself,
  /// @p launch(stream), twice more on the same buffers with new small integers
  /// (kit::expect_fresh_results_on_same_buffers: a launcher may not skip a repeated call).
  template <typename Load, typename Launch>
  void expect_two_data_sets(const CapturedWork& cap, cudalab::DeviceBuffer<float>& d_out,
                            const float3 c, Load load, Launch launch) {
    const int n = GetParam();
    for (const bool integers : {true, false}) {
      SCOPED_TRACE(integers ? "small-integer data (exact)" : "random floats (tolerance)");
      const HostParticles h = make_particles(n, integers, integers ? 11 : 12);
      load(h);
      cudalab::testing::poison(d_out.data(), d_out.bytes());
      cap.run();
      EXPECT_TRUE(cudalab::testing::matrices_match(host_distance(h, c), d_out.to_host(), 1, n,
                                                   integers ? 0.0 : kFloatTolerance));
    }
    if (HasFailure()) return;
    HostParticles h;
    kit::expect_fresh_results_on_same_buffers(
        "the launcher",
        [&](int round) {
          h = make_particles(n, true, 13 + std::uint64_t(round));
          load(h);
          cudalab::testing::poison(d_out.data(), d_out.bytes());
        },
        launch,
        [&](int) {
          EXPECT_TRUE(
              cudalab::testing::matrices_match(host_distance(h, c), d_out.to_host(), 1, n, 0.0));
        },
        2);
  }
};

TEST_P(PointsGpu, WeightedDistanceSoa) {
  const int n = GetParam();
  cudalab::DeviceBuffer<float> d_x(n), d_y(n), d_z(n), d_m(n), d_out(n);
  const float3 c{1.0f, -3.0f, 2.0f};
  const lab10::PointsSoA p{d_x.data(), d_y.data(), d_z.data(), d_m.data()};
  const CapturedWork cap = CapturedWork::capture(
      [&](cudaStream_t s) { lab10::weighted_distance_soa(p, c, d_out.data(), n, s); });
  ASSERT_TRUE(cap.holds_only(only_kernel(lab10::weighted_distance_soa_kernel())));
  expect_two_data_sets(
      cap, d_out, c,
      [&](const HostParticles& h) {
        d_x.upload(h.x);
        d_y.upload(h.y);
        d_z.upload(h.z);
        d_m.upload(h.m);
      },
      [&](cudaStream_t s) { lab10::weighted_distance_soa(p, c, d_out.data(), n, s); });
}

TEST_P(PointsGpu, WeightedDistanceAos4) {
  const int n = GetParam();
  cudalab::DeviceBuffer<float> d_p(4 * std::size_t(n)), d_out(n);
  const float3 c{-2.0f, 0.0f, 5.0f};
  const auto* p4 = reinterpret_cast<const float4*>(d_p.data());
  const CapturedWork cap = CapturedWork::capture(
      [&](cudaStream_t s) { lab10::weighted_distance_aos4(p4, c, d_out.data(), n, s); });
  ASSERT_TRUE(cap.holds_only(only_kernel(lab10::weighted_distance_aos4_kernel())));
  expect_two_data_sets(
      cap, d_out, c, [&](const HostParticles& h) { d_p.upload(interleave4(h)); },
      [&](cudaStream_t s) { lab10::weighted_distance_aos4(p4, c, d_out.data(), n, s); });
}

/// One count pattern: the field starts @p offset floats into the buffer, elements @p stride
/// floats apart.
struct CountPattern {
  int stride;
  int offset;
  const char* what;
};
const CountPattern kCountPatterns[] = {{1, 0, "SoA x (stride 1)"},
                                       {1, 1, "SoA x from x + 1 (misaligned)"},
                                       {3, 0, "AoS3 p.x (stride 3)"},
                                       {4, 0, "AoS4 p.x (stride 4)"},
                                       {32, 0, "stride 32"}};

TEST_P(PointsGpu, CountBelowIsExactAtEveryStride) {
  const int n = GetParam();
  for (const CountPattern& pat : kCountPatterns) {
    SCOPED_TRACE(std::string(pat.what) + ", n = " + std::to_string(n));
    const std::size_t floats = std::size_t(n) * pat.stride + pat.offset;
    cudalab::DeviceBuffer<float> d_buf(floats);
    cudalab::DeviceBuffer<unsigned int> d_count(1);
    float x0 = 0.0f;  // the capture takes x0 by value: one graph per threshold
    const auto capture = [&](float threshold) {
      x0 = threshold;
      return CapturedWork::capture([&](cudaStream_t s) {
        lab10::count_below(d_buf.data() + pat.offset, pat.stride, n, x0, d_count.data(), s);
      });
    };
    // Data set 1: small integers below 100 and a threshold above them all (count = n); the
    // floats between the elements are NaN, so reading one of them counts nothing.
    // Data set 2: random floats in [-1, 1] with some NaN elements, threshold 0.25, and every
    // 7th element (element 0 included) exactly 0.25: a tie, which is not below.
    // Data set 3: small integers below 100, threshold 50, every 5th element (element 0
    // included) exactly 50 besides the random ones that equal it: ties again.
    for (int set = 0; set < 3; ++set) {
      auto rng = cudalab::make_rng(20 + set);
      std::uniform_real_distribution<float> real(-1.0f, 1.0f);
      std::uniform_int_distribution<int> small(0, 99);
      std::vector<float> h(floats, std::numeric_limits<float>::quiet_NaN());
      unsigned long long want = 0;
      const float threshold = set == 0 ? 100.0f : set == 1 ? 0.25f : 50.0f;
      for (int i = 0; i < n; ++i) {
        float v = set == 1 ? real(rng) : float(small(rng));
        if (set == 1 && i % 97 == 5) v = std::numeric_limits<float>::quiet_NaN();
        if ((set == 1 && i % 7 == 0) || (set == 2 && i % 5 == 0)) v = threshold;  // a tie
        h[std::size_t(i) * pat.stride + pat.offset] = v;
        want += v < threshold ? 1 : 0;
      }
      const CapturedWork cap = capture(threshold);
      ASSERT_TRUE(cap.holds_only(count_rules(d_count.data())));
      d_buf.upload(h);
      cudalab::testing::poison(d_count.data(), d_count.bytes());
      cap.run();
      EXPECT_EQ(d_count.to_host()[0], want)
          << "count of elements < " << threshold << " (data set " << set + 1
          << (set == 0 ? ")" : ", with elements equal to the threshold: equal is not below)");
    }
    if (HasFailure()) return;
    // Same buffers, new data: count_below called directly twice more with the same pointer,
    // stride, n and threshold (50, with ties), new integers behind the pointer each time.
    unsigned long long want = 0;
    kit::expect_fresh_results_on_same_buffers(
        "count_below",
        [&](int round) {
          auto rng = cudalab::make_rng(30 + std::uint64_t(round));
          std::uniform_int_distribution<int> small(0, 99);
          std::vector<float> h(floats, std::numeric_limits<float>::quiet_NaN());
          want = 0;
          for (int i = 0; i < n; ++i) {
            const float v = i % 5 == 0 ? 50.0f : float(small(rng));
            h[std::size_t(i) * pat.stride + pat.offset] = v;
            want += v < 50.0f ? 1 : 0;
          }
          d_buf.upload(h);
          cudalab::testing::poison(d_count.data(), d_count.bytes());
        },
        [&](cudaStream_t s) {
          lab10::count_below(d_buf.data() + pat.offset, pat.stride, n, 50.0f, d_count.data(), s);
        },
        [&](int) { EXPECT_EQ(d_count.to_host()[0], want) << "count of elements < 50"; }, 2);
    if (HasFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, PointsGpu, ::testing::Values(1, 31, 33, 1000007),
                         [](const ::testing::TestParamInfo<int>& p) {
                           return "n" + std::to_string(p.param);
                         });

// ---------------------------------------------------------------------------
// Range edges: element indices and byte offsets past 2^31 (an int product overflows).
// ---------------------------------------------------------------------------
TEST(CountRangeGpu, ElementIndexPastTwoToThe31) {
  CUDALAB_REQUIRE_GPU();
  constexpr int kStride = 1 << 16;
  constexpr int kN = (1 << 15) + 5;  // last element index (kN - 1) * kStride > 2^31
  const std::size_t floats = std::size_t(kN - 1) * kStride + 1;
  CUDALAB_REQUIRE_FREE_MEMORY(floats * sizeof(float));
  cudalab::DeviceBuffer<float> d_buf(floats);
  cudalab::DeviceBuffer<unsigned int> d_count(1);
  const CapturedWork cap = CapturedWork::capture([&](cudaStream_t s) {
    lab10::count_below(d_buf.data(), kStride, kN, kTieX0, d_count.data(), s);
  });
  ASSERT_TRUE(cap.holds_only(count_rules(d_count.data())));
  d_buf.fill_bytes(0xFF);  // NaN between the elements
  const std::uint64_t salt = salt_for(40);
  fill_field(d_buf.data(), kStride, kN, 0, salt, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  unsigned long long want = 0;
  for (int i = 0; i < kN; ++i) want += hashed_value(salt, i, 0) < kTieX0 ? 1 : 0;
  cudalab::testing::poison(d_count.data(), d_count.bytes());
  cap.run();
  EXPECT_EQ(d_count.to_host()[0], want)
      << kN << " elements " << kStride << " floats apart: the last one is element "
      << (long long)(kN - 1) * kStride << " (> 2^31): compute i * stride in 64 bits";
}

// ---------------------------------------------------------------------------
// Sanitizers: the particle kernels under memcheck at N = 31 and 33 (reads past the end).
// ---------------------------------------------------------------------------
constexpr const char* kPointsSanitized = "Sizes/PointsGpu.*/n31:Sizes/PointsGpu.*/n33";

CUDALAB_SANITIZER_SUITE(PointsSanitizer, kPointsSanitized, memcheck)

}  // namespace
