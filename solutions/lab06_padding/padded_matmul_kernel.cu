// Lab 06: tiled matmul whose lanes walk the rows of C, made conflict-free by a padded A tile.
#include "padded_layout.cuh"
#include "padding.cuh"

namespace lab06 {

__global__ void padded_matmul_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                     float* __restrict__ c, int m, int n, int k) {
  // TODO(lab06): compute C[row][col] with row = blockIdx.y * kTile + threadIdx.x (the lanes
  // walk the rows of C) and col = blockIdx.x * kTile + threadIdx.y, stepping through K one
  // kTile-wide slab at a time: stage A[rows of the tile][slab] in a padded shared tile
  // (padded_offset) and B[slab][columns of the tile] in a plain `float [kTile][kTile]` tile,
  // synchronise, accumulate kTile products, synchronise again. Load zeros outside A and B
  // and write only the elements of C that exist.
  // HINT: thread (x, y) loads A[row0 + y][k0 + x] into padded_offset(y, x) and
  // B[k0 + y][col0 + x] into b_tile[y][x] (coalesced loads, row-wise stores); the inner loop
  // reads the A tile at padded_offset(x, kk), a column read that padding keeps conflict-free,
  // and b_tile[kk][y], the same word for the whole warp (a broadcast).
  __shared__ float a_tile[kPaddedTileWords];  // A[row0 + r][k0 + kk] at padded_offset(r, kk)
  __shared__ float b_tile[kTile][kTile];      // B[k0 + kk][col0 + j] at b_tile[kk][j]
  const int tx = threadIdx.x;                 // lane: walks the rows of C
  const int ty = threadIdx.y;                 // warp: one column of C
  const int row0 = blockIdx.y * kTile;        // first row of this block's C tile
  const int col0 = blockIdx.x * kTile;        // first column of this block's C tile

  float acc = 0.0f;
  for (int k0 = 0; k0 < k; k0 += kTile) {
    // Coalesced global loads, row-wise (conflict-free) shared stores, zeros outside.
    const int a_row = row0 + ty;
    const int a_col = k0 + tx;
    a_tile[padded_offset(ty, tx)] =
        (a_row < m && a_col < k) ? a[static_cast<size_t>(a_row) * k + a_col] : 0.0f;
    const int b_row = k0 + ty;
    const int b_col = col0 + tx;
    b_tile[ty][tx] = (b_row < k && b_col < n) ? b[static_cast<size_t>(b_row) * n + b_col] : 0.0f;
    __syncthreads();  // the slab is complete
#pragma unroll
    for (int kk = 0; kk < kTile; ++kk) {
      // A tile column (lanes on 32 banks thanks to the pitch) times a broadcast B word.
      acc += a_tile[padded_offset(tx, kk)] * b_tile[kk][ty];
    }
    __syncthreads();  // everyone is done with the slab before the next one overwrites it
  }
  const int row = row0 + tx;
  const int col = col0 + ty;
  if (row < m && col < n) {
    c[static_cast<size_t>(row) * n + col] = acc;
  }
  // END TODO(lab06)
}

}  // namespace lab06
