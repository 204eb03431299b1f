// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file prefetch.cuh
 * @brief Lab 12 interface: hiding global-memory latency in the tiled matmul of lab 04 —
 * register prefetch, a two-stage shared-memory pipeline with cp.async, (advanced) a
 * two-stage pipeline with the Hopper bulk copy engine (TMA) completing on an mbarrier, and
 * the shared-memory / L1 carve-out of a kernel read back from the driver; the table of the
 * tiled matmuls (lab12::kTechniques: the given synchronous one, then parts 1-3).
 *
 * All matrices are row-major floats in device memory: A is m x k, B is k x n and
 * C = A * B is m x n (element (r, c) of C at r * n + c). Every kernel here works on
 * kTile x kTile tiles with one thread per element of a C tile (a block of kTile x kTile
 * threads, grid (ceil(n / kTile), ceil(m / kTile))), walks k one kTile-deep tile at a time
 * and stores zeros for tile elements outside A or B. Launchers enqueue on @p stream, check
 * the launch (CUDA_CHECK_LAST_LAUNCH), do not synchronize, and throw std::invalid_argument
 * for non-positive sizes.
 *
 * Each kernel is private to its technique file; the file exports its identity as a
 * cudalab::KernelInfo (`lab12::<technique>_kernel()`: function, name, block, dynamic shared
 * memory), which the grader uses for provenance, attributes (shared memory, registers,
 * occupancy) and the carve-out (configure_smem()).
 */
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "cudalab/launch_checks.hpp"

namespace lab12 {

/// Edge of every tile: a block of kTile x kTile threads computes a kTile x kTile tile of C.
inline constexpr int kTile = 32;
/// Threads per block (one per element of a C tile).
inline constexpr int kThreads = kTile * kTile;

/// The launch shape of every kernel here: kTile x kTile threads per block, one block per
/// tile of C, the grid's x over C's columns and y over its rows.
struct TileLaunch {
  dim3 grid;
  dim3 block;
};

/// TileLaunch for C = A (m x k) * B (k x n); throws std::invalid_argument naming @p launcher
/// when m, n or k is not positive or the grid passes the grid limits (cudalab::tile_grid).
inline TileLaunch tile_launch(const char* launcher, int m, int n, int k) {
  cudalab::check_positive_dims(launcher, m, n, k);
  return {cudalab::tile_grid(m, n, kTile, kTile, launcher), dim3(kTile, kTile)};
}
/// Element (r, c) of a row-major matrix of rows x cols floats at @p p, or 0.0f when (r, c) lies
/// outside it: how a tile is staged at the matrix's edges.
__device__ __forceinline__ float element_or_zero(const float* __restrict__ p, int r, int c,
                                                 int rows, int cols) {
  return (r < rows && c < cols) ? p[static_cast<std::size_t>(r) * cols + c] : 0.0f;
}

/// Registers per thread every kernel here is capped at (__maxnreg__(kMaxRegisters)): with
/// 65536 registers per SM, two blocks of 1024 threads fit, filling the 2048 thread slots of
/// an SM of compute capability 8.0, 9.0 or 10.0 ("full occupancy").
inline constexpr int kMaxRegisters = 32;
static_assert(kThreads <= 1024, "one thread per element of a C tile: at most 1024 threads");
static_assert(kTile % 4 == 0, "a tile row must be a whole number of 16-byte chunks (TMA)");

/// Bytes of one single-buffered stage: an A tile and a B tile of kTile x kTile floats.
inline constexpr std::size_t kStageBytes = 2 * std::size_t(kTile) * kTile * sizeof(float);

// ---------------------------------------------------------------------------
// Given: the synchronous baseline (sync_tiled.cu), lab 04's static tiled kernel.
// ---------------------------------------------------------------------------

/**
 * @brief matmul_sync_kernel, lab 04's static tiled kernel: per k step, load one element of A
 * and one of B per thread into the tiles, barrier, multiply, barrier. The load latency of
 * every step is exposed unless other blocks on the SM have work.
 */
cudalab::KernelInfo sync_kernel();

/// Launches matmul_sync_kernel over all of C (given).
void matmul_sync(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                 cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// Part 1: register prefetch (register_prefetch.cu)
// ---------------------------------------------------------------------------

/**
 * @brief matmul_register_prefetch_kernel: tiled C = A * B with one pair of shared tiles
 * (kStageBytes) and the next step's elements loaded into registers before the current step's
 * multiply, so the load is in flight while the block computes.
 */
cudalab::KernelInfo register_prefetch_kernel();

/// Launches matmul_register_prefetch_kernel over all of C.
void matmul_register_prefetch(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                              cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// Part 2: a two-stage shared-memory pipeline with cp.async (cp_async_pipeline.cu)
// ---------------------------------------------------------------------------

/**
 * @brief matmul_pipelined_kernel: tiled C = A * B with two stages of shared tiles
 * (2 x kStageBytes, no more): while the block multiplies the tiles of step t, the copies of
 * step t + 1 run asynchronously (cp.async: __pipeline_memcpy_async or cuda::memcpy_async), one
 * __syncthreads() per step. Its dynamic_smem is 0 (static tiles); a launcher that keeps the
 * two stages in one extern buffer passes 2 x kStageBytes instead.
 */
cudalab::KernelInfo pipelined_kernel();

/// Launches matmul_pipelined_kernel over all of C.
void matmul_pipelined(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                      cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// Part 3 (advanced): a two-stage pipeline with bulk copies (TMA) on an mbarrier
// (tma_pipeline.cu)
// ---------------------------------------------------------------------------

/**
 * @brief Tiled C = A * B with two stages; each tile row arrives by one bulk copy
 * (cuda::memcpy_async with cuda::aligned_size_t<16> on a cuda::barrier in shared memory:
 * cp.async.bulk completing on an mbarrier on sm_90, cp.async on older GPUs).
 *
 * Bulk copies move whole 16-byte chunks from 16-byte aligned addresses, so k and n must be
 * multiples of 4 (rows of A and B start on 16-byte boundaries) and @p d_a and @p d_b 16-byte
 * aligned (cudaMalloc gives 256); C is written by plain 4-byte stores.
 * @throws std::invalid_argument for non-positive sizes, k or n not a multiple of 4, or a
 * @p d_a or @p d_b that is not 16-byte aligned
 */
void matmul_tma(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                cudaStream_t stream = nullptr);

/// matmul_tma_kernel, the kernel matmul_tma() launches.
cudalab::KernelInfo tma_kernel();

// ---------------------------------------------------------------------------
// Part 4: the shared-memory / L1 carve-out of a kernel (carveout.cu)
// ---------------------------------------------------------------------------

/// What the driver reports for a kernel after configure_smem() set its preferences.
struct SmemConfigReport {
  int preferred_carveout = -2;  ///< cudaFuncAttributes::preferredShmemCarveout, read back
  std::size_t static_smem = 0;  ///< cudaFuncAttributes::sharedSizeBytes
  int registers = 0;            ///< cudaFuncAttributes::numRegs
  int blocks_per_sm = 0;        ///< cudaOccupancyMaxActiveBlocksPerMultiprocessor
  /// The shared memory, in bytes, that blocks_per_sm resident blocks of the queried launch
  /// take on one SM: everything each block costs there (the handout's Background says what).
  std::size_t smem_per_sm = 0;
  std::size_t reserved_smem = 0;  ///< cudaDevAttrReservedSharedMemoryPerBlock
};

/**
 * @brief Sets the legacy cache preference (cudaFuncSetCacheConfig(@p kernel, @p preference))
 * and then the carve-out hint (cudaFuncAttributePreferredSharedMemoryCarveout =
 * @p carveout_percent: -1 = no preference, 0 = most L1, 100 = most shared memory), and reads
 * back what the driver now says about the kernel for blocks of @p block_threads threads with
 * @p dynamic_smem bytes of dynamic shared memory.
 * @param kernel            a __global__ function, e.g. lab12::pipelined_kernel().function
 * @param carveout_percent  the carve-out hint in percent of the maximum shared memory, or -1
 * @param preference        the legacy L1/shared preference (cudaFuncCachePrefer...)
 * @param block_threads     threads per block of the occupancy query
 * @param dynamic_smem      dynamic shared memory per block of the occupancy query, in bytes
 * @return what the driver reports after both settings
 * @throws std::invalid_argument for a carve-out outside -1..100 or block_threads outside
 * 1..1024; cudalab::CudaError when a CUDA call fails
 */
SmemConfigReport configure_smem(const void* kernel, int carveout_percent, cudaFuncCache preference,
                                int block_threads, std::size_t dynamic_smem = 0);

// ---------------------------------------------------------------------------
// The tiled matmuls in one table (the demo's rows, the grader's race against the baseline)
// ---------------------------------------------------------------------------

/// A launcher of the table: C = A * B over all of C, with matmul_sync()'s arguments.
using MatmulLauncher = void (*)(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                                cudaStream_t stream);

/// One way to feed the tiles of the tiled matmul: what the demo times and the grader checks of
/// it. The carve-out (part 4) is not here: it configures a kernel, it does not multiply.
struct Technique {
  const char* name;   ///< in test and measurement names, as `<name>_kernel()`: "register_prefetch"
  const char* title;  ///< its row in the demo's table
  MatmulLauncher launcher;          ///< C = A * B for the sizes k_n_multiples_of_4 says
  cudalab::KernelInfo (*kernel)();  ///< the kernel its launcher runs
  /// Whether its launcher takes k and n multiples of 4 alone (rows of A and B on 16-byte
  /// boundaries, for the bulk copies; operands as cudaMalloc gives them); the others take every
  /// positive size.
  bool k_n_multiples_of_4;
  bool given;  ///< the lab's given baseline rather than a student's kernel
};

/// The given synchronous baseline, then register prefetch, the two-stage cp.async pipeline and
/// the two-stage bulk-copy (TMA) pipeline.
inline constexpr Technique kTechniques[] = {
    {"sync", "synchronous (lab 04 static)", matmul_sync, sync_kernel, false, true},
    {"register_prefetch", "register prefetch", matmul_register_prefetch, register_prefetch_kernel,
     false, false},
    {"pipelined", "two-stage cp.async", matmul_pipelined, pipelined_kernel, false, false},
    {"tma", "two-stage bulk copy (TMA)", matmul_tma, tma_kernel, true, false},
};

}  // namespace lab12
