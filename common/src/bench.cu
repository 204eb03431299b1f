// SPDX-License-Identifier: BSD-3-Clause
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "cudalab/bench.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/gpu_lock.hpp"
#include "cudalab/timer.cuh"

namespace cudalab {

double median(std::vector<float> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (double(values[n / 2 - 1]) + values[n / 2]);
}

BenchStats summarize(std::vector<float> samples_ms) {
  BenchStats s;
  s.samples_ms = std::move(samples_ms);
  if (!s.samples_ms.empty()) {
    s.median_ms = median(s.samples_ms);
    const auto [lo, hi] = std::minmax_element(s.samples_ms.begin(), s.samples_ms.end());
    s.min_ms = *lo;
    s.max_ms = *hi;
  }
  return s;
}

void flush_l2(cudaStream_t stream) {
  static std::unique_ptr<DeviceBuffer<char>> scratch;
  if (!scratch) {
    int device = 0;
    int l2_bytes = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
    scratch = std::make_unique<DeviceBuffer<char>>(std::size_t(std::max(l2_bytes, 1 << 20)) * 2);
  }
  CUDA_CHECK(cudaMemsetAsync(scratch->data(), 0, scratch->bytes(), stream));
}

namespace {

void check_options(const BenchOptions& o) {
  if (o.warmup < 0 || o.reps < 1) {
    throw std::invalid_argument("BenchOptions: warmup must be >= 0 and reps >= 1");
  }
}

float timed_run(const GpuWork& work, const GpuWork& before, const BenchOptions& o,
                GpuTimer& timer) {
  if (before) before(o.stream);
  if (o.flush_l2) flush_l2(o.stream);
  timer.start(o.stream);
  work(o.stream);
  timer.stop(o.stream);
  const float ms = timer.elapsed_ms();
  CUDA_CHECK(cudaGetLastError());
  return ms;
}

}  // namespace

BenchStats benchmark(const GpuWork& work, const BenchOptions& options) {
  check_options(options);
  const AloneOnGpu alone;  // nothing else of the test run on this GPU while it is timed
  for (int i = 0; i < options.warmup; ++i) work(options.stream);
  CUDA_CHECK(cudaStreamSynchronize(options.stream));
  CUDA_CHECK(cudaGetLastError());
  GpuTimer timer;
  std::vector<float> samples;
  samples.reserve(options.reps);
  for (int i = 0; i < options.reps; ++i)
    samples.push_back(timed_run(work, options.before_candidate, options, timer));
  return summarize(std::move(samples));
}

Comparison compare(const GpuWork& baseline, const GpuWork& candidate, const BenchOptions& options) {
  check_options(options);
  const AloneOnGpu alone;  // nothing else of the test run on this GPU while it is timed
  for (int i = 0; i < options.warmup; ++i) {
    baseline(options.stream);
    candidate(options.stream);
  }
  CUDA_CHECK(cudaStreamSynchronize(options.stream));
  CUDA_CHECK(cudaGetLastError());
  GpuTimer timer;
  std::vector<float> a;
  std::vector<float> b;
  for (int i = 0; i < options.reps; ++i) {
    a.push_back(timed_run(baseline, options.before_baseline, options, timer));
    b.push_back(timed_run(candidate, options.before_candidate, options, timer));
  }
  Comparison c;
  c.baseline = summarize(std::move(a));
  c.candidate = summarize(std::move(b));
  c.speedup = c.candidate.median_ms > 0 ? c.baseline.median_ms / c.candidate.median_ms : 0.0;
  return c;
}

double speedup_scale() {
  const char* env = std::getenv("CUDALAB_SPEEDUP_SCALE");
  if (env == nullptr || *env == '\0') return 1.0;
  char* end = nullptr;
  const double v = std::strtod(env, &end);
  if (end == env || *end != '\0' || !std::isfinite(v)) {
    throw std::invalid_argument(std::string("CUDALAB_SPEEDUP_SCALE must be a number, got '") + env +
                                "'");
  }
  if (v < kMinSpeedupScale) {
    throw std::invalid_argument(std::string("CUDALAB_SPEEDUP_SCALE=") + env +
                                " is below its floor 0.25: a speed verdict scaled that far "
                                "would mean nothing");
  }
  return v;
}

SpeedVerdict judge_speedup(const Comparison& cmp, double threshold, const std::string& what) {
  SpeedVerdict v;
  const double scale = speedup_scale();
  v.measured = cmp.speedup;
  v.threshold = threshold * scale;
  v.pass = v.measured >= v.threshold;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%s: speedup %.2fx, needs >= %.2fx (threshold %.2fx x CUDALAB_SPEEDUP_SCALE "
                "%.2f); median baseline %.4f ms, candidate %.4f ms over %zu runs each",
                what.c_str(), v.measured, v.threshold, threshold, scale, cmp.baseline.median_ms,
                cmp.candidate.median_ms, cmp.candidate.samples_ms.size());
  v.text = buf;
  return v;
}

}  // namespace cudalab
