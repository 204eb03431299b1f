// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 14, what spans its files (binary_mma.cuh): the checks the tensor-core kernels of
// lab14::kTechniques share, registered once over the table (exact on odd shapes, the AND-popc MMA
// in the SASS: the mma.sync kernels; the multiple of the popcount ceiling: all three); and, given
// and not graded, cuBLAS SGEMM, TF32 and INT8 exact on the same ±1 data, the AND-popc SASS rule
// on hand-written listings and cuobjdump's output read as the grader expects, and cuBLAS recorded
// at 4096^3 against the pipelined kernel. One test file per technique file besides, for what is
// a technique's own (popcount_vectors_test.cu, mma_naive_test.cu, mma_pipelined_test.cu,
// wgmma_persistent_test.cu, popcount_peak_test.cu); helpers in binary_mma_grading.cuh.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "binary_mma_grading.cuh"

namespace {

using namespace lab14_grading;

/// The mma.sync kernels (steps 1 and 2), which take compute capability 8.0 and the shapes below;
/// the persistent kernel (sm_90a) has its own shapes, skip and SASS tests
/// (wgmma_persistent_test.cu).
constexpr const char* kMmaSync[] = {"naive", "pipelined"};

// ---------------------------------------------------------------------------
// Exact, for M, N not multiples of the tiles and K not a multiple of 256 bits (nor of the
// 1024-bit stage); K = 1 and 300 end inside a 256-bit chunk, 257 one bit past it, 1500 after a
// full stage, 3072 fills exactly the ring of three stages, 3172 four stages (past the ring), 20001
// twenty stages; 24 x 40 is a multiple of the 8-row half tiles but not of 16 rows, and
// 257 x 300 x 3072 has three block tiles in each direction. Shapes/<Technique>MmaGpu.IsExact.
// ---------------------------------------------------------------------------
const Shape kMmaShapes[] = {{16, 8, 256},     {1, 1, 1},        {17, 9, 300},     {24, 40, 257},
                            {33, 47, 515},    {100, 1, 1024},   {1, 100, 1500},   {129, 130, 513},
                            {128, 128, 3172}, {257, 300, 3072}, {700, 900, 2000}, {5, 140, 20001}};

void is_exact(::testing::Test&, const lab14::Technique& tech, const Shape& shape) {
  CUDALAB_REQUIRE_CC(8, 0);
  expect_exact_on_two_inputs(shape, tech);
}

// ---------------------------------------------------------------------------
// The compiled kernel holds the AND-popc MMA in its own code (binary_mma_grading.cuh; an mma.sync
// kernel is one instance for every K). <Technique>SassCpu.KernelUsesTheAndPopcTensorCoreMma.
// ---------------------------------------------------------------------------
void kernel_uses_the_and_popc_tensor_core_mma(::testing::Test&, const lab14::Technique& tech) {
  expect_and_popc_mma(tech.kernel(0));
}

// ---------------------------------------------------------------------------
// Perf, 4096^3 bits (PerfFixture): the multiple of the popcount ceiling, skipped where the
// technique cannot run (its unavailable(), the launcher's own reason); the advanced part's also
// with its tiers above the bar (shown, not graded: the calibration's, tests/calibration/).
// <Technique>Perf.MultipleOfThePopcCeiling.
// ---------------------------------------------------------------------------
void multiple_of_the_popc_ceiling(PerfFixture& perf, const lab14::Technique& tech) {
  const std::string why = tech.unavailable != nullptr ? tech.unavailable() : "";
  if (!why.empty()) GTEST_SKIP() << why;
  const bool with_tiers = std::string_view(tech.name) == "persistent";
  perf.expect_ceiling_multiple(
      tech, with_tiers
                ? t::speed_tiers("binary_mma_persistent_x_popc_ceiling", {"good", "excellent"})
                : std::vector<t::Tier>{});
}

[[maybe_unused]] const bool kRegistered = [] {
  for_each_technique_and_shape(kMmaSync, "Shapes/{}MmaGpu.IsExact", is_exact, kMmaShapes, __FILE__,
                               __LINE__);
  for_each_technique(kMmaSync, "{}SassCpu.KernelUsesTheAndPopcTensorCoreMma",
                     kernel_uses_the_and_popc_tensor_core_mma, __FILE__, __LINE__);
  for_each_technique("{}Perf.MultipleOfThePopcCeiling", multiple_of_the_popc_ceiling, __FILE__,
                     __LINE__);
  return true;
}();

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
