// SPDX-License-Identifier: BSD-3-Clause
// Unit tests of the CPU half of the demos' per-variant step (cudalab::check_variant).
#include <gtest/gtest.h>

#include <sstream>

#include "cudalab/demo.hpp"

namespace {

TEST(GivenDemoVariantCpu, NoCheckGivesDashAndOk) {
  std::ostringstream err;
  const cudalab::VariantResult r = cudalab::check_variant(nullptr, "naive", err);
  EXPECT_EQ(r.verdict, "-");
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.median_ms, 0.0);
  EXPECT_TRUE(err.str().empty());
}

TEST(GivenDemoVariantCpu, MatchingOutputIsOkAndSilent) {
  std::ostringstream err;
  int calls = 0;
  const auto r = cudalab::check_variant(
      [&] {
        ++calls;
        return cudalab::compare_matrices({1.0f, 2.0f}, {1.0f, 2.0f}, 1, 2, 0.0);
      },
      "naive", err);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(r.verdict, "ok");
  EXPECT_TRUE(r.ok);
  EXPECT_TRUE(err.str().empty());
}

TEST(GivenDemoVariantCpu, MismatchIsWrongAndPrintsLabelAndMessage) {
  std::ostringstream err;
  const cudalab::MatrixCompare cmp =
      cudalab::compare_matrices({1.0f, 2.0f}, {1.0f, 3.0f}, 1, 2, 0.0);
  ASSERT_FALSE(cmp.ok);
  const auto r = cudalab::check_variant([&] { return cmp; }, "tiled 32x8", err);
  EXPECT_EQ(r.verdict, "WRONG");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(err.str(), "tiled 32x8: " + cmp.message + "\n");
}

}  // namespace
