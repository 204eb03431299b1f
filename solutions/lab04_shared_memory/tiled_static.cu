// SPDX-License-Identifier: BSD-3-Clause
// Lab 04: tiled matmul with static shared-memory tiles (tile size fixed at compile time).
#include "cudalab/check.cuh"
#include "cudalab/launch_checks.hpp"
#include "shared_memory.cuh"

namespace lab04 {
namespace {

/**
 * Tiled C = A * B with two static kStaticTile x kStaticTile shared tiles. Launch: block
 * (T, T), grid (ceil(n / T), ceil(m / T)); thread (tx, ty) of block (bx, by) computes
 * C[by*T + ty][bx*T + tx] when it lies inside C.
 */
__global__ void matmul_tiled_static_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                           float* __restrict__ c, int m, int n, int k) {
  constexpr int T = kStaticTile;
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * T + ty;  // row of C (and of A) this thread owns
  const int col = blockIdx.x * T + tx;  // column of C (and of B) this thread owns

  // TODO(lab04): declare two static T x T shared tiles (a_tile, b_tile) and walk k in
  // steps of T. In each step every thread stages one element of A and one of B in the
  // tiles (0.0f when it lies outside the matrix), the block waits, every thread
  // accumulates its row of a_tile times its column of b_tile, and the block waits again
  // before the next step overwrites the tiles. Finally store the sum in C when
  // (row, col) lies inside C. Roughly 18 lines.
  // HINT: which element of A and which of B must thread (tx, ty) stage, and where, so that
  // HINT: after the barrier row ty of a_tile and column tx of b_tile hold its k0 .. k0 + T - 1?
  // HINT: __syncthreads() after the loads AND after the multiply; size_t global indices.
  __shared__ float a_tile[T][T];  // a_tile[ty][j] = A[row][k0 + j] of the current step
  __shared__ float b_tile[T][T];  // b_tile[j][tx] = B[k0 + j][col] of the current step
  float acc = 0.0f;
  for (int k0 = 0; k0 < k; k0 += T) {
    const int a_col = k0 + tx;  // column of A this thread stages
    const int b_row = k0 + ty;  // row of B this thread stages
    a_tile[ty][tx] = (row < m && a_col < k) ? a[static_cast<std::size_t>(row) * k + a_col] : 0.0f;
    b_tile[ty][tx] = (b_row < k && col < n) ? b[static_cast<std::size_t>(b_row) * n + col] : 0.0f;
    __syncthreads();  // both tiles are complete before anyone reads them
#pragma unroll
    for (int j = 0; j < T; ++j) {
      // a_tile[ty][j]: one word for the whole warp (broadcast);
      // b_tile[j][tx]: 32 consecutive words, one per bank.
      acc += a_tile[ty][j] * b_tile[j][tx];
    }
    __syncthreads();  // nobody still reads the tiles that the next step overwrites
  }
  if (row < m && col < n) {
    c[static_cast<std::size_t>(row) * n + col] = acc;
  }
  // END TODO(lab04)
}

}  // namespace

void matmul_tiled_static(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                         cudaStream_t stream) {
  cudalab::check_positive_dims("matmul_tiled_static", m, n, k);
  constexpr int T = kStaticTile;
  const dim3 block(T, T);  // one thread per element of a C tile
  const dim3 grid = cudalab::tile_grid(m, n, T, T, "matmul_tiled_static");  // x: columns, y: rows
  matmul_tiled_static_kernel<<<grid, block, 0, stream>>>(d_a, d_b, d_c, m, n, k);
  CUDA_CHECK_LAST_LAUNCH();
}

cudalab::KernelInfo tiled_static_kernel() {
  return {reinterpret_cast<const void*>(matmul_tiled_static_kernel), "matmul_tiled_static_kernel",
          dim3(kStaticTile, kStaticTile), 0};
}

}  // namespace lab04
