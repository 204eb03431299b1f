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
  (void)a;
  (void)b;
  (void)c;
  (void)m;
  (void)n;
  (void)k;
  // END TODO(lab07)
}

}  // namespace lab07
