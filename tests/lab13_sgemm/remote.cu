// SPDX-License-Identifier: BSD-3-Clause
// Lab 13 runs in its own process (cudalab/remote.hpp): each function of sgemm.cuh that the
// grader calls crosses as data (the swizzle and the occupancy calculator too, on the host), and
// the launchers' kernels are replayed by the grader from its own load of the lab's device code,
// with the dynamic shared-memory limit the launcher set and stream-K's tail launched as the
// programmatic dependent it was. In the grader these lines are proxies; in the candidate, the
// table its server answers from. A .cu file: the header holds device code.
#include <cuda_runtime.h>

#include <cstddef>

#include "cudalab/remote.hpp"
#include "sgemm.cuh"

#define LAB13_REMOTE_GEMM(fn)                                                                     \
  CUDALAB_REMOTE(                                                                                 \
      lab13::fn,                                                                                  \
      (const float* d_a, const float* d_b, float* d_c, int m, int n, int k, cudaStream_t stream), \
      (d_a, d_b, d_c, m, n, k, stream), void)
LAB13_REMOTE_GEMM(sgemm_block_tiled)
LAB13_REMOTE_GEMM(sgemm_vectorized)
LAB13_REMOTE_GEMM(sgemm_warp_tiled)
LAB13_REMOTE_GEMM(sgemm_pipelined)
LAB13_REMOTE_GEMM(sgemm_swizzled)
#undef LAB13_REMOTE_GEMM
CUDALAB_REMOTE(lab13::occupancy, (const lab13::KernelResources& kernel, const lab13::SmLimits& sm),
               (kernel, sm), lab13::Occupancy)
CUDALAB_REMOTE(lab13::stream_k_plan, (int m, int n, int k, int slots), (m, n, k, slots),
               lab13::StreamKPlan)
CUDALAB_REMOTE(lab13::stream_k_slots, (), (), int)
CUDALAB_REMOTE_AS("lab13::stream_k_workspace_bytes(plan)", lab13::stream_k_workspace_bytes,
                  (const lab13::StreamKPlan& plan), (plan), std::size_t)
CUDALAB_REMOTE_AS("lab13::stream_k_workspace_bytes(m, n, k)", lab13::stream_k_workspace_bytes,
                  (int m, int n, int k), (m, n, k), std::size_t)
CUDALAB_REMOTE(lab13::sgemm_stream_k,
               (const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                void* d_workspace, std::size_t workspace_bytes, cudaStream_t stream),
               (d_a, d_b, d_c, m, n, k, d_workspace, workspace_bytes, stream), void)
CUDALAB_REMOTE(lab13::block_tiled_kernel, (), (), cudalab::KernelInfo)
CUDALAB_REMOTE(lab13::vectorized_kernel, (bool vector_path), (vector_path), cudalab::KernelInfo)
CUDALAB_REMOTE(lab13::warp_tiled_kernel, (bool vector_path), (vector_path), cudalab::KernelInfo)
CUDALAB_REMOTE(lab13::pipelined_kernel, (bool vector_path), (vector_path), cudalab::KernelInfo)
CUDALAB_REMOTE(lab13::swizzled_kernel, (bool vector_path), (vector_path), cudalab::KernelInfo)
CUDALAB_REMOTE(lab13::stream_k_dp_kernel, (bool vector_path), (vector_path), cudalab::KernelInfo)
CUDALAB_REMOTE(lab13::stream_k_tail_kernel, (bool vector_path), (vector_path), cudalab::KernelInfo)

#if CUDALAB_REMOTE_JUDGE
// The swizzle is declared __host__ __device__: the grader calls it on the host only (its device
// copy is never called here; the lab's device code is not linked into the grader).
__host__ __device__ lab13::TileCoord lab13::swizzle_tile(int block, int tiles_m, int tiles_n,
                                                         int group) {
#ifdef __CUDA_ARCH__
  return {-1, -1};
#else
  return ::cudalab::remote::call<&lab13::swizzle_tile>("lab13::swizzle_tile")(block, tiles_m,
                                                                              tiles_n, group);
#endif
}
#else
CUDALAB_REMOTE(lab13::swizzle_tile, (int block, int tiles_m, int tiles_n, int group),
               (block, tiles_m, tiles_n, group), lab13::TileCoord)
#endif
