// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file shared_memory.cuh
 * @brief Lab 04 interface: tiled matrix multiplication through shared memory, with a
 * static tile (size fixed at compile time) and a dynamic one (size chosen at run time), and
 * the table of the two (lab04::kTechniques).
 *
 * All matrices are row-major floats in device memory: A is m x k, B is k x n and
 * C = A * B is m x n (element (r, c) of C at r * n + c). Sizes are general: nothing
 * needs to be a multiple of a tile, so tile loads that fall outside A or B store zeros.
 * Launchers check their launch (CUDA_CHECK_LAST_LAUNCH) and do not synchronize.
 */
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "cudalab/launch_checks.hpp"

namespace lab04 {

// ---------------------------------------------------------------------------
// Baseline (given): one thread per element of C, every operand read from global memory.
// ---------------------------------------------------------------------------

/// Block edge of the naive kernel (16 x 16 threads, like the course's baseline).
inline constexpr int kNaiveBlock = 16;

/**
 * @brief C = A * B with one thread per element of C (naive_matmul.cu), @p block x @p block
 * threads per block.
 * @throws std::invalid_argument for non-positive sizes, a block of more than 1024 threads or
 * more than 65535 block rows
 */
void matmul_naive(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                  cudaStream_t stream = nullptr, int block = kNaiveBlock);

/// The kernel matmul_naive() launches (naive_matmul.cu): provenance, attributes.
cudalab::KernelInfo naive_kernel();

// ---------------------------------------------------------------------------
// Static tiles: `__shared__ float tile[T][T]`, T known at compile time.
// ---------------------------------------------------------------------------

/// Edge of the static tile: a block of kStaticTile x kStaticTile threads computes a
/// kStaticTile x kStaticTile tile of C.
inline constexpr int kStaticTile = 32;
static_assert(kStaticTile * kStaticTile <= 1024,
              "one thread per element of the C tile: TILE*TILE threads, and a block has at "
              "most 1024 threads");
static_assert(2 * kStaticTile * kStaticTile * sizeof(float) <= 48 * 1024,
              "static __shared__ arrays of a block may not exceed 48 KB (the A and B tiles)");
static_assert(kStaticTile % 32 == 0 || 32 % kStaticTile == 0,
              "keep warps aligned with tile rows: TILE a multiple or a divisor of 32");

/**
 * @brief Tiled C = A * B with two static kStaticTile x kStaticTile shared tiles
 * (tiled_static.cu: the kernel is yours, the launcher is given). Block (T, T), grid
 * (ceil(n / T), ceil(m / T)).
 * @throws std::invalid_argument for non-positive sizes or more than 65535 tile rows
 */
void matmul_tiled_static(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                         cudaStream_t stream = nullptr);

/// The kernel matmul_tiled_static() launches (tiled_static.cu): provenance, attributes.
cudalab::KernelInfo tiled_static_kernel();

// ---------------------------------------------------------------------------
// Dynamic tiles: one `extern __shared__ float smem[]` buffer, sized at launch and
// split into the A and B tiles with pointers.
// ---------------------------------------------------------------------------

/// What limits a block's shared memory and threads on a device.
struct SmemLimits {
  std::size_t per_block_default = 0;  ///< without opt-in (sharedMemPerBlock, 48 KB)
  std::size_t per_block_optin = 0;    ///< with opt-in (sharedMemPerBlockOptin; 227 KB on H100)
  int max_threads_per_block = 0;      ///< maxThreadsPerBlock (1024)
};

/// The limits of the current device (given; reads cudaDeviceProp).
SmemLimits current_smem_limits();

/// Shared memory a dynamic plan may use unless told otherwise: the no-opt-in limit.
inline constexpr std::size_t kDefaultDynamicBudget = 48 * 1024;

/**
 * @brief Shape of the dynamic tiles, chosen at run time.
 *
 * A block of tile x tile threads computes a tile x tile piece of C. Per step it stages
 * a tile x depth slice of A and a depth x tile slice of B in one dynamic buffer of
 * smem_bytes = 2 * tile * depth * sizeof(float) bytes: A at offset 0, B right after it.
 */
struct DynamicTilePlan {
  int tile = 0;                ///< edge of the C tile and of the thread block
  int depth = 0;               ///< k-extent of one staged slice; a multiple of tile
  std::size_t smem_bytes = 0;  ///< dynamic shared memory per block
  bool needs_optin = false;    ///< smem_bytes > limits.per_block_default
};

/**
 * @brief Chooses a plan for inner dimension @p k within @p budget_bytes.
 *
 * Rules, in order:
 * 1. tile = the largest of 32, 16, 8 with tile * tile <= limits.max_threads_per_block;
 * 2. the usable bytes are min(budget_bytes, limits.per_block_optin);
 * 3. depth = the largest multiple of tile whose two slices fit in the usable bytes;
 * 4. depth is capped at k rounded up to a multiple of tile (deeper slices would only
 *    hold zeros);
 * 5. smem_bytes = 2 * tile * depth * sizeof(float); needs_optin when smem_bytes exceeds
 *    limits.per_block_default.
 * @throws std::invalid_argument when k < 1, when no tile fits the thread limit, or when
 * the usable bytes cannot hold depth = tile
 */
DynamicTilePlan plan_dynamic_tile(const SmemLimits& limits, std::size_t budget_bytes, int k);

/**
 * @brief Tiled C = A * B with both tiles in dynamic shared memory, shaped by @p plan
 * (tiled_dynamic.cu): block (tile, tile), grid (ceil(n / tile), ceil(m / tile)),
 * plan.smem_bytes of dynamic shared memory. When the plan needs more than the default
 * 48 KB it first opts the kernel in (cudaFuncSetAttribute with
 * cudaFuncAttributeMaxDynamicSharedMemorySize) and asks for the largest shared-memory
 * carve-out. It does so on every call whose plan needs it, never relying on an earlier
 * call: a function attribute belongs to the process, and the grader puts it back to the
 * driver's defaults before each plan it judges.
 * @throws std::invalid_argument for non-positive sizes, more than 65535 tile rows or an
 * inconsistent plan (tile not in {8, 16, 32}, depth not a positive multiple of tile, wrong
 * smem_bytes)
 */
void matmul_tiled_dynamic(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                          const DynamicTilePlan& plan, cudaStream_t stream = nullptr);

/// The kernel matmul_tiled_dynamic() launches (tiled_dynamic.cu): provenance, attributes.
cudalab::KernelInfo tiled_dynamic_kernel();

// ---------------------------------------------------------------------------
// The two tiled matmuls in one table (the demo's rows, the grader's tests)
// ---------------------------------------------------------------------------

/// A tiled matmul launcher of the table, with matmul_tiled_dynamic()'s arguments (a technique
/// whose tiles are fixed at compile time ignores @p plan).
using TiledLauncher = void (*)(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                               const DynamicTilePlan& plan, cudaStream_t stream);

/// One way to declare the shared tiles of A and B: what the demo times and the grader checks of
/// it. Both take every shape (m, n, k). The naive kernel is not here: it stages nothing, and it
/// is the baseline both are timed against.
struct Technique {
  const char* name;   ///< in test and measurement names, as tiled_<name>.cu: "static", "dynamic"
  const char* title;  ///< its rows in the demo's table
  TiledLauncher launcher;           ///< C = A * B
  cudalab::KernelInfo (*kernel)();  ///< the kernel its launcher runs
  /// Whether its tile, depth and shared memory are the plan's (dynamic shared memory sized at
  /// launch); otherwise kStaticTile x kStaticTile tiles in static shared memory, whatever the plan.
  bool follows_plan;
};

/// The static tiles, then the dynamic ones.
inline constexpr Technique kTechniques[] = {
    {"static", "tiled static",
     [](const float* d_a, const float* d_b, float* d_c, int m, int n, int k, const DynamicTilePlan&,
        cudaStream_t stream) { matmul_tiled_static(d_a, d_b, d_c, m, n, k, stream); },
     tiled_static_kernel, false},
    {"dynamic", "tiled dynamic", matmul_tiled_dynamic, tiled_dynamic_kernel, true},
};

}  // namespace lab04
