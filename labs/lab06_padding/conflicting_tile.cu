// Given baselines of labs 06 and 07: unpadded tiles read down a column (32-way conflicts).
#include <stdexcept>
#include <string>

#include "conflicting_tile.cuh"
#include "cudalab/check.cuh"

namespace smem_tiles {

__global__ void conflicting_transpose_kernel(const float* __restrict__ in, float* __restrict__ out,
                                             int rows, int cols) {
  __shared__ float tile[kTile][kTile];       // tile[r][c] = in[tile_row0 + r][tile_col0 + c]
  const int tile_row0 = blockIdx.y * kTile;  // first input row of this block's tile
  const int tile_col0 = blockIdx.x * kTile;  // first input column of this block's tile
  const int lane = threadIdx.x;

  // Load: a warp reads one input row (coalesced) and writes one tile row (conflict-free).
  for (int r = threadIdx.y; r < kTile; r += blockDim.y) {
    const int row = tile_row0 + r;
    const int col = tile_col0 + lane;
    if (row < rows && col < cols) {
      tile[r][lane] = in[static_cast<size_t>(row) * cols + col];
    }
  }
  __syncthreads();
  // Store: a warp writes one output row (coalesced) = one tile column: tile[lane][r] puts
  // all 32 lanes on bank r, a 32-way conflict.
  for (int r = threadIdx.y; r < kTile; r += blockDim.y) {
    const int out_row = tile_col0 + r;     // output row = input column
    const int out_col = tile_row0 + lane;  // output column = input row
    if (out_row < cols && out_col < rows) {
      out[static_cast<size_t>(out_row) * rows + out_col] = tile[lane][r];
    }
  }
}

__global__ void conflicting_matmul_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                          float* __restrict__ c, int m, int n, int k) {
  __shared__ float a_tile[kTile][kTile];  // a_tile[r][kk] = A[row0 + r][k0 + kk]
  __shared__ float b_tile[kTile][kTile];  // b_tile[kk][j] = B[k0 + kk][col0 + j]
  const int tx = threadIdx.x;             // lane: walks the rows of C
  const int ty = threadIdx.y;             // warp: one column of C
  const int row0 = blockIdx.y * kTile;    // first row of this block's C tile
  const int col0 = blockIdx.x * kTile;    // first column of this block's C tile

  float acc = 0.0f;
  for (int k0 = 0; k0 < k; k0 += kTile) {
    // Coalesced loads, row-wise (conflict-free) stores; zeros outside the matrices.
    const int a_row = row0 + ty;
    const int a_col = k0 + tx;
    a_tile[ty][tx] = (a_row < m && a_col < k) ? a[static_cast<size_t>(a_row) * k + a_col] : 0.0f;
    const int b_row = k0 + ty;
    const int b_col = col0 + tx;
    b_tile[ty][tx] = (b_row < k && b_col < n) ? b[static_cast<size_t>(b_row) * n + b_col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kTile; ++kk) {
      // a_tile[tx][kk]: lanes walk a column, 32-way conflict; b_tile[kk][ty]: broadcast.
      acc += a_tile[tx][kk] * b_tile[kk][ty];
    }
    __syncthreads();
  }
  const int row = row0 + tx;
  const int col = col0 + ty;
  if (row < m && col < n) {
    c[static_cast<size_t>(row) * n + col] = acc;
  }
}

dim3 tile_grid(int rows, int cols, const char* who) {
  if (rows <= 0 || cols <= 0) {
    throw std::invalid_argument(std::string(who) + ": sizes must be positive");
  }
  const int tiles_y = (rows + kTile - 1) / kTile;
  if (tiles_y > 65535) {
    throw std::invalid_argument(std::string(who) + ": " + std::to_string(rows) +
                                " rows need more than 65535 tile rows");
  }
  return dim3((cols + kTile - 1) / kTile, tiles_y, 1);
}

void conflicting_transpose(const float* d_in, float* d_out, int rows, int cols,
                           cudaStream_t stream) {
  const dim3 grid = tile_grid(rows, cols, "conflicting_transpose");
  conflicting_transpose_kernel<<<grid, dim3(kTile, kTransposeBlockRows), 0, stream>>>(d_in, d_out,
                                                                                      rows, cols);
  CUDA_CHECK_LAST_LAUNCH();
}

void conflicting_matmul(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                        cudaStream_t stream) {
  if (k <= 0) throw std::invalid_argument("conflicting_matmul: sizes must be positive");
  const dim3 grid = tile_grid(m, n, "conflicting_matmul");
  conflicting_matmul_kernel<<<grid, dim3(kTile, kTile), 0, stream>>>(d_a, d_b, d_c, m, n, k);
  CUDA_CHECK_LAST_LAUNCH();
}

}  // namespace smem_tiles
