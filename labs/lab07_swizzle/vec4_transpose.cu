// SPDX-License-Identifier: BSD-3-Clause
// Lab 07, the float4 interleave in a real kernel: a transpose whose tile stage moves 16 bytes
// per lane. A float4 shared access is served in four phases of 8 lanes (128 bytes each), and
// conflicts count inside a phase. Loading the tile row by row is free in any layout (a phase
// covers one row's 8 slots); reading it down a column puts the 8 lanes of a phase on one slot
// of 8 rows, which the interleave must spread over the 8 slots (32 banks) of a row.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "swizzle.cuh"

namespace lab07 {

static_assert(kTile % 4 == 0, "a tile row must hold whole float4 vectors");
static_assert((kVec4PerRow & (kVec4PerRow - 1)) == 0,
              "the XOR of two slot numbers stays inside the row only for a power-of-two count");

__host__ __device__ int vec4_slot(int row, int vec) {
  // TODO(lab07): the slot of float4 vec of row row (roughly 1 line).
  // HINT: list the slots the 8 lanes of one phase read when lane l takes float4 v of row l;
  // the swizzle of swizzled_tile.cu, on units of 16 bytes, spreads them. Over how many slots?
  cudalab::unused(row, vec);
  return 0;
  // END TODO(lab07)
}

namespace {

/// Threads of a block: one per float4 of the tile.
constexpr int kBlockRows = kTileVec4s / kTile;

template <typename Vec4Layout>
__global__ void vec4_transpose_kernel(const float* __restrict__ in, float* __restrict__ out,
                                      int rows, int cols) {
  // TODO(lab07): move this block's kTile x kTile tile of `in` to `out` through
  // `__shared__ float4 tile[Vec4Layout::kVec4s]`, addressed only through
  // Vec4Layout::index(row, vec) (roughly 23 lines). Loads and stores of global memory stay
  // coalesced (a warp touches consecutive floats), every shared access is one 16-byte access,
  // and only elements that exist are read and written (cols % 4 == 0).
  // HINT: start from your scalar transpose of lab 06 (labs/lab06_padding/padded_tile.cu) and
  // ask, for each loop, which element a thread moves when a unit is 4 floats instead of 1. Index
  // global memory with size_t; reinterpret_cast a float pointer at a multiple of 4 floats.
  // The handout's "If you are stuck" section has the thread-to-float4 maps.
  cudalab::unused(in, out, rows, cols);
  // END TODO(lab07)
}

}  // namespace

template <typename Vec4Layout>
void vec4_transpose(const float* d_in, float* d_out, int rows, int cols, cudaStream_t stream) {
  const char* who = "vec4_transpose";
  const dim3 grid = smem_tiles::tile_grid(rows, cols, who);
  if (cols % 4 != 0 || reinterpret_cast<std::uintptr_t>(d_in) % alignof(float4) != 0) {
    throw std::invalid_argument(std::string(who) + ": needs cols % 4 == 0 and a 16-byte aligned " +
                                "input for float4 loads, got cols " + std::to_string(cols));
  }
  vec4_transpose_kernel<Vec4Layout>
      <<<grid, dim3(kTile, kBlockRows), 0, stream>>>(d_in, d_out, rows, cols);
  CUDA_CHECK_LAST_LAUNCH();
}

template void vec4_transpose<InterleavedVec4>(const float*, float*, int, int, cudaStream_t);
template void vec4_transpose<PlainVec4>(const float*, float*, int, int, cudaStream_t);
template void vec4_transpose<MirroredVec4>(const float*, float*, int, int, cudaStream_t);
template void vec4_transpose<ProbeVec4>(const float*, float*, int, int, cudaStream_t);

template <typename Vec4Layout>
cudalab::KernelInfo vec4_kernel() {
  return {reinterpret_cast<const void*>(vec4_transpose_kernel<Vec4Layout>), "vec4_transpose_kernel",
          dim3(kTile, kBlockRows), 0};
}

template cudalab::KernelInfo vec4_kernel<InterleavedVec4>();
template cudalab::KernelInfo vec4_kernel<PlainVec4>();
template cudalab::KernelInfo vec4_kernel<MirroredVec4>();
template cudalab::KernelInfo vec4_kernel<ProbeVec4>();

}  // namespace lab07
