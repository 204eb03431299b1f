// SPDX-License-Identifier: BSD-3-Clause
// Lab 08: C = A * B for ±1 matrices — XNOR of packed words as 32 multiplications,
// popcount as their sum; one block per row of C, popcount by table or by __popc.
#include <stdexcept>
#include <string>

#include "cudalab/bits.hpp"
#include "cudalab/check.cuh"
#include "cudalab/launch_checks.hpp"
#include "xnor.cuh"

namespace lab08 {

__host__ __device__ int padding_bits(int k) {
  // TODO(lab08): return how many zero padding bits follow element k - 1 in the last word
  // (the classic `rest`; 0 when k is a multiple of 32).
  // HINT: how many bits do the words(k) = (k + 31) / 32 words hold, and how many are data?
  // Roughly 1 line.
  return ((k + kWordBits - 1) / kWordBits) * kWordBits - k;
  // END TODO(lab08)
}

__host__ __device__ int xnor_dot(int k, int equal_bits) {
  // TODO(lab08): turn the number of equal bits over all words (padding included) into
  // the ±1 dot product of the k real elements.
  // HINT: every padding bit is 0 in both operands, so XNOR counts it as equal. Take them
  // HINT: out first; then the dot product is (#equal) - (#different) with #different = k - #equal.
  // Roughly 2 lines.
  const int equal = equal_bits - padding_bits(k);  // real elements that agree
  return equal - (k - equal);
  // END TODO(lab08)
}

// The two ways to count bits, passed to the kernel as a functor (in a named namespace:
// the stub's kernel does not call them yet).
namespace popcount_policy {

/// popcount by four lookups in the 256-entry table, one per byte of the word.
struct TablePopcount {
  const std::uint8_t* table;  ///< 256 bytes in device memory
  __device__ int operator()(std::uint32_t x) const {
    // TODO(lab08): return the number of 1 bits of x from four table lookups.
    // HINT: which shift and mask turn byte 0, 1, 2 or 3 of x into a table index (0..255)?
    // Roughly 1 line.
    return table[x & 0xFFu] + table[(x >> 8) & 0xFFu] + table[(x >> 16) & 0xFFu] + table[x >> 24];
    // END TODO(lab08)
  }
};

/// popcount by the hardware instruction (POPC).
struct IntrinsicPopcount {
  __device__ int operator()(std::uint32_t x) const { return __popc(x); }
};

}  // namespace popcount_policy

namespace {

/**
 * Block i computes row i of C; thread t computes the columns t, t + blockDim.x, ...
 * All threads read the same words of A's packed row (a broadcast). B is packed
 * word-major (word w of column j at b_bits[w * n + j]): in step w the lanes of a warp,
 * on neighbouring columns, read neighbouring words — one coalesced load per warp.
 */
template <typename Popcount>
__global__ void xnor_matmul_kernel(const std::uint32_t* __restrict__ a_bits,
                                   const std::uint32_t* __restrict__ b_bits, float* __restrict__ c,
                                   int n, int k, int words, Popcount popcount) {
  // TODO(lab08): for every column j of this block's row i (j = threadIdx.x, then steps of
  // blockDim.x), sum popcount(XNOR) of the words of packed row i of A and packed column j
  // of B, and store xnor_dot(k, sum) as a float in C[i][j].
  // HINT: XNOR is ~(a ^ b); word w of row i = blockIdx.x is a_bits[i * words + w], word w of
  // HINT: column j is b_bits[w * n + j] (word-major: lanes on neighbouring columns read
  // HINT: neighbouring words); C[i][j] is c[i * n + j] — use std::size_t, M * N may pass 2^31.
  // Roughly 10 lines.
  const std::size_t row = blockIdx.x;                 // one block per row of C
  const std::uint32_t* a_row = a_bits + row * words;  // packed row of A
  for (int col = threadIdx.x; col < n; col += blockDim.x) {
    const std::uint32_t* b_col = b_bits + col;  // word 0 of column col; word w is n further on
    int equal = 0;
    for (int w = 0; w < words; ++w) {
      equal += popcount(~(a_row[w] ^ b_col[std::size_t(w) * n]));  // XNOR: 1 where the signs agree
    }
    c[row * n + col] = static_cast<float>(xnor_dot(k, equal));
  }
  // END TODO(lab08)
}

void check_arguments(const char* what, int m, int n, int k, int threads) {
  cudalab::check_positive_dims(what, m, n, k);
  if (threads <= 0) {
    throw std::invalid_argument(std::string(what) + ": threads must be positive, got " +
                                std::to_string(threads));
  }
  cudalab::check_block_shape(what, dim3(static_cast<unsigned>(threads)));
}

}  // namespace

void xnor_matmul_table(const std::uint32_t* d_a_bits, const std::uint32_t* d_b_bits,
                       const std::uint8_t* d_table, float* d_c, int m, int n, int k, int threads,
                       cudaStream_t stream) {
  check_arguments("xnor_matmul_table", m, n, k, threads);
  xnor_matmul_kernel<<<m, threads, 0, stream>>>(d_a_bits, d_b_bits, d_c, n, k,
                                                cudalab::bits::words32(k),
                                                popcount_policy::TablePopcount{d_table});
  CUDA_CHECK_LAST_LAUNCH();
}

void xnor_matmul_popc(const std::uint32_t* d_a_bits, const std::uint32_t* d_b_bits, float* d_c,
                      int m, int n, int k, int threads, cudaStream_t stream) {
  check_arguments("xnor_matmul_popc", m, n, k, threads);
  xnor_matmul_kernel<<<m, threads, 0, stream>>>(d_a_bits, d_b_bits, d_c, n, k,
                                                cudalab::bits::words32(k),
                                                popcount_policy::IntrinsicPopcount{});
  CUDA_CHECK_LAST_LAUNCH();
}

cudalab::KernelInfo xnor_matmul_table_kernel() {
  return {reinterpret_cast<const void*>(xnor_matmul_kernel<popcount_policy::TablePopcount>),
          "xnor_matmul_kernel", dim3(0, 0), 0};
}

cudalab::KernelInfo xnor_matmul_popc_kernel() {
  return {reinterpret_cast<const void*>(xnor_matmul_kernel<popcount_policy::IntrinsicPopcount>),
          "xnor_matmul_kernel", dim3(0, 0), 0};
}

}  // namespace lab08
