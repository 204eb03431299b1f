// Lab 07: tiled matmul whose lanes walk the rows of C, made conflict-free by a swizzled A tile.
#include "swizzle.cuh"
#include "swizzle_layout.cuh"

namespace lab07 {

__global__ void swizzled_matmul_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                       float* __restrict__ c, int m, int n, int k) {
  // TODO(lab07): compute C[row][col] with row = blockIdx.y * kTile + threadIdx.x (the lanes
  // walk the rows of C) and col = blockIdx.x * kTile + threadIdx.y, one kTile-wide slab of K
  // at a time: stage A[rows of the tile][slab] in `__shared__ float a_tile[kTileWords]`
  // addressed through swizzled_offset(), and B[slab][columns of the tile] in a plain
  // `float b_tile[kTile][kTile]`; synchronise, accumulate kTile products, synchronise again.
  // Load zeros outside A and B; write only the elements of C that exist. Static shared
  // memory must stay two unpadded tiles (the grader checks it).
  // HINT: thread (x, y) stores A[row0 + y][k0 + x] at swizzled_offset(y, x) and
  // B[k0 + y][col0 + x] at b_tile[y][x]; the inner loop reads a_tile[swizzled_offset(x, kk)]
  // (a column: lanes on banks kk ^ x, all different) and b_tile[kk][y] (a broadcast).
  __shared__ float a_tile[kTileWords];    // A[row0 + r][k0 + kk] at swizzled_offset(r, kk)
  __shared__ float b_tile[kTile][kTile];  // B[k0 + kk][col0 + j] at b_tile[kk][j]
  const int tx = threadIdx.x;             // lane: walks the rows of C
  const int ty = threadIdx.y;             // warp: one column of C
  const int row0 = blockIdx.y * kTile;    // first row of this block's C tile
  const int col0 = blockIdx.x * kTile;    // first column of this block's C tile

  float acc = 0.0f;
  for (int k0 = 0; k0 < k; k0 += kTile) {
    // Coalesced global loads, conflict-free shared stores, zeros outside.
    const int a_row = row0 + ty;
    const int a_col = k0 + tx;
    a_tile[swizzled_offset(ty, tx)] =
        (a_row < m && a_col < k) ? a[static_cast<size_t>(a_row) * k + a_col] : 0.0f;
    const int b_row = k0 + ty;
    const int b_col = col0 + tx;
    b_tile[ty][tx] = (b_row < k && b_col < n) ? b[static_cast<size_t>(b_row) * n + b_col] : 0.0f;
    __syncthreads();  // the slab is complete
#pragma unroll
    for (int kk = 0; kk < kTile; ++kk) {
      // A tile column (lane tx on bank kk ^ tx) times a broadcast B word.
      acc += a_tile[swizzled_offset(tx, kk)] * b_tile[kk][ty];
    }
    __syncthreads();  // everyone is done with the slab before the next one overwrites it
  }
  const int row = row0 + tx;
  const int col = col0 + ty;
  if (row < m && col < n) {
    c[static_cast<size_t>(row) * n + col] = acc;
  }
  // END TODO(lab07)
}

}  // namespace lab07
