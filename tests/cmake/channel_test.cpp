// SPDX-License-Identifier: BSD-3-Clause
// The measurement channel survives long output: CTest keeps only the first part of a passing
// test's output in its JUnit file, so a measurement printed late used to be lost. Here one is
// recorded after 4 KB of output, then one with tiers; the instructor CI runs this test and
// requires both measurements, and the tier reached, in scores.json.
#include <gtest/gtest.h>

#include <cstdio>

#include "cudalab/testing.hpp"

namespace {

TEST(GivenChannelCpu, MeasurementAfterLongOutputReachesTheScoreboard) {
  for (int i = 0; i < 64; ++i) {
    std::printf("[ CHANNEL  ] line %02d of the long output before the measurement ........\n", i);
  }
  cudalab::testing::record_measurement("after_long_output", 42.5, "units", 40.0,
                                       cudalab::testing::Bound::kAtLeast);
  // A measurement with tiers above its pass bar: the scoreboard shows the one reached.
  cudalab::testing::Measurement m;
  m.name = "tiered";
  m.value = 80.0;
  m.unit = "%";
  m.threshold = 60.0;
  m.bound = cudalab::testing::Bound::kAtLeast;
  m.tiers = {{"good", 75.0}, {"excellent", 85.0}};
  cudalab::testing::record_measurement(m);
}

}  // namespace
