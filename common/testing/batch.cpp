// SPDX-License-Identifier: BSD-3-Clause
// Batch runs of a Gpu suite (cudalab/testing.hpp): one process, started by the judge
// (cudalab_verdict --batch), runs the whole suite and leaves one file per test with what the
// test printed; the judge keeps each test's verdict from the verdict channel, and each CTest
// test then reports its own. A CUDA context costs about 0.1 s alone and is created one process at a
// time, so a suite of ten tests pays it once instead of ten times.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

#include "cudalab/matrix.hpp"
#include "cudalab/testing.hpp"

#if !defined(_WIN32)
#include <fcntl.h>
#include <unistd.h>
#endif

namespace cudalab::testing {
namespace {

namespace fs = std::filesystem;

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// Writes "<status>\n<text>" to @p p through a temporary file, so a reader never sees half.
void write_result(const fs::path& p, const std::string& status, const std::string& text) {
  const fs::path tmp = p.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << status << '\n' << text;
  }
  std::error_code ec;
  fs::rename(tmp, p, ec);
}

#if !defined(_WIN32)

// What the watchdog thread shares with the listener. Never freed: the detached thread may
// still wait on it while the process exits.
struct BatchState {
  fs::path dir;
  double timeout_s = 120.0;
  std::string name;  ///< the running test, Suite.Case
  fs::path log;      ///< where its output goes
  int own_out = -1;  ///< the process's own standard output while a test's goes to its log
  std::mutex mutex;
  std::condition_variable wake;
  bool running = false;
  std::chrono::steady_clock::time_point deadline{};
};

// Records a test that outlives its timeout as failed and ends the process.
[[noreturn]] void watch(BatchState* st) {
  std::unique_lock<std::mutex> lock(st->mutex);
  for (;;) {
    st->wake.wait(lock, [st] { return st->running; });
    if (st->wake.wait_until(lock, st->deadline, [st] { return !st->running; })) continue;
    std::fflush(stdout);
    std::fflush(stderr);
    char line[256];
    std::snprintf(line, sizeof line,
                  "\n[  FAILED  ] %s timed out: still running after %.0f s (its CTest TIMEOUT)\n",
                  st->name.c_str(), st->timeout_s);
    write_result(st->dir / test_file_name(st->name, ".result"), "failed", read_all(st->log) + line);
    report_running_test_failed(std::string(line + 1, std::strlen(line) - 2));
    std::_Exit(4);
  }
}

class BatchListener : public ::testing::EmptyTestEventListener {
 public:
  BatchListener(const fs::path& dir, double timeout_s) : st_(new BatchState) {
    st_->dir = dir;
    st_->timeout_s = timeout_s;
    std::error_code ec;
    fs::create_directories(dir, ec);
    std::thread(watch, st_).detach();
  }

  void OnTestStart(const ::testing::TestInfo& info) override {
    const std::string name = std::string(info.test_suite_name()) + "." + info.name();
    const fs::path log = st_->dir / test_file_name(name, ".result.log");
    std::fflush(stdout);
    std::fflush(stderr);
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      saved_out_ = ::dup(1);
      saved_err_ = ::dup(2);
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::close(fd);
    }
    std::printf("[ RUN      ] %s\n[ CUDALAB  ] %s\n", name.c_str(), seed_note().c_str());
    if (const std::string gpu = gpu_note_line(); !gpu.empty()) std::printf("%s\n", gpu.c_str());
    std::printf(
        "[ CUDALAB  ] run in one process with the other tests of %s (alone: --gtest_filter=%s)\n",
        info.test_suite_name(), name.c_str());
    std::fflush(stdout);
    const std::lock_guard<std::mutex> lock(st_->mutex);
    st_->name = name;
    st_->log = log;
    st_->own_out = saved_out_;
    st_->deadline = std::chrono::steady_clock::now() +
                    std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                        std::chrono::duration<double>(st_->timeout_s));
    st_->running = true;
    st_->wake.notify_all();
  }

  void OnTestEnd(const ::testing::TestInfo& info) override {
    std::string name;
    fs::path log;
    {
      const std::lock_guard<std::mutex> lock(st_->mutex);
      st_->running = false;
      st_->own_out = -1;
      st_->wake.notify_all();
      name = st_->name;
      log = st_->log;
    }
    const ::testing::TestResult* r = info.result();
    std::string status = "passed";
    if (r != nullptr && r->Skipped()) status = "skipped";
    if (r != nullptr && r->Failed()) status = "failed";
    const long long ms = r == nullptr ? 0 : static_cast<long long>(r->elapsed_time());
    // A kernel fault leaves the context unusable: every later test of this process would fail
    // for it. Such a test ends the batch; the tests after it run alone.
    std::string broken;
    if (gpu_in_use()) {
      cudaError_t e = cudaDeviceSynchronize();
      if (e == cudaSuccess) e = cudaGetLastError();
      if (e != cudaSuccess) broken = cudaGetErrorString(e);
    }
    const char* mark = status == "failed"    ? "[  FAILED  ]"
                       : status == "skipped" ? "[  SKIPPED ]"
                                             : "[       OK ]";
    std::printf("%s %s (%lld ms)\n", mark, name.c_str(), ms);
    std::fflush(stdout);
    std::fflush(stderr);
    restore_output();
    const std::string text = read_all(log);
    write_result(st_->dir / test_file_name(name, ".result"), status, text);
    std::error_code ec;
    fs::remove(log, ec);
    if (!broken.empty()) {
      std::printf(
          "[ CUDALAB  ] batch ends after %s: the CUDA context reports '%s'; the suite's "
          "remaining tests run alone\n",
          name.c_str(), broken.c_str());
      std::fflush(stdout);
      std::_Exit(3);
    }
  }

 private:
  void restore_output() {
    if (saved_out_ >= 0) {
      ::dup2(saved_out_, 1);
      ::dup2(saved_err_, 2);
      ::close(saved_out_);
      ::close(saved_err_);
      saved_out_ = saved_err_ = -1;
    }
  }

  BatchState* st_;
  int saved_out_ = -1;
  int saved_err_ = -1;
};

#endif

}  // namespace

::testing::TestEventListener* make_batch_listener() {
#if defined(_WIN32)
  return nullptr;  // batch runs redirect file descriptors: POSIX only
#else
  const char* dir = std::getenv("CUDALAB_BATCH_DIR");
  if (dir == nullptr || *dir == '\0') return nullptr;
  double timeout_s = 120.0;
  if (const char* t = std::getenv("CUDALAB_BATCH_TEST_TIMEOUT"); t != nullptr && *t != '\0') {
    timeout_s = std::strtod(t, nullptr);
    if (!(timeout_s > 0.0)) timeout_s = 120.0;
  }
  return new BatchListener(dir, timeout_s);
#endif
}

}  // namespace cudalab::testing
