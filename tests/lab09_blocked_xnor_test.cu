// Grader of lab 09: the 16x16 tiled binary matmul (table in shared memory and __popc), the
// advanced register-tiled 64-bit kernel, and their speed against the naive XNOR kernel,
// cuBLAS SGEMM on the same ±1 data, and the popcount ceiling of the GPU.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "blocked_xnor.cuh"
#include "cudalab/bits.hpp"
#include "cudalab/check.cuh"
#include "cudalab/device.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/testing.hpp"
#include "cudalab/tools.hpp"

namespace {

// ---------------------------------------------------------------------------
// Speed thresholds, calibrated on the reference GPU: each sits >= 30 % below what the
// reference solution measured there (see each constant).
// ---------------------------------------------------------------------------
/// Measured with the reference solution on an NVIDIA H200 (CUDA 13.0), three full runs.
/// Tiled 16x16 (__popc) over the naive XNOR kernel <<<M, 32>>> (__popc), 4096^2; the naive
/// kernel reads B word-major as in lab 08 (coalesced). Measured 2.629x, 2.634x, 2.639x
/// (DESIGN.md: 2.8x); threshold >= 30 % below (1.84).
constexpr double kTiledOverNaiveSpeedup = 1.8;
/// Tiled 16x16 (table in shared memory) over the naive kernel with the table in device
/// memory, 4096^2: measured 1.325x, 1.325x, 1.327x — random byte lookups into a shared table
/// conflict among themselves, so staging the table buys little; threshold >= 30 % below (0.93).
constexpr double kTiledTableOverNaiveTableSpeedup = 0.9;
/// Tiled 16x16 (__popc) over cuBLAS SGEMM on the same ±1 data as floats, 4096^2:
/// measured 3.607x, 3.608x, 3.610x (0.741 against 2.673 ms); threshold >= 30 % below (2.52).
constexpr double kTiledOverCublasSpeedup = 2.5;
/// Register-tiled 64-bit over cuBLAS SGEMM, 4096^2: measured 4.795x, 4.796x, 4.798x
/// (0.558 ms); threshold >= 30 % below (3.36).
constexpr double kRegisterTiledOverCublasSpeedup = 3.3;
/// Register-tiled 64-bit: percent of the popcount ceiling (SMs x clock x 16 POPC/clock x
/// 32 bits): measured 91.9 %, 91.9 %, 92.0 %. The issue fixes this bar at 75 % (18 % below the
/// measurement, tighter than the 30 % rule, by design: it is the advanced part's goal).
constexpr double kRegisterTiledCeilingPercent = 75.0;
/// Side of the square matrices of the speed tests.
constexpr int kPerfSize = 4096;
/// POPC instructions per clock per SM (compute capability 7.x - 9.0) and bits each counts.
constexpr double kPopcPerClockPerSm = 16.0;
constexpr double kBitsPerPopc = 32.0;

namespace bits = cudalab::bits;

struct Shape {
  int m, n, k;
};

std::string shape_name(const ::testing::TestParamInfo<Shape>& p) {
  return std::to_string(p.param.m) + "x" + std::to_string(p.param.n) + "x" +
         std::to_string(p.param.k);
}

/// ±1 inputs of one shape, packed on the host — A by rows; B by columns (32- and 64-bit)
/// for the tiled kernels and word-major for the naive baseline — with the exact expected
/// product.
struct Problem {
  Problem(int m_, int n_, int k_) : m(m_), n(n_), k(k_) {
    const auto h_a = cudalab::random_matrix(m, k, cudalab::Fill::PlusMinusOne, 1);
    const auto h_b = cudalab::random_matrix(k, n, cudalab::Fill::PlusMinusOne, 2);
    const auto a32 = bits::pack_rows(h_a, m, k);
    const auto b32 = bits::pack_cols(h_b, k, n);
    // The float product where it is cheap; the packed host product (tested against it in
    // common_test) for the large shapes.
    expected = double(m) * n * k <= 5e7 ? cudalab::reference_matmul(h_a, h_b, m, n, k)
                                        : bits::binary_matmul(a32, b32, m, n, k);
    d_a = upload(h_a);
    d_b = upload(h_b);
    d_a32 = upload(a32);
    d_b32 = upload(b32);
    d_b32_word_major = upload(bits::pack_cols_word_major(h_b, k, n));
    d_a64 = upload(bits::pack_rows64(h_a, m, k));
    d_b64 = upload(bits::pack_cols64(h_b, k, n));
    d_c = cudalab::DeviceBuffer<float>(std::size_t(m) * n);
  }

  template <typename T>
  static cudalab::DeviceBuffer<T> upload(const std::vector<T>& h) {
    cudalab::DeviceBuffer<T> d(h.size());
    d.upload(h);
    return d;
  }

  /// Poisons C (NaN), runs @p launch, and compares C with the expected product exactly.
  template <typename Launch>
  ::testing::AssertionResult run_and_check(Launch launch) {
    d_c.fill_bytes(0xFF);
    launch();
    return cudalab::testing::matrices_match(expected, d_c.to_host(), m, n, 0.0);
  }

  int m, n, k;
  std::vector<float> expected;
  cudalab::DeviceBuffer<float> d_a, d_b, d_c;
  cudalab::DeviceBuffer<std::uint32_t> d_a32, d_b32;
  cudalab::DeviceBuffer<std::uint32_t> d_b32_word_major;  // the naive baseline's B (lab 08)
  cudalab::DeviceBuffer<std::uint64_t> d_a64, d_b64;
};

// ---------------------------------------------------------------------------
// Given: the baselines are right (not graded).
// ---------------------------------------------------------------------------
const Shape kBaselineShapes[] = {{1, 1, 1}, {7, 9, 33}, {65, 40, 1000}, {130, 17, 1500}};

class GivenBaselinesGpu : public ::testing::TestWithParam<Shape> {};

TEST_P(GivenBaselinesGpu, NaiveXnorAndCublasAreExact) {
  CUDALAB_REQUIRE_GPU();
  const int m = GetParam().m, n = GetParam().n, k = GetParam().k;
  Problem p(m, n, k);
  const cudalab::DeviceBuffer<std::uint8_t> d_table = lab09::make_popcount_table();
  EXPECT_TRUE(p.run_and_check([&] {
    lab09::naive_xnor_popc(p.d_a32.data(), p.d_b32_word_major.data(), p.d_c.data(), m, n, k);
  })) << "naive __popc";
  EXPECT_TRUE(p.run_and_check([&] {
    lab09::naive_xnor_table(p.d_a32.data(), p.d_b32_word_major.data(), d_table.data(), p.d_c.data(),
                            m, n, k);
  })) << "naive table";
  const lab09::CublasHandle cublas;
  EXPECT_TRUE(p.run_and_check([&] {
    lab09::cublas_sgemm(cublas, p.d_a.data(), p.d_b.data(), p.d_c.data(), m, n, k);
  })) << "cuBLAS SGEMM";
}

INSTANTIATE_TEST_SUITE_P(Given, GivenBaselinesGpu, ::testing::ValuesIn(kBaselineShapes),
                         shape_name);

// ---------------------------------------------------------------------------
// The 16x16 tiled kernel: exact, for M, N, K that are not multiples of the tile.
// K = 600 and 1500 (19 and 47 words) end in a partial tile after full ones, so a tile
// edge that is not zero-filled keeps stale words of the previous step.
// ---------------------------------------------------------------------------
const Shape kTiledShapes[] = {{1, 1, 1},     {1, 17, 31},      {16, 16, 32},   {17, 15, 33},
                              {33, 47, 515}, {100, 1, 600},    {1, 100, 1500}, {129, 65, 1000},
                              {64, 48, 512}, {257, 300, 1500}, {3, 500, 4097}, {700, 900, 2000}};

class TiledXnorGpu : public ::testing::TestWithParam<Shape> {};

TEST_P(TiledXnorGpu, TableInSharedMemoryIsExact) {
  CUDALAB_REQUIRE_GPU();
  const int m = GetParam().m, n = GetParam().n, k = GetParam().k;
  Problem p(m, n, k);
  const cudalab::DeviceBuffer<std::uint8_t> d_table = lab09::make_popcount_table();
  for (int run = 0; run < 2; ++run) {  // a race may hide in one run
    SCOPED_TRACE("run " + std::to_string(run + 1) + " of tiled_xnor_table");
    EXPECT_TRUE(p.run_and_check([&] {
      lab09::tiled_xnor_table(p.d_a32.data(), p.d_b32.data(), d_table.data(), p.d_c.data(), m, n,
                              k);
    }));
  }
}

TEST_P(TiledXnorGpu, IntrinsicPopcountIsExact) {
  CUDALAB_REQUIRE_GPU();
  const int m = GetParam().m, n = GetParam().n, k = GetParam().k;
  Problem p(m, n, k);
  for (int run = 0; run < 2; ++run) {
    SCOPED_TRACE("run " + std::to_string(run + 1) + " of tiled_xnor_popc");
    EXPECT_TRUE(p.run_and_check(
        [&] { lab09::tiled_xnor_popc(p.d_a32.data(), p.d_b32.data(), p.d_c.data(), m, n, k); }));
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, TiledXnorGpu, ::testing::ValuesIn(kTiledShapes), shape_name);

// ---------------------------------------------------------------------------
// Advanced: the register-tiled 64-bit kernel (128 x 128 block tiles, 8-word stages).
// ---------------------------------------------------------------------------
const Shape kRegisterShapes[] = {
    {1, 1, 1},      {1, 129, 63},     {127, 129, 64}, {128, 128, 512},  {129, 130, 513},
    {257, 1, 1000}, {300, 257, 1500}, {3, 500, 4097}, {640, 384, 2048}, {1000, 700, 1111}};

class RegisterTiledGpu : public ::testing::TestWithParam<Shape> {};

TEST_P(RegisterTiledGpu, SixtyFourBitRegisterTileIsExact) {
  CUDALAB_REQUIRE_GPU();
  const int m = GetParam().m, n = GetParam().n, k = GetParam().k;
  Problem p(m, n, k);
  for (int run = 0; run < 2; ++run) {
    SCOPED_TRACE("run " + std::to_string(run + 1) + " of register_tiled_xnor");
    EXPECT_TRUE(p.run_and_check([&] {
      lab09::register_tiled_xnor(p.d_a64.data(), p.d_b64.data(), p.d_c.data(), m, n, k);
    }));
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, RegisterTiledGpu, ::testing::ValuesIn(kRegisterShapes),
                         shape_name);

// ---------------------------------------------------------------------------
// Races, memory errors, barriers (compute-sanitizer) on shapes with partial tiles: the
// tiled kernels' shared tiles and staged table, and the register-tiled kernel's stages.
// ---------------------------------------------------------------------------
constexpr const char* kSanitizedTests =
    "Shapes/TiledXnorGpu.*/17x15x33:Shapes/TiledXnorGpu.*/33x47x515:"
    "Shapes/RegisterTiledGpu.*/129x130x513";
TEST(BlockedXnorSanitizer, RacecheckFindsNoSharedMemoryHazard) {
  CUDALAB_REQUIRE_GPU();
  CUDALAB_EXPECT_SANITIZER_CLEAN("racecheck", kSanitizedTests);
}
TEST(BlockedXnorSanitizer, MemcheckFindsNoOutOfBoundsAccess) {
  CUDALAB_REQUIRE_GPU();
  CUDALAB_EXPECT_SANITIZER_CLEAN("memcheck", kSanitizedTests);
}
TEST(BlockedXnorSanitizer, SynccheckFindsNoInvalidBarrier) {
  CUDALAB_REQUIRE_GPU();
  CUDALAB_EXPECT_SANITIZER_CLEAN("synccheck", kSanitizedTests);
}

// ---------------------------------------------------------------------------
// Perf, 4096^2: every timed output is checked against cuBLAS's (exact on ±1 data: integer
// sums below 2^24) and a few rows are recomputed on the host.
// ---------------------------------------------------------------------------
class PerfFixture : public ::testing::Test {
 protected:
  static constexpr int n = kPerfSize;

  void SetUp() override {
    CUDALAB_REQUIRE_GPU();
    const auto h_a = cudalab::random_matrix(n, n, cudalab::Fill::PlusMinusOne, 1);
    const auto h_b = cudalab::random_matrix(n, n, cudalab::Fill::PlusMinusOne, 2);
    a32 = bits::pack_rows(h_a, n, n);
    b32 = bits::pack_cols(h_b, n, n);
    d_a = Problem::upload(h_a);
    d_b = Problem::upload(h_b);
    d_a32 = Problem::upload(a32);
    d_b32 = Problem::upload(b32);
    d_b32_word_major = Problem::upload(bits::pack_cols_word_major(h_b, n, n));
    d_a64 = Problem::upload(bits::pack_rows64(h_a, n, n));
    d_b64 = Problem::upload(bits::pack_cols64(h_b, n, n));
    d_c_base = cudalab::DeviceBuffer<float>(std::size_t(n) * n);
    d_c = cudalab::DeviceBuffer<float>(std::size_t(n) * n);
    d_c.fill_bytes(0xFF);                              // NaN until the timed kernel writes it
    handle = std::make_unique<lab09::CublasHandle>();  // after the GPU check: needs a device
  }

  void cublas(cudaStream_t s) {
    lab09::cublas_sgemm(*handle, d_a.data(), d_b.data(), d_c_base.data(), n, n, n, s);
  }

  /// The timed kernel's C (d_c) equals cuBLAS's C and, on a few rows, the host's.
  void expect_output_correct(const char* what) {
    cudalab::DeviceBuffer<float> d_ref(std::size_t(n) * n);
    lab09::cublas_sgemm(*handle, d_a.data(), d_b.data(), d_ref.data(), n, n, n);
    const std::vector<float> got = d_c.to_host();
    EXPECT_TRUE(cudalab::testing::matrices_match(d_ref.to_host(), got, n, n, 0.0))
        << what << ": the timed result differs from cuBLAS SGEMM on the same data";
    const int rows = 4;
    EXPECT_TRUE(cudalab::testing::matrices_match(
        bits::binary_matmul_rows(a32, b32, n, n, 0, rows),
        std::vector<float>(got.begin(), got.begin() + std::ptrdiff_t(rows) * n), rows, n, 0.0))
        << what << ": first rows against the host reference";
  }

  std::vector<std::uint32_t> a32, b32;
  cudalab::DeviceBuffer<float> d_a, d_b, d_c_base, d_c;
  cudalab::DeviceBuffer<std::uint32_t> d_a32, d_b32;
  cudalab::DeviceBuffer<std::uint32_t> d_b32_word_major;  // the naive baseline's B (lab 08)
  cudalab::DeviceBuffer<std::uint64_t> d_a64, d_b64;
  std::unique_ptr<lab09::CublasHandle> handle;
};

class TiledPerf : public PerfFixture {};

TEST_F(TiledPerf, PopcTiledIsFasterThanNaiveXnor) {
  const cudalab::Comparison cmp = cudalab::compare(
      [&](cudaStream_t s) {
        lab09::naive_xnor_popc(d_a32.data(), d_b32_word_major.data(), d_c_base.data(), n, n, n, s);
      },
      [&](cudaStream_t s) {
        lab09::tiled_xnor_popc(d_a32.data(), d_b32.data(), d_c.data(), n, n, n, s);
      });
  expect_output_correct("tiled_xnor_popc");
  cudalab::testing::expect_speedup(cmp, kTiledOverNaiveSpeedup,
                                   "tiled 16x16 __popc vs naive XNOR <<<4096, 32>>> __popc");
}

TEST_F(TiledPerf, TableTiledIsFasterThanNaiveTable) {
  const cudalab::DeviceBuffer<std::uint8_t> d_table = lab09::make_popcount_table();
  const cudalab::Comparison cmp = cudalab::compare(
      [&](cudaStream_t s) {
        lab09::naive_xnor_table(d_a32.data(), d_b32_word_major.data(), d_table.data(),
                                d_c_base.data(), n, n, n, s);
      },
      [&](cudaStream_t s) {
        lab09::tiled_xnor_table(d_a32.data(), d_b32.data(), d_table.data(), d_c.data(), n, n, n, s);
      });
  expect_output_correct("tiled_xnor_table");
  cudalab::testing::expect_speedup(
      cmp, kTiledTableOverNaiveTableSpeedup,
      "tiled 16x16, table in shared memory vs naive XNOR <<<4096, 32>>>, table in device memory");
}

class CublasPerf : public PerfFixture {};

TEST_F(CublasPerf, TiledBinaryGemmBeatsCublasSgemm) {
  const cudalab::Comparison cmp =
      cudalab::compare([&](cudaStream_t s) { cublas(s); },
                       [&](cudaStream_t s) {
                         lab09::tiled_xnor_popc(d_a32.data(), d_b32.data(), d_c.data(), n, n, n, s);
                       });
  expect_output_correct("tiled_xnor_popc");
  cudalab::testing::record_measurement("cublas_sgemm_ms", cmp.baseline.median_ms, "ms");
  cudalab::testing::record_measurement("tiled_xnor_ms", cmp.candidate.median_ms, "ms");
  cudalab::testing::expect_speedup(cmp, kTiledOverCublasSpeedup,
                                   "tiled 16x16 __popc vs cublasSgemm on the same ±1 data");
}

class RegisterTiledPerf : public PerfFixture {};

TEST_F(RegisterTiledPerf, ReachesThreeQuartersOfThePopcCeiling) {
  cudalab::BenchOptions bo;
  bo.reps = 15;
  const cudalab::BenchStats stats = cudalab::benchmark(
      [&](cudaStream_t s) {
        lab09::register_tiled_xnor(d_a64.data(), d_b64.data(), d_c.data(), n, n, n, s);
      },
      bo);
  expect_output_correct("register_tiled_xnor");
  const cudalab::DeviceInfo info = cudalab::query_device();
  const double ceiling =
      double(info.sm_count) * info.sm_clock_khz * 1e3 * kPopcPerClockPerSm * kBitsPerPopc;
  const double rate = double(n) * n * n / (stats.median_ms * 1e-3);  // bit-MACs per second
  const double percent = 100.0 * rate / ceiling;
  const double threshold = kRegisterTiledCeilingPercent * cudalab::speedup_scale();
  cudalab::testing::record_measurement("register_tiled_ms", stats.median_ms, "ms");
  cudalab::testing::record_measurement("register_tiled_bit_macs", rate / 1e12, "Tbit-MAC/s");
  cudalab::testing::record_measurement("popc_ceiling", ceiling / 1e12, "Tbit-MAC/s");
  cudalab::testing::record_measurement("popc_ceiling_percent", percent, "%", threshold);
  EXPECT_GE(percent, threshold) << "register_tiled_xnor reaches " << rate / 1e12
                                << " Tbit-MAC/s = " << percent << " % of the popc ceiling ("
                                << info.sm_count << " SMs x " << info.sm_clock_khz / 1000
                                << " MHz x 16 POPC/clock x 32 bits = " << ceiling / 1e12
                                << " Tbit-MAC/s), needs >= " << threshold << " % (median of "
                                << stats.samples_ms.size() << " runs, " << stats.median_ms
                                << " ms)";
}

TEST_F(RegisterTiledPerf, BeatsCublasSgemm) {
  const cudalab::Comparison cmp = cudalab::compare(
      [&](cudaStream_t s) { cublas(s); },
      [&](cudaStream_t s) {
        lab09::register_tiled_xnor(d_a64.data(), d_b64.data(), d_c.data(), n, n, n, s);
      });
  expect_output_correct("register_tiled_xnor");
  cudalab::testing::expect_speedup(cmp, kRegisterTiledOverCublasSpeedup,
                                   "register-tiled 64-bit vs cublasSgemm on the same ±1 data");
}

}  // namespace
