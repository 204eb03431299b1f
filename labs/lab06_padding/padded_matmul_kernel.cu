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
  (void)a;
  (void)b;
  (void)c;
  (void)m;
  (void)n;
  (void)k;
  // END TODO(lab06)
}

}  // namespace lab06
