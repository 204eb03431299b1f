// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file gpu_lock.hpp
 * @brief One GPU shared by the tests of a CTest run, taken alone only while a test times or
 * profiles.
 *
 * A perf test spends most of its seconds on the host (inputs, the candidate's capture, the
 * checks of its results); only its timed runs need the GPU to itself. So every test of a
 * CTest run that uses a GPU holds that GPU's lock: shared by correctness and sanitizer tests
 * while their test body runs, exclusive while a perf test times (cudalab::benchmark(),
 * cudalab::compare(), an AloneOnGpu scope) and for the whole of a profiler test. CTest only
 * bounds how many tests share a GPU (its resource slots); perf and profiler tests no longer
 * need to run one at a time in the whole suite.
 *
 * The lock is two files per GPU in the folder named by `CUDALAB_GPU_LOCK_DIR` (the build
 * tree's `cudalab_gpu_locks/`, made at configure time; CTest gives every test the variable),
 * `gpu<N>.lock` and `gpu<N>.gate`, locked with flock(2). A waiting exclusive holder takes the
 * gate first, so that new shared holders queue behind it instead of starving it. A process
 * reads the variable once (init_gpu_lock_from_environment(), called by the graders' and the
 * demos' main()); a grader holds the lock test by test (cudalab/testing.hpp), so that a
 * waiting perf test gets the GPU between two tests of a batch run. A sanitizer test's own
 * process holds nothing: the grader it runs under the tool locks test by test; a profiler
 * test holds the GPU alone and runs the profiled grader without the variable. Without it (a
 * grader run by hand) nothing is locked.
 */
#pragma once

#include <string>

namespace cudalab {

/// How this process holds its GPU.
enum class GpuUse {
  kNone,    ///< holds nothing (CPU tests; or between tests)
  kShared,  ///< shares the GPU with other tests' processes (correctness, sanitizer)
  kAlone,   ///< has the GPU alone (timing, profiling)
};

/**
 * @brief Reads `CUDALAB_GPU_LOCK_DIR` once. Opens the lock files of this
 * process's GPU (cudalab::preferred_device()); a missing file is remembered, and
 * use_gpu(GpuUse::kAlone) then throws saying so.
 */
void init_gpu_lock_from_environment();

/// Uses the lock files in @p dir from now on (none for ""), after giving up any hold; what
/// init_gpu_lock_from_environment() does with the variable, and what a test of the lock uses.
void init_gpu_lock(const std::string& dir);

/// Whether this process takes the GPU lock (the variable was set and its files opened).
bool gpu_lock_active();

/// A timeout that never ends: the wait lasts as long as CTest lets the test run.
inline constexpr double kWaitAsLongAsTheTest = 1e9;

/**
 * @brief Changes this process's hold to @p use, waiting for other processes as needed.
 * @throws std::runtime_error when the GPU could not be had alone within @p timeout_s seconds
 *         (other tests held it), or when the lock was asked for and its files are missing
 */
void use_gpu(GpuUse use, double timeout_s = 240.0);

/// This process's hold.
GpuUse gpu_use();

/// How many times this process has taken the GPU alone (a test checks it timed alone).
long gpu_alone_count();

/// Holds the GPU alone for its lifetime, then returns to the hold it found.
class AloneOnGpu {
 public:
  AloneOnGpu();
  ~AloneOnGpu();
  AloneOnGpu(const AloneOnGpu&) = delete;
  AloneOnGpu& operator=(const AloneOnGpu&) = delete;

 private:
  GpuUse previous_;
};

}  // namespace cudalab
