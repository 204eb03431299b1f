// SPDX-License-Identifier: BSD-3-Clause
// Lab 04: tiled matmul with both tiles in one dynamic (extern __shared__) buffer: the plan
// (tile and depth from the device's limits), the kernel, and the launch that opts in above
// the 48 KB default.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "cudalab/check.cuh"
#include "cudalab/launch_checks.hpp"
#include "shared_memory.cuh"

namespace lab04 {
namespace {

// TODO(lab04): optional helpers for the kernel below (roughly 0-44 lines; none needed for
// correctness).
// HINT: the grader also times the kernel at the static kernel's shape (tile 32, depth 32).
// HINT: which sizes does the compiler know when it compiles the static kernel, and which
// HINT: when it compiles this one? Only three tile edges are allowed.
// END TODO(lab04)

/**
 * Tiled C = A * B with the tiles in dynamic shared memory. Launch: block (tile, tile) with
 * tile = blockDim.x in {8, 16, 32}, grid (ceil(n / tile), ceil(m / tile)), dynamic shared
 * memory 2 * tile * depth floats; @p depth (the k-extent of a staged slice) is a multiple
 * of tile.
 */
__global__ void matmul_tiled_dynamic_kernel(const float* __restrict__ a,
                                            const float* __restrict__ b, float* __restrict__ c,
                                            int m, int n, int k, int depth) {
  // Every extern __shared__ array of a kernel starts at the same address: declaring two
  // of them would make the A and B tiles overlap. There is one buffer; pointers split it.
  extern __shared__ float smem[];

  // TODO(lab04): the block is tile x tile threads (tile = blockDim.x); thread (tx, ty) owns
  // C(blockIdx.y * tile + ty, blockIdx.x * tile + tx). Point a_tile at the start of smem
  // (tile rows x depth columns) and b_tile right after it (depth rows x tile columns).
  // Then walk k in steps of depth: the block stages A(row0 .. row0+tile-1, k0 .. k0+depth-1)
  // and B(k0 .. k0+depth-1, col0 .. col0+tile-1), zero outside the matrices, waits,
  // accumulates, and waits again. Store the sum when (row, col) lies inside C.
  // Roughly 11 lines.
  // HINT: a slice holds depth / tile elements per thread of each operand. Which columns of
  // HINT: the A slice and which rows of the B slice should thread (tx, ty) take so that a
  // HINT: warp's loads stay coalesced, and at which smem word does each element land?
  cudalab::unused(a, b, c, m, n, k, depth, smem);
  // END TODO(lab04)
}

}  // namespace

DynamicTilePlan plan_dynamic_tile(const SmemLimits& limits, std::size_t budget_bytes, int k) {
  if (k < 1) throw std::invalid_argument("plan_dynamic_tile: k must be positive");
  // TODO(lab04): follow the rules in shared_memory.cuh: tile from the thread limit, usable
  // bytes = min(budget, opt-in limit), depth = the largest multiple of tile that fits,
  // capped at k rounded up to a multiple of tile; then smem_bytes and needs_optin.
  // Roughly 23 lines.
  // HINT: one depth step costs 2 * tile * tile * sizeof(float) bytes (A and B slices).
  // HINT: throw std::invalid_argument when no tile fits or depth would be below tile.
  cudalab::unused(limits, budget_bytes);
  return DynamicTilePlan{};
  // END TODO(lab04)
}

void matmul_tiled_dynamic(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                          const DynamicTilePlan& plan, cudaStream_t stream) {
  cudalab::check_positive_dims("matmul_tiled_dynamic", m, n, k);
  const bool tile_ok = plan.tile == 8 || plan.tile == 16 || plan.tile == 32;
  if (!tile_ok || plan.depth < plan.tile || plan.depth % plan.tile != 0 ||
      plan.smem_bytes != 2 * sizeof(float) * plan.tile * plan.depth) {
    throw std::invalid_argument(
        "matmul_tiled_dynamic: inconsistent plan (tile " + std::to_string(plan.tile) + ", depth " +
        std::to_string(plan.depth) + ", " + std::to_string(plan.smem_bytes) + " bytes)");
  }
  const dim3 block(plan.tile, plan.tile);  // one thread per element of a C tile
  const dim3 grid = cudalab::tile_grid(m, n, plan.tile, plan.tile, "matmul_tiled_dynamic");
  // TODO(lab04): if the plan needs more than the default 48 KB, opt the kernel in to
  // plan.smem_bytes of dynamic shared memory and prefer the largest shared-memory
  // carve-out; then launch with plan.smem_bytes of dynamic shared memory and check it.
  // Roughly 10 lines.
  // HINT: cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)
  // HINT: and cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared.
  cudalab::unused(d_a, d_b, d_c, block, grid, stream);
  // END TODO(lab04)
}

cudalab::KernelInfo tiled_dynamic_kernel() {
  // Its block and dynamic shared memory are the plan's, chosen per call.
  return {reinterpret_cast<const void*>(matmul_tiled_dynamic_kernel), "matmul_tiled_dynamic_kernel",
          dim3(0, 0, 0), 0};
}

}  // namespace lab04
