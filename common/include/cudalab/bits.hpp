// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file bits.hpp
 * @brief Host reference for binary (±1) matrices: bit packing, popcount, binary matmul.
 *
 * Labs 08 and 09 store a ±1 matrix as bits and turn the multiply-accumulate of a dot
 * product into XOR (or XNOR) plus popcount. This header is the host-side truth the
 * graders compare device packers and binary kernels against.
 *
 * **Encoding.** +1 is stored as a 1 bit, -1 as a 0 bit. Any other value is rejected.
 *
 * **Bit order (LSB first).** Element k of a packed vector lives in word k / B at bit
 * k % B, where B is the word width (32 or 64) and bit b has weight 2^b. So element 0 is
 * the least significant bit of word 0, element 31 the most significant bit of word 0,
 * element 32 bit 0 of word 1, and so on.
 *
 * **Padding.** A vector of K elements takes words(K) = ceil(K / B) words; the
 * B * words(K) - K bits past element K-1 in the last word are zero.
 *
 * **Layouts.**
 * - pack_rows(A): A is M x K row-major; row i becomes words(K) consecutive words
 *   (result is M x words(K), row-major): word w of row i at [i * words(K) + w].
 * - pack_cols(B): B is K x N row-major; column j becomes words(K) consecutive words
 *   (result is N x words(K)): word w of column j at [j * words(K) + w]. Packing the
 *   columns of B is packing the rows of B transposed, so C[i][j] is the binary dot
 *   product of packed row i of A with packed row j of the packed B. The tiled kernels of
 *   lab 09 use this layout: a tile of B is 16 columns x 16 consecutive words, loaded
 *   exactly like the tile of A.
 * - pack_cols_word_major(B): the same words, stored word-major: words(K) x N, word w of
 *   column j at [w * N + j] (word w of all N columns side by side). Lab 08's
 *   one-block-per-row kernel uses it: the 32 lanes of a warp take 32 neighbouring
 *   columns j and read word w of each together, which is then one coalesced 128-byte
 *   read instead of 32 reads `words(K)` words apart. Each word packs the same 32
 *   elements of one column, in the same bit order, as in pack_cols().
 *
 * **Dot product.** For ±1 vectors x, y of length K with packed words p, q:
 * x·y = (number of equal bits) - (number of different bits) = K - 2 * popcount(p XOR q); the zero
 * padding bits are equal in both, so XOR ignores them. Counting the *equal* bits with XNOR instead
 * counts the padding bits as equal too, and the result needs the correction the lab calls `rest`:
 * x·y = 2 * (popcount(XNOR) - rest) - K with rest = B * words(K) - K.
 *
 * The 64-bit layout is byte-for-byte the 32-bit layout on a little-endian machine
 * whenever words32(K) is even (each 64-bit word is two 32-bit words, low one first).
 */
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace cudalab::bits {

/// Bits in a 32-bit packed word.
inline constexpr int kBits32 = 32;
/// Bits in a 64-bit packed word.
inline constexpr int kBits64 = 64;

/// Number of 32-bit words holding @p k bits: ceil(k / 32). @pre k >= 0
constexpr int words32(int k) {
  return (k + kBits32 - 1) / kBits32;
}
/// Number of 64-bit words holding @p k bits: ceil(k / 64). @pre k >= 0
constexpr int words64(int k) {
  return (k + kBits64 - 1) / kBits64;
}
/// Zero padding bits at the end of a 32-bit packed vector of @p k elements (`rest`).
constexpr int padding32(int k) {
  return words32(k) * kBits32 - k;
}
/// Zero padding bits at the end of a 64-bit packed vector of @p k elements.
constexpr int padding64(int k) {
  return words64(k) * kBits64 - k;
}

/// Number of set bits of @p x (portable; no compiler builtin needed).
int popcount(std::uint32_t x);
/// Number of set bits of @p x.
int popcount(std::uint64_t x);

/// 1 for +1, 0 for -1; throws std::invalid_argument for any other value.
std::uint32_t bit_of(float value);

/**
 * @brief Packs the rows of a ±1 row-major @p rows x @p k matrix into 32-bit words.
 * @return rows x words32(k) words, row-major (see the file comment for the bit order)
 * @throws std::invalid_argument on a size mismatch, negative sizes or a value other than ±1
 */
std::vector<std::uint32_t> pack_rows(const std::vector<float>& a, int rows, int k);

/**
 * @brief Packs the columns of a ±1 row-major @p k x @p cols matrix into 32-bit words.
 * @return cols x words32(k) words: column j's words at [j * words32(k) + w]
 * @throws std::invalid_argument on a size mismatch, negative sizes or a value other than ±1
 */
std::vector<std::uint32_t> pack_cols(const std::vector<float>& b, int k, int cols);

/**
 * @brief Packs the columns of a ±1 row-major @p k x @p cols matrix into 32-bit words,
 * stored word-major (lab 08's layout of B).
 * @return words32(k) x cols words: word w of column j at [w * cols + j]; the word itself
 *         is word w of column j of pack_cols() (the transpose of that cols x words32(k) array)
 * @throws std::invalid_argument on a size mismatch, negative sizes or a value other than ±1
 */
std::vector<std::uint32_t> pack_cols_word_major(const std::vector<float>& b, int k, int cols);

/// 64-bit version of pack_rows(): rows x words64(k) words.
std::vector<std::uint64_t> pack_rows64(const std::vector<float>& a, int rows, int k);

/// 64-bit version of pack_cols(): cols x words64(k) words.
std::vector<std::uint64_t> pack_cols64(const std::vector<float>& b, int k, int cols);

/**
 * @brief The inverse of pack_rows(): the ±1 row-major @p rows x @p k matrix whose rows
 * @p a_rows packs (padding bits are ignored). Graders use it to rebuild the float operands
 * of packed inputs a run actually read (e.g. cuBLAS on the same data).
 * @param a_rows rows x words32(k) words, row-major
 * @param rows   rows of the matrix
 * @param k      columns of the matrix (bits per packed row)
 * @throws std::invalid_argument when the packed size does not match rows and k
 */
std::vector<float> unpack_rows(const std::vector<std::uint32_t>& a_rows, int rows, int k);

/**
 * @brief The inverse of pack_cols(): the ±1 row-major @p k x @p cols matrix whose columns
 * @p b_cols packs (padding bits are ignored).
 * @param b_cols cols x words32(k) words: column j's words at [j * words32(k) + w]
 * @param k      rows of the matrix (bits per packed column)
 * @param cols   columns of the matrix
 * @throws std::invalid_argument when the packed size does not match k and cols
 */
std::vector<float> unpack_cols(const std::vector<std::uint32_t>& b_cols, int k, int cols);

/// 64-bit version of unpack_rows(): the inverse of pack_rows64().
std::vector<float> unpack_rows64(const std::vector<std::uint64_t>& a_rows, int rows, int k);

/// 64-bit version of unpack_cols(): the inverse of pack_cols64().
std::vector<float> unpack_cols64(const std::vector<std::uint64_t>& b_cols, int k, int cols);

/**
 * @brief Dot product of two packed ±1 vectors of @p k elements: k - 2 * popcount(XOR).
 * @param p, q words32(k) words each, padding bits zero
 * @param k    number of ±1 elements in each vector (K); k >= 0
 */
int binary_dot(const std::uint32_t* p, const std::uint32_t* q, int k);

/// 64-bit version of binary_dot(): words64(k) words each.
int binary_dot(const std::uint64_t* p, const std::uint64_t* q, int k);

/**
 * @brief C = A * B from packed operands: C[i][j] = binary_dot(row i of @p a_rows,
 * column j of @p b_cols), as floats (exactly what reference_matmul() gives for the
 * unpacked ±1 matrices).
 * @param a_rows pack_rows(A, m, k)
 * @param b_cols pack_cols(B, k, n)
 * @param m      rows of A and C
 * @param n      columns of B and C
 * @param k      columns of A = rows of B (unpacked elements per dot product)
 * @return m x n row-major
 * @throws std::invalid_argument when the packed sizes do not match m, n and k
 */
std::vector<float> binary_matmul(const std::vector<std::uint32_t>& a_rows,
                                 const std::vector<std::uint32_t>& b_cols, int m, int n, int k);

/**
 * @brief The rows @p row_begin .. @p row_end - 1 of binary_matmul(), (row_end -
 * row_begin) x n row-major: a cheap spot check of a large result.
 */
std::vector<float> binary_matmul_rows(const std::vector<std::uint32_t>& a_rows,
                                      const std::vector<std::uint32_t>& b_cols, int n, int k,
                                      int row_begin, int row_end);

/**
 * @brief C = A * B with B packed word-major: C[i][j] = the binary dot product of row i of
 * @p a_rows and column j of @p b_words, as floats (equal to binary_matmul() with
 * pack_cols(B), and to reference_matmul() of the unpacked ±1 matrices).
 * @param a_rows  pack_rows(A, m, k)
 * @param b_words pack_cols_word_major(B, k, n): word w of column j at [w * n + j]
 * @param m       rows of A and C
 * @param n       columns of B and C
 * @param k       columns of A = rows of B (unpacked elements per dot product)
 * @return m x n row-major
 * @throws std::invalid_argument when the packed sizes do not match m, n and k
 */
std::vector<float> binary_matmul_word_major(const std::vector<std::uint32_t>& a_rows,
                                            const std::vector<std::uint32_t>& b_words, int m, int n,
                                            int k);

/**
 * @brief The rows @p row_begin .. @p row_end - 1 of binary_matmul_word_major(),
 * (row_end - row_begin) x n row-major.
 */
std::vector<float> binary_matmul_word_major_rows(const std::vector<std::uint32_t>& a_rows,
                                                 const std::vector<std::uint32_t>& b_words, int n,
                                                 int k, int row_begin, int row_end);

}  // namespace cudalab::bits
