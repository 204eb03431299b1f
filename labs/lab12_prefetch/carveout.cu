// SPDX-License-Identifier: BSD-3-Clause
// Lab 12, part 4: a kernel's shared-memory / L1 split. On Volta and newer, L1 and shared
// memory are one array per SM; a kernel states a preference (the legacy cache config, or the
// carve-out in percent) and the driver picks a split that can hold at least one block.
#include <stdexcept>

#include "cudalab/check.cuh"
#include "prefetch.cuh"

namespace lab12 {

SmemConfigReport configure_smem(const void* kernel, int carveout_percent, cudaFuncCache preference,
                                int block_threads, std::size_t dynamic_smem) {
  if (carveout_percent < -1 || carveout_percent > 100) {
    throw std::invalid_argument("configure_smem: the carve-out is -1 (none) or 0..100 percent");
  }
  if (block_threads < 1 || block_threads > 1024) {
    throw std::invalid_argument("configure_smem: block_threads must be 1..1024");
  }
  SmemConfigReport report;
  // TODO(lab12): set the kernel's preferences and read back what the driver says:
  // 1. the legacy preference: cudaFuncSetCacheConfig(kernel, preference);
  // 2. the carve-out hint: cudaFuncSetAttribute(kernel,
  //    cudaFuncAttributePreferredSharedMemoryCarveout, carveout_percent);
  // 3. cudaFuncGetAttributes: preferred_carveout, static_smem, registers;
  // 4. cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block_threads,
  //    dynamic_smem): blocks_per_sm;
  // 5. reserved_smem = cudaDevAttrReservedSharedMemoryPerBlock of the current device, and
  //    smem_per_sm = blocks_per_sm * (static_smem + dynamic_smem + reserved_smem).
  // HINT: wrap every call in CUDA_CHECK; cudaGetDevice() names the current device.
  // Roughly 15 lines.
  cudalab::unused(kernel, preference, dynamic_smem);
  // END TODO(lab12)
  return report;
}

}  // namespace lab12
