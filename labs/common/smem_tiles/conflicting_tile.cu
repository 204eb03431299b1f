// SPDX-License-Identifier: BSD-3-Clause
// Given baselines of labs 06 and 07 (the plain layout) and the tile kernels' host helpers.
#include "conflicting_tile.cuh"

#include <stdexcept>
#include <string>

namespace smem_tiles {

void check_block_rows(int block_rows, const char* who) {
  if (block_rows < 1 || block_rows > kTile || kTile % block_rows != 0) {
    throw std::invalid_argument(std::string(who) + ": block_rows must divide " +
                                std::to_string(kTile) + ", got " + std::to_string(block_rows));
  }
}

void conflicting_transpose(const float* d_in, float* d_out, int rows, int cols,
                           cudaStream_t stream) {
  launch_tile_transpose<PlainLayout>(d_in, d_out, rows, cols, kTransposeBlockRows, stream,
                                     "conflicting_transpose");
}

void conflicting_matmul(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                        cudaStream_t stream) {
  launch_tile_matmul<PlainLayout>(d_a, d_b, d_c, m, n, k, stream, "conflicting_matmul");
}

cudalab::KernelInfo conflicting_transpose_kernel() {
  return tile_transpose_info<PlainLayout>("PlainLayout");
}

cudalab::KernelInfo conflicting_matmul_kernel() {
  return tile_matmul_info<PlainLayout>("PlainLayout");
}

}  // namespace smem_tiles
