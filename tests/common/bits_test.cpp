// SPDX-License-Identifier: BSD-3-Clause
// Unit tests of cudalab/bits.hpp (CPU only): the packers and binary references that
// labs 08 and 09 are graded against.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudalab/bits.hpp"
#include "cudalab/testing.hpp"

namespace {

namespace bits = cudalab::bits;

TEST(GivenBitsCpu, WordCountsAndPadding) {
  EXPECT_EQ(bits::words32(0), 0);
  EXPECT_EQ(bits::words32(1), 1);
  EXPECT_EQ(bits::words32(32), 1);
  EXPECT_EQ(bits::words32(33), 2);
  EXPECT_EQ(bits::words32(1000), 32);
  EXPECT_EQ(bits::words64(64), 1);
  EXPECT_EQ(bits::words64(65), 2);
  EXPECT_EQ(bits::padding32(1), 31);
  EXPECT_EQ(bits::padding32(32), 0);
  EXPECT_EQ(bits::padding32(1000), 24);
  EXPECT_EQ(bits::padding64(1000), 24);
  EXPECT_EQ(bits::padding64(33), 31);
}

TEST(GivenBitsCpu, PopcountMatchesBitByBitCount) {
  auto rng = cudalab::make_rng(11);
  for (int t = 0; t < 2000; ++t) {
    const std::uint64_t x = rng();
    int slow = 0;
    for (int b = 0; b < 64; ++b) slow += int((x >> b) & 1u);
    ASSERT_EQ(bits::popcount(x), slow) << std::hex << x;
    int slow32 = 0;
    for (int b = 0; b < 32; ++b) slow32 += int((x >> b) & 1u);
    ASSERT_EQ(bits::popcount(static_cast<std::uint32_t>(x)), slow32) << std::hex << x;
  }
  EXPECT_EQ(bits::popcount(0xFFFFFFFFu), 32);
  EXPECT_EQ(bits::popcount(~std::uint64_t{0}), 64);
}

TEST(GivenBitsCpu, PackRowsIsLsbFirstWithZeroPadding) {
  // Row 0: +1 at elements 0, 2 and 32; row 1: all -1 but element 33. K = 34 -> 2 words.
  const int k = 34;
  std::vector<float> a(2 * k, -1.0f);
  a[0] = a[2] = a[32] = 1.0f;
  a[k + 33] = 1.0f;
  const auto p = bits::pack_rows(a, 2, k);
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0], 0x5u);  // bits 0 and 2
  EXPECT_EQ(p[1], 0x1u);  // element 32 -> bit 0 of word 1; bits 2..31 are padding (zero)
  EXPECT_EQ(p[2], 0x0u);
  EXPECT_EQ(p[3], 0x2u);  // element 33 -> bit 1 of word 1
}

TEST(GivenBitsCpu, AllPlusOnePacksToOnesThenZeroPadding) {
  std::vector<float> a(1000, 1.0f);
  const auto p = bits::pack_rows(a, 1, 1000);
  ASSERT_EQ(p.size(), 32u);
  for (int w = 0; w < 31; ++w) EXPECT_EQ(p[w], 0xFFFFFFFFu) << "word " << w;
  EXPECT_EQ(p[31], 0x000000FFu) << "1000 = 31 * 32 + 8: 8 data bits, 24 zero padding bits";
}

TEST(GivenBitsCpu, PackColsEqualsPackRowsOfTheTranspose) {
  const int k = 45, n = 7;
  const auto b = cudalab::random_matrix(k, n, cudalab::Fill::PlusMinusOne, 2);
  std::vector<float> bt(b.size());
  for (int r = 0; r < k; ++r)
    for (int c = 0; c < n; ++c) bt[std::size_t(c) * k + r] = b[std::size_t(r) * n + c];
  EXPECT_EQ(bits::pack_cols(b, k, n), bits::pack_rows(bt, n, k));
  EXPECT_EQ(bits::pack_cols64(b, k, n), bits::pack_rows64(bt, n, k));
}

TEST(GivenBitsCpu, PackColsWordMajorPutsWordWOfColumnJAtWTimesNPlusJ) {
  // K = 34 (2 words), N = 3. Column 0: +1 at rows 0 and 33; column 1: +1 at row 1;
  // column 2: +1 at rows 31 and 32.
  const int k = 34, n = 3;
  std::vector<float> b(std::size_t(k) * n, -1.0f);
  b[0 * n + 0] = b[33 * n + 0] = 1.0f;
  b[1 * n + 1] = 1.0f;
  b[31 * n + 2] = b[32 * n + 2] = 1.0f;
  const auto p = bits::pack_cols_word_major(b, k, n);
  ASSERT_EQ(p.size(), 6u);
  // Word 0 of columns 0, 1, 2, then word 1 of columns 0, 1, 2.
  EXPECT_EQ(p[0], 0x1u);
  EXPECT_EQ(p[1], 0x2u);
  EXPECT_EQ(p[2], 0x80000000u);
  EXPECT_EQ(p[3], 0x2u);  // row 33 -> bit 1 of word 1; bits 2..31 are padding (zero)
  EXPECT_EQ(p[4], 0x0u);
  EXPECT_EQ(p[5], 0x1u);
}

TEST(GivenBitsCpu, PackColsWordMajorIsPackColsTransposed) {
  for (const int k : {1, 31, 32, 33, 100}) {
    for (const int n : {1, 7, 32}) {
      SCOPED_TRACE("K = " + std::to_string(k) + ", N = " + std::to_string(n));
      const auto b = cudalab::random_matrix(k, n, cudalab::Fill::PlusMinusOne, 50 + k + n);
      const auto by_column = bits::pack_cols(b, k, n);
      const auto by_word = bits::pack_cols_word_major(b, k, n);
      const int words = bits::words32(k);
      ASSERT_EQ(by_word.size(), by_column.size());
      for (int j = 0; j < n; ++j) {
        for (int w = 0; w < words; ++w) {
          ASSERT_EQ(by_word[std::size_t(w) * n + j], by_column[std::size_t(j) * words + w])
              << "word " << w << " of column " << j;
        }
      }
    }
  }
}

TEST(GivenBitsCpu, UnpackInvertsPackAndRejectsWrongSizes) {
  for (const int k : {1, 31, 32, 33, 64, 100}) {
    SCOPED_TRACE("K = " + std::to_string(k));
    const int m = 5, n = 7;
    const auto a = cudalab::random_matrix(m, k, cudalab::Fill::PlusMinusOne, 60 + k);
    const auto b = cudalab::random_matrix(k, n, cudalab::Fill::PlusMinusOne, 61 + k);
    EXPECT_EQ(bits::unpack_rows(bits::pack_rows(a, m, k), m, k), a);
    EXPECT_EQ(bits::unpack_cols(bits::pack_cols(b, k, n), k, n), b);
    EXPECT_EQ(bits::unpack_rows64(bits::pack_rows64(a, m, k), m, k), a);
    EXPECT_EQ(bits::unpack_cols64(bits::pack_cols64(b, k, n), k, n), b);
  }
  EXPECT_THROW(bits::unpack_rows(std::vector<std::uint32_t>(3), 2, 32), std::invalid_argument);
  EXPECT_THROW(bits::unpack_cols64(std::vector<std::uint64_t>(3), 65, 2), std::invalid_argument);
  EXPECT_THROW(bits::unpack_rows(std::vector<std::uint32_t>(), -1, 0), std::invalid_argument);
}

TEST(GivenBitsCpu, SixtyFourBitLayoutIsTwoThirtyTwoBitWordsLowFirst) {
  const int k = 100;  // words32 = 4 (even), words64 = 2
  const auto a = cudalab::random_matrix(3, k, cudalab::Fill::PlusMinusOne, 3);
  const auto p32 = bits::pack_rows(a, 3, k);
  const auto p64 = bits::pack_rows64(a, 3, k);
  ASSERT_EQ(p32.size(), 12u);
  ASSERT_EQ(p64.size(), 6u);
  for (std::size_t w = 0; w < p64.size(); ++w) {
    EXPECT_EQ(static_cast<std::uint32_t>(p64[w]), p32[2 * w]) << "low half of word " << w;
    EXPECT_EQ(static_cast<std::uint32_t>(p64[w] >> 32), p32[2 * w + 1])
        << "high half of word " << w;
  }
}

TEST(GivenBitsCpu, RejectsValuesOtherThanPlusMinusOneAndBadShapes) {
  std::vector<float> a{1.0f, -1.0f, 0.0f, 1.0f};
  EXPECT_THROW(bits::pack_rows(a, 2, 2), std::invalid_argument);
  EXPECT_THROW(bits::pack_cols(a, 2, 2), std::invalid_argument);
  std::vector<float> ok{1.0f, -1.0f, -1.0f, 1.0f};
  EXPECT_THROW(bits::pack_rows(ok, 3, 2), std::invalid_argument);
  EXPECT_THROW(bits::pack_cols64(ok, 1, 3), std::invalid_argument);
  EXPECT_THROW(bits::pack_cols_word_major(a, 2, 2), std::invalid_argument);
  EXPECT_THROW(bits::pack_cols_word_major(ok, 3, 2), std::invalid_argument);
  // Packed sizes that do not match M, N and K.
  const std::vector<std::uint32_t> two{0u, 0u};
  EXPECT_THROW(bits::binary_matmul_word_major(two, two, 2, 3, 5), std::invalid_argument);
  EXPECT_THROW(bits::binary_matmul_word_major(two, two, 3, 2, 5), std::invalid_argument);
  EXPECT_THROW(bits::binary_matmul_word_major_rows(two, two, 2, 5, 1, 3), std::invalid_argument);
}

TEST(GivenBitsCpu, BinaryDotOfKnownVectors) {
  // x = (+1, -1, +1), y = (+1, +1, -1): x.y = 1 - 1 - 1 = -1.
  const std::uint32_t p = 0b101, q = 0b011;
  EXPECT_EQ(bits::binary_dot(&p, &q, 3), -1);
  const std::uint64_t p64 = 0b101, q64 = 0b011;
  EXPECT_EQ(bits::binary_dot(&p64, &q64, 3), -1);
  // Equal vectors: x.x = K whatever the padding.
  const std::uint32_t zero = 0;
  EXPECT_EQ(bits::binary_dot(&zero, &zero, 31), 31);
}

TEST(GivenBitsCpu, BinaryMatmulEqualsFloatReferenceForAwkwardK) {
  for (const int k : {1, 31, 32, 33, 63, 64, 65, 1000}) {
    SCOPED_TRACE("K = " + std::to_string(k));
    const int m = 5, n = 9;
    const auto a = cudalab::random_matrix(m, k, cudalab::Fill::PlusMinusOne, 10 + k);
    const auto b = cudalab::random_matrix(k, n, cudalab::Fill::PlusMinusOne, 20 + k);
    const auto expected = cudalab::reference_matmul(a, b, m, n, k);
    const auto got =
        bits::binary_matmul(bits::pack_rows(a, m, k), bits::pack_cols(b, k, n), m, n, k);
    EXPECT_TRUE(cudalab::testing::matrices_match(expected, got, m, n, 0.0));
    const auto rows =
        bits::binary_matmul_rows(bits::pack_rows(a, m, k), bits::pack_cols(b, k, n), n, k, 2, 4);
    EXPECT_TRUE(cudalab::testing::matrices_match(
        std::vector<float>(expected.begin() + 2 * n, expected.begin() + 4 * n), rows, 2, n, 0.0));
  }
}

TEST(GivenBitsCpu, BinaryMatmulWordMajorEqualsFloatReferenceForAwkwardK) {
  for (const int k : {1, 31, 32, 33, 63, 64, 65, 1000}) {
    SCOPED_TRACE("K = " + std::to_string(k));
    const int m = 5, n = 9;
    const auto a = cudalab::random_matrix(m, k, cudalab::Fill::PlusMinusOne, 60 + k);
    const auto b = cudalab::random_matrix(k, n, cudalab::Fill::PlusMinusOne, 70 + k);
    const auto expected = cudalab::reference_matmul(a, b, m, n, k);
    const auto a_rows = bits::pack_rows(a, m, k);
    const auto b_words = bits::pack_cols_word_major(b, k, n);
    EXPECT_TRUE(cudalab::testing::matrices_match(
        expected, bits::binary_matmul_word_major(a_rows, b_words, m, n, k), m, n, 0.0));
    const auto rows = bits::binary_matmul_word_major_rows(a_rows, b_words, n, k, 2, 4);
    EXPECT_TRUE(cudalab::testing::matrices_match(
        std::vector<float>(expected.begin() + 2 * n, expected.begin() + 4 * n), rows, 2, n, 0.0));
  }
}

TEST(GivenBitsCpu, XnorCountWithRestCorrectionEqualsXorForm) {
  // The identity lab 08 teaches: 2 * (popcount(XNOR over all words) - rest) - K = K - 2 *
  // popcount(XOR).
  for (const int k : {1, 5, 31, 32, 33, 100, 1000}) {
    const auto x = cudalab::random_matrix(1, k, cudalab::Fill::PlusMinusOne, 30 + k);
    const auto y = cudalab::random_matrix(1, k, cudalab::Fill::PlusMinusOne, 40 + k);
    const auto p = bits::pack_rows(x, 1, k), q = bits::pack_rows(y, 1, k);
    int matches = 0;
    for (int w = 0; w < bits::words32(k); ++w)
      matches += bits::popcount(static_cast<std::uint32_t>(~(p[w] ^ q[w])));
    EXPECT_EQ(2 * (matches - bits::padding32(k)) - k, bits::binary_dot(p.data(), q.data(), k))
        << "K = " << k;
  }
}

}  // namespace
