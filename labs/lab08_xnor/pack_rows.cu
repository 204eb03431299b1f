// SPDX-License-Identifier: BSD-3-Clause
// Lab 08: packing the rows of A — one warp per packed word, the word is the warp's ballot.
#include <stdexcept>

#include "cudalab/bits.hpp"
#include "cudalab/check.cuh"
#include "cudalab/launch_checks.hpp"
#include "xnor.cuh"

namespace lab08 {

namespace {

/// Threads per block of pack_rows_kernel.
constexpr int kPackRowsThreads = 256;
static_assert(kPackRowsThreads % 32 == 0,
              "pack_rows_kernel gives each warp one word: a block must hold whole warps, or a "
              "warp would straddle two blocks");

/**
 * Warp g (counted over the whole grid) packs word w = g % words of row i = g / words.
 * Lane l looks at A[i][32 w + l]: the warp reads 32 consecutive floats (one 128-byte,
 * fully coalesced load), and __ballot_sync() hands every lane a word whose bit l is lane
 * l's vote — exactly the LSB-first order of the packed layout.
 */
__global__ void pack_rows_kernel(const float* __restrict__ a, std::uint32_t* __restrict__ a_bits,
                                 int m, int k, int words) {
  // TODO(lab08): pack word (g % words) of row (g / words), g = this thread's warp index in
  // the grid: lane l votes "A[row][32 * word + l] is +1" (a lane past the end of the row
  // votes 0: padding), the ballot of the 32 votes is the word, and one lane stores it.
  // HINT: leave early only as a whole warp (g >= m * words), because __ballot_sync(0xFFFFFFFF, ...)
  // HINT: needs all 32 lanes; g = (blockIdx.x * blockDim.x + threadIdx.x) / 32 in std::size_t.
  // Roughly 8 lines.
  cudalab::unused(a, a_bits, m, k, words);
  // END TODO(lab08)
}

}  // namespace

void pack_rows(const float* d_a, std::uint32_t* d_a_bits, int m, int k, cudaStream_t stream) {
  if (m <= 0 || k <= 0) throw std::invalid_argument("pack_rows: m and k must be positive");
  const int words = cudalab::bits::words32(k);
  // TODO(lab08): launch pack_rows_kernel on `stream` with kPackRowsThreads threads per block
  // and enough blocks for one warp per packed word (m * words warps).
  // HINT: how many threads do m * words warps hold, and how many blocks of kPackRowsThreads
  // HINT: does that take (rounded up)? Count in std::size_t; throw std::invalid_argument
  // HINT: when the block count passes cudalab::kMaxGridX (the largest gridDim.x).
  // Roughly 7 lines.
  cudalab::unused(d_a, d_a_bits, stream, kPackRowsThreads);
  // END TODO(lab08)
  CUDA_CHECK_LAST_LAUNCH();
}

cudalab::KernelInfo row_packing_kernel() {
  return {reinterpret_cast<const void*>(pack_rows_kernel), "pack_rows_kernel",
          dim3(kPackRowsThreads), 0};
}

}  // namespace lab08
