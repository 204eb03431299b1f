// SPDX-License-Identifier: BSD-3-Clause
// Lab 05: the bank-conflict model — bank of an address, conflict degree of a warp request.
#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "bank_conflict.cuh"

namespace lab05 {

int bank_of(std::uint64_t byte_address) {
  // TODO(lab05): return the bank of the byte address: 4-byte words, 32 banks. Roughly 1 line.
  // HINT: the word index is address / 4; words go round the banks in order.
  return static_cast<int>((byte_address / 4) % 32);
  // END TODO(lab05)
}

int conflict_degree(const cudalab::bank::WarpRequest& r) {
  // TODO(lab05): split the warp into phases (32 lanes for 4-byte accesses, 16 for 8-byte,
  // 8 for 16-byte). In each phase collect the distinct 4-byte words the active lanes touch
  // (a lane touches access_bytes / 4 consecutive words), count them per bank, and return
  // the largest count over all banks and phases (0 when no lane is active).
  // Roughly 30 lines.
  // HINT: (r.active_mask >> lane) & 1u tells whether a lane is active; sort + unique
  // removes repeated words (a broadcast costs nothing); use bank_of(word * 4).
  int lanes_per_phase = 0;
  switch (r.access_bytes) {
    case 4:
      lanes_per_phase = 32;
      break;
    case 8:
      lanes_per_phase = 16;
      break;  // half-warps
    case 16:
      lanes_per_phase = 8;
      break;  // quarter-warps
    default:
      throw std::invalid_argument("conflict_degree: access_bytes must be 4, 8 or 16, got " +
                                  std::to_string(r.access_bytes));
  }
  const int words_per_lane = r.access_bytes / 4;
  int degree = 0;
  for (int first = 0; first < 32; first += lanes_per_phase) {
    std::vector<std::uint64_t> words;  // every word this phase touches, then distinct ones
    for (int lane = first; lane < first + lanes_per_phase; ++lane) {
      if (((r.active_mask >> lane) & 1u) == 0) continue;
      const std::uint64_t word0 = r.byte_address[static_cast<std::size_t>(lane)] / 4;
      for (int w = 0; w < words_per_lane; ++w)
        words.push_back(word0 + static_cast<std::uint64_t>(w));
    }
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    std::array<int, 32> passes{};  // distinct words per bank = passes that bank needs
    for (const std::uint64_t word : words) {
      degree = std::max(degree, ++passes[static_cast<std::size_t>(bank_of(word * 4))]);
    }
  }
  return degree;
  // END TODO(lab05)
}

}  // namespace lab05
