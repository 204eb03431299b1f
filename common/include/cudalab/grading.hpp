/**
 * @file grading.hpp
 * @brief Speed verdicts beyond a same-run speedup: shares of a physical reference and the
 * "impossible" bound (link cudalab::testing).
 */
#pragma once

#include <cstddef>
#include <string>

#include "cudalab/ceilings.cuh"

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
 * measured / reference >= threshold x CUDALAB_SPEEDUP_SCALE. Prints and records it.
 */
void expect_share(double measured, double reference, double threshold, const std::string& unit,
                  const std::string& what);

/**
 * @brief Bandwidth in GB/s (bytes read + bytes written) of cudaMemcpyAsync device-to-device
 * over @p bytes, median of 9 runs: the memory-bound reference a kernel is compared with.
 */
double d2d_copy_gbps(std::size_t bytes);

}  // namespace cudalab::testing
