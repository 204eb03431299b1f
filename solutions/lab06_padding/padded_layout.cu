// Lab 06: the padded layout compiled into the lab library, for host callers (grader, demo).
// padded_layout.cuh is included from this folder, so the host sees the very map the kernels use.
#include "padded_layout.cuh"
#include "padding.cuh"

namespace lab06 {

int padded_offset_host(int row, int col) { return padded_offset(row, col); }

int padded_tile_words_host() { return kPaddedTileWords; }

}  // namespace lab06
