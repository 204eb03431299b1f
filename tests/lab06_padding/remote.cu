// SPDX-License-Identifier: BSD-3-Clause
// Lab 06 runs in its own process (cudalab/remote.hpp): each function of padding.cuh that the
// grader calls crosses as data (padded_offset() too, on the host), and the launchers' kernels
// are replayed by the grader from its own load of the lab's device code. In the grader these
// lines are proxies; in the candidate, the table its server answers from. A .cu file: the
// header holds the given tile kernels.
#include <cuda_runtime.h>

#include "cudalab/remote.hpp"
#include "padding.cuh"

#if CUDALAB_REMOTE_JUDGE
// Declared __host__ __device__: the grader calls it on the host only (its device copy is never
// called, and the lab's own device code is not linked here).
__host__ __device__ int lab06::padded_offset(int row, int col) {
#ifdef __CUDA_ARCH__
  (void)row;
  (void)col;
  return -1;
#else
  return ::cudalab::remote::call<&lab06::padded_offset>("lab06::padded_offset")(row, col);
#endif
}
#else
CUDALAB_REMOTE(lab06::padded_offset, (int row, int col), (row, col), int)
#endif
CUDALAB_REMOTE(lab06::padded_tile_words, (), (), int)
CUDALAB_REMOTE(lab06::padded_transpose_in_place,
               (float* d_matrix, int n, int block_rows, cudaStream_t stream),
               (d_matrix, n, block_rows, stream), void)
CUDALAB_REMOTE(lab06::padded_matmul,
               (const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                cudaStream_t stream),
               (d_a, d_b, d_c, m, n, k, stream), void)
CUDALAB_REMOTE(lab06::padded_transpose_kernel, (), (), cudalab::KernelInfo)
CUDALAB_REMOTE(lab06::padded_matmul_kernel, (), (), cudalab::KernelInfo)
