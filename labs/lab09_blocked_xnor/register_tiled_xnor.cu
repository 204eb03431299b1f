// SPDX-License-Identifier: BSD-3-Clause
// Lab 09 (advanced): register tiling on 64-bit words — each thread keeps an 8x8 block of C
// in registers, so every word read from shared memory feeds 8 XOR + popcount operations.
#include <stdexcept>

#include "blocked_xnor.cuh"
#include "cudalab/bits.hpp"
#include "cudalab/check.cuh"
#include "cudalab/launch_checks.hpp"

namespace lab09 {

namespace {

/// Threads along the columns of C (a half-warp: 16 threads read 16 different columns).
constexpr int kThreadsX = 16;
/// Threads along the rows of C.
constexpr int kThreadsY = kRegThreads / kThreadsX;
/// Rows of C per thread: rows ty, ty + kThreadsY, ... of the block tile.
constexpr int kRegM = kRegBlockM / kThreadsY;
/// Columns of C per thread: columns tx, tx + kThreadsX, ... of the block tile.
constexpr int kRegN = kRegBlockN / kThreadsX;
/// Shared row pitch in 64-bit words: one word of padding (see the kernel).
constexpr int kPitch = kRegBlockK + 1;
/// Rows (of A) or columns (of B) one pass of the block stages: kRegBlockK threads per row.
constexpr int kStageRows = kRegThreads / kRegBlockK;

static_assert(kRegThreads % kThreadsX == 0, "the threads must form a kThreadsX-wide grid");
static_assert(kRegBlockM % kThreadsY == 0 && kRegBlockN % kThreadsX == 0,
              "the block tile must split evenly into per-thread tiles");
static_assert(kRegM * kRegN <= 64,
              "64 counters and 2 x 8 fragment words per thread fit the 128 registers that "
              "__launch_bounds__(kRegThreads, 2) allows; a larger register tile spills");
static_assert(kThreadsX == 16,
              "the conflict-free reads of b_stage assume 16 threads (a half-warp) along x");
static_assert(kPitch % 2 == 1,
              "an odd pitch of 64-bit words spreads the 16 rows a half-warp reads over all banks");
static_assert(kRegThreads % kRegBlockK == 0 && kRegBlockM % kStageRows == 0 &&
                  kRegBlockN % kStageRows == 0,
              "every thread must stage the same number of words, one word index per thread");
static_assert((kRegBlockM + kRegBlockN) * kPitch * sizeof(std::uint64_t) <= 48 * 1024,
              "the two stages must fit in 48 KB of static shared memory");

/**
 * Block (bx, by) computes the 128 x 128 tile of C at rows 128 by, columns 128 bx. Thread
 * (tx, ty) = (t % 16, t / 16) computes the 8 x 8 elements at rows 128 by + ty + 16 i and
 * columns 128 bx + tx + 16 j (i, j < 8), with 64 counters in registers. K is walked
 * kRegBlockK = 8 words (512 bits) per stage; per word the thread reads 8 words of A and 8 of
 * B from shared memory and does 64 XOR + popcount: 4 popcounts per shared load, against
 * 1 per load in the 16x16 tiled kernel.
 */
__global__ void __launch_bounds__(kRegThreads, 2)
    register_tiled_xnor_kernel(const std::uint64_t* __restrict__ a_bits,
                               const std::uint64_t* __restrict__ b_bits, float* __restrict__ c,
                               int m, int n, int k, int words) {
  // TODO(lab09): compute the thread's 8 x 8 elements of C (see above) with a register tile:
  // - per stage of kRegBlockK words: all threads stage the 128 x 8 words of A's rows and of
  //   B's columns in shared memory (0 past the edges), barrier; for each word w of the
  //   stage, read the 8 words of A (rows ty + 16 i) and 8 of B (columns tx + 16 j) into
  //   registers and add __popcll(a XOR b) into the 64 counters; barrier;
  // - store K - 2 * counter for the elements inside C.
  // HINT: keep counters and fragments in arrays indexed only by unrolled loop counters
  // HINT: (#pragma unroll) so they live in registers. Lay a stage out as [vector][word]
  // HINT: with a pitch of kRegBlockK + 1 words: the 16 columns a half-warp reads then hit
  // HINT: 16 different bank pairs. Staging: which word of which rows should thread t copy so
  // HINT: that neighbouring threads read consecutive words of one row of A (or column of B)
  // HINT: and all 256 threads copy the same number of words per stage?
  // Roughly 52 lines.
  cudalab::unused(a_bits, b_bits, c, m, n, k, words);
  // END TODO(lab09)
}

}  // namespace

void register_tiled_xnor(const std::uint64_t* d_a_bits, const std::uint64_t* d_b_bits, float* d_c,
                         int m, int n, int k, cudaStream_t stream) {
  if (m <= 0 || n <= 0 || k <= 0) {
    throw std::invalid_argument("register_tiled_xnor: m, n and k must be positive");
  }
  const dim3 grid = cudalab::tile_grid(m, n, kRegBlockM, kRegBlockN, "register_tiled_xnor");
  register_tiled_xnor_kernel<<<grid, kRegThreads, 0, stream>>>(d_a_bits, d_b_bits, d_c, m, n, k,
                                                               cudalab::bits::words64(k));
  CUDA_CHECK_LAST_LAUNCH();
}

cudalab::KernelInfo register_tiling_kernel() {
  return {reinterpret_cast<const void*>(register_tiled_xnor_kernel), "register_tiled_xnor_kernel",
          dim3(kRegThreads), 0};
}

}  // namespace lab09
