// SPDX-License-Identifier: BSD-3-Clause
// Lab 04 runs in its own process (cudalab/remote.hpp): each function of shared_memory.cuh that
// the grader calls crosses as data, and the launchers' kernels are replayed by the grader from
// its own load of the lab's device code, with the shared-memory attributes the launcher set in
// its process. In the grader these lines are proxies; in the candidate, the table its server
// answers from.
#include <cuda_runtime.h>

#include <cstddef>

#include "cudalab/remote.hpp"
#include "shared_memory.cuh"

CUDALAB_REMOTE(lab04::matmul_tiled_static,
               (const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                cudaStream_t stream),
               (d_a, d_b, d_c, m, n, k, stream), void)
CUDALAB_REMOTE(lab04::tiled_static_kernel, (), (), cudalab::KernelInfo)
CUDALAB_REMOTE(lab04::plan_dynamic_tile,
               (const lab04::SmemLimits& limits, std::size_t budget_bytes, int k),
               (limits, budget_bytes, k), lab04::DynamicTilePlan)
CUDALAB_REMOTE(lab04::matmul_tiled_dynamic,
               (const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                const lab04::DynamicTilePlan& plan, cudaStream_t stream),
               (d_a, d_b, d_c, m, n, k, plan, stream), void)
CUDALAB_REMOTE(lab04::tiled_dynamic_kernel, (), (), cudalab::KernelInfo)
