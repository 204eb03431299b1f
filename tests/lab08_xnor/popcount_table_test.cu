// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 08, popcount_table.cu: the 256-entry popcount table built on the host, its
// device copy, and the XNOR kernel of the table technique counting with the table it is handed
// (under stream capture, replayed with NaN-poisoned outputs and shared memory). Helpers in
// xnor_grading.cuh.
#include <array>
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "xnor_grading.cuh"

namespace {

using namespace lab08_grading;

// ---------------------------------------------------------------------------
// CPU: the popcount table.
// ---------------------------------------------------------------------------
TEST(PopcountTableCpu, EveryEntryCountsTheBitsOfItsByte) {
  const std::array<std::uint8_t, 256> table = lab08::build_popcount_table();
  int wrong = 0;
  for (int i = 0; i < 256; ++i) {
    const int expected = static_cast<int>(std::bitset<8>(i).count());
    EXPECT_EQ(int(table[i]), expected)
        << "table[" << i << "] (binary " << std::bitset<8>(i) << ") should be its number of 1 bits";
    wrong += int(table[i]) != expected;
    if (wrong >= 8) {
      ADD_FAILURE() << "stopping after 8 wrong entries";
      break;
    }
  }
}

// ---------------------------------------------------------------------------
// GPU: the uploaded table.
// ---------------------------------------------------------------------------
TEST(PopcountTableGpu, UploadHoldsEveryCount) {
  CUDALAB_REQUIRE_GPU();
  const cudalab::DeviceBuffer<std::uint8_t> d_table = lab08::upload_popcount_table();
  ASSERT_EQ(d_table.size(), 256u);
  const std::vector<std::uint8_t> got = d_table.to_host();
  for (int i = 0; i < 256; ++i) {
    ASSERT_EQ(int(got[i]), bits::popcount(static_cast<std::uint32_t>(i)))
        << "device table entry " << i;
  }
}

// ---------------------------------------------------------------------------
// GPU: the table kernel reads the table it is given: handed
// cudalab::testing::weighted_popcount_table() (as valid a count as popcount, other numbers),
// its product must follow that table. A kernel that ignores the table (e.g. stages it, then
// counts with __popc) returns the ordinary product instead.
// ---------------------------------------------------------------------------
/// What the XNOR kernel computes with table @p t: the "equal bits" it sums are the table's
/// counts of the XNOR words (padding included), turned into a dot product as usual.
std::vector<float> product_with_table(const std::array<std::uint8_t, 256>& t,
                                      const std::vector<std::uint32_t>& a_bits,
                                      const std::vector<std::uint32_t>& b_bits, int m, int n,
                                      int k) {
  const int words = bits::words32(k);
  std::vector<float> c(std::size_t(m) * n);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      long long equal = 0;
      for (int w = 0; w < words; ++w) {
        const std::uint32_t x =
            ~(a_bits[std::size_t(i) * words + w] ^ b_bits[std::size_t(w) * n + j]);
        equal += t[x & 0xFFu] + t[(x >> 8) & 0xFFu] + t[(x >> 16) & 0xFFu] + t[x >> 24];
      }
      c[std::size_t(i) * n + j] = static_cast<float>(2 * (equal - bits::padding32(k)) - k);
    }
  }
  return c;
}

TEST(XnorTableGpu, ResultFollowsTheTableItIsGiven) {
  CUDALAB_REQUIRE_GPU();
  const auto table = cudalab::testing::weighted_popcount_table();
  cudalab::DeviceBuffer<std::uint8_t> d_table(256);
  d_table.upload(table.data());
  for (const MatmulShape shape : {MatmulShape{7, 9, 33}, MatmulShape{33, 65, 1000}}) {
    SCOPED_TRACE(std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" +
                 std::to_string(shape.k) + " with a weighted table (bit weights 3 0 1 2 0 1 1 0)");
    MatmulCase c(shape.m, shape.n, shape.k);
    const CapturedWork cap = CapturedWork::capture([&](cudaStream_t s) {
      lab08::xnor_matmul_table(c.d_a_bits.data(), c.d_b_bits.data(), d_table.data(), c.d_c.data(),
                               c.m, c.n, c.k, lab08::kSeedThreads, s);
    });
    ASSERT_TRUE(cap.holds_only(only_kernel(lab08::xnor_matmul_table_kernel())));
    c.load(300);
    EXPECT_TRUE(c.replay_matches(cap, product_with_table(table, c.a_bits, c.b_bits, c.m, c.n, c.k)))
        << "xnor_matmul_table must count bits with the table it is handed (d_table), not with "
           "__popc or a table of its own";
  }
}

}  // namespace
