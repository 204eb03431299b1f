// SPDX-License-Identifier: BSD-3-Clause
// Unit tests of the GPU lock the tests of a CTest run share (cudalab/gpu_lock.hpp): a test
// that times waits for the others to leave the GPU and keeps new ones out while it times.
#include "cudalab/gpu_lock.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "cudalab/device.cuh"
#include "cudalab/testing.hpp"

namespace {

/// A lock folder of this test's own (two files per GPU id, as configure makes them), used by
/// this process for its lifetime; the process's own folder, if any, comes back after.
class OwnLockFolder {
 public:
  OwnLockFolder() {
    char tmpl[] = "/tmp/cudalab_gpu_lock_test.XXXXXX";
    const char* made = mkdtemp(tmpl);
    if (made == nullptr) return;
    dir_ = made;
    for (const char* end : {".lock", ".gate"}) {
      const std::string file = base() + end;
      const int fd = open(file.c_str(), O_CREAT | O_WRONLY, 0644);
      if (fd >= 0) close(fd);
    }
    const char* before = std::getenv("CUDALAB_GPU_LOCK_DIR");
    previous_ = before == nullptr ? "" : before;
    cudalab::init_gpu_lock(dir_);
  }
  ~OwnLockFolder() {
    cudalab::init_gpu_lock(previous_);
    if (dir_.empty()) return;
    for (const char* end : {".lock", ".gate"}) unlink((base() + end).c_str());
    rmdir(dir_.c_str());
  }
  OwnLockFolder(const OwnLockFolder&) = delete;
  OwnLockFolder& operator=(const OwnLockFolder&) = delete;
  /// The lock files' path without their ending; "" when the folder could not be made.
  std::string base() const {
    return dir_.empty() ? "" : dir_ + "/gpu" + std::to_string(cudalab::preferred_device());
  }

 private:
  std::string dir_;
  std::string previous_;
};

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

TEST(GivenGpuLockCpu, SuiteEndingsFollowTheRuleTable) {
  using cudalab::testing::suite_ending;
  EXPECT_EQ(suite_ending("TiledGpu"), "Gpu");
  EXPECT_EQ(suite_ending("Shapes/TiledGpu"), "Gpu");
  EXPECT_EQ(suite_ending("Shapes/TiledGpu/3"), "Gpu");
  EXPECT_EQ(suite_ending("TypedPerf/0"), "Perf");
  EXPECT_EQ(suite_ending("PipelineSanitizer"), "Sanitizer");
  EXPECT_EQ(suite_ending("WarpTiledProfiler"), "Profiler");
  EXPECT_EQ(suite_ending("GivenGpuLockCpu"), "Cpu");
  EXPECT_EQ(suite_ending("Unknown"), "");
}

TEST(GivenGpuLockCpu, TimingWaitsForSharedHoldersAndKeepsNewOnesOut) {
  const OwnLockFolder folder;
  const std::string base = folder.base();
  ASSERT_FALSE(base.empty()) << "could not make a lock folder under /tmp";
  ASSERT_TRUE(cudalab::gpu_lock_active());
  cudalab::use_gpu(cudalab::GpuUse::kShared);  // as the listener holds it during a test
  // Another process shares the GPU for 0.4 s, as a correctness test does.
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t holder = fork();
  ASSERT_GE(holder, 0);
  if (holder == 0) {
    const int gate = open((base + ".gate").c_str(), O_RDONLY);
    const int lock = open((base + ".lock").c_str(), O_RDONLY);
    if (gate < 0 || lock < 0 || flock(gate, LOCK_EX) != 0 || flock(lock, LOCK_SH) != 0) _exit(3);
    flock(gate, LOCK_UN);
    const char byte = 1;
    if (write(ready[1], &byte, 1) != 1) _exit(4);
    usleep(400000);
    _exit(0);
  }
  close(ready[1]);
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1) << "the sharing process could not take the lock";
  close(ready[0]);

  const long alone_before = cudalab::gpu_alone_count();
  const auto start = std::chrono::steady_clock::now();
  {
    const cudalab::AloneOnGpu alone;
    EXPECT_GE(seconds_since(start), 0.3) << "had the GPU alone while another test shared it";
    EXPECT_EQ(cudalab::gpu_use(), cudalab::GpuUse::kAlone);
    // Meanwhile a test that wants to share it waits: the gate and the lock are both taken.
    const pid_t late = fork();
    ASSERT_GE(late, 0);
    if (late == 0) {
      const int gate = open((base + ".gate").c_str(), O_RDONLY);
      const int lock = open((base + ".lock").c_str(), O_RDONLY);
      if (gate < 0 || lock < 0) _exit(3);
      const bool gate_taken = flock(gate, LOCK_EX | LOCK_NB) != 0;
      const bool lock_taken = flock(lock, LOCK_SH | LOCK_NB) != 0;
      _exit(gate_taken && lock_taken ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(waitpid(late, &status, 0), late);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "a sharing process got in while this one had the GPU alone";
  }
  EXPECT_EQ(cudalab::gpu_use(), cudalab::GpuUse::kShared) << "the scope restores the shared hold";
  EXPECT_EQ(cudalab::gpu_alone_count(), alone_before + 1);
  EXPECT_TRUE(cudalab::testing::timed_alone_in_this_test());
  int status = 0;
  ASSERT_EQ(waitpid(holder, &status, 0), holder);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(GivenGpuLockCpu, WithoutItsFilesTimingSaysWhy) {
  const OwnLockFolder folder;
  ASSERT_FALSE(folder.base().empty());
  cudalab::init_gpu_lock("/nonexistent/cudalab_gpu_locks");
  EXPECT_FALSE(cudalab::gpu_lock_active());
  try {
    cudalab::use_gpu(cudalab::GpuUse::kAlone);
    ADD_FAILURE() << "took the GPU alone with no lock files";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/cudalab_gpu_locks/gpu"), std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(cudalab::use_gpu(cudalab::GpuUse::kShared)) << "sharing needs no lock";
  cudalab::use_gpu(cudalab::GpuUse::kNone);
}

}  // namespace
