// SPDX-License-Identifier: BSD-3-Clause
// Lab 11, the tile stage in float4: a transpose of pitched matrices of any shape whose input
// side moves 16 bytes per lane — from global memory into the tile (LDG.128, STS.128) and
// down the tile's columns (LDS.128). A float4 shared access is served in four phases of 8
// lanes; a phase that reads one float4 column of 8 rows meets 8 different slots only when the
// layout interleaves them (lab 07), else it is an 8-way conflict. Rows are 16-byte aligned
// (pitch a multiple of 16), so a row's float4 are whole except the last one when cols % 4 != 0:
// that one is loaded float by float (the scalar tail).
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cudalab/check.cuh"
#include "vectorized.cuh"

namespace lab11 {

static_assert(kTile % kVecFloats == 0, "a tile row must hold whole float4 vectors");

namespace {

/// Threads of a block: kTile x kBlockRows, one per float4 of the tile.
constexpr int kBlockRows = kTileVec4s / kTile;

template <typename Vec4Layout>
__global__ void vec4_tile_transpose_kernel(const float* __restrict__ in, std::size_t in_pitch,
                                           float* __restrict__ out, std::size_t out_pitch, int rows,
                                           int cols) {
  // TODO(lab11): move this block's kTile x kTile tile of `in` to `out` through
  // `__shared__ float4 tile[Vec4Layout::kVec4s]`, addressed only through
  // Vec4Layout::index(row, vec) (roughly 38 lines): load the tile with 16-byte loads (the
  // ragged last float4 of a row float by float, its missing floats 0), let the whole block
  // finish, then read the tile down its columns with 16-byte shared loads and write `out`
  // with 4-byte stores. Touch only elements that exist.
  // HINT: the block has kTile x 8 threads, one per float4 of the tile. Loading, which float4
  // HINT: of which tile row should thread t take so that a warp reads whole 128-byte rows?
  // HINT: Storing, which tile row and which float4 should lane x of warp y read so that the
  // HINT: warp's stores fill consecutive floats of an output row (handout, "Why the transpose
  // HINT: gains")?
  // HINT: rows start at byte row * pitch (char*, size_t, cast back). Count the floats left in
  // HINT: the row from the float4's first column: >= 4 is a whole float4.
  cudalab::unused(in, in_pitch, out, out_pitch, rows, cols);
  // END TODO(lab11)
}

}  // namespace

template <typename Vec4Layout>
void vec4_tile_transpose(const float* d_in, std::size_t in_pitch, float* d_out,
                         std::size_t out_pitch, int rows, int cols, cudaStream_t stream) {
  const std::string who = "vec4_tile_transpose";
  const dim3 grid = cudalab::tile_grid(rows, cols, kTile, kTile, who.c_str());
  if (reinterpret_cast<std::uintptr_t>(d_in) % kVecBytes != 0 || in_pitch % kVecBytes != 0) {
    throw std::invalid_argument(who + ": float4 loads need a 16-byte aligned input and an input " +
                                "pitch that is a multiple of 16, got " + std::to_string(in_pitch));
  }
  if (in_pitch < std::size_t(cols) * sizeof(float) ||
      out_pitch < std::size_t(rows) * sizeof(float) || out_pitch % sizeof(float) != 0) {
    throw std::invalid_argument(who + ": a pitch is shorter than its row or not a multiple of 4");
  }
  vec4_tile_transpose_kernel<Vec4Layout>
      <<<grid, dim3(kTile, kBlockRows), 0, stream>>>(d_in, in_pitch, d_out, out_pitch, rows, cols);
  CUDA_CHECK_LAST_LAUNCH();
}

template void vec4_tile_transpose<InterleavedVec4>(const float*, std::size_t, float*, std::size_t,
                                                   int, int, cudaStream_t);
template void vec4_tile_transpose<PlainVec4>(const float*, std::size_t, float*, std::size_t, int,
                                             int, cudaStream_t);
template void vec4_tile_transpose<MirroredVec4>(const float*, std::size_t, float*, std::size_t, int,
                                                int, cudaStream_t);
template void vec4_tile_transpose<ProbeVec4>(const float*, std::size_t, float*, std::size_t, int,
                                             int, cudaStream_t);

template <typename Vec4Layout>
cudalab::KernelInfo vec4_tile_transpose_kernel() {
  // The private kernel template of the same name, this layout's instance (the typed pointer
  // picks it).
  void (*kernel)(const float*, std::size_t, float*, std::size_t, int, int) =
      vec4_tile_transpose_kernel<Vec4Layout>;
  return {reinterpret_cast<const void*>(kernel), "vec4_tile_transpose_kernel",
          dim3(kTile, kBlockRows), 0};
}

template cudalab::KernelInfo vec4_tile_transpose_kernel<InterleavedVec4>();
template cudalab::KernelInfo vec4_tile_transpose_kernel<PlainVec4>();
template cudalab::KernelInfo vec4_tile_transpose_kernel<MirroredVec4>();
template cudalab::KernelInfo vec4_tile_transpose_kernel<ProbeVec4>();

}  // namespace lab11
