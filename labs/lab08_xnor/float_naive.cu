// SPDX-License-Identifier: BSD-3-Clause
// Lab 08 (given): the float baseline — the classic one-block-per-row matmul.
#include <stdexcept>

#include "cudalab/check.cuh"
#include "xnor.cuh"

namespace lab08 {

namespace {

/// Block i computes row i of C; thread t walks the columns t, t + blockDim.x, ...
/// Neighbouring threads read neighbouring elements of a row of B (coalesced), and every
/// thread of the block reads the same element of A's row (a broadcast).
__global__ void float_matmul_rows_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                         float* __restrict__ c, int n, int k) {
  const std::size_t row = blockIdx.x;  // one block per row of C
  for (int col = threadIdx.x; col < n; col += blockDim.x) {
    float sum = 0.0f;
    for (int i = 0; i < k; ++i) {
      sum += a[row * k + i] * b[std::size_t(i) * n + col];  // A[row][i] * B[i][col]
    }
    c[row * n + col] = sum;
  }
}

}  // namespace

void float_matmul_rows(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                       int threads, cudaStream_t stream) {
  if (m <= 0 || n <= 0 || k <= 0 || threads <= 0 || threads > 1024) {
    throw std::invalid_argument("float_matmul_rows: sizes must be positive and threads in 1..1024");
  }
  float_matmul_rows_kernel<<<m, threads, 0, stream>>>(d_a, d_b, d_c, n, k);
  CUDA_CHECK_LAST_LAUNCH();
}

cudalab::KernelInfo float_naive_kernel() {
  return {reinterpret_cast<const void*>(float_matmul_rows_kernel), "float_matmul_rows_kernel",
          dim3(0, 0), 0};
}

}  // namespace lab08
