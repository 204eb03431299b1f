// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file bank_model.hpp
 * @brief Host model of shared-memory banks: which bank a byte address falls in, and how
 * many serialized passes (the conflict degree) one warp-wide request needs.
 *
 * The model (compute capability 5.0 and newer, 4-byte bank mode):
 * - shared memory is divided into kNumBanks = 32 banks, each kBankWidthBytes = 4 bytes
 *   wide; consecutive 4-byte words go to consecutive banks, so
 *   `bank = (byte_address / 4) % 32`;
 * - a bank serves one 4-byte word per pass. Lanes that read the *same word* are served
 *   by one read (broadcast / multicast), so they never conflict; lanes that read
 *   *different words of the same bank* need one pass each: the request's conflict degree
 *   is the largest number of distinct words any single bank must deliver;
 * - 64-bit (8-byte) and 128-bit (16-byte) accesses move 256 / 512 bytes per warp, more
 *   than the 128 bytes the banks deliver per pass, so the hardware splits the warp into
 *   phases: half-warps (lanes 0-15, 16-31) for 8 bytes and quarter-warps (8 lanes each)
 *   for 16 bytes. Conflicts are counted inside a phase only; a phase that is
 *   conflict-free costs one pass (a "wavefront").
 *
 * The model predicts; `conflict_meter.cuh` measures the same quantity on a GPU.
 */
#pragma once

#include <array>
#include <cstdint>

namespace cudalab::bank {

inline constexpr int kNumBanks = 32;       ///< banks of shared memory
inline constexpr int kBankWidthBytes = 4;  ///< bytes one bank delivers per pass
inline constexpr int kWarpSize = 32;       ///< lanes of a warp

/// The bank that holds byte @p byte_address: (address / 4) % 32.
constexpr int bank_of(std::uint64_t byte_address) noexcept {
  return static_cast<int>((byte_address / kBankWidthBytes) % kNumBanks);
}

/// One warp-wide shared-memory access: each lane's byte address and the access width.
struct WarpRequest {
  /// Byte address (offset into shared memory) that lane i accesses; must be a multiple
  /// of access_bytes for active lanes (the GPU faults on misaligned accesses).
  std::array<std::uint64_t, kWarpSize> byte_address{};
  /// Bit i set: lane i takes part (inactive lanes, e.g. after a branch, are ignored).
  std::uint32_t active_mask = 0xFFFFFFFFu;
  /// Bytes per lane: 4 (float/int), 8 (float2/double) or 16 (float4).
  int access_bytes = 4;
};

/**
 * @brief A 4-byte access per lane: lane i reads word @p word_index[i], i.e. byte
 * address 4 * word_index[i]. All lanes active.
 * @throws std::invalid_argument for a negative index
 */
WarpRequest from_word_indices(const std::array<std::int64_t, kWarpSize>& word_index);

/**
 * @brief An access of @p element_bytes per lane: lane i reads element
 * @p element_index[i] of an array of such elements starting at byte 0, i.e. byte
 * address element_bytes * element_index[i]. All lanes active.
 * @param element_index element index (not byte offset) that each lane accesses; >= 0
 * @param element_bytes 4, 8 or 16
 * @throws std::invalid_argument for another width or a negative index
 */
WarpRequest from_element_indices(const std::array<std::int64_t, kWarpSize>& element_index,
                                 int element_bytes);

/// Lanes per phase for an access width: 32 for 4 bytes, 16 for 8, 8 for 16.
/// @throws std::invalid_argument for any other width
int lanes_per_phase(int access_bytes);

/**
 * @brief The conflict degree of @p r: 1 means conflict-free, n means n-way (the request
 * is served in n passes in its worst phase); 0 when no lane is active.
 *
 * Per phase (see the file comment), for each bank, count the distinct 4-byte words of
 * that bank touched by the phase's active lanes (a 8/16-byte access touches 2/4
 * consecutive words); the phase's degree is the largest count, and the request's degree
 * is the largest phase degree.
 * @throws std::invalid_argument for access_bytes not in {4, 8, 16} or a misaligned
 * address of an active lane
 */
int conflict_degree(const WarpRequest& r);

/**
 * @brief Passes ("wavefronts", as Nsight Compute counts them) the whole request needs:
 * the sum over phases of each phase's degree. A conflict-free 16-byte request needs 4.
 * @throws std::invalid_argument like conflict_degree()
 */
int wavefronts(const WarpRequest& r);

/**
 * @brief Degree of each phase of @p r, in lane order (1, 2 or 4 entries are meaningful;
 * the rest are 0). Phases without active lanes have degree 0.
 * @return the number of phases (32 / lanes_per_phase)
 */
int phase_degrees(const WarpRequest& r, std::array<int, 4>& degree_per_phase);

/// Word indices of a strided pattern: lane i reads word i * stride (+ offset).
std::array<std::int64_t, kWarpSize> strided_words(std::int64_t stride, std::int64_t offset = 0);

/// Word indices where every lane reads the same word @p word (a broadcast).
std::array<std::int64_t, kWarpSize> broadcast_words(std::int64_t word = 0);

}  // namespace cudalab::bank
