// Lab 07: transpose through a swizzled, unpadded shared tile (conflict-free column reads).
#include "swizzle.cuh"
#include "swizzle_layout.cuh"

namespace lab07 {

__global__ void swizzled_transpose_kernel(const float* __restrict__ in, float* __restrict__ out,
                                          int rows, int cols) {
  // TODO(lab07): move this block's kTile x kTile tile of `in` (rows x cols) to `out`
  // (cols x rows) through `__shared__ float tile[kTileWords]` (no padding), addressed only
  // through swizzled_offset(): read input rows into tile rows, __syncthreads(), then write
  // output rows from tile columns. Elements outside the matrix are neither read nor written.
  // HINT: the loops are lab 06's padded transpose; only the declaration of the tile and the
  // two index expressions change: tile[swizzled_offset(r, lane)] when loading,
  // tile[swizzled_offset(lane, r)] when storing. Index global memory with size_t.
  __shared__ float tile[kTileWords];         // (r, c) at swizzled_offset(r, c): no padding
  const int tile_row0 = blockIdx.y * kTile;  // first input row of this tile
  const int tile_col0 = blockIdx.x * kTile;  // first input column of this tile
  const int lane = threadIdx.x;

  // Load: a warp reads part of an input row (coalesced) into a tile row; the swizzle
  // permutes the row's words, so the 32 lanes still hit 32 banks.
  for (int r = threadIdx.y; r < kTile; r += blockDim.y) {
    const int row = tile_row0 + r;
    const int col = tile_col0 + lane;
    if (row < rows && col < cols) {
      tile[swizzled_offset(r, lane)] = in[static_cast<size_t>(row) * cols + col];
    }
  }
  __syncthreads();  // the writes of every warp must land before any warp reads a column
  // Store: a warp writes part of an output row (coalesced) from a tile column; lane l finds
  // (l, r) at column r ^ l of row l: 32 different banks.
  for (int r = threadIdx.y; r < kTile; r += blockDim.y) {
    const int out_row = tile_col0 + r;     // output row = input column
    const int out_col = tile_row0 + lane;  // output column = input row
    if (out_row < cols && out_col < rows) {
      out[static_cast<size_t>(out_row) * rows + out_col] = tile[swizzled_offset(lane, r)];
    }
  }
  // END TODO(lab07)
}

}  // namespace lab07
