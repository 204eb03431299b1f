// SPDX-License-Identifier: BSD-3-Clause
// Lab 02 runs in its own process (cudalab/remote.hpp): each function of naive_matmul.cuh that
// the grader calls crosses as data, and the launchers' kernels are replayed by the grader from
// its own load of the lab's device code. In the grader these lines are proxies; in the
// candidate, the table its server answers from.
#include <cuda_runtime.h>

#include "cudalab/remote.hpp"
#include "naive_matmul.cuh"

CUDALAB_REMOTE(lab02::row_per_block_matmul,
               (const float* d_a, const float* d_b, float* d_c, int m, int n, int k, int threads,
                cudaStream_t stream),
               (d_a, d_b, d_c, m, n, k, threads, stream), void)
CUDALAB_REMOTE(lab02::row_per_block_kernel, (), (), cudalab::KernelInfo)
CUDALAB_REMOTE(lab02::thread_per_element_grid, (int m, int n, dim3 block), (m, n, block), dim3)
CUDALAB_REMOTE(lab02::thread_per_element_matmul,
               (const float* d_a, const float* d_b, float* d_c, int m, int n, int k, dim3 block,
                cudaStream_t stream),
               (d_a, d_b, d_c, m, n, k, block, stream), void)
CUDALAB_REMOTE(lab02::thread_per_element_kernel, (), (), cudalab::KernelInfo)
