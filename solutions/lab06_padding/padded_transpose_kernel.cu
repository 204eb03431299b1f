// Lab 06: transpose through a padded shared tile (conflict-free column reads).
#include "padded_layout.cuh"
#include "padding.cuh"

namespace lab06 {

__global__ void padded_transpose_kernel(const float* __restrict__ in, float* __restrict__ out,
                                        int rows, int cols) {
  // TODO(lab06): move this block's kTile x kTile tile of `in` (rows x cols) to `out`
  // (cols x rows) through `__shared__ float tile[kPaddedTileWords]`, addressed only through
  // padded_offset(): read input rows into tile rows, __syncthreads(), then write output rows
  // from tile columns. Elements outside the matrix are neither read nor written.
  // HINT: the tile starts at input row blockIdx.y * kTile and input column blockIdx.x * kTile;
  // thread (x, y) handles tile rows y, y + blockDim.y, ... at tile column x. Output element
  // (i, j) is input element (j, i). Index global memory with size_t (rows * cols can pass 2^31).
  __shared__ float tile[kPaddedTileWords];   // (r, c) at padded_offset(r, c)
  const int tile_row0 = blockIdx.y * kTile;  // first input row of this tile
  const int tile_col0 = blockIdx.x * kTile;  // first input column of this tile
  const int lane = threadIdx.x;

  // Load: a warp reads part of an input row (coalesced) into a tile row (conflict-free).
  for (int r = threadIdx.y; r < kTile; r += blockDim.y) {
    const int row = tile_row0 + r;
    const int col = tile_col0 + lane;
    if (row < rows && col < cols) {
      tile[padded_offset(r, lane)] = in[static_cast<size_t>(row) * cols + col];
    }
  }
  __syncthreads();  // the writes of every warp must land before any warp reads a column
  // Store: a warp writes part of an output row (coalesced) from a tile column; with the
  // padded pitch the 32 lanes read 32 different banks.
  for (int r = threadIdx.y; r < kTile; r += blockDim.y) {
    const int out_row = tile_col0 + r;     // output row = input column
    const int out_col = tile_row0 + lane;  // output column = input row
    if (out_row < cols && out_col < rows) {
      out[static_cast<size_t>(out_row) * rows + out_col] = tile[padded_offset(lane, r)];
    }
  }
  // END TODO(lab06)
}

}  // namespace lab06
