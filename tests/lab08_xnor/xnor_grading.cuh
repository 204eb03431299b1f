// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file xnor_grading.cuh
 * @brief What the test files of lab 08's grader share: the packed words' comparison and the
 * packers' replay and speed checks (pack_rows_test.cu, pack_cols_test.cu, xnor_test.cu), the
 * packed operands of an XNOR product (xnor_matmul_test.cu, xnor_test.cu), and the techniques
 * of lab08::kTechniques (tests registered for every technique).
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "common/kit.cuh"
#include "common/technique_tests.hpp"
#include "cudalab/bits.hpp"
#include "cudalab/ceilings.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/grading.hpp"
#include "cudalab/graph_capture.cuh"
#include "cudalab/testing.hpp"
#include "xnor.cuh"

namespace lab08_grading {

// The kit's names the test files use (each says `using namespace lab08_grading;`).
namespace bits = cudalab::bits;
namespace kit = cudalab::kit;
using cudalab::kit::only_kernel;
using cudalab::kit::shape_name;
using cudalab::testing::AlternatingInput;
using cudalab::testing::CapturedWork;
using cudalab::testing::GraphRules;

// ---------------------------------------------------------------------------
// The techniques of lab08::kTechniques
// ---------------------------------------------------------------------------

/// The technique of lab08::kTechniques named @p name.
inline const lab08::Technique& technique(std::string_view name) {
  return cudalab::kit::technique_named(lab08::kTechniques, name, "lab08::kTechniques");
}

/// The popcount table technique @p t counts with (upload_popcount_table()), or no buffer
/// where it reads none.
inline cudalab::DeviceBuffer<std::uint8_t> table_for(const lab08::Technique& t) {
  return t.reads_table ? lab08::upload_popcount_table() : cudalab::DeviceBuffer<std::uint8_t>();
}

/**
 * @brief Registers test @p name ("Suite.Case", "{}" standing for the technique's name in
 * CamelCase, e.g. "XnorPerf.{}IsFasterThanFloatOneBlockPerRow") for every technique of
 * lab08::kTechniques, in table order; each runs @p body(fixture, technique) in a @p Fixture.
 * tests/tools/test_bar_keys.py reads these calls (the literal name, then the body) to find the
 * speed bars they ask for.
 */
template <class Fixture>
void for_each_technique(const char* name, void (*body)(Fixture&, const lab08::Technique&),
                        const char* file, int line) {
  cudalab::kit::register_for_each(lab08::kTechniques, name, body, file, line);
}

// ---------------------------------------------------------------------------
// Packed words, bit for bit against cudalab::bits
// ---------------------------------------------------------------------------

inline std::string hex(std::uint32_t x) {
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
// GPU: packers, bit for bit against cudalab::bits. Each packer is captured once (the graph
// may hold only its kernel), then replayed on a second input behind the same pointer.
// ---------------------------------------------------------------------------
/// rows: vectors packed (M for rows of A, N for columns of B); cols: elements per vector (K).
using PackShape = cudalab::kit::Extent;

inline const PackShape kPackShapes[] = {{1, 1},     {1, 31},    {3, 32},   {5, 33},
                                        {17, 1000}, {64, 64},   {1000, 1}, {257, 95},
                                        {33, 4097}, {2, 20000}, {3, 70001}};

inline constexpr std::size_t kGuardWords = 64;  // sentinel words after the packed output
inline constexpr std::uint32_t kSentinel = 0x5EE7CAFEu;

/**
 * @brief One of the lab's packers as the tests drive it: @p vectors vectors of @p k ±1
 * elements, the rows of an M x K matrix A (pack_rows(), packed vector-major) or the columns of
 * a K x N matrix B (pack_cols(), packed word-major), against its host packer in cudalab::bits.
 */
struct Packer {
  const char* name;                 ///< its launcher: "pack_rows" or "pack_cols"
  bool word_major;                  ///< false: rows of A; true: columns of B
  cudalab::KernelInfo (*kernel)();  ///< the only kernel its launch may hold

  /// A ±1 input, random stream @p stream: M x K (rows) or K x N (columns).
  std::vector<float> random_input(int vectors, int k, std::uint64_t stream) const {
    return word_major ? cudalab::random_matrix(k, vectors, cudalab::Fill::PlusMinusOne, stream)
                      : cudalab::random_matrix(vectors, k, cudalab::Fill::PlusMinusOne, stream);
  }
  /// Enqueues the launcher on @p s.
  void launch(const float* d_in, std::uint32_t* d_out, int vectors, int k, cudaStream_t s) const {
    if (word_major) {
      lab08::pack_cols(d_in, d_out, k, vectors, s);
    } else {
      lab08::pack_rows(d_in, d_out, vectors, k, s);
    }
  }
  /// The host packer's words of @p in.
  std::vector<std::uint32_t> host(const std::vector<float>& in, int vectors, int k) const {
    return word_major ? bits::pack_cols_word_major(in, k, vectors)
                      : bits::pack_rows(in, vectors, k);
  }
  /// Packed words per row of the output: a vector's words (rows), or one word of every
  /// column (word-major).
  int out_cols(int vectors, int k) const { return word_major ? vectors : bits::words32(k); }
  /// Where the words live, for words_match().
  PackedLayout layout(int vectors, int k) const {
    return word_major ? PackedLayout{bits::words32(k), vectors, true, "column",
                                     "b_bits[w * N + v] (word-major)"}
                      : PackedLayout{bits::words32(k), vectors, false, "row",
                                     "a_bits[v * words + w] (row-major)"};
  }
  /// Element @p e of vector @p v of @p in (0 past K: a padding bit).
  float element(const std::vector<float>& in, int vectors, int k, int v, int e) const {
    if (e >= k) return 0.0f;
    return word_major ? in[std::size_t(e) * vectors + v] : in[std::size_t(v) * k + e];
  }
};

inline constexpr Packer kRowPacker{"pack_rows", false, lab08::row_packing_kernel};
inline constexpr Packer kColumnPacker{"pack_cols", true, lab08::column_packing_kernel};

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

/// Packer @p p on a @p shape problem (rows: vectors, cols: K): its launch captured once (the
/// graph may hold only its kernel), then replayed on two ±1 inputs behind the same pointer
/// (random streams @p stream and @p stream + 1), each checked by expect_replay_packs().
inline void expect_packs_on_two_inputs(const Packer& p, const PackShape& shape,
                                       std::uint64_t stream) {
  const int vectors = shape.rows, k = shape.cols;
  cudalab::DeviceBuffer<float> d_in(std::size_t(vectors) * k);
  cudalab::DeviceBuffer<std::uint32_t> d_out(std::size_t(vectors) * bits::words32(k) + kGuardWords);
  const CapturedWork cap = CapturedWork::capture(
      [&](cudaStream_t s) { p.launch(d_in.data(), d_out.data(), vectors, k, s); });
  ASSERT_TRUE(cap.holds_only(only_kernel(p.kernel())));
  for (int run = 0; run < 2; ++run) {  // two inputs behind the same pointer
    SCOPED_TRACE("replay " + std::to_string(run + 1) + " of the captured " + p.name);
    const std::vector<float> h_in = p.random_input(vectors, k, stream + run);
    d_in.upload(h_in);
    expect_replay_packs(cap, d_out, p.host(h_in, vectors, k), p.layout(vectors, k),
                        [&](int v, int e) { return p.element(h_in, vectors, k, v, e); });
  }
}

/// Packer @p p called directly (not captured) on the same buffers with new data behind them
/// (cudalab::kit::expect_fresh_results_on_same_buffers): @p vectors vectors of @p k elements,
/// input of round r from random stream @p stream + r.
inline void expect_packer_recomputes(const Packer& p, int vectors, int k, std::uint64_t stream) {
  cudalab::DeviceBuffer<float> d_in(std::size_t(vectors) * k);
  cudalab::DeviceBuffer<std::uint32_t> d_out(std::size_t(vectors) * bits::words32(k));
  std::vector<float> h_in;
  kit::expect_fresh_results_on_same_buffers(
      p.name,
      [&](int round) {
        h_in = p.random_input(vectors, k, stream + std::uint64_t(round));
        d_in.upload(h_in);
        cudalab::testing::poison(d_out.data(), d_out.bytes());
      },
      [&](cudaStream_t s) { p.launch(d_in.data(), d_out.data(), vectors, k, s); },
      [&](int) {
        EXPECT_TRUE(words_match(p.host(h_in, vectors, k), d_out.to_host(), p.layout(vectors, k),
                                [&](int v, int e) { return p.element(h_in, vectors, k, v, e); }));
      });
}

// ---------------------------------------------------------------------------
// Perf: the packers as a share of a device-to-device copy, 4096 x 8192 floats (128 MB). The
// candidate is timed as its captured graph; before each timed run one of two input sets is
// copied behind its pointers (untimed) with about sqrt(size) elements changed at positions no
// code of the lab can predict; sampled rows of every earlier run's output (kit::RunRows) are
// checked against the host reference of exactly what that run read (input_view()), and the
// last output whole (last_input()). The bar ("share") and its provenance are the calibration's
// (tests/calibration/nvidia-h200.tsv on the reference GPU).
// ---------------------------------------------------------------------------

/// Rows x columns of the packers' speed test (128 MB of floats).
inline constexpr int kPackPerfRows = 4096;
inline constexpr int kPackPerfCols = 8192;

class PackPerf : public ::testing::Test {
 protected:
  static constexpr int rows = kPackPerfRows, cols = kPackPerfCols;
  void SetUp() override { CUDALAB_REQUIRE_GPU(); }

  /// Packer @p p on rows vectors of cols elements, its two input sets random streams
  /// @p stream and @p stream + 1: its launch captured (the graph may hold only its kernel),
  /// then judged by judge() under the packer's name.
  void judge_packer(const Packer& p, std::uint64_t stream) {
    const std::vector<float> h[2] = {p.random_input(rows, cols, stream),
                                     p.random_input(rows, cols, stream + 1)};
    AlternatingInput<float> in(h[0], h[1]);
    cudalab::DeviceBuffer<std::uint32_t> d_out(std::size_t(rows) * bits::words32(cols));
    const CapturedWork cap = CapturedWork::capture(
        [&](cudaStream_t s) { p.launch(in.live.data(), d_out.data(), rows, cols, s); });
    ASSERT_TRUE(cap.holds_only(only_kernel(p.kernel())));
    judge(
        cap, in, d_out, p.out_cols(rows, cols),
        [&](const std::vector<float>& a) { return p.host(a, rows, cols); }, p.name);
  }

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

// ---------------------------------------------------------------------------
// The packed operands of an XNOR product
// ---------------------------------------------------------------------------
using MatmulShape = cudalab::kit::Shape;

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

}  // namespace lab08_grading
