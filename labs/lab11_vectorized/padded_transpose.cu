// SPDX-License-Identifier: BSD-3-Clause
// Lab 11, given: "today's" transpose — the tile kernel of labs 06/07 (labs/common/smem_tiles)
// with lab 06's padded [32][33] tile, 4-byte accesses to global and shared memory. The float4
// tile stage is measured against it.
#include "vectorized.cuh"

namespace lab11 {

namespace {
/// Lab 06's padded tile: rows of kTile + 1 words, so a column spans 32 banks.
struct PaddedLayout {
  static constexpr int kWords = kTile * (kTile + 1);
  __host__ __device__ static constexpr int offset(int row, int col) {
    return row * (kTile + 1) + col;
  }
};
}  // namespace

void padded_transpose(const float* d_in, float* d_out, int rows, int cols, cudaStream_t stream) {
  smem_tiles::launch_tile_transpose<PaddedLayout>(
      d_in, d_out, rows, cols, smem_tiles::kTransposeBlockRows, stream, "padded_transpose");
}

cudalab::KernelInfo padded_transpose_kernel() {
  return {reinterpret_cast<const void*>(smem_tiles::tile_transpose_kernel<PaddedLayout>),
          "tile_transpose_kernel", dim3(kTile, smem_tiles::kTransposeBlockRows), 0};
}

}  // namespace lab11
