// SPDX-License-Identifier: BSD-3-Clause
// Lab 14, part 3: the fast tensor-core kernel — 128 x 128 block tiles, 1024-bit stages of A and B
// copied by cp.async into a ring of kStages XOR-swizzled shared-memory buffers, fragments loaded
// with ldmatrix (no bank conflicts), 16 AND-popc MMAs per warp and 256 bits, popcount epilogue.
#include <cuda_pipeline.h>

#include <stdexcept>

#include "binary_mma.cuh"
#include "cudalab/check.cuh"

namespace lab14 {

namespace {

/// 16-byte chunks per row of a stage (1024 bits).
constexpr int kChunks = kBlockKBits / 128;
/// 32-bit words of K per stage.
constexpr int kStageWords = kBlockKBits / 32;
/// Bytes of one stage of A (kBlockM rows) and of B (kBlockN columns).
constexpr int kStageBytesA = kBlockM * kBlockKBits / 8;
constexpr int kStageBytesB = kBlockN * kBlockKBits / 8;
/// Warps along the rows and columns of the block tile, and each warp's tile.
constexpr int kWarpsM = 2;
constexpr int kWarpsN = 4;
constexpr int kWarpM = kBlockM / kWarpsM;  // 64 rows: 4 MMA tiles of 16
constexpr int kWarpN = kBlockN / kWarpsN;  // 32 columns: 4 MMA tiles of 8
constexpr int kTilesM = kWarpM / 16;
constexpr int kTilesN = kWarpN / 8;

static_assert(kWarpsM * kWarpsN * 32 == kPipelinedThreads, "one warp per warp tile");
static_assert(kChunks == 8,
              "the swizzle chunk ^ (row % 8) needs exactly 8 chunks of 16 bytes per row: the 8 "
              "rows an ldmatrix phase reads then land in 8 different 16-byte bank groups");
static_assert(kTilesN % 2 == 0, "B fragments are loaded two 8-column tiles per ldmatrix.x4");
static_assert((kBlockM * kChunks) % kPipelinedThreads == 0 &&
                  (kBlockN * kChunks) % kPipelinedThreads == 0,
              "every thread copies the same number of chunks per stage");
static_assert(kStageWords % kPitchWords == 0, "a chunk never straddles the row pitch");
static_assert(kPipelinedSmemBytes == kStages * (kStageBytesA + kStageBytesB), "stage sizes");

/// Byte offset of 16-byte chunk @p chunk of row @p row in a stage: rows of 128 bytes, the chunk
/// index XOR-swizzled with the row's low 3 bits.
__device__ __forceinline__ int swizzled(int row, int chunk) {
  return row * (kChunks * 16) + ((chunk ^ (row % 8)) * 16);
}

/**
 * Block (bx, by) computes the 128 x 128 tile of C at rows 128 by, columns 128 bx. Warp w is
 * warp tile (w / 4, w % 4): rows 64 (w / 4) .. + 63, columns 32 (w % 4) .. + 31 of the block
 * tile, 4 x 4 MMA tiles of 16 x 8 with 4 counts per lane each (64 accumulators).
 */
__global__ void __launch_bounds__(kPipelinedThreads, 2)
    binary_mma_pipelined_kernel(const std::uint32_t* __restrict__ a_bits,
                                const std::uint32_t* __restrict__ b_bits,
                                const int* __restrict__ a_pop, const int* __restrict__ b_pop,
                                float* __restrict__ c, int m, int n, int k, int words) {
  extern __shared__ __align__(128) unsigned char smem[];  // kStages x (A stage, B stage)
  // TODO(lab14): the pipelined block tile (see the comment above the kernel).
  // - Stage s (of kStages) is A's 128 rows then B's 128 columns, each row 1024 bits = 8
  //   chunks of 16 bytes at swizzled(row, chunk), filled by cp.async (16 bytes per copy); a
  //   chunk of a row past M (N) or of words past `words` is a store of zeros.
  // - A prologue and one wait, one barrier and one commit per K-block, as in lab 12.
  // - Compute: 4 steps of 256 bits; per step ldmatrix_x4 the A fragments of the warp's 4
  //   row tiles and the B fragments of its 4 column tiles (two tiles per ldmatrix_x4), then
  //   16 mma_and_popc().
  // - Epilogue: C = K - 2 popc(a) - 2 popc(b) + 4 count, for the elements inside C.
  // HINT: ldmatrix_x4 reads four 8 x 128-bit matrices; each lane supplies one row address. Which
  // HINT: four matrices make up a 16 x 256-bit A fragment (the handout's Fragments paragraph), and
  // HINT: which make up two 8-column B tiles? Derive the lane -> (row, chunk) map from that.
  // HINT: __pipeline_memcpy_async(dst, src, 16) copies 16 bytes; __pipeline_commit() ends a
  // HINT: group of copies; __pipeline_wait_prior(n) waits until at most n groups are pending.
  // Roughly 103 lines.
  const int tid = threadIdx.x;
  const int lane = tid % 32;
  const int warp = tid / 32;
  const int wm = warp / kWarpsN;  // warp tile row
  const int wn = warp % kWarpsN;  // warp tile column
  const int m0 = blockIdx.y * kBlockM;
  const int n0 = blockIdx.x * kBlockN;
  const int kblocks = (words + kStageWords - 1) / kStageWords;

  // Copies K-block q into stage buffer `stage`: A's chunks, then B's.
  const auto fill = [&](int stage, int q) {
    unsigned char* a_stage = smem + stage * (kStageBytesA + kStageBytesB);
    unsigned char* b_stage = a_stage + kStageBytesA;
#pragma unroll
    for (int p = 0; p < kBlockM * kChunks / kPipelinedThreads; ++p) {
      const int idx = tid + p * kPipelinedThreads;
      const int row = idx / kChunks, chunk = idx % kChunks;
      const int w = q * kStageWords + chunk * 4;  // first word of the chunk
      void* dst = a_stage + swizzled(row, chunk);
      if (m0 + row < m && w < words) {
        __pipeline_memcpy_async(dst, a_bits + static_cast<std::size_t>(m0 + row) * words + w, 16);
      } else {
        *static_cast<uint4*>(dst) = make_uint4(0u, 0u, 0u, 0u);
      }
    }
#pragma unroll
    for (int p = 0; p < kBlockN * kChunks / kPipelinedThreads; ++p) {
      const int idx = tid + p * kPipelinedThreads;
      const int col = idx / kChunks, chunk = idx % kChunks;
      const int w = q * kStageWords + chunk * 4;
      void* dst = b_stage + swizzled(col, chunk);
      if (n0 + col < n && w < words) {
        __pipeline_memcpy_async(dst, b_bits + static_cast<std::size_t>(n0 + col) * words + w, 16);
      } else {
        *static_cast<uint4*>(dst) = make_uint4(0u, 0u, 0u, 0u);
      }
    }
  };

#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < kblocks) fill(s, s);
    __pipeline_commit();  // one group per K-block, empty ones included: the wait count holds
  }

  int acc[kTilesM][kTilesN][4] = {};
  for (int q = 0; q < kblocks; ++q) {
    __pipeline_wait_prior(kStages - 2);  // this thread's copies of K-block q have landed
    __syncthreads();  // everyone's have; everyone is done with K-block q - 1's buffer
    const int next = q + kStages - 1;
    if (next < kblocks) fill(next % kStages, next);
    __pipeline_commit();

    // Banks: a stage row is 128 bytes = all 32 banks, so chunk c of row r lies in banks
    // 4 (c ^ (r % 8)) .. + 3. ldmatrix serves one 8-lane phase (8 rows of 16 bytes) at a time: for
    // A, lanes 8 j .. 8 j + 7 point at rows r0 + (8 j % 16) + 0..7 (r0 % 16 == 0), chunk
    // 2 step + j / 2; for B, columns c0 + 8 (j / 2) + 0..7, chunk 2 step + j % 2. Either way r % 8
    // runs over 0..7 with c fixed, so c ^ (r % 8) does too: 8 distinct 4-bank groups, 128 bytes,
    // one wavefront per phase. The fills: lanes 8 i .. 8 i + 7 of a warp copy chunks 0..7 of one
    // row, again 8 distinct groups (the same holds for their 16-byte zero stores).
    const unsigned char* a_stage = smem + (q % kStages) * (kStageBytesA + kStageBytesB);
    const unsigned char* b_stage = a_stage + kStageBytesA;
#pragma unroll
    for (int step = 0; step < kChunks / 2; ++step) {  // 256 bits = 2 chunks per MMA
      std::uint32_t a_frag[kTilesM][4];
      std::uint32_t b_frag[kTilesN][2];
#pragma unroll
      for (int i = 0; i < kTilesM; ++i) {
        const int row = wm * kWarpM + i * 16 + lane % 16;
        ldmatrix_x4(a_frag[i], a_stage + swizzled(row, 2 * step + lane / 16));
      }
#pragma unroll
      for (int j = 0; j < kTilesN; j += 2) {
        const int col = wn * kWarpN + j * 8 + (lane / 16) * 8 + lane % 8;
        std::uint32_t r[4];
        ldmatrix_x4(r, b_stage + swizzled(col, 2 * step + (lane / 8) % 2));
        b_frag[j][0] = r[0];
        b_frag[j][1] = r[1];
        b_frag[j + 1][0] = r[2];
        b_frag[j + 1][1] = r[3];
      }
#pragma unroll
      for (int i = 0; i < kTilesM; ++i) {
#pragma unroll
        for (int j = 0; j < kTilesN; ++j) mma_and_popc(acc[i][j], a_frag[i], b_frag[j]);
      }
    }
  }
  __pipeline_wait_prior(0);  // no copy may still target shared memory when the block exits

  const int g = lane / 4, t = lane % 4;
#pragma unroll
  for (int i = 0; i < kTilesM; ++i) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = m0 + wm * kWarpM + i * 16 + g + 8 * half;
      if (row >= m) continue;
      const int row_term = k - 2 * a_pop[row];
      float* c_row = c + static_cast<std::size_t>(row) * n;
#pragma unroll
      for (int j = 0; j < kTilesN; ++j) {
        const int col = n0 + wn * kWarpN + j * 8 + 2 * t;
        const int* d = acc[i][j] + 2 * half;
        if (col + 1 < n && n % 2 == 0) {  // 8-byte aligned pair
          *reinterpret_cast<float2*>(c_row + col) =
              make_float2(static_cast<float>(row_term - 2 * b_pop[col] + 4 * d[0]),
                          static_cast<float>(row_term - 2 * b_pop[col + 1] + 4 * d[1]));
        } else {
          if (col < n) c_row[col] = static_cast<float>(row_term - 2 * b_pop[col] + 4 * d[0]);
          if (col + 1 < n) {
            c_row[col + 1] = static_cast<float>(row_term - 2 * b_pop[col + 1] + 4 * d[1]);
          }
        }
      }
    }
  }
  // END TODO(lab14)
}

}  // namespace

void binary_mma_pipelined(const std::uint32_t* d_a_bits, const std::uint32_t* d_b_bits,
                          const int* d_a_pop, const int* d_b_pop, float* d_c, int m, int n, int k,
                          cudaStream_t stream) {
  if (m <= 0 || n <= 0 || k <= 0) {
    throw std::invalid_argument("binary_mma_pipelined: m, n and k must be positive");
  }
  require_binary_tensor_cores("binary_mma_pipelined");
  const dim3 grid = cudalab::tile_grid(m, n, kBlockM, kBlockN, "binary_mma_pipelined");
  // TODO(lab14): launch binary_mma_pipelined_kernel with grid x kPipelinedThreads threads and
  // kPipelinedSmemBytes of dynamic shared memory on @p stream (row pitch: row_words(k)).
  // HINT: more than 48 KB of dynamic shared memory needs the opt-in first:
  // HINT: cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes).
  // Roughly 5 lines.
  CUDA_CHECK(cudaFuncSetAttribute(binary_mma_pipelined_kernel,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  kPipelinedSmemBytes));
  binary_mma_pipelined_kernel<<<grid, kPipelinedThreads, kPipelinedSmemBytes, stream>>>(
      d_a_bits, d_b_bits, d_a_pop, d_b_pop, d_c, m, n, k, row_words(k));
  // END TODO(lab14)
  CUDA_CHECK_LAST_LAUNCH();
}

cudalab::KernelInfo mma_pipelined_kernel() {
  return {reinterpret_cast<const void*>(binary_mma_pipelined_kernel), "binary_mma_pipelined_kernel",
          dim3(kPipelinedThreads), kPipelinedSmemBytes};
}

}  // namespace lab14
