// SPDX-License-Identifier: BSD-3-Clause
#include "cudalab/bits.hpp"

#include <stdexcept>
#include <string>

#include "cudalab/parallel.hpp"

namespace cudalab::bits {

int popcount(std::uint32_t x) {
  // SWAR: sum bits in pairs, nibbles, then bytes; the multiply adds the four bytes.
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  x = (x + (x >> 4)) & 0x0F0F0F0Fu;
  return static_cast<int>((x * 0x01010101u) >> 24);
}

int popcount(std::uint64_t x) {
  return popcount(static_cast<std::uint32_t>(x)) + popcount(static_cast<std::uint32_t>(x >> 32));
}

std::uint32_t bit_of(float value) {
  if (value == 1.0f) return 1u;
  if (value == -1.0f) return 0u;
  throw std::invalid_argument("bits: a binary matrix may hold only +1 and -1, found " +
                              std::to_string(value));
}

namespace {

void check_shape(const char* what, std::size_t size, int rows, int cols) {
  if (rows < 0 || cols < 0 || size != std::size_t(rows) * std::size_t(cols)) {
    throw std::invalid_argument(std::string(what) + ": the matrix holds " + std::to_string(size) +
                                " values, not " + std::to_string(rows) + " x " +
                                std::to_string(cols));
  }
}

/// Packs `count` vectors of `k` elements; element e of vector v is m[v * v_stride + e * e_stride].
template <typename Word>
std::vector<Word> pack(const std::vector<float>& m, int count, int k, std::size_t v_stride,
                       std::size_t e_stride) {
  constexpr int kWordBits = static_cast<int>(sizeof(Word) * 8);
  const std::size_t words = (std::size_t(k) + kWordBits - 1) / kWordBits;
  std::vector<Word> packed(std::size_t(count) * words, Word{0});  // padding bits stay zero
  // Vectors are packed on several threads (a 4096 x 4096 input takes milliseconds): each
  // writes only its own words.
  parallel_ranges(std::size_t(count), 64, [&](std::size_t first, std::size_t last) {
    for (std::size_t v = first; v < last; ++v) {
      Word* out = packed.data() + v * words;
      for (int e = 0; e < k; ++e) {
        const Word bit = static_cast<Word>(bit_of(m[v * v_stride + std::size_t(e) * e_stride]));
        out[e / kWordBits] |= bit << (e % kWordBits);  // LSB first
      }
    }
  });
  return packed;
}

/// The inverse of pack(): element e of vector v of `packed` (count vectors of k elements)
/// goes to m[v * v_stride + e * e_stride] as +1 or -1; m holds count * k elements.
template <typename Word>
std::vector<float> unpack(const char* what, const std::vector<Word>& packed, int count, int k,
                          std::size_t v_stride, std::size_t e_stride) {
  constexpr int kWordBits = static_cast<int>(sizeof(Word) * 8);
  if (count < 0 || k < 0) throw std::invalid_argument(std::string(what) + ": negative size");
  const std::size_t words = (std::size_t(k) + kWordBits - 1) / kWordBits;
  if (packed.size() != std::size_t(count) * words) {
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(packed.size()) +
                                " words, not " + std::to_string(count) + " vectors x " +
                                std::to_string(words));
  }
  std::vector<float> m(std::size_t(count) * std::size_t(k));
  parallel_ranges(std::size_t(count), 64, [&](std::size_t first, std::size_t last) {
    for (std::size_t v = first; v < last; ++v) {
      const Word* in = packed.data() + v * words;
      for (int e = 0; e < k; ++e) {
        const bool one = (in[e / kWordBits] >> (e % kWordBits)) & Word{1};
        m[v * v_stride + std::size_t(e) * e_stride] = one ? 1.0f : -1.0f;
      }
    }
  });
  return m;
}

template <typename Word>
int dot(const Word* p, const Word* q, int k) {
  constexpr int kWordBits = static_cast<int>(sizeof(Word) * 8);
  const int words = (k + kWordBits - 1) / kWordBits;
  int mismatches = 0;
  for (int w = 0; w < words; ++w) mismatches += popcount(static_cast<Word>(p[w] ^ q[w]));
  return k - 2 * mismatches;
}

}  // namespace

std::vector<std::uint32_t> pack_rows(const std::vector<float>& a, int rows, int k) {
  check_shape("pack_rows", a.size(), rows, k);
  return pack<std::uint32_t>(a, rows, k, std::size_t(k), 1);
}

std::vector<std::uint32_t> pack_cols(const std::vector<float>& b, int k, int cols) {
  check_shape("pack_cols", b.size(), k, cols);
  return pack<std::uint32_t>(b, cols, k, 1, std::size_t(cols));
}

std::vector<std::uint32_t> pack_cols_word_major(const std::vector<float>& b, int k, int cols) {
  check_shape("pack_cols_word_major", b.size(), k, cols);
  const std::vector<std::uint32_t> by_column =
      pack<std::uint32_t>(b, cols, k, 1, std::size_t(cols));
  const std::size_t words = std::size_t(words32(k));
  std::vector<std::uint32_t> packed(by_column.size());
  parallel_ranges(std::size_t(cols), 64, [&](std::size_t first, std::size_t last) {
    for (std::size_t j = first; j < last; ++j) {
      for (std::size_t w = 0; w < words; ++w) packed[w * cols + j] = by_column[j * words + w];
    }
  });
  return packed;
}

std::vector<std::uint64_t> pack_rows64(const std::vector<float>& a, int rows, int k) {
  check_shape("pack_rows64", a.size(), rows, k);
  return pack<std::uint64_t>(a, rows, k, std::size_t(k), 1);
}

std::vector<std::uint64_t> pack_cols64(const std::vector<float>& b, int k, int cols) {
  check_shape("pack_cols64", b.size(), k, cols);
  return pack<std::uint64_t>(b, cols, k, 1, std::size_t(cols));
}

std::vector<float> unpack_rows(const std::vector<std::uint32_t>& a_rows, int rows, int k) {
  return unpack("unpack_rows", a_rows, rows, k, std::size_t(k), 1);
}

std::vector<float> unpack_cols(const std::vector<std::uint32_t>& b_cols, int k, int cols) {
  return unpack("unpack_cols", b_cols, cols, k, 1, std::size_t(cols));
}

std::vector<float> unpack_rows64(const std::vector<std::uint64_t>& a_rows, int rows, int k) {
  return unpack("unpack_rows64", a_rows, rows, k, std::size_t(k), 1);
}

std::vector<float> unpack_cols64(const std::vector<std::uint64_t>& b_cols, int k, int cols) {
  return unpack("unpack_cols64", b_cols, cols, k, 1, std::size_t(cols));
}

int binary_dot(const std::uint32_t* p, const std::uint32_t* q, int k) {
  return dot(p, q, k);
}

int binary_dot(const std::uint64_t* p, const std::uint64_t* q, int k) {
  return dot(p, q, k);
}

std::vector<float> binary_matmul_rows(const std::vector<std::uint32_t>& a_rows,
                                      const std::vector<std::uint32_t>& b_cols, int n, int k,
                                      int row_begin, int row_end) {
  const std::size_t words = std::size_t(words32(k));
  if (n < 0 || k < 0 || row_begin < 0 || row_end < row_begin ||
      a_rows.size() < std::size_t(row_end) * words || b_cols.size() != std::size_t(n) * words) {
    throw std::invalid_argument("binary_matmul: packed sizes do not match the rows, N and K");
  }
  std::vector<float> c(std::size_t(row_end - row_begin) * n);
  for (int i = row_begin; i < row_end; ++i) {
    for (int j = 0; j < n; ++j) {
      c[std::size_t(i - row_begin) * n + j] = static_cast<float>(binary_dot(
          a_rows.data() + std::size_t(i) * words, b_cols.data() + std::size_t(j) * words, k));
    }
  }
  return c;
}

std::vector<float> binary_matmul(const std::vector<std::uint32_t>& a_rows,
                                 const std::vector<std::uint32_t>& b_cols, int m, int n, int k) {
  if (m < 0 || a_rows.size() != std::size_t(m) * std::size_t(words32(k))) {
    throw std::invalid_argument("binary_matmul: packed A is not M x words32(K)");
  }
  return binary_matmul_rows(a_rows, b_cols, n, k, 0, m);
}

std::vector<float> binary_matmul_word_major_rows(const std::vector<std::uint32_t>& a_rows,
                                                 const std::vector<std::uint32_t>& b_words, int n,
                                                 int k, int row_begin, int row_end) {
  const std::size_t words = std::size_t(words32(k));
  if (n < 0 || k < 0 || row_begin < 0 || row_end < row_begin ||
      a_rows.size() < std::size_t(row_end) * words || b_words.size() != std::size_t(n) * words) {
    throw std::invalid_argument(
        "binary_matmul_word_major: packed sizes do not match the rows, N and K");
  }
  std::vector<float> c(std::size_t(row_end - row_begin) * n);
  for (int i = row_begin; i < row_end; ++i) {
    const std::uint32_t* a_row = a_rows.data() + std::size_t(i) * words;
    for (int j = 0; j < n; ++j) {
      int different = 0;
      for (std::size_t w = 0; w < words; ++w) {
        different += popcount(static_cast<std::uint32_t>(a_row[w] ^ b_words[w * n + j]));
      }
      c[std::size_t(i - row_begin) * n + j] = static_cast<float>(k - 2 * different);
    }
  }
  return c;
}

std::vector<float> binary_matmul_word_major(const std::vector<std::uint32_t>& a_rows,
                                            const std::vector<std::uint32_t>& b_words, int m, int n,
                                            int k) {
  if (m < 0 || a_rows.size() != std::size_t(m) * std::size_t(words32(k))) {
    throw std::invalid_argument("binary_matmul_word_major: packed A is not M x words32(K)");
  }
  return binary_matmul_word_major_rows(a_rows, b_words, n, k, 0, m);
}

}  // namespace cudalab::bits
