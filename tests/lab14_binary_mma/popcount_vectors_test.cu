// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 14, popcount_vectors.cu: one count per packed vector, exact, on vectors past a
// block's worth of warps and K from 1 bit to past 2^14 words, under stream capture (the graph may
// hold only its kernel), then called again on new vectors behind the same pointers; and its
// bandwidth as a share of a device-to-device copy. Helpers in binary_mma_grading.cuh.
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "binary_mma_grading.cuh"

namespace {

using namespace lab14_grading;

// ---------------------------------------------------------------------------
// popcount_vectors: one count per packed vector, exact; vectors past a block's worth of warps,
// K from 1 bit to past 2^14 words.
// ---------------------------------------------------------------------------
/// Extent: vectors (rows) x K (bits per vector).
class PopcountGpu : public ::testing::TestWithParam<Extent> {};

TEST_P(PopcountGpu, CountsEveryVector) {
  CUDALAB_REQUIRE_GPU();
  const int vectors = GetParam().rows, k = GetParam().cols;
  cudalab::DeviceBuffer<std::uint32_t> d_bits(std::size_t(vectors) * lab14::row_words(k));
  cudalab::DeviceBuffer<int> d_counts(vectors);
  const CapturedWork cap = CapturedWork::capture([&](cudaStream_t s) {
    lab14::popcount_vectors(d_bits.data(), vectors, k, d_counts.data(), s);
  });
  ASSERT_TRUE(cap.holds_only(kit::only_kernel(lab14::popcount_kernel())));
  for (int run = 0; run < 2; ++run) {
    const auto h = cudalab::random_matrix(vectors, k, cudalab::Fill::PlusMinusOne, 20 + run);
    const auto packed = bits::pack_rows(h, vectors, k);
    d_bits.upload(repitch(packed, vectors, k));
    t::poison(d_counts.data(), d_counts.bytes());
    cap.run();
    const std::vector<int> got = d_counts.to_host();
    const int words = bits::words32(k);
    int wrong = 0;
    for (int v = 0; v < vectors; ++v) {
      int want = 0;
      for (int w = 0; w < words; ++w) want += bits::popcount(packed[std::size_t(v) * words + w]);
      if (got[v] != want && wrong++ == 0) {
        ADD_FAILURE() << "vector " << v << " of " << vectors << " (K = " << k << "): expected "
                      << want << " one bits, got " << got[v];
      }
    }
    EXPECT_EQ(wrong, 0) << "wrong counts (run " << run + 1 << ")";
  }
  if (HasFailure()) return;
  // Same buffers, new data: popcount_vectors called directly twice more with the same pointers
  // and sizes, new vectors behind them.
  std::vector<std::uint32_t> packed;
  kit::expect_fresh_results_on_same_buffers(
      "popcount_vectors",
      [&](int round) {
        packed = bits::pack_rows(
            cudalab::random_matrix(vectors, k, cudalab::Fill::PlusMinusOne, 30 + round), vectors,
            k);
        d_bits.upload(repitch(packed, vectors, k));
        t::poison(d_counts.data(), d_counts.bytes());
      },
      [&](cudaStream_t s) {
        lab14::popcount_vectors(d_bits.data(), vectors, k, d_counts.data(), s);
      },
      [&](int) {
        const std::vector<int> got = d_counts.to_host();
        const int words = bits::words32(k);
        for (int v = 0; v < vectors; ++v) {
          int want = 0;
          for (int w = 0; w < words; ++w)
            want += bits::popcount(packed[std::size_t(v) * words + w]);
          ASSERT_EQ(got[std::size_t(v)], want) << "vector " << v << " of " << vectors;
        }
      },
      2);
}

INSTANTIATE_TEST_SUITE_P(Shapes, PopcountGpu,
                         ::testing::Values(Extent{1, 1}, Extent{3, 33}, Extent{9, 1000},
                                           Extent{300, 257}, Extent{1000, 4096}, Extent{5, 20001}),
                         shape_name);

// popcount_vectors reads 2^16 vectors of 4096 bits (32 MB) once: a memory-bound kernel, judged
// against a device-to-device copy of the same bytes.
TEST(PopcountPerf, ReadsAtAShareOfCopyBandwidth) {
  CUDALAB_REQUIRE_GPU();
  constexpr int vectors = 1 << 16, k = 4096;
  const std::size_t words = std::size_t(vectors) * lab14::row_words(k);
  std::vector<std::uint32_t> set[2];
  for (int s = 0; s < 2; ++s) {
    std::mt19937_64 rng = cudalab::make_rng(70 + s);
    set[s].resize(words);
    for (auto& w : set[s]) w = static_cast<std::uint32_t>(rng());
  }
  AlternatingInput<std::uint32_t> in(set[0], set[1]);
  cudalab::DeviceBuffer<int> d_counts(vectors);
  const CapturedWork cap = CapturedWork::capture([&](cudaStream_t s) {
    lab14::popcount_vectors(in.live.data(), vectors, k, d_counts.data(), s);
  });
  ASSERT_TRUE(cap.holds_only(kit::only_kernel(lab14::popcount_kernel())));
  cudalab::BenchOptions bo;
  bo.before_candidate = [&](cudaStream_t s) { in.copy_next(s); };
  d_counts.fill_bytes(0xFF);  // -1 until the timed kernel writes it
  const cudalab::BenchStats stats = cudalab::benchmark(cap.as_work(), bo);
  const std::vector<int> got = d_counts.to_host();
  // Every vector, against exactly what the last timed run read: about sqrt(size) words changed
  // (a few vectors in a hundred), so a few sampled vectors would miss a result remembered from an
  // earlier run of the same set.
  const std::vector<std::uint32_t> last = in.last_input();
  int wrong = 0;
  for (int v = 0; v < vectors; ++v) {
    int want = 0;
    for (int w = 0; w < lab14::row_words(k); ++w) {
      want += bits::popcount(last[std::size_t(v) * lab14::row_words(k) + w]);
    }
    if (got[v] != want && wrong++ == 0) {
      ADD_FAILURE() << "popcount of vector " << v << " after the timed runs: " << got[v]
                    << ", expected " << want << " (input set " << in.last()
                    << " with that run's changed words)";
    }
  }
  EXPECT_EQ(wrong, 0) << "vectors whose popcount differs from the last timed run's input";
  const double gbps = double(words) * 4 / (stats.median_ms * 1e6);
  const double copy_gbps = cudalab::testing::d2d_copy_gbps(words * 4);
  t::expect_share(gbps, copy_gbps, "GB/s",
                  "popcount_vectors (bytes read) vs a device-to-device copy (read + write)");
}

}  // namespace
