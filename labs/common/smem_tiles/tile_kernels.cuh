// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file tile_kernels.cuh
 * @brief Given to labs 06 and 07: the shared-memory tiled transpose and the column-access
 *        tiled matmul, written once and templated on the layout of their 32 x 32 tile.
 *
 * A tile layout is a type with
 *   - `static constexpr int kWords`: floats the tile occupies (its `__shared__` array size);
 *   - `__host__ __device__ static int offset(int row, int col)`: the word of element
 *     (row, col), 0 <= row, col < kTile, every element in its own word below kWords.
 * PlainLayout (row after row, pitch 32) makes the conflicting baselines; lab 06 runs the
 * matmul with its padded layout (its transpose, in place through tile pairs, is the student's
 * own kernel), lab 07 both kernels with a swizzled one. The kernels touch their tiles only through
 * Layout::offset(), so the layout a grader checks is the one the kernel runs.
 * See labs/lab06_padding/README.md for the access patterns.
 *
 * Unlike a lab's own kernels, the two kernels are public: they are the interface these labs
 * teach through (a lab hands them its layout type), and a template is instantiated where the
 * layout is. Each instance is a different kernel; its KernelInfo (tile_transpose_info(),
 * tile_matmul_info()) is named after the layout type, the identifier that tells the
 * instances apart in a captured graph.
 */
#pragma once

#include <cuda_runtime.h>

#include "cudalab/check.cuh"
#include "cudalab/launch_checks.hpp"

namespace smem_tiles {

/// Edge of the square tile, in floats: one warp wide (32 lanes walk one column).
inline constexpr int kTile = 32;
/// Default rows of threads of a transpose block; each thread moves kTile / rows elements.
inline constexpr int kTransposeBlockRows = 8;
static_assert(kTile % kTransposeBlockRows == 0,
              "a transpose block walks the tile in steps of its row count: it must divide kTile");

/// The unpadded, unswizzled tile: element (row, col) at word row * kTile + col, so a column
/// is one bank (a 32-way conflict when a warp reads it).
struct PlainLayout {
  static constexpr int kWords = kTile * kTile;
  __host__ __device__ static constexpr int offset(int row, int col) { return row * kTile + col; }
};

/// float4 slots in one tile row, and in one tile.
inline constexpr int kVec4PerRow = kTile / 4;
inline constexpr int kTileVec4s = kTile * kVec4PerRow;

/**
 * @name Given float4 tile layouts (labs 07 and 11)
 * A float4 layout of a kTile x kTile float tile has `kVec4s` float4 slots and
 * `index(row, vec)`, the slot of float4 @p vec (floats 4 vec .. 4 vec + 3) of tile row @p row.
 * The labs add their interleaved layout.
 * @{
 */
/// Row after row, float4 v of row r at slot r * 8 + v (8-way conflicts down a column).
struct PlainVec4 {
  static constexpr int kVec4s = kTileVec4s;
  __host__ __device__ static constexpr int index(int row, int vec) {
    return row * kVec4PerRow + vec;
  }
};
/// Another valid layout (rows and slots in reverse order), which graders use to check that a
/// kernel stores and loads through the layout it is given.
struct MirroredVec4 {
  static constexpr int kVec4s = kTileVec4s;
  __host__ __device__ static constexpr int index(int row, int vec) {
    return (kTile - 1 - row) * kVec4PerRow + (kVec4PerRow - 1 - vec);
  }
};
/// A deliberately broken layout (float4 pairs share a slot): a kernel that addresses its tile
/// through its layout gets a wrong transpose with it, and graders check that it does.
struct ProbeVec4 {
  static constexpr int kVec4s = kTileVec4s;
  __host__ __device__ static constexpr int index(int row, int vec) {
    return row * kVec4PerRow + (vec & ~1);
  }
};
/** @} */

/**
 * @brief The smallest grid of kTile x kTile tiles over a rows x cols matrix (x: tile
 *        columns, y: tile rows): cudalab::tile_grid() with this library's tile.
 * @throws std::invalid_argument naming @p who for rows or cols <= 0, or more tile rows than
 *         gridDim.y allows (65535)
 */
inline dim3 tile_grid(int rows, int cols, const char* who) {
  return cudalab::tile_grid(rows, cols, kTile, kTile, who);
}

/// Throws std::invalid_argument naming @p who unless @p block_rows divides kTile.
void check_block_rows(int block_rows, const char* who);

/**
 * @brief out (cols x rows) = in (rows x cols)^T: a block reads input rows into tile rows
 *        (coalesced), synchronises, and writes output rows from tile columns.
 * Launch: tile_grid(rows, cols), block (kTile, r) with r dividing kTile.
 */
template <typename Layout>
__global__ void tile_transpose_kernel(const float* __restrict__ in, float* __restrict__ out,
                                      int rows, int cols) {
  __shared__ float tile[Layout::kWords];     // (r, c) at Layout::offset(r, c)
  const int tile_row0 = blockIdx.y * kTile;  // first input row of this block's tile
  const int tile_col0 = blockIdx.x * kTile;  // first input column of this block's tile
  const int lane = threadIdx.x;
  for (int r = threadIdx.y; r < kTile; r += blockDim.y) {
    const int row = tile_row0 + r;
    const int col = tile_col0 + lane;
    if (row < rows && col < cols) {
      tile[Layout::offset(r, lane)] = in[static_cast<size_t>(row) * cols + col];  // a tile row
    }
  }
  __syncthreads();  // every warp's row must land before any warp reads a column
  for (int r = threadIdx.y; r < kTile; r += blockDim.y) {
    const int out_row = tile_col0 + r;     // output row = input column
    const int out_col = tile_row0 + lane;  // output column = input row
    if (out_row < cols && out_col < rows) {
      out[static_cast<size_t>(out_row) * rows + out_col] = tile[Layout::offset(lane, r)];  // column
    }
  }
}

/**
 * @brief C (m x n) = A (m x k) * B (k x n), one kTile x kTile tile of C per block, the lanes
 *        of a warp walking the rows of C: the inner loop reads the A tile down a column
 *        (through Layout) and the B tile by broadcast.
 * Launch: tile_grid(m, n), block (kTile, kTile).
 */
template <typename Layout>
__global__ void tile_matmul_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                   float* __restrict__ c, int m, int n, int k) {
  __shared__ float a_tile[Layout::kWords];  // A[row0 + r][k0 + kk] at Layout::offset(r, kk)
  __shared__ float b_tile[kTile][kTile];    // B[k0 + kk][col0 + j] at b_tile[kk][j]
  const int tx = threadIdx.x;               // lane: walks the rows of C
  const int ty = threadIdx.y;               // warp: one column of C
  const int row0 = blockIdx.y * kTile;      // first row of this block's C tile
  const int col0 = blockIdx.x * kTile;      // first column of this block's C tile
  float acc = 0.0f;
  for (int k0 = 0; k0 < k; k0 += kTile) {
    const int a_row = row0 + ty;
    const int a_col = k0 + tx;
    a_tile[Layout::offset(ty, tx)] =
        (a_row < m && a_col < k) ? a[static_cast<size_t>(a_row) * k + a_col] : 0.0f;
    const int b_row = k0 + ty;
    const int b_col = col0 + tx;
    b_tile[ty][tx] = (b_row < k && b_col < n) ? b[static_cast<size_t>(b_row) * n + b_col] : 0.0f;
    __syncthreads();  // the slab is complete
    // Unrolled by 8, not 32: a full unroll hoists 32 addresses into registers (a swizzle's
    // cannot fold into immediates), which halves the blocks per SM.
#pragma unroll 8
    for (int kk = 0; kk < kTile; ++kk) {
      acc += a_tile[Layout::offset(tx, kk)] * b_tile[kk][ty];  // A column x broadcast B word
    }
    __syncthreads();  // everyone is done before the next slab overwrites the tiles
  }
  const int row = row0 + tx;
  const int col = col0 + ty;
  if (row < m && col < n) c[static_cast<size_t>(row) * n + col] = acc;
}

/// The identifiers of the two kernels (unqualified, as ncu and a captured graph name them).
inline constexpr const char* kTileTransposeKernelName = "tile_transpose_kernel";
inline constexpr const char* kTileMatmulKernelName = "tile_matmul_kernel";

/**
 * @brief tile_transpose_kernel<Layout> as launch_tile_transpose launches it by default
 *        (blocks of kTile x kTransposeBlockRows, no dynamic shared memory), named @p layout:
 *        the identifier of the Layout type, which this instance's (mangled) name carries and
 *        the other layouts' instances lack.
 */
template <typename Layout>
cudalab::KernelInfo tile_transpose_info(const char* layout) {
  return {reinterpret_cast<const void*>(tile_transpose_kernel<Layout>), layout,
          dim3(kTile, kTransposeBlockRows), 0};
}

/// tile_matmul_kernel<Layout> as launch_tile_matmul launches it (blocks of kTile x kTile),
/// named @p layout as in tile_transpose_info().
template <typename Layout>
cudalab::KernelInfo tile_matmul_info(const char* layout) {
  return {reinterpret_cast<const void*>(tile_matmul_kernel<Layout>), layout, dim3(kTile, kTile), 0};
}

/// Launches tile_transpose_kernel<Layout> (blocks of kTile x block_rows) and checks the launch.
template <typename Layout>
void launch_tile_transpose(const float* d_in, float* d_out, int rows, int cols, int block_rows,
                           cudaStream_t stream, const char* who) {
  check_block_rows(block_rows, who);
  const dim3 grid = tile_grid(rows, cols, who);
  tile_transpose_kernel<Layout>
      <<<grid, dim3(kTile, block_rows), 0, stream>>>(d_in, d_out, rows, cols);
  CUDA_CHECK_LAST_LAUNCH();
}

/// Launches tile_matmul_kernel<Layout> (blocks of kTile x kTile) and checks the launch.
template <typename Layout>
void launch_tile_matmul(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                        cudaStream_t stream, const char* who) {
  if (k <= 0) tile_grid(k, 1, who);  // throws: sizes must be positive
  const dim3 grid = tile_grid(m, n, who);
  tile_matmul_kernel<Layout><<<grid, dim3(kTile, kTile), 0, stream>>>(d_a, d_b, d_c, m, n, k);
  CUDA_CHECK_LAST_LAUNCH();
}

}  // namespace smem_tiles
