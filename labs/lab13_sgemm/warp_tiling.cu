// SPDX-License-Identifier: BSD-3-Clause
// Lab 13, stage 3: warp tiling. Stage 2's tiles and loads (given below); what changes is which
// results a thread owns. Each warp owns a 64 x 32 piece of the block's C tile and each lane
// 2 x 2 chunks of 4 x 4 results spread over it, so the 32 lanes of a warp read 8 distinct
// float4 of A and 4 of B per k step (128 and 64 contiguous bytes: one shared-memory
// wavefront each, the rest broadcast) instead of 16 spread float4 of B as in stage 2.
#include <cstdint>

#include "cudalab/check.cuh"
#include "cudalab/launch_checks.hpp"
#include "sgemm.cuh"

namespace lab13 {

namespace {

/// Given (stage 2): the 4-float chunk (r, col .. col + 3) of a rows x cols row-major matrix,
/// zeros outside; one float4 load when kVec and the chunk is inside.
template <bool kVec>
__device__ __forceinline__ float4 load_chunk(const float* __restrict__ p, int rows, int cols, int r,
                                             int col) {
  if (kVec && r < rows && col + 3 < cols) {
    return *reinterpret_cast<const float4*>(p + static_cast<std::size_t>(r) * cols + col);
  }
  float v[4];
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    v[q] = r < rows && col + q < cols ? p[static_cast<std::size_t>(r) * cols + col + q] : 0.0f;
  }
  return make_float4(v[0], v[1], v[2], v[3]);
}

/// Given (stage 2): stages the k step at @p k0 — A's tile transposed into as[kk][row], B's tile
/// into bs[kk][col], one 4-float chunk of each per thread.
template <bool kVec>
__device__ __forceinline__ void stage_tiles(float (*as)[kBlockM], float (*bs)[kBlockN],
                                            const float* __restrict__ a,
                                            const float* __restrict__ b, int m, int n, int k,
                                            int row0, int col0, int k0, int tid) {
  const int a_r = tid / (kBlockK / 4), a_c = (tid % (kBlockK / 4)) * 4;
  const int b_r = tid / (kBlockN / 4), b_c = (tid % (kBlockN / 4)) * 4;
  const float4 va = load_chunk<kVec>(a, m, k, row0 + a_r, k0 + a_c);
  as[a_c][a_r] = va.x;
  as[a_c + 1][a_r] = va.y;
  as[a_c + 2][a_r] = va.z;
  as[a_c + 3][a_r] = va.w;
  *reinterpret_cast<float4*>(&bs[b_r][b_c]) = load_chunk<kVec>(b, k, n, k0 + b_r, col0 + b_c);
}

template <bool kVec>
__global__ void __launch_bounds__(kBlockThreads)
    sgemm_warp_tiled_kernel(const float* __restrict__ a, const float* __restrict__ b,
                            float* __restrict__ c, int m, int n, int k) {
  __shared__ __align__(16) float as[kBlockK][kBlockM];  // as[kk][r] = A[row0 + r][k0 + kk]
  __shared__ __align__(16) float bs[kBlockK][kBlockN];  // bs[kk][cc] = B[k0 + kk][col0 + cc]
  const int tid = static_cast<int>(threadIdx.x);
  const int row0 = static_cast<int>(blockIdx.y) * kBlockM;
  const int col0 = static_cast<int>(blockIdx.x) * kBlockN;
  // TODO(lab13): stage 3. Warp w = tid / 32 owns rows (w / (kBlockN / kWarpN)) * kWarpM .. and
  // columns .. of the block's tile as 2 x 2 chunks of 4 x 4 results per lane (8 x 4 lanes
  // per warp), chosen so that one warp-wide LDS.128 reads few, neighbouring float4 of as[kk]
  // and of bs[kk]. Per k step: stage_tiles<kVec>(...), __syncthreads(), for each kk read the
  // two A float4 and two B float4 of this lane's chunks and add the 8 x 8 outer product,
  // __syncthreads(). Store the 8 x 8 results (float4 when kVec, else bounds-checked floats),
  // inside C only.
  // HINT: neighbouring lanes must read neighbouring float4 of bs[kk]: that is the point.
  // HINT: write down which float4 lanes 0..31 read for your assignment and count the
  // HINT: distinct 16-byte words; the handout's folded section has the index formulas.
  // Roughly 53 lines.
  cudalab::unused(as, bs, a, b, c, m, n, k, tid, row0, col0);
  // END TODO(lab13)
}

bool aligned16(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

}  // namespace

void sgemm_warp_tiled(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                      cudaStream_t stream) {
  cudalab::check_positive_dims("sgemm_warp_tiled", m, n, k);
  const dim3 grid = cudalab::tile_grid(m, n, kBlockM, kBlockN, "sgemm_warp_tiled");
  // TODO(lab13): launch sgemm_warp_tiled_kernel<true> (every row of A, B and C 16-byte aligned: k
  // and n multiples of 4 and the pointers aligned16) or <false>, grid x kBlockThreads, on @p
  // stream. HINT: a float4 access to an address that is not a multiple of 16 faults. Roughly 5
  // lines.
  cudalab::unused(d_a, d_b, d_c, m, n, k, grid, stream);
  // END TODO(lab13)
  CUDA_CHECK_LAST_LAUNCH();
}

cudalab::KernelInfo warp_tiled_kernel(bool vector_path) {
  const void* f = vector_path ? reinterpret_cast<const void*>(sgemm_warp_tiled_kernel<true>)
                              : reinterpret_cast<const void*>(sgemm_warp_tiled_kernel<false>);
  return {f, "sgemm_warp_tiled_kernel", dim3(kBlockThreads), 0};
}

}  // namespace lab13
