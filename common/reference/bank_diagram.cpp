// SPDX-License-Identifier: BSD-3-Clause
// Text diagram of which lane hits which bank, with the pass that serves it.
#include "cudalab/bank_diagram.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <sstream>
#include <vector>

namespace cudalab::bank {

char pass_symbol(int pass) noexcept {
  if (pass >= 1 && pass <= 9) return static_cast<char>('0' + pass);
  if (pass >= 10 && pass <= 35) return static_cast<char>('a' + (pass - 10));
  return '?';
}

namespace {

constexpr int kLabelWidth = 10;  // "lane 31   "

void print_bank_header(std::ostringstream& os) {
  os << std::string(kLabelWidth, ' ');
  for (int b = 0; b < kNumBanks; ++b) os << (b % 10 == 0 ? static_cast<char>('0' + b / 10) : ' ');
  os << "  <- bank (tens)\n" << std::string(kLabelWidth, ' ');
  for (int b = 0; b < kNumBanks; ++b) os << static_cast<char>('0' + b % 10);
  os << "  <- bank (units)\n";
}

}  // namespace

std::string render_bank_diagram(const WarpRequest& r, const std::string& title) {
  std::array<int, 4> phase_degree{};
  const int phases = phase_degrees(r, phase_degree);  // validates the request
  const int lanes = kWarpSize / phases;
  const int words_per_lane = r.access_bytes / kBankWidthBytes;

  std::ostringstream os;
  if (!title.empty()) os << title << "\n";
  os << r.access_bytes << "-byte accesses";
  if (phases > 1) os << ", " << phases << " phases of " << lanes << " lanes";
  os << "\n";
  print_bank_header(os);

  std::array<int, kNumBanks> worst_per_bank{};  // highest pass of each bank, over phases
  for (int p = 0; p < phases; ++p) {
    if (p > 0) os << std::string(kLabelWidth, ' ') << std::string(kNumBanks, '-') << "\n";
    // Distinct words of each bank in this phase, in order of first use: pass = position + 1.
    std::array<std::vector<std::uint64_t>, kNumBanks> seen;
    for (int lane = p * lanes; lane < (p + 1) * lanes; ++lane) {
      std::string row(kNumBanks, '.');
      const bool active = ((r.active_mask >> lane) & 1u) != 0;
      if (active) {
        const std::uint64_t first_word =
            r.byte_address[static_cast<std::size_t>(lane)] / kBankWidthBytes;
        for (int w = 0; w < words_per_lane; ++w) {
          const std::uint64_t word = first_word + static_cast<std::uint64_t>(w);
          const int bank = static_cast<int>(word % kNumBanks);
          auto& list = seen[static_cast<std::size_t>(bank)];
          auto it = std::find(list.begin(), list.end(), word);
          if (it == list.end()) it = list.insert(list.end(), word);
          const int pass = static_cast<int>(it - list.begin()) + 1;
          row[static_cast<std::size_t>(bank)] = pass_symbol(pass);
          worst_per_bank[static_cast<std::size_t>(bank)] =
              std::max(worst_per_bank[static_cast<std::size_t>(bank)], pass);
        }
      }
      std::string label = "lane " + std::to_string(lane);
      label.resize(kLabelWidth, ' ');
      os << label << (active ? row : std::string(kNumBanks, ' ') + "(inactive)") << "\n";
    }
  }
  std::string label = "passes";
  label.resize(kLabelWidth, ' ');
  os << label;
  for (const int n : worst_per_bank) os << (n == 0 ? '.' : pass_symbol(n));
  os << "\n";

  const int degree = *std::max_element(phase_degree.begin(), phase_degree.end());
  int total = 0;
  for (int p = 0; p < phases; ++p) total += phase_degree[static_cast<std::size_t>(p)];
  os << "degree " << degree;
  if (degree == 1) {
    os << " (conflict-free)";
  } else if (degree > 1) {
    os << " (" << degree << "-way conflict)";
  } else {
    os << " (no active lane)";
  }
  os << ", " << total << (total == 1 ? " wavefront" : " wavefronts");
  if (phases > 1) {
    os << " (per phase:";
    for (int p = 0; p < phases; ++p) os << " " << phase_degree[static_cast<std::size_t>(p)];
    os << ")";
  }
  os << "\n";
  return os.str();
}

}  // namespace cudalab::bank
