// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file bank_conflict.cuh
 * @brief Lab 05 interface: the bank-conflict model on the host, and two shared-memory
 * microbenchmarks (conflict-free and 32-way) timed with clock64() on the GPU, and the table of
 * the two (lab05::kTechniques).
 *
 * Requests are described with cudalab::bank::WarpRequest (cudalab/bank_model.hpp): each
 * lane's byte address, the active-lane mask and the access width (4, 8 or 16 bytes).
 */
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstdint>

#include "cudalab/bank_model.hpp"
#include "cudalab/launch_checks.hpp"

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
// The microbenchmarks (GPU): one warp walks chains through a 32 x 32 grid of words. The
// kernels are private to microbench.cu; tests reach them through launch_microbench().
// ---------------------------------------------------------------------------

/// Words of the microbenchmarks' shared array: 32 rows of 32 banks (4 KB).
inline constexpr int kWords = cudalab::bank::kNumBanks * cudalab::bank::kNumBanks;
static_assert(kWords % cudalab::bank::kNumBanks == 0,
              "the array must hold whole rows of banks so that w + 32 stays in w's bank");

/// Which microbenchmark (microbench.cu): one warp chases chains of dependent shared loads;
/// conflict_free_kernel starts lane i at word i (32 different banks), all_conflict_kernel
/// at word 32 * i (32 words of bank 0).
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

/// The kernel launch_microbench() launches for @p which (microbench.cu): provenance, profiler.
cudalab::KernelInfo microbench_kernel(Microbench which);

/**
 * @brief Launches the kernel (1 block of 32 threads) @p launches times and keeps the
 * fastest (given).
 * @throws std::invalid_argument for steps < 1 or launches < 1
 */
MicrobenchResult run_microbench(Microbench which, int steps, int launches = 3);

// ---------------------------------------------------------------------------
// The two microbenchmarks in one table (the demo's rows, the grader's tests and race)
// ---------------------------------------------------------------------------

/// A microbenchmark launcher of the table: launch_microbench()'s arguments after @p which.
using MicrobenchLauncher = void (*)(int steps, long long* d_cycles, int* d_final_word,
                                    cudaStream_t stream);

/// One microbenchmark: the same chase of dependent shared loads from another pattern of start
/// words, what the demo times and the grader checks of it (the 32-way one is raced against the
/// conflict-free one). The model, conflict_degree(), is not here: it predicts both.
struct Technique {
  const char* name;  ///< in measurement names: "conflict_free", "all_conflict"
  Microbench which;  ///< its argument to start_words(), expected_final_words(), run_microbench()
  MicrobenchLauncher launcher;      ///< launch_microbench() for which
  cudalab::KernelInfo (*kernel)();  ///< microbench_kernel() for which: the kernel it runs
  int degree;  ///< the conflict degree of its requests: 1 (32 banks), 32 (32 words of bank 0)
};

namespace detail {
/// launch_microbench() for @p W, as a MicrobenchLauncher.
template <Microbench W>
void launch_microbench_of(int steps, long long* d_cycles, int* d_final_word, cudaStream_t stream) {
  launch_microbench(W, steps, d_cycles, d_final_word, stream);
}
/// microbench_kernel() for @p W.
template <Microbench W>
cudalab::KernelInfo microbench_kernel_of() {
  return microbench_kernel(W);
}
}  // namespace detail

/// The conflict-free microbenchmark, then the 32-way one.
inline constexpr Technique kTechniques[] = {
    {"conflict_free", Microbench::ConflictFree,
     detail::launch_microbench_of<Microbench::ConflictFree>,
     detail::microbench_kernel_of<Microbench::ConflictFree>, 1},
    {"all_conflict", Microbench::AllConflict, detail::launch_microbench_of<Microbench::AllConflict>,
     detail::microbench_kernel_of<Microbench::AllConflict>, 32},
};

}  // namespace lab05
