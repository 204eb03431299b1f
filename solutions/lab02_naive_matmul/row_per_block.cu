// SPDX-License-Identifier: BSD-3-Clause
// Lab 02 (a): one block per row of C; the block's threads stride over the columns.
#include <cstddef>

#include "cudalab/check.cuh"
#include "naive_matmul.cuh"

namespace lab02 {

namespace {

// Block blockIdx.x computes row blockIdx.x of C; thread t of the block computes the columns
// t, t + blockDim.x, t + 2 * blockDim.x, ... of that row. Launched <<<M, threads>>>.
__global__ void row_per_block_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                     float* __restrict__ c, int m, int n, int k) {
  // TODO(lab02): block blockIdx.x owns row `row` of C. Let the block's threads share the
  // columns of that row, each thread computing its columns' dot products of row `row` of A
  // with column `col` of B, written to C(row, col) (roughly 10 lines).
  // HINT: one block-stride loop over this thread's columns (handout, Background): what are
  // HINT: its start, its bound and its step, and where does each column's sum start from 0?
  // HINT: which offsets (row * k, p * n, row * n) can exceed 2^31, and in which type must
  // they be computed? Any K is allowed: nothing here may assume K fits a fixed buffer.
  const int row = blockIdx.x;  // one block per row of C
  if (row >= m) return;
  const float* a_row = a + static_cast<std::size_t>(row) * k;  // A(row, 0)
  float* c_row = c + static_cast<std::size_t>(row) * n;        // C(row, 0)
  // Thread t takes columns t, t + blockDim.x, ...: in each round the block's threads
  // read neighbouring floats of one row of B and write neighbouring floats of C.
  for (int col = threadIdx.x; col < n; col += blockDim.x) {
    float sum = 0.0f;
    for (int p = 0; p < k; ++p) {
      sum += a_row[p] * b[static_cast<std::size_t>(p) * n + col];  // A(row, p) * B(p, col)
    }
    c_row[col] = sum;
  }
  // END TODO(lab02)
}

}  // namespace

void row_per_block_matmul(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                          int threads, cudaStream_t stream) {
  const dim3 block(threads > 0 ? static_cast<unsigned>(threads) : 0u);
  detail::check_matmul_args("row_per_block_matmul", d_a, d_b, d_c, m, n, k, block);
  // TODO(lab02): launch row_per_block_kernel on `stream` with one block per row of C
  // (M blocks) of `block` threads, then check the launch (roughly 3 lines).
  // HINT: as in lab 01: the stream is the launch's fourth argument; check it afterwards.
  row_per_block_kernel<<<dim3(static_cast<unsigned>(m)), block, 0, stream>>>(d_a, d_b, d_c, m, n,
                                                                             k);
  CUDA_CHECK_LAST_LAUNCH();
  // END TODO(lab02)
}

cudalab::KernelInfo row_per_block_kernel() {
  // The private kernel of the same name (the typed pointer picks it); its block is the
  // caller's threads.
  void (*kernel)(const float*, const float*, float*, int, int, int) = row_per_block_kernel;
  return {reinterpret_cast<const void*>(kernel), "row_per_block_kernel", dim3(0, 0, 0), 0};
}

}  // namespace lab02
