// SPDX-License-Identifier: BSD-3-Clause
// Lab 09: blocked binary matmul — 16x16 tiles of packed words in shared memory, popcount by
// a table staged in shared memory or by __popc, conflict-free shared reads.
#include <stdexcept>

#include "blocked_xnor.cuh"
#include "cudalab/bits.hpp"
#include "cudalab/check.cuh"
#include "cudalab/launch_checks.hpp"

namespace lab09 {

namespace {

static_assert(kTile * kTile <= 1024, "a block of kTile x kTile threads must fit in 1024 threads");
static_assert(kTile <= 32,
              "a tile row of kTile words must fit in the 32 banks for the padding argument");
/// Entries of the popcount table (one per byte value).
constexpr int kTableEntries = 256;
static_assert(kTableEntries <= kTile * kTile,
              "the block stages the popcount table in one pass, at most one entry per thread");

/**
 * Block (bx, by) computes the tile C[16 by .. 16 by + 15][16 bx .. 16 bx + 15]; thread
 * (tx, ty) computes C[16 by + ty][16 bx + tx] (x along the columns, so neighbouring threads
 * store neighbouring floats). K is walked 16 words (512 bits) at a time: the block stages
 * 16 packed rows of A and 16 packed columns of B, 16 words each, in shared memory; every
 * word staged is then read by 16 threads instead of being fetched 16 times from memory.
 */
template <bool kUseTable>
__global__ void __launch_bounds__(kTile* kTile)
    tiled_xnor_kernel(const std::uint32_t* __restrict__ a_bits,
                      const std::uint32_t* __restrict__ b_bits,
                      const std::uint8_t* __restrict__ table, float* __restrict__ c, int m, int n,
                      int k, int words) {
  // TODO(lab09): compute this thread's element of C from 16x16 tiles of packed words:
  // - (table variant) copy the 256-entry table into shared memory once;
  // - for each step of 16 words: thread (tx, ty) loads word (step + tx) of row 16 by + ty of
  //   A and of column 16 bx + ty of B into two shared tiles (0 past the edges: M, N and the
  //   last word), barrier, adds popcount(a XOR b) of its row and column over the 16 words,
  //   barrier;
  // - stores K - 2 * (different bits) as a float if it lies inside C.
  // HINT: the 16 threads of a half-warp read b_tile[tx][w] for one w: 16 rows of the tile.
  // HINT: With rows of 16 words they fall into 2 banks (8-way conflict): pad a row to 17
  // HINT: words, or store the tile transposed so that tx walks the contiguous index.
  // Roughly 30 lines.
  // Tiles [vector][word]. The half-warp reads b_tile[tx][kw]: 16 rows at one word. A row
  // pitch of 16 words puts them 16 banks apart, in 2 banks (8-way conflict); 17 words
  // puts row r in bank (17 r + kw) % 32: 16 different banks.
  constexpr int kPitch = kTile + 1;
  __shared__ std::uint32_t a_tile[kTile][kPitch];  // [r][w]: word w of row 16 by + r of A
  __shared__ std::uint32_t b_tile[kTile][kPitch];  // [j][w]: word w of column 16 bx + j of B
  __shared__ std::uint8_t s_table[kTableEntries];

  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  if constexpr (kUseTable) {
    // One entry per thread; published by the first barrier of the loop.
    for (int i = ty * kTile + tx; i < kTableEntries; i += kTile * kTile) s_table[i] = table[i];
  }
  const int row = blockIdx.y * kTile + ty;       // row of C (and of A) of this thread
  const int col = blockIdx.x * kTile + tx;       // column of C of this thread
  const int load_col = blockIdx.x * kTile + ty;  // column of B whose words this thread stages
  int different = 0;
  for (int w0 = 0; w0 < words; w0 += kTile) {
    const int w = w0 + tx;  // word this thread stages: x along the words (coalesced)
    // Zero past the edges: a zero word XOR a zero word counts no difference.
    a_tile[ty][tx] = (row < m && w < words) ? a_bits[std::size_t(row) * words + w] : 0u;
    b_tile[ty][tx] = (load_col < n && w < words) ? b_bits[std::size_t(load_col) * words + w] : 0u;
    __syncthreads();  // both tiles (and the table) are complete
#pragma unroll
    for (int kw = 0; kw < kTile; ++kw) {
      const std::uint32_t x = a_tile[ty][kw] ^ b_tile[tx][kw];  // a: broadcast, b: 16 banks
      if constexpr (kUseTable) {
        different += s_table[x & 0xFFu] + s_table[(x >> 8) & 0xFFu] + s_table[(x >> 16) & 0xFFu] +
                     s_table[x >> 24];
      } else {
        different += __popc(x);
      }
    }
    __syncthreads();  // nobody still reads the tiles when they are overwritten
  }
  if (row < m && col < n) c[std::size_t(row) * n + col] = static_cast<float>(k - 2 * different);
  // END TODO(lab09)
}

template <bool kUseTable>
void launch_tiled(const std::uint32_t* d_a_bits, const std::uint32_t* d_b_bits,
                  const std::uint8_t* d_table, float* d_c, int m, int n, int k,
                  cudaStream_t stream) {
  if (m <= 0 || n <= 0 || k <= 0) {
    throw std::invalid_argument("tiled_xnor: m, n and k must be positive");
  }
  const dim3 block(kTile, kTile);
  const dim3 grid = cudalab::tile_grid(m, n, kTile, kTile, "tiled_xnor");  // x: columns, y: rows
  tiled_xnor_kernel<kUseTable><<<grid, block, 0, stream>>>(d_a_bits, d_b_bits, d_table, d_c, m, n,
                                                           k, cudalab::bits::words32(k));
  CUDA_CHECK_LAST_LAUNCH();
}

}  // namespace

void tiled_xnor_table(const std::uint32_t* d_a_bits, const std::uint32_t* d_b_bits,
                      const std::uint8_t* d_table, float* d_c, int m, int n, int k,
                      cudaStream_t stream) {
  launch_tiled<true>(d_a_bits, d_b_bits, d_table, d_c, m, n, k, stream);
}

void tiled_xnor_popc(const std::uint32_t* d_a_bits, const std::uint32_t* d_b_bits, float* d_c,
                     int m, int n, int k, cudaStream_t stream) {
  launch_tiled<false>(d_a_bits, d_b_bits, nullptr, d_c, m, n, k, stream);
}

cudalab::KernelInfo tiled_xnor_table_kernel() {
  return {reinterpret_cast<const void*>(tiled_xnor_kernel<true>), "tiled_xnor_kernel",
          dim3(kTile, kTile), 0};
}

cudalab::KernelInfo tiled_xnor_popc_kernel() {
  return {reinterpret_cast<const void*>(tiled_xnor_kernel<false>), "tiled_xnor_kernel",
          dim3(kTile, kTile), 0};
}

}  // namespace lab09
