// Lab 06: host side (given) — grids, argument checks and checked launches.
#include <stdexcept>
#include <string>

#include "conflicting_tile.cuh"
#include "cudalab/check.cuh"
#include "padding.cuh"

namespace lab06 {

static_assert(kTile == smem_tiles::kTile,
              "lab 06 is timed against baselines of the same tile size");

void padded_transpose(const float* d_in, float* d_out, int rows, int cols, int block_rows,
                      cudaStream_t stream) {
  if (block_rows < 1 || block_rows > kTile || kTile % block_rows != 0) {
    throw std::invalid_argument("padded_transpose: block_rows must divide " +
                                std::to_string(kTile) + ", got " + std::to_string(block_rows));
  }
  const dim3 grid = smem_tiles::tile_grid(rows, cols, "padded_transpose");
  padded_transpose_kernel<<<grid, dim3(kTile, block_rows), 0, stream>>>(d_in, d_out, rows, cols);
  CUDA_CHECK_LAST_LAUNCH();
}

void padded_matmul(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                   cudaStream_t stream) {
  if (k <= 0) throw std::invalid_argument("padded_matmul: sizes must be positive");
  const dim3 grid = smem_tiles::tile_grid(m, n, "padded_matmul");
  padded_matmul_kernel<<<grid, dim3(kTile, kTile), 0, stream>>>(d_a, d_b, d_c, m, n, k);
  CUDA_CHECK_LAST_LAUNCH();
}

}  // namespace lab06
