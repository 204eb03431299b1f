/**
 * @file conflicting_tile.cuh
 * @brief Given baselines of labs 06 and 07: shared-memory kernels whose warps read an
 *        unpadded 32 x 32 tile down a column, so every such read is a 32-way bank conflict.
 *
 * In a `float tile[32][32]` the 32 words of a column are 32 words (128 bytes) apart, so
 * they all sit in the same bank: bank = (word index) % 32 = (row * 32 + col) % 32 = col.
 * A warp whose lanes walk a column therefore queues 32 requests on one bank. These
 * kernels are correct for every shape; they are only slow, which is what the padded
 * (lab 06) and swizzled (lab 07) kernels are measured against.
 *
 * The launchers of both labs share tile_grid() from here.
 */
#pragma once

#include <cuda_runtime.h>

namespace smem_tiles {

/// Edge of the square tile, in floats: one warp wide (32 lanes walk one column).
inline constexpr int kTile = 32;
/// Rows of threads of a transpose block; each thread moves kTile / kTransposeBlockRows elements.
inline constexpr int kTransposeBlockRows = 8;
static_assert(kTile % kTransposeBlockRows == 0,
              "a transpose block walks the tile in steps of its row count: it must divide kTile");

/**
 * @brief The smallest grid of kTile x kTile tiles over a rows x cols matrix: x walks tile
 *        columns, y tile rows.
 * @param rows rows of the matrix (tile rows = ceil(rows / kTile) go to grid.y)
 * @param cols columns of the matrix (tile columns = ceil(cols / kTile) go to grid.x)
 * @param who  names the caller in the error message
 * @throws std::invalid_argument for rows or cols <= 0, or more tile rows than gridDim.y
 *         allows (65535)
 */
dim3 tile_grid(int rows, int cols, const char* who);

/**
 * @brief out = in^T through an unpadded shared tile (reads down a tile column: 32-way).
 *
 * Launch: grid (ceil(cols / kTile), ceil(rows / kTile)), block (kTile, kTransposeBlockRows).
 * @param in   input matrix, rows x cols, row-major (device memory)
 * @param out  output matrix, cols x rows, row-major (device memory)
 * @param rows rows of @p in (columns of @p out)
 * @param cols columns of @p in (rows of @p out)
 */
__global__ void conflicting_transpose_kernel(const float* __restrict__ in, float* __restrict__ out,
                                             int rows, int cols);

/**
 * @brief C = A * B with the lanes of a warp walking the rows of C, so the inner loop reads
 *        the unpadded A tile down a column (32-way conflict) and the B tile by broadcast.
 *
 * Launch: grid (ceil(n / kTile), ceil(m / kTile)), block (kTile, kTile).
 * @param a A, m x k, row-major (device memory)
 * @param b B, k x n, row-major (device memory)
 * @param c C, m x n, row-major (device memory; written, never read)
 * @param m rows of A and C
 * @param n columns of B and C
 * @param k columns of A, rows of B
 */
__global__ void conflicting_matmul_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                          float* __restrict__ c, int m, int n, int k);

/**
 * @brief Launches conflicting_transpose_kernel and checks the launch.
 * @param d_in  device pointer to rows x cols floats
 * @param d_out device pointer to cols x rows floats
 * @param rows  rows of the input (columns of the output), > 0
 * @param cols  columns of the input (rows of the output), > 0
 * @param stream stream to launch on (default: the legacy default stream); not synchronized
 * @throws std::invalid_argument for rows or cols <= 0 or a grid too tall for gridDim.y
 */
void conflicting_transpose(const float* d_in, float* d_out, int rows, int cols,
                           cudaStream_t stream = nullptr);

/**
 * @brief Launches conflicting_matmul_kernel (C = A * B) and checks the launch.
 * @throws std::invalid_argument for m, n or k <= 0 or a grid too tall for gridDim.y
 */
void conflicting_matmul(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                        cudaStream_t stream = nullptr);

}  // namespace smem_tiles
