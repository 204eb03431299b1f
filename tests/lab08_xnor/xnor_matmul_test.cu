// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 08, xnor_matmul.cu: the padding correction (padding_bits(), xnor_dot(), on the
// CPU), and the XNOR + popcount matmul of every technique of lab08::kTechniques (__popc, the
// popcount table), exactly the float matmul of the same ±1 matrices: on odd shapes and every
// block size, past 2^24 bits per vector and past 2^31 elements of C, and faster than the float
// one-block-per-row kernel (whether the table kernel counts with the table it is handed:
// popcount_table_test.cu). Every graded launcher runs under stream
// capture (the graph may hold only the lab's own kernel), then on new inputs behind the same
// pointers, with NaN-poisoned outputs and shared memory. Helpers in xnor_grading.cuh.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "xnor_grading.cuh"

namespace {

using namespace lab08_grading;

/// Side of the square matrices of the speed tests (a published XNOR-GEMM experiment, scaled up).
constexpr int kPerfSize = 4096;

// ---------------------------------------------------------------------------
// CPU: the padding correction.
// ---------------------------------------------------------------------------
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
// GPU: XNOR matmul, exactly the float matmul of the same ±1 matrices.
// ---------------------------------------------------------------------------

/// K = 20001 and 70001 go far past the 4100 of the first version: a kernel that stages a
/// packed row in a fixed-size buffer fails there.
const MatmulShape kMatmulShapes[] = {
    {1, 1, 1},     {1, 7, 31},     {5, 3, 32},    {7, 9, 33},      {33, 65, 1000},
    {64, 1, 1000}, {1, 130, 1000}, {100, 77, 63}, {17, 257, 1025}, {300, 200, 999},
    {2, 3, 4100},  {9, 70, 20001}, {3, 2, 70001}};

/// Block sizes the launchers accept, at both edges (1 and 1024) and between.
const int kThreadCounts[] = {lab08::kSeedThreads, 256, 100, 1, 1024};

class XnorMatmulGpu : public ::testing::TestWithParam<MatmulShape> {
 protected:
  /// Captures technique @p t's launch for every block size, checks the graph holds only its
  /// kernel, and replays it on two new inputs.
  void expect_exact_for_every_block_size(const char* what, const lab08::Technique& t) {
    const cudalab::DeviceBuffer<std::uint8_t> d_table = table_for(t);
    const auto [m, n, k] = GetParam();
    MatmulCase c(m, n, k);
    std::uint64_t stream = 100;
    for (const int threads : kThreadCounts) {
      SCOPED_TRACE("<<<" + std::to_string(m) + ", " + std::to_string(threads) + ">>>, " + what);
      const CapturedWork cap = CapturedWork::capture([&](cudaStream_t s) {
        t.launcher(c.d_a_bits.data(), c.d_b_bits.data(), d_table.data(), c.d_c.data(), c.m, c.n,
                   c.k, threads, s);
      });
      ASSERT_TRUE(cap.holds_only(only_kernel(t.kernel())));
      for (int run = 0; run < 2; ++run, stream += 2) {
        c.load(stream);
        ASSERT_TRUE(c.replay_matches(cap, c.expected)) << "replay " << run + 1;
      }
    }
  }
};

TEST_P(XnorMatmulGpu, TablePopcountEqualsFloatMatmul) {
  CUDALAB_REQUIRE_GPU();
  expect_exact_for_every_block_size("table popcount", technique("table"));
}

TEST_P(XnorMatmulGpu, IntrinsicPopcountEqualsFloatMatmul) {
  CUDALAB_REQUIRE_GPU();
  expect_exact_for_every_block_size("__popc", technique("popc"));
}

INSTANTIATE_TEST_SUITE_P(Shapes, XnorMatmulGpu, ::testing::ValuesIn(kMatmulShapes), shape_name);

// ---------------------------------------------------------------------------
// GPU: range edges. K above 2^24 bits: a float (or 24-bit) counter of equal bits is exact
// only below 2^24; the columns of B are near copies or near complements of A's rows, so both
// the equal count (XNOR form) and the different count (XOR form) pass 2^24.
// XnorRangeGpu.<Technique>CountsPastTwoToThe24Bits for every technique.
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
 public:
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

/// Technique @p t past 2^24 bits; its inputs are random streams 400 + 100 * (its index in the
/// table): 400 for __popc, 500 for the table.
void counts_past_2_to_24_bits(XnorRangeGpu& f, const lab08::Technique& t) {
  const cudalab::DeviceBuffer<std::uint8_t> d_table = table_for(t);
  MatmulCase& c = *f.c;
  const CapturedWork cap = CapturedWork::capture([&](cudaStream_t s) {
    t.launcher(c.d_a_bits.data(), c.d_b_bits.data(), d_table.data(), c.d_c.data(), f.m, f.n, f.k,
               lab08::kSeedThreads, s);
  });
  ASSERT_TRUE(cap.holds_only(only_kernel(t.kernel())));
  f.load(400 + 100 * std::uint64_t(&t - lab08::kTechniques));
  EXPECT_TRUE(c.replay_matches(cap, c.expected))
      << "K = " << f.k << " bits (> 2^24): count the bits in an integer type that holds K";
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

// ---------------------------------------------------------------------------
// Perf: XNOR against the float one-block-per-row kernel, 4096^2, each technique at
// <<<4096, 32>>> (XnorPerf.<Technique>IsFasterThanFloatOneBlockPerRow, bar "speedup"). The
// candidate is timed as its captured graph; before each timed run one of two input sets is
// copied behind its pointers (untimed) with about sqrt(size) elements changed at positions no
// code of the lab can predict; sampled rows of every earlier run's output (kit::RunRows) are
// checked against the host reference of exactly what that run read (input_view()), and the
// last output on sampled rows (last_input()).
// ---------------------------------------------------------------------------
class XnorPerf : public ::testing::Test {
 public:
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
  void judge_speedup(const cudalab::KernelInfo& kernel, Launch launch, const std::string& name,
                     const std::string& what) {
    const CapturedWork cap = CapturedWork::capture(launch);
    ASSERT_TRUE(cap.holds_only(only_kernel(kernel)));
    // Three random rows of C after every run (kept before the next run's inputs are
    // copied), checked below against the host's product of exactly what that run read.
    kit::RunRows<float> run_rows(d_c_xnor.data(), n, n);
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

/// Technique @p t at <<<4096, 32>>> against the float kernel at <<<4096, 32>>>: its
/// measurement is xnor_<name>_tbitops.
void faster_than_float_one_block_per_row(XnorPerf& perf, const lab08::Technique& t) {
  const cudalab::DeviceBuffer<std::uint8_t> d_table = table_for(t);
  const int n = XnorPerf::n;
  perf.judge_speedup(
      t.kernel(),
      [&](cudaStream_t s) {
        t.launcher(perf.a_in->live.data(), perf.b_in->live.data(), d_table.data(),
                   perf.d_c_xnor.data(), n, n, n, lab08::kSeedThreads, s);
      },
      std::string("xnor_") + t.name,
      std::string("XNOR ") + t.popcount +
          " <<<4096, 32>>> vs float one-block-per-row <<<4096, 32>>>");
}

[[maybe_unused]] const bool kRegistered = [] {
  for_each_technique("XnorRangeGpu.{}CountsPastTwoToThe24Bits", counts_past_2_to_24_bits, __FILE__,
                     __LINE__);
  for_each_technique("XnorPerf.{}IsFasterThanFloatOneBlockPerRow",
                     faster_than_float_one_block_per_row, __FILE__, __LINE__);
  return true;
}();

// ---------------------------------------------------------------------------
// The technique in the machine code (cuobjdump -sass of this grader, no GPU): the popc
// instance of the kernel counts bits with the hardware instruction, not a loop or a table.
// ---------------------------------------------------------------------------
TEST(XnorSassCpu, PopcKernelCountsBitsWithThePopcInstruction) {
  kit::expect_sass(lab08::xnor_matmul_popc_kernel(),
                   {kit::sass_requires({"POPC"},
                                       "the popc kernel must count the bits of each XNOR "
                                       "word with __popc (the POPC instruction)")},
                   "IntrinsicPopcount>");
}

}  // namespace
