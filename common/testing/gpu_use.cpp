// SPDX-License-Identifier: BSD-3-Clause
// How a grader's tests hold their GPU among the tests of a CTest run (cudalab/gpu_lock.hpp):
// every test shares it while its body runs, and takes it alone only while it times
// (cudalab::benchmark(), cudalab::compare(), an AloneOnGpu scope) or profiles (run_ncu()).
#include <gtest/gtest.h>

#include <cstdio>
#include <exception>
#include <sstream>
#include <string>

#include "cudalab/gpu_lock.hpp"
#include "cudalab/testing.hpp"

namespace cudalab::testing {
namespace {

long alone_at_test_start = 0;

class GpuUseListener : public ::testing::EmptyTestEventListener {
 public:
  void OnTestStart(const ::testing::TestInfo& info) override {
    alone_at_test_start = gpu_alone_count();
    // A sanitizer test's process only waits for the tool: the grader the tool runs locks for
    // each of its own tests, and a hold here would keep a waiting perf test out meanwhile.
    if (suite_ending(info.test_suite_name()) == "Sanitizer") return;
    try {
      use_gpu(GpuUse::kShared, kWaitAsLongAsTheTest);
    } catch (const std::exception& e) {
      std::printf("[ GPU      ] %s\n", e.what());
    }
  }

  void OnTestEnd(const ::testing::TestInfo&) override {
    try {
      use_gpu(GpuUse::kNone);
    } catch (const std::exception& e) {
      std::printf("[ GPU      ] %s\n", e.what());
    }
  }
};

}  // namespace

std::string suite_ending(const std::string& suite) {
  // "Inst/Suite/3" or "Suite/0" or "Suite": the part that is neither a prefix nor an index.
  std::string base = suite;
  if (const auto slash = base.rfind('/'); slash != std::string::npos) {
    const std::string tail = base.substr(slash + 1);
    const bool index = !tail.empty() && tail.find_first_not_of("0123456789") == std::string::npos;
    base = index ? base.substr(0, slash) : tail;
    if (const auto again = base.rfind('/'); index && again != std::string::npos) {
      base = base.substr(again + 1);
    }
  }
  // The rule table's endings (cmake/CudalabGrading.cmake, CUDALAB_SUITE_ENDINGS); the last one
  // that matches wins, as in cudalab_suite_rule().
  std::string found;
  std::istringstream endings(CUDALAB_SUITE_ENDINGS);
  for (std::string e; std::getline(endings, e, ',');) {
    if (base.size() >= e.size() && base.compare(base.size() - e.size(), e.size(), e) == 0) {
      found = e;
    }
  }
  return found;
}

bool timed_alone_in_this_test() {
  return gpu_alone_count() > alone_at_test_start;
}

::testing::TestEventListener* make_gpu_use_listener() {
  return new GpuUseListener;
}

}  // namespace cudalab::testing
