// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file timer.cuh
 * @brief Wall-clock (CPU) and CUDA-event (GPU) timers.
 */
#pragma once

#include <cuda_runtime.h>

#include <chrono>

namespace cudalab {

/// Measures host wall-clock time with std::chrono::steady_clock.
class CpuTimer {
 public:
  /// Starts (or restarts) the timer.
  void start() { begin_ = Clock::now(); }
  /// Milliseconds since start().
  double elapsed_ms() const {
    return std::chrono::duration<double, std::milli>(Clock::now() - begin_).count();
  }

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point begin_ = Clock::now();
};

/**
 * @brief Measures device time between two events recorded on a stream.
 *
 * Owns its two cudaEvent_t (created in the constructor, destroyed in the destructor).
 * @code
 *   cudalab::GpuTimer t;
 *   t.start(stream);
 *   kernel<<<g, b, 0, stream>>>(...);
 *   t.stop(stream);
 *   float ms = t.elapsed_ms();   // waits for the stop event
 * @endcode
 */
class GpuTimer {
 public:
  GpuTimer();
  ~GpuTimer();
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;

  /// Records the start event on @p stream.
  void start(cudaStream_t stream = nullptr);
  /// Records the stop event on @p stream.
  void stop(cudaStream_t stream = nullptr);
  /// Waits for the stop event and returns the milliseconds between the two events.
  float elapsed_ms();

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

}  // namespace cudalab
