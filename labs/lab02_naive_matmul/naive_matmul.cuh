// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file naive_matmul.cuh
 * @brief Lab 02 interface: two naive matrix multiplications C = A * B, and coalescing.
 *
 * Every matrix is row-major float in device memory:
 * - A is M x K, element (i, p) at a[i * K + p];
 * - B is K x N, element (p, j) at b[p * N + j];
 * - C is M x N, element (i, j) at c[i * N + j] = sum over p of A(i, p) * B(p, j).
 *
 * Any M, N, K >= 1 are allowed: rectangles, and sizes that are not multiples of the
 * block. Each launcher enqueues exactly one launch of its own kernel (private to its .cu
 * file, known to the grader by the identity the file exports) on the stream it is given, and
 * nothing else; the handout (README.md) explains the two mappings of work to threads and how
 * they are graded.
 */
#pragma once

#include <cuda_runtime.h>

#include "cudalab/launch_checks.hpp"

namespace lab02 {

// ---------------------------------------------------------------------------
// (a) One block per row of C
// ---------------------------------------------------------------------------

/**
 * @brief C = A * B, one block per row of C: M blocks of @p threads threads, thread t of a
 * block computing the columns t, t + threads, ... of its row.
 *
 * @param d_a      device pointer to A (M x K)
 * @param d_b      device pointer to B (K x N)
 * @param d_c      device pointer to C (M x N)
 * @param m        rows of A and C
 * @param n        columns of B and C
 * @param k        columns of A, rows of B
 * @param threads  threads per block, 1..1024 (32 or 256 in the classic version)
 * @param stream   stream to launch on
 * @throws std::invalid_argument for a null pointer, m, n or k <= 0, or threads outside 1..1024
 * @throws cudalab::CudaError when the launch fails
 */
void row_per_block_matmul(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                          int threads, cudaStream_t stream = nullptr);

/// The kernel row_per_block_matmul launches (row_per_block.cu): provenance, attributes.
cudalab::KernelInfo row_per_block_kernel();

// ---------------------------------------------------------------------------
// (b) One thread per element of C (coalesced: x walks columns)
// ---------------------------------------------------------------------------

/**
 * @brief The smallest grid of @p block-shaped blocks with N columns of C in x and M rows
 * in y: grid.x * block.x >= n, grid.y * block.y >= m, no spare block in either direction.
 * @pre m > 0, n > 0, block.x > 0, block.y > 0
 */
dim3 thread_per_element_grid(int m, int n, dim3 block);

/**
 * @brief C = A * B, one thread per element of C (x walks the columns) on the grid
 * thread_per_element_grid().
 *
 * @param d_a     device pointer to A (M x K)
 * @param d_b     device pointer to B (K x N)
 * @param d_c     device pointer to C (M x N)
 * @param m       rows of A and C
 * @param n       columns of B and C
 * @param k       columns of A, rows of B
 * @param block   2-D block shape (x: columns, y: rows), at most 1024 threads, block.z == 1
 * @param stream  stream to launch on
 * @throws std::invalid_argument for a null pointer, m, n or k <= 0, an invalid block, or
 *         more than 65535 blocks in y
 * @throws cudalab::CudaError when the launch fails
 */
void thread_per_element_matmul(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                               dim3 block, cudaStream_t stream = nullptr);

/// The kernel thread_per_element_matmul launches (thread_per_element.cu): provenance, attributes.
cudalab::KernelInfo thread_per_element_kernel();

// ---------------------------------------------------------------------------
// Given: argument checks shared by both launchers (launch_checks.cu)
// ---------------------------------------------------------------------------
namespace detail {

/**
 * @brief Throws std::invalid_argument, with a message that starts with @p who, unless the
 * pointers are non-null, m, n, k >= 1, and @p block has every extent >= 1, block.z == 1
 * and at most 1024 threads.
 * @param who      name of the calling launcher, for the message
 * @param d_a      device pointer to A
 * @param d_b      device pointer to B
 * @param d_c      device pointer to C
 * @param m        rows of A and C
 * @param n        columns of B and C
 * @param k        columns of A, rows of B
 * @param block    the block shape the launcher will use
 */
void check_matmul_args(const char* who, const float* d_a, const float* d_b, const float* d_c, int m,
                       int n, int k, dim3 block);

}  // namespace detail

}  // namespace lab02
