// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file bench.cuh
 * @brief Benchmark helper: warm-up, repetitions, median, interleaved A/B comparison.
 *
 * The grading contract times kernels like this: both variants are warmed up, then
 * run alternately (A, B, A, B, ...) so clock and temperature drift hit both alike;
 * each run is timed with CUDA events, optionally after flushing the L2 cache; the
 * medians are compared. Thresholds are multiplied by CUDALAB_SPEEDUP_SCALE (default 1).
 */
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <string>
#include <vector>

namespace cudalab {

/// A piece of device work to time; it must enqueue everything on the given stream.
using GpuWork = std::function<void(cudaStream_t)>;

/// How to time.
struct BenchOptions {
  int warmup = 2;                 ///< untimed runs first (module load, caches, clocks)
  int reps = 9;                   ///< timed runs of each variant (the contract asks for >= 7)
  bool flush_l2 = true;           ///< overwrite the L2 cache before every timed run
  cudaStream_t stream = nullptr;  ///< stream the work is enqueued on
  /// Untimed work enqueued before every run of the baseline / candidate (e.g. copying a
  /// different input set behind the same pointers, so a result cannot be cached).
  GpuWork before_baseline;
  GpuWork before_candidate;
};

/// Statistics of the timed runs of one variant, in milliseconds.
struct BenchStats {
  std::vector<float> samples_ms;  ///< every timed run, in order
  double median_ms = 0.0;
  double min_ms = 0.0;
  double max_ms = 0.0;
};

/// Result of timing a baseline against a candidate.
struct Comparison {
  BenchStats baseline;
  BenchStats candidate;
  /// baseline median / candidate median (> 1 means the candidate is faster).
  double speedup = 0.0;
};

/// Median of @p values (mean of the two middle values for an even count); 0 if empty.
double median(std::vector<float> values);

/// Builds BenchStats from raw samples.
BenchStats summarize(std::vector<float> samples_ms);

/// Times @p work: options.warmup untimed runs, then options.reps timed runs.
BenchStats benchmark(const GpuWork& work, const BenchOptions& options = {});

/// Times @p baseline and @p candidate interleaved and returns both and the speedup.
Comparison compare(const GpuWork& baseline, const GpuWork& candidate,
                   const BenchOptions& options = {});

/// Lowest accepted CUDALAB_SPEEDUP_SCALE: below it a speed verdict would mean nothing.
inline constexpr double kMinSpeedupScale = 0.25;

/// Value of CUDALAB_SPEEDUP_SCALE (default 1; invalid values or values below
/// kMinSpeedupScale throw std::invalid_argument).
double speedup_scale();

/// A speed verdict: the measurement, the (scaled) threshold and a sentence with both.
struct SpeedVerdict {
  bool pass = false;
  double measured = 0.0;
  double threshold = 0.0;  ///< after CUDALAB_SPEEDUP_SCALE
  std::string text;        ///< e.g. "speedup 4.71x, needs >= 3.00x (...)"
};

/**
 * @brief Judges @p cmp against @p threshold (scaled by CUDALAB_SPEEDUP_SCALE).
 * @param cmp        the interleaved measurement
 * @param threshold  the unscaled minimum speedup
 * @param what       names the two variants, e.g. "tiled vs naive"
 */
SpeedVerdict judge_speedup(const Comparison& cmp, double threshold, const std::string& what);

/**
 * @brief Keeps a buffer of twice the L2 size and overwrites it to evict cached data.
 *
 * Allocated once per process on first use (the device's L2 size is queried).
 */
void flush_l2(cudaStream_t stream = nullptr);

}  // namespace cudalab
