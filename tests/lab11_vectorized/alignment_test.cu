// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 11, alignment.cu: the alignment predicate and the head on the CPU (exhaustive,
// against a row-by-row simulation).
//
// One test file per technique file of the lab: alignment_test.cu, scalar_copy_test.cu (the
// given copy checks and baselines), vec4_copy_test.cu, vec4_tile_transpose_test.cu; what they
// share is in vectorized_grading.cuh, the handout's questions in questions.cpp.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cudalab/testing.hpp"
#include "vectorized.cuh"

namespace {

namespace t = cudalab::testing;

// ---------------------------------------------------------------------------
// The alignment predicate and the head (CPU, exhaustive).
// ---------------------------------------------------------------------------
/// Row bases far apart, so that an int truncation of an address shows.
const std::uintptr_t kBases[] = {0, std::uintptr_t(1) << 32, (std::uintptr_t(1) << 40) + 4096};

TEST(AlignmentCpu, HeadIsTheFloatsBeforeTheNextSixteenByteBoundary) {
  for (const std::uintptr_t base : kBases) {
    for (std::uintptr_t a = base; a < base + 64; a += 4) {
      for (const int width : {0, 1, 2, 3, 4, 5, 7, 1001}) {
        int head = 0;  // walk the floats until an address is a multiple of 16
        while (head < width && (a + 4 * std::uintptr_t(head)) % 16 != 0) ++head;
        ASSERT_EQ(lab11::head_floats(a, width), head)
            << "head_floats(address " << a << " (= " << a % 16 << " mod 16), width " << width
            << "): the float4 body must start at the first float whose address is a multiple of "
            << "16, and the head never holds more floats than the row";
      }
    }
  }
}

/// One float4 plan serves every row: simulated over 16 rows (r * pitch mod 16 repeats).
bool every_row_shares_the_plan(std::uintptr_t src, std::size_t sp, std::uintptr_t dst,
                               std::size_t dp) {
  for (std::uintptr_t r = 0; r < 16; ++r) {
    const std::uintptr_t s = src + r * sp;
    const std::uintptr_t d = dst + r * dp;
    if (s % 4 != 0 || d % 4 != 0) return false;  // a float out of alignment
    if (s % 16 != d % 16) return false;          // two heads in one row pair
    if (s % 16 != src % 16) return false;        // a row with another head than row 0
  }
  return true;
}

TEST(AlignmentCpu, CanVectorizeExactlyWhenEveryRowSharesOnePlan) {
  std::vector<std::size_t> pitches;
  for (std::size_t p = 0; p <= 80; p += 2) pitches.push_back(p);
  for (const std::size_t p : {512, 4004, 4008, 4016, 4096, 1 << 20}) pitches.push_back(p);
  int checked = 0;
  for (const std::uintptr_t base : kBases) {
    for (std::uintptr_t s = 0; s < 32; s += 2) {
      for (std::uintptr_t d = 0; d < 32; d += 2) {
        for (const std::size_t sp : pitches) {
          for (const std::size_t dp :
               {std::size_t(16), std::size_t(20), std::size_t(4096), std::size_t(4004), sp}) {
            const bool want = every_row_shares_the_plan(base + s, sp, base + 4096 + d, dp);
            ASSERT_EQ(lab11::can_vectorize(base + s, sp, base + 4096 + d, dp), want)
                << "can_vectorize(src " << base + s << " (" << s % 16 << " mod 16), pitch " << sp
                << ", dst " << base + 4096 + d << " (" << d % 16 << " mod 16), pitch " << dp
                << ") should be " << (want ? "true" : "false")
                << ": true exactly when every row of both is float-aligned and row r of the "
                << "source and of the destination have row 0's address modulo 16";
            ++checked;
          }
        }
      }
    }
  }
  t::record_measurement("predicate cases checked", checked, "");
}

}  // namespace
