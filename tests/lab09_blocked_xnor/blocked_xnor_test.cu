// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 09, what spans its files (blocked_xnor.cuh): the speed tests at 4096^2, which
// race the techniques of lab09::kTechniques against each other and against cuBLAS SGEMM on the
// same ±1 data (the tiled kernels against the given naive ones, the tiled __popc kernel and the
// register-tiled kernel against cuBLAS) and measure the register-tiled kernel's share of the
// popcount ceiling of the GPU. One test file per technique file besides (xnor_naive_test.cu,
// tiled_xnor_test.cu, register_tiled_xnor_test.cu); helpers in blocked_xnor_grading.cuh.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "blocked_xnor_grading.cuh"
#include "cudalab/ceilings.cuh"

namespace {

using namespace lab09_grading;

// ---------------------------------------------------------------------------
// Speed bars: each perf test names its bar ("speedup", "share", ...), and its number and
// provenance are the calibration's (tests/calibration/nvidia-h200.tsv on the reference GPU).
// ---------------------------------------------------------------------------
/// Side of the square matrices of the speed tests.
constexpr int kPerfSize = 4096;

// ---------------------------------------------------------------------------
// Perf, 4096^2. The candidate is timed as its captured graph; before each timed run one of
// two input sets is copied behind its pointers (untimed) with about sqrt(size) words changed at
// positions no code of the lab can predict, and the last output is checked in full against
// cuBLAS on exactly what that run read (last_input(), unpacked; exact on ±1 data) and on a
// few rows against the host. Each fixture allocates only what its tests use.
// ---------------------------------------------------------------------------

class PerfFixture : public ::testing::Test {
 protected:
  static constexpr int n = kPerfSize;

  void SetUp() override {
    CUDALAB_REQUIRE_GPU();
    for (int set = 0; set < 2; ++set) {
      h_a[set] = cudalab::random_matrix(n, n, cudalab::Fill::PlusMinusOne, 100 + 2 * set);
      h_b[set] = cudalab::random_matrix(n, n, cudalab::Fill::PlusMinusOne, 101 + 2 * set);
      a32[set] = bits::pack_rows(h_a[set], n, n);
      b32[set] = bits::pack_cols(h_b[set], n, n);
    }
    d_c = cudalab::DeviceBuffer<float>(std::size_t(n) * n);
    d_c_base = cudalab::DeviceBuffer<float>(std::size_t(n) * n);
    run_rows = std::make_unique<kit::RunRows<float>>(d_c.data(), n, n);
  }

  /// The before_candidate step: keeps the checked rows of C as the previous run left them
  /// (kit::RunRows), then copies the next inputs (a set with that run's changed words) behind
  /// the pointers.
  cudalab::GpuWork next_inputs() {
    if (a_in32) {
      return run_rows->before_each_run(*a_in32, [this](cudaStream_t s) {
        a_in32->copy_next(s);
        b_in32->copy_next(s);
      });
    }
    return run_rows->before_each_run(*a_in64, [this](cudaStream_t s) {
      a_in64->copy_next(s);
      b_in64->copy_next(s);
    });
  }
  /// The input set of the last timed run.
  int last_set() const { return a_in32 ? a_in32->last() : a_in64->last(); }

  /// A's packed rows and B's packed columns (32-bit words) as run @p r read them.
  std::pair<std::vector<std::uint32_t>, std::vector<std::uint32_t>> packed_inputs_of_run(long r) {
    if (a_in32) return {a_in32->input_of_run(r), b_in32->input_of_run(r)};
    return {bits::pack_rows(bits::unpack_rows64(a_in64->input_view(r), n, n), n, n),
            bits::pack_cols(bits::unpack_cols64(b_in64->input_view(r), n, n), n, n)};
  }

  /// The checked rows of every run before the last (and of the last warm-up) against the
  /// host's product of exactly what that run read: a remembered result fails whichever run
  /// served it.
  void expect_every_run_correct(const char* what) {
    run_rows->expect_every_run([this](long run) { return packed_inputs_of_run(run); },
                               [](const auto& in, int row) {
                                 return bits::binary_matmul_rows(in.first, in.second, n, n, row,
                                                                 row + 1);
                               },
                               what);
  }

  /// The 32-bit operands of the tiled kernels, alternating between the two sets.
  void use_packed32() {
    a_in32 = std::make_unique<AlternatingInput<std::uint32_t>>(a32[0], a32[1]);
    b_in32 = std::make_unique<AlternatingInput<std::uint32_t>>(b32[0], b32[1]);
  }
  /// The 64-bit operands of the register-tiled kernel, alternating between the two sets.
  void use_packed64() {
    a_in64 = std::make_unique<AlternatingInput<std::uint64_t>>(bits::pack_rows64(h_a[0], n, n),
                                                               bits::pack_rows64(h_a[1], n, n));
    b_in64 = std::make_unique<AlternatingInput<std::uint64_t>>(bits::pack_cols64(h_b[0], n, n),
                                                               bits::pack_cols64(h_b[1], n, n));
  }
  /// The naive baseline's word-major B of set 0 (and A of set 0).
  void use_naive_inputs() {
    d_a32_base = cudalab::DeviceBuffer(a32[0]);
    d_b32_word_major = cudalab::DeviceBuffer(bits::pack_cols_word_major(h_b[0], n, n));
  }
  /// The float data of set 0 for cuBLAS.
  void use_floats() {
    d_a = cudalab::DeviceBuffer(h_a[0]);
    d_b = cudalab::DeviceBuffer(h_b[0]);
    handle = std::make_unique<lab09::CublasHandle>();
  }

  void cublas(cudaStream_t s) {
    lab09::cublas_sgemm(*handle, d_a.data(), d_b.data(), d_c_base.data(), n, n, n, s);
  }

  /// The given naive technique @p t on set 0 (use_naive_inputs(); the popcount table
  /// @p d_table where it reads one) into d_c_base.
  cudalab::GpuWork given_baseline(const lab09::Technique& t, const std::uint8_t* d_table) {
    lab09::PackedOperands in;
    in.a32 = d_a32_base.data();
    in.b32_word_major = d_b32_word_major.data();
    in.table = d_table;
    return [this, &t, in](cudaStream_t s) { t.launcher(in, d_c_base.data(), n, n, n, s); };
  }

  /// Technique @p t on the live operands (the 32-bit or the 64-bit ones) into d_c.
  void launch_live(const lab09::Technique& t, const std::uint8_t* d_table, cudaStream_t s) {
    lab09::PackedOperands in;
    if (a_in32) {
      in.a32 = a_in32->live.data();
      in.b32 = b_in32->live.data();
    } else {
      in.a64 = a_in64->live.data();
      in.b64 = b_in64->live.data();
    }
    in.table = d_table;
    t.launcher(in, d_c.data(), n, n, n, s);
  }

  /// Times @p baseline against technique @p t captured on the live operands (graph may hold
  /// only its kernel; the popcount table @p d_table where it reads one), fed alternating
  /// inputs; checks the last output; records rates (named after @p t) and the ceiling bound.
  cudalab::Comparison time_candidate(const cudalab::GpuWork& baseline, const lab09::Technique& t,
                                     const std::uint8_t* d_table) {
    const char* what = t.name;
    const cudalab::KernelInfo kernel = t.kernel();
    const CapturedWork cap =
        CapturedWork::capture([&](cudaStream_t s) { launch_live(t, d_table, s); });
    EXPECT_TRUE(cap.holds_only(only_kernel(kernel)));
    cudalab::BenchOptions bo;
    bo.before_candidate = next_inputs();
    d_c.fill_bytes(0xFF);  // NaN until the timed kernel writes it
    run_rows->clear();
    const cudalab::Comparison cmp = cudalab::compare(baseline, cap.as_work(), bo);
    expect_every_run_correct(what);
    expect_output_correct(what);
    const double rate = double(n) * n * n / (cmp.candidate.median_ms * 1e9);  // Tbit-op/s
    cudalab::testing::record_measurement(std::string(what) + "_tbitops", rate, "Tbit-op/s");
    cudalab::testing::expect_possible(rate, cudalab::device_ceilings().popc_tbitops_max,
                                      "Tbit-op/s",
                                      std::string(what) + " (popcount ceiling at the peak clock)");
    return cmp;
  }

  /// The timed kernel's C (d_c) equals cuBLAS's C on exactly what the last timed run read
  /// (the live operands' last_input(): its set with that run's changed words) and, on a few
  /// rows, the host's.
  void expect_output_correct(const char* what) {
    const std::vector<float> got = d_c.to_host();
    const std::vector<float> a_last = a_in32 ? bits::unpack_rows(a_in32->last_input(), n, n)
                                             : bits::unpack_rows64(a_in64->last_input(), n, n);
    const std::vector<float> b_last = a_in32 ? bits::unpack_cols(b_in32->last_input(), n, n)
                                             : bits::unpack_cols64(b_in64->last_input(), n, n);
    {
      const auto d_a_set = cudalab::DeviceBuffer(a_last);
      const auto d_b_set = cudalab::DeviceBuffer(b_last);
      cudalab::DeviceBuffer<float> d_ref(std::size_t(n) * n);
      const lab09::CublasHandle h;
      lab09::cublas_sgemm(h, d_a_set.data(), d_b_set.data(), d_ref.data(), n, n, n);
      EXPECT_TRUE(cudalab::testing::matrices_match(d_ref.to_host(), got, n, n, 0.0))
          << what << ": the last timed result (input set " << last_set()
          << " with that run's changed words) differs from cuBLAS SGEMM on the same data";
    }
    const std::vector<std::uint32_t> a_rows = bits::pack_rows(a_last, n, n);
    const std::vector<std::uint32_t> b_cols = bits::pack_cols(b_last, n, n);
    for (const int row : kCheckedRows) {
      EXPECT_TRUE(cudalab::testing::matrices_match(
          bits::binary_matmul_rows(a_rows, b_cols, n, n, row, row + 1),
          std::vector<float>(got.begin() + std::ptrdiff_t(row) * n,
                             got.begin() + std::ptrdiff_t(row + 1) * n),
          1, n, 0.0))
          << what << ": row " << row << " of the last timed run against the host reference";
    }
  }

  std::vector<float> h_a[2], h_b[2];
  std::vector<std::uint32_t> a32[2], b32[2];
  cudalab::DeviceBuffer<float> d_a, d_b, d_c_base, d_c;
  cudalab::DeviceBuffer<std::uint32_t> d_a32_base, d_b32_word_major;
  std::unique_ptr<AlternatingInput<std::uint32_t>> a_in32, b_in32;
  std::unique_ptr<AlternatingInput<std::uint64_t>> a_in64, b_in64;
  std::unique_ptr<lab09::CublasHandle> handle;
  /// Rows of C the host checks in the last run (besides cuBLAS on all of C).
  static constexpr std::array<int, 3> kCheckedRows = {0, n / 2 + 3, n - 1};
  /// Three random rows of C after every run.
  std::unique_ptr<kit::RunRows<float>> run_rows;
};

class TiledPerf : public PerfFixture {};

TEST_F(TiledPerf, PopcTiledIsFasterThanNaiveXnor) {
  use_packed32();
  use_naive_inputs();
  const cudalab::Comparison cmp = time_candidate(
      given_baseline(technique("naive_xnor_popc"), nullptr), technique("tiled_xnor_popc"), nullptr);
  cudalab::testing::expect_speedup(cmp, "tiled 16x16 __popc vs naive XNOR <<<4096, 32>>> __popc");
}

TEST_F(TiledPerf, TableTiledKeepsNineTenthsOfNaiveTableSpeed) {
  use_packed32();
  use_naive_inputs();
  const cudalab::DeviceBuffer<std::uint8_t> d_table = lab09::make_popcount_table();
  const cudalab::Comparison cmp =
      time_candidate(given_baseline(technique("naive_xnor_table"), d_table.data()),
                     technique("tiled_xnor_table"), d_table.data());
  cudalab::testing::expect_speedup(
      cmp,
      "tiled 16x16, table in shared memory vs naive XNOR <<<4096, 32>>>, table in device memory "
      "(at least nine tenths of its speed)");
}

class CublasPerf : public PerfFixture {};

TEST_F(CublasPerf, TiledBinaryGemmBeatsCublasSgemm) {
  use_packed32();
  use_floats();
  const cudalab::Comparison cmp =
      time_candidate([&](cudaStream_t s) { cublas(s); }, technique("tiled_xnor_popc"), nullptr);
  cudalab::testing::record_measurement("cublas_sgemm_ms", cmp.baseline.median_ms, "ms");
  cudalab::testing::record_measurement("tiled_xnor_ms", cmp.candidate.median_ms, "ms");
  cudalab::testing::expect_speedup(cmp, "tiled 16x16 __popc vs cublasSgemm on the same ±1 data");
}

class RegisterTiledPerf : public PerfFixture {};

TEST_F(RegisterTiledPerf, ReachesThreeQuartersOfThePopcCeiling) {
  use_packed64();
  const lab09::Technique& t = technique("register_tiled_xnor");
  const CapturedWork cap =
      CapturedWork::capture([&](cudaStream_t s) { launch_live(t, nullptr, s); });
  ASSERT_TRUE(cap.holds_only(only_kernel(t.kernel())));
  cudalab::BenchOptions bo;
  bo.reps = 15;
  bo.before_candidate = next_inputs();
  d_c.fill_bytes(0xFF);
  run_rows->clear();
  const cudalab::BenchStats stats = cudalab::benchmark(cap.as_work(), bo);
  expect_every_run_correct("register_tiled_xnor");
  expect_output_correct("register_tiled_xnor");
  // The popcount ceiling at the clock measured now (cudalab::device_ceilings(): SMs x POPC
  // per clock of this compute capability x 32 bits x measured SM clock).
  const cudalab::Ceilings ceilings = cudalab::device_ceilings();
  const double rate = double(n) * n * n / (stats.median_ms * 1e9);  // Tbit-op/s (bit-MACs)
  const double percent = 100.0 * rate / ceilings.popc_tbitops;
  const double threshold = cudalab::testing::speed_bar("popc_ceiling_percent",
                                                       cudalab::testing::Bound::kAtLeast, percent) *
                           cudalab::speedup_scale();
  cudalab::testing::record_measurement("register_tiled_ms", stats.median_ms, "ms");
  cudalab::testing::record_measurement("register_tiled_tbitops", rate, "Tbit-op/s");
  cudalab::testing::record_measurement("popc_ceiling", ceilings.popc_tbitops, "Tbit-op/s");
  cudalab::testing::record_measurement("popc_ceiling_percent", percent, "%", threshold,
                                       cudalab::testing::Bound::kAtLeast);
  cudalab::testing::expect_possible(rate, ceilings.popc_tbitops_max, "Tbit-op/s",
                                    "register_tiled_xnor (popcount ceiling at the peak clock)");
  EXPECT_GE(percent, threshold) << "register_tiled_xnor reaches " << rate
                                << " Tbit-op/s = " << percent << " % of the popc ceiling ("
                                << ceilings.describe() << "), needs >= " << threshold
                                << " % (median of " << stats.samples_ms.size() << " runs, "
                                << stats.median_ms << " ms)";
}

TEST_F(RegisterTiledPerf, BeatsCublasSgemm) {
  use_packed64();
  use_floats();
  const cudalab::Comparison cmp =
      time_candidate([&](cudaStream_t s) { cublas(s); }, technique("register_tiled_xnor"), nullptr);
  cudalab::testing::expect_speedup(cmp, "register-tiled 64-bit vs cublasSgemm on the same ±1 data");
}

}  // namespace
