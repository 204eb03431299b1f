// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 14: the ±1 product on the 1-bit tensor cores. The popcounts of the packed
// vectors; the naive (one warp per 16 x 8 tile) and pipelined (128 x 128 block tiles, cp.async,
// ldmatrix) kernels, exact on odd shapes and K not a multiple of 256 bits; the compiled kernels
// hold the AND-popc MMA (cuobjdump -sass); their speed against the CUDA cores' popcount peak
// measured in the same run and as a multiple of the popcount ceiling; cuBLAS SGEMM, TF32 and INT8
// on the same data recorded (not graded). Every graded launcher runs under stream capture (the
// graph may hold only the lab's kernels), then on new inputs behind the same pointers, with
// NaN-poisoned outputs and shared memory.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "binary_mma.cuh"
#include "common/kit.cuh"
#include "cudalab/bench.cuh"
#include "cudalab/bits.hpp"
#include "cudalab/ceilings.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/grading.hpp"
#include "cudalab/graph_capture.cuh"
#include "cudalab/matrix.hpp"
#include "cudalab/testing.hpp"
#include "cudalab/tools.hpp"

namespace {

namespace bits = cudalab::bits;
namespace kit = cudalab::kit;
namespace t = cudalab::testing;
using cudalab::KernelInfo;
using kit::Extent;
using kit::Shape;
using kit::shape_name;
using t::AlternatingInput;
using t::CapturedWork;
using t::GraphRules;

// ---------------------------------------------------------------------------
// Speed bars: each perf test names its bar ("speedup", "share", ...), and its number and
// provenance are the calibration's (tests/calibration/nvidia-h200.tsv on the reference GPU).
// ---------------------------------------------------------------------------
/// Steps of the popcount-peak microbenchmark per timed run (about 0.5 ms on an H200).
constexpr int kPeakIterations = 1024;
/// No kernel runs faster than this multiple of the popcount ceiling at the peak clock: the
/// m16n8k256 .b1 instruction rate is about 35x, so a higher figure means skipped work.
constexpr double kImpossibleCeilingMultiple = 64.0;
/// The persistent kernel's tiers above the bar (shown, not graded): past the epilogue that loads
/// its column popcounts per chunk (11.1-11.7x on an H100, kernel alone), and the reference.
constexpr double kPersistentTierGood = 11.0;
constexpr double kPersistentTierExcellent = 13.0;
/// Advanced part, under ncu: global-load instructions per consumer warp per tile of the persistent
/// kernel at most this (the reference: 10, every popcount loaded once before the mainloop; the
/// column popcounts loaded per 32-column chunk: 130, or 18 with 16-byte loads).
constexpr double kPersistentLoadsPerWarpTile = 16.0;
/// Side of the square matrices of the speed tests (K = 4096 bits).
constexpr int kPerfSize = 4096;

/// The technique of lab14::kTechniques named @p name.
const lab14::Technique& technique(const std::string& name) {
  for (const lab14::Technique& t : lab14::kTechniques) {
    if (name == t.name) return t;
  }
  ADD_FAILURE() << "no technique of lab14::kTechniques is named " << name;
  return lab14::kTechniques[0];
}

/// Kernels a binary_gemm(@p tech's launcher) graph of @p k bits must hold, and nothing else: the
/// popcounts and the tensor-core kernel.
GraphRules gemm_rules(const lab14::Technique& tech, int k = 0) {
  GraphRules rules = kit::only_kernel(lab14::popcount_kernel());
  const KernelInfo mma = tech.kernel(k);
  rules.functions.push_back({mma.function, mma.name});
  return rules;
}

/// Lab 14's layout from pack_rows()/pack_cols(): row_words(k) words per vector, zero padded.
std::vector<std::uint32_t> repitch(const std::vector<std::uint32_t>& packed, int vectors, int k) {
  const int words = bits::words32(k);
  const int pitch = lab14::row_words(k);
  std::vector<std::uint32_t> out(std::size_t(vectors) * pitch, 0u);
  for (int v = 0; v < vectors; ++v) {
    for (int w = 0; w < words; ++w)
      out[std::size_t(v) * pitch + w] = packed[std::size_t(v) * words + w];
  }
  return out;
}

/// One graded product: A by rows, B by columns (lab 14's pitch), the popcount workspace and C.
/// load() puts new ±1 inputs behind the same pointers and computes their exact product.
struct Problem {
  Problem(int m_, int n_, int k_)
      : m(m_),
        n(n_),
        k(k_),
        d_a(std::size_t(m_) * lab14::row_words(k_)),
        d_b(std::size_t(n_) * lab14::row_words(k_)),
        d_pop(std::size_t(m_) + n_),
        d_c(std::size_t(m_) * n_) {}

  void load(std::uint64_t stream) {
    cudalab::kit::SignProduct p = cudalab::kit::SignProduct::random({m, n, k}, stream);
    d_a.upload(repitch(p.a32, m, k));
    d_b.upload(repitch(p.b32, n, k));
    a32 = std::move(p.a32);
    b32 = std::move(p.b32);
    expected = std::move(p.expected);
  }

  /// Poisons C, the workspace and every SM's shared memory, replays @p cap, compares C.
  ::testing::AssertionResult replay_matches(const CapturedWork& cap) {
    t::poison(d_c.data(), d_c.bytes());
    t::poison(d_pop.data(), d_pop.bytes());
    t::poison_shared_memory();
    cap.run();
    return t::matrices_match(expected, d_c.to_host(), m, n, 0.0);
  }

  CapturedWork capture(const lab14::Technique& tech) {
    return CapturedWork::capture([this, &tech](cudaStream_t s) {
      lab14::binary_gemm(tech.launcher, d_a.data(), d_b.data(), d_pop.data(), d_c.data(), m, n, k,
                         s);
    });
  }

  int m, n, k;
  std::vector<float> expected;
  std::vector<std::uint32_t> a32, b32;  // the last inputs, unpitched
  cudalab::DeviceBuffer<std::uint32_t> d_a, d_b;
  cudalab::DeviceBuffer<int> d_pop;
  cudalab::DeviceBuffer<float> d_c;
};

/// Captures binary_gemm(@p tech's launcher) once and replays it on two new inputs; then calls it
/// directly twice more on the same buffers with new inputs
/// (cudalab::kit::expect_fresh_results_on_same_buffers): a launcher (the popcounts' or the
/// MMA kernel's) that remembers its last call and skips the work when called again with the
/// same pointers and sizes returns a stale product there.
void expect_exact_on_two_inputs(const Shape& shape, const lab14::Technique& tech) {
  Problem p(shape.m, shape.n, shape.k);
  const CapturedWork cap = p.capture(tech);
  ASSERT_TRUE(cap.holds_only(gemm_rules(tech, shape.k)));
  for (int run = 0; run < 2; ++run) {  // new data each time; a race may also hide in one run
    SCOPED_TRACE("replay " + std::to_string(run + 1) + " of the captured launch");
    p.load(10 + 2 * run);
    EXPECT_TRUE(p.replay_matches(cap));
  }
  if (::testing::Test::HasFailure()) return;
  kit::expect_fresh_results_on_same_buffers(
      "binary_gemm",
      [&](int round) {
        p.load(20 + 2 * std::uint64_t(round));
        t::poison(p.d_c.data(), p.d_c.bytes());
        t::poison(p.d_pop.data(), p.d_pop.bytes());
      },
      [&](cudaStream_t s) {
        lab14::binary_gemm(tech.launcher, p.d_a.data(), p.d_b.data(), p.d_pop.data(), p.d_c.data(),
                           p.m, p.n, p.k, s);
      },
      [&](int) { EXPECT_TRUE(t::matrices_match(p.expected, p.d_c.to_host(), p.m, p.n, 0.0)); }, 2);
}

// ---------------------------------------------------------------------------
// Given: the baselines are right (not graded).
// ---------------------------------------------------------------------------
const Shape kBaselineShapes[] = {{1, 1, 4}, {7, 9, 36}, {65, 40, 1000}, {130, 17, 1500}};

class GivenBaselinesGpu : public ::testing::TestWithParam<Shape> {};

TEST_P(GivenBaselinesGpu, CublasIsExact) {
  CUDALAB_REQUIRE_GPU();
  const int m = GetParam().m, n = GetParam().n, k = GetParam().k;
  const auto h_a = cudalab::random_matrix(m, k, cudalab::Fill::PlusMinusOne, 1);
  const auto h_b = cudalab::random_matrix(k, n, cudalab::Fill::PlusMinusOne, 2);
  const auto expected = cudalab::reference_matmul(h_a, h_b, m, n, k);
  cudalab::DeviceBuffer<float> d_c(std::size_t(m) * n);
  const auto check = [&](const char* what, auto launch) {
    d_c.fill_bytes(0xFF);
    launch();
    EXPECT_TRUE(t::matrices_match(expected, d_c.to_host(), m, n, 0.0)) << what;
  };
  const auto d_a = cudalab::DeviceBuffer(h_a);
  const auto d_b = cudalab::DeviceBuffer(h_b);
  const lab14::CublasHandle cublas;
  check("cuBLAS SGEMM",
        [&] { lab14::cublas_sgemm(cublas, d_a.data(), d_b.data(), d_c.data(), m, n, k); });
  check("cuBLAS TF32",
        [&] { lab14::cublas_tf32(cublas, d_a.data(), d_b.data(), d_c.data(), m, n, k); });
  std::vector<std::int8_t> a8(h_a.size()), b8(h_b.size());
  for (std::size_t i = 0; i < h_a.size(); ++i) a8[i] = static_cast<std::int8_t>(h_a[i]);
  for (int r = 0; r < k; ++r) {
    for (int j = 0; j < n; ++j)
      b8[std::size_t(j) * k + r] = static_cast<std::int8_t>(h_b[std::size_t(r) * n + j]);
  }
  const auto d_a8 = cudalab::DeviceBuffer(a8);
  const auto d_b8 = cudalab::DeviceBuffer(b8);
  cudalab::DeviceBuffer<std::int32_t> d_c32(std::size_t(m) * n);
  d_c32.fill_bytes(0xFF);
  lab14::cublas_int8(cublas, d_a8.data(), d_b8.data(), d_c32.data(), m, n, k);
  const auto got32 = d_c32.to_host();
  EXPECT_TRUE(
      t::matrices_match(expected, std::vector<float>(got32.begin(), got32.end()), m, n, 0.0))
      << "cuBLAS INT8";
}

INSTANTIATE_TEST_SUITE_P(Given, GivenBaselinesGpu, ::testing::ValuesIn(kBaselineShapes),
                         shape_name);

// The popcount-peak microbenchmark does all its work: every thread's sum equals the host's.
TEST(GivenPopcountPeakGpu, EveryThreadWritesItsSum) {
  CUDALAB_REQUIRE_GPU();
  const long threads = lab14::popcount_peak_threads();
  cudalab::DeviceBuffer<int> d_sink(static_cast<std::size_t>(threads));
  d_sink.fill_bytes(0xFF);
  constexpr int kIterations = 5;
  constexpr std::uint32_t kKey = 0x2545f491u;
  lab14::popcount_peak(kIterations, kKey, d_sink.data());
  const std::vector<int> got = d_sink.to_host();
  for (long i = 0; i < threads; i += 97) {
    ASSERT_EQ(got[std::size_t(i)], lab14::popcount_peak_expected(i, kIterations, kKey))
        << "thread " << i << " of " << threads;
  }
}

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

// ---------------------------------------------------------------------------
// The tensor-core kernels: exact, for M, N not multiples of the tiles and K not a multiple of
// 256 bits (nor of the 1024-bit stage); K = 1 and 300 end inside a 256-bit chunk, 257 one bit
// past it, 1500 after a full stage, 3072 fills exactly the ring of three stages, 3172 four stages
// (past the ring), 20001 twenty stages; 24 x 40 is a multiple of the 8-row half tiles but not of
// 16 rows, and 257 x 300 x 3072 has three block tiles in each direction.
// ---------------------------------------------------------------------------
const Shape kMmaShapes[] = {{16, 8, 256},     {1, 1, 1},        {17, 9, 300},     {24, 40, 257},
                            {33, 47, 515},    {100, 1, 1024},   {1, 100, 1500},   {129, 130, 513},
                            {128, 128, 3172}, {257, 300, 3072}, {700, 900, 2000}, {5, 140, 20001}};

class NaiveMmaGpu : public ::testing::TestWithParam<Shape> {};

TEST_P(NaiveMmaGpu, IsExact) {
  CUDALAB_REQUIRE_CC(8, 0);
  expect_exact_on_two_inputs(GetParam(), technique("naive"));
}

INSTANTIATE_TEST_SUITE_P(Shapes, NaiveMmaGpu, ::testing::ValuesIn(kMmaShapes), shape_name);

class PipelinedMmaGpu : public ::testing::TestWithParam<Shape> {};

TEST_P(PipelinedMmaGpu, IsExact) {
  CUDALAB_REQUIRE_CC(8, 0);
  expect_exact_on_two_inputs(GetParam(), technique("pipelined"));
}

INSTANTIATE_TEST_SUITE_P(Shapes, PipelinedMmaGpu, ::testing::ValuesIn(kMmaShapes), shape_name);

// ---------------------------------------------------------------------------
// Advanced part: the persistent wgmma + TMA kernel (sm_90a: compute capability 9.0 and a build
// whose architectures include 90). Exact on ragged shapes: M and N not multiples of the
// 128 x 256 tile (N % 4 == 0: TMA stores clipped at C's edges, chunks past N skipped), odd N and
// N % 4 == 2 (the direct-store fallback), K tails inside a word, a 256-bit step and a 1024-bit
// stage, K filling the ring of 4 stages exactly (4096) and wrapping it (5200), one word of K
// against the 32-word TMA box (256), more tiles than SMs (1100 x 4100: each block takes several
// tiles, the ring runs across tile boundaries), and K from 65536 on (the wide-K instance: the
// packed 16-bit column popcounts would overflow).
// ---------------------------------------------------------------------------
/// Skips unless binary_mma_persistent() can run here, with the launcher's own reason.
#define LAB14_REQUIRE_PERSISTENT()                                         \
  do {                                                                     \
    CUDALAB_REQUIRE_CC(9, 0);                                              \
    const std::string lab14_why_ = lab14::persistent_unavailable_reason(); \
    if (!lab14_why_.empty()) GTEST_SKIP() << lab14_why_;                   \
  } while (0)

const Shape kPersistentShapes[] = {
    {1, 1, 1},        {16, 8, 256},       {17, 9, 300},     {24, 40, 257},    {33, 47, 515},
    {128, 256, 1024}, {129, 130, 513},    {200, 300, 2000}, {257, 516, 4096}, {100, 1000, 5200},
    {1100, 4100, 64}, {1000, 1996, 1300}, {65, 260, 65536}, {20, 36, 70001}};

class PersistentMmaGpu : public ::testing::TestWithParam<Shape> {};

TEST_P(PersistentMmaGpu, IsExact) {
  LAB14_REQUIRE_PERSISTENT();
  expect_exact_on_two_inputs(GetParam(), technique("persistent"));
}

INSTANTIATE_TEST_SUITE_P(Shapes, PersistentMmaGpu, ::testing::ValuesIn(kPersistentShapes),
                         shape_name);

// Given (not graded): the launcher's argument checks, on the host (no kernel runs).
TEST(GivenPersistentLauncherCpu, RejectsBadArguments) {
  alignas(16) static std::uint32_t words[8] = {};
  alignas(16) static int pops[8] = {};
  alignas(16) static float c[8] = {};
  const auto call = [&](const std::uint32_t* a, const float* cc, int m, int n, int k) {
    lab14::binary_mma_persistent(a, words, pops, pops, const_cast<float*>(cc), m, n, k);
  };
  EXPECT_THROW(call(words, c, 0, 4, 32), std::invalid_argument);
  EXPECT_THROW(call(words, c, 4, -1, 32), std::invalid_argument);
  EXPECT_THROW(call(words, c, 4, 4, 0), std::invalid_argument);
  EXPECT_THROW(call(words + 1, c, 4, 4, 32), std::invalid_argument);  // A 4-byte aligned only
  EXPECT_THROW(call(words, c + 2, 4, 4, 32), std::invalid_argument);  // C 8-byte aligned only
}

// ---------------------------------------------------------------------------
// The compiled kernels hold the AND-popc MMA (cuobjdump -sass of this grader, sm_80 .. sm_90
// code). The XOR form (.xor.popc) is no tensor-core instruction on sm_90: ptxas turns each one
// into a CALL of a subroutine that runs two AND-popc MMAs on negated operands,
// popc(a & ~b) + popc(~a & b), placed after the kernel's last EXIT. So a BMMA counts only in the
// kernel's own code: before its last EXIT, or anywhere in a kernel that calls no subroutine (a
// legitimate CALL, such as the 64-bit division of the naive kernel's tile index, holds no MMA).
// ---------------------------------------------------------------------------
/// The tensor-core MMA opcodes of one compiled kernel, by where they sit.
struct MmaPlacement {
  std::set<std::string> body;      ///< in the kernel's own code
  std::set<std::string> routines;  ///< after the last EXIT of a kernel that CALLs a subroutine
};

bool starts_with(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

bool is_mma(const std::string& op) {
  static const std::regex mma(R"([BHIQ]G?MMA(\..*)?)");
  return std::regex_match(op, mma);
}

/// Sorts the MMA opcodes of @p opcodes (one kernel's SASS, in address order).
MmaPlacement place_mmas(const std::vector<std::string>& opcodes) {
  std::size_t last_exit = opcodes.size();
  bool calls = false;
  for (std::size_t i = 0; i < opcodes.size(); ++i) {
    if (starts_with(opcodes[i], "EXIT")) last_exit = i;
    calls = calls || starts_with(opcodes[i], "CALL");
  }
  MmaPlacement p;
  for (std::size_t i = 0; i < opcodes.size(); ++i) {
    if (!is_mma(opcodes[i])) continue;
    const bool in_routine = calls && last_exit < opcodes.size() && i > last_exit;
    (in_routine ? p.routines : p.body).insert(opcodes[i]);
  }
  return p;
}

std::string joined(const std::set<std::string>& ops) {
  std::string s;
  for (const auto& op : ops) s += (s.empty() ? "" : ", ") + op;
  return s.empty() ? "none" : s;
}

/// Empty when the kernel's own code holds a BMMA ... .AND; otherwise what is wrong.
std::string and_popc_verdict(const MmaPlacement& p) {
  for (const auto& op : p.body) {
    if (starts_with(op, "BMMA") && op.find(".AND") != std::string::npos) return {};
  }
  std::ostringstream os;
  os << "no BMMA ... .AND.POPC (the 1-bit AND tensor-core MMA) in the kernel's own code (its MMA "
        "opcodes: "
     << joined(p.body) << ")";
  if (!p.routines.empty()) {
    os << "; its only 1-bit MMAs (" << joined(p.routines)
       << ") sit in a subroutine it CALLs: that is how ptxas emulates mma ... .xor.popc on sm_90 "
          "(two AND MMAs on negated operands per call)";
  }
  os << ". Use mma_and_popc() (.and.popc) with the popcount identity";
  return os.str();
}

using kit::sm_number;  // 90 for "sm_90" or "sm_90a"; 0 for no sm_ architecture

/// Every sm_80 .. sm_90 SASS function named like @p info holds a BMMA ... .AND in its own code.
void expect_and_popc_mma(const KernelInfo& info) {
  const std::string kernel = info.name;
  const t::SassListing& sass = t::sass_of_this_grader();
  if (!sass.skip_reason.empty()) GTEST_SKIP() << sass.skip_reason;
  int functions = 0;
  int tensor_core_functions = 0;  // any function of sm_80 .. sm_90 code
  for (const t::SassFunction& f : sass.functions) {
    const int arch = sm_number(f.arch);  // 0: not read (GivenSassListingCpu reports that)
    if (arch != 0 && (arch < 80 || arch > 90)) continue;
    ++tensor_core_functions;
    if (f.name.find(kernel) == std::string::npos) continue;
    ++functions;
    const std::string verdict = and_popc_verdict(place_mmas(f.opcodes));
    EXPECT_TRUE(verdict.empty()) << kernel << " (" << f.arch << "): " << verdict;
  }
  if (functions > 0) return;
  if (tensor_core_functions == 0) {
    GTEST_SKIP() << "no sm_80 .. sm_90 code in this grader (built for other architectures); "
                    "the SASS is not checked";
  }
  ADD_FAILURE() << kernel << " is missing from this grader's sm_80 .. sm_90 SASS ("
                << tensor_core_functions << " other functions found): is it never launched?\n"
                << sass.excerpt;
}

TEST(NaiveSassCpu, KernelUsesTheAndPopcTensorCoreMma) {
  expect_and_popc_mma(lab14::mma_naive_kernel());
}

TEST(PipelinedSassCpu, KernelUsesTheAndPopcTensorCoreMma) {
  expect_and_popc_mma(lab14::mma_pipelined_kernel());
}

TEST(PipelinedSassCpu, KernelCopiesItsTilesWithCpAsync) {
  kit::expect_sass(lab14::mma_pipelined_kernel(),
                   {kit::sass_requires({"LDGSTS"},
                                       "the pipelined kernel must fill its stages "
                                       "with cp.async (__pipeline_memcpy_async)")},
                   "", 80);
}

// The persistent kernel's SASS (sm_90a code only: the kernel is a trapping stub elsewhere):
// warpgroup MMAs, TMA loads on mbarriers, and the epilogue's TMA stores. Not checked here: that
// the TMA-store epilogue issues no global load (the odd-N fallback loads the column popcounts in
// the same function, so a static LDG count cannot tell); PersistentProfiler counts the loads the
// kernel executes instead.
void expect_persistent_sass(const KernelInfo& info, const char* instance) {
  kit::expect_sass(
      info,
      {kit::sass_requires({"HGMMA", "IGMMA", "BGMMA", "QGMMA"},
                          "the MMAs must be warpgroup MMAs (wgmma) on operands in shared memory"),
       kit::sass_requires({"UTMALDG"},
                          "the stages must be loaded by TMA (cp.async.bulk.tensor ... "
                          "mbarrier::complete_tx)"),
       kit::sass_requires({"SYNCS"}, "the ring must be guarded by mbarriers"),
       kit::sass_requires({"UTMASTG"},
                          "C must leave through TMA stores (cp.async.bulk.tensor.2d.global."
                          "shared::cta) from the staging buffers")},
      instance, 90);
}

TEST(PersistentSassCpu, KernelUsesWgmmaTmaLoadsAndTmaStores) {
  expect_persistent_sass(lab14::wgmma_persistent_kernel(), "<false>");
}

TEST(PersistentSassCpu, WideKInstanceUsesWgmmaTmaLoadsAndTmaStores) {
  expect_persistent_sass(lab14::wgmma_persistent_wide_k_kernel(), "<true>");
}

// Given (not graded): the rules above on hand-written listings, and cuobjdump's output read as
// this grader expects (architectures and function names found), so that a changed output format
// shows up as a failure here instead of silently skipped SASS tests.
TEST(GivenSassRulesCpu, AndMmaCountsOnlyInTheKernelsOwnCode) {
  const std::string bmma = "BMMA.168256.AND.POPC";
  // The solution's shape: MMAs in the loop, then EXIT.
  EXPECT_EQ(and_popc_verdict(place_mmas({"LDSM.16.M88.4", bmma, bmma, "EXIT", "BRA"})), "");
  // A legitimate subroutine (64-bit division) after the body: the body's MMA counts.
  EXPECT_EQ(and_popc_verdict(place_mmas(
                {"CALL.REL.NOINC", bmma, "EXIT", "BRA", "IMAD", "RET.REL.NODEC", "BRA"})),
            "");
  // A cold block after the last EXIT of a kernel without calls is still the kernel's code.
  EXPECT_EQ(and_popc_verdict(place_mmas({"BRA", "EXIT", bmma, "BRA"})), "");
  // ptxas's .xor.popc emulation: the kernel CALLs a routine of two AND MMAs on negated operands.
  const std::string xor_form = and_popc_verdict(
      place_mmas({"LDSM.16.M88.4", "CALL.REL.NOINC", "CALL.REL.NOINC", "EXIT", "BRA", "LOP3.LUT",
                  bmma, "LOP3.LUT", bmma, "IADD3", "RET.REL.NODEC", "BRA"}));
  EXPECT_NE(xor_form.find("emulates"), std::string::npos) << xor_form;
  EXPECT_NE(and_popc_verdict(place_mmas({"LDS", "POPC", "EXIT"})), "");
  EXPECT_NE(and_popc_verdict(place_mmas({"BMMA.88128.XOR.POPC", "EXIT"})), "");
  EXPECT_EQ(sm_number("sm_90a"), 90);
  EXPECT_EQ(sm_number("sm_80"), 80);
  EXPECT_EQ(sm_number(""), 0);
}

TEST(GivenSassListingCpu, CuobjdumpOutputIsReadAsExpected) {
  const t::SassListing& sass = t::sass_of_this_grader();
  if (!sass.skip_reason.empty()) GTEST_SKIP() << sass.skip_reason;
  ASSERT_FALSE(sass.functions.empty()) << "no `Function : <name>` line read from cuobjdump -sass:\n"
                                       << sass.excerpt;
  const std::string popcount = lab14::popcount_kernel().name;
  bool popcount_found = false;
  for (const t::SassFunction& f : sass.functions) {
    EXPECT_GT(sm_number(f.arch), 0) << f.name << ": no `arch = sm_NN` line before it";
    EXPECT_FALSE(f.opcodes.empty()) << f.name << ": no instruction read";
    popcount_found = popcount_found || f.name.find(popcount) != std::string::npos;
  }
  EXPECT_TRUE(popcount_found) << popcount << " not among the functions read";
}

// ---------------------------------------------------------------------------
// Races, memory errors, barriers (compute-sanitizer) on small shapes with partial tiles and a
// K that wraps the ring of stages. Written out, not CUDALAB_SANITIZER_SUITE: these need
// compute capability 8.0 (the kit's macros require only a GPU, and a sanitizer run over tests
// that all skip would pass).
// ---------------------------------------------------------------------------
constexpr const char* kNaiveSanitized = "Shapes/NaiveMmaGpu.*/33x47x515";
constexpr const char* kPipelinedSanitized =
    "Shapes/PipelinedMmaGpu.*/129x130x513:Shapes/PipelinedMmaGpu.*/128x128x3172";

TEST(NaiveMmaSanitizer, MemcheckFindsNoOutOfBoundsAccess) {
  CUDALAB_REQUIRE_CC(8, 0);
  CUDALAB_EXPECT_SANITIZER_CLEAN("memcheck", kNaiveSanitized);
}
TEST(PipelinedMmaSanitizer, RacecheckFindsNoSharedMemoryHazard) {
  CUDALAB_REQUIRE_CC(8, 0);
  CUDALAB_EXPECT_SANITIZER_CLEAN("racecheck", kPipelinedSanitized);
}
TEST(PipelinedMmaSanitizer, MemcheckFindsNoOutOfBoundsAccess) {
  CUDALAB_REQUIRE_CC(8, 0);
  CUDALAB_EXPECT_SANITIZER_CLEAN("memcheck", kPipelinedSanitized);
}
// The persistent kernel on shapes with ragged tiles (TMA stores and the direct-store fallback)
// and K that wraps the ring; racecheck sees the staging buffers' shared stores (the TMA unit's
// reads of them are ordered by the proxy fence and the bulk wait, which it may not model).
constexpr const char* kPersistentSanitized =
    "Shapes/PersistentMmaGpu.*/33x47x515:Shapes/PersistentMmaGpu.*/200x300x2000:"
    "Shapes/PersistentMmaGpu.*/100x1000x5200";

TEST(PersistentMmaSanitizer, RacecheckFindsNoSharedMemoryHazard) {
  LAB14_REQUIRE_PERSISTENT();
  CUDALAB_EXPECT_SANITIZER_CLEAN("racecheck", kPersistentSanitized);
}
TEST(PersistentMmaSanitizer, MemcheckFindsNoOutOfBoundsAccess) {
  LAB14_REQUIRE_PERSISTENT();
  CUDALAB_EXPECT_SANITIZER_CLEAN("memcheck", kPersistentSanitized);
}
TEST(PersistentMmaSanitizer, SynccheckFindsNoInvalidBarrier) {
  LAB14_REQUIRE_PERSISTENT();
  CUDALAB_EXPECT_SANITIZER_CLEAN("synccheck", kPersistentSanitized);
}
// The persistent kernel's epilogue under ncu: global-load instructions per consumer warp per
// tile, from its run on 1100 x 4100 x 64 (153 tiles of 128 x 256 on at most 132 blocks: every
// block's loop crosses tile boundaries; N % 4 == 0, the TMA-store epilogue). The reference loads
// each thread's two row popcounts and its 2 x 4 column popcounts before the mainloop: at most 10
// per warp per tile (9.56 measured on this shape, whose last tile row is partly past M). An
// epilogue that loads the column popcounts per 32-column chunk issues 130 (16-byte loads per chunk:
// at least 18), right results at 11.1-11.7x the popc ceiling (H100), which the perf bar alone
// cannot tell from the reference.
TEST(PersistentProfiler, EpilogueLoadsNoPopcounts) {
  LAB14_REQUIRE_PERSISTENT();
  const std::string loads = "smsp__sass_inst_executed_op_global_ld.sum";
  const Shape shape{1100, 4100, 64};
  const KernelInfo kernel = lab14::wgmma_persistent_kernel();
  const cudalab::testing::NcuRun run = cudalab::testing::run_ncu(
      {loads}, kernel.name, "Shapes/PersistentMmaGpu.IsExact/" + kit::to_string(shape));
  if (!run.available) GTEST_SKIP() << run.skip_reason;
  ASSERT_EQ(run.exit_code, 0) << cudalab::testing::excerpt(run.output);
  ASSERT_FALSE(run.kernels.empty()) << "ncu profiled no launch of " << kernel.name;
  double l = 0.0;
  for (const auto& kern : run.kernels) {
    const auto li = kern.values.find(loads);
    ASSERT_TRUE(li != kern.values.end()) << kern.name << ": " << loads << " missing in the report";
    l += li->second;
  }
  const int tiles = ((shape.m + lab14::kWsBlockM - 1) / lab14::kWsBlockM) *
                    ((shape.n + lab14::kWsBlockN - 1) / lab14::kWsBlockN);
  const double consumer_warps = 2.0 * 128 / 32;  // warpgroups 1 and 2
  const double per_warp_tile = l / (double(run.kernels.size()) * tiles * consumer_warps);
  t::record_measurement("persistent_global_loads_per_warp_tile", per_warp_tile, "",
                        kPersistentLoadsPerWarpTile, t::Bound::kAtMost);
  EXPECT_LE(per_warp_tile, kPersistentLoadsPerWarpTile)
      << kernel.name << ": " << per_warp_tile << " global-load instructions per consumer warp per "
      << "tile (" << l << " in " << run.kernels.size() << " launches of " << tiles
      << " tiles); the reference issues 9.56 here (two row and eight column popcounts per "
      << "thread, before the mainloop, the row loads of rows past M skipped). Does the epilogue "
      << "load the column popcounts per chunk? Load "
      << "them once per tile, before the mainloop, and hand them out with __shfl_sync.";
}

TEST(PipelinedMmaSanitizer, SynccheckFindsNoInvalidBarrier) {
  CUDALAB_REQUIRE_CC(8, 0);
  CUDALAB_EXPECT_SANITIZER_CLEAN("synccheck", kPipelinedSanitized);
}

// ---------------------------------------------------------------------------
// Perf, 4096^3 bits. The candidate is timed as its captured graph (popcounts + MMA kernel);
// before each timed run one of two input sets is copied behind its pointers (untimed) with about
// sqrt(n) words changed at positions no code of the lab can predict, and the last output is
// checked in full against cuBLAS SGEMM on exactly what that run read (last_input(), unpacked;
// exact on ±1 data) and on rows against the host.
// ---------------------------------------------------------------------------
/// @p count random 32-bit words: packed ±1 vectors with every bit drawn (K = kPerfSize has no
/// padding bits). Drawing the bits directly keeps the perf tests' setup short (packing 4096^2
/// floats four times took seconds).
std::vector<std::uint32_t> random_words(std::size_t count, std::uint64_t stream) {
  std::mt19937_64 rng = cudalab::make_rng(stream);
  std::vector<std::uint32_t> w(count);
  for (std::size_t i = 0; i < count; i += 2) {
    const std::uint64_t r = rng();
    w[i] = static_cast<std::uint32_t>(r);
    if (i + 1 < count) w[i + 1] = static_cast<std::uint32_t>(r >> 32);
  }
  return w;
}

class PerfFixture : public ::testing::Test {
 protected:
  static constexpr int n = kPerfSize;
  static_assert(lab14::row_words(kPerfSize) == kPerfSize / 32 && kPerfSize % 64 == 0,
                "the perf inputs have no padding words or bits, in 32- and 64-bit words");

  void SetUp() override {
    CUDALAB_REQUIRE_CC(8, 0);
    for (int set = 0; set < 2; ++set) {
      a32[set] = random_words(std::size_t(n) * n / 32, 100 + 2 * set);  // A by rows
      b32[set] = random_words(std::size_t(n) * n / 32, 101 + 2 * set);  // B by columns
    }
    a_in = std::make_unique<AlternatingInput<std::uint32_t>>(a32[0], a32[1]);
    b_in = std::make_unique<AlternatingInput<std::uint32_t>>(b32[0], b32[1]);
    d_pop = cudalab::DeviceBuffer<int>(2 * std::size_t(n));
    d_c = cudalab::DeviceBuffer<float>(std::size_t(n) * n);
    d_c_base = cudalab::DeviceBuffer<float>(std::size_t(n) * n);
    run_rows = std::make_unique<cudalab::kit::RunRows<float>>(d_c.data(), n, n);
  }

  CapturedWork capture(const lab14::Technique& tech) {
    CapturedWork cap = CapturedWork::capture([this, &tech](cudaStream_t s) {
      lab14::binary_gemm(tech.launcher, a_in->live.data(), b_in->live.data(), d_pop.data(),
                         d_c.data(), n, n, n, s);
    });
    EXPECT_TRUE(cap.holds_only(gemm_rules(tech)));
    return cap;
  }

  /// Options whose before_candidate step keeps the checked rows of C as the previous run left
  /// them, then copies the next inputs (a set with that run's changed words).
  cudalab::BenchOptions alternating() {
    run_rows->clear();
    cudalab::BenchOptions bo;
    bo.before_candidate = run_rows->before_each_run(*a_in, [this](cudaStream_t s) {
      a_in->copy_next(s);
      b_in->copy_next(s);
    });
    return bo;
  }

  /// The timed kernel's C equals cuBLAS SGEMM's on exactly what the last timed run read (the
  /// operands' last_input(): its set with that run's changed words; exact: ±1 products and their
  /// integer sums below 2^24 are exact in FP32) and, on rows, the host's. The popcounts the MMA
  /// kernel's epilogue uses need no separate check of consistency: binary_gemm() computes them
  /// inside the timed graph from the same live operands, so they always describe the bits the
  /// MMA kernel read, and C is checked against a reference computed from those bits alone.
  /// First, the checked rows of every earlier run (and of the last warm-up) against the host's
  /// product of exactly what that run read: a remembered result fails whichever run served it.
  void expect_output_correct(const char* what) {
    run_rows->expect_every_run(
        [this](long run) { return cudalab::testing::input_views(*a_in, *b_in, run); },
        [](const auto& in, int row) {
          return bits::binary_matmul_rows(in.first, in.second, n, n, row, row + 1);
        },
        what);
    const std::vector<float> got = d_c.to_host();
    const std::vector<std::uint32_t> a_last = a_in->last_input();
    const std::vector<std::uint32_t> b_last = b_in->last_input();
    {
      const auto d_a_set = cudalab::DeviceBuffer(bits::unpack_rows(a_last, n, n));
      const auto d_b_set = cudalab::DeviceBuffer(bits::unpack_cols(b_last, n, n));
      cudalab::DeviceBuffer<float> d_ref(std::size_t(n) * n);
      const lab14::CublasHandle handle;
      lab14::cublas_sgemm(handle, d_a_set.data(), d_b_set.data(), d_ref.data(), n, n, n);
      EXPECT_TRUE(t::matrices_match(d_ref.to_host(), got, n, n, 0.0))
          << what << ": the last timed result (input set " << a_in->last()
          << " with that run's changed words) differs from cuBLAS SGEMM on the same data";
    }
    for (const int row : kCheckedRows) {
      EXPECT_TRUE(t::matrices_match(bits::binary_matmul_rows(a_last, b_last, n, n, row, row + 1),
                                    std::vector<float>(got.begin() + std::ptrdiff_t(row) * n,
                                                       got.begin() + std::ptrdiff_t(row + 1) * n),
                                    1, n, 0.0))
          << what << ": row " << row << " of the last timed run against the host reference";
    }
  }

  /// Times binary_gemm(@p tech's launcher) (popcounts + tensor-core kernel) and judges its multiple
  /// of the popcount ceiling at the measured clock (what: "binary_mma_<name>", its launcher's):
  /// at least the test's "<what>_x_popc_ceiling" bar
  /// (scaled by CUDALAB_SPEEDUP_SCALE), and above 1x whatever the scale. At or below 1x a CUDA-core
  /// kernel counting with POPC could have done the work: the given popcount peak reaches 0.95 of
  /// the ceiling, lab 09's register-tiled kernel 0.92, and a CUDA-core kernel with one idle MMA in
  /// it passes the SASS tests; the reference's naive kernel measures 1.10-1.11 on the H100 and
  /// the H200. (Carry-save adders of bitwise instructions, which need one POPC per several
  /// words, could take a CUDA-core kernel past 1x in principle; none is known to.)
  void expect_ceiling_multiple(const lab14::Technique& tech, std::vector<t::Tier> tiers = {}) {
    const std::string what = std::string("binary_mma_") + tech.name;
    const CapturedWork cap = capture(tech);
    cudalab::BenchOptions bo = alternating();
    bo.reps = 15;
    d_c.fill_bytes(0xFF);
    const cudalab::BenchStats stats = cudalab::benchmark(cap.as_work(), bo);
    expect_output_correct(what.c_str());
    const cudalab::Ceilings ceilings = cudalab::device_ceilings();
    const double rate = double(n) * n * n / (stats.median_ms * 1e9);  // Tbit-MAC/s
    const double multiple = rate / ceilings.popc_tbitops;
    const double threshold = t::speed_bar(what + "_x_popc_ceiling", t::Bound::kAtLeast, multiple) *
                             cudalab::speedup_scale();
    t::record_measurement(what + "_ms", stats.median_ms, "ms");
    t::record_measurement(what + "_tbitmacs", rate, "Tbit-MAC/s");
    t::record_measurement("popc_ceiling", ceilings.popc_tbitops, "Tbit-MAC/s");
    t::Measurement rec;
    rec.name = what + "_x_popc_ceiling";
    rec.value = multiple;
    rec.unit = "x";
    rec.threshold = threshold;
    rec.bound = t::Bound::kAtLeast;
    rec.tiers = tiers;
    t::record_measurement(rec);
    t::expect_possible(rate, kImpossibleCeilingMultiple * ceilings.popc_tbitops_max, "Tbit-MAC/s",
                       what + " (64x the popcount ceiling at the peak clock)");
    EXPECT_GE(multiple, threshold)
        << what << " reaches " << rate << " Tbit-MAC/s = " << multiple << "x the popc ceiling ("
        << ceilings.describe() << "), needs >= " << threshold << "x (median of "
        << stats.samples_ms.size() << " runs, " << stats.median_ms << " ms)";
    EXPECT_GT(multiple, 1.0) << what << " does not pass the popcount ceiling of the CUDA cores "
                             << "(1x, not scaled): the tensor cores do not do the work";
  }

  std::vector<std::uint32_t> a32[2], b32[2];  // the two input sets, packed (no padding)
  std::unique_ptr<AlternatingInput<std::uint32_t>> a_in, b_in;
  cudalab::DeviceBuffer<int> d_pop;
  cudalab::DeviceBuffer<float> d_c, d_c_base;
  /// Rows of C the host checks in the last run (besides cuBLAS on all of C).
  static constexpr std::array<int, 3> kCheckedRows = {0, n / 2 + 3, n - 1};
  /// Three random rows of C after every run.
  std::unique_ptr<cudalab::kit::RunRows<float>> run_rows;
};

class PipelinedPerf : public PerfFixture {};

// The same-run baseline is the given microbenchmark's XOR-popcount rate on every SM: the most
// any binary GEMM on the CUDA cores can do (lab 09's register-tiled kernel reached 92 % of the
// computed popcount ceiling in the reference run). Rates are compared, in bit multiply-adds per
// second.
TEST_F(PipelinedPerf, BeatsTheCudaCorePopcountPeak) {
  const CapturedWork cap = capture(technique("pipelined"));
  cudalab::DeviceBuffer<int> d_sink(static_cast<std::size_t>(lab14::popcount_peak_threads()));
  d_c.fill_bytes(0xFF);
  const cudalab::Comparison cmp = cudalab::compare(
      [&](cudaStream_t s) { lab14::popcount_peak(kPeakIterations, 0x9e3779b9u, d_sink.data(), s); },
      cap.as_work(), alternating());
  expect_output_correct("binary_mma_pipelined");
  const double peak =
      lab14::popcount_peak_bit_macs(kPeakIterations) / (cmp.baseline.median_ms * 1e9);
  const double rate = double(n) * n * n / (cmp.candidate.median_ms * 1e9);  // Tbit-MAC/s
  const double ratio = rate / peak;
  const double bar = t::speed_bar("pipelined_over_popcount_peak", t::Bound::kAtLeast, ratio);
  const double threshold = bar * cudalab::speedup_scale();
  const cudalab::Ceilings ceilings = cudalab::device_ceilings();
  t::record_measurement("popcount_peak_tbitmacs", peak, "Tbit-MAC/s");
  t::record_measurement("popcount_peak_x_popc_ceiling", peak / ceilings.popc_tbitops, "x");
  t::record_measurement("binary_mma_pipelined_tbitmacs", rate, "Tbit-MAC/s");
  t::record_measurement("pipelined_over_popcount_peak", ratio, "x", threshold, t::Bound::kAtLeast);
  EXPECT_GE(ratio, threshold) << "binary_mma_pipelined (with its popcounts) reaches " << rate
                              << " Tbit-MAC/s (median " << cmp.candidate.median_ms
                              << " ms) = " << ratio << "x the CUDA cores' popcount peak measured "
                              << "in this run (" << peak << " Tbit-MAC/s, median "
                              << cmp.baseline.median_ms << " ms), needs >= " << threshold
                              << "x (bar " << bar << "x x CUDALAB_SPEEDUP_SCALE "
                              << cudalab::speedup_scale() << ")";
}

TEST_F(PipelinedPerf, MultipleOfThePopcCeiling) {
  expect_ceiling_multiple(technique("pipelined"));
}

class NaivePerf : public PerfFixture {};

TEST_F(NaivePerf, MultipleOfThePopcCeiling) {
  expect_ceiling_multiple(technique("naive"));
}

// Advanced part: the persistent kernel (with its popcounts) as a multiple of the popc ceiling.
class PersistentPerf : public PerfFixture {
 protected:
  void SetUp() override {
    PerfFixture::SetUp();
    if (IsSkipped()) return;
    const std::string why = lab14::persistent_unavailable_reason();
    if (!why.empty()) GTEST_SKIP() << why;
  }
};

TEST_F(PersistentPerf, MultipleOfThePopcCeiling) {
  expect_ceiling_multiple(technique("persistent"),
                          {{"good", kPersistentTierGood}, {"excellent", kPersistentTierExcellent}});
}

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

// ---------------------------------------------------------------------------
// Given (recorded, not graded): cuBLAS SGEMM, TF32 and INT8 on the same ±1 data at 4096^3, and
// the pipelined kernel's speedup over each: the fair answer to "does it beat cuBLAS?".
// ---------------------------------------------------------------------------
class GivenCublasPerf : public PerfFixture {};

TEST_F(GivenCublasPerf, RecordsCublasOnTheSameData) {
  // Input set 0 unpacked: A row-major, B row-major (K x N) for SGEMM/TF32, and B by columns
  // (N x K) for INT8.
  const std::size_t count = std::size_t(n) * n;
  const std::vector<float> a = bits::unpack_rows(a32[0], n, n);
  const std::vector<float> b = bits::unpack_cols(b32[0], n, n);
  std::vector<std::int8_t> a8(count), b8(count);
  for (std::size_t i = 0; i < count; ++i) a8[i] = static_cast<std::int8_t>(a[i]);
  for (int e = 0; e < n; ++e) {
    for (int j = 0; j < n; ++j) {
      b8[std::size_t(j) * n + e] = static_cast<std::int8_t>(b[std::size_t(e) * n + j]);
    }
  }
  const auto d_a = cudalab::DeviceBuffer(a);
  const auto d_b = cudalab::DeviceBuffer(b);
  const auto d_a8 = cudalab::DeviceBuffer(a8);
  const auto d_b8 = cudalab::DeviceBuffer(b8);
  cudalab::DeviceBuffer<std::int32_t> d_c32(count);
  const lab14::CublasHandle handle;
  const CapturedWork cap = capture(technique("pipelined"));
  const std::pair<const char*, cudalab::GpuWork> baselines[] = {
      {"cublas_sgemm",
       [&](cudaStream_t s) {
         lab14::cublas_sgemm(handle, d_a.data(), d_b.data(), d_c_base.data(), n, n, n, s);
       }},
      {"cublas_tf32",
       [&](cudaStream_t s) {
         lab14::cublas_tf32(handle, d_a.data(), d_b.data(), d_c_base.data(), n, n, n, s);
       }},
      {"cublas_int8",
       [&](cudaStream_t s) {
         lab14::cublas_int8(handle, d_a8.data(), d_b8.data(), d_c32.data(), n, n, n, s);
       }},
  };
  for (const auto& [name, work] : baselines) {
    const cudalab::Comparison cmp = cudalab::compare(work, cap.as_work(), alternating());
    const double tops = 2.0 * double(n) * n * n / (cmp.baseline.median_ms * 1e9);
    t::record_measurement(std::string(name) + "_ms", cmp.baseline.median_ms, "ms");
    t::record_measurement(std::string(name) + "_tops", tops, "TOPS");
    t::record_measurement(std::string("pipelined_over_") + name, cmp.speedup, "x");
  }
  expect_output_correct("binary_mma_pipelined");
}

}  // namespace
