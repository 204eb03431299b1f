// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file blocked_xnor_grading.cuh
 * @brief What the test files of lab 09's grader share: the techniques of lab09::kTechniques
 * (the lookup by name, the popcount table a technique reads), one graded problem on packed
 * operands and its exact check on new inputs behind the same pointers (tiled_xnor_test.cu,
 * register_tiled_xnor_test.cu), and the range edge past 2^24 bits (RangeFixture).
 */
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "blocked_xnor.cuh"
#include "common/kit.cuh"
#include "common/technique_tests.hpp"
#include "cudalab/bits.hpp"
#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/grading.hpp"
#include "cudalab/graph_capture.cuh"
#include "cudalab/testing.hpp"

namespace lab09_grading {

// The kit's names the test files use (each says `using namespace lab09_grading;`).
namespace bits = cudalab::bits;
namespace kit = cudalab::kit;
using cudalab::kit::only_kernel;
using cudalab::kit::Shape;
using cudalab::kit::shape_name;
using cudalab::testing::AlternatingInput;
using cudalab::testing::CapturedWork;

// ---------------------------------------------------------------------------
// The techniques of lab09::kTechniques
// ---------------------------------------------------------------------------

/// The technique of lab09::kTechniques named @p name.
inline const lab09::Technique& technique(std::string_view name) {
  return cudalab::kit::technique_named(lab09::kTechniques, name, "lab09::kTechniques");
}

/// The popcount table technique @p t counts with (make_popcount_table()), or no buffer where it
/// reads none.
inline cudalab::DeviceBuffer<std::uint8_t> table_for(const lab09::Technique& t) {
  return t.reads_table ? lab09::make_popcount_table() : cudalab::DeviceBuffer<std::uint8_t>();
}

// ---------------------------------------------------------------------------
// One graded problem on packed operands
// ---------------------------------------------------------------------------

/// Words of a packed vector of @p k elements in words of type Word.
template <typename Word>
int words_of(int k) {
  return std::is_same_v<Word, std::uint64_t> ? bits::words64(k) : bits::words32(k);
}

/// One graded problem for a kernel on Word-packed operands: A by rows, B by columns (each
/// column's words contiguous), C; only these three device buffers. load() puts new ±1 inputs
/// behind the same pointers and computes their exact product.
template <typename Word>
struct PackedProblem {
  PackedProblem(int m_, int n_, int k_)
      : m(m_),
        n(n_),
        k(k_),
        d_a(std::size_t(m_) * words_of<Word>(k_)),
        d_b(std::size_t(n_) * words_of<Word>(k_)),
        d_c(std::size_t(m_) * n_) {}

  void load(std::uint64_t stream) {
    cudalab::kit::SignProduct p = cudalab::kit::SignProduct::random({m, n, k}, stream);
    if constexpr (std::is_same_v<Word, std::uint64_t>) {
      d_a.upload(bits::pack_rows64(p.a, m, k));
      d_b.upload(bits::pack_cols64(p.b, k, n));
    } else {
      d_a.upload(p.a32);
      d_b.upload(p.b32);
    }
    a32 = std::move(p.a32);
    b32 = std::move(p.b32);
    expected = std::move(p.expected);
  }

  /// A and B as the table's launchers take them (pack_rows() and pack_cols(), or their 64-bit
  /// forms), with the popcount table @p d_table.
  lab09::PackedOperands operands(const std::uint8_t* d_table) const {
    lab09::PackedOperands in;
    if constexpr (std::is_same_v<Word, std::uint64_t>) {
      in.a64 = d_a.data();
      in.b64 = d_b.data();
    } else {
      in.a32 = d_a.data();
      in.b32 = d_b.data();
    }
    in.table = d_table;
    return in;
  }

  /// Poisons C and every SM's shared memory, replays @p cap, compares C with @p want.
  ::testing::AssertionResult replay_matches(const CapturedWork& cap,
                                            const std::vector<float>& want) {
    cudalab::testing::poison(d_c.data(), d_c.bytes());  // NaN
    cudalab::testing::poison_shared_memory();
    cap.run();
    return cudalab::testing::matrices_match(want, d_c.to_host(), m, n, 0.0);
  }

  int m, n, k;
  std::vector<float> expected;
  std::vector<std::uint32_t> a32, b32;  // the last inputs, 32-bit packed
  cudalab::DeviceBuffer<Word> d_a, d_b;
  cudalab::DeviceBuffer<float> d_c;
};

/// Captures technique @p t's launch on @p p once (the graph may hold only its kernel; the
/// popcount table @p d_table where it reads one) and replays it on two new inputs behind the
/// same pointers; then calls the launcher directly twice more on the same buffers with new
/// inputs (cudalab::kit::expect_fresh_results_on_same_buffers): a launcher that remembers its
/// last call and skips the work when called again with the same pointers and sizes returns a
/// stale product there.
template <typename Word>
void expect_exact_on_two_inputs(PackedProblem<Word>& p, const lab09::Technique& t,
                                const std::uint8_t* d_table) {
  const cudalab::KernelInfo kernel = t.kernel();
  const auto launch = [&](cudaStream_t s) {
    t.launcher(p.operands(d_table), p.d_c.data(), p.m, p.n, p.k, s);
  };
  const CapturedWork cap = CapturedWork::capture(launch);
  ASSERT_TRUE(cap.holds_only(only_kernel(kernel)));
  for (int run = 0; run < 2; ++run) {  // new data each time; a race may also hide in one run
    SCOPED_TRACE("replay " + std::to_string(run + 1) + " of the captured launch");
    p.load(10 + 2 * run);
    EXPECT_TRUE(p.replay_matches(cap, p.expected));
  }
  if (::testing::Test::HasFailure()) return;
  cudalab::kit::expect_fresh_results_on_same_buffers(
      kernel.name,
      [&](int round) {
        p.load(20 + 2 * std::uint64_t(round));
        cudalab::testing::poison(p.d_c.data(), p.d_c.bytes());
      },
      launch,
      [&](int) {
        EXPECT_TRUE(cudalab::testing::matrices_match(p.expected, p.d_c.to_host(), p.m, p.n, 0.0));
      },
      2);
}

/// Technique @p name of lab09::kTechniques on a @p shape problem of Word-packed operands, exact
/// on two inputs (expect_exact_on_two_inputs()).
template <typename Word>
void expect_technique_exact(const char* name, const Shape& shape) {
  PackedProblem<Word> p(shape.m, shape.n, shape.k);
  const lab09::Technique& t = technique(name);
  const cudalab::DeviceBuffer<std::uint8_t> d_table = table_for(t);
  expect_exact_on_two_inputs(p, t, d_table.data());
}

// ---------------------------------------------------------------------------
// Range edge: K above 2^24 bits on a 2 x 3 product. A float (or 24-bit) counter is exact only
// below 2^24; B's columns are near copies, near complements and independent of A's rows, so
// the different count (and the equal count) passes 2^24 somewhere.
// ---------------------------------------------------------------------------
class RangeFixture : public ::testing::Test {
 protected:
  static constexpr int m = 2, n = 3;
  static constexpr int k = (1 << 24) + (1 << 20) + 13;

  void SetUp() override { CUDALAB_REQUIRE_GPU(); }

  /// Fills @p p with correlated vectors (64-bit words, viewed as 32-bit words for Word =
  /// uint32_t) and returns the exact product.
  template <typename Word>
  std::vector<float> load(PackedProblem<Word>& p, std::uint64_t stream) {
    const int w64 = bits::words64(k);
    const int pad = bits::padding64(k);
    const std::uint64_t last_mask = pad == 0 ? ~0ull : (1ull << (64 - pad)) - 1ull;
    std::mt19937_64 rng = cudalab::make_rng(stream);
    std::vector<std::uint64_t> a(std::size_t(m) * w64), b(std::size_t(n) * w64);
    for (std::size_t i = 0; i < a.size(); ++i)
      a[i] = rng() & (i % w64 == w64 - 1 ? last_mask : ~0ull);
    for (int j = 0; j < n; ++j) {
      for (int w = 0; w < w64; ++w) {
        std::uint64_t flips = ~0ull;
        for (int r = 0; r < 5; ++r) flips &= rng();  // each bit with probability 1/32
        std::uint64_t x = a[std::size_t(j % m) * w64 + w] ^ flips;
        if (j % 3 == 1) x = ~x;
        if (j % 3 == 2) x = rng();
        b[std::size_t(j) * w64 + w] = w == w64 - 1 ? x & last_mask : x;
      }
    }
    std::vector<float> want(std::size_t(m) * n);
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        long long different = 0;
        for (int w = 0; w < w64; ++w) {
          different += bits::popcount(a[std::size_t(i) * w64 + w] ^ b[std::size_t(j) * w64 + w]);
        }
        want[std::size_t(i) * n + j] = static_cast<float>(k - 2 * different);
      }
    }
    const auto narrow = [&](const std::vector<std::uint64_t>& v, int vectors) {
      const int words = words_of<Word>(k);
      std::vector<Word> out(std::size_t(vectors) * words);
      for (int r = 0; r < vectors; ++r) {
        const auto* src = reinterpret_cast<const Word*>(v.data() + std::size_t(r) * w64);
        std::copy(src, src + words, out.begin() + std::ptrdiff_t(r) * words);
      }
      return out;
    };
    p.d_a.upload(narrow(a, m));
    p.d_b.upload(narrow(b, n));
    return want;
  }

  /// Technique @p name of lab09::kTechniques on Word-packed operands past 2^24 bits: its
  /// captured launch (the graph may hold only its kernel) replayed on the correlated vectors
  /// of random stream @p stream.
  template <typename Word>
  void expect_counts_past_2_to_24_bits(const char* name, std::uint64_t stream) {
    PackedProblem<Word> p(m, n, k);
    const lab09::Technique& t = technique(name);
    const cudalab::DeviceBuffer<std::uint8_t> d_table = table_for(t);
    const CapturedWork cap = CapturedWork::capture(
        [&](cudaStream_t s) { t.launcher(p.operands(d_table.data()), p.d_c.data(), m, n, k, s); });
    ASSERT_TRUE(cap.holds_only(only_kernel(t.kernel())));
    const auto want = load(p, stream);
    EXPECT_TRUE(p.replay_matches(cap, want))
        << "K = " << k << " bits (> 2^24): count in an integer type that holds K";
  }
};

}  // namespace lab09_grading
