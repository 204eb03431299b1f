// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file padding.cuh
 * @brief Lab 06 interface: a padded tile layout, the student's in-place transpose that swaps
 *        tile pairs through two padded shared tiles, and the matmul that runs the given
 *        column-access tile matmul (smem_tiles::tile_matmul_kernel) with the layout.
 *
 * Contract: padded_offset() gives every element of a kTile x kTile tile its own word below
 * padded_tile_words() (at most one spare word per row), and a warp reading a row or a column
 * touches 32 different banks. padded_transpose_in_place runs the student's kernel, whose two
 * shared tiles are padded_tile_words() words each. The launchers take device pointers and a
 * stream and do not synchronize. Background, access patterns and grading:
 * labs/lab06_padding/README.md.
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

/// Largest n padded_transpose_in_place takes: 65535 tile rows of kTile, whose
/// 65535 * 65536 / 2 tile pairs are the most blocks gridDim.x allows (2^31 - 1).
inline constexpr int kMaxInPlaceN = 65535 * kTile;

/**
 * @brief In place: the n x n row-major matrix at @p d_matrix becomes its transpose (the
 *        student's kernel, padded_tile.cu). One block per pair of kTile x kTile tiles (ti, tj)
 *        with ti <= tj, T (T + 1) / 2 blocks for T = ceil(n / kTile): the pair is swapped,
 *        each tile transposed, through two padded shared tiles; a diagonal tile is transposed
 *        in its own place.
 * @param d_matrix   device matrix, n x n, row-major: read and overwritten
 * @param n          rows and columns (1 .. kMaxInPlaceN)
 * @param block_rows rows of threads per block: a divisor of kTile
 * @param stream     stream the kernel is enqueued on; does not synchronize
 * @throws std::invalid_argument for n <= 0, n > kMaxInPlaceN (more tile pairs than gridDim.x
 *         allows) or a bad block_rows, before any CUDA call
 */
void padded_transpose_in_place(float* d_matrix, int n, int block_rows = kTransposeBlockRows,
                               cudaStream_t stream = nullptr);

/// C (m x n) = A (m x k) * B (k x n): the given tile matmul with the A tile in the padded
/// layout. @throws std::invalid_argument for m, n or k <= 0, or more tile rows of C than
/// gridDim.y allows
void padded_matmul(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                   cudaStream_t stream = nullptr);

/// The kernel padded_transpose_in_place launches (the student's
/// padded_tile_pair_transpose_kernel, blocks of kTile x kTransposeBlockRows by default):
/// provenance, attributes, profiling.
cudalab::KernelInfo padded_transpose_kernel();
/// The kernel padded_matmul launches: the given tile matmul with the padded layout, named
/// "PaddedLayout" (smem_tiles::tile_matmul_info()).
cudalab::KernelInfo padded_matmul_kernel();

}  // namespace lab06
