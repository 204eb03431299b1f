// SPDX-License-Identifier: BSD-3-Clause
// Unit tests of the tool runner (cudalab/tools.hpp) that need no GPU.
#include "cudalab/tools.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace {

TEST(GivenToolsCpu, CountsTestsThatRan) {
  EXPECT_EQ(cudalab::testing::tests_ran("[==========] 3 tests from 2 test suites ran. (5 ms)"), 3);
  EXPECT_EQ(cudalab::testing::tests_ran("[==========] 1 test from 1 test suite ran."), 1);
  EXPECT_EQ(cudalab::testing::tests_ran("nothing here"), -1);
}

TEST(GivenToolsCpu, ExcerptKeepsHeadAndTail) {
  std::string s;
  for (int i = 0; i < 200; ++i) s += "line" + std::to_string(i) + "\n";
  const std::string e = cudalab::testing::excerpt(s, 10);
  EXPECT_NE(e.find("line0\n"), std::string::npos);
  EXPECT_NE(e.find("line199"), std::string::npos);
  EXPECT_NE(e.find("190 lines omitted"), std::string::npos);
}

TEST(GivenToolsCpu, MissingToolIsASkipReasonNotAFailure) {
  setenv("CUDALAB_COMPUTE_SANITIZER", "/nonexistent/compute-sanitizer", 1);
  const auto r = cudalab::testing::run_sanitizer("racecheck", "*");
  unsetenv("CUDALAB_COMPUTE_SANITIZER");
  EXPECT_FALSE(r.available);
  EXPECT_NE(r.skip_reason.find("not found"), std::string::npos) << r.skip_reason;
}

TEST(GivenToolsCpu, NestedRunsAreRefused) {
  setenv("CUDALAB_UNDER_TOOL", "1", 1);
  const auto r = cudalab::testing::run_ncu({"x"}, ".*", "*");
  unsetenv("CUDALAB_UNDER_TOOL");
  EXPECT_FALSE(r.available);
}

}  // namespace
