// SPDX-License-Identifier: BSD-3-Clause
// Lab 03, unpitched_matmul.cu: the given packed baseline is itself correct (not graded), and the
// race of lab03::kTechniques in which it is the yardstick: the pitched matmul keeps two thirds of
// its speed (PitchPerf). Shared helpers: pitch_grading.cuh.
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "common/kit.cuh"
#include "cudalab/bench.cuh"
#include "cudalab/ceilings.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/grading.hpp"
#include "cudalab/graph_capture.cuh"
#include "cudalab/testing.hpp"
#include "pitch.cuh"
#include "pitch_grading.cuh"

namespace {

using namespace lab03_grading;

constexpr int kPerfSize = 4001;
constexpr unsigned kPerfBlockX = 32;
constexpr unsigned kPerfBlockY = 8;

/// The technique of lab03::kTechniques that reads packed rows only (@p packed: the given
/// baseline) or any pitch (the lab's pitched matmul).
const lab03::Technique& technique_with(bool packed) {
  for (const lab03::Technique& t : lab03::kTechniques) {
    if (t.packed_rows_only == packed) return t;
  }
  ADD_FAILURE() << "lab03::kTechniques has no technique of " << (packed ? "packed" : "pitched")
                << " rows";
  return lab03::kTechniques[0];
}

// ===========================================================================
// The given packed baseline is itself correct (not graded).
// ===========================================================================
TEST(GivenUnpitchedBaselineGpu, MatchesHostReference) {
  CUDALAB_REQUIRE_GPU();
  for (const Shape s : {Shape{17, 33, 5}, Shape{33, 1001, 1000}, Shape{1000, 33, 1001}}) {
    SCOPED_TRACE(shape_text(s));
    const std::vector<float> h_a = cudalab::random_matrix(s.m, s.k, cudalab::Fill::SmallInt, 1);
    const std::vector<float> h_b = cudalab::random_matrix(s.k, s.n, cudalab::Fill::SmallInt, 2);
    const cudalab::DeviceBuffer<float> d_a = cudalab::DeviceBuffer(h_a);
    const cudalab::DeviceBuffer<float> d_b = cudalab::DeviceBuffer(h_b);
    cudalab::DeviceBuffer<float> d_c(std::size_t(s.m) * s.n);
    d_c.fill_bytes(kPoisonByte);
    lab03::unpitched_matmul(d_a.data(), d_b.data(), d_c.data(), s.m, s.n, s.k, dim3(7, 5));
    EXPECT_TRUE(cudalab::testing::matrices_match(cudalab::reference_matmul(h_a, h_b, s.m, s.n, s.k),
                                                 d_c.to_host(), s.m, s.n, 0.0));
  }
}

// ===========================================================================
// No regression (perf): pitched rows cost nothing over packed ones. The race of the two
// techniques of lab03::kTechniques: the packed one (the given baseline) against the pitched one.
// ===========================================================================
TEST(PitchPerf, PitchedMatmulKeepsTwoThirdsOfUnpitchedSpeed) {
  CUDALAB_REQUIRE_GPU();
  const lab03::Technique& packed = technique_with(true);
  const lab03::Technique& pitched = technique_with(false);
  const int n = kPerfSize;  // M = N = K = n
  const std::size_t count = std::size_t(n) * n;
  const std::size_t pitch = round_up(std::size_t(n) * sizeof(float), 512);
  const dim3 block(kPerfBlockX, kPerfBlockY);
  // ±1 data: every element of C is an integer, computed exactly by both kernels. A and B each
  // alternate between two sets behind one pointer (cudalab::testing::AlternatingInput), the
  // pitched kernel's as pitched images (padding and guard NaN), the packed baseline's packed:
  // before every timed run of either an untimed copy puts the next set there with about sqrt(n)
  // elements replaced at positions drawn for that run (padding stays padding), and the
  // run's output is poisoned. Three random rows of every earlier pitched run, data and
  // padding (kept before the next run's inputs are copied), must be the host's product of
  // exactly what that run read, and the padding must still be the poison.
  std::vector<float> h_in[2][2];
  for (int set = 0; set < 2; ++set) {
    h_in[set][0] = cudalab::random_matrix(n, n, cudalab::Fill::PlusMinusOne, 1 + 2 * set);
    h_in[set][1] = cudalab::random_matrix(n, n, cudalab::Fill::PlusMinusOne, 2 + 2 * set);
  }
  GraderPitched p_c(n, n, pitch);
  const GraderPitched& layout = p_c;  // A and B have C's shape and pitch
  using cudalab::testing::AlternatingInput;
  AlternatingInput<float> p_a(layout.image_of(h_in[0][0]), layout.image_of(h_in[1][0]));
  AlternatingInput<float> p_b(layout.image_of(h_in[0][1]), layout.image_of(h_in[1][1]));
  AlternatingInput<float> d_a(h_in[0][0], h_in[1][0]), d_b(h_in[0][1], h_in[1][1]);
  cudalab::DeviceBuffer<float> d_c(count);

  CapturedWork cap = CapturedWork::capture([&](cudaStream_t st) {
    pitched.launcher(p_a.live.data(), pitch, p_b.live.data(), pitch, p_c.data(), pitch, n, n, n,
                     block, st);
  });
  ASSERT_TRUE(cap.holds_only(pitched_rules(n, n, block)));
  cudalab::BenchOptions o;
  o.before_baseline = [&](cudaStream_t st) {
    d_a.copy_next(st);
    d_b.copy_next(st);
    cudalab::testing::poison(d_c.data(), d_c.bytes(), st);
  };
  // The checked rows of C after every pitched run: their data (n floats a pitch apart) and
  // their padding (the rest of each pitch, as words: the poison is a NaN).
  const std::size_t pitch_floats = pitch / sizeof(float);
  cudalab::kit::RunRows<float> run_rows(p_c.data(), n, n, pitch_floats);
  cudalab::kit::RunRows<std::uint32_t> run_padding(
      reinterpret_cast<const std::uint32_t*>(p_c.data()) + n, int(pitch_floats) - n, n,
      pitch_floats);
  o.before_candidate = run_rows.before_each_run(p_a, [&](cudaStream_t st) {
    run_padding.record(p_a.runs - 1, st);
    p_a.copy_next(st);
    p_b.copy_next(st);
    cudalab::testing::poison(p_c.bytes().data(), p_c.bytes().bytes(), st);
  });
  const cudalab::Comparison cmp = cudalab::compare(
      [&](cudaStream_t st) {
        const std::size_t row = std::size_t(n) * sizeof(float);  // packed
        packed.launcher(d_a.live.data(), row, d_b.live.data(), row, d_c.data(), row, n, n, n, block,
                        st);
      },
      cap.as_work(), o);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::string what =
      "pitched_matmul " + std::to_string(n) + "^3, pitch " + std::to_string(pitch) + " bytes";
  cudalab::kit::expect_every_run_product(
      run_rows,
      [&](long run) {
        return std::make_pair(layout.packed_of(p_a.input_view(run)),
                              layout.packed_of(p_b.input_view(run)));
      },
      Shape{n, n, n}, what);
  std::uint32_t poison_word = 0;
  std::memset(&poison_word, kPoisonByte, sizeof poison_word);
  run_padding.expect_every_run(
      [](long run) { return run; },
      [&](long, int) { return std::vector<std::uint32_t>(pitch_floats - n, poison_word); },
      what + ": the padding (columns counted from the end of the row's data) must stay NaN");
  if (HasFailure()) return;  // no speed verdict for a wrong result

  // No speed verdict for a wrong result: the last timed output (rows, padding and guard) must
  // equal the given packed kernel's (itself checked by GivenUnpitchedBaselineGpu) on a fresh
  // copy of exactly the inputs of that run.
  {
    const cudalab::DeviceBuffer<float> a(layout.packed_of(p_a.last_input()));
    const cudalab::DeviceBuffer<float> b(layout.packed_of(p_b.last_input()));
    cudalab::DeviceBuffer<float> ref(count);
    lab03::unpitched_matmul(a.data(), b.data(), ref.data(), n, n, n, block);
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> got;
    ASSERT_TRUE(p_c.read(got)) << "pitched_matmul " << n << "^3, pitch " << pitch << " bytes";
    ASSERT_TRUE(cudalab::testing::matrices_match(ref.to_host(), got, n, n, 0.0))
        << "pitched_matmul " << n << "^3, pitch " << pitch << " bytes, block " << dims(block)
        << " (expected = the given baseline's result on the inputs of the last timed run: set "
        << p_a.last() << " with that run's changes)";
  }

  const double gflop = 2.0 * n * double(n) * n * 1e-9;
  const double pitched_gflops = gflop / (cmp.candidate.median_ms * 1e-3);
  cudalab::testing::record_measurement("lab03 unpitched baseline",
                                       gflop / (cmp.baseline.median_ms * 1e-3), "GFLOP/s");
  cudalab::testing::record_measurement("lab03 pitched_matmul", pitched_gflops, "GFLOP/s");
  cudalab::testing::expect_possible(pitched_gflops,
                                    cudalab::device_ceilings().fp32_tflops_max * 1e3, "GFLOP/s",
                                    "pitched_matmul " + std::to_string(n) + "^3");
  cudalab::testing::expect_speedup(cmp, std::string(pitched.title) + " vs " + packed.title + ", " +
                                            std::to_string(n) + "^3, pitch " +
                                            std::to_string(pitch) + " B, block " + dims(block));
}

}  // namespace
