// SPDX-License-Identifier: BSD-3-Clause
// Lab 08: the classic popcount table — 256 bit counts, one per byte value, built on the host.
#include "xnor.cuh"

namespace lab08 {

std::array<std::uint8_t, 256> build_popcount_table() {
  std::array<std::uint8_t, 256> table{};  // table[0] = 0
  // TODO(lab08): set table[i] to the number of 1 bits in the byte i, for every i < 256.
  // HINT: how many 1 bits has i compared with i >> 1? Filled in increasing order of i,
  // HINT: which entry already in the table gives most of table[i]?
  // Roughly 3 lines.
  for (int i = 1; i < 256; ++i) {
    table[i] = static_cast<std::uint8_t>(table[i >> 1] + (i & 1));
  }
  // END TODO(lab08)
  return table;
}

cudalab::DeviceBuffer<std::uint8_t> upload_popcount_table() {
  cudalab::DeviceBuffer<std::uint8_t> d_table(256);
  // TODO(lab08): copy the 256 entries of build_popcount_table() into d_table.
  // HINT: DeviceBuffer::upload() takes a host pointer to size() elements.
  // Roughly 2 lines.
  const std::array<std::uint8_t, 256> table = build_popcount_table();
  d_table.upload(table.data());
  // END TODO(lab08)
  return d_table;
}

}  // namespace lab08
