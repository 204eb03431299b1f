/**
 * @file padding.cuh
 * @brief Lab 06 interface: `[T][T+1]` padded shared-memory tiles against bank conflicts.
 *
 * Shared memory has 32 banks of 4-byte words; word w lives in bank w % 32. A 32 x 32 float
 * tile stored row after row puts a whole column in one bank, so a warp that reads a column
 * (a transpose, or the A tile of a matmul whose lanes walk the rows of C) is serialised 32
 * ways. Giving each row one unused word (a pitch of 33 instead of 32) shifts every row by
 * one bank, so a column touches 32 different banks while a row stays conflict-free.
 *
 * The map from a tile element to its shared-memory word, padded_offset(), is written by the
 * student in padded_tile.cu together with the two kernels that use it.
 *
 * All matrices are row-major floats in device memory.
 */
#pragma once

#include <cuda_runtime.h>

namespace lab06 {

/// Edge of the square tile, in floats: one warp wide, so a warp walking a column sees 32 rows.
inline constexpr int kTile = 32;
static_assert(kTile == 32,
              "the bank arithmetic of this lab needs a tile exactly one warp (and "
              "one row of 32 banks) wide");
/// Default rows of threads of a transpose block (each thread moves kTile / rows elements).
inline constexpr int kTransposeBlockRows = 8;
/// Words of the unpadded tile, the least a kTile x kTile float tile can occupy.
inline constexpr int kUnpaddedTileWords = kTile * kTile;

/**
 * @brief The shared-memory word that holds element (@p row, @p col) of a padded
 *        kTile x kTile tile.
 *
 * Every element gets its own word below padded_tile_words(); the 32 elements of a row and
 * the 32 elements of a column each fall into 32 different banks. Written by the student in
 * padded_tile.cu, next to the kernels that call it on the device; the grader and the demo
 * call it on the host. (Without separate compilation, device code of other files cannot.)
 * @pre 0 <= row < kTile, 0 <= col < kTile
 */
__host__ __device__ int padded_offset(int row, int col);

/// Words the padded tile occupies (kTile rows of the padded pitch), from padded_tile.cu.
int padded_tile_words();

/**
 * @brief out = in^T through a padded shared tile.
 *
 * A block moves one kTile x kTile tile: it reads input rows (coalesced) into tile rows,
 * synchronises, and writes output rows (coalesced) from tile columns, which padding makes
 * conflict-free. Partial tiles at the right and bottom edges are handled.
 *
 * Launch: grid (ceil(cols / kTile), ceil(rows / kTile)), block (kTile, r) with r dividing kTile.
 * @param in   input matrix, rows x cols, row-major (device memory)
 * @param out  output matrix, cols x rows, row-major (device memory)
 * @param rows rows of @p in (columns of @p out)
 * @param cols columns of @p in (rows of @p out)
 */
__global__ void padded_transpose_kernel(const float* __restrict__ in, float* __restrict__ out,
                                        int rows, int cols);

/**
 * @brief C = A * B, one kTile x kTile tile of C per block, lanes of a warp walking the rows
 *        of C: the inner loop reads the A tile down a column, conflict-free thanks to padding.
 *
 * Launch: grid (ceil(n / kTile), ceil(m / kTile)), block (kTile, kTile).
 * @param a A, m x k, row-major (device memory)
 * @param b B, k x n, row-major (device memory)
 * @param c C, m x n, row-major (device memory; written, never read)
 * @param m rows of A and C
 * @param n columns of B and C
 * @param k columns of A, rows of B
 */
__global__ void padded_matmul_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                     float* __restrict__ c, int m, int n, int k);

/**
 * @brief Launches padded_transpose_kernel over the whole matrix and checks the launch.
 * @param d_in       device pointer to rows x cols floats
 * @param d_out      device pointer to cols x rows floats
 * @param rows       rows of the input (columns of the output), > 0
 * @param cols       columns of the input (rows of the output), > 0
 * @param block_rows rows of threads per block: 1, 2, 4, 8, 16 or 32 (a divisor of kTile)
 * @param stream     stream to launch on (default: the legacy default stream); not synchronized
 * @throws std::invalid_argument for non-positive sizes, a bad block_rows, or more tile rows
 *         than gridDim.y allows
 */
void padded_transpose(const float* d_in, float* d_out, int rows, int cols,
                      int block_rows = kTransposeBlockRows, cudaStream_t stream = nullptr);

/**
 * @brief Launches padded_matmul_kernel (C = A * B) and checks the launch.
 * @throws std::invalid_argument for non-positive sizes or more tile rows than gridDim.y allows
 */
void padded_matmul(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                   cudaStream_t stream = nullptr);

}  // namespace lab06
