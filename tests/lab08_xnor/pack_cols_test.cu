// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 08, pack_cols.cu: the columns of B packed word-major bit for bit as
// cudalab::bits::pack_cols_word_major does, under stream capture and replayed on new inputs
// behind the same pointers, and the packer's bandwidth as a share of a device-to-device copy.
// Helpers in xnor_grading.cuh.
#include <cstddef>
#include <string>
#include <vector>

#include "xnor_grading.cuh"

namespace {

namespace bits = cudalab::bits;
using lab08_grading::AlternatingInput;
using lab08_grading::CapturedWork;
using lab08_grading::kGuardWords;
using lab08_grading::only_kernel;
using lab08_grading::PackedLayout;
using lab08_grading::PackPerf;
using lab08_grading::PackShape;

class PackColsGpu : public ::testing::TestWithParam<PackShape> {};

TEST_P(PackColsGpu, MatchesHostPackerBitForBit) {
  CUDALAB_REQUIRE_GPU();
  const int n = GetParam().rows, k = GetParam().cols;
  cudalab::DeviceBuffer<float> d_b(std::size_t(k) * n);
  cudalab::DeviceBuffer<std::uint32_t> d_out(std::size_t(n) * bits::words32(k) + kGuardWords);
  const CapturedWork cap = CapturedWork::capture(
      [&](cudaStream_t s) { lab08::pack_cols(d_b.data(), d_out.data(), k, n, s); });
  ASSERT_TRUE(cap.holds_only(only_kernel(lab08::column_packing_kernel())));
  for (int run = 0; run < 2; ++run) {
    SCOPED_TRACE("replay " + std::to_string(run + 1) + " of the captured pack_cols");
    const auto h_b = cudalab::random_matrix(k, n, cudalab::Fill::PlusMinusOne, 20 + run);
    d_b.upload(h_b);
    lab08_grading::expect_replay_packs(
        cap, d_out, bits::pack_cols_word_major(h_b, k, n),
        PackedLayout{bits::words32(k), n, true, "column", "b_bits[w * N + v] (word-major)"},
        [&](int c, int e) { return e < k ? h_b[std::size_t(e) * n + c] : 0.0f; });
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, PackColsGpu, ::testing::ValuesIn(lab08_grading::kPackShapes),
                         cudalab::kit::shape_name);

TEST_F(PackPerf, PackColsReachesShareOfCopyBandwidth) {
  // B is cols x rows here (K = kPackPerfCols elements per column, rows columns).
  const int k = cols, n = rows;
  const std::vector<float> h[2] = {cudalab::random_matrix(k, n, cudalab::Fill::PlusMinusOne, 810),
                                   cudalab::random_matrix(k, n, cudalab::Fill::PlusMinusOne, 811)};
  AlternatingInput<float> in(h[0], h[1]);
  cudalab::DeviceBuffer<std::uint32_t> d_out(std::size_t(bits::words32(k)) * n);
  const CapturedWork cap = CapturedWork::capture(
      [&](cudaStream_t s) { lab08::pack_cols(in.live.data(), d_out.data(), k, n, s); });
  ASSERT_TRUE(cap.holds_only(only_kernel(lab08::column_packing_kernel())));
  judge(
      cap, in, d_out, n,  // word-major: word w of every column, then word w + 1
      [&](const std::vector<float>& b) { return bits::pack_cols_word_major(b, k, n); },
      "pack_cols");
}

}  // namespace
