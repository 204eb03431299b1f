// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file blocked_xnor.cuh
 * @brief Lab 09 interface: blocked (tiled) binary matmul — 16x16 tiles of packed words in
 *        shared memory, the popcount table in shared memory or __popc, and (advanced) a
 *        register-tiled kernel on 64-bit words; baselines: the naive XNOR kernel of lab 08
 *        and cuBLAS SGEMM on the same ±1 data.
 *
 * Packed operands follow cudalab/bits.hpp: +1 is a 1 bit, -1 a 0 bit, element k in word
 * k / B at bit k % B (B = 32 or 64, least significant bit first), zero padding bits.
 * - A (M x K) packed by rows:    a_bits[i * W + w], W = words(K)
 * - B (K x N) packed by columns: b_bits[j * W + w] (pack_cols(), pack_cols64()) for the
 *   tiled kernels; the naive baseline takes lab 08's word-major layout instead,
 *   b_bits[w * N + j] (pack_cols_word_major())
 * The kernels here count *different* bits, popcount(a XOR b), so a zero-filled word adds
 * nothing and C[i][j] = K - 2 * (number of different bits) needs no padding correction.
 *
 * All pointers are device pointers; results are M x N row-major floats (exactly what
 * reference_matmul() gives for the ±1 matrices). Launchers enqueue on @p stream, check
 * the launch and throw std::invalid_argument for non-positive sizes.
 */
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "cublas_ref.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/launch_checks.hpp"

namespace lab09 {

// ---------------------------------------------------------------------------
// The 16x16 tiled kernel (tiled_xnor.cu)
// ---------------------------------------------------------------------------

/// Edge of a tile: a block is kTile x kTile threads and computes a kTile x kTile tile of
/// C, walking K kTile packed 32-bit words (kTile * 32 bits) at a time.
inline constexpr int kTile = 16;

/**
 * @brief C = A * B with 16x16 tiles of packed words in shared memory; popcount by the
 * 256-entry table, staged from @p d_table (device memory) into shared memory.
 * @param d_a_bits pack_rows(A): M x words32(K)
 * @param d_b_bits pack_cols(B): N x words32(K), column j's words contiguous
 * @param d_table  256 bytes, entry i = popcount(i) (make_popcount_table())
 * @param d_c      C: M x N floats, row-major (written, never read)
 * @param m        rows of A and C
 * @param n        columns of B and C
 * @param k        columns of A, rows of B: ±1 elements (bits, not words) per dot product
 * @param stream   stream to launch on; not synchronized
 */
void tiled_xnor_table(const std::uint32_t* d_a_bits, const std::uint32_t* d_b_bits,
                      const std::uint8_t* d_table, float* d_c, int m, int n, int k,
                      cudaStream_t stream = nullptr);

/// As tiled_xnor_table(), with the hardware popcount (__popc).
void tiled_xnor_popc(const std::uint32_t* d_a_bits, const std::uint32_t* d_b_bits, float* d_c,
                     int m, int n, int k, cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// Advanced: the register-tiled kernel on 64-bit words (register_tiled_xnor.cu)
// ---------------------------------------------------------------------------

/// Rows of C per block of the register-tiled kernel.
inline constexpr int kRegBlockM = 128;
/// Columns of C per block of the register-tiled kernel.
inline constexpr int kRegBlockN = 128;
/// 64-bit words of K per shared-memory stage (512 bits).
inline constexpr int kRegBlockK = 8;
/// Threads per block of the register-tiled kernel (16 x 16; each computes 8 x 8 outputs).
inline constexpr int kRegThreads = 256;
static_assert(
    kRegBlockM == kRegBlockN,
    "the register-tiled kernel's tile of C is square (its Technique::tile in kTechniques)");

/**
 * @brief C = A * B from 64-bit packed operands with a register-tiled kernel: each block
 * computes a kRegBlockM x kRegBlockN tile of C, each thread an 8 x 8 sub-tile held in
 * registers, reading kRegBlockK-word stages of A and B from shared memory.
 * @param d_a_bits pack_rows64(A): M x words64(K)
 * @param d_b_bits pack_cols64(B): N x words64(K)
 * @param d_c      C: M x N floats, row-major (written, never read)
 * @param m        rows of A and C
 * @param n        columns of B and C
 * @param k        columns of A, rows of B: ±1 elements (bits, not words) per dot product
 * @param stream   stream to launch on; not synchronized
 */
void register_tiled_xnor(const std::uint64_t* d_a_bits, const std::uint64_t* d_b_bits, float* d_c,
                         int m, int n, int k, cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// Given: the naive XNOR baseline (xnor_naive.cu) and the popcount table (popcount_table.cu)
// ---------------------------------------------------------------------------

/// Threads per block of the naive baseline: the classic <<<M, 32>>>.
inline constexpr int kNaiveThreads = 32;

/**
 * @brief The lab 08 kernel in the classic configuration: one block of kNaiveThreads
 * threads per row of C, each thread striding over the columns; popcount by __popc.
 * @param d_a_bits pack_rows(A): M x words32(K)
 * @param d_b_bits pack_cols_word_major(B): words32(K) x N, word w of column j at
 *                 [w * N + j] — lab 08's layout, not the tiled kernels' pack_cols()
 * @param d_c      C: M x N floats, row-major (written, never read)
 * @param m        rows of A and C
 * @param n        columns of B and C
 * @param k        columns of A, rows of B: ±1 elements (bits, not words) per dot product
 * @param stream   stream to launch on; not synchronized
 */
void naive_xnor_popc(const std::uint32_t* d_a_bits, const std::uint32_t* d_b_bits, float* d_c,
                     int m, int n, int k, cudaStream_t stream = nullptr);

/// As naive_xnor_popc(), with the 256-entry table read from device memory (the classic first
/// version).
void naive_xnor_table(const std::uint32_t* d_a_bits, const std::uint32_t* d_b_bits,
                      const std::uint8_t* d_table, float* d_c, int m, int n, int k,
                      cudaStream_t stream = nullptr);

/// A 256-byte device table, entry i = number of 1 bits of i.
cudalab::DeviceBuffer<std::uint8_t> make_popcount_table(cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// The kernels the launchers launch (provenance, attributes, SASS), each defined in its
// launcher's file. The table and __popc instances of a kernel share its name.
// ---------------------------------------------------------------------------

/// tiled_xnor_kernel with the shared table, as tiled_xnor_table() launches it (tiled_xnor.cu).
cudalab::KernelInfo tiled_xnor_table_kernel();
/// tiled_xnor_kernel with __popc, as tiled_xnor_popc() launches it (tiled_xnor.cu).
cudalab::KernelInfo tiled_xnor_popc_kernel();
/// register_tiled_xnor_kernel, as register_tiled_xnor() launches it (register_tiled_xnor.cu).
cudalab::KernelInfo register_tiling_kernel();
/// Given: naive_xnor_kernel with __popc, as naive_xnor_popc() launches it (xnor_naive.cu).
cudalab::KernelInfo naive_xnor_popc_kernel();
/// Given: naive_xnor_kernel with the table, as naive_xnor_table() launches it.
cudalab::KernelInfo naive_xnor_table_kernel();
/// Given: fill_popcount_table_kernel, as make_popcount_table() launches it (popcount_table.cu).
cudalab::KernelInfo popcount_table_kernel();

// ---------------------------------------------------------------------------
// The binary matmuls in one table (the demo's rows, the grader's checks and races)
// ---------------------------------------------------------------------------

/// One product's packed operands (device pointers) in every packing a technique of the table
/// reads: each launcher passes on those its function above takes and ignores the others.
struct PackedOperands {
  const std::uint32_t* a32 = nullptr;             ///< pack_rows(A): the naive and tiled kernels
  const std::uint32_t* b32 = nullptr;             ///< pack_cols(B): the tiled kernels
  const std::uint32_t* b32_word_major = nullptr;  ///< pack_cols_word_major(B): the naive kernel
  const std::uint64_t* a64 = nullptr;             ///< pack_rows64(A): the register-tiled kernel
  const std::uint64_t* b64 = nullptr;             ///< pack_cols64(B): the register-tiled kernel
  const std::uint8_t* table = nullptr;  ///< 256 bytes, entry i = popcount(i): the table kernels
};

/// A binary matmul launcher of the table: C (M x N floats, row-major) = A * B from @p in.
using XnorLauncher = void (*)(const PackedOperands& in, float* d_c, int m, int n, int k,
                              cudaStream_t stream);

/// One way to compute the binary matmul: what the demo times and the grader checks of it.
/// All take every positive M, N and K; they differ in the operands they read (PackedOperands).
struct Technique {
  const char* name;   ///< in test and measurement names, as its launcher: "tiled_xnor_popc"
  const char* title;  ///< its row in the demo's table
  XnorLauncher launcher;
  cudalab::KernelInfo (*kernel)();  ///< the kernel its launcher runs, and its block
  /// Edge of the square tile of C a block computes (a grid of ceil(N / tile) x ceil(M / tile)
  /// blocks); 0 where a block computes a row of C (a grid of M blocks).
  int tile;
  bool reads_table;  ///< whether it counts with PackedOperands::table
};

/// The given naive baselines, then the 16x16 tiled kernels (each with the table, then with
/// __popc), then the register-tiled kernel.
inline constexpr Technique kTechniques[] = {
    {"naive_xnor_table", "naive xnor, table in global",
     [](const PackedOperands& in, float* d_c, int m, int n, int k, cudaStream_t stream) {
       naive_xnor_table(in.a32, in.b32_word_major, in.table, d_c, m, n, k, stream);
     },
     naive_xnor_table_kernel, 0, true},
    {"naive_xnor_popc", "naive xnor, __popc",
     [](const PackedOperands& in, float* d_c, int m, int n, int k, cudaStream_t stream) {
       naive_xnor_popc(in.a32, in.b32_word_major, d_c, m, n, k, stream);
     },
     naive_xnor_popc_kernel, 0, false},
    {"tiled_xnor_table", "tiled 16x16, table in shared",
     [](const PackedOperands& in, float* d_c, int m, int n, int k, cudaStream_t stream) {
       tiled_xnor_table(in.a32, in.b32, in.table, d_c, m, n, k, stream);
     },
     tiled_xnor_table_kernel, kTile, true},
    {"tiled_xnor_popc", "tiled 16x16, __popc",
     [](const PackedOperands& in, float* d_c, int m, int n, int k, cudaStream_t stream) {
       tiled_xnor_popc(in.a32, in.b32, d_c, m, n, k, stream);
     },
     tiled_xnor_popc_kernel, kTile, false},
    {"register_tiled_xnor", "register-tiled 64-bit, 8x8/thread",
     [](const PackedOperands& in, float* d_c, int m, int n, int k, cudaStream_t stream) {
       register_tiled_xnor(in.a64, in.b64, d_c, m, n, k, stream);
     },
     register_tiling_kernel, kRegBlockM, false},
};

// Given: cuBLAS SGEMM on the ±1 data as floats (labs/common/cublas_ref, shared with labs 13-14)
using cublas_ref::cublas_sgemm;
using cublas_ref::CublasHandle;

}  // namespace lab09
