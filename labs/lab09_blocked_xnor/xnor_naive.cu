// SPDX-License-Identifier: BSD-3-Clause
// Lab 09 (given): the baseline — lab 08's one-block-per-row binary matmul in the classic
// configuration <<<M, 32>>>, with the popcount table in device memory or __popc, on lab 08's
// word-major packed B.
#include <stdexcept>

#include "blocked_xnor.cuh"
#include "cudalab/bits.hpp"
#include "cudalab/check.cuh"

namespace lab09 {

namespace {

/// Block i computes row i of C; thread t takes the columns t, t + blockDim.x, ...
/// Every word of A's row is read by all threads (broadcast). B is packed word-major as in
/// lab 08 (word w of column j at b_bits[w * n + j]), so in step w the 32 lanes, on 32
/// neighbouring columns, read 32 neighbouring words: one coalesced load. Counts different
/// bits, so the zero padding needs no correction.
template <bool kUseTable>
__global__ void naive_xnor_kernel(const std::uint32_t* __restrict__ a_bits,
                                  const std::uint32_t* __restrict__ b_bits,
                                  const std::uint8_t* __restrict__ table, float* __restrict__ c,
                                  int n, int k, int words) {
  const std::size_t row = blockIdx.x;  // one block per row of C
  const std::uint32_t* a_row = a_bits + row * words;
  for (int col = threadIdx.x; col < n; col += blockDim.x) {
    const std::uint32_t* b_col = b_bits + col;  // word 0 of column col; word w is n further on
    int different = 0;
    for (int w = 0; w < words; ++w) {
      const std::uint32_t x = a_row[w] ^ b_col[std::size_t(w) * n];
      if constexpr (kUseTable) {
        different +=
            table[x & 0xFFu] + table[(x >> 8) & 0xFFu] + table[(x >> 16) & 0xFFu] + table[x >> 24];
      } else {
        different += __popc(x);
      }
    }
    c[row * n + col] = static_cast<float>(k - 2 * different);
  }
}

template <bool kUseTable>
void launch_naive(const std::uint32_t* d_a_bits, const std::uint32_t* d_b_bits,
                  const std::uint8_t* d_table, float* d_c, int m, int n, int k,
                  cudaStream_t stream) {
  if (m <= 0 || n <= 0 || k <= 0) {
    throw std::invalid_argument("naive_xnor: m, n and k must be positive");
  }
  naive_xnor_kernel<kUseTable><<<m, kNaiveThreads, 0, stream>>>(d_a_bits, d_b_bits, d_table, d_c, n,
                                                                k, cudalab::bits::words32(k));
  CUDA_CHECK_LAST_LAUNCH();
}

}  // namespace

void naive_xnor_popc(const std::uint32_t* d_a_bits, const std::uint32_t* d_b_bits, float* d_c,
                     int m, int n, int k, cudaStream_t stream) {
  launch_naive<false>(d_a_bits, d_b_bits, nullptr, d_c, m, n, k, stream);
}

void naive_xnor_table(const std::uint32_t* d_a_bits, const std::uint32_t* d_b_bits,
                      const std::uint8_t* d_table, float* d_c, int m, int n, int k,
                      cudaStream_t stream) {
  launch_naive<true>(d_a_bits, d_b_bits, d_table, d_c, m, n, k, stream);
}

cudalab::KernelInfo naive_xnor_popc_kernel() {
  return {reinterpret_cast<const void*>(naive_xnor_kernel<false>), "naive_xnor_kernel",
          dim3(kNaiveThreads), 0};
}

cudalab::KernelInfo naive_xnor_table_kernel() {
  return {reinterpret_cast<const void*>(naive_xnor_kernel<true>), "naive_xnor_kernel",
          dim3(kNaiveThreads), 0};
}

}  // namespace lab09
