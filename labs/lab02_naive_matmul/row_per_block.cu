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
  cudalab::unused(a, b, c, m, n, k);
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
  cudalab::unused(stream);
  // END TODO(lab02)
}

cudalab::KernelInfo row_per_block_kernel() {
  // The private kernel of the same name (the typed pointer picks it); its block is the
  // caller's threads.
  void (*kernel)(const float*, const float*, float*, int, int, int) = row_per_block_kernel;
  return {reinterpret_cast<const void*>(kernel), "row_per_block_kernel", dim3(0, 0, 0), 0};
}

}  // namespace lab02
