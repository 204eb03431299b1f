// SPDX-License-Identifier: BSD-3-Clause
// Lab 05 runs in its own process (cudalab/remote.hpp): each function of bank_conflict.cuh that
// the grader calls crosses as data. In the grader these lines are proxies; in the candidate,
// the table its server answers from.
#include <cuda_runtime.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "bank_conflict.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/remote.hpp"

CUDALAB_REMOTE(lab05::bank_of, (std::uint64_t byte_address), (byte_address), int)
CUDALAB_REMOTE(lab05::conflict_degree, (const cudalab::bank::WarpRequest& r), (r), int)
CUDALAB_REMOTE(lab05::start_words, (lab05::Microbench which), (which), std::array<std::int64_t, 32>)
CUDALAB_REMOTE(lab05::expected_final_words, (lab05::Microbench which, int steps), (which, steps),
               std::array<int, 32>)
CUDALAB_REMOTE(lab05::launch_microbench,
               (lab05::Microbench which, int steps, long long* d_cycles, int* d_final_word,
                cudaStream_t stream),
               (which, steps, d_cycles, d_final_word, stream), void)
CUDALAB_REMOTE(lab05::microbench_kernel, (lab05::Microbench which), (which), cudalab::KernelInfo)

#if CUDALAB_REMOTE_JUDGE
namespace lab05 {

// Given code: what run_microbench() does is the course's, so the grader runs its own copy
// around the student's launcher (the lab's copy runs in the candidate and is not asked).
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
#endif
