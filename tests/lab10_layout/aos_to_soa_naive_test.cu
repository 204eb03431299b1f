// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 10, the naive AoS -> SoA conversion (aos_to_soa_naive.cu, given: the baseline
// of the tiled one's speed test): exact on a few shapes (not graded).
#include <cstddef>
#include <vector>

#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/grading.hpp"
#include "cudalab/testing.hpp"
#include "layout.cuh"
#include "layout_grading.cuh"

namespace {

using namespace lab10_grading;

TEST(GivenNaiveConversionGpu, NaiveIsExact) {
  CUDALAB_REQUIRE_GPU();
  for (const Conversion c : {Conversion{33, 3}, Conversion{1000, 32}, Conversion{4097, 2}}) {
    const int n = c.rows, fields = c.cols;
    const std::size_t count = std::size_t(n) * fields;
    std::vector<float> aos(count);
    for (std::size_t e = 0; e < count; ++e) aos[e] = float(e % 1009) - 500.0f;
    const auto d_aos = cudalab::DeviceBuffer(aos);
    cudalab::DeviceBuffer<float> d_soa(count);
    d_soa.fill_bytes(0xFF);
    lab10::aos_to_soa_naive(d_aos.data(), d_soa.data(), n, fields);
    EXPECT_TRUE(cudalab::testing::matrices_match(host_soa(aos, n, fields), d_soa.to_host(), fields,
                                                 n, 0.0));
  }
}

}  // namespace
