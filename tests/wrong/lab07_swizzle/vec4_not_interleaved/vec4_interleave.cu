// Lab 07, advanced: the interleave that keeps 16-byte (float4) accesses to a tile column
// conflict-free.
//
// A float4 load moves 16 bytes per lane, 512 bytes per warp: the hardware serves it in four
// phases of 8 lanes (a quarter warp, 128 bytes each), and conflicts count inside a phase.
// A tile row of 32 floats is 8 float4 slots. When 8 lanes read vector v of 8 consecutive
// rows, the plain layout puts all of them at slot v, i.e. on the same 4 banks: an 8-way
// conflict. Storing vector v of row r at slot v ^ (r % 8) spreads the 8 lanes over the 8
// slots of a row, which cover all 32 banks; a row read (8 lanes, 8 slots) stays a
// permutation. It is the XOR swizzle again, on 16-byte units instead of 4-byte words.
#include "swizzle.cuh"

namespace lab07 {

static_assert(kTile % 4 == 0, "a tile row must hold whole float4 vectors");
static_assert((kVec4PerRow & (kVec4PerRow - 1)) == 0,
              "the XOR of two slot numbers stays inside the row only for a power-of-two count");

__host__ __device__ int vec4_slot(int row, int vec) {
  // TODO(lab07): interleave the float4 vectors of a row so that 8 consecutive rows (one
  // quarter-warp phase) store any given vector in 8 different slots.
  // HINT: the swizzle of swizzled_tile.cu with kVec4PerRow slots instead of kTile words:
  // vec ^ (row % kVec4PerRow).
  (void)row;  // every row keeps the plain order
  return vec;
  // END TODO(lab07)
}

}  // namespace lab07
