// SPDX-License-Identifier: BSD-3-Clause
// Lab 09 runs in its own process (cudalab/remote.hpp): each function of the student's files
// that the grader calls crosses as data, and the launchers' kernels are replayed by the grader
// from its own load of the lab's device code. The given files (the naive kernels, the popcount
// table) are the course's and are compiled into the grader. In the grader these lines are
// proxies; in the candidate, the table its server answers from.
#include <cuda_runtime.h>

#include <cstdint>

#include "blocked_xnor.cuh"
#include "cudalab/remote.hpp"

CUDALAB_REMOTE(lab09::tiled_xnor_table,
               (const std::uint32_t* d_a_bits, const std::uint32_t* d_b_bits,
                const std::uint8_t* d_table, float* d_c, int m, int n, int k, cudaStream_t stream),
               (d_a_bits, d_b_bits, d_table, d_c, m, n, k, stream), void)
CUDALAB_REMOTE(lab09::tiled_xnor_popc,
               (const std::uint32_t* d_a_bits, const std::uint32_t* d_b_bits, float* d_c, int m,
                int n, int k, cudaStream_t stream),
               (d_a_bits, d_b_bits, d_c, m, n, k, stream), void)
CUDALAB_REMOTE(lab09::register_tiled_xnor,
               (const std::uint64_t* d_a_bits, const std::uint64_t* d_b_bits, float* d_c, int m,
                int n, int k, cudaStream_t stream),
               (d_a_bits, d_b_bits, d_c, m, n, k, stream), void)
CUDALAB_REMOTE(lab09::tiled_xnor_table_kernel, (), (), cudalab::KernelInfo)
CUDALAB_REMOTE(lab09::tiled_xnor_popc_kernel, (), (), cudalab::KernelInfo)
CUDALAB_REMOTE(lab09::register_tiling_kernel, (), (), cudalab::KernelInfo)
