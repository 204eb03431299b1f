// SPDX-License-Identifier: BSD-3-Clause
// Unit tests of cudalab/bank_model.hpp and cudalab/bank_diagram.hpp (CPU only).
#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>

#include "cudalab/bank_diagram.hpp"
#include "cudalab/bank_model.hpp"
#include "cudalab/conflict_meter.cuh"
#include "cudalab/testing.hpp"

namespace {

namespace bank = cudalab::bank;
using Words = std::array<std::int64_t, 32>;

int gcd_int(int a, int b) {
  return std::gcd(a, b);
}

TEST(GivenBankModelCpu, BankOfAddress) {
  EXPECT_EQ(bank::bank_of(0), 0);
  EXPECT_EQ(bank::bank_of(3), 0);
  EXPECT_EQ(bank::bank_of(4), 1);
  EXPECT_EQ(bank::bank_of(124), 31);
  EXPECT_EQ(bank::bank_of(127), 31);
  EXPECT_EQ(bank::bank_of(128), 0);
  EXPECT_EQ(bank::bank_of(132), 1);
  EXPECT_EQ(bank::bank_of((std::uint64_t{1} << 40) + 8), 2);
  static_assert(bank::bank_of(4 * 33) == 1, "bank_of is constexpr");
}

TEST(GivenBankModelCpu, WordAndElementIndicesBecomeByteAddresses) {
  const auto r = bank::from_word_indices(bank::strided_words(3, 5));
  EXPECT_EQ(r.access_bytes, 4);
  EXPECT_EQ(r.active_mask, 0xFFFFFFFFu);
  EXPECT_EQ(r.byte_address[0], 20u);
  EXPECT_EQ(r.byte_address[31], 4u * (5 + 31 * 3));
  const auto r16 = bank::from_element_indices(bank::strided_words(1), 16);
  EXPECT_EQ(r16.access_bytes, 16);
  EXPECT_EQ(r16.byte_address[7], 112u);
  EXPECT_THROW(bank::from_element_indices(bank::strided_words(1), 2), std::invalid_argument);
  EXPECT_THROW(bank::from_element_indices(bank::strided_words(1), 32), std::invalid_argument);
  EXPECT_THROW(bank::from_word_indices(bank::strided_words(-1)), std::invalid_argument);
}

// Closed forms: a stride of s elements of w words in a phase of 32/w lanes hits
// gcd(s, 32/w) distinct words per bank (the phase covers 32 words exactly once when
// s is odd).
TEST(GivenBankModelCpu, StridesOneToSixtyFourAllWidths) {
  for (const int width : {4, 8, 16}) {
    const int lanes = 32 / (width / 4);
    for (int s = 1; s <= 64; ++s) {
      const auto r = bank::from_element_indices(bank::strided_words(s), width);
      const int expected = gcd_int(s, lanes);
      EXPECT_EQ(bank::conflict_degree(r), expected) << width << "-byte stride " << s;
      EXPECT_EQ(bank::wavefronts(r), expected * (32 / lanes)) << width << "-byte stride " << s;
    }
  }
}

TEST(GivenBankModelCpu, BroadcastAndMulticastAreFree) {
  EXPECT_EQ(bank::conflict_degree(bank::from_word_indices(bank::broadcast_words(7))), 1);
  Words w{};
  for (int i = 0; i < 32; ++i) w[i] = i / 4;  // groups of 4 lanes share a word
  EXPECT_EQ(bank::conflict_degree(bank::from_word_indices(w)), 1);
  for (int i = 0; i < 32; ++i) w[i] = (i % 2) * 32;  // two words of bank 0
  EXPECT_EQ(bank::conflict_degree(bank::from_word_indices(w)), 2);
  // 8-byte broadcast: every lane reads element 3 (words 6 and 7): one pass per phase.
  const auto r8 = bank::from_element_indices(bank::broadcast_words(3), 8);
  EXPECT_EQ(bank::conflict_degree(r8), 1);
  EXPECT_EQ(bank::wavefronts(r8), 2);
}

TEST(GivenBankModelCpu, PermutationsKeepTheDegree) {
  auto rng = cudalab::make_rng(501);
  for (int trial = 0; trial < 50; ++trial) {
    Words w = bank::strided_words(1);
    std::shuffle(w.begin(), w.end(), rng);
    EXPECT_EQ(bank::conflict_degree(bank::from_word_indices(w)), 1) << "permuted stride 1";
    Words w32 = bank::strided_words(32);
    std::shuffle(w32.begin(), w32.end(), rng);
    EXPECT_EQ(bank::conflict_degree(bank::from_word_indices(w32)), 32) << "permuted stride 32";
  }
}

TEST(GivenBankModelCpu, InactiveLanesDoNotCount) {
  auto r = bank::from_word_indices(bank::strided_words(32));
  r.active_mask = 0x3u;  // lanes 0 and 1: two words of bank 0
  EXPECT_EQ(bank::conflict_degree(r), 2);
  r.active_mask = 0x80000000u;
  EXPECT_EQ(bank::conflict_degree(r), 1);
  r.active_mask = 0;
  EXPECT_EQ(bank::conflict_degree(r), 0);
  EXPECT_EQ(bank::wavefronts(r), 0);
  // 8 bytes: only the upper half-warp is active; it alone decides.
  auto r8 = bank::from_element_indices(bank::strided_words(2), 8);
  r8.active_mask = 0xFFFF0000u;
  EXPECT_EQ(bank::conflict_degree(r8), 2);
  EXPECT_EQ(bank::wavefronts(r8), 2);
}

TEST(GivenBankModelCpu, VectorPhasesDoNotConflictWithEachOther) {
  // float2, lane i reads element i: lanes 0 and 16 both use banks 0-1 (words 0,1 and
  // 32,33) but sit in different half-warps: conflict-free, 2 wavefronts.
  const auto r8 = bank::from_element_indices(bank::strided_words(1), 8);
  EXPECT_EQ(bank::conflict_degree(r8), 1);
  EXPECT_EQ(bank::wavefronts(r8), 2);
  // The same addresses as one 4-byte-per-lane view would be a 2-way conflict...
  Words w{};
  for (int i = 0; i < 32; ++i) w[i] = 2 * i;
  EXPECT_EQ(bank::conflict_degree(bank::from_word_indices(w)), 2);
  // float4 with lanes of a quarter-warp 2 elements apart: 2-way in every phase.
  const auto r16 = bank::from_element_indices(bank::strided_words(2), 16);
  std::array<int, 4> per_phase{};
  EXPECT_EQ(bank::phase_degrees(r16, per_phase), 4);
  EXPECT_EQ(per_phase, (std::array<int, 4>{2, 2, 2, 2}));
  EXPECT_EQ(bank::wavefronts(r16), 8);
}

TEST(GivenBankModelCpu, RejectsInvalidRequests) {
  auto r = bank::from_word_indices(bank::strided_words(1));
  r.access_bytes = 12;
  EXPECT_THROW(bank::conflict_degree(r), std::invalid_argument);
  EXPECT_THROW(bank::wavefronts(r), std::invalid_argument);
  r.access_bytes = 8;  // byte addresses 4*i: odd lanes are misaligned for 8 bytes
  EXPECT_THROW(bank::conflict_degree(r), std::invalid_argument);
  r.active_mask = 0x55555555u;  // only even lanes: aligned
  EXPECT_NO_THROW(bank::conflict_degree(r));
}

TEST(GivenBankDiagramCpu, ShowsLanesBanksAndPasses) {
  const auto r = bank::from_word_indices(bank::strided_words(2));
  const std::string d = bank::render_bank_diagram(r, "stride 2");
  EXPECT_NE(d.find("stride 2\n"), std::string::npos) << d;
  EXPECT_NE(d.find("degree 2 (2-way conflict), 2 wavefronts"), std::string::npos) << d;
  // lane 0 -> word 0 (bank 0, first word), lane 16 -> word 32 (bank 0, second word).
  EXPECT_NE(d.find("lane 0    1..............................."), std::string::npos) << d;
  EXPECT_NE(d.find("lane 16   2..............................."), std::string::npos) << d;
  EXPECT_NE(d.find("passes    2.2.2.2.2.2.2.2.2.2.2.2.2.2.2.2."), std::string::npos) << d;
}

TEST(GivenBankDiagramCpu, MarksPhasesBroadcastAndInactiveLanes) {
  auto r = bank::from_element_indices(bank::strided_words(1), 16);
  r.active_mask = 0xFFFFFFFEu;
  const std::string d = bank::render_bank_diagram(r);
  EXPECT_NE(d.find("4 phases of 8 lanes"), std::string::npos) << d;
  EXPECT_NE(d.find("(inactive)"), std::string::npos) << d;
  EXPECT_NE(d.find("degree 1 (conflict-free), 4 wavefronts (per phase: 1 1 1 1)"),
            std::string::npos)
      << d;
  const std::string b =
      bank::render_bank_diagram(bank::from_word_indices(bank::broadcast_words(33)));
  EXPECT_NE(b.find("lane 31   .1.............................."), std::string::npos) << b;
  EXPECT_EQ(bank::pass_symbol(32), 'w');
  EXPECT_EQ(bank::pass_symbol(36), '?');
}

TEST(GivenMeterCpu, ToleranceAndIndexLimits) {
  EXPECT_TRUE(bank::degree_matches(1.3, 1));
  EXPECT_FALSE(bank::degree_matches(1.6, 1));
  EXPECT_TRUE(bank::degree_matches(30.0, 32));
  EXPECT_FALSE(bank::degree_matches(2.0, 4));
  EXPECT_DOUBLE_EQ(bank::degree_from_cycles(10.0, {10.0, 2.0}), 1.0);
  EXPECT_DOUBLE_EQ(bank::degree_from_cycles(72.0, {10.0, 2.0}), 32.0);
  // Validation happens before any CUDA call, so this runs without a GPU.
  EXPECT_THROW(bank::measure_cycles_per_access(bank::strided_words(200)), std::invalid_argument);
  EXPECT_THROW(bank::measure_cycles_per_access(bank::strided_words(-1, 0)), std::invalid_argument);
}

}  // namespace
