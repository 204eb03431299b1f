// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file vectorized.cuh
 * @brief Lab 11 interface: 128-bit (float4) global and shared-memory accesses — the alignment
 *        predicate of a pitched row, a pitched float4 copy with a scalar head and tail, and a
 *        tile stage that moves float4 through shared memory laid out by lab 07's interleave.
 *
 * Contract: pitches are in bytes (as cudaMallocPitch returns them); matrices are rows x width
 * floats, row r starting at byte r * pitch of the base pointer, which may sit at any multiple
 * of 4 bytes (a base offset of 1-3 floats past a 16-byte boundary is legal). Launchers take
 * device pointers and a stream, enqueue only on that stream and do not synchronize.
 * Background and grading: labs/lab11_vectorized/README.md.
 */
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "cudalab/launch_checks.hpp"
#include "tile_kernels.cuh"

namespace lab11 {

/// Bytes of one float4: the width of a 128-bit access and the alignment it needs.
inline constexpr int kVecBytes = 16;
/// Floats in one float4.
inline constexpr int kVecFloats = 4;
/// Edge of the square tile of the tile stage, in floats (lab 06's tile).
inline constexpr int kTile = smem_tiles::kTile;
/// float4 slots in one tile row.
inline constexpr int kVec4PerRow = kTile / kVecFloats;
/// float4 slots in one tile.
inline constexpr int kTileVec4s = kTile * kVec4PerRow;
static_assert(kTileVec4s == smem_tiles::kTileVec4s, "the given float4 layouts size this tile");

/**
 * @name Alignment (student, alignment.cu; host functions: vec4_copy() asks them once per call
 * and hands the kernel the head they give)
 * @{
 */
/**
 * @brief Floats of a row before its first 16-byte boundary: the scalar head that comes before
 *        the float4 body, never more than the row has.
 * @param row_address byte address of the row's first float (a multiple of 4)
 * @param width       floats in the row (>= 0)
 * @return min(width, floats from @p row_address up to the next multiple of 16), 0 .. 3
 */
int head_floats(std::uintptr_t row_address, int width);

/**
 * @brief The alignment predicate: true when one float4 plan serves every row of a pitched
 *        copy, i.e. every row of @p src and of @p dst starts at a multiple of 4 bytes, the
 *        two rows of every row index have the same head (the same address modulo 16), and
 *        every row has the head of row 0 (both pitches keep the 16-byte phase).
 * @param src        byte address of the source's first row
 * @param src_pitch  bytes between the starts of two source rows
 * @param dst        byte address of the destination's first row
 * @param dst_pitch  bytes between the starts of two destination rows
 */
bool can_vectorize(std::uintptr_t src, std::size_t src_pitch, std::uintptr_t dst,
                   std::size_t dst_pitch);
/** @} */

/// A launch configuration of the copy kernels; 0 in a grid field: enough blocks to give
/// every float4 (x) and every row (y, capped at 65535) its own thread. The kernels stride
/// over rows and columns, so any grid is correct.
struct CopyLaunch {
  int block = 256;  ///< threads per block (1-dimensional), 32 .. 1024, a multiple of 32
  int grid_x = 0;   ///< blocks along a row
  int grid_y = 0;   ///< blocks along the rows
};

/**
 * @brief dst = src for a rows x width matrix of floats: 16-byte loads and stores for the body
 *        of every row, scalar accesses for its head and tail (student kernel, vec4_copy.cu);
 *        all scalar when can_vectorize() is false (the head is then the whole row).
 * @param d_src      device source, row r at byte r * src_pitch (a multiple of 4 bytes)
 * @param src_pitch  bytes between source rows (>= 4 * width, a multiple of 4)
 * @param d_dst      device destination, row r at byte r * dst_pitch
 * @param dst_pitch  bytes between destination rows (>= 4 * width, a multiple of 4)
 * @param width      floats per row (> 0)
 * @param rows       rows (> 0)
 * @param launch     block and grid; see CopyLaunch
 * @param stream     stream the kernel is enqueued on
 * @throws std::invalid_argument for non-positive sizes, a pitch below the row or not a
 *         multiple of 4, a misaligned base pointer or a bad block size
 */
void vec4_copy(const float* d_src, std::size_t src_pitch, float* d_dst, std::size_t dst_pitch,
               int width, int rows, CopyLaunch launch = {}, cudaStream_t stream = nullptr);

/**
 * @brief The argument checks of the copies and their grid (given, scalar_copy.cu): throws
 *        std::invalid_argument naming @p who as vec4_copy() documents, else returns the grid
 *        of @p launch, its zero fields filled for @p units_per_row threads per row.
 */
dim3 copy_grid(const float* d_src, std::size_t src_pitch, const float* d_dst, std::size_t dst_pitch,
               int width, int rows, int units_per_row, const CopyLaunch& launch, const char* who);

/// The same copy, one float per thread and access (given baseline, scalar_copy.cu).
/// @throws std::invalid_argument as vec4_copy()
void scalar_copy(const float* d_src, std::size_t src_pitch, float* d_dst, std::size_t dst_pitch,
                 int width, int rows, CopyLaunch launch = {}, cudaStream_t stream = nullptr);

/**
 * @name float4 tile layouts
 * A float4 layout of a kTile x kTile float tile has `kVec4s` float4 slots and
 * `index(row, vec)`, the slot of float4 @p vec (floats 4 vec .. 4 vec + 3) of tile row @p row.
 * @{
 */
/// Lab 07's interleave: float4 v of row r at slot v ^ (r % 8) of its row, so the 8 lanes of
/// a phase that read one float4 column of 8 consecutive rows meet 8 different slots.
struct InterleavedVec4 {
  static constexpr int kVec4s = kTileVec4s;
  __host__ __device__ static constexpr int index(int row, int vec) {
    return row * kVec4PerRow + (vec ^ (row & (kVec4PerRow - 1)));
  }
};
/// Given (labs/common/smem_tiles): row after row, another valid layout, and a broken probe.
using smem_tiles::MirroredVec4;
using smem_tiles::PlainVec4;
using smem_tiles::ProbeVec4;
/** @} */

/**
 * @brief out (cols x rows) = in (rows x cols)^T for pitched matrices of any shape, through a
 *        tile stage of float4 (student kernel, vec4_tile_transpose.cu): 16-byte global loads of
 *        tile rows (the ragged last float4 of a row loaded as scalars), 16-byte shared stores
 *        and 16-byte shared loads down the tile's columns through @p Vec4Layout. Blocks of
 *        kTile x kVec4PerRow threads, one kTile x kTile tile each.
 * Instantiated for InterleavedVec4, PlainVec4, MirroredVec4 and ProbeVec4.
 * @param d_in      device input, rows x cols; 16-byte aligned
 * @param in_pitch  bytes between input rows: >= 4 * cols and a multiple of 16
 * @param d_out     device output, cols x rows
 * @param out_pitch bytes between output rows: >= 4 * rows and a multiple of 4
 * @param rows      rows of the input (> 0)
 * @param cols      columns of the input (> 0)
 * @param stream    stream the kernel is enqueued on
 * @throws std::invalid_argument for non-positive sizes, a misaligned input or input pitch, a
 *         pitch below its row, or more tile rows than gridDim.y allows
 */
template <typename Vec4Layout>
void vec4_tile_transpose(const float* d_in, std::size_t in_pitch, float* d_out,
                         std::size_t out_pitch, int rows, int cols, cudaStream_t stream = nullptr);

extern template void vec4_tile_transpose<InterleavedVec4>(const float*, std::size_t, float*,
                                                          std::size_t, int, int, cudaStream_t);
extern template void vec4_tile_transpose<PlainVec4>(const float*, std::size_t, float*, std::size_t,
                                                    int, int, cudaStream_t);
extern template void vec4_tile_transpose<MirroredVec4>(const float*, std::size_t, float*,
                                                       std::size_t, int, int, cudaStream_t);
extern template void vec4_tile_transpose<ProbeVec4>(const float*, std::size_t, float*, std::size_t,
                                                    int, int, cudaStream_t);

/**
 * @brief out (cols x rows) = in (rows x cols)^T, both unpitched: the given tile transpose of
 *        labs/common/smem_tiles with lab 06's padded [32][33] tile, 4-byte accesses everywhere
 *        (given baseline, padded_transpose.cu; blocks of kTile x 8).
 * @throws std::invalid_argument for non-positive sizes or a grid too tall for gridDim.y
 */
void padded_transpose(const float* d_in, float* d_out, int rows, int cols,
                      cudaStream_t stream = nullptr);

/**
 * @name The kernels the launchers above launch (each `__global__` function is private to its
 * file): what the graders use for provenance, attributes and SASS lookups.
 * @{
 */
/// vec4_copy()'s kernel; its block and grid come from each call's CopyLaunch (block 0 x 0).
cudalab::KernelInfo vec4_copy_kernel();
/// scalar_copy()'s kernel; its block and grid come from each call's CopyLaunch (block 0 x 0).
cudalab::KernelInfo scalar_copy_kernel();
/// vec4_tile_transpose<Vec4Layout>()'s kernel, the `vec4_tile_transpose_kernel` instance of
/// that layout (blocks of kTile x kVec4PerRow, a static float4 tile); one per layout above.
template <typename Vec4Layout>
cudalab::KernelInfo vec4_tile_transpose_kernel();
extern template cudalab::KernelInfo vec4_tile_transpose_kernel<InterleavedVec4>();
extern template cudalab::KernelInfo vec4_tile_transpose_kernel<PlainVec4>();
extern template cudalab::KernelInfo vec4_tile_transpose_kernel<MirroredVec4>();
extern template cudalab::KernelInfo vec4_tile_transpose_kernel<ProbeVec4>();
/// padded_transpose()'s kernel, the given `tile_transpose_kernel` of labs/common/smem_tiles
/// with lab 06's padded tile (blocks of kTile x 8).
cudalab::KernelInfo padded_transpose_kernel();
/** @} */

// ---------------------------------------------------------------------------
// The techniques of the lab, one table per operation (the demo's rows): the copies (4-byte
// against 16-byte accesses) and the transposes (lab 06's padded tile against the float4 tile
// stage with the plain and the interleaved layout). The two operations do not share a
// launcher, so they do not share a table.
// ---------------------------------------------------------------------------

/// A copy launcher: scalar_copy() or vec4_copy().
using CopyLauncher = void (*)(const float* d_src, std::size_t src_pitch, float* d_dst,
                              std::size_t dst_pitch, int width, int rows, CopyLaunch launch,
                              cudaStream_t stream);

/// One copy technique: its name, its row in the demo, its launcher and its kernel.
struct CopyTechnique {
  const char* name;                 ///< its name in messages, e.g. "vec4_copy"
  const char* title;                ///< its row in the demo's table
  CopyLauncher launcher;            ///< takes any copy vec4_copy() documents
  cudalab::KernelInfo (*kernel)();  ///< the kernel its launcher runs
  /// The copies (source and destination addresses and pitches in bytes) whose rows move as
  /// float4 (can_vectorize()); null where every row moves as scalars.
  bool (*vector_path)(std::uintptr_t src, std::size_t src_pitch, std::uintptr_t dst,
                      std::size_t dst_pitch);
};

/// The copies: the given scalar baseline, then the float4 copy.
inline constexpr CopyTechnique kCopyTechniques[] = {
    {"scalar_copy", "scalar copy", scalar_copy, scalar_copy_kernel, nullptr},
    {"vec4_copy", "float4 copy", vec4_copy, vec4_copy_kernel, can_vectorize},
};

/// A transpose launcher of pitched matrices: out (cols x rows) = in (rows x cols)^T, rows
/// @p in_pitch and @p out_pitch bytes apart.
using TransposeLauncher = void (*)(const float* d_in, std::size_t in_pitch, float* d_out,
                                   std::size_t out_pitch, int rows, int cols, cudaStream_t stream);

/// The problems padded_transpose() takes: rows without padding (@p in_pitch 4 @p cols bytes,
/// @p out_pitch 4 @p rows bytes).
inline bool unpadded_rows(std::uintptr_t /*d_in*/, std::size_t in_pitch, std::size_t out_pitch,
                          int rows, int cols) {
  return in_pitch == std::size_t(cols) * sizeof(float) &&
         out_pitch == std::size_t(rows) * sizeof(float);
}
/// The problems vec4_tile_transpose() takes: an input and an input pitch on 16-byte boundaries.
inline bool float4_input_rows(std::uintptr_t d_in, std::size_t in_pitch, std::size_t /*out_pitch*/,
                              int /*rows*/, int /*cols*/) {
  return d_in % kVecBytes == 0 && in_pitch % kVecBytes == 0;
}

/// One transpose technique: its name, its row in the demo, its launcher, its kernel and the
/// problems it takes.
struct TransposeTechnique {
  const char* name;                 ///< its name in messages, e.g. "vec4_interleaved"
  const char* title;                ///< its row in the demo's table
  TransposeLauncher launcher;       ///< takes the problems of takes()
  cudalab::KernelInfo (*kernel)();  ///< the kernel its launcher runs
  /// The problems (input address, pitches in bytes, rows and columns of the input) its
  /// launcher takes, besides pitches that hold their rows and a grid that fits.
  bool (*takes)(std::uintptr_t d_in, std::size_t in_pitch, std::size_t out_pitch, int rows,
                int cols);
};

/// The transposes: the given padded baseline (unpitched: its launcher here takes rows without
/// padding only), then the float4 tile stage with the plain and the interleaved layout.
inline constexpr TransposeTechnique kTransposeTechniques[] = {
    {"padded", "transpose, padded [32][33]",
     [](const float* d_in, std::size_t in_pitch, float* d_out, std::size_t out_pitch, int rows,
        int cols, cudaStream_t stream) {
       if (!unpadded_rows(0, in_pitch, out_pitch, rows, cols)) {
         throw std::invalid_argument(
             "padded_transpose: rows without padding only (pitches of 4 "
             "cols and 4 rows bytes)");
       }
       padded_transpose(d_in, d_out, rows, cols, stream);
     },
     padded_transpose_kernel, unpadded_rows},
    {"vec4_plain", "transpose, float4 plain", vec4_tile_transpose<PlainVec4>,
     vec4_tile_transpose_kernel<PlainVec4>, float4_input_rows},
    {"vec4_interleaved", "transpose, float4 interleaved", vec4_tile_transpose<InterleavedVec4>,
     vec4_tile_transpose_kernel<InterleavedVec4>, float4_input_rows},
};

}  // namespace lab11
