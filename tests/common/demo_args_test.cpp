// SPDX-License-Identifier: BSD-3-Clause
// Unit tests of the demo command line (cudalab/demo.hpp).
#include "cudalab/demo.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace {

cudalab::DemoOptions parse(std::vector<const char*> args, cudalab::DemoLimits l = {}) {
  args.insert(args.begin(), "demo");
  return cudalab::parse_demo_args(int(args.size()), args.data(), l);
}

TEST(GivenDemoArgsCpu, DefaultsAndBothSpellings) {
  auto o = parse({});
  EXPECT_EQ(o.size, 1024);
  EXPECT_EQ(o.block, 16);
  EXPECT_FALSE(o.check);
  o = parse({"--size", "33", "--block=8", "--reps", "3", "--check"});
  EXPECT_EQ(o.size, 33);
  EXPECT_EQ(o.block, 8);
  EXPECT_EQ(o.reps, 3);
  EXPECT_TRUE(o.check);
}

TEST(GivenDemoArgsCpu, RejectsBadValues) {
  using E = cudalab::UsageError;
  EXPECT_THROW(parse({"--size", "0"}), E);
  EXPECT_THROW(parse({"--size", "-3"}), E);
  EXPECT_THROW(parse({"--size", "12x"}), E);
  EXPECT_THROW(parse({"--size", "99999999999999999999"}), E);
  EXPECT_THROW(parse({"--size"}), E);
  EXPECT_THROW(parse({"--block", "33"}), E);  // 33 x 33 > 1024 threads
  EXPECT_THROW(parse({"--reps", "0"}), E);
  EXPECT_THROW(parse({"--frobnicate"}), E);
  cudalab::DemoLimits one_d;
  one_d.block_is_2d = false;
  EXPECT_EQ(parse({"--block", "1024"}, one_d).block, 1024);
  EXPECT_THROW(parse({"--block", "1025"}, one_d), E);
}

TEST(GivenDemoArgsCpu, TableAlignsColumns) {
  cudalab::Table t({"variant", "ms"});
  t.add_row({"naive", cudalab::fixed(12.5, 2)});
  t.add_row({"tiled", cudalab::fixed(3.25, 2)});
  std::ostringstream os;
  t.print(os);
  EXPECT_NE(os.str().find("naive    12.50"), std::string::npos) << os.str();
  EXPECT_THROW(t.add_row({"only one"}), std::invalid_argument);
}

}  // namespace
