// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 13: six SGEMM stages against cuBLAS SGEMM in the same run, the block swizzle
// (a bijection, on the CPU), the occupancy calculator (known cases on the CPU, the CUDA
// runtime's answer on the GPU) and stage 7's stream-K plan (on the CPU) and kernels. Every graded
// launcher runs under stream capture (the graph may hold only the lab's kernel: no cuBLAS, no host
// work), then on new inputs behind the same pointers, with NaN-poisoned outputs and shared memory.
//
// One test file per technique file of the lab (block_tiling_test.cu .. stream_k_test.cu); this
// one holds the checks every technique of lab13::kTechniques (stages 1-5) takes: correct on odd
// shapes, past 2^31 elements of each operand, with misaligned operands, and its share of cuBLAS.
// Their helpers are in sgemm_grading.cuh.

#include <cstddef>
#include <string>
#include <vector>

#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "sgemm_grading.cuh"

namespace {

using namespace lab13_grading;

// ---------------------------------------------------------------------------
// Correctness on odd shapes: 1 and 17, sizes one past a tile, rows that are not 16-byte
// aligned (n or k not multiples of 4: the scalar paths), k not a multiple of the k tile (8,
// 16), k = 1 with 16-byte rows of B, n = 1, rectangles both ways; small integers (exact) and
// uniform floats (tolerance). The pipeline's k-tile counts (1, 2, 3, 16, 33, 49, 65) leave every
// remainder modulo its 3 stages, and fewer tiles than its prologue fills (1).
// Shapes/<Technique>Gpu.CorrectOnOddShapes/<shape> for every technique.
// ---------------------------------------------------------------------------
const Shape kShapes[] = {{1, 1, 1},       {17, 17, 17},     {1, 300, 17},  {129, 260, 33},
                         {1000, 3, 777},  {257, 516, 1028}, {130, 68, 20}, {33, 1001, 515},
                         {256, 256, 256}, {40, 516, 1},     {300, 1, 40}};

void correct_on_odd_shapes(::testing::Test&, const lab13::Technique& t, const Shape& shape) {
  CUDALAB_REQUIRE_GPU();
  SCOPED_TRACE(std::string("stage ") + t.name);
  matmul_grading::expect_correct_product(t.launcher, rules_of(t), shape);
}

// ---------------------------------------------------------------------------
// Speed: each technique's share of cuBLAS SGEMM at 4096^3 in the same run (cuBLAS time /
// stage time), named "speedup" by its test, SgemmPerf.<Technique>ShareOfCublas; the bar and its
// provenance are the calibration's (tests/calibration/nvidia-h200.tsv on the reference GPU).
// ---------------------------------------------------------------------------

/// The stages whose share is also shown as a percentage with its tiers (not graded beyond the
/// pass bar; the tiers are the calibration's, record_percent_with_tiers()): stage 5.
constexpr lab13::SgemmLauncher kStagesWithTiers[] = {lab13::sgemm_swizzled};

void share_of_cublas(SgemmPerf& perf, const lab13::Technique& t) {
  const cudalab::Comparison cmp = perf.time_against_cublas(t);
  if (::testing::Test::HasFailure()) return;
  cudalab::testing::expect_speedup(
      cmp, std::string(t.name) + " share of cuBLAS SGEMM at 4096^3 (same run)");
  for (const lab13::SgemmLauncher launcher : kStagesWithTiers) {
    if (launcher != t.launcher) continue;
    record_percent_with_tiers(cmp, std::string(t.name) + "_percent_of_cublas");
  }
}

[[maybe_unused]] const bool kRegistered = [] {
  for_each_technique_and_shape("Shapes/{}Gpu.CorrectOnOddShapes", correct_on_odd_shapes, kShapes,
                               __FILE__, __LINE__);
  for_each_technique("SgemmPerf.{}ShareOfCublas", share_of_cublas, __FILE__, __LINE__);
  return true;
}();

// ---------------------------------------------------------------------------
// Index range: A holds more than 2^31 elements, so a row offset row * k computed in int
// overflows (tests/common/matmul_grading.cuh); n = 4 takes the 16-byte paths, n = 3 the
// scalar ones.
// ---------------------------------------------------------------------------
TEST(IndexRangeGpu, EveryStagePast2To31ElementsOfA) {
  CUDALAB_REQUIRE_GPU();
  for (const lab13::Technique& t : lab13::kTechniques) {
    for (const int n : {4, 3}) {
      SCOPED_TRACE(std::string("stage ") + t.name + ", n = " + std::to_string(n));
      matmul_grading::expect_large_a_rows(t.launcher, rules_of(t), 32, n);
      if (HasFatalFailure() || IsSkipped()) return;
    }
  }
}

/// Runs @p expect (expect_large_b_columns or expect_large_c_rows) on every technique, n a
/// multiple of 4 and odd; stops at the first fatal failure or skip.
void expect_every_technique_past_2_to_31(void (*expect)(const matmul_grading::Launch&,
                                                        const matmul_grading::Rules&, int, bool)) {
  for (const lab13::Technique& t : lab13::kTechniques) {
    for (const bool odd_n : {false, true}) {
      SCOPED_TRACE(std::string("stage ") + t.name + (odd_n ? ", odd n" : ", n a multiple of 4"));
      expect(t.launcher, rules_of(t), 32, odd_n);
      if (::testing::Test::HasFatalFailure() || ::testing::Test::IsSkipped()) return;
    }
  }
}

// B (1040 x 2^21, or 2^21 + 3 for the scalar paths) and C (2,097,120 rows x 1044 or 1047
// columns) past 2^31 elements, the other operands far below: p * n and row * n in 64 bits.
TEST(IndexRangeGpu, EveryStagePast2To31ElementsOfB) {
  CUDALAB_REQUIRE_GPU();
  expect_every_technique_past_2_to_31(matmul_grading::expect_large_b_columns);
}

TEST(IndexRangeGpu, EveryStagePast2To31ElementsOfC) {
  CUDALAB_REQUIRE_GPU();
  expect_every_technique_past_2_to_31(matmul_grading::expect_large_c_rows);
}

/// Rows that start off 16-byte boundaries although n % 4 == 0: one operand one float past an
/// aligned address, each of A, B and C alone (a launcher that checks only some of its pointers
/// takes the vector path on the other), then all three. The vector paths must not be taken
/// for a misaligned operand (a misaligned float4 access faults).
TEST(MisalignedGpu, EveryStageFallsBackToScalarAccesses) {
  CUDALAB_REQUIRE_GPU();
  const int m = 70, n = 132, k = 36;
  const auto h_a = cudalab::random_matrix(m, k, cudalab::Fill::SmallInt, 41);
  const auto h_b = cudalab::random_matrix(k, n, cudalab::Fill::SmallInt, 42);
  const auto want = cudalab::reference_matmul(h_a, h_b, m, n, k);
  cudalab::DeviceBuffer<float> d_a(h_a.size() + 1), d_b(h_b.size() + 1),
      d_c(std::size_t(m) * n + 1);
  struct Offsets {
    int a, b, c;
    const char* what;
  };
  const Offsets cases[] = {{1, 0, 0, "A alone one float past a 16-byte boundary"},
                           {0, 1, 0, "B alone one float past a 16-byte boundary"},
                           {0, 0, 1, "C alone one float past a 16-byte boundary"},
                           {1, 1, 1, "A, B and C one float past a 16-byte boundary"}};
  for (const Offsets& o : cases) {
    CUDA_CHECK(cudaMemcpy(d_a.data() + o.a, h_a.data(), h_a.size() * sizeof(float),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b.data() + o.b, h_b.data(), h_b.size() * sizeof(float),
                          cudaMemcpyHostToDevice));
    for (const lab13::Technique& t : lab13::kTechniques) {
      d_c.fill_bytes(0xFF);
      t.launcher(d_a.data() + o.a, d_b.data() + o.b, d_c.data() + o.c, m, n, k, nullptr);
      CUDA_CHECK(cudaDeviceSynchronize());
      const std::vector<float> got = d_c.to_host();
      EXPECT_TRUE(cudalab::testing::matrices_match(
          want, std::vector<float>(got.begin() + o.c, got.begin() + o.c + std::size_t(m) * n), m, n,
          0.0))
          << t.name << " with " << o.what;
    }
  }
}

}  // namespace
