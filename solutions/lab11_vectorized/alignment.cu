// SPDX-License-Identifier: BSD-3-Clause
// Lab 11, alignment: which part of a pitched row can move as float4. A 16-byte access must
// start at a multiple of 16 bytes; a row that starts elsewhere gets a scalar head up to the
// first boundary, a float4 body, and a scalar tail after the last whole float4.
#include "vectorized.cuh"

namespace lab11 {

int head_floats(std::uintptr_t row_address, int width) {
  // TODO(lab11): the floats before the first 16-byte boundary, at most width (roughly 2 lines).
  // HINT: how many bytes lie between row_address and the next multiple of kVecBytes (0 when it
  // HINT: is one)? A row of 2 floats starting 4 bytes past a boundary has a head of 2, not 3.
  const int bytes_to_boundary = int((kVecBytes - row_address % kVecBytes) % kVecBytes);
  return width < bytes_to_boundary / 4 ? width : bytes_to_boundary / 4;
  // END TODO(lab11)
}

bool can_vectorize(std::uintptr_t src, std::size_t src_pitch, std::uintptr_t dst,
                   std::size_t dst_pitch) {
  // TODO(lab11): one float4 plan for every row of both matrices? (roughly 3 lines)
  // HINT: row r starts at src + r * src_pitch. What must the pitch be so that every row has
  // HINT: row 0's address modulo 16? And when do a source row and its destination row share
  // HINT: a head? Floats themselves need 4-byte alignment.
  if (src % 4 != 0 || dst % 4 != 0) return false;  // floats must be aligned
  if (src_pitch % kVecBytes != 0 || dst_pitch % kVecBytes != 0) return false;  // rows keep phase
  return src % kVecBytes == dst % kVecBytes;  // a source row and its destination share a head
  // END TODO(lab11)
}

}  // namespace lab11
