// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file device.cuh
 * @brief Device query, device selection (CTest GPU resources) and GPU availability.
 */
#pragma once

#include <cstddef>
#include <string>

namespace cudalab {

/// What the labs need to know about a GPU.
struct DeviceInfo {
  int id = 0;                            ///< CUDA device ordinal
  std::string name;                      ///< e.g. "NVIDIA H100 80GB HBM3"
  int cc_major = 0;                      ///< compute capability, major
  int cc_minor = 0;                      ///< compute capability, minor
  int sm_count = 0;                      ///< streaming multiprocessors
  int sm_clock_khz = 0;                  ///< peak SM clock
  int mem_clock_khz = 0;                 ///< peak memory clock
  int mem_bus_bits = 0;                  ///< memory bus width
  int l2_bytes = 0;                      ///< L2 cache size
  std::size_t global_mem_bytes = 0;      ///< device memory
  std::size_t smem_per_block = 0;        ///< shared memory per block without opt-in (48 KB)
  std::size_t smem_per_block_optin = 0;  ///< per block with cudaFuncSetAttribute opt-in
  std::size_t smem_per_sm = 0;           ///< shared memory per multiprocessor
  int max_threads_per_block = 0;
  int warp_size = 0;
  int driver_version = 0;   ///< e.g. 13000 for CUDA 13.0
  int runtime_version = 0;  ///< e.g. 13000 for CUDA 13.0
};

/// Number of visible CUDA devices; 0 when there is no driver or no device (never throws).
int device_count() noexcept;

/**
 * @brief The device this process should use.
 *
 * CTest's resource allocation (ctest --resource-spec-file) passes the GPU it gave a test
 * in CTEST_RESOURCE_GROUP_0_GPUS ("id:1,slots:1"); that wins. Else CUDALAB_DEVICE, else 0.
 */
int preferred_device();

/**
 * @brief Why GPU tests cannot run here, or "" when they can.
 *
 * Reasons: no CUDA driver or device, the CTest-assigned device does not exist, or the
 * device's compute capability is below @p min_major.@p min_minor. On success the
 * preferred device is made current (cudaSetDevice).
 */
std::string gpu_unavailable_reason(int min_major = 7, int min_minor = 5);

/// Queries @p device (or the current device when negative).
DeviceInfo query_device(int device = -1);

/// One line: "NVIDIA H100 (sm_90, 132 SMs, 1980 MHz, 227 KB smem/block opt-in, driver 13.0)".
std::string describe(const DeviceInfo& info);

}  // namespace cudalab
