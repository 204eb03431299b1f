// SPDX-License-Identifier: BSD-3-Clause
#include "cudalab/gpu_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "cudalab/device.cuh"

namespace cudalab {
namespace {

struct LockState {
  std::mutex mutex;
  bool initialised = false;
  bool requested = false;  // the variable was set
  std::string problem;     // why the files could not be opened (requested only)
  int gate = -1;
  int lock = -1;
  GpuUse held = GpuUse::kNone;
  long alone_count = 0;
};

LockState& state() {
  static LockState s;
  return s;
}

int open_lock_file(const std::string& path, std::string& problem) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 && problem.empty()) problem = path + ": " + std::strerror(errno);
  return fd;
}

/// flock(@p fd, @p op) retried until it succeeds or @p deadline passes (false then).
bool lock_until(int fd, int op, std::chrono::steady_clock::time_point deadline) {
  auto pause = std::chrono::microseconds(200);
  for (;;) {
    if (::flock(fd, op | LOCK_NB) == 0) return true;
    if (errno != EWOULDBLOCK && errno != EINTR) {
      throw std::runtime_error(std::string("GPU lock: flock failed: ") + std::strerror(errno));
    }
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(5000));
  }
}

/// Closes the lock files (a hold goes with them).
void close_files(LockState& s) {
  if (s.gate >= 0) ::close(s.gate);
  if (s.lock >= 0) ::close(s.lock);
  s.gate = s.lock = -1;
}

void unlock(int fd) {
  ::flock(fd, LOCK_UN);
}

void release(LockState& s) {
  if (s.held == GpuUse::kNone) return;
  unlock(s.lock);
  if (s.held == GpuUse::kAlone) unlock(s.gate);
  s.held = GpuUse::kNone;
}

[[noreturn]] void busy(double waited_s, const char* what) {
  char text[256];
  std::snprintf(text, sizeof text,
                "the GPU could not be had %s within %.0f s: other tests of this run held it "
                "(a hung test?); this test's timing or profile would mean nothing",
                what, waited_s);
  throw std::runtime_error(text);
}

}  // namespace

void init_gpu_lock_from_environment() {
  {
    LockState& s = state();
    const std::lock_guard<std::mutex> guard(s.mutex);
    if (s.initialised) return;
  }
  const char* dir = std::getenv("CUDALAB_GPU_LOCK_DIR");
  init_gpu_lock(dir == nullptr ? "" : dir);
}

void init_gpu_lock(const std::string& dir) {
  LockState& s = state();
  const std::lock_guard<std::mutex> guard(s.mutex);
  release(s);
  close_files(s);
  s.problem.clear();
  s.initialised = true;
  s.requested = !dir.empty();
  if (dir.empty()) return;
  const std::string base = dir + "/gpu" + std::to_string(preferred_device());
  s.gate = open_lock_file(base + ".gate", s.problem);
  s.lock = open_lock_file(base + ".lock", s.problem);
  if (s.gate < 0 || s.lock < 0) close_files(s);
}

bool gpu_lock_active() {
  LockState& s = state();
  const std::lock_guard<std::mutex> guard(s.mutex);
  return s.lock >= 0;
}

GpuUse gpu_use() {
  LockState& s = state();
  const std::lock_guard<std::mutex> guard(s.mutex);
  return s.held;
}

long gpu_alone_count() {
  LockState& s = state();
  const std::lock_guard<std::mutex> guard(s.mutex);
  return s.alone_count;
}

void use_gpu(GpuUse use, double timeout_s) {
  LockState& s = state();
  const std::lock_guard<std::mutex> guard(s.mutex);
  if (s.lock < 0) {
    if (s.requested && use == GpuUse::kAlone) {
      throw std::runtime_error("the GPU lock of this run cannot be opened (" + s.problem +
                               "): this test cannot have the GPU alone to time or profile; "
                               "configure the build again (cmake makes cudalab_gpu_locks/)");
    }
    if (use == GpuUse::kAlone) ++s.alone_count;  // by hand: nothing else shares the GPU
    s.held = use;
    return;
  }
  if (s.held == use) return;
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                    std::chrono::duration<double>(timeout_s));
  const auto waited = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  switch (use) {
    case GpuUse::kNone:
      release(s);
      return;
    case GpuUse::kShared:
      if (s.held == GpuUse::kAlone) {  // keep the GPU: exclusive to shared, then open the gate
        ::flock(s.lock, LOCK_SH);
        unlock(s.gate);
        s.held = GpuUse::kShared;
        return;
      }
      if (!lock_until(s.gate, LOCK_EX, deadline)) busy(waited(), "shared");
      if (!lock_until(s.lock, LOCK_SH, deadline)) {
        unlock(s.gate);
        busy(waited(), "shared");
      }
      unlock(s.gate);
      s.held = GpuUse::kShared;
      return;
    case GpuUse::kAlone:
      // A shared hold is given up first: two perf tests that both waited with theirs would
      // wait for each other for ever.
      release(s);
      if (!lock_until(s.gate, LOCK_EX, deadline)) busy(waited(), "alone");
      if (!lock_until(s.lock, LOCK_EX, deadline)) {
        unlock(s.gate);
        busy(waited(), "alone");
      }
      s.held = GpuUse::kAlone;
      ++s.alone_count;
      if (waited() >= 1.0) {
        std::printf("[ GPU      ] waited %.1f s for the GPU alone (other tests were using it)\n",
                    waited());
        std::fflush(stdout);
      }
      return;
  }
}

AloneOnGpu::AloneOnGpu() : previous_(gpu_use()) {
  use_gpu(GpuUse::kAlone);
}

AloneOnGpu::~AloneOnGpu() {
  try {
    use_gpu(previous_);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cudalab: GPU lock: %s\n", e.what());
  }
}

}  // namespace cudalab
