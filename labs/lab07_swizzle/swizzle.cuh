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
 * The student writes the swizzle map and the kernels that use it in swizzled_tile.cu, and
 * the float4 interleave (the advanced part) in vec4_interleave.cu.
 *
 * All matrices are row-major floats in device memory.
 */
#pragma once

#include <cuda_runtime.h>

namespace lab07 {

/// Edge of the square tile, in floats: one warp and one row of 32 banks wide.
inline constexpr int kTile = 32;
static_assert(kTile == 32,
              "the bank arithmetic of this lab needs a tile exactly one warp (and "
              "one row of 32 banks) wide");
/// Default rows of threads of a transpose block (each thread moves kTile / rows elements).
inline constexpr int kTransposeBlockRows = 8;
/// Words of one unpadded tile: exactly what a swizzled tile occupies.
inline constexpr int kTileWords = kTile * kTile;
/// float4 vectors in one tile row (the advanced part).
inline constexpr int kVec4PerRow = kTile / 4;

/**
 * @brief The column of its row at which element (@p row, @p col) of a swizzled tile is stored.
 *
 * For every row (of a tile of any height) this permutes 0 .. kTile - 1, and for every column,
 * 32 consecutive rows starting at a multiple of 32 store it in 32 different columns. Written
 * by the student in swizzled_tile.cu, next to the kernels that call it on the device; the
 * grader and the demo call it on the host. (Without separate compilation, device code of
 * other files cannot.)
 * @pre row >= 0 (tiles may be taller than kTile rows), 0 <= col < kTile
 */
__host__ __device__ int swizzled_col(int row, int col);

/// The word of (@p row, @p col) in a swizzled tile: row * kTile + swizzled_col(row, col).
__host__ __device__ int swizzled_offset(int row, int col);

/**
 * @brief Advanced: the float4 slot (0 .. kVec4PerRow - 1) of its row at which vector @p vec
 *        (floats 4 vec .. 4 vec + 3) of tile row @p row is stored; the float4 index in the
 *        tile is row * kVec4PerRow + vec4_slot(row, vec). Written by the student in
 *        vec4_interleave.cu.
 * @pre row >= 0, 0 <= vec < kVec4PerRow
 */
__host__ __device__ int vec4_slot(int row, int vec);

/**
 * @brief out = in^T through a swizzled, unpadded shared tile (kTileWords floats).
 *
 * Launch: grid (ceil(cols / kTile), ceil(rows / kTile)), block (kTile, r) with r dividing kTile.
 * @param in   input matrix, rows x cols, row-major (device memory)
 * @param out  output matrix, cols x rows, row-major (device memory)
 * @param rows rows of @p in (columns of @p out)
 * @param cols columns of @p in (rows of @p out)
 */
__global__ void swizzled_transpose_kernel(const float* __restrict__ in, float* __restrict__ out,
                                          int rows, int cols);

/**
 * @brief C = A * B with the lanes of a warp walking the rows of C; the A tile, read down a
 *        column, is swizzled; static shared memory is two unpadded tiles (A and B).
 *
 * Launch: grid (ceil(n / kTile), ceil(m / kTile)), block (kTile, kTile).
 * @param a A, m x k, row-major (device memory)
 * @param b B, k x n, row-major (device memory)
 * @param c C, m x n, row-major (device memory; written, never read)
 * @param m rows of A and C
 * @param n columns of B and C
 * @param k columns of A, rows of B
 */
__global__ void swizzled_matmul_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                       float* __restrict__ c, int m, int n, int k);

/**
 * @brief Launches swizzled_transpose_kernel over the whole matrix and checks the launch.
 * @param d_in       device pointer to rows x cols floats
 * @param d_out      device pointer to cols x rows floats
 * @param rows       rows of the input (columns of the output), > 0
 * @param cols       columns of the input (rows of the output), > 0
 * @param block_rows rows of threads per block: 1, 2, 4, 8, 16 or 32 (a divisor of kTile)
 * @param stream     stream to launch on (default: the legacy default stream); not synchronized
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
