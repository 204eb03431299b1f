// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 08, what spans its files (xnor.cuh): the device packers feeding the XNOR matmul
// in one captured graph, the launchers' argument checks, every launcher recomputing when the
// data behind its pointers changes, and the sanitizers on the packers and the XNOR kernels.
// One test file per technique file besides (pack_rows_test.cu, pack_cols_test.cu,
// popcount_table_test.cu, xnor_matmul_test.cu); helpers in xnor_grading.cuh.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "xnor_grading.cuh"

namespace {

using namespace lab08_grading;

TEST(XnorPipelineGpu, DevicePackersThenMatmulEqualFloatMatmul) {
  CUDALAB_REQUIRE_GPU();
  const int m = 301, n = 203, k = 1000;
  const int words = bits::words32(k);
  cudalab::DeviceBuffer<float> d_a(std::size_t(m) * k), d_b(std::size_t(k) * n),
      d_c(std::size_t(m) * n);
  cudalab::DeviceBuffer<std::uint32_t> d_a_bits(std::size_t(m) * words),
      d_b_bits(std::size_t(words) * n);
  const CapturedWork cap = CapturedWork::capture([&](cudaStream_t s) {
    lab08::pack_rows(d_a.data(), d_a_bits.data(), m, k, s);
    lab08::pack_cols(d_b.data(), d_b_bits.data(), k, n, s);
    lab08::xnor_matmul_popc(d_a_bits.data(), d_b_bits.data(), d_c.data(), m, n, k,
                            lab08::kSeedThreads, s);
  });
  GraphRules rules;
  rules.kernels = {lab08::row_packing_kernel().name, lab08::column_packing_kernel().name,
                   lab08::xnor_matmul_popc_kernel().name};
  ASSERT_TRUE(cap.holds_only(rules));
  const auto h_a = cudalab::random_matrix(m, k, cudalab::Fill::PlusMinusOne, 700);
  const auto h_b = cudalab::random_matrix(k, n, cudalab::Fill::PlusMinusOne, 701);
  d_a.upload(h_a);
  d_b.upload(h_b);
  cudalab::testing::poison(d_a_bits.data(), d_a_bits.bytes());
  cudalab::testing::poison(d_b_bits.data(), d_b_bits.bytes());
  cudalab::testing::poison(d_c.data(), d_c.bytes());
  cudalab::testing::poison_shared_memory();
  cap.run();
  EXPECT_TRUE(cudalab::testing::matrices_match(cudalab::reference_matmul(h_a, h_b, m, n, k),
                                               d_c.to_host(), m, n, 0.0));
}

TEST(XnorLaunchGpu, RejectsBadArguments) {
  CUDALAB_REQUIRE_GPU();
  cudalab::DeviceBuffer<std::uint32_t> d_w(4);
  cudalab::DeviceBuffer<float> d_c(4);
  EXPECT_THROW(lab08::xnor_matmul_popc(d_w.data(), d_w.data(), d_c.data(), 0, 2, 2),
               std::invalid_argument);
  EXPECT_THROW(lab08::xnor_matmul_popc(d_w.data(), d_w.data(), d_c.data(), 2, 2, 2, 2000),
               std::invalid_argument);
  EXPECT_THROW(lab08::xnor_matmul_popc(d_w.data(), d_w.data(), d_c.data(), 2, 2, 2, 0),
               std::invalid_argument);
  const cudalab::DeviceBuffer<std::uint8_t> d_table = lab08::upload_popcount_table();
  EXPECT_THROW(
      lab08::xnor_matmul_table(d_w.data(), d_w.data(), d_table.data(), d_c.data(), 2, 0, 2),
      std::invalid_argument);
  EXPECT_THROW(
      lab08::xnor_matmul_table(d_w.data(), d_w.data(), d_table.data(), d_c.data(), 2, 2, 2, 1025),
      std::invalid_argument);
  cudalab::DeviceBuffer<float> d_f(4);
  EXPECT_THROW(lab08::pack_rows(d_f.data(), d_w.data(), 0, 2), std::invalid_argument);
  EXPECT_THROW(lab08::pack_rows(d_f.data(), d_w.data(), 2, -1), std::invalid_argument);
  EXPECT_THROW(lab08::pack_cols(d_f.data(), d_w.data(), 0, 2), std::invalid_argument);
  EXPECT_THROW(lab08::pack_cols(d_f.data(), d_w.data(), 2, 0), std::invalid_argument);
  // Then a valid call must still work: 2x2 with K = 2, all +1 (bits 0b11; one word per
  // vector, so both layouts coincide): C = 2 everywhere.
  const std::vector<std::uint32_t> ones{0x3u, 0x3u, 0x3u, 0x3u};
  d_w.upload(ones);
  d_c.fill_bytes(0xFF);  // NaN
  lab08::xnor_matmul_popc(d_w.data(), d_w.data(), d_c.data(), 2, 2, 2);
  EXPECT_EQ(d_c.to_host(), (std::vector<float>{2, 2, 2, 2}))
      << "all +1, K = 2 (30 padding bits per word): every dot product is 2";
}

// ---------------------------------------------------------------------------
// GPU: same buffers, new data. Every launcher is called directly (not captured) three times
// with the same pointers, sizes and threads, new ±1 data behind the pointers before each
// call: a launcher that remembers its last call and, called again with the same arguments,
// skips the work or launches an empty kernel returns a stale (here: still poisoned) result.
// The graph replays of the other tests cannot see it: a graph holds the launch made once,
// under capture.
// The XNOR launchers are those of lab08::kTechniques.
// ---------------------------------------------------------------------------
TEST(XnorLaunchGpu, EveryLauncherRecomputesWhenTheDataBehindItsPointersChanges) {
  CUDALAB_REQUIRE_GPU();
  const int m = 33, n = 65, k = 1000;
  expect_packer_recomputes(kRowPacker, m, k, 30);
  expect_packer_recomputes(kColumnPacker, n, k, 35);
  const cudalab::DeviceBuffer<std::uint8_t> d_table = lab08::upload_popcount_table();
  MatmulCase c(m, n, k);
  for (const int threads : {lab08::kSeedThreads, 256}) {
    const std::string block = " <<<" + std::to_string(m) + ", " + std::to_string(threads) + ">>>";
    const auto load = [&](int round) {
      c.load(40 + 2 * std::uint64_t(round) + std::uint64_t(threads));
      cudalab::testing::poison(c.d_c.data(), c.d_c.bytes());
    };
    const auto check = [&](int) {
      EXPECT_TRUE(cudalab::testing::matrices_match(c.expected, c.d_c.to_host(), m, n, 0.0));
    };
    for (const lab08::Technique& t : lab08::kTechniques) {
      kit::expect_fresh_results_on_same_buffers(
          std::string("xnor_matmul_") + t.name + block, load,
          [&](cudaStream_t s) {
            t.launcher(c.d_a_bits.data(), c.d_b_bits.data(), d_table.data(), c.d_c.data(), m, n, k,
                       threads, s);
          },
          check);
    }
    if (HasFailure()) return;
  }
}

// ---------------------------------------------------------------------------
// Sanitizers: the packers (warp ballot), the XNOR kernel (both popcounts, every block size).
// ---------------------------------------------------------------------------
constexpr const char* kSanitizedTests =
    "Shapes/PackRowsGpu.*/257x95:Shapes/PackColsGpu.*/257x95:Shapes/XnorMatmulGpu.*/7x9x33:"
    "Shapes/XnorMatmulGpu.*/17x257x1025";
CUDALAB_SANITIZER_SUITE(XnorSanitizer, kSanitizedTests, racecheck)
// synccheck also checks the packers' warp-synchronous ballot (hence the test's name).
CUDALAB_SANITIZER_TEST(XnorSanitizer, SynccheckFindsNoInvalidBarrierOrWarpSync, "synccheck",
                       kSanitizedTests)
CUDALAB_SANITIZER_SUITE(XnorSanitizer, kSanitizedTests, memcheck)

}  // namespace
