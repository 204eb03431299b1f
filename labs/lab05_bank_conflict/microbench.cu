// SPDX-License-Identifier: BSD-3-Clause
// Lab 05: the conflict-free and 32-way microbenchmarks (dependent shared loads timed with
// clock64()), and their launch (given).
#include <cmath>
#include <stdexcept>

#include "bank_conflict.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/launch_checks.hpp"

namespace lab05 {
namespace {

/**
 * Fills @p s_next (kWords ints of shared memory) so that every word holds the index of the
 * next word *in the same bank*: (w + 32) % kWords. Called by the whole block; the caller
 * synchronizes afterwards.
 */
__device__ void fill_same_bank_successors(int* s_next) {
  // TODO(lab05): with the whole block, set s_next[w] = (w + 32) % kWords for every word w
  // (the word one row below in the same bank, wrapping from the last row to the first).
  // Roughly 3 lines.
  // HINT: a block-stride loop: for (int w = threadIdx.x; w < kWords; w += blockDim.x).
  cudalab::unused(s_next);
  // END TODO(lab05)
}

/**
 * Each lane follows the chain `word = s_next[word]` for @p steps dependent loads from
 * @p start_word, timed with clock64(); writes d_cycles[lane] (the loop's cycles) and
 * d_final_word[lane] (where the chain ended).
 */
__device__ void timed_chase(const int* s_next, int start_word, int steps, long long* d_cycles,
                            int* d_final_word) {
  // TODO(lab05): read clock64(), follow word = s_next[word] `steps` times from start_word,
  // read clock64() again, and store the difference and the final word at index threadIdx.x.
  // Roughly 9 lines.
  // HINT: read through a `const volatile int*` so every load really happens, in order; each
  // load's address is the previous load's value, so the loads cannot overlap.
  cudalab::unused(s_next, start_word, steps, d_cycles, d_final_word);
  // END TODO(lab05)
}

/// One warp, lane i starts at word i: every request touches 32 different banks.
__global__ void conflict_free_kernel(int steps, long long* d_cycles, int* d_final_word) {
  // TODO(lab05): declare a shared array of kWords ints, fill it, wait for the whole
  // block, then time the chase from the word that puts lane i in bank i. Roughly 4 lines.
  // HINT: lane i starts at word i; its chain stays in bank i, so no two lanes ever meet.
  cudalab::unused(steps, d_cycles, d_final_word);
  // END TODO(lab05)
}

/// One warp, lane i starts at word 32 * i: every request hits bank 0 with 32 words.
__global__ void all_conflict_kernel(int steps, long long* d_cycles, int* d_final_word) {
  // TODO(lab05): declare and fill the shared array as above, wait, then time the chase
  // from a start word that puts all 32 lanes in bank 0, each on a different word (row).
  // Roughly 5 lines.
  // HINT: lane i starts in row i of bank 0: which word is that (bank = word % 32)?
  cudalab::unused(steps, d_cycles, d_final_word);
  // END TODO(lab05)
}

}  // namespace

std::array<std::int64_t, 32> start_words(Microbench which) {
  const std::int64_t stride = which == Microbench::ConflictFree ? 1 : cudalab::bank::kNumBanks;
  return cudalab::bank::strided_words(stride);
}

std::array<int, 32> expected_final_words(Microbench which, int steps) {
  const auto start = start_words(which);
  std::array<int, 32> final_word{};
  for (int lane = 0; lane < 32; ++lane) {
    const std::int64_t w =
        start[static_cast<std::size_t>(lane)] + std::int64_t{cudalab::bank::kNumBanks} * steps;
    final_word[static_cast<std::size_t>(lane)] = static_cast<int>(w % kWords);
  }
  return final_word;
}

void launch_microbench(Microbench which, int steps, long long* d_cycles, int* d_final_word,
                       cudaStream_t stream) {
  if (steps < 1) throw std::invalid_argument("launch_microbench: steps must be positive");
  cudalab::check_not_null("launch_microbench", {d_cycles, d_final_word});
  if (which == Microbench::ConflictFree) {
    conflict_free_kernel<<<1, 32, 0, stream>>>(steps, d_cycles, d_final_word);
  } else {
    all_conflict_kernel<<<1, 32, 0, stream>>>(steps, d_cycles, d_final_word);
  }
  CUDA_CHECK_LAST_LAUNCH();
}

cudalab::KernelInfo microbench_kernel(Microbench which) {
  if (which == Microbench::ConflictFree) {
    return {reinterpret_cast<const void*>(conflict_free_kernel), "conflict_free_kernel", dim3(32),
            0};
  }
  return {reinterpret_cast<const void*>(all_conflict_kernel), "all_conflict_kernel", dim3(32), 0};
}

MicrobenchResult run_microbench(Microbench which, int steps, int launches) {
  if (steps < 1 || launches < 1) {
    throw std::invalid_argument("run_microbench: steps and launches must be positive");
  }
  cudalab::DeviceBuffer<long long> d_cycles(32);
  cudalab::DeviceBuffer<int> d_final(32);
  MicrobenchResult best;
  best.cycles_per_access = INFINITY;
  for (int i = 0; i < launches; ++i) {
    d_cycles.fill_bytes(0xFF);
    d_final.fill_bytes(0xFF);
    launch_microbench(which, steps, d_cycles.data(), d_final.data());
    CUDA_CHECK(cudaDeviceSynchronize());
    std::array<long long, 32> cycles{};
    d_cycles.download(cycles.data());
    MicrobenchResult r;
    d_final.download(r.final_word.data());
    r.cycles_per_access = static_cast<double>(cycles[0]) / steps;
    if (i == 0 || (r.cycles_per_access > 0.0 && r.cycles_per_access < best.cycles_per_access)) {
      best = r;
    }
  }
  return best;
}

}  // namespace lab05
