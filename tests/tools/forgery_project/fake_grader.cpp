// SPDX-License-Identifier: BSD-3-Clause
// A grader as CTest sees it (tests/tools/test_forgery.py): lists three tests like
// --gtest_list_tests, runs one per --gtest_filter=Suite.Case, sends its records on the verdict
// channel to the judge that started it (cudalab/verdict.hpp) and exits 0 when it passes, 1
// when not (an exit status the judge ignores).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cudalab/verdict.hpp"

namespace {

struct Case {
  const char* name;
  bool passes;
  double speedup;  // a measurement, or 0
};

constexpr Case kCases[] = {{"ModelCpu.Passes", true, 0.0},
                           {"ModelCpu.Fails", false, 0.0},
                           {"SpeedCpu.Measured", true, 2.5}};

void record(const std::string& test, const std::string& members) {
  const std::string json = "{\"type\": " + members + ", \"test\": \"" + test + "\"}";
  if (!cudalab::verdict::send(json)) std::printf("\n[ CUDALAB-RECORD ] %s\n", json.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  cudalab::verdict::open_channel();
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--gtest_list_tests") == 0) {
      std::printf("ModelCpu.\n  Passes\n  Fails\nSpeedCpu.\n  Measured\n");
      return 0;
    }
    if (std::strncmp(argv[i], "--gtest_filter=", 15) == 0) {
      const char* env_name = std::getenv("CUDALAB_TEST_NAME");
      const std::string test = env_name != nullptr ? env_name : "";
      for (const Case& c : kCases) {
        if (std::strcmp(argv[i] + 15, c.name) != 0) continue;
        record(test, "\"test\", \"gtest\": \"x\", \"unix_time\": 1, \"speedup_scale\": 1");
        if (c.speedup > 0) {
          record(test, "\"measurement\", \"name\": \"speedup\", \"value\": " +
                           std::to_string(c.speedup) + ", \"unit\": \"x\", \"threshold\": 2");
        }
        record(test, std::string("\"result\", \"status\": \"") + (c.passes ? "passed" : "failed") +
                         "\", \"message\": \"" + (c.passes ? "" : "expected 1, got 2") + "\"");
        std::printf("[ %s ] %s %s\n", c.passes ? "      OK" : " FAILED ", LAB, c.name);
        return c.passes ? 0 : 1;
      }
      return 2;
    }
  }
  return 2;
}
