// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file swizzle.cuh
 * @brief Lab 07 interface: the XOR swizzle of a 32 x 32 tile (conflict-free columns without
 *        spending memory) and the float4 interleave, used in a float4 tile transpose, and the
 *        table of its float4 layouts (lab07::kTechniques).
 *
 * Contract: swizzled_col() permutes the columns of every row (of a tile of any height) so
 * that 32 consecutive rows store any column in 32 different banks; vec4_slot() does the same
 * for the 8 float4 slots of a row and 8 consecutive rows. The scalar launchers run the given
 * tile kernels (labs/common/smem_tiles/tile_kernels.cuh) with the swizzled layout;
 * vec4_transpose runs the student's float4 kernel with the float4 layout it is given.
 * Launchers take device pointers and a stream and do not synchronize.
 * Background and grading: labs/lab07_swizzle/README.md.
 */
#pragma once

#include <cuda_runtime.h>

#include "cudalab/launch_checks.hpp"
#include "tile_kernels.cuh"

namespace lab07 {

/// Edge of the square tile, in floats (one warp and one row of 32 banks wide).
inline constexpr int kTile = smem_tiles::kTile;
/// Default rows of threads of a transpose block.
inline constexpr int kTransposeBlockRows = smem_tiles::kTransposeBlockRows;
/// Words of one unpadded tile: exactly what a swizzled tile occupies.
inline constexpr int kTileWords = kTile * kTile;
/// float4 slots in one tile row.
inline constexpr int kVec4PerRow = smem_tiles::kVec4PerRow;
/// float4 slots in one tile.
inline constexpr int kTileVec4s = smem_tiles::kTileVec4s;

/// The column of its row at which element (@p row, @p col) is stored (student,
/// swizzled_tile.cu). @pre row >= 0 (tiles may be taller than kTile), 0 <= col < kTile
__host__ __device__ int swizzled_col(int row, int col);

/// The word of (@p row, @p col) in a swizzled tile: row * kTile + swizzled_col(row, col).
__host__ __device__ int swizzled_offset(int row, int col);

/// The float4 slot (0 .. kVec4PerRow - 1) of its row at which float4 @p vec (floats 4 vec ..
/// 4 vec + 3) of row @p row is stored (student, vec4_transpose.cu). @pre row >= 0
__host__ __device__ int vec4_slot(int row, int vec);

/**
 * @name float4 tile layouts
 * A float4 layout of a kTile x kTile float tile has `kVec4s` float4 slots and
 * `index(row, vec)`, the slot of float4 @p vec of row @p row (each float4 its own slot).
 * @{
 */
/// The interleaved layout: slot row * kVec4PerRow + vec4_slot(row, vec).
struct InterleavedVec4 {
  static constexpr int kVec4s = kTileVec4s;
  __host__ __device__ static int index(int row, int vec) {
    return row * kVec4PerRow + vec4_slot(row, vec);
  }
};
/// Given (labs/common/smem_tiles): row after row, another valid layout, and a broken probe.
using smem_tiles::MirroredVec4;
using smem_tiles::PlainVec4;
using smem_tiles::ProbeVec4;
/** @} */

/**
 * @brief out (cols x rows) = in (rows x cols)^T through a swizzled, unpadded tile.
 * @param d_in       device input, rows x cols, row-major
 * @param d_out      device output, cols x rows, row-major
 * @param rows       rows of the input (> 0)
 * @param cols       columns of the input (> 0)
 * @param block_rows rows of threads per block: a divisor of kTile
 * @param stream     stream the kernel is enqueued on
 * @throws std::invalid_argument for non-positive sizes, a bad block_rows, or more tile rows
 *         than gridDim.y allows
 */
void swizzled_transpose(const float* d_in, float* d_out, int rows, int cols,
                        int block_rows = kTransposeBlockRows, cudaStream_t stream = nullptr);

/// C (m x n) = A (m x k) * B (k x n), the A tile swizzled. @throws std::invalid_argument
void swizzled_matmul(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                     cudaStream_t stream = nullptr);

/**
 * @brief out (cols x rows) = in (rows x cols)^T, a tile stage of float4: 16-byte global loads
 *        and shared stores of tile rows, 16-byte shared loads down the tile's columns, through
 *        the float4 layout @p Vec4Layout. Blocks of kTile x kTile / 4 threads.
 * Instantiated for InterleavedVec4, PlainVec4, MirroredVec4 and ProbeVec4.
 * @pre @p d_in is 16-byte aligned and cols % 4 == 0 (rows any)
 * @throws std::invalid_argument for non-positive sizes, cols % 4 != 0, a misaligned @p d_in,
 *         or more tile rows than gridDim.y allows
 */
template <typename Vec4Layout>
void vec4_transpose(const float* d_in, float* d_out, int rows, int cols,
                    cudaStream_t stream = nullptr);

extern template void vec4_transpose<InterleavedVec4>(const float*, float*, int, int, cudaStream_t);
extern template void vec4_transpose<PlainVec4>(const float*, float*, int, int, cudaStream_t);
extern template void vec4_transpose<MirroredVec4>(const float*, float*, int, int, cudaStream_t);
extern template void vec4_transpose<ProbeVec4>(const float*, float*, int, int, cudaStream_t);

/// The kernels the scalar launchers launch: the given tile kernels with the swizzled layout,
/// both named "SwizzledLayout" (smem_tiles::tile_transpose_info()): provenance, attributes.
cudalab::KernelInfo swizzled_transpose_kernel();
cudalab::KernelInfo swizzled_matmul_kernel();
/// The kernel vec4_transpose<Vec4Layout> launches: the student's vec4_transpose_kernel with
/// that layout (blocks of kTile x kTile / 4), one instance per layout, all of one name.
/// Instantiated for the four layouts above.
template <typename Vec4Layout>
cudalab::KernelInfo vec4_kernel();

extern template cudalab::KernelInfo vec4_kernel<InterleavedVec4>();
extern template cudalab::KernelInfo vec4_kernel<PlainVec4>();
extern template cudalab::KernelInfo vec4_kernel<MirroredVec4>();
extern template cudalab::KernelInfo vec4_kernel<ProbeVec4>();

// ---------------------------------------------------------------------------
// The float4 tile transposes in one table (the demo's rows): one kernel, two float4 layouts
// ---------------------------------------------------------------------------

/// A launcher of the table: vec4_transpose() with one float4 layout.
using Vec4Launcher = void (*)(const float* d_in, float* d_out, int rows, int cols,
                              cudaStream_t stream);

/// One float4 layout of the float4 transpose's tile: what the demo times. Both take the problems
/// vec4_transpose() takes. The swizzled transpose and matmul are not here (one scalar layout for
/// two kernels, each timed against its conflicting kernel); MirroredVec4 and ProbeVec4 are the
/// grader's probes of the kernel's use of its layout, not ways to lay out the tile.
struct Technique {
  const char* name;       ///< its layout (PlainVec4, InterleavedVec4): "plain", "interleaved"
  const char* title;      ///< its row in the demo's table
  Vec4Launcher launcher;  ///< vec4_transpose() with that layout
  cudalab::KernelInfo (*kernel)();  ///< the kernel its launcher runs: vec4_kernel() of that layout
};

/// The given plain layout (an 8-way conflict down a column), then the interleaved one.
inline constexpr Technique kTechniques[] = {
    {"plain", "float4, plain", vec4_transpose<PlainVec4>, vec4_kernel<PlainVec4>},
    {"interleaved", "float4, interleaved", vec4_transpose<InterleavedVec4>,
     vec4_kernel<InterleavedVec4>},
};

}  // namespace lab07
