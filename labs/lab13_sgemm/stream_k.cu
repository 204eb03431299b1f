// SPDX-License-Identifier: BSD-3-Clause
// Lab 13, stage 7: stream-K for the last wave. Stage 5's tiles, warps and copies, with the
// register fragments double-buffered (the next kk's fragments load while this kk's FFMAs run).
// The whole waves of tiles run one tile per block (the DP kernel); the k iterations of the
// tiles left over (the tail) are split evenly over one wave of blocks (the tail kernel), which
// fix each tail tile up without waiting: every block stores its partial tile, the block that
// counts itself last on the tile's counter adds them all in block order and stores C.
#include <atomic>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cudalab/check.cuh"
#include "cudalab/launch_checks.hpp"
#include "sgemm.cuh"

namespace lab13 {

StreamKPlan stream_k_plan(int m, int n, int k, int slots) {
  cudalab::check_positive_dims("stream_k_plan", m, n, k);
  if (slots <= 0) throw std::invalid_argument("stream_k_plan: slots must be positive");
  StreamKPlan p;
  p.tiles = ((m + kPipeBlockM - 1) / kPipeBlockM) * ((n + kPipeBlockN - 1) / kPipeBlockN);
  p.iters = (k + kPipeBlockK - 1) / kPipeBlockK;
  p.slots = slots;
  if (static_cast<long long>(p.tiles) * p.iters > INT_MAX) {
    throw std::invalid_argument("stream_k_plan: more k iterations than an int counts");
  }
  // TODO(lab13): stage 7, the plan. Whole waves of slots tiles go to the DP kernel; the tail
  // (tiles % slots) goes to slots tail blocks, its sk_tiles x iters iterations split as
  // evenly as whole iterations allow (sk_base each, one more for the first sk_extra blocks).
  // No tail (all tiles DP) when tiles % slots is 0 or fills at least kStreamKFallbackTenths
  // tenths of a wave.
  // HINT: the 4096^3 product has 512 tiles; on 132 slots that is 3 waves and 116 tiles of tail.
  // HINT: sk_begin() and sk_block_of() in sgemm.cuh read sk_base and sk_extra: check yours
  // HINT: against them on paper (13 iterations over 4 blocks: 4, 3, 3, 3).
  // Roughly 10 lines.
  cudalab::unused(kStreamKFallbackTenths);
  // END TODO(lab13)
  return p;
}

namespace {

/// Bytes of the workspace's tile counters: one int per tail block, padded to 256 bytes. A tail
/// has fewer tiles than blocks, and the counters sit at the same place for every shape on a GPU,
/// so a workspace zeroed once serves any sequence of shapes (a partial tile never lands where a
/// later shape's counters are).
std::size_t counter_bytes(const StreamKPlan& plan) {
  return (std::size_t(plan.sk_blocks) * sizeof(int) + 255) / 256 * 256;
}

}  // namespace

std::size_t stream_k_workspace_bytes(const StreamKPlan& plan) {
  if (plan.sk_tiles <= 0 || plan.sk_blocks <= 0) return 0;
  const std::size_t counters = counter_bytes(plan);
  const std::size_t partial = std::size_t(kPipeBlockM) * kPipeBlockN * sizeof(float);
  return counters + 2 * std::size_t(plan.sk_blocks) * partial;
}

namespace {

constexpr int kThreads = kPipeThreads;
constexpr int kTM = kPipeThreadM;                  // results per thread along m (4 chunks of 4)
constexpr int kTN = kPipeThreadN;                  // results per thread along n (2 chunks of 4)
constexpr int kLanesN = kPipeWarpTile / kTN;       // 8 lanes of a warp along n
constexpr int kChunkRowStep = 4 * (32 / kLanesN);  // 16 rows between a lane's row chunks
constexpr int kChunkColStep = 4 * kLanesN;         // 32 columns between its column chunks
constexpr int kStageFloats = kPipeBlockK * (kPipeAPitch + kPipeBlockN);
static_assert(kTM % 4 == 0 && kTN % 4 == 0, "a lane's results are 4 x 4 chunks");

/// This thread's kTM x kTN results.
using Acc = float[kTM][kTN];

/// The first row and column (within the block's tile) of this thread's chunks.
struct LanePlace {
  int row;
  int col;
};
__device__ __forceinline__ LanePlace lane_place() {
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  return {(warp / kPipeWarpsN) * kPipeWarpTile + (lane / kLanesN) * 4,
          (warp % kPipeWarpsN) * kPipeWarpTile + (lane % kLanesN) * 4};
}

/// Given: cp.async of kBytes (4 through L1, 16 around it) global -> shared; zeros when !in
/// (the same instructions as pipeline.cu's cp_async_4 and cp_async_16).
template <int kBytes>
__device__ __forceinline__ void copy_async(float* dst, const float* src, bool in) {
  static_assert(kBytes == 4 || kBytes == 16, "cp.async copies 4, 8 or 16 bytes");
  const auto to = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  if constexpr (kBytes == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(to), "l"(src),
                 "r"(in ? 16 : 0));
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(to), "l"(src),
                 "r"(in ? 4 : 0));
  }
}

// TODO(lab13): stage 7, the main loop over k tiles [t0, t1) of the tile at (row0, col0): your
// stage 4 kernel's copies (A transposed into as[kk][row], B into bs[kk][col], zeros outside
// the matrices; 16-byte B copies when kVec), with double-buffered register fragments: keep
// two sets of fragments and load kk + 1's while kk's FFMAs run; across the end of a k tile,
// wait for the next tile and pass the barrier at kk = kPipeBlockK - 1, before its last FFMAs.
// Start with a barrier (a second segment reuses the stages) and zero @p acc; leave no copy in
// flight. Shared memory: kPipeStages stages of [A tile | B tile], kStageFloats floats each.
// HINT: with fragments double-buffered, all kPipeStages stages can hold tiles: fill them all
// HINT: in the prologue, then wait with kPipeStages - 2 groups pending at the end of a tile.
// HINT: copy_async() above is given (pipeline.cu's cp_async_4/16); the commits and waits
// HINT: are PTX one-liners as in pipeline.cu's wrappers.
// Roughly 97 lines.
template <bool kVec>
__device__ __forceinline__ void multiply_k_range(const float* __restrict__ a,
                                                 const float* __restrict__ b, int m, int n, int k,
                                                 int row0, int col0, int t0, int t1,
                                                 float* __restrict__ smem, Acc& acc) {
  cudalab::unused(a, b, m, n, k, row0, col0, t0, t1, smem, kStageFloats);
#pragma unroll
  for (int i = 0; i < kTM; ++i) {
#pragma unroll
    for (int j = 0; j < kTN; ++j) acc[i][j] = 0.0f;
  }
}
// END TODO(lab13)

/// Given: stores this thread's results of the tile at (row0, col0) where they lie inside C
/// (float4 stores when kVec; no checks at all on a tile wholly inside C).
template <bool kVec>
__device__ __forceinline__ void store_tile(float* __restrict__ c, int m, int n, int row0, int col0,
                                           const Acc& acc) {
  const LanePlace at = lane_place();
  const bool inside = row0 + kPipeBlockM <= m && col0 + kPipeBlockN <= n;
#pragma unroll
  for (int i = 0; i < kTM; ++i) {
    const int r = row0 + at.row + (i / 4) * kChunkRowStep + i % 4;
    if (!inside && r >= m) continue;
    float* const c_row = c + static_cast<std::size_t>(r) * n;
#pragma unroll
    for (int q = 0; q < kTN / 4; ++q) {
      const int cc = col0 + at.col + q * kChunkColStep;
      const float* const v = &acc[i][4 * q];
      if (kVec) {
        if (inside || cc < n) *reinterpret_cast<float4*>(c_row + cc) = {v[0], v[1], v[2], v[3]};
      } else {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          if (inside || cc + e < n) c_row[cc + e] = v[e];
        }
      }
    }
  }
}

/// Given: this thread's float4 number @p q (0 .. kTM * kTN / 4 - 1, acc[q / 2][4 * (q % 2) ..])
/// of partial tile @p slot in the workspace: a partial is kTM * kTN / 4 float4 per thread,
/// stored so that a warp's 32 threads touch 512 contiguous bytes.
__device__ __forceinline__ float4* partial_at(float* partials, int slot, int q) {
  return reinterpret_cast<float4*>(partials) +
         (static_cast<std::size_t>(slot) * (kTM * kTN / 4) + q) * kThreads + threadIdx.x;
}

// TODO(lab13): stage 7, the tile order: the tile that number @p tile (0 .. tiles_m x tiles_n -
// 1) stands for, in your stage 5 order, swizzle_tile(tile, tiles_m, tiles_n, kSwizzleGroup).
// HINT: device code cannot call pipeline.cu's swizzle_tile(): the lab's files are compiled
// HINT: one by one (no relocatable device code), so write the order here again.
// Roughly 5 lines.
__device__ __forceinline__ TileCoord tile_at(int tile, int tiles_m, int tiles_n) {
  cudalab::unused(tile, tiles_m, tiles_n);
  return TileCoord{0, 0};
}
// END TODO(lab13)

/// Tiles of C along m and n.
__device__ __forceinline__ int tiles_along(int extent, int tile) {
  return (extent + tile - 1) / tile;
}

/// The DP kernel: block b computes tile tile_at(b) over all of k.
template <bool kVec>
__global__ void __launch_bounds__(kThreads, 1)
    sgemm_stream_k_dp_kernel(const float* __restrict__ a, const float* __restrict__ b,
                             float* __restrict__ c, int m, int n, int k) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // Programmatic dependent launch: once every DP block has started, the tail grid may start on
  // the SMs the last wave leaves, instead of after the whole DP grid (it reads nothing DP writes).
  cudaTriggerProgrammaticLaunchCompletion();
#endif
  extern __shared__ float4 smem_f4[];
  const TileCoord tile = tile_at(static_cast<int>(blockIdx.x), tiles_along(m, kPipeBlockM),
                                 tiles_along(n, kPipeBlockN));
  Acc acc;
  multiply_k_range<kVec>(a, b, m, n, k, tile.row * kPipeBlockM, tile.col * kPipeBlockN, 0,
                         tiles_along(k, kPipeBlockK), reinterpret_cast<float*>(smem_f4), acc);
  store_tile<kVec>(c, m, n, tile.row * kPipeBlockM, tile.col * kPipeBlockN, acc);
}

/// The tail kernel: block b runs tail iterations [plan.sk_begin(b), plan.sk_begin(b + 1)).
/// @p partials holds 2 partial tiles per block (slot 2b: its first segment, 2b + 1: its
/// second); @p counters one int per tail tile, 0 before the launch and after it.
template <bool kVec>
__global__ void __launch_bounds__(kThreads, 1)
    sgemm_stream_k_tail_kernel(const float* __restrict__ a, const float* __restrict__ b,
                               float* __restrict__ c, int m, int n, int k, StreamKPlan plan,
                               float* __restrict__ partials, int* __restrict__ counters) {
  extern __shared__ float4 smem_f4[];
  float* const smem = reinterpret_cast<float*>(smem_f4);
  const int tiles_m = tiles_along(m, kPipeBlockM), tiles_n = tiles_along(n, kPipeBlockN);
  const int block = static_cast<int>(blockIdx.x);
  Acc acc;
  // TODO(lab13): stage 7, the tail. Walk this block's iterations in segments (a segment ends
  // where the block's range or its tile ends: at most 2), run multiply_k_range() on each
  // (tail tile t is tile_at(plan.dp_tiles + t, ...)), then the fixup: store the
  // partial (slot 2 * block for the block's first segment, + 1 for its second), make it
  // visible to the GPU, count this block on counters[t]; the block that counts last adds the
  // partials of every block holding a piece of tile t IN BLOCK ORDER (whoever is last: the
  // same sum), stores C with store_tile() and puts the counter back to 0. No block waits.
  // HINT: the blocks of tile t are plan.sk_block_of() of its first and its last iteration.
  // HINT: the CUDA C++ Programming Guide's __threadfence() example ("last block") is this
  // HINT: pattern: fence, barrier, one atomicAdd per block, the answer via shared memory.
  // HINT: read the partials with __ldcg (cached in L2 only, not in this SM's L1).
  // Roughly 45 lines.
  cudalab::unused(a, b, c, m, n, k, plan, counters, smem, tiles_m, tiles_n, block, acc,
                  partial_at(partials, 0, 0));
  // END TODO(lab13)
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();  // end after the DP grid: later work in the stream reads C
#endif
}

/// True when B and C can be read and written 16 bytes at a time (n % 4 == 0, aligned).
bool rows_of_b_and_c_aligned(const float* d_b, const float* d_c, int n) {
  return n % 4 == 0 && (reinterpret_cast<std::uintptr_t>(d_b) % 16 == 0) &&
         (reinterpret_cast<std::uintptr_t>(d_c) % 16 == 0);
}

/// @p kernel with its dynamic shared-memory limit raised to kPipeSmemBytes (once per process).
template <auto kKernel>
const void* opted_in() {
  static const bool raised = [] {
    CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kKernel),
                                    cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(kPipeSmemBytes)));
    return true;
  }();
  return raised ? reinterpret_cast<const void*>(kKernel) : nullptr;
}

/// Resident blocks per SM of @p kernel (opted in) at kPipeThreads threads.
int blocks_per_sm(const void* kernel) {
  int blocks = 0;
  CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kThreads, kPipeSmemBytes));
  return blocks;
}

}  // namespace

int stream_k_slots() {
  constexpr int kDevices = 64;
  static std::atomic<int> cached[kDevices];
  int dev = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  if (dev >= 0 && dev < kDevices && cached[dev].load() > 0) return cached[dev].load();
  int sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  int per_sm = blocks_per_sm(opted_in<sgemm_stream_k_dp_kernel<true>>());
  for (const void* f :
       {opted_in<sgemm_stream_k_dp_kernel<false>>(), opted_in<sgemm_stream_k_tail_kernel<true>>(),
        opted_in<sgemm_stream_k_tail_kernel<false>>()}) {
    const int b = blocks_per_sm(f);
    per_sm = b < per_sm ? b : per_sm;
  }
  if (per_sm <= 0)
    throw std::runtime_error("stream_k_slots: the stream-K kernels do not fit an SM");
  if (dev >= 0 && dev < kDevices) cached[dev].store(sms * per_sm);
  return sms * per_sm;
}

std::size_t stream_k_workspace_bytes(int m, int n, int k) {
  return stream_k_workspace_bytes(stream_k_plan(m, n, k, stream_k_slots()));
}

void sgemm_stream_k(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                    void* d_workspace, std::size_t workspace_bytes, cudaStream_t stream) {
  cudalab::check_positive_dims("sgemm_stream_k", m, n, k);
  const StreamKPlan plan = stream_k_plan(m, n, k, stream_k_slots());
  const std::size_t need = stream_k_workspace_bytes(plan);
  if (workspace_bytes < need || (need > 0 && d_workspace == nullptr) ||
      reinterpret_cast<std::uintptr_t>(d_workspace) % 16 != 0) {
    throw std::invalid_argument("sgemm_stream_k: the workspace must be 16-byte aligned and hold " +
                                std::to_string(need) + " bytes; got " +
                                std::to_string(workspace_bytes));
  }
  if (plan.dp_tiles > cudalab::kMaxGridX) {
    throw std::invalid_argument("sgemm_stream_k: " + std::to_string(plan.dp_tiles) +
                                " tiles, more blocks than gridDim.x allows");
  }
  const bool vec = rows_of_b_and_c_aligned(d_b, d_c, n);
  if (plan.dp_tiles > 0) {
    const void* f = vec ? opted_in<sgemm_stream_k_dp_kernel<true>>()
                        : opted_in<sgemm_stream_k_dp_kernel<false>>();
    void* args[] = {&d_a, &d_b, &d_c, &m, &n, &k};
    CUDA_CHECK(cudaLaunchKernel(f, dim3(static_cast<unsigned>(plan.dp_tiles)), dim3(kThreads), args,
                                kPipeSmemBytes, stream));
  }
  if (plan.sk_blocks > 0) {
    auto* const bytes = static_cast<unsigned char*>(d_workspace);
    int* counters = reinterpret_cast<int*>(bytes);
    float* partials = reinterpret_cast<float*>(bytes + counter_bytes(plan));
    StreamKPlan p = plan;
    const void* f = vec ? opted_in<sgemm_stream_k_tail_kernel<true>>()
                        : opted_in<sgemm_stream_k_tail_kernel<false>>();
    void* args[] = {&d_a, &d_b, &d_c, &m, &n, &k, &p, &partials, &counters};
    cudaLaunchAttribute overlap{};  // a programmatic dependent of the DP grid (compute 9.0 on)
    overlap.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    overlap.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(static_cast<unsigned>(plan.sk_blocks));
    config.blockDim = dim3(kThreads);
    config.dynamicSmemBytes = kPipeSmemBytes;
    config.stream = stream;
    config.attrs = &overlap;
    config.numAttrs = 1;
    CUDA_CHECK(cudaLaunchKernelExC(&config, f, args));
  }
  CUDA_CHECK_LAST_LAUNCH();
}

cudalab::KernelInfo stream_k_dp_kernel(bool vector_path) {
  const void* f = vector_path ? reinterpret_cast<const void*>(sgemm_stream_k_dp_kernel<true>)
                              : reinterpret_cast<const void*>(sgemm_stream_k_dp_kernel<false>);
  return {f, "sgemm_stream_k_dp_kernel", dim3(kThreads), kPipeSmemBytes};
}

cudalab::KernelInfo stream_k_tail_kernel(bool vector_path) {
  const void* f = vector_path ? reinterpret_cast<const void*>(sgemm_stream_k_tail_kernel<true>)
                              : reinterpret_cast<const void*>(sgemm_stream_k_tail_kernel<false>);
  return {f, "sgemm_stream_k_tail_kernel", dim3(kThreads), kPipeSmemBytes};
}

}  // namespace lab13
