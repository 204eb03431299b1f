// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file swizzle_grading.cuh
 * @brief What the test files of lab 07's grader share: the tile's sizes and the rows over which
 * the maps are checked, the check that every row of a map is a permutation (swizzled_col(),
 * vec4_slot()), the scalar launchers as tile_grading launches them (swizzled_tile_test.cu,
 * swizzle_test.cu) and the static shared memory of unpadded tiles (swizzled_tile_test.cu,
 * vec4_transpose_test.cu).
 *
 * The GPU tests run the launchers under stream capture (provenance), on poisoned memory and two
 * data sets (tests/common/tile_grading.hpp).
 */
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/tile_grading.hpp"
#include "swizzle.cuh"

namespace lab07_grading {

// What the test files use from elsewhere (each says `using namespace lab07_grading;`).
using tile_grading::Extent;
using tile_grading::Lanes;
using tile_grading::Shape;

/// Side of the square problems of the perf tests.
inline constexpr int kPerfSize = 4096;

inline constexpr int kTile = lab07::kTile;
// What the captured graph of a scalar launcher may hold: lab07::swizzled_transpose_kernel()
// or swizzled_matmul_kernel(), the tile kernels with the swizzled layout (named after the
// layout type, which only its instances carry); of the float4 launcher with layout L:
// lab07::vec4_kernel<L>(), the student's float4 transpose with that layout.
inline constexpr int kVecs = lab07::kVec4PerRow;
/// Rows over which the maps are checked: tiles may be taller than one warp (e.g. 64 x 32
/// or 128 x 32 A tiles), so the swizzle must hold for every row, not only rows 0..31.
inline constexpr int kRowsChecked = 4 * kTile;

/// Every row of @p map (row, i) -> slot, i < n, is a permutation of 0 .. n - 1.
template <typename Map>
void expect_rows_are_permutations(Map map, int n, const std::string& name) {
  for (int r = 0; r < kRowsChecked; ++r) {
    std::vector<int> taken_by(n, -1);
    for (int i = 0; i < n; ++i) {
      const int s = map(r, i);
      ASSERT_TRUE(s >= 0 && s < n)
          << name << "(" << r << ", " << i << ") = " << s << " lies outside the row (0.." << n - 1
          << "): the element would land in another row"
          << (r >= n ? " (is the row reduced modulo the row length?)" : "");
      ASSERT_EQ(taken_by[s], -1) << name << "(" << r << ", " << i << ") = " << s << " = " << name
                                 << "(" << r << ", " << taken_by[s]
                                 << "): two elements of a row share one place (not a bijection)";
      taken_by[s] = i;
    }
  }
}

inline void swizzled_transpose(const float* in, float* out, int rows, int cols, cudaStream_t s) {
  lab07::swizzled_transpose(in, out, rows, cols, lab07::kTransposeBlockRows, s);
}

inline void swizzled_matmul(const float* a, const float* b, float* c, int m, int n, int k,
                            cudaStream_t s) {
  lab07::swizzled_matmul(a, b, c, m, n, k, s);
}

// ---------------------------------------------------------------------------
// Swizzling costs no memory: static shared memory equals the unpadded tiles (the scalar
// kernels are given and declare Layout::kWords; the float4 kernel is the student's).
// ---------------------------------------------------------------------------
inline void expect_static_smem(const cudalab::KernelInfo& kernel, const std::string& name,
                               int tiles) {
  cudaFuncAttributes attr{};
  CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel.function));
  const std::size_t expected = std::size_t(tiles) * lab07::kTileWords * sizeof(float);
  cudalab::testing::record_measurement(name + " static shared memory", double(attr.sharedSizeBytes),
                                       "bytes", double(expected));
  EXPECT_EQ(attr.sharedSizeBytes, expected)
      << name << " declares " << attr.sharedSizeBytes << " bytes of static shared memory; " << tiles
      << " unpadded " << kTile << "x" << kTile << " float tile(s) take " << expected
      << " bytes. A swizzle reorders the words of a tile and adds none (a [32][33] padded tile "
      << "would take " << kTile * (kTile + 1) * sizeof(float) << " bytes)";
}

}  // namespace lab07_grading
