// Lab 12, part 2: a two-stage shared-memory pipeline with cp.async. Two pairs of tiles: the
// block multiplies the pair of step t while the asynchronous copies of step t + 1 fill the
// other pair; one barrier per step.
#include <cuda_pipeline.h>

#include <cstdint>

#include "cudalab/check.cuh"
#include "prefetch.cuh"

namespace lab12 {

__global__ void __maxnreg__(kMaxRegisters)
    matmul_pipelined_kernel(const float* __restrict__ a, const float* __restrict__ b,
                            float* __restrict__ c, int m, int n, int k) {
  constexpr int T = kTile;
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * T + ty;  // row of C (and of A) this thread owns
  const int col = blockIdx.x * T + tx;  // column of C (and of B) this thread owns

  // TODO(lab12): two stages of tiles (a_tile[2][T][T], b_tile[2][T][T]: exactly twice the
  // synchronous kernel's shared memory). Issue step 0's copies into stage 0 and commit them;
  // then for each step t (tiles = ceil(k / T), an odd count and a partial last tile included):
  // - wait for this thread's copies of step t, then ONE __syncthreads(): now every thread's
  //   copies of step t have landed AND every thread has finished multiplying step t - 1,
  //   whose stage step t + 1 reuses;
  // - if step t + 1 exists, issue its copies into stage (t + 1) % 2 and commit them;
  // - multiply the tiles of stage t % 2.
  // Store the sum in C when (row, col) lies inside C.
  // HINT: <cuda_pipeline.h>: __pipeline_memcpy_async(dst, src, sizeof(float)) copies one
  // HINT: float global -> shared without a register; __pipeline_commit() closes a group;
  // HINT: __pipeline_wait_prior(0) waits for all of this thread's committed groups.
  // HINT: an element outside A or B is a plain store of 0.0f into the stage instead.
  // Roughly 30 lines.
  __shared__ float a_tile[2][T][T];  // [stage][ty][j] = A[row][k0 + j] of the stage's step
  __shared__ float b_tile[2][T][T];  // [stage][j][tx] = B[k0 + j][col] of the stage's step
  // Stages this thread's element of A and of B of step k0 into @p stage (cp.async, or 0.0f).
  const auto issue = [&](int stage, int k0) {
    const int a_col = k0 + tx;  // column of A this thread stages
    const int b_row = k0 + ty;  // row of B this thread stages
    if (row < m && a_col < k) {
      __pipeline_memcpy_async(&a_tile[stage][ty][tx], a + static_cast<std::size_t>(row) * k + a_col,
                              sizeof(float));
    } else {
      a_tile[stage][ty][tx] = 0.0f;
    }
    if (b_row < k && col < n) {
      __pipeline_memcpy_async(&b_tile[stage][ty][tx], b + static_cast<std::size_t>(b_row) * n + col,
                              sizeof(float));
    } else {
      b_tile[stage][ty][tx] = 0.0f;
    }
    __pipeline_commit();
  };
  const int tiles = (k + T - 1) / T;
  issue(0, 0);
  float acc = 0.0f;
  for (int t = 0; t < tiles; ++t) {
    __syncthreads();  // everyone's have; everyone is done with step t - 1's stage
    if (t + 1 < tiles) issue((t + 1) % 2, (t + 1) * T);  // in flight during the multiply
    const int s = t % 2;
#pragma unroll
    for (int j = 0; j < T; ++j) acc += a_tile[s][ty][j] * b_tile[s][j][tx];
  }
  if (row < m && col < n) c[static_cast<std::size_t>(row) * n + col] = acc;
  // END TODO(lab12)
}

void matmul_pipelined(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                      cudaStream_t stream) {
  const auto [grid, block] = tile_launch("matmul_pipelined", m, n, k);
  // TODO(lab12): launch matmul_pipelined_kernel with grid x block threads on @p stream (0 dynamic
  // bytes for static tiles; 2 * kStageBytes if your two stages are one extern __shared__ buffer).
  // HINT: the grader captures @p stream; a launch on any other stream is not seen.
  // Roughly 1 line.
  matmul_pipelined_kernel<<<grid, block, 0, stream>>>(d_a, d_b, d_c, m, n, k);
  // END TODO(lab12)
  CUDA_CHECK_LAST_LAUNCH();
}

}  // namespace lab12
