// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file conflicting_tile.cuh
 * @brief Given baselines of labs 06 and 07: the tile kernels of tile_kernels.cuh with the
 *        plain layout, whose warps read a column of one bank (a 32-way conflict). Correct for
 *        every shape, only slow: the padded and swizzled layouts are measured against them.
 */
#pragma once

#include <cuda_runtime.h>

#include "tile_kernels.cuh"

namespace smem_tiles {

/// out (cols x rows) = in^T through a plain tile, blocks of kTile x kTransposeBlockRows.
/// @throws std::invalid_argument for rows or cols <= 0 or a grid too tall for gridDim.y
void conflicting_transpose(const float* d_in, float* d_out, int rows, int cols,
                           cudaStream_t stream = nullptr);

/// C (m x n) = A (m x k) * B (k x n) through a plain A tile.
/// @throws std::invalid_argument for m, n or k <= 0 or a grid too tall for gridDim.y
void conflicting_matmul(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                        cudaStream_t stream = nullptr);

/// The baselines' kernels (the tile kernels with PlainLayout, named "PlainLayout"): for the
/// demo's shared-memory column and the graders' profiler comparisons.
cudalab::KernelInfo conflicting_transpose_kernel();
cudalab::KernelInfo conflicting_matmul_kernel();

}  // namespace smem_tiles
