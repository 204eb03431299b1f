// SPDX-License-Identifier: BSD-3-Clause
// GPU tests of cudalab/conflict_meter.cuh: the meter agrees with the host model.
#include <cstdio>
#include <string>

#include "cudalab/bank_model.hpp"
#include "cudalab/conflict_meter.cuh"
#include "cudalab/testing.hpp"

namespace {

namespace bank = cudalab::bank;

TEST(GivenMeterGpu, CalibrationIsPlausible) {
  CUDALAB_REQUIRE_GPU();
  const bank::MeterCalibration cal = bank::calibrate_meter();
  cudalab::testing::record_measurement("conflict_free_cycles", cal.conflict_free_cycles, "cycles");
  cudalab::testing::record_measurement("cycles_per_extra_way", cal.cycles_per_extra_way, "cycles");
  EXPECT_GT(cal.conflict_free_cycles, 1.0);
  EXPECT_GT(cal.cycles_per_extra_way, 0.5) << "32-way should cost clearly more than conflict-free";
  // Cached: a second call returns the same numbers.
  const bank::MeterCalibration again = bank::calibrate_meter();
  EXPECT_EQ(again.conflict_free_cycles, cal.conflict_free_cycles);
}

TEST(GivenMeterGpu, MeasuredDegreeMatchesTheModel) {
  CUDALAB_REQUIRE_GPU();
  struct Case {
    std::string name;
    std::array<std::int64_t, 32> words;
  };
  std::vector<Case> cases;
  for (const int s : {1, 2, 3, 4, 8, 16, 32, 33, 64}) {
    cases.push_back({"stride " + std::to_string(s), bank::strided_words(s)});
  }
  cases.push_back({"broadcast", bank::broadcast_words(5)});
  std::array<std::int64_t, 32> two_words{};
  for (int i = 0; i < 32; ++i) two_words[i] = (i % 2) * 32 + 1;  // multicast of two words
  cases.push_back({"two words of bank 1", two_words});
  for (const Case& c : cases) {
    const int expected = bank::conflict_degree(bank::from_word_indices(c.words));
    const bank::MeterReading m = bank::measure_word_pattern(c.words);
    std::printf("[ METER    ] %-22s model %2d-way, measured %6.2f (%.2f cycles/access)\n",
                c.name.c_str(), expected, m.degree, m.cycles_per_access);
    EXPECT_TRUE(bank::degree_matches(m.degree, expected))
        << c.name << ": measured degree " << m.degree << " (" << m.cycles_per_access
        << " cycles/access), model " << expected << ", tolerance +-"
        << bank::meter_tolerance(expected);
  }
}

}  // namespace
