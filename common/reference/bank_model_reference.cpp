// SPDX-License-Identifier: BSD-3-Clause
// The host bank model's reference answers (grader-only): conflict degree and wavefronts of a
// warp request. Lab 05 students write their own conflict_degree(); this is what it is graded
// against, so it is not in the library their code links.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "cudalab/bank_model.hpp"

namespace cudalab::bank {

namespace {

/**
 * Degree of the lanes [first, first + count) of @p r: for every bank, the number of
 * distinct words of it that the phase touches; the maximum over banks.
 */
int degree_of_phase(const WarpRequest& r, int first, int count) {
  const int words_per_lane = r.access_bytes / kBankWidthBytes;
  // Distinct words each bank must deliver in this phase. A phase moves at most 128 bytes
  // (32 x 4, 16 x 8 or 8 x 16), i.e. 32 words, so a list of 32 per bank is enough.
  std::array<std::array<std::uint64_t, kWarpSize>, kNumBanks> words{};
  std::array<int, kNumBanks> distinct{};
  for (int lane = first; lane < first + count; ++lane) {
    if (((r.active_mask >> lane) & 1u) == 0) continue;
    const std::uint64_t address = r.byte_address[static_cast<std::size_t>(lane)];
    if (address % static_cast<std::uint64_t>(r.access_bytes) != 0) {
      throw std::invalid_argument("bank model: lane " + std::to_string(lane) + " address " +
                                  std::to_string(address) + " is not aligned to its " +
                                  std::to_string(r.access_bytes) + "-byte access");
    }
    for (int w = 0; w < words_per_lane; ++w) {
      const std::uint64_t word = address / kBankWidthBytes + static_cast<std::uint64_t>(w);
      const int bank = static_cast<int>(word % kNumBanks);
      auto& list = words[static_cast<std::size_t>(bank)];
      int& n = distinct[static_cast<std::size_t>(bank)];
      if (std::find(list.begin(), list.begin() + n, word) == list.begin() + n) {
        list[static_cast<std::size_t>(n++)] = word;  // a new word of this bank: one more pass
      }                                              // the same word again: broadcast, free
    }
  }
  return *std::max_element(distinct.begin(), distinct.end());
}

}  // namespace

int phase_degrees(const WarpRequest& r, std::array<int, 4>& degree_per_phase) {
  const int lanes = lanes_per_phase(r.access_bytes);
  const int phases = kWarpSize / lanes;
  degree_per_phase.fill(0);
  for (int p = 0; p < phases; ++p) {
    degree_per_phase[static_cast<std::size_t>(p)] = degree_of_phase(r, p * lanes, lanes);
  }
  return phases;
}

int conflict_degree(const WarpRequest& r) {
  std::array<int, 4> d{};
  phase_degrees(r, d);
  return *std::max_element(d.begin(), d.end());
}

int wavefronts(const WarpRequest& r) {
  std::array<int, 4> d{};
  phase_degrees(r, d);
  int sum = 0;
  for (const int x : d) sum += x;
  return sum;
}

}  // namespace cudalab::bank
