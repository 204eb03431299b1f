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
  (void)byte_address;
  return -1;
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
  (void)r;
  return -1;
  // END TODO(lab05)
}

}  // namespace lab05
