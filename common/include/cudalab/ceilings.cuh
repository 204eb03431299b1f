// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file ceilings.cuh
 * @brief Physical ceilings of the GPU at hand: DRAM bandwidth, FP32 FMA and popcount rates.
 *
 * Computed from the device (SM count, memory clock and bus width) and a per-compute-
 * capability throughput table (CUDA C++ Programming Guide, "Arithmetic Instructions":
 * results per clock per SM), at the SM clock measured while the GPU is busy. Graders use
 * them twice: a share of a ceiling is a speed verdict where no baseline fits, and a
 * measurement above a ceiling is impossible (the work was skipped or cached) and fails.
 */
#pragma once

#include <string>

#include "cudalab/device.cuh"

namespace cudalab {

/// FP32 lanes (FMA results per clock) per SM for compute capability @p major.@p minor.
int fp32_lanes_per_sm(int major, int minor);

/// 32-bit population counts per clock per SM for compute capability @p major.@p minor.
int popc_per_clock_per_sm(int major, int minor);

/**
 * @brief SM clock in MHz measured on the device: a kernel spins on clock64() for about
 * 20 ms while %globaltimer gives the elapsed nanoseconds. Cached per process.
 */
double measured_sm_clock_mhz();

/// The ceilings of one GPU.
struct Ceilings {
  double sm_clock_mhz = 0;       ///< measured (measured_sm_clock_mhz())
  double max_clock_mhz = 0;      ///< the device's peak clock attribute
  double dram_gbps = 0;          ///< peak DRAM bandwidth, GB/s (2 x memory clock x bus width)
  double fp32_tflops = 0;        ///< 2 x FMA lanes x SMs x measured clock, TFLOP/s
  double popc_tbitops = 0;       ///< popc/clock x 32 bits x SMs x measured clock, Tbit-op/s
  double fp32_tflops_max = 0;    ///< the same at the peak clock (the "impossible" bound)
  double popc_tbitops_max = 0;   ///< the same at the peak clock (the "impossible" bound)
  std::string describe() const;  ///< one line with every number
};

/// The ceilings of the current device (measures the clock on first use).
Ceilings device_ceilings();

}  // namespace cudalab
