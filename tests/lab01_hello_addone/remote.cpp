// SPDX-License-Identifier: BSD-3-Clause
// Lab 01 runs in its own process (cudalab/remote.hpp): each function of add_one.cuh that the
// grader calls crosses as data, and add_one's kernel is replayed by the grader from its own
// load of the lab's device code. In the grader these lines are proxies; in the candidate, the
// table its server answers from.
#include <cuda_runtime.h>

#include "add_one.cuh"
#include "cudalab/remote.hpp"

CUDALAB_REMOTE(lab01::add_one_kernel_info, (), (), cudalab::KernelInfo)
CUDALAB_REMOTE(lab01::grid_for, (int rows, int cols, dim3 block), (rows, cols, block), dim3)
CUDALAB_REMOTE(lab01::add_one, (float* d_data, int rows, int cols, dim3 block, cudaStream_t stream),
               (d_data, rows, cols, block, stream), void)
