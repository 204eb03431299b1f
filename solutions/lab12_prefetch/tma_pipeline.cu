// SPDX-License-Identifier: BSD-3-Clause
// Lab 12, part 3 (advanced): a two-stage pipeline fed by bulk copies. One bulk copy per tile
// row (cuda::memcpy_async with a 16-byte aligned size on a block-scope cuda::barrier in
// shared memory: on sm_90 that is cp.async.bulk, the TMA unit, completing on the barrier's
// mbarrier with a transaction count). Threads wait on the stage's barrier, not on copies of
// their own.
#include <cuda/barrier>

#include <cstdint>
#include <stdexcept>
#include <utility>

#include "cudalab/check.cuh"
#include "prefetch.cuh"

namespace lab12 {

namespace {

using Barrier = cuda::barrier<cuda::thread_scope_block>;

__global__ void __maxnreg__(kMaxRegisters)
    matmul_tma_kernel(const float* __restrict__ a, const float* __restrict__ b,
                      float* __restrict__ c, int m, int n, int k) {
  constexpr int T = kTile;
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * T + ty;  // row of C (and of A) this thread owns
  const int col = blockIdx.x * T + tx;  // column of C (and of B) this thread owns

  // TODO(lab12): the pipeline of part 2 with one barrier object per stage instead of
  // per-thread copy groups: two stages of 16-byte aligned tiles, two
  // cuda::barrier<cuda::thread_scope_block> in shared memory, each tile row of A and B filled by
  // ONE cuda::memcpy_async(dst, src, cuda::aligned_size_t<16>(bytes), stage_barrier); whatever no
  // copy fills (rows past m or k, columns past k or n) is 0.0f.
  // HINT: #include <cuda/barrier>; "#pragma nv_diag_suppress static_var_with_dynamic_init"
  // HINT: before a __shared__ cuda::barrier; barrier.arrive() returns the token,
  // HINT: barrier.wait(std::move(token)) blocks until the copies and the arrivals are done.
  // HINT: who initializes the barriers, with which count, and what must follow before anyone
  // HINT: uses them? The loop has the shape of part 2's (the handout's folded section).
  // Roughly 45 lines.
  __shared__ __align__(16) float a_tile[2][T][T];  // [stage][r][j] = A[T by + r][k0 + j]
  __shared__ __align__(16) float b_tile[2][T][T];  // [stage][j][x] = B[k0 + j][T bx + x]
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ Barrier ready[2];  // ready[s]: the copies and stores of stage s are complete
  const int thread = ty * T + tx;
  if (thread == 0) {
    init(&ready[0], kThreads);
    init(&ready[1], kThreads);
  }
  __syncthreads();  // the barriers exist before anyone arrives on them

  const int col0 = blockIdx.x * T;  // first column of this block's C tile (and B tile)
  const int b_cols = min(T, n - col0);
  Barrier::arrival_token token[2];
  // Stages step k0 into stage s: warps 0 and 1 issue one bulk copy per tile row; every
  // thread zero-fills its own element if no copy covers it; everyone arrives.
  const auto issue = [&](int s, int k0) {
    const int a_cols = min(T, k - k0);  // columns of A in this step (a multiple of 4)
    if (ty == 0) {                      // lane tx: row tx of the A tile
      const int a_row = blockIdx.y * T + tx;
      if (a_row < m) {
        cuda::memcpy_async(&a_tile[s][tx][0], a + static_cast<std::size_t>(a_row) * k + k0,
                           cuda::aligned_size_t<16>(std::size_t(a_cols) * sizeof(float)), ready[s]);
      }
    } else if (ty == 1) {  // lane tx: row tx of the B tile
      const int b_row = k0 + tx;
      if (b_row < k) {
        cuda::memcpy_async(&b_tile[s][tx][0], b + static_cast<std::size_t>(b_row) * n + col0,
                           cuda::aligned_size_t<16>(std::size_t(b_cols) * sizeof(float)), ready[s]);
      }
    }
    // Element (ty, tx) of each tile when no copy writes it.
    if (row >= m || tx >= a_cols) a_tile[s][ty][tx] = 0.0f;
    if (k0 + ty >= k || tx >= b_cols) b_tile[s][ty][tx] = 0.0f;
    token[s] = ready[s].arrive();
  };

  const int tiles = (k + T - 1) / T;
  issue(0, 0);
  float acc = 0.0f;
  for (int t = 0; t < tiles; ++t) {
    const int s = t % 2;
    ready[s].wait(std::move(token[s]));  // stage s holds step t
    __syncthreads();                     // everyone is done with step t - 1 (stage 1 - s)
    if (t + 1 < tiles) issue(1 - s, (t + 1) * T);
#pragma unroll
    for (int j = 0; j < T; ++j) acc += a_tile[s][ty][j] * b_tile[s][j][tx];
  }
  if (row < m && col < n) c[static_cast<std::size_t>(row) * n + col] = acc;
  // END TODO(lab12)
}

bool aligned16(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

}  // namespace

void matmul_tma(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                cudaStream_t stream) {
  const auto [grid, block] = tile_launch("matmul_tma", m, n, k);
  if (k % 4 != 0 || n % 4 != 0 || !aligned16(d_a) || !aligned16(d_b)) {
    throw std::invalid_argument(
        "matmul_tma: bulk copies need 16-byte aligned rows: k and n multiples of 4, A and B "
        "16-byte aligned");
  }
  matmul_tma_kernel<<<grid, block, 0, stream>>>(d_a, d_b, d_c, m, n, k);
  CUDA_CHECK_LAST_LAUNCH();
}

cudalab::KernelInfo tma_kernel() {
  return {reinterpret_cast<const void*>(matmul_tma_kernel), "matmul_tma_kernel", dim3(kTile, kTile),
          0};
}

}  // namespace lab12
