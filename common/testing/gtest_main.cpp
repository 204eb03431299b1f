// main() of every grader: prints the run's seed and GPU before the tests, and the seed
// again after any failed test so the failure can be reproduced with CUDALAB_SEED.
#include <gtest/gtest.h>

#include <cstdio>
#include <exception>

#include "cudalab/device.cuh"
#include "cudalab/matrix.hpp"

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
        std::printf("[ CUDALAB  ] GPU: %s\n", cudalab::describe(cudalab::query_device()).c_str());
      } else {
        std::printf("[ CUDALAB  ] GPU tests will be skipped: %s\n", reason.c_str());
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
      return 2;
    }
    ::testing::UnitTest::GetInstance()->listeners().Append(new SeedOnFailure);
  }
  return RUN_ALL_TESTS();
}
