/**
 * @file swizzle.cuh
 * @brief Lab 07 interface: XOR-swizzled shared-memory tiles, conflict-free without padding,
 *        and the interleave that makes 16-byte (float4) column accesses conflict-free.
 *
 * Padding (lab 06) spends a word per row to shift each row by one bank. A swizzle spends
 * nothing: a tile row keeps its 32 words, but element (row, col) is stored at column
 * col ^ (row % 32) of its row. XOR with a fixed value permutes 0..31, so every row still
 * holds each of its elements exactly once, and down a column the stored positions
 * c ^ 0, c ^ 1, ..., c ^ 31 are 32 different banks.
 *
 * The maps are written by the student in swizzle_layout.cuh and vec4_interleave.cuh
 * (included by the kernels); the *_host() functions below are the same maps compiled into
 * the lab library, so that the grader and the demo can call them.
 *
 * All matrices are row-major floats in device memory.
 */
#pragma once

#include <cuda_runtime.h>

namespace lab07 {

/// Edge of the square tile, in floats: one warp and one row of 32 banks wide.
inline constexpr int kTile = 32;
static_assert(kTile == 32, "the bank arithmetic of this lab needs a tile exactly one warp (and "
                           "one row of 32 banks) wide");
/// Default rows of threads of a transpose block (each thread moves kTile / rows elements).
inline constexpr int kTransposeBlockRows = 8;
/// Words of one unpadded tile: exactly what a swizzled tile occupies.
inline constexpr int kTileWords = kTile * kTile;
/// float4 vectors in one tile row (the advanced part).
inline constexpr int kVec4PerRow = kTile / 4;

/**
 * @brief Host copy of swizzled_col() (swizzle_layout.cuh): the column of its row at which
 *        element (@p row, @p col) is stored.
 * @pre row >= 0 (tiles may be taller than kTile rows), 0 <= col < kTile
 */
int swizzled_col_host(int row, int col);

/// Host copy of swizzled_offset() (swizzle_layout.cuh): the word of (@p row, @p col).
int swizzled_offset_host(int row, int col);

/**
 * @brief Host copy of vec4_slot() (vec4_interleave.cuh): the float4 slot of its row at which
 *        vector @p vec (floats 4 vec .. 4 vec + 3) of tile row @p row is stored.
 * @pre row >= 0, 0 <= vec < kVec4PerRow
 */
int vec4_slot_host(int row, int vec);

/**
 * @brief out = in^T through a swizzled, unpadded shared tile (kTileWords floats).
 * @param in  rows x cols
 * @param out cols x rows
 * Launch: grid (ceil(cols / kTile), ceil(rows / kTile)), block (kTile, r) with r dividing kTile.
 */
__global__ void swizzled_transpose_kernel(const float* __restrict__ in, float* __restrict__ out,
                                          int rows, int cols);

/**
 * @brief C = A * B with the lanes of a warp walking the rows of C; the A tile, read down a
 *        column, is swizzled; static shared memory is two unpadded tiles (A and B).
 * @param a m x k, @param b k x n, @param c m x n
 * Launch: grid (ceil(n / kTile), ceil(m / kTile)), block (kTile, kTile).
 */
__global__ void swizzled_matmul_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                       float* __restrict__ c, int m, int n, int k);

/**
 * @brief Launches swizzled_transpose_kernel over the whole matrix and checks the launch.
 * @param d_in       device pointer to rows x cols floats
 * @param d_out      device pointer to cols x rows floats
 * @param block_rows rows of threads per block: 1, 2, 4, 8, 16 or 32 (a divisor of kTile)
 * @throws std::invalid_argument for non-positive sizes, a bad block_rows, or more tile rows
 *         than gridDim.y allows
 */
void swizzled_transpose(const float* d_in, float* d_out, int rows, int cols,
                        int block_rows = kTransposeBlockRows, cudaStream_t stream = nullptr);

/**
 * @brief Launches swizzled_matmul_kernel (C = A * B) and checks the launch.
 * @throws std::invalid_argument for non-positive sizes or more tile rows than gridDim.y allows
 */
void swizzled_matmul(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                     cudaStream_t stream = nullptr);

}  // namespace lab07
