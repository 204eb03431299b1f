// SPDX-License-Identifier: BSD-3-Clause
// Lab 02 (b): one thread per element of C on a 2-D grid; x walks the columns (coalesced).
#include <cstddef>

#include "cudalab/check.cuh"
#include "cudalab/launch_checks.hpp"
#include "naive_matmul.cuh"

namespace lab02 {

namespace {

// The thread at column blockIdx.x * blockDim.x + threadIdx.x and row
// blockIdx.y * blockDim.y + threadIdx.y computes that one element of C; threads outside C
// (the partial blocks on the right and bottom edges) do nothing.
__global__ void thread_per_element_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                          float* __restrict__ c, int m, int n, int k) {
  // TODO(lab02): compute this thread's column (from the x coordinates) and row (from the
  // y coordinates); if it lies inside C, write the dot product of row `row` of A and
  // column `col` of B to C(row, col) (roughly 9 lines).
  // HINT: the threads of a warp differ in threadIdx.x. Which of A(row, p), B(p, col) and
  // C(row, col) do they then read or write at neighbouring addresses, if x walks the
  // columns? If x walked the rows?
  // HINT: the grid is rounded up to whole blocks: threads outside C must return.
  cudalab::unused(a, b, c, m, n, k);
  // END TODO(lab02)
}

}  // namespace

dim3 thread_per_element_grid(int m, int n, dim3 block) {
  // TODO(lab02): return the number of blocks needed in x (the N columns) and in y (the M
  // rows) so that grid * block covers C, without a spare block (roughly 2 lines).
  // HINT: the same count as lab 01's grid_for(); which extent goes with x?
  cudalab::unused(m, n, block);
  return dim3(1, 1, 1);
  // END TODO(lab02)
}

void thread_per_element_matmul(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                               dim3 block, cudaStream_t stream) {
  detail::check_matmul_args("thread_per_element_matmul", d_a, d_b, d_c, m, n, k, block);
  // Throws past the grid limits (more than 65535 blocks in y).
  cudalab::tile_grid(m, n, static_cast<int>(block.y), static_cast<int>(block.x),
                     "thread_per_element_matmul");
  // TODO(lab02): launch thread_per_element_kernel on `stream` with the grid
  // thread_per_element_grid(m, n, block) of `block`-shaped blocks, then check the launch
  // (roughly 3 lines).
  // HINT: as in lab 01: the stream is the launch's fourth argument; check it afterwards.
  cudalab::unused(stream);
  // END TODO(lab02)
}

cudalab::KernelInfo thread_per_element_kernel() {
  // The private kernel of the same name (the typed pointer picks it); its block is the
  // caller's.
  void (*kernel)(const float*, const float*, float*, int, int, int) = thread_per_element_kernel;
  return {reinterpret_cast<const void*>(kernel), "thread_per_element_kernel", dim3(0, 0, 0), 0};
}

}  // namespace lab02
