// SPDX-License-Identifier: BSD-3-Clause
// Lab 14 runs in its own process (cudalab/remote.hpp): each function of binary_mma.cuh that the
// lab's files define crosses as data, and the launchers' kernels are replayed by the grader from
// its own load of the lab's device code (the sm_90a kernel of the advanced part included, with
// its tensor maps among the launch's parameter bytes and the dynamic shared-memory limit the
// launcher set). The given files (binary_gemm.cu, popcount_peak.cu, tensor_maps.cu) are
// course code, compiled into the grader. In the grader these lines are proxies; in the
// candidate, the table its server answers from. A .cu file: the header holds device code.
#include <cuda_runtime.h>

#include <cstdint>

#include "binary_mma.cuh"
#include "cudalab/remote.hpp"

CUDALAB_REMOTE(lab14::popcount_vectors,
               (const std::uint32_t* d_bits, int vectors, int k, int* d_counts,
                cudaStream_t stream),
               (d_bits, vectors, k, d_counts, stream), void)
CUDALAB_REMOTE(lab14::popcount_kernel, (), (), cudalab::KernelInfo)

#define LAB14_REMOTE_MMA(fn)                                                             \
  CUDALAB_REMOTE(                                                                        \
      lab14::fn,                                                                         \
      (const std::uint32_t* d_a_bits, const std::uint32_t* d_b_bits, const int* d_a_pop, \
       const int* d_b_pop, float* d_c, int m, int n, int k, cudaStream_t stream),        \
      (d_a_bits, d_b_bits, d_a_pop, d_b_pop, d_c, m, n, k, stream), void)
LAB14_REMOTE_MMA(binary_mma_naive)
LAB14_REMOTE_MMA(binary_mma_pipelined)
LAB14_REMOTE_MMA(binary_mma_persistent)
#undef LAB14_REMOTE_MMA
CUDALAB_REMOTE(lab14::mma_naive_kernel, (), (), cudalab::KernelInfo)
CUDALAB_REMOTE(lab14::mma_pipelined_kernel, (), (), cudalab::KernelInfo)
CUDALAB_REMOTE(lab14::persistent_unavailable_reason, (), (), const char*)
CUDALAB_REMOTE(lab14::wgmma_persistent_kernel, (), (), cudalab::KernelInfo)
CUDALAB_REMOTE(lab14::wgmma_persistent_wide_k_kernel, (), (), cudalab::KernelInfo)
