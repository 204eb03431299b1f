#include "cudalab/testing.hpp"

#include <cstdio>
#include <sstream>

namespace cudalab::testing {

::testing::AssertionResult matrices_match(const std::vector<float>& expected,
                                          const std::vector<float>& got, int rows, int cols,
                                          double rel_tol) {
  const MatrixCompare r = compare_matrices(expected, got, rows, cols, rel_tol);
  if (r.ok) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << r.message;
}

void record_measurement(const std::string& name, double value, const std::string& unit,
                        double threshold) {
  char line[512];
  if (std::isnan(threshold)) {
    std::snprintf(line, sizeof line, "[ MEASURE  ] %s = %.4g %s", name.c_str(), value,
                  unit.c_str());
  } else {
    std::snprintf(line, sizeof line, "[ MEASURE  ] %s = %.4g %s (threshold %.4g)", name.c_str(),
                  value, unit.c_str(), threshold);
  }
  std::printf("%s\n", line);
  std::fflush(stdout);
  ::testing::Test::RecordProperty(name, std::to_string(value));
}

void expect_speedup(const Comparison& cmp, double threshold, const std::string& what) {
  const SpeedVerdict v = judge_speedup(cmp, threshold, what);
  record_measurement("speedup", v.measured, "x", v.threshold);
  std::printf("[ SPEED    ] %s\n", v.text.c_str());
  EXPECT_TRUE(v.pass) << v.text;
}

}  // namespace cudalab::testing
