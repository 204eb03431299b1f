// SPDX-License-Identifier: BSD-3-Clause
// main() of every grader: prints the run's seed before the tests, and again after any failed
// test so the failure can be reproduced with CUDALAB_SEED. main() does not touch CUDA: a
// process that runs only CPU tests never pays for a CUDA context (about 0.2 s on an H200,
// serialized across processes); the first GPU test of a process prints its GPU
// (CUDALAB_REQUIRE_GPU). The measurement channel's listener (cudalab/testing.hpp) sends each
// test's start, measurements and result to the judge that started this process
// (cudalab_verdict, cudalab/verdict.hpp), which alone decides the verdicts. A batch run of a
// Gpu suite runs the suite in one process (the judge's --batch mode). The GPU lock's
// listener shares the GPU with the run's other tests while a test runs (cudalab/gpu_lock.hpp).
#include <gtest/gtest.h>

#include <cstdio>
#include <exception>

#include "cudalab/gpu_lock.hpp"
#include "cudalab/matrix.hpp"
#include "cudalab/remote.hpp"
#include "cudalab/testing.hpp"
#include "cudalab/verdict.hpp"

namespace {

class SeedOnFailure : public ::testing::EmptyTestEventListener {
  void OnTestEnd(const ::testing::TestInfo& info) override {
    if (info.result() != nullptr && info.result()->Failed()) {
      std::printf("[ SEED     ] %s.%s failed with %s\n", info.test_suite_name(), info.name(),
                  cudalab::seed_note().c_str());
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (!GTEST_FLAG_GET(list_tests)) {
    try {
      cudalab::verdict::open_channel();  // first: before any test runs
      cudalab::init_gpu_lock_from_environment();
      std::printf("[ CUDALAB  ] %s\n", cudalab::seed_note().c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
      return 2;
    }
    // The batch listener goes first: it sees a test end after the others have written
    // their part (the seed of a failure, the channel's result) into the test's output.
    if (auto* batch = cudalab::testing::make_batch_listener(); batch != nullptr) {
      ::testing::UnitTest::GetInstance()->listeners().Append(batch);
    }
    ::testing::UnitTest::GetInstance()->listeners().Append(new SeedOnFailure);
    ::testing::UnitTest::GetInstance()->listeners().Append(
        cudalab::testing::make_gpu_use_listener());
    ::testing::UnitTest::GetInstance()->listeners().Append(
        cudalab::testing::make_channel_listener());
  }
  if (!GTEST_FLAG_GET(list_tests)) {
    // The lab's process starts its CUDA context while this one makes its own.
    cudalab::remote::prewarm_candidate(GTEST_FLAG_GET(filter));
  }
  return RUN_ALL_TESTS();
}
