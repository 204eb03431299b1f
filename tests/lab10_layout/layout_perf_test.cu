// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 10, the speed of each layout: the x-only count on SoA x against AoS4 p.x and at
// stride 1 against stride 32 (both against the grader's own copy of the reference count, itself
// checked here), the weighted distance on AoS4 against SoA, and the tiled AoS -> SoA conversion
// against the naive one. Every timed launcher runs under stream capture (the graph may hold only
// its kernel and, for the count, the memset that zeroes it).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/kit.cuh"
#include "cudalab/bench.cuh"
#include "cudalab/ceilings.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/grading.hpp"
#include "cudalab/graph_capture.cuh"
#include "cudalab/testing.hpp"
#include "layout.cuh"
#include "layout_grading.cuh"

namespace {

using namespace lab10_grading;

// ---------------------------------------------------------------------------
// Speed bars: each perf test names its bar ("speedup", "share", ...), and its number and
// provenance are the calibration's (tests/calibration/nvidia-h200.tsv on the reference GPU).
// ---------------------------------------------------------------------------
/// Fields per record of the conversion speed test.
constexpr int kPerfFields = 32;

// ---------------------------------------------------------------------------
// The grader's own baseline (given): the reference solution's count kernel, copied here with
// its launch, so that the stride ratios never divide by a kernel the student wrote (a student
// kernel slowed down at stride 4 or 32 would flatter its stride-1 run). The all-fields test
// keeps the student's SoA kernel beside the AoS4 one: both are judged against the copy.
// ---------------------------------------------------------------------------
__global__ void grader_baseline_count_kernel(const float* __restrict__ field, int stride, int n,
                                             float x0, unsigned int* __restrict__ count) {
  unsigned int mine = 0;
  const long long pass = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += pass) {
    mine += field[i * stride] < x0 ? 1u : 0u;  // NaN is not below anything
  }
  for (int offset = lab10::kWarpSize / 2; offset > 0; offset /= 2) {
    mine += __shfl_down_sync(0xFFFFFFFFu, mine, offset);
  }
  if (threadIdx.x % lab10::kWarpSize == 0 && mine != 0) atomicAdd(count, mine);
}

constexpr const char* kGraderCountKernel = "grader_baseline_count_kernel";

unsigned int grader_blocks_for(long long threads) {
  return static_cast<unsigned int>((threads + lab10::kPointThreads - 1) / lab10::kPointThreads);
}

/// The solution's count_below launch (zero *d_count, then a full GPU of resident blocks), with
/// the grader's kernel.
void grader_count_below(const float* d_field, int stride, int n, float x0, unsigned int* d_count,
                        cudaStream_t stream) {
  int device = 0;
  int sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const unsigned int blocks =
      std::min<unsigned int>(grader_blocks_for(n), static_cast<unsigned int>(sms) * 8u);
  CUDA_CHECK(cudaMemsetAsync(d_count, 0, sizeof(unsigned int), stream));
  grader_baseline_count_kernel<<<blocks, lab10::kPointThreads, 0, stream>>>(d_field, stride, n, x0,
                                                                            d_count);
  CUDA_CHECK_LAST_LAUNCH();
}

/// count_rules() for the grader's count.
GraphRules grader_count_rules(const unsigned int* d_count) {
  GraphRules rules = only_kernel(kGraderCountKernel);
  rules.expect_memset(d_count, sizeof(unsigned int), 0, "*d_count zeroed");
  return rules;
}

// The grader's baselines of the perf tests are themselves correct (not graded).
class GivenGraderBaselineGpu : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { CUDALAB_REQUIRE_GPU(); }
};

TEST_P(GivenGraderBaselineGpu, CountBelowAtStrides4And32) {
  const int n = GetParam();
  constexpr float kX0 = kTieX0;  // about 1 in 17 elements equals it
  for (const int stride : {4, 32}) {
    SCOPED_TRACE("stride " + std::to_string(stride) + ", n = " + std::to_string(n));
    cudalab::DeviceBuffer<float> d_buf(std::size_t(n) * stride);
    cudalab::DeviceBuffer<unsigned int> d_count(1);
    d_buf.fill_bytes(0xFF);  // NaN between the elements: reading one of them counts nothing
    const CapturedWork cap = CapturedWork::capture([&](cudaStream_t s) {
      grader_count_below(d_buf.data(), stride, n, kX0, d_count.data(), s);
    });
    ASSERT_TRUE(cap.holds_only(grader_count_rules(d_count.data())));
    for (const std::uint64_t salt : {salt_for(70), salt_for(71)}) {
      fill_field(d_buf.data(), stride, n, 0, salt, nullptr);
      const unsigned long long want = reference_count(d_buf.data(), stride, n, kX0);
      cudalab::testing::poison(d_count.data(), d_count.bytes());
      cap.run();
      EXPECT_EQ(d_count.to_host()[0], want) << "count of elements < " << kX0;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, GivenGraderBaselineGpu, ::testing::Values(1, 31, 33, 1000007),
                         [](const ::testing::TestParamInfo<int>& p) {
                           return "n" + std::to_string(p.param);
                         });

// ---------------------------------------------------------------------------
// Perf. Every input alternates between two data sets hashed on the device
// (cudalab::testing::AlternatingInput): before every timed run, of the baseline and of the
// candidate alike, an untimed copy puts the next set behind the input pointer with about sqrt(n)
// elements replaced at positions drawn for that run, and the run's output is poisoned; so
// no run can be satisfied by a remembered result. The last timed outputs are checked in full on
// the device against exactly the input of their run (rebuilt there by last_input_to()).
// ---------------------------------------------------------------------------
namespace t = cudalab::testing;

/// Two data sets of @p elements floats, zeroed and then written by @p fill(buffer, salt,
/// stream) with salts @p salt0 and another, alternating behind one live buffer.
template <typename Fill>
t::AlternatingInput<float> hashed_sets(std::size_t elements, std::uint64_t salt0, Fill fill) {
  cudalab::DeviceBuffer<float> sets[2] = {cudalab::DeviceBuffer<float>(elements),
                                          cudalab::DeviceBuffer<float>(elements)};
  for (int i = 0; i < 2; ++i) {
    sets[i].fill_bytes(0);  // what a strided field skips
    fill(sets[i].data(), salt0 + std::uint64_t(i) * 0x10000000000ull, nullptr);
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  return t::AlternatingInput<float>(std::move(sets[0]), std::move(sets[1]));
}

/// The untimed step before a timed run: the next input of @p in, and @p bytes of @p out
/// poisoned.
cudalab::GpuWork next_run(t::AlternatingInput<float>& in, void* out, std::size_t bytes) {
  return [&in, out, bytes](cudaStream_t s) {
    in.copy_next(s);
    t::poison(out, bytes, s);
  };
}

/// What the last run of @p in read, rebuilt on the device.
cudalab::DeviceBuffer<float> last_input_on_device(const t::AlternatingInput<float>& in) {
  cudalab::DeviceBuffer<float> last(in.live.size());
  in.last_input_to(last.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  return last;
}

/// Records @p gbps and judges it as a share of a device-to-device copy and against the DRAM
/// ceiling ("impossible" above it).
void judge_bandwidth(double gbps, double copy_gbps, const std::string& what) {
  cudalab::testing::record_measurement(what + "_gbps", gbps, "GB/s");
  cudalab::testing::expect_possible(gbps, cudalab::device_ceilings().dram_gbps, "GB/s",
                                    what + " (DRAM peak)");
  cudalab::testing::expect_share(gbps, copy_gbps, "GB/s",
                                 what + " useful bytes/s vs a device-to-device copy");
}

class PointsPerf : public ::testing::Test {
 protected:
  void SetUp() override { CUDALAB_REQUIRE_GPU(); }
};

/// Count launches of a field (stride floats apart) with their own count buffer, over an
/// alternating input of hashed data sets.
struct CountCase {
  t::AlternatingInput<float> in;
  cudalab::DeviceBuffer<unsigned int> count{1};
  int stride;
  int n;
  CountCase(int stride_, int n_, std::uint64_t salt)
      : in(hashed_sets(std::size_t(n_) * stride_, salt,
                       [stride_, n_](float* b, std::uint64_t s, cudaStream_t st) {
                         fill_field(b, stride_, n_, 0, s, st);
                       })),
        stride(stride_),
        n(n_) {}
  CapturedWork capture(float x0) {
    return CapturedWork::capture([this, x0](cudaStream_t s) {
      lab10::count_below(in.live.data(), stride, n, x0, count.data(), s);
    });
  }
  /// The grader's count (the baseline of a ratio) on this case.
  CapturedWork capture_grader(float x0) {
    return CapturedWork::capture([this, x0](cudaStream_t s) {
      grader_count_below(in.live.data(), stride, n, x0, count.data(), s);
    });
  }
  /// The untimed step before each timed run: the count of the run before it is kept with the
  /// grader's count of the input it read (still live), then the next input, the count
  /// poisoned. A count is one number: every run's is checked, not only the last's.
  cudalab::GpuWork next_run(float x0) {
    return [this, x0](cudaStream_t s) {
      if (kept < kKept) {
        CUDA_CHECK(cudaMemcpyAsync(got.data() + kept, count.data(), sizeof(unsigned int),
                                   cudaMemcpyDeviceToDevice, s));
        CUDA_CHECK(cudaMemsetAsync(want.data() + kept, 0, sizeof(unsigned long long), s));
        grader_count<<<kGraderBlocks, kGraderThreads, 0, s>>>(in.live.data(), stride, n, x0,
                                                              want.data() + kept);
        CUDA_CHECK_LAST_LAUNCH();
        ++kept;
      }
      ::next_run(in, count.data(), count.bytes())(s);
    };
  }
  /// Checks every kept count, and the last against the reference count of exactly the input
  /// its run read.
  void expect_counts(float x0, const std::string& what) {
    const std::vector<unsigned int> h_got = got.to_host();
    const std::vector<unsigned long long> h_want = want.to_host();
    for (int i = 0; i < kept; ++i) {
      EXPECT_EQ(h_got[std::size_t(i)], h_want[std::size_t(i)])
          << what << ": the count of run " << i << " (warm-up last, then timed) is wrong";
    }
    const cudalab::DeviceBuffer<float> last = last_input_on_device(in);
    EXPECT_EQ(count.to_host()[0], reference_count(last.data(), stride, n, x0))
        << what << ": the last timed count is wrong (input set " << in.last()
        << " with that run's changed elements)";
  }
  static constexpr int kKept = 64;  ///< more than the runs of a timing
  cudalab::DeviceBuffer<unsigned int> got{kKept};
  cudalab::DeviceBuffer<unsigned long long> want{kKept};
  int kept = 0;
};

/// The grader's count on @p base (the baseline) against the student's on @p cand: each captured
/// (the graph may hold only its kernel and the memset that zeroes its count), timed interleaved
/// into @p cmp, each on its own alternating input; then the counts of both checked
/// (expect_counts(), named @p base_what and @p cand_what).
void race_counts(CountCase& base, const char* base_what, CountCase& cand, const char* cand_what,
                 float x0, cudalab::Comparison& cmp) {
  const CapturedWork cap_base = base.capture_grader(x0), cap_cand = cand.capture(x0);
  ASSERT_TRUE(cap_base.holds_only(grader_count_rules(base.count.data())));
  ASSERT_TRUE(cap_cand.holds_only(count_rules(cand.count.data())));
  cudalab::BenchOptions bo;
  bo.before_baseline = base.next_run(x0);
  bo.before_candidate = cand.next_run(x0);
  cmp = cudalab::compare(cap_base.as_work(), cap_cand.as_work(), bo);
  base.expect_counts(x0, base_what);
  cand.expect_counts(x0, cand_what);
}

TEST_F(PointsPerf, XOnlySoaIsFasterThanAos4) {
  constexpr int kN = 1 << 26;
  constexpr float kX0 = kTieX0;  // about 1 in 17 elements equals it
  CountCase soa(1, kN, salt_for(60)), aos4(4, kN, salt_for(64));
  cudalab::Comparison cmp;
  race_counts(aos4, "AoS4 p.x (stride 4)", soa, "SoA x (stride 1)", kX0, cmp);
  if (HasFatalFailure()) return;
  const double copy = cudalab::testing::d2d_copy_gbps(std::size_t(kN) * sizeof(float));
  judge_bandwidth(4.0 * kN / (cmp.candidate.median_ms * 1e6), copy, "count_soa");
  cudalab::testing::expect_speedup(cmp, "x-only count: SoA x (stride 1) vs AoS4 p.x (stride 4)");
}

TEST_F(PointsPerf, StrideOneIsFasterThanStride32) {
  constexpr int kN = 1 << 25;
  constexpr float kX0 = kTieX0;  // about 1 in 17 elements equals it
  CountCase strided(32, kN, salt_for(61)), dense(1, kN, salt_for(65));
  cudalab::Comparison cmp;
  race_counts(strided, "stride 32", dense, "stride 1", kX0, cmp);
  if (HasFatalFailure()) return;
  cudalab::testing::record_measurement("stride32_ms", cmp.baseline.median_ms, "ms");
  cudalab::testing::expect_speedup(cmp,
                                   "x-only count: stride 1 vs stride 32 (a float per 128 bytes)");
}

TEST_F(PointsPerf, AllFieldsAos4KeepsPaceWithSoa) {
  constexpr int kN = 1 << 25;
  const float3 c{1.0f, -1.0f, 2.0f};
  const std::uint64_t salt = salt_for(62);
  t::AlternatingInput<float> soa_in =
      hashed_sets(4 * std::size_t(kN), salt, [](float* b, std::uint64_t s, cudaStream_t st) {
        for (int f = 0; f < 4; ++f) fill_field(b + std::size_t(f) * kN, 1, kN, f, s, st);
      });
  t::AlternatingInput<float> aos_in =
      hashed_sets(4 * std::size_t(kN), salt, [](float* b, std::uint64_t s, cudaStream_t st) {
        for (int f = 0; f < 4; ++f) fill_field(b + f, 4, kN, f, s, st);
      });
  cudalab::DeviceBuffer<float> d_out_soa(kN), d_out_aos(kN);
  float* const soa = soa_in.live.data();
  const lab10::PointsSoA p{soa, soa + kN, soa + 2 * std::size_t(kN), soa + 3 * std::size_t(kN)};
  const auto* p4 = reinterpret_cast<const float4*>(aos_in.live.data());
  const CapturedWork cap_soa = CapturedWork::capture(
      [&](cudaStream_t s) { lab10::weighted_distance_soa(p, c, d_out_soa.data(), kN, s); });
  const CapturedWork cap_aos = CapturedWork::capture(
      [&](cudaStream_t s) { lab10::weighted_distance_aos4(p4, c, d_out_aos.data(), kN, s); });
  ASSERT_TRUE(cap_soa.holds_only(only_kernel(lab10::weighted_distance_soa_kernel())));
  ASSERT_TRUE(cap_aos.holds_only(only_kernel(lab10::weighted_distance_aos4_kernel())));
  cudalab::BenchOptions bo;
  bo.before_baseline = next_run(soa_in, d_out_soa.data(), d_out_soa.bytes());
  bo.before_candidate = next_run(aos_in, d_out_aos.data(), d_out_aos.bytes());
  const cudalab::Comparison cmp = cudalab::compare(cap_soa.as_work(), cap_aos.as_work(), bo);
  // field f of particle i at in[f * field_step + i * stride]
  for (const auto& check : {std::tuple{&d_out_soa, &soa_in, kN, 1, "SoA"},
                            std::tuple{&d_out_aos, &aos_in, 1, 4, "AoS4"}}) {
    const float* out = std::get<0>(check)->data();
    const t::AlternatingInput<float>& in = *std::get<1>(check);
    const cudalab::DeviceBuffer<float> last = last_input_on_device(in);
    const DeviceVerdict v = device_verdict([&](auto* bad, auto* first) {
      grader_check_distance<<<kGraderBlocks, kGraderThreads>>>(
          out, kN, c, ParticlesAt{last.data(), std::get<2>(check), std::get<3>(check)}, bad, first);
    });
    EXPECT_EQ(v.bad, 0u) << std::get<4>(check) << ": the last timed output is wrong from index "
                         << v.first << " (input set " << in.last()
                         << " with that run's changed elements)";
  }
  const double copy = cudalab::testing::d2d_copy_gbps(std::size_t(kN) * 4 * sizeof(float));
  const double bytes = 5.0 * sizeof(float) * kN;  // 4 floats read, 1 written per particle
  judge_bandwidth(bytes / (cmp.baseline.median_ms * 1e6), copy, "distance_soa");    // "share"
  judge_bandwidth(bytes / (cmp.candidate.median_ms * 1e6), copy, "distance_aos4");  // "share#2"
  // A two-sided band: neither layout may be much slower than the other when every field is used.
  const double scale = cudalab::speedup_scale();
  using cudalab::testing::Bound;
  const double band_low = cudalab::testing::speed_bar("speedup", Bound::kAtLeast, cmp.speedup);
  const double band_high =
      cudalab::testing::speed_bar("speedup_upper_bound", Bound::kAtMost, cmp.speedup);
  const double low = band_low * scale, high = band_high / scale;
  char text[300];
  std::snprintf(text, sizeof text,
                "all fields: AoS4 vs SoA speedup %.3fx, needs %.2fx .. %.2fx (band %.2f .. %.2f, "
                "CUDALAB_SPEEDUP_SCALE %.2f)",
                cmp.speedup, low, high, band_low, band_high, scale);
  std::printf("[ SPEED    ] %s\n", text);
  cudalab::testing::record_measurement("speedup", cmp.speedup, "x", low,
                                       cudalab::testing::Bound::kAtLeast);
  cudalab::testing::record_measurement("speedup_upper_bound", cmp.speedup, "x", high,
                                       cudalab::testing::Bound::kAtMost);
  EXPECT_GE(cmp.speedup, low) << text << ": the AoS4 kernel is too slow";
  EXPECT_LE(cmp.speedup, high) << text << ": the SoA kernel is too slow";
}

TEST(ConversionPerf, TiledIsFasterThanNaive) {
  CUDALAB_REQUIRE_GPU();
  constexpr int kN = (1 << 27) / kPerfFields;  // 512 MiB of records
  const long long total = static_cast<long long>(kN) * kPerfFields;
  // Both conversions read one alternating input (each run its own changes) into their own
  // output.
  t::AlternatingInput<float> in = hashed_sets(
      std::size_t(total), salt_for(63),
      [total](float* b, std::uint64_t s, cudaStream_t st) { fill_records(b, total, s, st); });
  cudalab::DeviceBuffer<float> d_soa(total), d_soa_base(total);
  const CapturedWork cap_naive = CapturedWork::capture([&](cudaStream_t s) {
    lab10::aos_to_soa_naive(in.live.data(), d_soa_base.data(), kN, kPerfFields, s);
  });
  const CapturedWork cap_tiled = CapturedWork::capture([&](cudaStream_t s) {
    lab10::aos_to_soa_tiled(in.live.data(), d_soa.data(), kN, kPerfFields, s);
  });
  ASSERT_TRUE(cap_naive.holds_only(only_kernel(lab10::aos_to_soa_naive_kernel())));
  ASSERT_TRUE(cap_tiled.holds_only(only_kernel(lab10::aos_to_soa_tiled_kernel())));
  cudalab::BenchOptions bo;
  bo.before_baseline = next_run(in, d_soa_base.data(), d_soa_base.bytes());
  bo.before_candidate = next_run(in, d_soa.data(), d_soa.bytes());
  const cudalab::Comparison cmp = cudalab::compare(cap_naive.as_work(), cap_tiled.as_work(), bo);
  {
    const cudalab::DeviceBuffer<float> last = last_input_on_device(in);
    const DeviceVerdict v = device_verdict([&](auto* bad, auto* first) {
      grader_check_soa<<<kGraderBlocks, kGraderThreads>>>(d_soa.data(), kN, kPerfFields,
                                                          RecordsAt{last.data()}, bad, first);
    });
    EXPECT_EQ(v.bad, 0u) << "the last timed conversion is wrong from soa[" << v.first
                         << "] (input set " << in.last() << " with that run's changed elements)";
  }
  const double copy = cudalab::testing::d2d_copy_gbps(std::size_t(total) * sizeof(float));
  judge_bandwidth(2.0 * sizeof(float) * total / (cmp.candidate.median_ms * 1e6), copy,
                  "tiled_conversion");
  cudalab::testing::record_measurement("naive_ms", cmp.baseline.median_ms, "ms");
  cudalab::testing::expect_speedup(cmp, "AoS -> SoA, " + std::to_string(kPerfFields) +
                                            " fields: tiled vs the naive strided copy");
}

}  // namespace
