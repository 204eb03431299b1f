// SPDX-License-Identifier: BSD-3-Clause
// The clock64() bank-conflict meter: a dependent chain of shared loads per lane.
#include "cudalab/conflict_meter.cuh"

#include <cuda_runtime.h>

#include <climits>
#include <cmath>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include "cudalab/bank_model.hpp"
#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"

namespace cudalab::bank {

namespace {

/**
 * One warp: lane i chases word d_start_word[i] kChainLength times per round.
 * d_best_cycles[lane]: fastest round; d_final_word[lane]: where the chain ended (its
 * start word, since every word points at itself), written so that nothing is dead code.
 */
__global__ void meter_kernel(const int* __restrict__ d_start_word, long long* d_best_cycles,
                             int* d_final_word) {
  __shared__ int s_next[kMeterWords];
  for (int i = threadIdx.x; i < kMeterWords; i += blockDim.x) {
    s_next[i] = i;  // every word points at itself: the chain stays on the lane's word
  }
  __syncthreads();

  // volatile: every link is a real shared load, in order, never cached in a register.
  volatile int* chase = s_next;
  const int lane = threadIdx.x;
  int word = d_start_word[lane];
  long long best = LLONG_MAX;
  for (int round = 0; round < kMeterRounds; ++round) {
    const long long t0 = clock64();
#pragma unroll 16
    for (int i = 0; i < kChainLength; ++i) {
      word = chase[word];  // the address of the next load is the value of this one
    }
    const long long t1 = clock64();
    best = min(best, t1 - t0);
  }
  d_best_cycles[lane] = best;
  d_final_word[lane] = word;
}

constexpr int kLaunches = 3;  // fastest of a few launches

}  // namespace

double measure_cycles_per_access(const std::array<std::int64_t, 32>& word_index) {
  std::array<int, 32> start{};
  for (int lane = 0; lane < 32; ++lane) {
    const std::int64_t w = word_index[static_cast<std::size_t>(lane)];
    if (w < 0 || w >= kMeterWords) {
      throw std::invalid_argument("conflict meter: lane " + std::to_string(lane) + " word " +
                                  std::to_string(w) + " is outside [0, " +
                                  std::to_string(kMeterWords) + ")");
    }
    start[static_cast<std::size_t>(lane)] = static_cast<int>(w);
  }
  DeviceBuffer<int> d_start(32);
  DeviceBuffer<long long> d_cycles(32);
  DeviceBuffer<int> d_final(32);
  d_start.upload(start.data());

  double best = INFINITY;
  for (int launch = 0; launch < kLaunches; ++launch) {
    meter_kernel<<<1, 32>>>(d_start.data(), d_cycles.data(), d_final.data());
    CUDA_CHECK_LAST_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    std::array<long long, 32> cycles{};
    std::array<int, 32> final_word{};
    d_cycles.download(cycles.data());
    d_final.download(final_word.data());
    for (int lane = 0; lane < 32; ++lane) {
      if (final_word[static_cast<std::size_t>(lane)] != start[static_cast<std::size_t>(lane)]) {
        throw std::runtime_error(
            "conflict meter: lane " + std::to_string(lane) + " chain ended at word " +
            std::to_string(final_word[static_cast<std::size_t>(lane)]) + ", expected " +
            std::to_string(start[static_cast<std::size_t>(lane)]));
      }
    }
    // The warp runs in lockstep; lane 0's clock speaks for the request.
    best = std::fmin(best, static_cast<double>(cycles[0]) / kChainLength);
  }
  return best;
}

MeterCalibration calibrate_meter() {
  static std::mutex mutex;
  static std::map<int, MeterCalibration> cache;  // per device ordinal
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto it = cache.find(device); it != cache.end()) return it->second;

  const double free_cycles = measure_cycles_per_access(strided_words(1));
  const double worst_cycles = measure_cycles_per_access(strided_words(32));
  const double per_way = (worst_cycles - free_cycles) / (kNumBanks - 1);
  if (!(per_way > 0.0)) {
    throw std::runtime_error("conflict meter: a 32-way conflict (" + std::to_string(worst_cycles) +
                             " cycles/access) is not slower than conflict-free (" +
                             std::to_string(free_cycles) + "); cannot calibrate");
  }
  const MeterCalibration cal{free_cycles, per_way};
  cache.emplace(device, cal);
  return cal;
}

double degree_from_cycles(double cycles_per_access, const MeterCalibration& cal) noexcept {
  return 1.0 + (cycles_per_access - cal.conflict_free_cycles) / cal.cycles_per_extra_way;
}

MeterReading measure_word_pattern(const std::array<std::int64_t, 32>& word_index) {
  const MeterCalibration cal = calibrate_meter();
  const double cycles = measure_cycles_per_access(word_index);
  return MeterReading{cycles, degree_from_cycles(cycles, cal)};
}

double meter_tolerance(int expected_degree) noexcept {
  return 0.4 + 0.1 * expected_degree;
}

bool degree_matches(double measured, int expected_degree) noexcept {
  return std::fabs(measured - expected_degree) <= meter_tolerance(expected_degree);
}

}  // namespace cudalab::bank
