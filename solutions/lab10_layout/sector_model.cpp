// SPDX-License-Identifier: BSD-3-Clause
// Lab 10: the sector model — which 32-byte sectors of global memory one warp request touches.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "layout.cuh"

namespace lab10 {

std::uint64_t sector_of(std::uint64_t byte_address) {
  // TODO(lab10): return the index of the 32-byte sector that holds the byte (roughly 1 line).
  // HINT: sectors tile memory from address 0: bytes 0-31 are sector 0, 32-63 sector 1, ...
  return byte_address / kSectorBytes;
  // END TODO(lab10)
}

int sectors_touched(const GlobalRequest& r) {
  // TODO(lab10): check access_bytes (1, 2, 4, 8 or 16) and each active lane's alignment
  // (throw std::invalid_argument otherwise); collect the sectors of the first and last byte each
  // active lane reads, and return how many distinct sectors there are (0 when no lane is
  // active). Roughly 20 lines.
  // HINT: (r.active_mask >> lane) & 1u tells whether a lane is active; an aligned access of at
  // HINT: most 16 bytes never crosses a sector, but count both ends anyway; sort + unique.
  const int w = r.access_bytes;
  if (w != 1 && w != 2 && w != 4 && w != 8 && w != 16) {
    throw std::invalid_argument("sectors_touched: access_bytes must be 1, 2, 4, 8 or 16, got " +
                                std::to_string(w));
  }
  std::vector<std::uint64_t> sectors;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (((r.active_mask >> lane) & 1u) == 0) continue;
    const std::uint64_t a = r.byte_address[static_cast<std::size_t>(lane)];
    if (a % static_cast<std::uint64_t>(w) != 0) {
      throw std::invalid_argument("sectors_touched: lane " + std::to_string(lane) + " reads byte " +
                                  std::to_string(a) + ", not a multiple of its width " +
                                  std::to_string(w));
    }
    sectors.push_back(sector_of(a));
    sectors.push_back(sector_of(a + static_cast<std::uint64_t>(w) - 1));
  }
  std::sort(sectors.begin(), sectors.end());
  sectors.erase(std::unique(sectors.begin(), sectors.end()), sectors.end());
  return static_cast<int>(sectors.size());
  // END TODO(lab10)
}

}  // namespace lab10
