// Lab 04: tiled matmul with both tiles in one dynamic (extern __shared__) buffer.
#include "shared_memory.cuh"

namespace lab04 {

__global__ void matmul_tiled_dynamic_kernel(const float* __restrict__ a,
                                            const float* __restrict__ b, float* __restrict__ c,
                                            int m, int n, int k, int depth) {
  // Every extern __shared__ array of a kernel starts at the same address: declaring two
  // of them would make the A and B tiles overlap. There is one buffer; pointers split it.
  extern __shared__ float smem[];

  const int tile = static_cast<int>(blockDim.x);  // the block is tile x tile threads
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * tile + ty;  // row of C (and of A) this thread owns
  const int col = blockIdx.x * tile + tx;  // column of C (and of B) this thread owns

  // TODO(lab04): point a_tile at the start of smem (tile rows x depth columns) and
  // b_tile right after it (depth rows x tile columns). Then walk k in steps of depth:
  // the block stages A(row0 .. row0+tile-1, k0 .. k0+depth-1) and
  // B(k0 .. k0+depth-1, col0 .. col0+tile-1), zero outside the matrices, waits,
  // accumulates, and waits again. Store the sum when (row, col) lies inside C.
  // HINT: a slice holds depth / tile elements per thread: loop j = tx, tx + tile, ...
  // for A (a_tile[ty * depth + j]) and r = ty, ty + tile, ... for B (b_tile[r * tile + tx]).
  float* a_tile = smem;                 // a_tile[r * depth + j] = A[row0 + r][k0 + j]
  float* b_tile = smem + tile * depth;  // b_tile[j * tile + cc] = B[k0 + j][col0 + cc]
  float acc = 0.0f;
  for (int k0 = 0; k0 < k; k0 += depth) {
    // Both slices staged by the whole block with one flat index (another valid order).
    const int row0 = blockIdx.y * tile;
    const int col0 = blockIdx.x * tile;
    const int threads = tile * tile;
    for (int i = ty * tile + tx; i < tile * depth; i += threads) {
      const int r = i / depth, j = i % depth;  // A slice: tile rows x depth columns
      const int ar = row0 + r, ac = k0 + j;
      a_tile[i] = (ar < m && ac < k) ? a[static_cast<std::size_t>(ar) * k + ac] : 0.0f;
      const int br = k0 + i / tile, bc = col0 + i % tile;  // B slice: depth rows x tile
      b_tile[i] = (br < k && bc < n) ? b[static_cast<std::size_t>(br) * n + bc] : 0.0f;
    }
    __syncthreads();                           // both slices are complete
    const float* a_row = a_tile + ty * depth;  // this thread's row of the A slice
    const float* b_col = b_tile + tx;          // this thread's column of the B slice
#pragma unroll 8
    for (int j = 0; j < depth; ++j) {  // depth is a multiple of tile >= 8
      acc += a_row[j] * b_col[j * tile];
    }
    __syncthreads();  // the next step may overwrite the slices
  }
  if (row < m && col < n) {
    c[static_cast<std::size_t>(row) * n + col] = acc;
  }
  // END TODO(lab04)
}

}  // namespace lab04
