// SPDX-License-Identifier: BSD-3-Clause
// Lab 14, part 2: the first tensor-core kernel — one warp per 16 x 8 tile of C, each lane loading
// its fragment words straight from global memory, one m16n8k256 AND-popc MMA per 256 bits of K.
// Right before it is fast: the fragment layout, the zero tail and the popcount identity.
#include <stdexcept>

#include "binary_mma.cuh"
#include "cudalab/check.cuh"

namespace lab14 {

namespace {

/// Warp w (global index) computes the 16 x 8 tile t = w of C: tile row t / tiles_n, tile
/// column t % tiles_n. Lane l (g = l / 4, t = l % 4) loads the fragment words of
/// mma_and_popc() (binary_mma.cuh) for every 256-bit chunk of K and finally holds
/// C[16 tm + g (+ 8)][8 tn + 2 t (+ 1)].
__global__ void binary_mma_naive_kernel(const std::uint32_t* __restrict__ a_bits,
                                        const std::uint32_t* __restrict__ b_bits,
                                        const int* __restrict__ a_pop,
                                        const int* __restrict__ b_pop, float* __restrict__ c, int m,
                                        int n, int k, int words, int tiles_n, long tiles) {
  // TODO(lab14): for this warp's tile, accumulate popc(A AND B) over all 256-bit chunks with
  // mma_and_popc() (fragment words as its comment says; a word past the row pitch `words`, a
  // row past M or a column past N is 0), then store C = K - 2 popc(a) - 2 popc(b) + 4 popc(a & b)
  // for the elements inside C.
  // HINT: the handout's Fragments paragraph (from the PTX ISA) says which row and word each
  // HINT: register of lane l holds: write it down for chunk q of 256 bits. Every lane must reach
  // HINT: mma_and_popc() (.sync.aligned): guard the loads, never the call; a warp whose tile
  // HINT: lies past the last one returns as a whole.
  // Roughly 30 lines.
  cudalab::unused(a_bits, b_bits, a_pop, b_pop, c, m, n, k, words, tiles_n, tiles);
  // END TODO(lab14)
}

}  // namespace

void binary_mma_naive(const std::uint32_t* d_a_bits, const std::uint32_t* d_b_bits,
                      const int* d_a_pop, const int* d_b_pop, float* d_c, int m, int n, int k,
                      cudaStream_t stream) {
  if (m <= 0 || n <= 0 || k <= 0) {
    throw std::invalid_argument("binary_mma_naive: m, n and k must be positive");
  }
  require_binary_tensor_cores("binary_mma_naive");
  const int tiles_n = (n + 7) / 8;
  const long tiles = long((m + 15) / 16) * tiles_n;
  const long blocks = (tiles + kNaiveWarps - 1) / kNaiveWarps;
  if (blocks > cudalab::kMaxGridX) throw std::invalid_argument("binary_mma_naive: m x n too large");
  binary_mma_naive_kernel<<<unsigned(blocks), kNaiveWarps * 32, 0, stream>>>(
      d_a_bits, d_b_bits, d_a_pop, d_b_pop, d_c, m, n, k, row_words(k), tiles_n, tiles);
  CUDA_CHECK_LAST_LAUNCH();
}

cudalab::KernelInfo mma_naive_kernel() {
  return {reinterpret_cast<const void*>(binary_mma_naive_kernel), "binary_mma_naive_kernel",
          dim3(kNaiveWarps * 32), 0};
}

}  // namespace lab14
