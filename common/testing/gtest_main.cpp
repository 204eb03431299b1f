// main() of every grader: prints the run's seed and GPU before the tests, and the seed
// again after any failed test so the failure can be reproduced with CUDALAB_SEED. The GPU
// (or why there is none) also goes to the measurement channel (cudalab/testing.hpp), whose
// listener records each test's start, measurements and result for the scoreboard.
#include <gtest/gtest.h>

#include <cstdio>
#include <exception>

#include "cudalab/device.cuh"
#include "cudalab/matrix.hpp"
#include "cudalab/testing.hpp"

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
      std::printf("[ CUDALAB  ] %s\n", cudalab::seed_note().c_str());
      const std::string reason = cudalab::gpu_unavailable_reason();
      if (reason.empty()) {
        const cudalab::DeviceInfo info = cudalab::query_device();
        std::printf("[ CUDALAB  ] GPU: %s\n", cudalab::describe(info).c_str());
        cudalab::testing::set_channel_device(info);
      } else {
        std::printf("[ CUDALAB  ] GPU tests will be skipped: %s\n", reason.c_str());
        cudalab::testing::set_channel_no_gpu(reason);
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
      return 2;
    }
    ::testing::UnitTest::GetInstance()->listeners().Append(new SeedOnFailure);
    ::testing::UnitTest::GetInstance()->listeners().Append(
        cudalab::testing::make_channel_listener());
  }
  return RUN_ALL_TESTS();
}
