// SPDX-License-Identifier: BSD-3-Clause
// Lab 08: packing the columns of B — one thread per packed word, neighbours on neighbouring
// columns, words stored word-major (word w of all N columns side by side).
#include <stdexcept>

#include "cudalab/bits.hpp"
#include "cudalab/check.cuh"
#include "cudalab/launch_checks.hpp"
#include "xnor.cuh"

namespace lab08 {

namespace {

/// Threads per block of pack_cols_kernel (x walks the columns of B).
constexpr int kPackColsThreads = 256;

/**
 * Thread (x, y) packs word w = blockIdx.y of column j = x of B: the 32 elements
 * B[32 w + t][j], t = 0..31, go to bit t. Neighbouring threads take neighbouring columns,
 * so each of the 32 reads is a coalesced read of a stretch of one row of B, and the
 * store is coalesced too: B is packed word-major, word w of column j at b_bits[w * n + j].
 */
__global__ void pack_cols_kernel(const float* __restrict__ b, std::uint32_t* __restrict__ b_bits,
                                 int k, int n) {
  // TODO(lab08): build word (blockIdx.y) of column (blockIdx.x * blockDim.x + threadIdx.x)
  // of B bit by bit — bit t is 1 iff B[32 * word + t][col] is +1 — and store it word-major
  // at b_bits[word * n + col]. Bits past row k - 1 are padding and stay 0.
  // HINT: the last word holds only k - 32 * word elements; skip columns >= n. B[r][col] is
  // HINT: b[r * n + col]; compute both indices in std::size_t.
  // Roughly 9 lines.
  cudalab::unused(b, b_bits, k, n);
  // END TODO(lab08)
}

}  // namespace

void pack_cols(const float* d_b, std::uint32_t* d_b_bits, int k, int n, cudaStream_t stream) {
  if (k <= 0 || n <= 0) throw std::invalid_argument("pack_cols: k and n must be positive");
  // x: blocks of kPackColsThreads columns; y: one packed word per grid row (gridDim.y limit).
  const dim3 grid =
      cudalab::tile_grid(cudalab::bits::words32(k), n, 1, kPackColsThreads, "pack_cols");
  pack_cols_kernel<<<grid, kPackColsThreads, 0, stream>>>(d_b, d_b_bits, k, n);
  CUDA_CHECK_LAST_LAUNCH();
}

cudalab::KernelInfo column_packing_kernel() {
  return {reinterpret_cast<const void*>(pack_cols_kernel), "pack_cols_kernel",
          dim3(kPackColsThreads), 0};
}

}  // namespace lab08
