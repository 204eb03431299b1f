// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file grading.hpp
 * @brief Speed verdicts beyond a same-run speedup: shares of a physical reference and the
 * "impossible" bound (link cudalab::testing).
 */
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cudalab/ceilings.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"

namespace cudalab::testing {

/**
 * @brief Fails (non-fatally) when @p measured exceeds @p ceiling by more than 5 %: no kernel
 * beats the hardware, so such a number means the work was skipped, cached or done elsewhere.
 * @param measured  the achieved rate (e.g. GB/s, TFLOP/s)
 * @param ceiling   the physical ceiling in the same unit (cudalab::device_ceilings())
 * @param unit      the unit, for the message
 * @param what      names the measurement
 */
void expect_possible(double measured, double ceiling, const std::string& unit,
                     const std::string& what);

/**
 * @brief Judges @p measured as a share of a physical @p reference measured in the same run
 * (e.g. the kernel's bandwidth against a device-to-device copy): passes when
 * measured / reference >= the "share" bar speed_bar() gives for @p threshold, x
 * CUDALAB_SPEEDUP_SCALE. Prints and records it.
 */
void expect_share(double measured, double reference, double threshold, const std::string& unit,
                  const std::string& what);

/**
 * @brief Bandwidth in GB/s (bytes read + bytes written) of cudaMemcpyAsync device-to-device
 * over @p bytes, median of 9 runs: the memory-bound reference a kernel is compared with.
 */
double d2d_copy_gbps(std::size_t bytes);

/**
 * @brief Two input sets behind one device buffer, so timed repetitions cannot be satisfied
 * by a cached result: copy_next() (an untimed BenchOptions::before_candidate step) copies
 * set (run % 2) into live; last() names the set the last run saw, whose reference the
 * grader then checks the output against.
 */
template <typename T>
struct AlternatingInput {
  AlternatingInput(const std::vector<T>& set0, const std::vector<T>& set1)
      : live(set0.size()), sets{DeviceBuffer<T>(set0.size()), DeviceBuffer<T>(set1.size())} {
    sets[0].upload(set0);
    sets[1].upload(set1);
    live.upload(set0);
  }
  /// Enqueues the copy of the next set into live on @p s.
  void copy_next(cudaStream_t s) {
    const int next = int(runs++ % 2);
    CUDA_CHECK(
        cudaMemcpyAsync(live.data(), sets[next].data(), live.bytes(), cudaMemcpyDeviceToDevice, s));
  }
  /// The set the last copy_next() put in live (0 before any).
  int last() const { return runs == 0 ? 0 : int((runs - 1) % 2); }
  DeviceBuffer<T> live;     ///< the buffer the timed work reads
  DeviceBuffer<T> sets[2];  ///< the two input sets
  long runs = 0;            ///< copies enqueued so far
};

/**
 * @brief A byte table that is as valid a "bit count" as popcount but gives other numbers: bit
 * b of a byte counts {3, 0, 1, 2, 0, 1, 1, 0}[b]. The weights sum to 8, so a byte and its
 * complement still count 8 together (the XNOR and XOR forms of a kernel agree) and a zero
 * byte counts 0. Handed to a table-popcount kernel, the product must follow this table; a
 * kernel that ignores its table (e.g. counts with __popc) returns the ordinary product.
 */
inline std::array<std::uint8_t, 256> weighted_popcount_table() {
  constexpr std::array<int, 8> kBitWeight = {3, 0, 1, 2, 0, 1, 1, 0};
  std::array<std::uint8_t, 256> t{};
  for (int i = 0; i < 256; ++i) {
    int sum = 0;
    for (int b = 0; b < 8; ++b) sum += ((i >> b) & 1) * kBitWeight[b];
    t[i] = static_cast<std::uint8_t>(sum);
  }
  return t;
}

}  // namespace cudalab::testing
