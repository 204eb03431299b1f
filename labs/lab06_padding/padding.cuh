// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file padding.cuh
 * @brief Lab 06 interface: a padded tile layout, the student's transpose through a padded
 *        shared tile, and the matmul that runs the given column-access tile matmul
 *        (smem_tiles::tile_matmul_kernel) with the layout.
 *
 * Contract: padded_offset() gives every element of a kTile x kTile tile its own word below
 * padded_tile_words() (at most one spare word per row), and a warp reading a row or a column
 * touches 32 different banks. padded_transpose runs the student's kernel, whose shared tile
 * is padded_tile_words() words. The launchers take device pointers and a stream and do not
 * synchronize. Background, access patterns and grading: labs/lab06_padding/README.md.
 */
#pragma once

#include <cuda_runtime.h>

#include "cudalab/launch_checks.hpp"
#include "tile_kernels.cuh"

namespace lab06 {

/// Edge of the square tile, in floats (one warp and one row of 32 banks wide).
inline constexpr int kTile = smem_tiles::kTile;
/// Default rows of threads of a transpose block.
inline constexpr int kTransposeBlockRows = smem_tiles::kTransposeBlockRows;

/// The word that holds element (@p row, @p col) of a padded tile (student, padded_tile.cu).
/// @pre 0 <= row < kTile, 0 <= col < kTile
__host__ __device__ int padded_offset(int row, int col);

/// Words the padded tile occupies (kTile rows of the padded pitch).
int padded_tile_words();

/**
 * @brief out (cols x rows) = in (rows x cols)^T through a padded shared tile (the student's
 *        kernel, padded_tile.cu).
 * @param d_in       device input, rows x cols, row-major
 * @param d_out      device output, cols x rows, row-major
 * @param rows       rows of the input (> 0)
 * @param cols       columns of the input (> 0)
 * @param block_rows rows of threads per block: a divisor of kTile
 * @param stream     stream the kernel is enqueued on
 * @throws std::invalid_argument for non-positive sizes, a bad block_rows, or more tile rows
 *         than gridDim.y allows
 */
void padded_transpose(const float* d_in, float* d_out, int rows, int cols,
                      int block_rows = kTransposeBlockRows, cudaStream_t stream = nullptr);

/// C (m x n) = A (m x k) * B (k x n): the given tile matmul with the A tile in the padded
/// layout. @throws std::invalid_argument as above
void padded_matmul(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                   cudaStream_t stream = nullptr);

/// The kernel padded_transpose launches (the student's padded_tile_transpose_kernel, blocks
/// of kTile x kTransposeBlockRows by default): provenance, attributes, profiling.
cudalab::KernelInfo padded_transpose_kernel();
/// The kernel padded_matmul launches: the given tile matmul with the padded layout, named
/// "PaddedLayout" (smem_tiles::tile_matmul_info()).
cudalab::KernelInfo padded_matmul_kernel();

}  // namespace lab06
