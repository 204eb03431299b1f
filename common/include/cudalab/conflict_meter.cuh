// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file conflict_meter.cuh
 * @brief Measures the bank-conflict degree of a warp's shared-memory access pattern on
 * the GPU with clock64().
 *
 * How it measures: one warp (32 threads, one block) fills a shared array so that every
 * word holds its own index, then each lane runs a *dependent chain* of 4-byte shared
 * loads starting at its word: `word = s[word]` (the loaded value is the next address,
 * so each load waits for the one before it and the lane stays on its word). The warp
 * therefore repeats the same request kChainLength times; clock64() around the chain
 * gives cycles per access. Extra passes through a bank add latency to every link of the
 * chain, so cycles grow linearly with the degree. The fastest of several rounds counts
 * (the first round warms the instruction cache).
 *
 * Cycles are converted to a degree with a calibration taken once per process and
 * device: the stride-1 pattern (conflict-free) and the stride-32 pattern (32-way):
 * `degree = 1 + (cycles - conflict_free_cycles) / cycles_per_extra_way`.
 *
 * Limits: 4-byte accesses only (one word per lane); word indices must lie in
 * [0, kMeterWords) (a 16 KB shared array: e.g. stride 64 x 32 lanes fits). Results
 * vary by a fraction of a cycle between runs; meter_tolerance() is the resolution the
 * graders accept. The absolute cycles include the address arithmetic of each chain
 * link, so they exceed the bare bank latency; only differences are meaningful.
 */
#pragma once

#include <array>
#include <cstdint>

namespace cudalab::bank {

/// Words of the meter's shared array: valid word indices are 0 .. kMeterWords - 1.
inline constexpr int kMeterWords = 4096;
/// Dependent loads per timed round.
inline constexpr int kChainLength = 1024;
/// Timed rounds per launch (the fastest counts).
inline constexpr int kMeterRounds = 8;

/// Cycles of the two reference patterns on this device.
struct MeterCalibration {
  double conflict_free_cycles;  ///< cycles per access of stride 1 (degree 1)
  double cycles_per_extra_way;  ///< (cycles of stride 32 - conflict-free) / 31
};

/// One measurement.
struct MeterReading {
  double cycles_per_access;  ///< raw: clock64 cycles per dependent load
  double degree;             ///< converted with the calibration (1.0 = conflict-free)
};

/**
 * @brief Cycles per access of the pattern @p word_index (lane i chases word
 * word_index[i]), uncalibrated: the minimum over a few launches of kMeterRounds rounds.
 * @throws std::invalid_argument for an index outside [0, kMeterWords)
 * @throws cudalab::CudaError on a CUDA failure
 */
double measure_cycles_per_access(const std::array<std::int64_t, 32>& word_index);

/**
 * @brief Measures stride 1 and stride 32 on the current device (first call; later calls
 * return the cached values).
 * @throws std::runtime_error when 32-way is not slower than conflict-free (no usable
 * clock or a broken device), cudalab::CudaError on a CUDA failure
 */
MeterCalibration calibrate_meter();

/// Converts raw cycles to a degree with @p cal.
double degree_from_cycles(double cycles_per_access, const MeterCalibration& cal) noexcept;

/**
 * @brief Measures the pattern and converts it to a degree (calibrating first if needed).
 * @throws like measure_cycles_per_access() and calibrate_meter()
 */
MeterReading measure_word_pattern(const std::array<std::int64_t, 32>& word_index);

/**
 * @brief The meter's resolution: a measured degree d matches a model degree n when
 * |d - n| <= meter_tolerance(n) = 0.4 + 0.1 * n (±0.5 at 1, ±0.6 at 2, ±2.0 at 16),
 * so 1 and 2 remain distinguishable while large degrees allow for small nonlinearity.
 */
double meter_tolerance(int expected_degree) noexcept;

/// |measured - expected| <= meter_tolerance(expected).
bool degree_matches(double measured, int expected_degree) noexcept;

}  // namespace cudalab::bank
