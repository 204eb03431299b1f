// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file xnor.cuh
 * @brief Lab 08 interface: ±1 matrices as bits, XNOR as multiplication, popcount as the sum.
 *
 * C = A * B for A (M x K) and B (K x N) whose entries are all +1 or -1, computed from
 * bit-packed copies of A and B. The conventions are those of cudalab/bits.hpp (the host
 * reference the grader compares against):
 *
 * - +1 is a 1 bit, -1 a 0 bit; element k of a packed vector sits in word k / 32 at bit
 *   k % 32 (least significant bit first).
 * - A is packed by rows:    d_a_bits[i * W + w], i < M, w < W   (M x W, row-major)
 *   B is packed by columns, word-major:
 *                            d_b_bits[w * N + j], w < W, j < N   (W x N)
 *   with W = words(K) = ceil(K / 32); the W * 32 - K padding bits of every packed vector
 *   are zero. Word w of column j holds B[32 w .. 32 w + 31][j] (cudalab::bits::
 *   pack_cols_word_major). Word-major, because the kernels give neighbouring threads
 *   neighbouring columns: in step w a warp reads word w of 32 neighbouring columns, which
 *   are then 32 neighbouring words — one coalesced load (lab 02) instead of 32 loads
 *   W words apart.
 * - One product of two ±1 numbers is XNOR of their bits (equal bits: +1, different: -1),
 *   so a dot product is (number of equal bits) - (number of different bits). The XNOR kernels count
 * *equal* bits word by word with popcount(~(a ^ b)); the zero padding bits are equal in both
 *   operands, and the count has to be corrected for them (the `rest` of the classic version).
 *
 * All pointers are device pointers; every launcher enqueues on @p stream and checks the
 * launch. Results are floats so they compare exactly with reference_matmul().
 */
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstdint>

#include "cudalab/device_buffer.cuh"
#include "cudalab/launch_checks.hpp"

namespace lab08 {

/// Bits per packed word.
inline constexpr int kWordBits = 32;
/// Threads per block of the classic one-block-per-row launches (<<<M, 32>>>).
inline constexpr int kSeedThreads = 32;

// ---------------------------------------------------------------------------
// Packing (pack_rows.cu, pack_cols.cu)
// ---------------------------------------------------------------------------

/**
 * @brief Packs the rows of the ±1 matrix @p d_a (M x K floats, row-major) into
 * @p d_a_bits (M x words(K) words): bit k % 32 of word k / 32 of row i is 1 iff
 * A[i][k] == +1; padding bits are 0.
 * @throws std::invalid_argument for m or k <= 0
 */
void pack_rows(const float* d_a, std::uint32_t* d_a_bits, int m, int k,
               cudaStream_t stream = nullptr);

/**
 * @brief Packs the columns of the ±1 matrix @p d_b (K x N floats, row-major) into
 * @p d_b_bits (words(K) x N words, word-major: word w of column j at d_b_bits[w * N + j]):
 * bit k % 32 of word k / 32 of column j is 1 iff B[k][j] == +1; padding bits are 0.
 * Bit for bit cudalab::bits::pack_cols_word_major().
 * @throws std::invalid_argument for k or n <= 0
 */
void pack_cols(const float* d_b, std::uint32_t* d_b_bits, int k, int n,
               cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// The popcount table (popcount_table.cu)
// ---------------------------------------------------------------------------

/// table[i] = number of set bits of the byte i, for i = 0 .. 255 (built on the host).
std::array<std::uint8_t, 256> build_popcount_table();

/// A device copy of build_popcount_table(): 256 bytes for the table kernels.
cudalab::DeviceBuffer<std::uint8_t> upload_popcount_table();

// ---------------------------------------------------------------------------
// XNOR matmul (xnor_matmul.cu)
// ---------------------------------------------------------------------------

/**
 * @brief Zero padding bits at the end of a packed vector of @p k elements: the classic
 * `rest` = 32 * words(k) - k (0 when k is a multiple of 32). @pre k >= 1
 *
 * Defined in xnor_matmul.cu: device code of other files cannot call it (no separable
 * compilation); the grader calls it on the host.
 */
__host__ __device__ int padding_bits(int k);

/**
 * @brief The ±1 dot product of two vectors of @p k elements, given @p equal_bits: the
 * popcount of XNOR summed over all words(k) words, padding included.
 * @pre 0 <= equal_bits <= 32 * words(k), equal_bits >= padding_bits(k)
 */
__host__ __device__ int xnor_dot(int k, int equal_bits);

/**
 * @brief C = A * B from packed operands, popcount by the 256-entry table.
 *
 * One block per row of C (grid M), @p threads threads per block; thread t computes the
 * columns t, t + threads, t + 2 * threads, ... of its row.
 * @param d_a_bits A packed by rows, M x words(K) (pack_rows())
 * @param d_b_bits B packed by columns, word-major, words(K) x N (pack_cols())
 * @param d_table 256 bytes from upload_popcount_table()
 * @param d_c     M x N floats, row-major (written, never read)
 * @param m       rows of A and C (one block per row)
 * @param n       columns of B and C
 * @param k       columns of A, rows of B: ±1 elements (bits, not words) per dot product
 * @param threads threads per block, 1..1024 (the classic 32 by default)
 * @param stream  stream to launch on; not synchronized
 * @throws std::invalid_argument for non-positive sizes or threads outside 1..1024
 */
void xnor_matmul_table(const std::uint32_t* d_a_bits, const std::uint32_t* d_b_bits,
                       const std::uint8_t* d_table, float* d_c, int m, int n, int k,
                       int threads = kSeedThreads, cudaStream_t stream = nullptr);

/// As xnor_matmul_table(), with the hardware popcount (__popc) instead of the table.
void xnor_matmul_popc(const std::uint32_t* d_a_bits, const std::uint32_t* d_b_bits, float* d_c,
                      int m, int n, int k, int threads = kSeedThreads,
                      cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// Given: the float baseline (float_naive.cu)
// ---------------------------------------------------------------------------

/**
 * @brief Float C = A * B (row-major floats), the classic one-block-per-row kernel: grid M,
 * @p threads threads per block striding over the columns of the row. The baseline of
 * the speed test (the same ±1 data as floats).
 */
void float_matmul_rows(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                       int threads = kSeedThreads, cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// The kernels the launchers launch (provenance, attributes, SASS), each defined in its
// launcher's file. A block of 0 x 0 means "chosen per call" (the threads argument).
// ---------------------------------------------------------------------------

/// pack_rows_kernel, as pack_rows() launches it (pack_rows.cu).
cudalab::KernelInfo row_packing_kernel();
/// pack_cols_kernel, as pack_cols() launches it (pack_cols.cu).
cudalab::KernelInfo column_packing_kernel();
/// xnor_matmul_kernel with the table popcount, as xnor_matmul_table() launches it
/// (xnor_matmul.cu). Named "xnor_matmul_kernel", like the __popc instance.
cudalab::KernelInfo xnor_matmul_table_kernel();
/// xnor_matmul_kernel with __popc, as xnor_matmul_popc() launches it (xnor_matmul.cu).
cudalab::KernelInfo xnor_matmul_popc_kernel();
/// Given: float_matmul_rows_kernel, as float_matmul_rows() launches it (float_naive.cu).
cudalab::KernelInfo float_naive_kernel();

// ---------------------------------------------------------------------------
// The two popcounts of the XNOR matmul in one table (the demo's rows, the grader's tests)
// ---------------------------------------------------------------------------

/// An XNOR matmul launcher of the table, with xnor_matmul_table()'s arguments (a technique
/// that does not count with the table ignores @p d_table).
using XnorLauncher = void (*)(const std::uint32_t* d_a_bits, const std::uint32_t* d_b_bits,
                              const std::uint8_t* d_table, float* d_c, int m, int n, int k,
                              int threads, cudaStream_t stream);

/// One way to count the bits of the XNOR words: what the demo times and the grader checks of it.
/// Both take every shape and every block size of 1..1024 threads.
struct Technique {
  const char* name;  ///< in test and measurement names, as xnor_matmul_<name>(): "popc", "table"
  const char* popcount;  ///< what counts the bits, in the grader's messages: "__popc", "table"
  const char* title;     ///< its rows in the demo's table
  XnorLauncher launcher;
  cudalab::KernelInfo (*kernel)();  ///< the instance of xnor_matmul_kernel its launcher runs
  bool reads_table;                 ///< whether it counts with d_table (upload_popcount_table())
};

/// The hardware instruction, then the classic table.
inline constexpr Technique kTechniques[] = {
    {"popc", "__popc", "xnor, __popc",
     [](const std::uint32_t* d_a_bits, const std::uint32_t* d_b_bits, const std::uint8_t*,
        float* d_c, int m, int n, int k, int threads, cudaStream_t stream) {
       xnor_matmul_popc(d_a_bits, d_b_bits, d_c, m, n, k, threads, stream);
     },
     xnor_matmul_popc_kernel, false},
    {"table", "table", "xnor, popcount table", xnor_matmul_table, xnor_matmul_table_kernel, true},
};

}  // namespace lab08
