// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file binary_mma.cuh
 * @brief Lab 14 interface: the ±1 matrix product on Hopper's 1-bit tensor cores —
 *        `mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc` (AND + popcount, the only
 *        1-bit operation the sm_90 tensor cores do in hardware) with the XOR identity
 *        popc(a ^ b) = popc(a) + popc(b) - 2 popc(a & b); baselines: the CUDA cores' measured
 *        popcount peak (a given microbenchmark) and cuBLAS SGEMM, TF32 and INT8 on the same data.
 *
 * Packed operands follow cudalab/bits.hpp (+1 is a 1 bit, -1 a 0 bit, element k in word k / 32
 * at bit k % 32), with one difference: every packed vector takes row_words(K) 32-bit words, a
 * multiple of kPitchWords (16 bytes), so every row of A and column of B starts 16-byte aligned
 * (cp.async copies 16 bytes). All words and bits past element K - 1 are zero.
 * - A (M x K) packed by rows:    a_bits[i * row_words(K) + w]
 * - B (K x N) packed by columns: b_bits[j * row_words(K) + w]
 * C[i][j] = K - 2 popc(a_i ^ b_j) = K - 2 popc(a_i) - 2 popc(b_j) + 4 popc(a_i & b_j): the
 * tensor cores give the last term, popcount_vectors() the two before it.
 *
 * All pointers are device pointers; C is M x N row-major floats (exactly what
 * reference_matmul() gives for the ±1 matrices). Launchers enqueue on @p stream, check the
 * launch and throw std::invalid_argument for non-positive sizes. The tensor-core kernels need
 * compute capability 8.0 or newer.
 */
#pragma once

#include <cublas_v2.h>
#include <cuda.h>  // CUtensorMap (a type only: the library does not link the driver API)
#include <cuda_runtime.h>

#include <cstdint>

#include "cublas_ref.cuh"
#include "cudalab/launch_checks.hpp"

namespace lab14 {

/// The row pitch of a packed vector is a multiple of this many 32-bit words (16 bytes).
inline constexpr int kPitchWords = 4;

/// 32-bit words per packed row of A or column of B: ceil(K / 32) rounded up to kPitchWords.
constexpr int row_words(int k) {
  return ((k + 31) / 32 + kPitchWords - 1) / kPitchWords * kPitchWords;
}

// ---------------------------------------------------------------------------
// The instruction (given): one warp multiplies a 16 x 256 bit tile of A by a 256 x 8 bit
// tile of B and adds popc(row AND column) into a 16 x 8 tile of 32-bit counts.
// ---------------------------------------------------------------------------

/**
 * @brief d += popc(A AND B) for one m16n8k256 tile (PTX ISA, "Matrix fragments for mma.m16n8k256"
 * with .b1 operands). Lane l, with g = l / 4 and t = l % 4, holds (each register 32 bits of K,
 * bit b of a register is element 32 t + b of its 128-bit half):
 * - a[0]: row g,     bits 32 t .. 32 t + 31       a[1]: row g + 8, the same bits
 * - a[2]: row g,     bits 128 + 32 t .. + 31      a[3]: row g + 8, the same bits
 * - b[0]: column g,  bits 32 t .. 32 t + 31       b[1]: column g, bits 128 + 32 t .. + 31
 * - d[0], d[1]: row g, columns 2 t and 2 t + 1    d[2], d[3]: row g + 8, the same columns
 * So a fragment is four 8-row x 128-bit matrices (rows 0-7 / 8-15 by bits 0-127 / 128-255) and
 * `ldmatrix ... .x4` loads exactly that: lane l holds 32-bit word l % 4 of row l / 4 of each.
 */
__device__ __forceinline__ void mma_and_popc(int (&d)[4], const std::uint32_t (&a)[4],
                                             const std::uint32_t (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  __trap();  // m16n8k256 .b1 needs sm_80 or newer (the launchers check the device)
#else
  asm volatile(
      "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}

/**
 * @brief ldmatrix.sync.aligned.m8n8.x4.shared.b16: lane l passes the shared-memory address of
 * one 16-byte row (lanes 8 j .. 8 j + 7: rows 0-7 of matrix j); register r[j] receives 32-bit
 * word l % 4 of row l / 4 of matrix j.
 */
__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], const void* smem_row) {
  const auto addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem_row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

/**
 * @brief Throws std::runtime_error naming @p who when the current device is older than
 * compute capability 8.0 (no m16n8k256 .b1 MMA there).
 */
void require_binary_tensor_cores(const char* who);

// ---------------------------------------------------------------------------
// Popcounts of the packed vectors (popcount_vectors.cu)
// ---------------------------------------------------------------------------

/// Threads per block of popcount_vectors_kernel (one warp per vector).
inline constexpr int kPopcountThreads = 256;

/**
 * @brief counts[v] = number of 1 bits of packed vector v (row_words(@p k) words each).
 * @param d_bits   vectors x row_words(k) words
 * @param vectors  number of vectors (rows of A or columns of B)
 * @param k        ±1 elements per vector
 * @param d_counts vectors ints (written, never read)
 * @param stream   stream to launch on; not synchronized
 */
void popcount_vectors(const std::uint32_t* d_bits, int vectors, int k, int* d_counts,
                      cudaStream_t stream = nullptr);

/// popcount_vectors_kernel, the kernel popcount_vectors() launches (private to its file), as
/// the grader sees it: function, name, block, dynamic shared memory.
cudalab::KernelInfo popcount_kernel();

// ---------------------------------------------------------------------------
// Step 1: one warp per 16 x 8 tile, fragments straight from global memory (mma_naive.cu)
// ---------------------------------------------------------------------------

/// Warps per block of the naive kernel; each warp owns one 16 x 8 tile of C.
inline constexpr int kNaiveWarps = 4;

/**
 * @brief C = A * B with one m16n8k256 AND-popc MMA per 256 bits of K per warp, fragments
 * loaded from global memory, and the popcount correction in the epilogue.
 * @param d_a_bits  A by rows: M x row_words(K)
 * @param d_b_bits  B by columns: N x row_words(K)
 * @param d_a_pop   popc of each row of A (popcount_vectors()), M ints
 * @param d_b_pop   popc of each column of B, N ints
 * @param d_c       C: M x N floats, row-major (written, never read)
 * @param m, n, k   shapes (k: ±1 elements per dot product)
 * @param stream    stream to launch on; not synchronized
 */
void binary_mma_naive(const std::uint32_t* d_a_bits, const std::uint32_t* d_b_bits,
                      const int* d_a_pop, const int* d_b_pop, float* d_c, int m, int n, int k,
                      cudaStream_t stream = nullptr);

/// binary_mma_naive_kernel, the kernel binary_mma_naive() launches (private to its file).
cudalab::KernelInfo mma_naive_kernel();

// ---------------------------------------------------------------------------
// Step 2: block tiles in swizzled shared memory, ldmatrix, a cp.async pipeline
// (mma_pipelined.cu)
// ---------------------------------------------------------------------------

/// Rows of C per block.
inline constexpr int kBlockM = 128;
/// Columns of C per block.
inline constexpr int kBlockN = 128;
/// Bits of K per pipeline stage: 1024 bits = 128 bytes = 8 chunks of 16 bytes per row.
inline constexpr int kBlockKBits = 1024;
/// Pipeline stages (shared-memory buffers in flight).
inline constexpr int kStages = 3;
/// Threads per block: 8 warps as 2 (rows) x 4 (columns), each warp a 64 x 32 tile of C.
inline constexpr int kPipelinedThreads = 256;
/// Dynamic shared memory of the pipelined kernel: kStages x (A stage + B stage).
inline constexpr int kPipelinedSmemBytes = kStages * (kBlockM + kBlockN) * (kBlockKBits / 8);

/**
 * @brief C = A * B with 128 x 128 block tiles: 1024-bit stages of A and B staged by cp.async
 * into a kStages-deep ring of XOR-swizzled shared-memory buffers, fragments loaded with
 * ldmatrix (conflict-free), 4 x 4 AND-popc MMAs per warp and 256 bits, popcount epilogue.
 * Parameters as binary_mma_naive().
 */
void binary_mma_pipelined(const std::uint32_t* d_a_bits, const std::uint32_t* d_b_bits,
                          const int* d_a_pop, const int* d_b_pop, float* d_c, int m, int n, int k,
                          cudaStream_t stream = nullptr);

/// binary_mma_pipelined_kernel, the kernel binary_mma_pipelined() launches (private to its
/// file), with kPipelinedSmemBytes of dynamic shared memory.
cudalab::KernelInfo mma_pipelined_kernel();

// ---------------------------------------------------------------------------
// Advanced part (optional, sm_90a only): a warp-specialized, persistent kernel —
// TMA loads into an mbarrier ring, wgmma m64n256k256 .b1 .and.popc, TMA-store epilogue
// (wgmma_persistent.cu; the handout's "Advanced part")
// ---------------------------------------------------------------------------

/// Rows of C per tile: two consumer warpgroups of 64 rows each.
inline constexpr int kWsBlockM = 128;
/// Columns of C per tile: one wgmma m64n256k256 per consumer warpgroup and 256 bits of K.
inline constexpr int kWsBlockN = 256;
/// Stages of the TMA ring (each 1024 bits of K: A 16 KB + B 32 KB).
inline constexpr int kWsStages = 4;
/// Staging buffers of C per consumer warp (16 rows x 32 floats = 2 KB each).
inline constexpr int kWsStagingBuffers = 2;
/// Threads per block: warpgroup 0 produces (one thread issues the TMA loads), 1 and 2 consume.
inline constexpr int kWsThreads = 384;
/// Dynamic shared memory: the ring, the staging buffers, 1 KB to align the ring to 1024 bytes.
inline constexpr int kWsSmemBytes =
    kWsStages * (kWsBlockM + kWsBlockN) * 128 + 8 * kWsStagingBuffers * 16 * 128 + 1024;
/// From this K on the packed 16-bit column popcounts would overflow: the launcher runs the
/// kernel's wide-K instance (32-bit column terms, exact int -> float conversion).
inline constexpr int kWsWideK = 65536;

/// The TMA tensor maps of one product (tensor_maps.cu, given): A and B as 2-D arrays of 32-bit
/// words ({row_words(K), rows}, box 32 words x 128 / 256 rows, 128-byte swizzle, zero fill past
/// the edges), C as floats ({N, M}, box 32 x 16, 128-byte swizzle; only when N % 4 == 0).
struct WsTensorMaps {
  CUtensorMap a;
  CUtensorMap b;
  CUtensorMap c;
  bool c_valid = false;  ///< C's map exists (N % 4 == 0: its row pitch is a multiple of 16 bytes)
};

/**
 * @brief Given (tensor_maps.cu, a library of its own): encodes the three maps with the driver's
 * cuTensorMapEncodeTiled, found through the runtime's driver entry point (lab code may not look
 * up driver entry points: the build's isolation check). Throws std::runtime_error naming the
 * parameters the driver refused. Host only; usable during stream capture (it enqueues nothing).
 */
WsTensorMaps encode_ws_tensor_maps(const std::uint32_t* d_a_bits, const std::uint32_t* d_b_bits,
                                   float* d_c, int m, int n, int k);

/**
 * @brief Why binary_mma_persistent() cannot run here (the current device is not compute
 * capability 9.0, or this build holds no sm_90a code), or an empty string when it can.
 */
const char* persistent_unavailable_reason();

/**
 * @brief C = A * B with a persistent, warp-specialized kernel: one block per SM takes
 * 128 x 256 tiles in turn; warpgroup 0 loads 1024-bit stages of A and B with TMA into a ring
 * of kWsStages mbarrier-guarded stages, warpgroups 1 and 2 multiply them with wgmma
 * m64n256k256 .b1 .and.popc and write C through swizzled staging buffers and TMA stores
 * (direct stores when N % 4 != 0). Parameters as binary_mma_naive(); the bit operands must be
 * 16-byte aligned, C 16-byte aligned, the popcounts 4-byte aligned. Throws
 * std::invalid_argument for non-positive sizes or misaligned pointers and std::runtime_error
 * where persistent_unavailable_reason() is not empty.
 */
void binary_mma_persistent(const std::uint32_t* d_a_bits, const std::uint32_t* d_b_bits,
                           const int* d_a_pop, const int* d_b_pop, float* d_c, int m, int n, int k,
                           cudaStream_t stream = nullptr);

/// The kernel binary_mma_persistent() launches for K < kWsWideK (private to its file).
cudalab::KernelInfo wgmma_persistent_kernel();
/// The kernel binary_mma_persistent() launches for K >= kWsWideK (the same code, 32-bit column
/// terms).
cudalab::KernelInfo wgmma_persistent_wide_k_kernel();

// ---------------------------------------------------------------------------
// The three tensor-core kernels in one table (the demo's rows, the grader's tests), and given:
// the whole product (binary_gemm.cu): popcounts, then one of them
// ---------------------------------------------------------------------------

/// A tensor-core launcher of the table, with binary_mma_naive()'s arguments.
using MmaLauncher = void (*)(const std::uint32_t* d_a_bits, const std::uint32_t* d_b_bits,
                             const int* d_a_pop, const int* d_b_pop, float* d_c, int m, int n,
                             int k, cudaStream_t stream);

/// One tensor-core kernel of the lab: what the demo times and the grader checks of it. Each
/// takes every shape; they differ in the devices they run on.
struct Technique {
  const char* name;    ///< in test and measurement names, as binary_mma_<name>(): "naive", ...
  const char* title;   ///< its row in the demo's table
  const char* config;  ///< its configuration there
  MmaLauncher launcher;
  /// The kernel its launcher runs for K = @p k bits (the persistent one's wide-K instance from
  /// kWsWideK on).
  cudalab::KernelInfo (*kernel)(int k);
  /// Why it cannot run here, or an empty string; null where compute capability 8.0 is enough.
  const char* (*unavailable)();
};

/// Steps 1 and 2, then the advanced part (sm_90a only).
inline constexpr Technique kTechniques[] = {
    {"naive", "naive mma (warp per 16x8)", "popc + mma m16n8k256", binary_mma_naive,
     [](int) { return mma_naive_kernel(); }, nullptr},
    {"pipelined", "pipelined mma 128x128", "popc + cp.async ring + ldmatrix", binary_mma_pipelined,
     [](int) { return mma_pipelined_kernel(); }, nullptr},
    {"persistent", "persistent wgmma 128x256 (advanced)", "popc + TMA ring + wgmma",
     binary_mma_persistent,
     [](int k) {
       return k < kWsWideK ? wgmma_persistent_kernel() : wgmma_persistent_wide_k_kernel();
     },
     persistent_unavailable_reason},
};

/**
 * @brief C = A * B: popcount_vectors() of A's rows and B's columns into @p d_popcounts
 * (M + N ints: rows of A first), then @p mma, the launcher of a technique of kTechniques
 * (binary_mma_naive(), binary_mma_pipelined() or binary_mma_persistent()).
 */
void binary_gemm(MmaLauncher mma, const std::uint32_t* d_a_bits, const std::uint32_t* d_b_bits,
                 int* d_popcounts, float* d_c, int m, int n, int k, cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// Given: the CUDA cores' popcount peak, measured (popcount_peak.cu)
// ---------------------------------------------------------------------------

/**
 * @brief Enqueues the given microbenchmark on @p stream: popcount_peak_threads() threads (every
 * SM at full occupancy) each run independent XOR + __popc chains for @p iterations steps, with no
 * memory access in the loop, and write one int each to @p d_sink. Its rate is the most any
 * binary GEMM on the CUDA cores can reach; the same-run baseline of the tensor-core kernels.
 */
void popcount_peak(int iterations, std::uint32_t key, int* d_sink, cudaStream_t stream = nullptr);

/// Threads popcount_peak() launches on the current device (ints it writes to d_sink).
long popcount_peak_threads();

/// What popcount_peak() writes for @p thread (computed on the host, by the kernel's own code).
int popcount_peak_expected(long thread, int iterations, std::uint32_t key);

/// Bit multiply-adds popcount_peak(@p iterations) performs: 32 per __popc of a 32-bit word.
double popcount_peak_bit_macs(int iterations);

// ---------------------------------------------------------------------------
// Given: cuBLAS on the same ±1 data (labs/common/cublas_ref, shared with labs 09 and 13):
// SGEMM (FP32 on the CUDA cores), TF32 and INT8 tensor-core GEMMs through cublasGemmEx
// ---------------------------------------------------------------------------
using cublas_ref::cublas_int8;
using cublas_ref::cublas_sgemm;
using cublas_ref::cublas_tf32;
using cublas_ref::CublasHandle;

}  // namespace lab14
