// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file sgemm.cuh
 * @brief Lab 13 interface: an FP32 matrix product (SGEMM) on the CUDA cores, in stages that
 * each remove the bottleneck of the one before, measured against cuBLAS SGEMM:
 * 2-D block tiling with a register tile per thread, float4 loads with a transposed A tile,
 * warp tiling, a multi-stage cp.async pipeline, a block-index swizzle for L2 reuse, a
 * CPU occupancy calculator checked against the CUDA runtime's, and stream-K for the last wave.
 *
 * All matrices are row-major floats in device memory: A is m x k, B is k x n and
 * C = A * B is m x n (element (r, c) of C at r * n + c). Every launcher accepts any positive
 * m, n, k (tile edges and rows that are not 16-byte aligned included), enqueues on
 * @p stream, checks the launch (CUDA_CHECK_LAST_LAUNCH), does not synchronize, and throws
 * std::invalid_argument for non-positive sizes.
 */
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>

#include "cublas_ref.cuh"
#include "cudalab/launch_checks.hpp"

namespace lab13 {

// ---------------------------------------------------------------------------
// Stage 1: 2-D block tiling with a register tile per thread (block_tiling.cu)
// ---------------------------------------------------------------------------

/// Stage 1 tiles: a block of kBlockThreads threads computes a kBlockM x kBlockN tile of C,
/// kBlockK columns of A (rows of B) per step; each thread a kThreadM x kThreadN register tile.
inline constexpr int kBlockM = 128;
inline constexpr int kBlockN = 128;
inline constexpr int kBlockK = 8;
inline constexpr int kThreadM = 8;
inline constexpr int kThreadN = 8;
inline constexpr int kBlockThreads = (kBlockM / kThreadM) * (kBlockN / kThreadN);
static_assert(kBlockThreads == 256, "stage 1-3 blocks have 256 threads");
static_assert(kBlockM * kBlockK % kBlockThreads == 0 && kBlockK * kBlockN % kBlockThreads == 0,
              "every thread stages the same number of elements of each tile");

/// Stage 1: C = A * B, one kBlockM x kBlockN tile of C per block (grid x over column tiles, y
/// over row tiles), kThreadM x kThreadN results per thread accumulated in registers.
void sgemm_block_tiled(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                       cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// Stage 2: float4 loads and a transposed A tile (vectorized.cu)
// ---------------------------------------------------------------------------

/// Stage 2: stage 1's tiles, loaded from global memory 16 bytes at a time (where the rows
/// are 16-byte aligned) and A's tile stored transposed, so a thread reads its kThreadM
/// elements of A's column with two 16-byte shared loads.
void sgemm_vectorized(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                      cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// Stage 3: warp tiling (warp_tiling.cu)
// ---------------------------------------------------------------------------

/// Stage 3 warp tile: each of the 8 warps of a 128 x 128 block owns a kWarpM x kWarpN tile
/// of C; its 32 lanes form a kWarpLanesM x kWarpLanesN grid, each lane 8 x 8 results in
/// 4 x 4 chunks spread over the warp tile.
inline constexpr int kWarpM = 64;
inline constexpr int kWarpN = 32;
inline constexpr int kWarpLanesM = 8;
inline constexpr int kWarpLanesN = 4;
static_assert(kWarpLanesM * kWarpLanesN == 32, "a warp has 32 lanes");
static_assert((kBlockM / kWarpM) * (kBlockN / kWarpN) * 32 == kBlockThreads,
              "the warp tiles cover the block tile");
static_assert(kWarpM == kWarpLanesM * 4 * 2 && kWarpN == kWarpLanesN * 4 * 2,
              "each lane holds 2 x 2 chunks of 4 x 4 results");

/// Stage 3: stage 2 with a warp-tiled assignment of results to threads.
void sgemm_warp_tiled(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                      cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// Stages 4 and 5: a multi-stage cp.async pipeline and a block swizzle (pipeline.cu)
// ---------------------------------------------------------------------------

/// Warps of a pipelined block along m and n; each warp computes a 64 x 64 tile of C with
/// 4 x 8 lanes of 16 x 8 results (how many FFMA per shared word that buys is PART2.md's q1).
inline constexpr int kPipeWarpsM = 2;
inline constexpr int kPipeWarpsN = 4;
inline constexpr int kPipeThreadM = 16;
inline constexpr int kPipeThreadN = 8;
inline constexpr int kPipeWarpTile = 64;
inline constexpr int kPipeBlockM = kPipeWarpsM * kPipeWarpTile;  ///< rows of C per block
inline constexpr int kPipeBlockN = kPipeWarpsN * kPipeWarpTile;  ///< columns of C per block
inline constexpr int kPipeBlockK = 16;                           ///< k per pipeline stage
inline constexpr int kPipeStages = 3;                            ///< stages in shared memory
inline constexpr int kPipeThreads = kPipeWarpsM * kPipeWarpsN * 32;
/// Row pitch of the transposed A tile in floats: a multiple of 4 (16-byte shared loads).
inline constexpr int kPipeAPitch = kPipeBlockM + 4;
/// Dynamic shared memory of a pipelined block: kPipeStages x (A tile + B tile).
inline constexpr std::size_t kPipeSmemBytes =
    std::size_t(kPipeStages) * kPipeBlockK * (kPipeAPitch + kPipeBlockN) * sizeof(float);
/// Tile rows per swizzle group (stage 5): consecutive blocks walk down kSwizzleGroup rows of
/// tiles before moving one tile column right.
inline constexpr int kSwizzleGroup = 8;
static_assert(kPipeStages >= 2, "a pipeline needs at least two stages");
static_assert(kPipeBlockM * kPipeBlockK % kPipeThreads == 0, "A tile: equal share per thread");
static_assert(kPipeBlockK * kPipeBlockN % (4 * kPipeThreads) == 0,
              "B tile: equal share of 16-byte chunks per thread");

/// Position of a tile of C in the grid of tiles.
struct TileCoord {
  int row;  ///< tile row (0 .. tiles_m - 1)
  int col;  ///< tile column (0 .. tiles_n - 1)
};

/**
 * @brief Stage 5: the tile of C that block @p block (0 .. tiles_m * tiles_n - 1, the linear
 * block index) computes, in groups of @p group tile rows: the blocks of a group walk down
 * its rows first, then move one column right, so blocks running at the same time share the
 * A rows and B columns they read in L2. The last group may have fewer rows. Must be a
 * bijection onto all tiles_m x tiles_n tiles for any group >= 1.
 */
__host__ __device__ TileCoord swizzle_tile(int block, int tiles_m, int tiles_n, int group);

/// Stage 4: the pipelined kernel, blocks in row-major order (block b -> tile row
/// b / tiles_n, column b % tiles_n), a 1-D grid of tiles_m x tiles_n blocks.
void sgemm_pipelined(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                     cudaStream_t stream = nullptr);

/// Stage 5: the pipelined kernel with blocks mapped to tiles by swizzle_tile(kSwizzleGroup).
void sgemm_swizzled(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                    cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// Stage 6: occupancy (occupancy.cu) and the lab's kernels as the runtime sees them
// ---------------------------------------------------------------------------

/// What a kernel asks of an SM, per block.
struct KernelResources {
  int threads = 0;                   ///< threads per block
  int registers = 0;                 ///< registers per thread (cudaFuncAttributes::numRegs)
  std::size_t static_smem = 0;       ///< static shared memory per block, bytes
  std::size_t dynamic_smem = 0;      ///< dynamic shared memory per block, bytes
  std::size_t max_dynamic_smem = 0;  ///< the kernel's dynamic limit (48 KB unless raised)
};

/// The per-SM limits of a GPU; the defaults are those of compute capability 9.0 (H100, H200).
struct SmLimits {
  int warp_size = 32;
  int max_threads_per_block = 1024;
  int max_warps_per_sm = 64;  ///< 2048 threads
  int max_blocks_per_sm = 32;
  int registers_per_sm = 65536;
  int max_registers_per_thread = 255;
  int register_unit = 256;                    ///< registers are given to warps in units of this
  int sub_partitions = 4;                     ///< register file quarters (one per SM sub-partition)
  std::size_t smem_per_sm = 233472;           ///< 228 KB
  std::size_t smem_per_block = 49152;         ///< without opting in (48 KB)
  std::size_t smem_per_block_optin = 232448;  ///< 227 KB
  std::size_t reserved_smem_per_block = 1024;  ///< the driver's reservation per block
  std::size_t smem_unit = 128;                 ///< shared memory is given to blocks in these units
};

/// Which resource bounds the blocks per SM.
enum class Limiter { kNone, kThreads, kBlocks, kRegisters, kSharedMemory, kDoesNotFit };

/// What occupancy() found.
struct Occupancy {
  int blocks_per_sm = 0;             ///< resident blocks per SM (0: the block cannot run)
  int warps_per_sm = 0;              ///< blocks_per_sm x warps per block
  Limiter limiter = Limiter::kNone;  ///< the bound that gave blocks_per_sm (the first, in the
                                     ///< order threads, blocks, registers, shared memory)
};

/**
 * @brief Stage 6: resident blocks per SM of a kernel, computed on the CPU the way the CUDA
 * runtime does (cudaOccupancyMaxActiveBlocksPerMultiprocessor, default carve-out): the
 * minimum of the warp slots, the block slots, the register file (registers per warp rounded
 * up to register_unit, warps per sub-partition) and the shared memory (per block: static +
 * dynamic + reserved rounded up to smem_unit).
 */
Occupancy occupancy(const KernelResources& kernel, const SmLimits& sm = SmLimits{});

// ---------------------------------------------------------------------------
// Stage 7: stream-K (stream_k.cu; lab 13 part 3, PART3.md)
// ---------------------------------------------------------------------------

/**
 * @brief The schedule of one stream-K product (stage 7), computed on the host.
 *
 * The tiles of C (kPipeBlockM x kPipeBlockN, numbered in swizzle_tile() order) are split in
 * two: tiles 0 .. dp_tiles - 1 run whole, one per block, as whole waves of `slots` blocks
 * (the data-parallel or DP kernel); the k iterations (kPipeBlockK columns of A each) of the
 * last sk_tiles tiles (the tail) are split evenly over sk_blocks blocks of the tail kernel.
 * Tail iterations are numbered tile-major: iteration i of tail tile t (tile dp_tiles + t) is
 * t * iters + i. Tail block b runs iterations [sk_begin(b), sk_begin(b + 1)), cut where a
 * tile ends into at most 2 segments.
 */
struct StreamKPlan {
  int tiles = 0;      ///< tiles of C: ceil(m / kPipeBlockM) x ceil(n / kPipeBlockN)
  int iters = 0;      ///< k iterations per tile: ceil(k / kPipeBlockK)
  int slots = 0;      ///< blocks the GPU runs at once (SMs x resident blocks per SM)
  int dp_tiles = 0;   ///< tiles run whole by the DP kernel (a multiple of slots, or all)
  int sk_tiles = 0;   ///< tiles whose iterations the tail kernel splits (tiles - dp_tiles)
  int sk_blocks = 0;  ///< blocks of the tail kernel: slots when sk_tiles > 0, else 0
  int sk_base = 0;    ///< every tail block runs sk_base iterations ...
  int sk_extra = 0;   ///< ... and tail blocks 0 .. sk_extra - 1 one more

  /// The first tail iteration of tail block @p block (0 .. sk_blocks); sk_begin(sk_blocks)
  /// is sk_tiles * iters.
  __host__ __device__ int sk_begin(int block) const {
    return block * sk_base + (block < sk_extra ? block : sk_extra);
  }
  /// The tail block that runs tail iteration @p iter (0 .. sk_tiles * iters - 1).
  __host__ __device__ int sk_block_of(int iter) const {
    const int big = sk_extra * (sk_base + 1);  // iterations of the blocks with one more
    return iter < big ? iter / (sk_base + 1) : sk_extra + (iter - big) / sk_base;
  }
};

/// The tail is left to the DP kernel (no stream-K) when it fills at least this many tenths of
/// a wave: the last wave is then nearly full anyway, and splitting costs more than it saves.
inline constexpr int kStreamKFallbackTenths = 9;

/**
 * @brief Stage 7: the plan of an m x n x k product on @p slots concurrent blocks (pure host
 * function): dp_tiles = the whole waves, floor(tiles / slots) x slots; the rest is the tail,
 * split over @p slots tail blocks as evenly as whole iterations allow (sk_base =
 * floor(sk_tiles x iters / slots), the first sk_extra blocks one more). Fallback: no tail
 * (dp_tiles = tiles, sk_tiles = sk_blocks = sk_base = sk_extra = 0) when tiles % slots is 0 or
 * at least kStreamKFallbackTenths tenths of slots (10 x (tiles % slots) >= 9 x slots).
 * Throws std::invalid_argument for non-positive sizes or slots, or when tiles x iters passes
 * INT_MAX (iterations are counted in int).
 */
StreamKPlan stream_k_plan(int m, int n, int k, int slots);

/// Blocks of the stream-K kernels the current device runs at once: its SMs x resident blocks
/// per SM of the kernels (1 on compute capability 9.0). Queries the device once per device.
int stream_k_slots();

/**
 * @brief Bytes of workspace sgemm_stream_k() needs for @p plan: sk_blocks tile counters (int,
 * padded to 256 bytes; a tail has fewer tiles than blocks, and the counters sit at the same
 * place for every shape), then 2 partial tiles (kPipeBlockM x kPipeBlockN floats) per tail
 * block. 0 when the plan has no tail.
 */
std::size_t stream_k_workspace_bytes(const StreamKPlan& plan);
/// stream_k_workspace_bytes(stream_k_plan(m, n, k, stream_k_slots())).
std::size_t stream_k_workspace_bytes(int m, int n, int k);

/**
 * @brief Stage 7: C = A * B with stream-K over the tail: the DP kernel (stage 5's kernel with
 * double-buffered register fragments) runs the plan's whole waves, then the tail kernel, its
 * programmatic dependent in the stream (it may start as the last wave's blocks leave their SMs
 * and completes after the DP grid), splits the k iterations of the remaining tiles evenly over one
 * wave of blocks and fixes each tail tile up without waiting ("last arriver": every block stores
 * its partial tile and counts itself on the tile's counter; the block that counts last adds all
 * partials in block order, stores C and sets the counter back to 0).
 *
 * @p d_workspace holds at least stream_k_workspace_bytes(m, n, k) bytes (may be null when
 * that is 0), 16-byte aligned, zeroed ONCE by the caller before its first use (the counters
 * are left at 0 by every launch); launches that share a workspace must not overlap. Throws
 * std::invalid_argument for non-positive sizes or a workspace that is too small. The launches
 * are kernel nodes only (no allocation, memset or copy), so a graph can capture them.
 */
void sgemm_stream_k(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                    void* d_workspace, std::size_t workspace_bytes, cudaStream_t stream = nullptr);

/// Stage 7's kernels: the DP kernel (a 1-D grid of plan.dp_tiles blocks) and the tail kernel
/// (plan.sk_blocks blocks), each kPipeThreads threads and kPipeSmemBytes of dynamic shared
/// memory; @p vector_path as for the pipelined kernels (n % 4 == 0, B and C 16-byte aligned).
cudalab::KernelInfo stream_k_dp_kernel(bool vector_path = true);
cudalab::KernelInfo stream_k_tail_kernel(bool vector_path = true);

/**
 * @brief The kernels the launchers of stages 1-5 launch, as the graders and the occupancy
 * tests see them (function, name, block, dynamic shared memory; no CUDA call). Each kernel is
 * private to its stage's file. For a templated kernel, @p vector_path picks the instance: the
 * 16-byte path (true: what a launcher runs when every row it reads and writes 16 bytes at a
 * time is 16-byte aligned) or the scalar one. The pipelined kernels' dynamic_smem
 * (kPipeSmemBytes) is above 48 KB: their launchers opt in
 * (cudaFuncAttributeMaxDynamicSharedMemorySize) before the first launch.
 */
cudalab::KernelInfo block_tiled_kernel();
cudalab::KernelInfo vectorized_kernel(bool vector_path = true);
cudalab::KernelInfo warp_tiled_kernel(bool vector_path = true);
cudalab::KernelInfo pipelined_kernel(bool vector_path = true);
cudalab::KernelInfo swizzled_kernel(bool vector_path = true);

// ---------------------------------------------------------------------------
// The techniques of stages 1-5 in one table (the demo's rows, the grader's tests)
// ---------------------------------------------------------------------------

/// A launcher of stages 1-5 (sgemm_block_tiled() .. sgemm_swizzled()).
using SgemmLauncher = void (*)(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                               cudaStream_t stream);

/// Shapes whose rows of A, B and C are whole float4 (k and n multiples of 4): with 16-byte
/// aligned operands, stages 2 and 3 read and write them 16 bytes at a time.
inline bool float4_rows_of_a_b_c(int /*m*/, int n, int k) {
  return k % 4 == 0 && n % 4 == 0;
}
/// Shapes whose rows of B and C are whole float4 (n a multiple of 4): with 16-byte aligned
/// operands, the pipelined kernels copy B and store C 16 bytes at a time (A 4 bytes at a time).
inline bool float4_rows_of_b_c(int /*m*/, int n, int /*k*/) {
  return n % 4 == 0;
}

/// One technique of stages 1-5: what the demo times and the grader checks of it.
struct Technique {
  const char* name;        ///< its name in messages and measurements, e.g. "block_tiled"
  const char* title;       ///< its row in the demo's table
  SgemmLauncher launcher;  ///< takes any positive m, n, k and any operand alignment
  /// The kernel its launcher runs: the instance of the 16-byte path (true) or the scalar one.
  cudalab::KernelInfo (*kernel)(bool vector_path);
  /// The shapes (m, n, k) that take the 16-byte path when the operands are 16-byte aligned;
  /// null where the technique has one path for every shape (stage 1).
  bool (*vector_path)(int m, int n, int k);
};

/// Stages 1-5 in order. Stage 6 (occupancy) has no kernel; stage 7's launcher,
/// sgemm_stream_k(), takes one more argument (the buffer of partial tiles), so it is not here.
inline constexpr Technique kTechniques[] = {
    {"block_tiled", "1 block tiling 8x8/thread", sgemm_block_tiled,
     [](bool) { return block_tiled_kernel(); }, nullptr},
    {"vectorized", "2 float4 + transposed A", sgemm_vectorized, vectorized_kernel,
     float4_rows_of_a_b_c},
    {"warp_tiled", "3 warp tiling", sgemm_warp_tiled, warp_tiled_kernel, float4_rows_of_a_b_c},
    {"pipelined", "4 cp.async pipeline 16x8/thread", sgemm_pipelined, pipelined_kernel,
     float4_rows_of_b_c},
    {"swizzled", "5 + block swizzle", sgemm_swizzled, swizzled_kernel, float4_rows_of_b_c},
};

// Given: cuBLAS SGEMM (FP32, default math mode: no TF32), the baseline
// (labs/common/cublas_ref, shared with labs 09 and 14)
using cublas_ref::cublas_sgemm;
using cublas_ref::CublasHandle;

}  // namespace lab13
