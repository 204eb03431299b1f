// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 08, pack_rows.cu: the rows of A packed bit for bit as cudalab::bits::pack_rows
// does, under stream capture and replayed on new inputs behind the same pointers, and the
// packer's bandwidth as a share of a device-to-device copy. Helpers in xnor_grading.cuh.
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

class PackRowsGpu : public ::testing::TestWithParam<PackShape> {};

TEST_P(PackRowsGpu, MatchesHostPackerBitForBit) {
  CUDALAB_REQUIRE_GPU();
  const int m = GetParam().rows, k = GetParam().cols;
  cudalab::DeviceBuffer<float> d_a(std::size_t(m) * k);
  cudalab::DeviceBuffer<std::uint32_t> d_out(std::size_t(m) * bits::words32(k) + kGuardWords);
  const CapturedWork cap = CapturedWork::capture(
      [&](cudaStream_t s) { lab08::pack_rows(d_a.data(), d_out.data(), m, k, s); });
  ASSERT_TRUE(cap.holds_only(only_kernel(lab08::row_packing_kernel())));
  for (int run = 0; run < 2; ++run) {  // two inputs behind the same pointer
    SCOPED_TRACE("replay " + std::to_string(run + 1) + " of the captured pack_rows");
    const auto h_a = cudalab::random_matrix(m, k, cudalab::Fill::PlusMinusOne, 10 + run);
    d_a.upload(h_a);
    lab08_grading::expect_replay_packs(
        cap, d_out, bits::pack_rows(h_a, m, k),
        PackedLayout{bits::words32(k), m, false, "row", "a_bits[v * words + w] (row-major)"},
        [&](int r, int e) { return e < k ? h_a[std::size_t(r) * k + e] : 0.0f; });
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, PackRowsGpu, ::testing::ValuesIn(lab08_grading::kPackShapes),
                         cudalab::kit::shape_name);

TEST_F(PackPerf, PackRowsReachesShareOfCopyBandwidth) {
  const std::vector<float> h[2] = {
      cudalab::random_matrix(rows, cols, cudalab::Fill::PlusMinusOne, 800),
      cudalab::random_matrix(rows, cols, cudalab::Fill::PlusMinusOne, 801)};
  AlternatingInput<float> in(h[0], h[1]);
  cudalab::DeviceBuffer<std::uint32_t> d_out(std::size_t(rows) * bits::words32(cols));
  const CapturedWork cap = CapturedWork::capture(
      [&](cudaStream_t s) { lab08::pack_rows(in.live.data(), d_out.data(), rows, cols, s); });
  ASSERT_TRUE(cap.holds_only(only_kernel(lab08::row_packing_kernel())));
  judge(
      cap, in, d_out, bits::words32(cols),
      [&](const std::vector<float>& a) { return bits::pack_rows(a, rows, cols); }, "pack_rows");
}

}  // namespace
