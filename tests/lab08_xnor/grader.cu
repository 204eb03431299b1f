// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 08: packing ±1 matrices into bits, the popcount table, XNOR + popcount
// matmul with the padding correction, and its speed against the float one-block-per-row kernel.
// Every graded launcher runs under stream capture (the graph may hold only the lab's own
// kernel), then on new inputs behind the same pointers, with NaN-poisoned outputs and shared
// memory.
#include <array>
#include <bitset>
#include <cstddef>
#include <cstdio>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/kit.cuh"
#include "cudalab/bits.hpp"
#include "cudalab/ceilings.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/grading.hpp"
#include "cudalab/graph_capture.cuh"
#include "cudalab/testing.hpp"
#include "cudalab/tools.hpp"
#include "xnor.cuh"

namespace {

// ---------------------------------------------------------------------------
// Speed bars: each perf test names its bar ("speedup", "share", ...), and its number and
// provenance are the calibration's (tests/calibration/nvidia-h200.tsv on the reference GPU).
// ---------------------------------------------------------------------------
/// Side of the square matrices of the speed tests (a published XNOR-GEMM experiment, scaled up).
constexpr int kPerfSize = 4096;
/// Rows x columns of the packers' speed test (128 MB of floats).
constexpr int kPackPerfRows = 4096;
constexpr int kPackPerfCols = 8192;

namespace bits = cudalab::bits;
using cudalab::kit::only_kernel;
using cudalab::testing::AlternatingInput;
using cudalab::testing::CapturedWork;
using cudalab::testing::GraphRules;

std::string hex(std::uint32_t x) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08X", x);
  return buf;
}

/// Where packed word w of vector v lives: rows of A at [v * words + w] (vector-major),
/// columns of B at [w * vectors + v] (word-major).
struct PackedLayout {
  int words;        ///< words per vector, words32(K)
  int vectors;      ///< M for the rows of A, N for the columns of B
  bool word_major;  ///< true: [w * vectors + v]; false: [v * words + w]
  const char* vector_name;
  const char* description;  ///< the index formula, for the message
};

/**
 * Compares packed words: on failure names the first wrong word (vector, word), both values
 * in hex, the first wrong bit, the element it stands for and what that element is.
 * @param element  the unpacked value of element e of vector v (for the message)
 */
template <typename ElementOf>
::testing::AssertionResult words_match(const std::vector<std::uint32_t>& expected,
                                       const std::vector<std::uint32_t>& got,
                                       const PackedLayout& layout, ElementOf element) {
  if (expected.size() != got.size()) {
    return ::testing::AssertionFailure()
           << "size " << got.size() << ", expected " << expected.size();
  }
  std::size_t wrong = 0;
  std::size_t first = expected.size();
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (expected[i] != got[i]) {
      if (wrong++ == 0) first = i;
    }
  }
  if (wrong == 0) return ::testing::AssertionSuccess();
  const int v = static_cast<int>(layout.word_major ? first % layout.vectors : first / layout.words);
  const int w = static_cast<int>(layout.word_major ? first / layout.vectors : first % layout.words);
  const char* vector_name = layout.vector_name;
  const std::uint32_t diff = expected[first] ^ got[first];
  int bit = 0;
  while (((diff >> bit) & 1u) == 0) ++bit;
  const int e = w * 32 + bit;
  std::ostringstream os;
  os << wrong << " of " << expected.size() << " packed words differ; first: " << vector_name << " "
     << v << ", word " << w << ": expected " << hex(expected[first]) << ", got " << hex(got[first])
     << ". Lowest wrong bit " << bit << " = element " << e << " of that " << vector_name;
  if (got[first] == 0xFFFFFFFFu)
    os << " (the word still holds the 0xFFFFFFFF poison: never written)";
  const float value = element(v, e);
  if (value == 0.0f) {
    os << ", a padding bit (past K): must be 0";
  } else {
    os << ", whose value is " << (value > 0 ? "+1 (bit 1)" : "-1 (bit 0)");
  }
  os << ". Layout: element e in word e / 32, bit e % 32 (LSB first); word w of " << vector_name
     << " v at " << layout.description << "; " << cudalab::seed_note();
  return ::testing::AssertionFailure() << os.str();
}

// ---------------------------------------------------------------------------
// CPU: the popcount table and the padding correction.
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

TEST(XnorDotCpu, PaddingBitsIsTheSeedsRest) {
  for (int k = 1; k <= 2100; ++k) {
    ASSERT_EQ(lab08::padding_bits(k), bits::padding32(k))
        << "padding_bits(" << k << "): " << bits::words32(k) << " words hold "
        << 32 * bits::words32(k) << " bits, " << k << " of them data";
  }
}

TEST(XnorDotCpu, AllEqualAndAllDifferentVectors) {
  for (const int k : {1, 31, 32, 33, 64, 1000}) {
    const int all_bits = 32 * bits::words32(k);
    EXPECT_EQ(lab08::xnor_dot(k, all_bits), k)
        << "K = " << k << ": every bit equal (" << all_bits << " with padding) is x.x = K";
    EXPECT_EQ(lab08::xnor_dot(k, bits::padding32(k)), -k)
        << "K = " << k << ": only the " << bits::padding32(k)
        << " padding bits equal means every element differs: x.y = -K";
  }
}

TEST(XnorDotCpu, EqualsTheHostBinaryDotForRandomVectors) {
  for (const int k : {1, 2, 5, 31, 32, 33, 63, 65, 100, 999, 1000, 1001}) {
    for (int trial = 0; trial < 20; ++trial) {
      const auto x = cudalab::random_matrix(1, k, cudalab::Fill::PlusMinusOne, 100 * k + 2 * trial);
      const auto y =
          cudalab::random_matrix(1, k, cudalab::Fill::PlusMinusOne, 100 * k + 2 * trial + 1);
      const auto p = bits::pack_rows(x, 1, k), q = bits::pack_rows(y, 1, k);
      int equal = 0;
      for (int w = 0; w < bits::words32(k); ++w) {
        equal += bits::popcount(static_cast<std::uint32_t>(~(p[w] ^ q[w])));
      }
      ASSERT_EQ(lab08::xnor_dot(k, equal), bits::binary_dot(p.data(), q.data(), k))
          << "K = " << k << ", " << equal << " equal bits (of which " << bits::padding32(k)
          << " padding); " << cudalab::seed_note();
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
// GPU: packers, bit for bit against cudalab::bits. Each packer is captured once (the graph
// may hold only its kernel), then replayed on a second input behind the same pointer.
// ---------------------------------------------------------------------------
/// rows: vectors packed (M for rows of A, N for columns of B); cols: elements per vector (K).
using PackShape = cudalab::kit::Extent;

const PackShape kPackShapes[] = {{1, 1},    {1, 31},   {3, 32},    {5, 33},    {17, 1000}, {64, 64},
                                 {1000, 1}, {257, 95}, {33, 4097}, {2, 20000}, {3, 70001}};

constexpr std::size_t kGuardWords = 64;  // sentinel words after the packed output
constexpr std::uint32_t kSentinel = 0x5EE7CAFEu;

/// Poisons the packed output (0xFFFFFFFF) followed by sentinel words and the shared memory
/// of every SM, replays @p cap, then checks the packed words bit for bit and that nothing
/// past them was written.
template <typename ElementOf>
void expect_replay_packs(const CapturedWork& cap, cudalab::DeviceBuffer<std::uint32_t>& d_out,
                         const std::vector<std::uint32_t>& expected, const PackedLayout& layout,
                         ElementOf element) {
  std::vector<std::uint32_t> h_out(expected.size(), 0xFFFFFFFFu);  // poison
  h_out.resize(expected.size() + kGuardWords, kSentinel);
  ASSERT_EQ(d_out.size(), h_out.size());
  d_out.upload(h_out);
  cudalab::testing::poison_shared_memory();
  cap.run();
  const auto got = d_out.to_host();
  const std::vector<std::uint32_t> got_words(got.begin(), got.begin() + expected.size());
  EXPECT_TRUE(words_match(expected, got_words, layout, element));
  for (std::size_t i = expected.size(); i < got.size(); ++i) {
    ASSERT_EQ(got[i], kSentinel) << "word " << i - expected.size()
                                 << " past the end of the packed matrix was written";
  }
}

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
    expect_replay_packs(
        cap, d_out, bits::pack_rows(h_a, m, k),
        PackedLayout{bits::words32(k), m, false, "row", "a_bits[v * words + w] (row-major)"},
        [&](int r, int e) { return e < k ? h_a[std::size_t(r) * k + e] : 0.0f; });
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, PackRowsGpu, ::testing::ValuesIn(kPackShapes),
                         cudalab::kit::shape_name);

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
    expect_replay_packs(
        cap, d_out, bits::pack_cols_word_major(h_b, k, n),
        PackedLayout{bits::words32(k), n, true, "column", "b_bits[w * N + v] (word-major)"},
        [&](int c, int e) { return e < k ? h_b[std::size_t(e) * n + c] : 0.0f; });
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, PackColsGpu, ::testing::ValuesIn(kPackShapes),
                         cudalab::kit::shape_name);

// ---------------------------------------------------------------------------
// GPU: XNOR matmul, exactly the float matmul of the same ±1 matrices.
// ---------------------------------------------------------------------------
using MatmulShape = cudalab::kit::Shape;

/// K = 20001 and 70001 go far past the 4100 of the first version: a kernel that stages a
/// packed row in a fixed-size buffer fails there.
const MatmulShape kMatmulShapes[] = {
    {1, 1, 1},     {1, 7, 31},     {5, 3, 32},    {7, 9, 33},      {33, 65, 1000},
    {64, 1, 1000}, {1, 130, 1000}, {100, 77, 63}, {17, 257, 1025}, {300, 200, 999},
    {2, 3, 4100},  {9, 70, 20001}, {3, 2, 70001}};

/// Block sizes the launchers accept, at both edges (1 and 1024) and between.
const int kThreadCounts[] = {lab08::kSeedThreads, 256, 100, 1, 1024};

/// Packed inputs (packed on the host: A by rows, B by columns word-major) behind fixed
/// device pointers, and the reference of the inputs loaded last.
struct MatmulCase {
  MatmulCase(int m_, int n_, int k_) : m(m_), n(n_), k(k_) {
    d_a_bits = cudalab::DeviceBuffer<std::uint32_t>(std::size_t(m) * bits::words32(k));
    d_b_bits = cudalab::DeviceBuffer<std::uint32_t>(std::size_t(bits::words32(k)) * n);
    d_c = cudalab::DeviceBuffer<float>(std::size_t(m) * n);
  }
  /// New ±1 inputs (random streams @p stream and @p stream + 1) behind the same pointers.
  void load(std::uint64_t stream) {
    const auto h_a = cudalab::random_matrix(m, k, cudalab::Fill::PlusMinusOne, stream);
    const auto h_b = cudalab::random_matrix(k, n, cudalab::Fill::PlusMinusOne, stream + 1);
    expected = cudalab::reference_matmul(h_a, h_b, m, n, k);
    a_bits = bits::pack_rows(h_a, m, k);
    b_bits = bits::pack_cols_word_major(h_b, k, n);
    d_a_bits.upload(a_bits);
    d_b_bits.upload(b_bits);
  }
  /// Poisons C and every SM's shared memory, replays @p cap and compares C with @p want.
  ::testing::AssertionResult replay_matches(const CapturedWork& cap,
                                            const std::vector<float>& want) {
    cudalab::testing::poison(d_c.data(), d_c.bytes());  // NaN
    cudalab::testing::poison_shared_memory();
    cap.run();
    return cudalab::testing::matrices_match(want, d_c.to_host(), m, n, 0.0);
  }
  int m, n, k;
  std::vector<float> expected;
  std::vector<std::uint32_t> a_bits, b_bits;
  cudalab::DeviceBuffer<std::uint32_t> d_a_bits, d_b_bits;
  cudalab::DeviceBuffer<float> d_c;
};

class XnorMatmulGpu : public ::testing::TestWithParam<MatmulShape> {
 protected:
  /// Captures @p launch(threads, stream) for every block size, checks the graph holds only
  /// @p kernel, and replays it on two new inputs.
  template <typename Launch>
  void expect_exact_for_every_block_size(const char* what, const cudalab::KernelInfo& kernel,
                                         Launch launch) {
    const auto [m, n, k] = GetParam();
    MatmulCase c(m, n, k);
    std::uint64_t stream = 100;
    for (const int threads : kThreadCounts) {
      SCOPED_TRACE("<<<" + std::to_string(m) + ", " + std::to_string(threads) + ">>>, " + what);
      const CapturedWork cap =
          CapturedWork::capture([&](cudaStream_t s) { launch(c, threads, s); });
      ASSERT_TRUE(cap.holds_only(only_kernel(kernel)));
      for (int run = 0; run < 2; ++run, stream += 2) {
        c.load(stream);
        ASSERT_TRUE(c.replay_matches(cap, c.expected)) << "replay " << run + 1;
      }
    }
  }
};

TEST_P(XnorMatmulGpu, TablePopcountEqualsFloatMatmul) {
  CUDALAB_REQUIRE_GPU();
  const cudalab::DeviceBuffer<std::uint8_t> d_table = lab08::upload_popcount_table();
  expect_exact_for_every_block_size("table popcount", lab08::xnor_matmul_table_kernel(),
                                    [&](MatmulCase& c, int threads, cudaStream_t s) {
                                      lab08::xnor_matmul_table(c.d_a_bits.data(), c.d_b_bits.data(),
                                                               d_table.data(), c.d_c.data(), c.m,
                                                               c.n, c.k, threads, s);
                                    });
}

TEST_P(XnorMatmulGpu, IntrinsicPopcountEqualsFloatMatmul) {
  CUDALAB_REQUIRE_GPU();
  expect_exact_for_every_block_size(
      "__popc", lab08::xnor_matmul_popc_kernel(), [&](MatmulCase& c, int threads, cudaStream_t s) {
        lab08::xnor_matmul_popc(c.d_a_bits.data(), c.d_b_bits.data(), c.d_c.data(), c.m, c.n, c.k,
                                threads, s);
      });
}

INSTANTIATE_TEST_SUITE_P(Shapes, XnorMatmulGpu, ::testing::ValuesIn(kMatmulShapes),
                         cudalab::kit::shape_name);

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

// ---------------------------------------------------------------------------
// GPU: range edges. K above 2^24 bits: a float (or 24-bit) counter of equal bits is exact
// only below 2^24; the columns of B are near copies or near complements of A's rows, so both
// the equal count (XNOR form) and the different count (XOR form) pass 2^24.
// ---------------------------------------------------------------------------

/// Random packed vectors of @p k elements (zero padding): vector v of @p count.
std::vector<std::uint32_t> random_vectors(int count, int k, std::uint64_t stream) {
  const int words = bits::words32(k);
  std::mt19937_64 rng = cudalab::make_rng(stream);
  std::vector<std::uint32_t> v(std::size_t(count) * words);
  const std::uint32_t last_mask =
      bits::padding32(k) == 0 ? 0xFFFFFFFFu : (1u << (32 - bits::padding32(k))) - 1u;
  for (int i = 0; i < count; ++i) {
    for (int w = 0; w < words; ++w) {
      const std::uint32_t x = static_cast<std::uint32_t>(rng());
      v[std::size_t(i) * words + w] = w == words - 1 ? x & last_mask : x;
    }
  }
  return v;
}

/// Column j of B (word-major) from row j % m of A: j % 3 == 0 a near copy (each bit flipped
/// with probability 1/32), 1 a near complement, 2 independent.
std::vector<std::uint32_t> correlated_columns_word_major(const std::vector<std::uint32_t>& a_bits,
                                                         int m, int n, int k,
                                                         std::uint64_t stream) {
  const int words = bits::words32(k);
  const std::uint32_t last_mask =
      bits::padding32(k) == 0 ? 0xFFFFFFFFu : (1u << (32 - bits::padding32(k))) - 1u;
  std::mt19937_64 rng = cudalab::make_rng(stream);
  std::vector<std::uint32_t> b(std::size_t(words) * n);
  for (int j = 0; j < n; ++j) {
    for (int w = 0; w < words; ++w) {
      const std::uint32_t a = a_bits[std::size_t(j % m) * words + w];
      std::uint32_t flips = 0xFFFFFFFFu;
      for (int r = 0; r < 5; ++r) flips &= static_cast<std::uint32_t>(rng());  // p = 1/32
      std::uint32_t x = a ^ flips;
      if (j % 3 == 1) x = ~x;
      if (j % 3 == 2) x = static_cast<std::uint32_t>(rng());
      b[std::size_t(w) * n + j] = w == words - 1 ? x & last_mask : x;
    }
  }
  return b;
}

/// The exact ±1 product of packed A (rows) and B (word-major), rounded once to float.
std::vector<float> exact_product(const std::vector<std::uint32_t>& a_bits,
                                 const std::vector<std::uint32_t>& b_bits, int m, int n, int k) {
  const int words = bits::words32(k);
  std::vector<float> c(std::size_t(m) * n);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      long long different = 0;
      for (int w = 0; w < words; ++w) {
        different +=
            bits::popcount(a_bits[std::size_t(i) * words + w] ^ b_bits[std::size_t(w) * n + j]);
      }
      c[std::size_t(i) * n + j] = static_cast<float>(k - 2 * different);
    }
  }
  return c;
}

class XnorRangeGpu : public ::testing::Test {
 protected:
  static constexpr int m = 2, n = 3;
  static constexpr int k = (1 << 24) + (1 << 20) + 13;  // 2^24 + 2^20 + 13 bits per vector

  void SetUp() override {
    CUDALAB_REQUIRE_GPU();
    c = std::make_unique<MatmulCase>(m, n, k);
  }
  void load(std::uint64_t stream) {
    c->a_bits = random_vectors(m, k, stream);
    c->b_bits = correlated_columns_word_major(c->a_bits, m, n, k, stream + 1);
    c->expected = exact_product(c->a_bits, c->b_bits, m, n, k);
    c->d_a_bits.upload(c->a_bits);
    c->d_b_bits.upload(c->b_bits);
  }
  std::unique_ptr<MatmulCase> c;
};

TEST_F(XnorRangeGpu, PopcCountsPastTwoToThe24Bits) {
  const CapturedWork cap = CapturedWork::capture([&](cudaStream_t s) {
    lab08::xnor_matmul_popc(c->d_a_bits.data(), c->d_b_bits.data(), c->d_c.data(), m, n, k,
                            lab08::kSeedThreads, s);
  });
  ASSERT_TRUE(cap.holds_only(only_kernel(lab08::xnor_matmul_popc_kernel())));
  load(400);
  EXPECT_TRUE(c->replay_matches(cap, c->expected))
      << "K = " << k << " bits (> 2^24): count the bits in an integer type that holds K";
}

TEST_F(XnorRangeGpu, TableCountsPastTwoToThe24Bits) {
  const cudalab::DeviceBuffer<std::uint8_t> d_table = lab08::upload_popcount_table();
  const CapturedWork cap = CapturedWork::capture([&](cudaStream_t s) {
    lab08::xnor_matmul_table(c->d_a_bits.data(), c->d_b_bits.data(), d_table.data(), c->d_c.data(),
                             m, n, k, lab08::kSeedThreads, s);
  });
  ASSERT_TRUE(cap.holds_only(only_kernel(lab08::xnor_matmul_table_kernel())));
  load(500);
  EXPECT_TRUE(c->replay_matches(cap, c->expected))
      << "K = " << k << " bits (> 2^24): count the bits in an integer type that holds K";
}

/// M x N = 65537 x 32769 = 2^31 + 98305 elements of C: element offsets pass 2^31 (byte
/// offsets pass 2^33), so `int` index arithmetic wraps. Checked on sampled rows.
TEST(XnorIndexGpu, OffsetsPastTwoToThe31ElementsOfC) {
  CUDALAB_REQUIRE_GPU();
  const int m = 65537, n = 32769, k = 40;
  const std::size_t c_bytes = std::size_t(m) * n * sizeof(float);
  CUDALAB_REQUIRE_FREE_MEMORY(c_bytes);
  const auto a_bits = random_vectors(m, k, 600);
  const auto b_rows = random_vectors(n, k, 601);  // column-major: column j's words contiguous
  const int words = bits::words32(k);
  std::vector<std::uint32_t> b_bits(std::size_t(words) * n);  // word-major
  for (int j = 0; j < n; ++j)
    for (int w = 0; w < words; ++w)
      b_bits[std::size_t(w) * n + j] = b_rows[std::size_t(j) * words + w];
  cudalab::DeviceBuffer<std::uint32_t> d_a_bits(a_bits.size()), d_b_bits(b_bits.size());
  cudalab::DeviceBuffer<float> d_c(std::size_t(m) * n);
  const CapturedWork cap = CapturedWork::capture([&](cudaStream_t s) {
    lab08::xnor_matmul_popc(d_a_bits.data(), d_b_bits.data(), d_c.data(), m, n, k, 256, s);
  });
  ASSERT_TRUE(cap.holds_only(only_kernel(lab08::xnor_matmul_popc_kernel())));
  d_a_bits.upload(a_bits);
  d_b_bits.upload(b_bits);
  cudalab::testing::poison(d_c.data(), c_bytes);
  cap.run();
  std::mt19937_64 rng = cudalab::make_rng(602);
  for (const int row : {0, m / 2, m - 3, m - 1, int(rng() % m)}) {
    SCOPED_TRACE("row " + std::to_string(row) + " of 65537 (C[row][0] at element offset " +
                 std::to_string(std::size_t(row) * n) + ")");
    std::vector<float> got(n);
    CUDA_CHECK(cudaMemcpy(got.data(), d_c.data() + std::size_t(row) * n, n * sizeof(float),
                          cudaMemcpyDeviceToHost));
    const auto want = bits::binary_matmul_word_major_rows(a_bits, b_bits, n, k, row, row + 1);
    ASSERT_TRUE(cudalab::testing::matrices_match(want, got, 1, n, 0.0))
        << "index C with std::size_t: row * n + col passes 2^31 here";
  }
}

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
// The graph replays above cannot see it: a graph holds the launch made once, under capture.
// ---------------------------------------------------------------------------
TEST(XnorLaunchGpu, EveryLauncherRecomputesWhenTheDataBehindItsPointersChanges) {
  CUDALAB_REQUIRE_GPU();
  namespace kit = cudalab::kit;
  const int m = 33, n = 65, k = 1000;
  const int words = bits::words32(k);
  {
    cudalab::DeviceBuffer<float> d_a(std::size_t(m) * k);
    cudalab::DeviceBuffer<std::uint32_t> d_out(std::size_t(m) * words);
    std::vector<float> h_a;
    kit::expect_fresh_results_on_same_buffers(
        "pack_rows",
        [&](int round) {
          h_a = cudalab::random_matrix(m, k, cudalab::Fill::PlusMinusOne, 30 + round);
          d_a.upload(h_a);
          cudalab::testing::poison(d_out.data(), d_out.bytes());
        },
        [&](cudaStream_t s) { lab08::pack_rows(d_a.data(), d_out.data(), m, k, s); },
        [&](int) {
          EXPECT_TRUE(words_match(
              bits::pack_rows(h_a, m, k), d_out.to_host(),
              PackedLayout{words, m, false, "row", "a_bits[v * words + w] (row-major)"},
              [&](int r, int e) { return e < k ? h_a[std::size_t(r) * k + e] : 0.0f; }));
        });
  }
  {
    cudalab::DeviceBuffer<float> d_b(std::size_t(k) * n);
    cudalab::DeviceBuffer<std::uint32_t> d_out(std::size_t(words) * n);
    std::vector<float> h_b;
    kit::expect_fresh_results_on_same_buffers(
        "pack_cols",
        [&](int round) {
          h_b = cudalab::random_matrix(k, n, cudalab::Fill::PlusMinusOne, 35 + round);
          d_b.upload(h_b);
          cudalab::testing::poison(d_out.data(), d_out.bytes());
        },
        [&](cudaStream_t s) { lab08::pack_cols(d_b.data(), d_out.data(), k, n, s); },
        [&](int) {
          EXPECT_TRUE(words_match(
              bits::pack_cols_word_major(h_b, k, n), d_out.to_host(),
              PackedLayout{words, n, true, "column", "b_bits[w * N + v] (word-major)"},
              [&](int c, int e) { return e < k ? h_b[std::size_t(e) * n + c] : 0.0f; }));
        });
  }
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
    kit::expect_fresh_results_on_same_buffers(
        "xnor_matmul_popc" + block, load,
        [&](cudaStream_t s) {
          lab08::xnor_matmul_popc(c.d_a_bits.data(), c.d_b_bits.data(), c.d_c.data(), m, n, k,
                                  threads, s);
        },
        check);
    kit::expect_fresh_results_on_same_buffers(
        "xnor_matmul_table" + block, load,
        [&](cudaStream_t s) {
          lab08::xnor_matmul_table(c.d_a_bits.data(), c.d_b_bits.data(), d_table.data(),
                                   c.d_c.data(), m, n, k, threads, s);
        },
        check);
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

// ---------------------------------------------------------------------------
// Perf: the packers as a share of a device-to-device copy; XNOR against the float
// one-block-per-row kernel, 4096^2. The candidate is timed as its captured graph; before
// each timed run one of two input sets is copied behind its pointers (untimed) with about
// sqrt(size) elements changed at positions no code of the lab can predict; sampled rows of every
// earlier run's output (kit::RunRows) are checked against the host reference of exactly what
// that run read (input_view()), and the last output whole (last_input()).
// ---------------------------------------------------------------------------

class PackPerf : public ::testing::Test {
 protected:
  static constexpr int rows = kPackPerfRows, cols = kPackPerfCols;
  void SetUp() override { CUDALAB_REQUIRE_GPU(); }

  /// Times @p cap with alternating inputs (its output, @p out_cols words a row, poisoned
  /// before every run), checks three random rows of every earlier run (and of the last
  /// warm-up; kept before the next run's input is copied) against @p host_pack of exactly
  /// what that run read, and the last output whole against @p host_pack of the last input;
  /// judges its bandwidth against a copy of the same input bytes.
  template <typename HostPack>
  void judge(const CapturedWork& cap, AlternatingInput<float>& in,
             cudalab::DeviceBuffer<std::uint32_t>& d_out, int out_cols, HostPack host_pack,
             const char* what) {
    const int out_rows = int(d_out.size() / std::size_t(out_cols));
    cudalab::kit::RunRows<std::uint32_t> run_rows(d_out.data(), out_cols, out_rows);
    cudalab::BenchOptions bo;
    bo.before_candidate = run_rows.before_each_run(in, [&](cudaStream_t s) {
      in.copy_next(s);
      cudalab::testing::poison(d_out.data(), d_out.bytes(), s);
    });
    d_out.fill_bytes(0xFF);
    const cudalab::BenchStats stats = cudalab::benchmark(cap.as_work(), bo);
    CUDA_CHECK(cudaDeviceSynchronize());
    run_rows.expect_every_run([&](long run) { return host_pack(in.input_view(run)); },
                              [out_cols](const std::vector<std::uint32_t>& packed, int r) {
                                return std::vector<std::uint32_t>(
                                    packed.begin() + std::ptrdiff_t(r) * out_cols,
                                    packed.begin() + std::ptrdiff_t(r + 1) * out_cols);
                              },
                              what);
    if (HasFailure()) return;  // no speed verdict for a wrong result
    // last_input(): the set of the last run with that run's changed elements, exactly what
    // the last timed run read.
    EXPECT_EQ(d_out.to_host(), host_pack(in.last_input()))
        << what << ": the last timed run's packed words differ from the host packer's for its "
        << "input (set " << in.last() << " with that run's changed elements)";
    const double bytes = double(in.live.bytes()) + double(d_out.bytes());
    const double gbps = bytes / (stats.median_ms * 1e6);
    const double copy = cudalab::testing::d2d_copy_gbps(in.live.bytes());
    cudalab::testing::record_measurement(std::string(what) + "_gbps", gbps, "GB/s");
    cudalab::testing::record_measurement("d2d_copy_gbps", copy, "GB/s");
    cudalab::testing::expect_possible(gbps, cudalab::device_ceilings().dram_gbps, "GB/s", what);
    cudalab::testing::expect_share(gbps, copy, "GB/s",
                                   std::string(what) + " vs a device-to-device copy");
  }
};

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

class XnorPerf : public ::testing::Test {
 protected:
  static constexpr int n = kPerfSize;

  void SetUp() override {
    CUDALAB_REQUIRE_GPU();
    const auto h_a = cudalab::random_matrix(n, n, cudalab::Fill::PlusMinusOne, 900);
    const auto h_b = cudalab::random_matrix(n, n, cudalab::Fill::PlusMinusOne, 901);
    const auto h_a1 = cudalab::random_matrix(n, n, cudalab::Fill::PlusMinusOne, 902);
    const auto h_b1 = cudalab::random_matrix(n, n, cudalab::Fill::PlusMinusOne, 903);
    const std::size_t count = std::size_t(n) * n;
    d_a = cudalab::DeviceBuffer<float>(count);
    d_b = cudalab::DeviceBuffer<float>(count);
    d_c_float = cudalab::DeviceBuffer<float>(count);
    d_c_xnor = cudalab::DeviceBuffer<float>(count);
    d_a.upload(h_a);
    d_b.upload(h_b);
    // A by rows, B by columns word-major.
    a_in = std::make_unique<AlternatingInput<std::uint32_t>>(bits::pack_rows(h_a, n, n),
                                                             bits::pack_rows(h_a1, n, n));
    b_in = std::make_unique<AlternatingInput<std::uint32_t>>(
        bits::pack_cols_word_major(h_b, n, n), bits::pack_cols_word_major(h_b1, n, n));
  }

  void float_baseline(cudaStream_t s) {
    lab08::float_matmul_rows(d_a.data(), d_b.data(), d_c_float.data(), n, n, n, lab08::kSeedThreads,
                             s);
  }

  /// Times the float kernel against the captured XNOR launch @p launch (the graph may hold
  /// only @p kernel; fed alternating inputs), checks the last XNOR output on sampled rows and
  /// judges speed and ceiling.
  template <typename Launch>
  void judge(const cudalab::KernelInfo& kernel, Launch launch, const std::string& name,
             const std::string& what) {
    const CapturedWork cap = CapturedWork::capture(launch);
    ASSERT_TRUE(cap.holds_only(only_kernel(kernel)));
    // Three random rows of C after every run (kept before the next run's inputs are
    // copied), checked below against the host's product of exactly what that run read.
    cudalab::kit::RunRows<float> run_rows(d_c_xnor.data(), n, n);
    cudalab::BenchOptions bo;
    bo.before_candidate = run_rows.before_each_run(*a_in, [&](cudaStream_t s) {
      a_in->copy_next(s);
      b_in->copy_next(s);
    });
    d_c_xnor.fill_bytes(0xFF);
    const cudalab::Comparison cmp =
        cudalab::compare([&](cudaStream_t s) { float_baseline(s); }, cap.as_work(), bo);
    run_rows.expect_every_run(
        [&](long run) { return cudalab::testing::input_views(*a_in, *b_in, run); },
        [&](const auto& in, int row) {
          return bits::binary_matmul_word_major_rows(in.first, in.second, n, n, row, row + 1);
        },
        what);
    if (HasFailure()) return;
    const int set = a_in->last();
    ASSERT_EQ(set, b_in->last());
    const std::vector<float> got = d_c_xnor.to_host();
    // Exactly what the last timed run read: its set with that run's changed words.
    const std::vector<std::uint32_t> a_last = a_in->last_input();
    const std::vector<std::uint32_t> b_last = b_in->last_input();
    std::mt19937_64 rng = cudalab::make_rng(904);
    for (const int row : {0, 1, n / 2, n - 1, int(rng() % n), int(rng() % n), int(rng() % n)}) {
      const auto want = bits::binary_matmul_word_major_rows(a_last, b_last, n, n, row, row + 1);
      ASSERT_TRUE(cudalab::testing::matrices_match(
          want,
          std::vector<float>(got.begin() + std::ptrdiff_t(row) * n,
                             got.begin() + std::ptrdiff_t(row + 1) * n),
          1, n, 0.0))
          << what << ": row " << row << " of the last timed run (input set " << set
          << " with that run's changed words)";
    }
    const double macs = double(n) * n * n;                       // bit multiply-adds
    const double rate = macs / (cmp.candidate.median_ms * 1e9);  // Tbit-op/s
    cudalab::testing::record_measurement("float_rows_tops",
                                         2 * macs / (cmp.baseline.median_ms * 1e9), "TOPS");
    cudalab::testing::record_measurement(name + "_tbitops", rate, "Tbit-op/s");
    cudalab::testing::expect_possible(rate, cudalab::device_ceilings().popc_tbitops_max,
                                      "Tbit-op/s", what + " (popcount ceiling at the peak clock)");
    cudalab::testing::expect_speedup(cmp, what);
  }

  cudalab::DeviceBuffer<float> d_a, d_b, d_c_float, d_c_xnor;
  std::unique_ptr<AlternatingInput<std::uint32_t>> a_in, b_in;
};

TEST_F(XnorPerf, PopcIsFasterThanFloatOneBlockPerRow) {
  judge(
      lab08::xnor_matmul_popc_kernel(),
      [&](cudaStream_t s) {
        lab08::xnor_matmul_popc(a_in->live.data(), b_in->live.data(), d_c_xnor.data(), n, n, n,
                                lab08::kSeedThreads, s);
      },
      "xnor_popc", "XNOR __popc <<<4096, 32>>> vs float one-block-per-row <<<4096, 32>>>");
}

TEST_F(XnorPerf, TableIsFasterThanFloatOneBlockPerRow) {
  const cudalab::DeviceBuffer<std::uint8_t> d_table = lab08::upload_popcount_table();
  judge(
      lab08::xnor_matmul_table_kernel(),
      [&](cudaStream_t s) {
        lab08::xnor_matmul_table(a_in->live.data(), b_in->live.data(), d_table.data(),
                                 d_c_xnor.data(), n, n, n, lab08::kSeedThreads, s);
      },
      "xnor_table", "XNOR table <<<4096, 32>>> vs float one-block-per-row <<<4096, 32>>>");
}

// ---------------------------------------------------------------------------
// The technique in the machine code (cuobjdump -sass of this grader, no GPU): the popc
// instance of the kernel counts bits with the hardware instruction, not a loop or a table.
// ---------------------------------------------------------------------------
TEST(XnorSassCpu, PopcKernelCountsBitsWithThePopcInstruction) {
  cudalab::kit::expect_sass(
      lab08::xnor_matmul_popc_kernel(),
      {cudalab::kit::sass_requires({"POPC"},
                                   "the popc kernel must count the bits of each XNOR "
                                   "word with __popc (the POPC instruction)")},
      "IntrinsicPopcount>");
}

}  // namespace
