// SPDX-License-Identifier: BSD-3-Clause
// Lab 12 (given): the synchronous baseline — lab 04's static tiled kernel, compiled for two
// blocks per SM like every kernel of this lab. Each step loads, waits, multiplies, waits:
// nothing else of this block runs while its loads are in flight.

#include "cudalab/check.cuh"
#include "prefetch.cuh"

namespace lab12 {

namespace {

__global__ void __maxnreg__(kMaxRegisters)
    matmul_sync_kernel(const float* __restrict__ a, const float* __restrict__ b,
                       float* __restrict__ c, int m, int n, int k) {
  constexpr int T = kTile;
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * T + ty;  // row of C (and of A) this thread owns
  const int col = blockIdx.x * T + tx;  // column of C (and of B) this thread owns
  __shared__ float a_tile[T][T];        // a_tile[ty][j] = A[row][k0 + j] of the current step
  __shared__ float b_tile[T][T];        // b_tile[j][tx] = B[k0 + j][col] of the current step
  float acc = 0.0f;
  for (int k0 = 0; k0 < k; k0 += T) {
    const int a_col = k0 + tx;  // column of A this thread stages
    const int b_row = k0 + ty;  // row of B this thread stages
    a_tile[ty][tx] = element_or_zero(a, row, a_col, m, k);
    b_tile[ty][tx] = element_or_zero(b, b_row, col, k, n);
    __syncthreads();  // both tiles are complete before anyone reads them
#pragma unroll
    for (int j = 0; j < T; ++j) acc += a_tile[ty][j] * b_tile[j][tx];
    __syncthreads();  // nobody still reads the tiles that the next step overwrites
  }
  if (row < m && col < n) c[static_cast<std::size_t>(row) * n + col] = acc;
}

}  // namespace

void matmul_sync(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                 cudaStream_t stream) {
  const auto [grid, block] = tile_launch("matmul_sync", m, n, k);
  matmul_sync_kernel<<<grid, block, 0, stream>>>(d_a, d_b, d_c, m, n, k);
  CUDA_CHECK_LAST_LAUNCH();
}

cudalab::KernelInfo sync_kernel() {
  return {reinterpret_cast<const void*>(matmul_sync_kernel), "matmul_sync_kernel",
          dim3(kTile, kTile), 0};
}

}  // namespace lab12
