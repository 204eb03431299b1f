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
  (void)a;
  (void)b;
  (void)c;
  (void)depth;
  (void)smem;
  (void)row;
  (void)col;
  // END TODO(lab04)
}

}  // namespace lab04
