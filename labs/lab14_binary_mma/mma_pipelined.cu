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
  cudalab::unused(smem, a_bits, b_bits, a_pop, b_pop, c, m, n, k, words);
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
  cudalab::unused(grid, d_a_bits, d_b_bits, d_a_pop, d_b_pop, d_c, stream);
  // END TODO(lab14)
  CUDA_CHECK_LAST_LAUNCH();
}

cudalab::KernelInfo mma_pipelined_kernel() {
  return {reinterpret_cast<const void*>(binary_mma_pipelined_kernel), "binary_mma_pipelined_kernel",
          dim3(kPipelinedThreads), kPipelinedSmemBytes};
}

}  // namespace lab14
