// SPDX-License-Identifier: BSD-3-Clause
// Lab 08 runs in its own process (cudalab/remote.hpp): each function of xnor.cuh that the
// grader calls crosses as data (the uploaded popcount table as its contents; padding_bits()
// and xnor_dot() on the host), and the launchers' kernels are replayed by the grader from its
// own load of the lab's device code. In the grader these lines are proxies; in the candidate,
// the table its server answers from.
#include <cuda_runtime.h>

#include <array>
#include <cstdint>

#include "cudalab/remote.hpp"
#include "xnor.cuh"

CUDALAB_REMOTE(lab08::pack_rows,
               (const float* d_a, std::uint32_t* d_a_bits, int m, int k, cudaStream_t stream),
               (d_a, d_a_bits, m, k, stream), void)
CUDALAB_REMOTE(lab08::pack_cols,
               (const float* d_b, std::uint32_t* d_b_bits, int k, int n, cudaStream_t stream),
               (d_b, d_b_bits, k, n, stream), void)
CUDALAB_REMOTE(lab08::build_popcount_table, (), (), std::array<std::uint8_t, 256>)
CUDALAB_REMOTE(lab08::upload_popcount_table, (), (), cudalab::DeviceBuffer<std::uint8_t>)
CUDALAB_REMOTE(lab08::padding_bits, (int k), (k), int)
CUDALAB_REMOTE(lab08::xnor_dot, (int k, int equal_bits), (k, equal_bits), int)
CUDALAB_REMOTE(lab08::xnor_matmul_table,
               (const std::uint32_t* d_a_bits, const std::uint32_t* d_b_bits,
                const std::uint8_t* d_table, float* d_c, int m, int n, int k, int threads,
                cudaStream_t stream),
               (d_a_bits, d_b_bits, d_table, d_c, m, n, k, threads, stream), void)
CUDALAB_REMOTE(lab08::xnor_matmul_popc,
               (const std::uint32_t* d_a_bits, const std::uint32_t* d_b_bits, float* d_c, int m,
                int n, int k, int threads, cudaStream_t stream),
               (d_a_bits, d_b_bits, d_c, m, n, k, threads, stream), void)
CUDALAB_REMOTE(lab08::row_packing_kernel, (), (), cudalab::KernelInfo)
CUDALAB_REMOTE(lab08::column_packing_kernel, (), (), cudalab::KernelInfo)
CUDALAB_REMOTE(lab08::xnor_matmul_table_kernel, (), (), cudalab::KernelInfo)
CUDALAB_REMOTE(lab08::xnor_matmul_popc_kernel, (), (), cudalab::KernelInfo)
