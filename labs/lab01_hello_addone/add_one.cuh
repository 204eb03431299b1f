// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file add_one.cuh
 * @brief Lab 01 interface: add one to every element of a matrix with a 2-D launch.
 *
 * The matrix is rows x cols floats, row-major (element (r, c) at r * cols + c), in
 * device memory. x of the grid walks columns, y walks rows.
 */
#pragma once

#include <cuda_runtime.h>

#include "cudalab/launch_checks.hpp"

namespace lab01 {

/**
 * @brief Adds 1.0f to data[r * cols + c] for every r < rows, c < cols.
 *
 * Launched with a 2-D grid of 2-D blocks; threads that fall outside the matrix (the
 * last blocks of a grid are usually partly outside) must not touch memory.
 *
 * Unlike the kernels of later labs, private to their file and known to the grader by the
 * identity (cudalab::KernelInfo) that the file exports as `labNN::<technique>_kernel()`, this
 * kernel is part of the interface: lab 01 teaches the launch itself, in a file of its own
 * (add_one_launch.cu), which must see the kernel. Its identity therefore cannot take the
 * kernel's name and is add_one_kernel_info().
 */
__global__ void add_one_kernel(float* data, int rows, int cols);

/// The identity of add_one_kernel, for the grader's provenance checks (add_one_kernel.cu).
cudalab::KernelInfo add_one_kernel_info();

/**
 * @brief The smallest grid of @p block-shaped blocks that covers cols (x) by rows (y).
 * @pre rows > 0, cols > 0, block.x > 0, block.y > 0
 */
dim3 grid_for(int rows, int cols, dim3 block);

/**
 * @brief Launches add_one_kernel over the whole matrix and checks the launch.
 * @param d_data device pointer to rows * cols floats
 * @param rows   number of rows (> 0)
 * @param cols   number of columns (> 0)
 * @param block  block shape; an invalid one (e.g. more than 1024 threads) must be
 *               reported by the launch check as a cudalab::CudaError
 * @param stream stream to launch on: all work goes there (the grader captures it)
 * @throws std::invalid_argument for rows or cols <= 0
 * @throws cudalab::CudaError when the launch fails (e.g. more than 65535 blocks in y)
 */
void add_one(float* d_data, int rows, int cols, dim3 block, cudaStream_t stream = nullptr);

}  // namespace lab01
