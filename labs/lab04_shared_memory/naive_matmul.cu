// SPDX-License-Identifier: BSD-3-Clause
// Lab 04 baseline (given): thread-per-element matmul straight from global memory.
#include "cudalab/check.cuh"
#include "cudalab/launch_checks.hpp"
#include "shared_memory.cuh"

namespace lab04 {
namespace {

/// C[row][col] = sum_i A[row][i] * B[i][col] for one (row, col) per thread.
__global__ void matmul_naive_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                    float* __restrict__ c, int m, int n, int k) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;  // x walks the columns of C
  const int row = blockIdx.y * blockDim.y + threadIdx.y;  // y walks the rows of C
  if (row >= m || col >= n) return;
  float acc = 0.0f;
  for (int i = 0; i < k; ++i) {
    // A[row][i]: the same address for a whole warp row (broadcast);
    // B[i][col]: consecutive columns across the warp (coalesced).
    acc += a[static_cast<std::size_t>(row) * k + i] * b[static_cast<std::size_t>(i) * n + col];
  }
  c[static_cast<std::size_t>(row) * n + col] = acc;
}

}  // namespace

void matmul_naive(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                  cudaStream_t stream, int block) {
  cudalab::check_positive_dims("matmul_naive", m, n, k);
  const dim3 threads(block, block);
  cudalab::check_block_shape("matmul_naive", threads);
  const dim3 grid = cudalab::tile_grid(m, n, block, block, "matmul_naive");
  matmul_naive_kernel<<<grid, threads, 0, stream>>>(d_a, d_b, d_c, m, n, k);
  CUDA_CHECK_LAST_LAUNCH();
}

cudalab::KernelInfo naive_kernel() {
  // Its block is the caller's (kNaiveBlock x kNaiveBlock by default).
  return {reinterpret_cast<const void*>(matmul_naive_kernel), "matmul_naive_kernel", dim3(0, 0, 0),
          0};
}

}  // namespace lab04
