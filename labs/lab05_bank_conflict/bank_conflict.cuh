/**
 * @file bank_conflict.cuh
 * @brief Lab 05 interface: the bank-conflict model on the host, and two shared-memory
 * microbenchmarks (conflict-free and 32-way) timed with clock64() on the GPU.
 *
 * Requests are described with cudalab::bank::WarpRequest (cudalab/bank_model.hpp): each
 * lane's byte address, the active-lane mask and the access width (4, 8 or 16 bytes).
 */
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstdint>

#include "cudalab/bank_model.hpp"

namespace lab05 {

// ---------------------------------------------------------------------------
// The model (host)
// ---------------------------------------------------------------------------

/// The bank holding byte @p byte_address: 32 banks of 4-byte words, (address / 4) % 32.
int bank_of(std::uint64_t byte_address);

/**
 * @brief The conflict degree of one warp request: 1 = conflict-free, n = n-way, 0 when no
 * lane is active.
 *
 * - Only lanes whose bit is set in r.active_mask take part.
 * - A lane's access covers r.access_bytes / 4 consecutive 4-byte words starting at its
 *   byte address.
 * - 8-byte accesses are served per half-warp (lanes 0-15, then 16-31) and 16-byte ones
 *   per quarter-warp (8 lanes); conflicts only happen inside such a phase.
 * - Inside a phase a bank needs one pass per *distinct word* it must deliver; lanes that
 *   read the same word share one pass (broadcast).
 * The degree is the largest pass count of any bank in any phase.
 * @throws std::invalid_argument when r.access_bytes is not 4, 8 or 16
 */
int conflict_degree(const cudalab::bank::WarpRequest& r);

// ---------------------------------------------------------------------------
// The microbenchmarks (GPU): one warp walks chains through a 32 x 32 grid of words.
// ---------------------------------------------------------------------------

/// Words of the microbenchmarks' shared array: 32 rows of 32 banks (4 KB).
inline constexpr int kWords = cudalab::bank::kNumBanks * cudalab::bank::kNumBanks;
static_assert(kWords % cudalab::bank::kNumBanks == 0,
              "the array must hold whole rows of banks so that w + 32 stays in w's bank");

/**
 * @brief Fills @p s_next (kWords ints of shared memory) so that every word holds the
 * index of the next word *in the same bank*: (w + 32) % kWords. Called by the whole
 * block; the caller synchronizes afterwards.
 */
__device__ void fill_same_bank_successors(int* s_next);

/**
 * @brief Each lane follows the chain `word = s_next[word]` for @p steps dependent loads
 * from @p start_word, timed with clock64(); writes d_cycles[lane] (the loop's cycles)
 * and d_final_word[lane] (where the chain ended).
 */
__device__ void timed_chase(const int* s_next, int start_word, int steps, long long* d_cycles,
                            int* d_final_word);

/// One warp, lane i starts at word i: every request touches 32 different banks.
__global__ void conflict_free_kernel(int steps, long long* d_cycles, int* d_final_word);

/// One warp, lane i starts at word 32 * i: every request hits bank 0 with 32 words.
__global__ void all_conflict_kernel(int steps, long long* d_cycles, int* d_final_word);

/// Which microbenchmark.
enum class Microbench { ConflictFree, AllConflict };

/// The words the lanes start at (lane i: i, or 32 * i): the pattern of every request.
std::array<std::int64_t, 32> start_words(Microbench which);

/// Where lane i's chain ends after @p steps: (start_i + 32 * steps) % kWords.
std::array<int, 32> expected_final_words(Microbench which, int steps);

/// Result of running a microbenchmark.
struct MicrobenchResult {
  double cycles_per_access = 0.0;    ///< lane 0's cycles / steps, fastest launch
  std::array<int, 32> final_word{};  ///< d_final_word of the fastest launch
};

/**
 * @brief Enqueues one run of the microbenchmark @p which (1 block of 32 threads) on
 * @p stream: @p steps dependent loads per lane; d_cycles and d_final_word hold 32 entries
 * (given; does not synchronize).
 * @throws std::invalid_argument for steps < 1 or a null pointer
 */
void launch_microbench(Microbench which, int steps, long long* d_cycles, int* d_final_word,
                       cudaStream_t stream = nullptr);

/**
 * @brief Launches the kernel (1 block of 32 threads) @p launches times and keeps the
 * fastest (given).
 * @throws std::invalid_argument for steps < 1 or launches < 1
 */
MicrobenchResult run_microbench(Microbench which, int steps, int launches = 3);

}  // namespace lab05
