// Lab 04: choosing the dynamic tile from the device's limits, and the opt-in launch.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "cudalab/check.cuh"
#include "shared_memory.cuh"

namespace lab04 {

DynamicTilePlan plan_dynamic_tile(const SmemLimits& limits, std::size_t budget_bytes, int k) {
  if (k < 1) throw std::invalid_argument("plan_dynamic_tile: k must be positive");
  // TODO(lab04): follow the rules in shared_memory.cuh: tile from the thread limit, usable
  // bytes = min(budget, opt-in limit), depth = the largest multiple of tile that fits,
  // capped at k rounded up to a multiple of tile; then smem_bytes and needs_optin.
  // HINT: one depth step costs 2 * tile * tile * sizeof(float) bytes (A and B slices).
  // HINT: throw std::invalid_argument when no tile fits or depth would be below tile.
  DynamicTilePlan plan;
  for (const int t : {32, 16, 8}) {
    if (t * t <= limits.max_threads_per_block) {
      plan.tile = t;
      break;
    }
  }
  if (plan.tile == 0) {
    throw std::invalid_argument("plan_dynamic_tile: a block of 8x8 threads exceeds the limit");
  }
  const std::size_t usable = std::min(budget_bytes, limits.per_block_optin);
  const std::size_t bytes_per_step = 2 * sizeof(float) * plan.tile * plan.tile;
  const std::size_t steps = usable / bytes_per_step;  // depth / tile
  if (steps == 0) {
    throw std::invalid_argument("plan_dynamic_tile: " + std::to_string(usable) +
                                " bytes cannot hold one " + std::to_string(plan.tile) +
                                "-deep slice of A and B");
  }
  const int k_steps = (k + plan.tile - 1) / plan.tile;  // deeper than this is all zeros
  plan.depth = plan.tile * static_cast<int>(std::min<std::size_t>(steps, k_steps));
  plan.smem_bytes = bytes_per_step / plan.tile * plan.depth;
  plan.needs_optin = plan.smem_bytes > limits.per_block_default;
  return plan;
  // END TODO(lab04)
}

void matmul_tiled_dynamic(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                          const DynamicTilePlan& plan, cudaStream_t stream) {
  if (m <= 0 || n <= 0 || k <= 0) {
    throw std::invalid_argument("matmul_tiled_dynamic: m, n and k must be positive");
  }
  const bool tile_ok = plan.tile == 8 || plan.tile == 16 || plan.tile == 32;
  if (!tile_ok || plan.depth < plan.tile || plan.depth % plan.tile != 0 ||
      plan.smem_bytes != 2 * sizeof(float) * plan.tile * plan.depth) {
    throw std::invalid_argument(
        "matmul_tiled_dynamic: inconsistent plan (tile " + std::to_string(plan.tile) + ", depth " +
        std::to_string(plan.depth) + ", " + std::to_string(plan.smem_bytes) + " bytes)");
  }
  const dim3 block(plan.tile, plan.tile);  // one thread per element of a C tile
  const dim3 grid((n + plan.tile - 1) / plan.tile, (m + plan.tile - 1) / plan.tile);
  // TODO(lab04): if the plan needs more than the default 48 KB, opt the kernel in to
  // plan.smem_bytes of dynamic shared memory and prefer the largest shared-memory
  // carve-out; then launch with plan.smem_bytes of dynamic shared memory and check it.
  // HINT: cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)
  // HINT: and cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared.
  if (plan.needs_optin) {
    CUDA_CHECK(cudaFuncSetAttribute(matmul_tiled_dynamic_kernel,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(plan.smem_bytes)));
    CUDA_CHECK(cudaFuncSetAttribute(matmul_tiled_dynamic_kernel,
                                    cudaFuncAttributePreferredSharedMemoryCarveout,
                                    cudaSharedmemCarveoutMaxShared));
  }
  (void)stream;  // WRONG: the kernel goes to the legacy default stream
  matmul_tiled_dynamic_kernel<<<grid, block, plan.smem_bytes>>>(d_a, d_b, d_c, m, n, k, plan.depth);
  CUDA_CHECK_LAST_LAUNCH();
  // END TODO(lab04)
}

}  // namespace lab04
