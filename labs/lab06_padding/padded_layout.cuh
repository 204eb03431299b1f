/**
 * @file padded_layout.cuh
 * @brief Lab 06, the padding technique: which shared-memory word holds element (row, col)
 *        of a kTile x kTile tile whose rows are padded with an unused word.
 *
 * The kernels declare `__shared__ float tile[kPaddedTileWords]` and address it only through
 * padded_offset(), so the layout is decided here, once, and graded on the CPU with the bank
 * model before any kernel runs.
 *
 *     word = row * kPaddedPitch + col        bank = word % 32
 *     pitch 32: bank = col                   (a column is one bank: 32-way conflict)
 *     pitch 33: bank = (row + col) % 32      (a column covers all 32 banks)
 */
#pragma once

#include "padding.cuh"

namespace lab06 {

/// Words from the start of one tile row to the start of the next (kTile data words + padding).
// TODO(lab06): give every tile row one unused word at its end.
// HINT: a row of kTile floats plus one word of padding: the layout of float tile[kTile][kTile + 1].
inline constexpr int kPaddedPitch = kTile;
// END TODO(lab06)

static_assert(kPaddedPitch >= kTile, "a tile row must fit in its pitch");
/// Words one padded tile occupies: declare `__shared__ float tile[kPaddedTileWords]`.
inline constexpr int kPaddedTileWords = kTile * kPaddedPitch;

/**
 * @brief Word offset, inside a padded tile, of element (@p row, @p col).
 *
 * Every element gets its own word below kPaddedTileWords; the 32 elements of a row and the
 * 32 elements of a column each fall into 32 different banks.
 * @pre 0 <= row < kTile, 0 <= col < kTile
 */
__host__ __device__ constexpr int padded_offset(int row, int col) {
  // TODO(lab06): return the word that holds (row, col) when rows are kPaddedPitch words apart.
  // HINT: the same number as the index of tile[row][col] in float tile[kTile][kPaddedPitch].
  (void)row;
  (void)col;
  return 0;
  // END TODO(lab06)
}

}  // namespace lab06
