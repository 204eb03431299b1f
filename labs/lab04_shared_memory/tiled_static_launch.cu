// Lab 04 (given): launcher of the static-tile kernel.
#include <stdexcept>

#include "cudalab/check.cuh"
#include "shared_memory.cuh"

namespace lab04 {

void matmul_tiled_static(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                         cudaStream_t stream) {
  if (m <= 0 || n <= 0 || k <= 0) {
    throw std::invalid_argument("matmul_tiled_static: m, n and k must be positive");
  }
  constexpr int T = kStaticTile;
  const dim3 block(T, T);                             // one thread per element of a C tile
  const dim3 grid((n + T - 1) / T, (m + T - 1) / T);  // x: tiles across C's columns, y: rows
  matmul_tiled_static_kernel<<<grid, block, 0, stream>>>(d_a, d_b, d_c, m, n, k);
  CUDA_CHECK_LAST_LAUNCH();
}

}  // namespace lab04
