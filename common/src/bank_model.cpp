// SPDX-License-Identifier: BSD-3-Clause
// The host bank model, public part: building warp requests (the conflict-degree reference
// lives in the grader-only library, common/reference/bank_model_reference.cpp).
#include "cudalab/bank_model.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace cudalab::bank {

namespace {

/// Element index -> byte address, refusing negative indices.
std::uint64_t byte_address_of(std::int64_t index, int element_bytes, int lane) {
  if (index < 0) {
    throw std::invalid_argument("bank model: lane " + std::to_string(lane) +
                                " has a negative index " + std::to_string(index));
  }
  return static_cast<std::uint64_t>(index) * static_cast<std::uint64_t>(element_bytes);
}

}  // namespace

WarpRequest from_word_indices(const std::array<std::int64_t, kWarpSize>& word_index) {
  return from_element_indices(word_index, kBankWidthBytes);
}

WarpRequest from_element_indices(const std::array<std::int64_t, kWarpSize>& element_index,
                                 int element_bytes) {
  (void)lanes_per_phase(element_bytes);  // validates the width
  WarpRequest r;
  r.access_bytes = element_bytes;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    r.byte_address[static_cast<std::size_t>(lane)] =
        byte_address_of(element_index[static_cast<std::size_t>(lane)], element_bytes, lane);
  }
  return r;
}

int lanes_per_phase(int access_bytes) {
  switch (access_bytes) {
    case 4:
      return 32;  // 32 lanes x 4 B = 128 B: one phase
    case 8:
      return 16;  // half-warps
    case 16:
      return 8;  // quarter-warps
    default:
      throw std::invalid_argument("bank model: access width must be 4, 8 or 16 bytes, got " +
                                  std::to_string(access_bytes));
  }
}

std::array<std::int64_t, kWarpSize> strided_words(std::int64_t stride, std::int64_t offset) {
  std::array<std::int64_t, kWarpSize> w{};
  for (int lane = 0; lane < kWarpSize; ++lane)
    w[static_cast<std::size_t>(lane)] = offset + lane * stride;
  return w;
}

std::array<std::int64_t, kWarpSize> broadcast_words(std::int64_t word) {
  std::array<std::int64_t, kWarpSize> w{};
  w.fill(word);
  return w;
}

}  // namespace cudalab::bank
