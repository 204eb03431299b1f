// SPDX-License-Identifier: BSD-3-Clause
// Lab 03 (given): the packed (unpitched) thread-per-element matmul, the baseline of the
// "no regression" test and of the demo. The lab's own copy: lab 03 does not depend on
// the lab 02 code you wrote.
#include <cstddef>

#include "cudalab/check.cuh"
#include "pitch.cuh"

namespace lab03 {

namespace {

__global__ void unpitched_matmul_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                        float* __restrict__ c, int m, int n, int k) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;  // x walks the columns of C and B
  const int row = blockIdx.y * blockDim.y + threadIdx.y;  // y walks the rows of C and A
  if (row >= m || col >= n) return;
  const float* a_row = a + static_cast<std::size_t>(row) * k;  // packed: row r at r * K
  float sum = 0.0f;
  for (int p = 0; p < k; ++p) {
    sum += a_row[p] * b[static_cast<std::size_t>(p) * n + col];
  }
  c[static_cast<std::size_t>(row) * n + col] = sum;
}

}  // namespace

void unpitched_matmul(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                      dim3 block, cudaStream_t stream) {
  // Packed rows are pitched rows whose pitch is exactly the row's data.
  detail::check_matmul_args("unpitched_matmul", d_a, std::size_t(k) * sizeof(float), d_b,
                            std::size_t(n) * sizeof(float), d_c, std::size_t(n) * sizeof(float), m,
                            n, k, block);
  unpitched_matmul_kernel<<<detail::grid_for(m, n, block), block, 0, stream>>>(d_a, d_b, d_c, m, n,
                                                                               k);
  CUDA_CHECK_LAST_LAUNCH();
}

}  // namespace lab03
