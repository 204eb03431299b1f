// SPDX-License-Identifier: BSD-3-Clause
// Grading helpers shared by the graders of the tiled matmul labs (lab 04, shared memory;
// lab 12, prefetch; lab 13, SGEMM): the launcher signature they capture, the correctness check of
// one launcher on one shape (provenance by capture, poisoned memory, two data sets) and the
// index-range checks past 2^31 elements of A, of B and of C.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/kit.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/graph_capture.cuh"
#include "cudalab/matrix.hpp"
#include "cudalab/testing.hpp"

namespace matmul_grading {

// The kit's pieces under the names the graders of labs 12 and 13 use.
using cudalab::kit::only_kernel;
using cudalab::kit::Shape;
using cudalab::kit::shape_name;

/// A launcher call on a stream: what the tests capture.
using Launch = std::function<void(const float*, const float*, float*, int, int, int, cudaStream_t)>;

/// What the graph captured from a launcher may hold, for a product of shape @p s.
using Rules = std::function<cudalab::testing::GraphRules(const Shape& s)>;

/// Rules that hold nothing but @p kernel (a technique file's identity, matched by its
/// function), its launch free.
inline Rules only_kernel_rules(const cudalab::KernelInfo& kernel) {
  return [kernel](const Shape&) { return only_kernel(kernel); };
}

/**
 * Rules of a tiled launch: nothing but @p kernel, launched on @p block-shaped blocks over the
 * grid of @p tile x @p tile tiles of C (x: ceil(n / tile) columns, y: ceil(m / tile) rows)
 * with @p smem bytes of dynamic shared memory (empty: the launcher's choice).
 */
inline Rules tiled_launch(const cudalab::KernelInfo& kernel, int tile, dim3 block,
                          std::optional<unsigned> smem, const std::string& source) {
  return [=](const Shape& s) {
    cudalab::testing::GraphRules rules = only_kernel(kernel);
    const dim3 grid((unsigned(s.n) + tile - 1) / tile, (unsigned(s.m) + tile - 1) / tile);
    rules.expect_launch(kernel.name, grid, block, smem, source);
    return rules;
  };
}

/**
 * Captures @p launch for an m x n x k product, checks the graph holds only @p kernel, then
 * replays it on small integers (exact) and on uniform floats (tolerance). Before each replay
 * C is NaN and followed by sentinels that must survive, and every SM's shared memory is NaN.
 * Then calls @p launch directly twice more on the same buffers with new small integers behind
 * them (cudalab::kit::expect_fresh_results_on_same_buffers): a launcher that remembers its
 * last call and skips the work when called again with the same pointers and sizes fails.
 */
inline void expect_correct_product(const Launch& launch, const Rules& rules, const Shape& s) {
  SCOPED_TRACE("m x n x k = " + cudalab::kit::to_string(s));
  const std::size_t c_count = std::size_t(s.m) * s.n;
  constexpr std::size_t kGuard = 1024;
  constexpr float kSentinel = -31415.0f;
  cudalab::DeviceBuffer<float> d_a(std::size_t(s.m) * s.k), d_b(std::size_t(s.k) * s.n),
      d_c(c_count + kGuard);
  const std::vector<float> guard(kGuard, kSentinel);

  cudalab::testing::CapturedWork cap =
      cudalab::testing::CapturedWork::capture([&](cudaStream_t stream) {
        launch(d_a.data(), d_b.data(), d_c.data(), s.m, s.n, s.k, stream);
      });
  ASSERT_TRUE(cap.holds_only(rules(s)));

  struct DataSet {
    cudalab::Fill fill;
    double tol;
  };
  const DataSet sets[] = {{cudalab::Fill::SmallInt, 0.0},
                          {cudalab::Fill::Uniform, cudalab::kit::matmul_tolerance(s.k)}};
  std::uint64_t stream_id = 1;
  for (const DataSet& set : sets) {
    SCOPED_TRACE(std::string("data: ") + cudalab::fill_name(set.fill));
    const auto h_a = cudalab::random_matrix(s.m, s.k, set.fill, stream_id++);
    const auto h_b = cudalab::random_matrix(s.k, s.n, set.fill, stream_id++);
    d_a.upload(h_a);
    d_b.upload(h_b);
    cudalab::testing::poison(d_c.data(), c_count * sizeof(float));
    CUDA_CHECK(cudaMemcpy(d_c.data() + c_count, guard.data(), kGuard * sizeof(float),
                          cudaMemcpyHostToDevice));
    cudalab::testing::poison_shared_memory();
    cap.run();
    const std::vector<float> got = d_c.to_host();
    const std::vector<float> got_c(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(c_count));
    EXPECT_TRUE(cudalab::testing::matrices_match(cudalab::reference_matmul(h_a, h_b, s.m, s.n, s.k),
                                                 got_c, s.m, s.n, set.tol));
    for (std::size_t i = 0; i < kGuard; ++i) {
      ASSERT_EQ(got[c_count + i], kSentinel) << "element " << i
                                             << " past the end of C was written: missing "
                                                "bounds check on the store?";
    }
  }
  if (::testing::Test::HasFailure()) return;
  // Same buffers, new data: the launcher itself (not the graph) called again with the same
  // pointers and sizes as under capture, on small integers it has not seen.
  std::vector<float> h_a, h_b;
  cudalab::kit::expect_fresh_results_on_same_buffers(
      "the launcher on an m x n x k = " + cudalab::kit::to_string(s) + " product",
      [&](int round) {
        h_a = cudalab::random_matrix(s.m, s.k, cudalab::Fill::SmallInt, 101 + 2 * round);
        h_b = cudalab::random_matrix(s.k, s.n, cudalab::Fill::SmallInt, 102 + 2 * round);
        d_a.upload(h_a);
        d_b.upload(h_b);
        cudalab::testing::poison(d_c.data(), c_count * sizeof(float));
      },
      [&](cudaStream_t stream) {
        launch(d_a.data(), d_b.data(), d_c.data(), s.m, s.n, s.k, stream);
      },
      [&](int) {
        const std::vector<float> got = d_c.to_host();
        EXPECT_TRUE(cudalab::testing::matrices_match(
            cudalab::reference_matmul(h_a, h_b, s.m, s.n, s.k),
            std::vector<float>(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(c_count)),
            s.m, s.n, 0.0));
      },
      2);
}

/// expect_correct_product() with rules that only name the kernel (its launch is free).
inline void expect_correct_product(const Launch& launch, const char* kernel, const Shape& s) {
  expect_correct_product(
      launch, [kernel](const Shape&) { return only_kernel(kernel); }, s);
}

// Index range: A holds more than 2^31 elements, so a row offset row * k computed in int
// overflows. A is filled on the device from a hash of the element index; the host checks
// sampled rows past the 2^31-element mark.

/// A small integer (-4..4) from a hash of the element index: A's value, on device and host.
__host__ __device__ inline float hashed_small_int(std::uint64_t i, std::uint32_t seed) {
  std::uint64_t x = i * 0x9E3779B97F4A7C15ull + seed;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return static_cast<float>(static_cast<int>(x % 9u) - 4);  // -4 .. 4
}

/// Fills @p count floats with hashed_small_int(i, seed). Static: each grader source that
/// includes this header has its own copy (a grader of several files links them all).
static __global__ void fill_hashed(float* p, std::size_t count, std::uint32_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x) {
    p[i] = hashed_small_int(i, seed);
  }
}

/**
 * One data set of an index-range replay: @p small gets host small integers from random stream
 * @p seed (returned), @p hashed (@p hashed_count elements) is filled on the device from the
 * element hash, C (@p c_count elements) is NaN and so is every SM's shared memory; then the
 * captured work @p cap replays.
 */
inline std::vector<float> replay_range_set(const cudalab::testing::CapturedWork& cap,
                                           cudalab::DeviceBuffer<float>& small, int rows, int cols,
                                           float* hashed, std::size_t hashed_count, float* c,
                                           std::size_t c_count, std::uint32_t seed) {
  auto h_small = cudalab::random_matrix(rows, cols, cudalab::Fill::SmallInt, seed);
  small.upload(h_small);
  fill_hashed<<<1024, 256>>>(hashed, hashed_count, seed);
  CUDA_CHECK_LAST_LAUNCH();
  cudalab::testing::poison(c, c_count * sizeof(float));
  cudalab::testing::poison_shared_memory();
  cap.run();
  return h_small;
}

/**
 * Captures @p launch for an m x n x 1040 product whose A passes 2^31 elements (m = 65535 *
 * @p tile rows, the largest grid the launchers allow), checks the graph holds only
 * @p kernel, then replays it on two hashed data sets and checks rows around the 2^31 mark.
 * Skips when the GPU lacks the memory.
 */
inline void expect_large_a_rows(const Launch& launch, const Rules& rules, int tile, int n) {
  const int k = 1040;                             // rows * k passes 2^31 from row 2,064,917 on
  const int m = int(cudalab::kMaxGridYZ) * tile;  // the largest grid.y, times the tile
  const std::size_t a_count = std::size_t(m) * k;
  ASSERT_GT(a_count, std::size_t{1} << 31) << "the case must pass 2^31 elements";
  CUDALAB_REQUIRE_FREE_MEMORY(a_count * sizeof(float));
  cudalab::DeviceBuffer<float> d_a(a_count), d_b(std::size_t(k) * n), d_c(std::size_t(m) * n);
  cudalab::testing::CapturedWork cap = cudalab::testing::CapturedWork::capture(
      [&](cudaStream_t s) { launch(d_a.data(), d_b.data(), d_c.data(), m, n, k, s); });
  ASSERT_TRUE(cap.holds_only(rules(Shape{m, n, k})));
  const int first_past = static_cast<int>((std::size_t{1} << 31) / k);
  const int rows[] = {0, first_past - 1, first_past, first_past + 1, m - 33, m - 1};
  for (const std::uint32_t seed : {17u, 29u}) {
    const auto h_b =
        replay_range_set(cap, d_b, k, n, d_a.data(), a_count, d_c.data(), std::size_t(m) * n, seed);
    const std::vector<float> h_c = d_c.to_host();
    for (const int r : rows) {
      for (int c = 0; c < n; ++c) {
        double sum = 0.0;
        for (int i = 0; i < k; ++i) {
          sum +=
              double(hashed_small_int(std::size_t(r) * k + i, seed)) * h_b[std::size_t(i) * n + c];
        }
        ASSERT_EQ(h_c[std::size_t(r) * n + c], sum)
            << "C(" << r << ", " << c << ") of a " << m << "x" << n << "x" << k
            << " product (A's row " << r << " starts at element " << std::size_t(r) * k
            << "; past 2^31 an int offset overflows)";
      }
    }
  }
}

/// @p count floats from element @p offset of the device array @p d.
inline std::vector<float> fetch_floats(const float* d, std::size_t offset, std::size_t count) {
  std::vector<float> h(count);
  CUDA_CHECK(cudaMemcpy(h.data(), d + offset, count * sizeof(float), cudaMemcpyDeviceToHost));
  return h;
}

// Index range of B: B (k x n) holds more than 2^31 elements while A and C stay far below, so
// only an offset p * n computed in int overflows.

/**
 * Captures @p launch for an m x n x 1040 product with n = 2^21 (2^21 + 3 when @p odd_n): B
 * holds 1040 * n > 2^31 elements, its rows 1024.. start past the 2^31-element mark, and every
 * element of C sums over them. Checks the graph against @p rules, then replays it on two
 * data sets (B hashed on the device, A small integers) and checks every row of C at its first
 * five columns, three around the middle and the last five. Skips when the GPU lacks the memory.
 */
inline void expect_large_b_columns(const Launch& launch, const Rules& rules, int m, bool odd_n) {
  const int k = 1040;
  const int n = (1 << 21) + (odd_n ? 3 : 0);  // B's row p starts at p * n: past 2^31 from p = 1024
  const std::size_t b_count = std::size_t(k) * n;
  ASSERT_GT(b_count, std::size_t{1} << 31) << "the case must pass 2^31 elements of B";
  const std::size_t c_count = std::size_t(m) * n;
  const std::size_t bytes = (b_count + c_count + std::size_t(m) * k) * sizeof(float);
  CUDALAB_REQUIRE_FREE_MEMORY(bytes);
  cudalab::DeviceBuffer<float> d_a(std::size_t(m) * k), d_b(b_count), d_c(c_count);
  cudalab::testing::CapturedWork cap = cudalab::testing::CapturedWork::capture(
      [&](cudaStream_t s) { launch(d_a.data(), d_b.data(), d_c.data(), m, n, k, s); });
  ASSERT_TRUE(cap.holds_only(rules(Shape{m, n, k})));
  const int first_past = static_cast<int>((std::size_t{1} << 31) / n);  // B's first row past
  const int starts[] = {0, n / 2 - 1, n - 5};                           // 5, 3 and 5 columns
  const int widths[] = {5, 3, 5};
  for (const std::uint32_t seed : {17u, 29u}) {
    const auto h_a =
        replay_range_set(cap, d_a, m, k, d_b.data(), b_count, d_c.data(), c_count, seed);
    for (int r = 0; r < m; ++r) {
      for (int part = 0; part < 3; ++part) {
        const std::vector<float> got =
            fetch_floats(d_c.data(), std::size_t(r) * n + starts[part], std::size_t(widths[part]));
        for (int j = 0; j < widths[part]; ++j) {
          const int c = starts[part] + j;
          double sum = 0.0;
          for (int i = 0; i < k; ++i) {
            sum += double(h_a[std::size_t(r) * k + i]) *
                   hashed_small_int(std::size_t(i) * n + c, seed);
          }
          ASSERT_EQ(got[std::size_t(j)], sum)
              << "C(" << r << ", " << c << ") of a " << m << "x" << n << "x" << k
              << " product (B's rows from " << first_past << " on start past element 2^31: "
              << "an int offset p * n overflows there)";
        }
      }
    }
  }
}

// Index range of C: C (m x n) holds more than 2^31 elements while A and B stay far below, so
// only an offset row * n computed in int overflows.

/**
 * Captures @p launch for an m x n x 40 product with m = 65535 * @p tile rows (the largest
 * grid the launchers allow) and n a multiple of 4 (plus 3 when @p odd_n) just large enough
 * that C passes 2^31 elements. Checks the graph against @p rules, then replays it on two
 * data sets (A hashed on the device, B small integers) and checks whole rows of C around the
 * 2^31 mark and at the end. Skips when the GPU lacks the memory.
 */
inline void expect_large_c_rows(const Launch& launch, const Rules& rules, int tile, bool odd_n) {
  const int k = 40;
  const int m = int(cudalab::kMaxGridYZ) * tile;  // the largest grid.y, times the tile
  const int n =
      static_cast<int>(((std::size_t{1} << 31) / std::size_t(m) + 20) / 4 * 4) + (odd_n ? 3 : 0);
  const std::size_t c_count = std::size_t(m) * n;
  ASSERT_GT(c_count, std::size_t{1} << 31) << "the case must pass 2^31 elements of C";
  const std::size_t a_count = std::size_t(m) * k;
  const std::size_t bytes = (a_count + std::size_t(k) * n + c_count) * sizeof(float);
  CUDALAB_REQUIRE_FREE_MEMORY(bytes);
  cudalab::DeviceBuffer<float> d_a(a_count), d_b(std::size_t(k) * n), d_c(c_count);
  cudalab::testing::CapturedWork cap = cudalab::testing::CapturedWork::capture(
      [&](cudaStream_t s) { launch(d_a.data(), d_b.data(), d_c.data(), m, n, k, s); });
  ASSERT_TRUE(cap.holds_only(rules(Shape{m, n, k})));
  const int first_past = static_cast<int>((std::size_t{1} << 31) / n);  // C's first row past
  const int rows[] = {0, first_past - 1, first_past, first_past + 1, m - 33, m - 1};
  for (const std::uint32_t seed : {17u, 29u}) {
    const auto h_b =
        replay_range_set(cap, d_b, k, n, d_a.data(), a_count, d_c.data(), c_count, seed);
    for (const int r : rows) {
      const std::vector<float> got = fetch_floats(d_c.data(), std::size_t(r) * n, std::size_t(n));
      for (int c = 0; c < n; ++c) {
        double sum = 0.0;
        for (int i = 0; i < k; ++i) {
          sum +=
              double(hashed_small_int(std::size_t(r) * k + i, seed)) * h_b[std::size_t(i) * n + c];
        }
        ASSERT_EQ(got[std::size_t(c)], sum)
            << "C(" << r << ", " << c << ") of a " << m << "x" << n << "x" << k
            << " product (C's row " << r << " starts at element " << std::size_t(r) * n
            << "; past 2^31 an int offset row * n overflows)";
      }
    }
  }
}

}  // namespace matmul_grading
