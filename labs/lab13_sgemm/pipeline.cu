// SPDX-License-Identifier: BSD-3-Clause
// Lab 13, stages 4 and 5: a multi-stage cp.async pipeline of k tiles in shared memory and a
// block-index swizzle. Each block computes kPipeBlockM x kPipeBlockN of C; each warp 64 x 64
// of it; each thread 16 x 8 results (four 4-row chunks by two 4-column chunks), so a thread
// does 128 FFMA per 24 floats it reads from shared memory in each k step.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cudalab/check.cuh"
#include "cudalab/launch_checks.hpp"
#include "sgemm.cuh"

namespace lab13 {

__host__ __device__ TileCoord swizzle_tile(int block, int tiles_m, int tiles_n, int group) {
  // TODO(lab13): stage 5. Split the grid into groups of `group` tile rows (the last group may
  // have fewer). Inside a group, consecutive blocks walk DOWN the group's rows, then move one
  // tile column right.
  // HINT: how many blocks does a full group hold, and how many rows does the LAST group have?
  // HINT: try tiles_m = 5 with groups of 2 on paper; the SwizzleCpu tests check every small grid.
  // Roughly 6 lines.
  cudalab::unused(block, tiles_m, tiles_n, group);
  return TileCoord{0, 0};
  // END TODO(lab13)
}

namespace {

// Given: cp.async (PTX, compute capability 8.0+) wrappers. The copies bypass registers; a
// source size of 0 fills the destination with zeros (no read from global memory).

/// Copies 4 bytes global -> shared, or stores 0.0f when @p in is false.
__device__ __forceinline__ void cp_async_4(float* dst, const float* src, bool in) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(s), "l"(src),
               "r"(in ? 4 : 0));
}
/// Copies 16 bytes global -> shared (both 16-byte aligned), or stores zeros when @p in is false.
__device__ __forceinline__ void cp_async_16(float* dst, const float* src, bool in) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src),
               "r"(in ? 16 : 0));
}
/// Closes this thread's current group of copies.
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::);
}
/// Waits until at most @p kPending of this thread's committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

// TODO(lab13): stage 4 (and 6: __launch_bounds__). The kernel below, one block per tile of
// C (1-D grid; the tile from swizzle_tile() when kSwizzle, else row-major), kStages stages of
// an A tile stored TRANSPOSED (as[kk][row], row pitch BM + 4) and a B tile (bs[kk][col]) in
// dynamic shared memory, kept full by cp.async (a prologue, then one wait, one barrier and one
// commit per k tile), 16 x 8 accumulators per thread, stored where rows < m and cols < n.
// Elements outside A or B are copied as zeros (cp_async_4/16 with in = false). Put
// __launch_bounds__(threads, 1) on the kernel: 256 threads and ~200 registers fit once per SM.
// HINT: the handout's stage 4 asks what the prologue fills, what N the wait takes and which
// HINT: stage the next copy overwrites; commit even an empty group so the count stays regular.
// HINT: A's copies are 4 bytes each (the transpose); with kVec (n % 4 == 0, aligned) B's are
// HINT: 16 bytes, else 4. Precompute pointers and predicates outside the k loop.
// Roughly 137 lines.
template <int kWarpsM, int kWarpsN, int kBK, int kStages, bool kSwizzle, bool kVec>
__global__ void sgemm_pipelined_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                       float* __restrict__ c, int m, int n, int k) {
  cudalab::unused(a, b, c, m, n, k);
}
// END TODO(lab13)

/// The graded configuration (sgemm.cuh), vector or scalar B path, swizzled or not.
template <bool kSwizzle, bool kVec>
constexpr auto kKernel =
    sgemm_pipelined_kernel<kPipeWarpsM, kPipeWarpsN, kPipeBlockK, kPipeStages, kSwizzle, kVec>;

/// True when B and C can be read and written 16 bytes at a time (n % 4 == 0, aligned).
bool vector_path(const float* d_b, const float* d_c, int n) {
  const auto addr = reinterpret_cast<std::uintptr_t>(d_b) | reinterpret_cast<std::uintptr_t>(d_c);
  return n % 4 == 0 && addr % 16 == 0;
}

/// Raises the kernel's dynamic shared-memory limit to kPipeSmemBytes (> 48 KB needs opting in),
/// once per process: the first call sets the attribute, later calls (every launch) reuse it.
template <bool kSwizzle, bool kVec>
const void* configured_kernel() {
  static const void* const f = [] {
    const void* kernel = reinterpret_cast<const void*>(kKernel<kSwizzle, kVec>);
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(kPipeSmemBytes)));
    return kernel;
  }();
  return f;
}

template <bool kSwizzle>
void launch(const char* who, const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
            cudaStream_t stream) {
  cudalab::check_positive_dims(who, m, n, k);
  const long long tiles = static_cast<long long>((m + kPipeBlockM - 1) / kPipeBlockM) *
                          ((n + kPipeBlockN - 1) / kPipeBlockN);
  if (tiles > cudalab::kMaxGridX) {
    throw std::invalid_argument(std::string(who) + ": " + std::to_string(tiles) +
                                " tiles, more blocks than gridDim.x allows");
  }
  const dim3 grid(static_cast<unsigned>(tiles));
  if (vector_path(d_b, d_c, n)) {
    configured_kernel<kSwizzle, true>();
    kKernel<kSwizzle, true><<<grid, kPipeThreads, kPipeSmemBytes, stream>>>(d_a, d_b, d_c, m, n, k);
  } else {
    configured_kernel<kSwizzle, false>();
    kKernel<kSwizzle, false>
        <<<grid, kPipeThreads, kPipeSmemBytes, stream>>>(d_a, d_b, d_c, m, n, k);
  }
  CUDA_CHECK_LAST_LAUNCH();
}

}  // namespace

void sgemm_pipelined(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                     cudaStream_t stream) {
  // TODO(lab13): stage 4: launch() without the swizzle, on @p stream.
  // HINT: launch<false>(...): row-major blocks; launch() picks the vector or scalar B path.
  // Roughly 1 line.
  cudalab::unused(d_a, d_b, d_c, m, n, k, stream);
  // END TODO(lab13)
}

void sgemm_swizzled(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                    cudaStream_t stream) {
  // TODO(lab13): stage 5: launch() with the swizzle, on @p stream.
  // HINT: launch<true>(...): the kernel maps its block to a tile with swizzle_tile().
  // Roughly 1 line.
  cudalab::unused(d_a, d_b, d_c, m, n, k, stream);
  // END TODO(lab13)
}

cudalab::KernelInfo pipelined_kernel(bool vector_path) {
  const void* f = vector_path ? reinterpret_cast<const void*>(kKernel<false, true>)
                              : reinterpret_cast<const void*>(kKernel<false, false>);
  return {f, "sgemm_pipelined_kernel", dim3(kPipeThreads), kPipeSmemBytes};
}

cudalab::KernelInfo swizzled_kernel(bool vector_path) {
  const void* f = vector_path ? reinterpret_cast<const void*>(kKernel<true, true>)
                              : reinterpret_cast<const void*>(kKernel<true, false>);
  return {f, "sgemm_pipelined_kernel", dim3(kPipeThreads), kPipeSmemBytes};
}

}  // namespace lab13
