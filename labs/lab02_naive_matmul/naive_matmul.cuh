// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file naive_matmul.cuh
 * @brief Lab 02 interface: two naive matrix multiplications C = A * B, and coalescing, and the
 * table of the two (lab02::kTechniques).
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

// ---------------------------------------------------------------------------
// The two naive matmuls in one table (the demo's rows, the grader's tests)
// ---------------------------------------------------------------------------

/// A naive matmul launcher of the table, with thread_per_element_matmul()'s arguments (one block
/// per row takes a 1-D @p block, block.x threads; its adapter passes any other block on as 0
/// threads, which row_per_block_matmul() refuses).
using MatmulLauncher = void (*)(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                                dim3 block, cudaStream_t stream);

/// One way to map the work of C = A * B to threads: what the demo times and the grader checks of
/// it. The grader's uncoalesced baseline (x walks the rows) is not here: it is the grader's own
/// kernel, not the lab's.
struct Technique {
  const char* name;   ///< "row_per_block": `<name>.cu`, `<name>_matmul()`, test names in CamelCase
  const char* title;  ///< its rows in the demo's table
  MatmulLauncher launcher;          ///< C = A * B
  cudalab::KernelInfo (*kernel)();  ///< the kernel its launcher runs
  /// Whether it takes 2-D blocks, x over the columns of C and y over its rows, on the grid
  /// thread_per_element_grid() (up to 65535 blocks in y: M up to 65535 * block.y); otherwise
  /// 1-D blocks of block.x threads, one block per row of C (any M).
  bool blocks_2d;
};

/// One block per row, then one thread per element.
inline constexpr Technique kTechniques[] = {
    {"row_per_block", "row per block",
     [](const float* d_a, const float* d_b, float* d_c, int m, int n, int k, dim3 block,
        cudaStream_t stream) {
       const bool one_d = block.y == 1 && block.z == 1;
       row_per_block_matmul(d_a, d_b, d_c, m, n, k, one_d ? static_cast<int>(block.x) : 0, stream);
     },
     row_per_block_kernel, false},
    {"thread_per_element", "thread per element", thread_per_element_matmul,
     thread_per_element_kernel, true},
};

}  // namespace lab02
