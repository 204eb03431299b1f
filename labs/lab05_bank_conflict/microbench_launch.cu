// Lab 05 (given): launching the microbenchmarks and their expected patterns.
#include <cmath>
#include <stdexcept>

#include "bank_conflict.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/launch_checks.hpp"

namespace lab05 {

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
