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
  const long tile = (long(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  if (tile >= tiles) return;  // whole warps only: blockDim.x is a multiple of 32
  const int lane = threadIdx.x % 32;
  const int g = lane / 4;  // fragment row (A) / column (B) inside the tile
  const int t = lane % 4;  // fragment word inside a 128-bit half
  const int row0 = int(tile / tiles_n) * 16;
  const int col0 = int(tile % tiles_n) * 8;
  const int r_lo = row0 + g, r_hi = row0 + g + 8, col = col0 + g;
  const std::uint32_t* a_lo = a_bits + static_cast<std::size_t>(r_lo) * words;
  const std::uint32_t* a_hi = a_bits + static_cast<std::size_t>(r_hi) * words;
  const std::uint32_t* b_col = b_bits + static_cast<std::size_t>(col) * words;
  int acc[4] = {0, 0, 0, 0};
  for (int w0 = 0; w0 < words; w0 += 8) {  // one 256-bit chunk per step
    const int w_lo = w0 + t, w_hi = w0 + 4 + t;
    const bool lo_ok = w_lo < words, hi_ok = w_hi < words;
    const std::uint32_t a[4] = {
        r_lo < m && lo_ok ? a_lo[w_lo] : 0u, r_hi < m && lo_ok ? a_hi[w_lo] : 0u,
        r_lo < m && hi_ok ? a_lo[w_hi] : 0u, r_hi < m && hi_ok ? a_hi[w_hi] : 0u};
    const std::uint32_t b[2] = {col < n && lo_ok ? b_col[w_lo] : 0u,
                                col < n && hi_ok ? b_col[w_hi] : 0u};
    mma_and_popc(acc, a, b);
  }
  for (int i = 0; i < 4; ++i) {
    const int row = i < 2 ? r_lo : r_hi;
    const int cc = col0 + 2 * t + (i % 2);
    if (row < m && cc < n) {
      c[static_cast<std::size_t>(row) * n + cc] =
          static_cast<float>(k - 2 * a_pop[row] - 2 * b_pop[cc] + 4 * acc[i]);
    }
  }
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
