// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 14, what spans its files (binary_mma.cuh), given and not graded: cuBLAS SGEMM,
// TF32 and INT8 exact on the same ±1 data, the AND-popc SASS rule of the mma.sync kernels' tests
// on hand-written listings and cuobjdump's output read as the grader expects, and cuBLAS recorded
// at 4096^3 against the pipelined kernel. One test file per technique file besides
// (popcount_vectors_test.cu, mma_naive_test.cu, mma_pipelined_test.cu, wgmma_persistent_test.cu,
// popcount_peak_test.cu); helpers in binary_mma_grading.cuh.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "binary_mma_grading.cuh"

namespace {

namespace bits = cudalab::bits;
namespace t = cudalab::testing;
using cudalab::kit::Shape;
using cudalab::kit::shape_name;
using cudalab::kit::sm_number;
using lab14_grading::and_popc_verdict;
using lab14_grading::PerfFixture;
using lab14_grading::place_mmas;
using lab14_grading::technique;
using t::CapturedWork;

// ---------------------------------------------------------------------------
// Given: the baselines are right (not graded).
// ---------------------------------------------------------------------------
const Shape kBaselineShapes[] = {{1, 1, 4}, {7, 9, 36}, {65, 40, 1000}, {130, 17, 1500}};

class GivenBaselinesGpu : public ::testing::TestWithParam<Shape> {};

TEST_P(GivenBaselinesGpu, CublasIsExact) {
  CUDALAB_REQUIRE_GPU();
  const int m = GetParam().m, n = GetParam().n, k = GetParam().k;
  const auto h_a = cudalab::random_matrix(m, k, cudalab::Fill::PlusMinusOne, 1);
  const auto h_b = cudalab::random_matrix(k, n, cudalab::Fill::PlusMinusOne, 2);
  const auto expected = cudalab::reference_matmul(h_a, h_b, m, n, k);
  cudalab::DeviceBuffer<float> d_c(std::size_t(m) * n);
  const auto check = [&](const char* what, auto launch) {
    d_c.fill_bytes(0xFF);
    launch();
    EXPECT_TRUE(t::matrices_match(expected, d_c.to_host(), m, n, 0.0)) << what;
  };
  const auto d_a = cudalab::DeviceBuffer(h_a);
  const auto d_b = cudalab::DeviceBuffer(h_b);
  const lab14::CublasHandle cublas;
  check("cuBLAS SGEMM",
        [&] { lab14::cublas_sgemm(cublas, d_a.data(), d_b.data(), d_c.data(), m, n, k); });
  check("cuBLAS TF32",
        [&] { lab14::cublas_tf32(cublas, d_a.data(), d_b.data(), d_c.data(), m, n, k); });
  std::vector<std::int8_t> a8(h_a.size()), b8(h_b.size());
  for (std::size_t i = 0; i < h_a.size(); ++i) a8[i] = static_cast<std::int8_t>(h_a[i]);
  for (int r = 0; r < k; ++r) {
    for (int j = 0; j < n; ++j)
      b8[std::size_t(j) * k + r] = static_cast<std::int8_t>(h_b[std::size_t(r) * n + j]);
  }
  const auto d_a8 = cudalab::DeviceBuffer(a8);
  const auto d_b8 = cudalab::DeviceBuffer(b8);
  cudalab::DeviceBuffer<std::int32_t> d_c32(std::size_t(m) * n);
  d_c32.fill_bytes(0xFF);
  lab14::cublas_int8(cublas, d_a8.data(), d_b8.data(), d_c32.data(), m, n, k);
  const auto got32 = d_c32.to_host();
  EXPECT_TRUE(
      t::matrices_match(expected, std::vector<float>(got32.begin(), got32.end()), m, n, 0.0))
      << "cuBLAS INT8";
}

INSTANTIATE_TEST_SUITE_P(Given, GivenBaselinesGpu, ::testing::ValuesIn(kBaselineShapes),
                         shape_name);

// ---------------------------------------------------------------------------
// The AND-popc rule (binary_mma_grading.cuh) and cuobjdump's output.
// ---------------------------------------------------------------------------
// Given (not graded): the rules above on hand-written listings, and cuobjdump's output read as
// this grader expects (architectures and function names found), so that a changed output format
// shows up as a failure here instead of silently skipped SASS tests.
TEST(GivenSassRulesCpu, AndMmaCountsOnlyInTheKernelsOwnCode) {
  const std::string bmma = "BMMA.168256.AND.POPC";
  // The solution's shape: MMAs in the loop, then EXIT.
  EXPECT_EQ(and_popc_verdict(place_mmas({"LDSM.16.M88.4", bmma, bmma, "EXIT", "BRA"})), "");
  // A legitimate subroutine (64-bit division) after the body: the body's MMA counts.
  EXPECT_EQ(and_popc_verdict(place_mmas(
                {"CALL.REL.NOINC", bmma, "EXIT", "BRA", "IMAD", "RET.REL.NODEC", "BRA"})),
            "");
  // A cold block after the last EXIT of a kernel without calls is still the kernel's code.
  EXPECT_EQ(and_popc_verdict(place_mmas({"BRA", "EXIT", bmma, "BRA"})), "");
  // ptxas's .xor.popc emulation: the kernel CALLs a routine of two AND MMAs on negated operands.
  const std::string xor_form = and_popc_verdict(
      place_mmas({"LDSM.16.M88.4", "CALL.REL.NOINC", "CALL.REL.NOINC", "EXIT", "BRA", "LOP3.LUT",
                  bmma, "LOP3.LUT", bmma, "IADD3", "RET.REL.NODEC", "BRA"}));
  EXPECT_NE(xor_form.find("emulates"), std::string::npos) << xor_form;
  EXPECT_NE(and_popc_verdict(place_mmas({"LDS", "POPC", "EXIT"})), "");
  EXPECT_NE(and_popc_verdict(place_mmas({"BMMA.88128.XOR.POPC", "EXIT"})), "");
  EXPECT_EQ(sm_number("sm_90a"), 90);
  EXPECT_EQ(sm_number("sm_80"), 80);
  EXPECT_EQ(sm_number(""), 0);
}

TEST(GivenSassListingCpu, CuobjdumpOutputIsReadAsExpected) {
  const t::SassListing& sass = t::sass_of_this_grader();
  if (!sass.skip_reason.empty()) GTEST_SKIP() << sass.skip_reason;
  ASSERT_FALSE(sass.functions.empty()) << "no `Function : <name>` line read from cuobjdump -sass:\n"
                                       << sass.excerpt;
  const std::string popcount = lab14::popcount_kernel().name;
  bool popcount_found = false;
  for (const t::SassFunction& f : sass.functions) {
    EXPECT_GT(sm_number(f.arch), 0) << f.name << ": no `arch = sm_NN` line before it";
    EXPECT_FALSE(f.opcodes.empty()) << f.name << ": no instruction read";
    popcount_found = popcount_found || f.name.find(popcount) != std::string::npos;
  }
  EXPECT_TRUE(popcount_found) << popcount << " not among the functions read";
}

// ---------------------------------------------------------------------------
// Given (recorded, not graded): cuBLAS SGEMM, TF32 and INT8 on the same ±1 data at 4096^3, and
// the pipelined kernel's speedup over each: the fair answer to "does it beat cuBLAS?".
// ---------------------------------------------------------------------------
class GivenCublasPerf : public PerfFixture {};

TEST_F(GivenCublasPerf, RecordsCublasOnTheSameData) {
  // Input set 0 unpacked: A row-major, B row-major (K x N) for SGEMM/TF32, and B by columns
  // (N x K) for INT8.
  const std::size_t count = std::size_t(n) * n;
  const std::vector<float> a = bits::unpack_rows(a32[0], n, n);
  const std::vector<float> b = bits::unpack_cols(b32[0], n, n);
  std::vector<std::int8_t> a8(count), b8(count);
  for (std::size_t i = 0; i < count; ++i) a8[i] = static_cast<std::int8_t>(a[i]);
  for (int e = 0; e < n; ++e) {
    for (int j = 0; j < n; ++j) {
      b8[std::size_t(j) * n + e] = static_cast<std::int8_t>(b[std::size_t(e) * n + j]);
    }
  }
  const auto d_a = cudalab::DeviceBuffer(a);
  const auto d_b = cudalab::DeviceBuffer(b);
  const auto d_a8 = cudalab::DeviceBuffer(a8);
  const auto d_b8 = cudalab::DeviceBuffer(b8);
  cudalab::DeviceBuffer<std::int32_t> d_c32(count);
  const lab14::CublasHandle handle;
  const CapturedWork cap = capture(technique("pipelined"));
  const std::pair<const char*, cudalab::GpuWork> baselines[] = {
      {"cublas_sgemm",
       [&](cudaStream_t s) {
         lab14::cublas_sgemm(handle, d_a.data(), d_b.data(), d_c_base.data(), n, n, n, s);
       }},
      {"cublas_tf32",
       [&](cudaStream_t s) {
         lab14::cublas_tf32(handle, d_a.data(), d_b.data(), d_c_base.data(), n, n, n, s);
       }},
      {"cublas_int8",
       [&](cudaStream_t s) {
         lab14::cublas_int8(handle, d_a8.data(), d_b8.data(), d_c32.data(), n, n, n, s);
       }},
  };
  for (const auto& [name, work] : baselines) {
    const cudalab::Comparison cmp = cudalab::compare(work, cap.as_work(), alternating());
    const double tops = 2.0 * double(n) * n * n / (cmp.baseline.median_ms * 1e9);
    t::record_measurement(std::string(name) + "_ms", cmp.baseline.median_ms, "ms");
    t::record_measurement(std::string(name) + "_tops", tops, "TOPS");
    t::record_measurement(std::string("pipelined_over_") + name, cmp.speedup, "x");
  }
  expect_output_correct("binary_mma_pipelined");
}

}  // namespace
