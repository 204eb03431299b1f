// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file binary_mma_grading.cuh
 * @brief What the test files of lab 14's grader share: the techniques of lab14::kTechniques
 * (looked up by name, tests registered for them) and one graded product of each, exact under
 * stream capture and on new inputs behind the same pointers; the rule that a compiled kernel
 * holds the AND-popc MMA in its own code (the mma.sync kernels' SASS tests, and the rule's own
 * tests in binary_mma_test.cu); the speed tests' fixture at 4096^3 bits (every technique's, and
 * cuBLAS's recorded in binary_mma_test.cu).
 */
#pragma once

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
#include <string_view>
#include <vector>

#include "binary_mma.cuh"
#include "common/kit.cuh"
#include "common/technique_tests.hpp"
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

namespace lab14_grading {

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
// The techniques of lab14::kTechniques, and one graded product
// ---------------------------------------------------------------------------
/// The technique of lab14::kTechniques named @p name.
inline const lab14::Technique& technique(std::string_view name) {
  return kit::technique_named(lab14::kTechniques, name, "lab14::kTechniques");
}

/**
 * @brief Registers test @p name ("Suite.Case", "{}" standing for the technique's name in
 * CamelCase, e.g. "{}Perf.MultipleOfThePopcCeiling") for every technique of lab14::kTechniques,
 * in table order; each runs @p body(fixture, technique) in a @p Fixture.
 * tests/tools/test_bar_keys.py reads these calls (the literal name, then the body).
 */
template <class Fixture>
void for_each_technique(const char* name, void (*body)(Fixture&, const lab14::Technique&),
                        const char* file, int line) {
  kit::register_for_each(lab14::kTechniques, name, body, file, line);
}

/// for_each_technique() for the techniques @p names names, in that order (the list first).
template <class Fixture, std::size_t N>
void for_each_technique(const char* const (&names)[N], const char* name,
                        void (*body)(Fixture&, const lab14::Technique&), const char* file,
                        int line) {
  kit::register_for_each_named(lab14::kTechniques, names, name, body, file, line);
}

/// for_each_technique() for the techniques @p names names, once per shape of @p shapes: the case
/// "<Case>/<m>x<n>x<k>" with the shape as its value parameter, as
/// INSTANTIATE_TEST_SUITE_P(..., kit::shape_name) names it; each runs @p body(fixture, technique,
/// shape).
template <class Fixture, std::size_t N, std::size_t S>
void for_each_technique_and_shape(const char* const (&names)[N], const char* name,
                                  void (*body)(Fixture&, const lab14::Technique&, const Shape&),
                                  const Shape (&shapes)[S], const char* file, int line) {
  kit::register_for_each_named(lab14::kTechniques, names, name, body, shapes, file, line);
}

/// Kernels a binary_gemm(@p tech's launcher) graph of @p k bits must hold, and nothing else: the
/// popcounts and the tensor-core kernel.
inline GraphRules gemm_rules(const lab14::Technique& tech, int k = 0) {
  GraphRules rules = kit::only_kernel(lab14::popcount_kernel());
  const KernelInfo mma = tech.kernel(k);
  rules.functions.push_back({mma.function, mma.name});
  return rules;
}

/// Lab 14's layout from pack_rows()/pack_cols(): row_words(k) words per vector, zero padded.
inline std::vector<std::uint32_t> repitch(const std::vector<std::uint32_t>& packed, int vectors,
                                          int k) {
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
inline void expect_exact_on_two_inputs(const Shape& shape, const lab14::Technique& tech) {
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

inline bool starts_with(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

inline bool is_mma(const std::string& op) {
  static const std::regex mma(R"([BHIQ]G?MMA(\..*)?)");
  return std::regex_match(op, mma);
}

/// Sorts the MMA opcodes of @p opcodes (one kernel's SASS, in address order).
inline MmaPlacement place_mmas(const std::vector<std::string>& opcodes) {
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

inline std::string joined(const std::set<std::string>& ops) {
  std::string s;
  for (const auto& op : ops) s += (s.empty() ? "" : ", ") + op;
  return s.empty() ? "none" : s;
}

/// Empty when the kernel's own code holds a BMMA ... .AND; otherwise what is wrong.
inline std::string and_popc_verdict(const MmaPlacement& p) {
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
inline void expect_and_popc_mma(const KernelInfo& info) {
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

// ---------------------------------------------------------------------------
// Speed bars: each perf test names its bar ("speedup", "share", ...), and its number and
// provenance are the calibration's (tests/calibration/nvidia-h200.tsv on the reference GPU).
// ---------------------------------------------------------------------------
/// No kernel runs faster than this multiple of the popcount ceiling at the peak clock: the
/// m16n8k256 .b1 instruction rate is about 35x, so a higher figure means skipped work.
inline constexpr double kImpossibleCeilingMultiple = 64.0;
/// Side of the square matrices of the speed tests (K = 4096 bits).
inline constexpr int kPerfSize = 4096;

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
inline std::vector<std::uint32_t> random_words(std::size_t count, std::uint64_t stream) {
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

 public:
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

}  // namespace lab14_grading
