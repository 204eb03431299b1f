// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file padding_grading.cuh
 * @brief What the test files of lab 06's grader share: the tile's size, the in-place
 * transpose's inputs, its guarded result check and its runs (captured and replayed with every
 * check in padded_tile_test.cu, plain for the small runs of padding_test.cu), and padded_matmul
 * as tile_grading launches it (both files).
 *
 * The GPU tests run the launchers under stream capture (provenance), on poisoned memory and two
 * data sets (tests/common/tile_grading.hpp).
 */
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "common/tile_grading.hpp"
#include "padding.cuh"

namespace lab06_grading {

// What the test files use from elsewhere (each says `using namespace lab06_grading;`).
using tile_grading::Lanes;
using tile_grading::Shape;

inline constexpr int kTile = lab06::kTile;
// What the captured graph of padded_transpose_in_place may hold: lab06::padded_transpose_kernel(),
// the student's kernel, nothing else (not the given tile transpose with the padded layout, nor the
// conflicting baseline, nor a copy); of padded_matmul: lab06::padded_matmul_kernel(), the given
// tile matmul with the padded layout (named after the layout type, which only its instances
// carry).

/// Sentinel elements on each side of the matrix in the correctness tests, and their value.
inline constexpr std::size_t kGuard = 1024;
inline constexpr float kSentinel = -12345.0f;

/// A random n x n input of data set @p set (uniform floats, from the per-run seed: a transpose
/// moves them bit for bit). Never symmetric for n >= 2 (checked): a kernel that leaves the
/// matrix as it is fails.
inline std::vector<float> in_place_input(int n, int set) {
  std::vector<float> h = tile_grading::transpose_input(n, n, set);
  if (n >= 2 && h[1] == h[std::size_t(n)]) h[1] = h[std::size_t(n)] + 1.0f;
  return h;
}

/**
 * @brief Whether d (kGuard sentinels, the n x n result, kGuard sentinels, as downloaded) holds
 * the transpose of @p in and untouched guards: the first wrong element by (row, col), expected
 * and got.
 */
inline ::testing::AssertionResult in_place_result_ok(const std::vector<float>& in,
                                                     const std::vector<float>& got, int n) {
  const std::size_t count = std::size_t(n) * n;
  for (std::size_t d = 1; d <= kGuard; ++d) {  // d elements before the start, past the end
    const std::size_t before = kGuard - d;
    const std::size_t after = kGuard + count + d - 1;
    const bool early = !(got[before] == kSentinel);
    if (early || !(got[after] == kSentinel)) {
      return ::testing::AssertionFailure()
             << "element " << d << (early ? " before the start" : " past the end") << " of the "
             << n << "x" << n << " matrix was written (expected the sentinel " << kSentinel
             << ", got " << got[early ? before : after] << "): missing edge guard?";
    }
  }
  const std::vector<float> result(got.begin() + std::ptrdiff_t(kGuard),
                                  got.begin() + std::ptrdiff_t(kGuard + count));
  return cudalab::testing::matrices_match(tile_grading::host_transpose(in, n, n), result, n, n,
                                          0.0);
}

/**
 * @brief padded_transpose_in_place on an n x n matrix with blocks of kTile x @p block_rows:
 * captured on its stream (only the student's kernel), then for two data sets the input with
 * kGuard sentinels on each side is uploaded, every SM's shared memory poisoned with NaN, the
 * graph replayed and the result compared with the host's transpose; then the launcher runs
 * directly twice more on the same buffer with new data (a launcher that skips a repeated call
 * fails).
 */
inline void expect_in_place_ok(int n, int block_rows) {
  namespace t = cudalab::testing;
  const std::size_t count = std::size_t(n) * n;
  cudalab::DeviceBuffer<float> d(count + 2 * kGuard);
  float* d_matrix = d.data() + kGuard;
  const tile_grading::Work work = [&](cudaStream_t s) {
    lab06::padded_transpose_in_place(d_matrix, n, block_rows, s);
  };
  std::vector<float> h_in;
  const auto load = [&](int set) {
    h_in = in_place_input(n, set);
    std::vector<float> h(count + 2 * kGuard, kSentinel);
    std::copy(h_in.begin(), h_in.end(), h.begin() + std::ptrdiff_t(kGuard));
    d.upload(h);
  };
  t::CapturedWork cap = t::CapturedWork::capture(work);
  ASSERT_TRUE(cap.holds_only(tile_grading::only_kernel(lab06::padded_transpose_kernel())));
  for (int set = 0; set < 2; ++set) {
    SCOPED_TRACE("data set " + std::to_string(set) + " through the captured graph");
    load(set);
    t::poison_shared_memory();
    CUDA_CHECK(cudaDeviceSynchronize());
    cap.run();
    ASSERT_TRUE(in_place_result_ok(h_in, d.to_host(), n));
  }
  cudalab::kit::expect_fresh_results_on_same_buffers(
      "padded_transpose_in_place", [&](int set) { load(set); }, work,
      [&](int) { ASSERT_TRUE(in_place_result_ok(h_in, d.to_host(), n)); }, 2);
}

/// A plain (uncaptured) run on an n x n matrix in an allocation of exactly its size, for the
/// sanitizer and profiler re-runs.
inline ::testing::AssertionResult in_place_ok(int n, int block_rows) {
  const auto h_in = in_place_input(n, 0);
  cudalab::DeviceBuffer<float> d(h_in);
  lab06::padded_transpose_in_place(d.data(), n, block_rows, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  return cudalab::testing::matrices_match(tile_grading::host_transpose(h_in, n, n), d.to_host(), n,
                                          n, 0.0);
}

inline void padded_matmul(const float* a, const float* b, float* c, int m, int n, int k,
                          cudaStream_t s) {
  lab06::padded_matmul(a, b, c, m, n, k, s);
}

}  // namespace lab06_grading
