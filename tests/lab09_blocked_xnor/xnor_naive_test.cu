// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 09, xnor_naive.cu (given, not graded): the naive XNOR baselines of
// lab09::kTechniques, with __popc and with the table of popcount_table.cu, and cuBLAS SGEMM on
// the same ±1 data, exact on odd shapes: the references the speed tests race
// (blocked_xnor_test.cu). Helpers in blocked_xnor_grading.cuh.
#include <cstddef>
#include <cstdint>

#include "blocked_xnor_grading.cuh"

namespace {

using namespace lab09_grading;

// ---------------------------------------------------------------------------
// Given: the baselines are right (not graded).
// ---------------------------------------------------------------------------
const Shape kBaselineShapes[] = {{1, 1, 1}, {7, 9, 33}, {65, 40, 1000}, {130, 17, 1500}};

class GivenBaselinesGpu : public ::testing::TestWithParam<Shape> {};

TEST_P(GivenBaselinesGpu, NaiveXnorAndCublasAreExact) {
  CUDALAB_REQUIRE_GPU();
  const int m = GetParam().m, n = GetParam().n, k = GetParam().k;
  const auto h_a = cudalab::random_matrix(m, k, cudalab::Fill::PlusMinusOne, 1);
  const auto h_b = cudalab::random_matrix(k, n, cudalab::Fill::PlusMinusOne, 2);
  const auto expected = cudalab::reference_matmul(h_a, h_b, m, n, k);
  const auto d_a32 = cudalab::DeviceBuffer(bits::pack_rows(h_a, m, k));
  const auto d_b32_word_major = cudalab::DeviceBuffer(bits::pack_cols_word_major(h_b, k, n));
  cudalab::DeviceBuffer<float> d_c(std::size_t(m) * n);
  const auto check = [&](const char* what, auto launch) {
    d_c.fill_bytes(0xFF);
    launch();
    EXPECT_TRUE(cudalab::testing::matrices_match(expected, d_c.to_host(), m, n, 0.0)) << what;
  };
  const cudalab::DeviceBuffer<std::uint8_t> d_table = lab09::make_popcount_table();
  lab09::PackedOperands in;  // the naive kernels' operands: A by rows, B word-major
  in.a32 = d_a32.data();
  in.b32_word_major = d_b32_word_major.data();
  in.table = d_table.data();
  check("naive __popc",
        [&] { technique("naive_xnor_popc").launcher(in, d_c.data(), m, n, k, nullptr); });
  check("naive table",
        [&] { technique("naive_xnor_table").launcher(in, d_c.data(), m, n, k, nullptr); });
  const auto d_a = cudalab::DeviceBuffer(h_a);
  const auto d_b = cudalab::DeviceBuffer(h_b);
  const lab09::CublasHandle cublas;
  check("cuBLAS SGEMM",
        [&] { lab09::cublas_sgemm(cublas, d_a.data(), d_b.data(), d_c.data(), m, n, k); });
}

INSTANTIATE_TEST_SUITE_P(Given, GivenBaselinesGpu, ::testing::ValuesIn(kBaselineShapes),
                         shape_name);

}  // namespace
