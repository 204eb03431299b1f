// SPDX-License-Identifier: BSD-3-Clause
// Lab 04 (given): the shared-memory limits of the current device.
#include "cudalab/device.cuh"
#include "shared_memory.cuh"

namespace lab04 {

SmemLimits current_smem_limits() {
  const cudalab::DeviceInfo info = cudalab::query_device();
  SmemLimits limits;
  limits.per_block_default = info.smem_per_block;      // sharedMemPerBlock
  limits.per_block_optin = info.smem_per_block_optin;  // sharedMemPerBlockOptin
  limits.max_threads_per_block = info.max_threads_per_block;
  return limits;
}

}  // namespace lab04
