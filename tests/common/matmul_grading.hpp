// Grading helpers shared by the graders of the tiled matmul labs (lab 04, shared memory;
// lab 12, prefetch): shapes, the launcher signature they capture, and the correctness check
// of one launcher on one shape (provenance by capture, poisoned memory, two data sets).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/graph_capture.cuh"
#include "cudalab/matrix.hpp"
#include "cudalab/testing.hpp"

namespace matmul_grading {

/// C (m x n) = A (m x k) * B (k x n).
struct Shape {
  int m;
  int n;
  int k;
};

inline std::string shape_text(const Shape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}
/// Test-name suffix of a parameterized shape, e.g. "129x65x257".
inline std::string shape_name(const ::testing::TestParamInfo<Shape>& p) {
  return shape_text(p.param);
}

/// A launcher call on a stream: what the tests capture.
using Launch = std::function<void(const float*, const float*, float*, int, int, int, cudaStream_t)>;

/// Graph rules: nothing but @p kernel (no copies, no memsets, no other kernel).
inline cudalab::testing::GraphRules only_kernel(const char* kernel) {
  cudalab::testing::GraphRules rules;
  rules.kernels = {kernel};
  return rules;
}

/// Relative tolerance for uniform [-1, 1) floats summed over k products in float.
inline double float_tolerance(int k) {
  return 1e-5 * std::sqrt(double(k)) + 1e-6;
}

/**
 * Captures @p launch for an m x n x k product, checks the graph holds only @p kernel, then
 * replays it on small integers (exact) and on uniform floats (tolerance). Before each replay
 * C is NaN and followed by sentinels that must survive, and every SM's shared memory is NaN.
 */
inline void expect_correct_product(const Launch& launch, const char* kernel, const Shape& s) {
  SCOPED_TRACE("m x n x k = " + shape_text(s));
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
  ASSERT_TRUE(cap.holds_only(only_kernel(kernel)));

  struct DataSet {
    cudalab::Fill fill;
    double tol;
  };
  const DataSet sets[] = {{cudalab::Fill::SmallInt, 0.0},
                          {cudalab::Fill::Uniform, float_tolerance(s.k)}};
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
}

}  // namespace matmul_grading
