// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 07, the float4 interleave of vec4_transpose.cu on the CPU: every row of
// vec4_slot() a permutation of its slots, the 16-byte column and row accesses conflict-free in
// the bank model (quarter-warp phases), and the plain layout's 8-way conflict it removes. The
// float4 transpose itself is vec4_transpose_test.cu's; helpers in swizzle_grading.cuh.
#include <cstdint>
#include <string>
#include <utility>

#include "swizzle_grading.cuh"

namespace {

using namespace lab07_grading;

/// Lane l accesses float4 vector at(l) = (row, vec); returns each lane's float4 index.
template <typename At>
Lanes vec4_indices(At at, bool interleaved) {
  Lanes v{};
  for (int l = 0; l < kTile; ++l) {
    const auto [row, vec] = at(l);
    v[l] =
        static_cast<std::int64_t>(row) * kVecs + (interleaved ? lab07::vec4_slot(row, vec) : vec);
  }
  return v;
}

// ---------------------------------------------------------------------------
// Advanced: the float4 interleave (CPU, 16-byte accesses: quarter-warp phases).
// ---------------------------------------------------------------------------
TEST(Vec4InterleaveCpu, EveryRowIsAPermutationOfItsSlots) {
  expect_rows_are_permutations(lab07::vec4_slot, kVecs, "vec4_slot");
}

TEST(Vec4InterleaveCpu, ColumnAccessOfFloat4IsConflictFree) {
  for (int base = 0; base < kRowsChecked; base += kTile) {
    for (int v = 0; v < kVecs; ++v) {
      ASSERT_TRUE(tile_grading::conflict_free(
          vec4_indices([base, v](int l) { return std::make_pair(base + l, v); }, true),
          "float4 " + std::to_string(v) + " of rows " + std::to_string(base) + ".." +
              std::to_string(base + kTile - 1),
          16));
    }
  }
}

TEST(Vec4InterleaveCpu, RowAccessOfFloat4IsConflictFree) {
  // A warp reads 4 whole rows: lane l takes float4 l % 8 of row base + l / 8.
  for (int base = 0; base < kRowsChecked; base += 4) {
    ASSERT_TRUE(tile_grading::conflict_free(
        vec4_indices([base](int l) { return std::make_pair(base + l / kVecs, l % kVecs); }, true),
        "rows " + std::to_string(base) + ".." + std::to_string(base + 3) + " as float4", 16));
  }
}

// Why the interleave exists (given: the model on the plain layout, no student code).
TEST(GivenVec4ModelCpu, PlainFloat4ColumnAccessIsAnEightWayConflict) {
  const auto plain = vec4_indices([](int l) { return std::make_pair(l, 0); }, false);
  EXPECT_EQ(cudalab::bank::conflict_degree(cudalab::bank::from_element_indices(plain, 16)), 8);
}

}  // namespace
