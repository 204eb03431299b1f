// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 02, what spans its files (naive_matmul.cuh): both kernels under compute-sanitizer
// memcheck, the instantiation of the large-K suite, the grader's uncoalesced baseline (given: right
// on three shapes) and every technique of lab02::kTechniques against it at 4096^3. One test file
// per technique file besides (row_per_block_test.cu, thread_per_element_test.cu, with
// launch_checks_test.cu for the given argument checks); helpers in naive_matmul_grading.cuh.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cudalab/bench.cuh"
#include "cudalab/ceilings.cuh"
#include "naive_matmul_grading.cuh"

namespace {

using namespace lab02_grading;

constexpr int kPerfRowThreads = 256;
constexpr int kPerfSize = 4096;
constexpr unsigned kPerfBlockX = 32;
constexpr unsigned kPerfBlockY = 8;

// Large K on a small C: more than any fixed-size shared staging buffer of a row of A holds
// (70001 floats = 273 KB > the 227 KB of opt-in shared memory per block).
const Shape kLargeKShapes[] = {{3, 70, 70001}, {2, 257, 100003}};

// ---------------------------------------------------------------------------
// The uncoalesced baseline of the perf test (given): the same thread-per-element
// algorithm, but threadIdx.x walks the ROWS of C. The 32 threads of a warp then read 32
// different rows of A (32 separate memory segments per load) and write down a column of
// C, while reading one element of B that the whole warp shares.
// ---------------------------------------------------------------------------
__global__ void uncoalesced_matmul_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                          float* __restrict__ c, int m, int n, int k) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;  // x walks the rows: strided
  const int col = blockIdx.y * blockDim.y + threadIdx.y;  // y walks the columns
  if (row >= m || col >= n) return;
  const float* a_row = a + static_cast<std::size_t>(row) * k;
  float sum = 0.0f;
  for (int p = 0; p < k; ++p) {
    sum += a_row[p] * b[static_cast<std::size_t>(p) * n + col];
  }
  c[static_cast<std::size_t>(row) * n + col] = sum;
}

void uncoalesced_matmul(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                        dim3 block, cudaStream_t stream) {
  const dim3 grid((m + block.x - 1) / block.x, (n + block.y - 1) / block.y);
  uncoalesced_matmul_kernel<<<grid, block, 0, stream>>>(d_a, d_b, d_c, m, n, k);
  CUDA_CHECK_LAST_LAUNCH();
}

// ---------------------------------------------------------------------------
// Memory errors (compute-sanitizer memcheck): both kernels on every shape and block size of
// RowPerBlockGpu and ThreadPerElementGpu, small-integer data. A and B are each their own allocation
// of exactly M*K and K*N floats (MatmulProblem) and most shapes are ragged and odd-sized (17x33x5,
// 129x65x257, 1000x3x777, ...), so a read past either operand (B's row K, the element after
// A's last one) falls outside every allocation even where its value is thrown away. Writes
// past C land in C's NaN guard, which the suites themselves check.
// ---------------------------------------------------------------------------
CUDALAB_SANITIZER_SUITE(NaiveSanitizer,
                        "Shapes/RowPerBlockGpu.*SmallInt:Shapes/ThreadPerElementGpu.*SmallInt",
                        memcheck)

// ---------------------------------------------------------------------------
// Range edge (GPU): the large-K suite (naive_matmul_grading.cuh), its tests in
// row_per_block_test.cu and thread_per_element_test.cu.
// ---------------------------------------------------------------------------
INSTANTIATE_TEST_SUITE_P(Shapes, LargeKGpu,
                         ::testing::Combine(::testing::ValuesIn(kLargeKShapes),
                                            ::testing::Values(cudalab::Fill::SmallInt,
                                                              cudalab::Fill::Uniform)),
                         param_name);

// ---------------------------------------------------------------------------
// The given baseline is itself correct (not graded).
// ---------------------------------------------------------------------------
TEST(GivenUncoalescedBaselineGpu, MatchesHostReference) {
  CUDALAB_REQUIRE_GPU();
  const NamedLaunch baseline{
      "the given uncoalesced baseline",
      [](const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t st) {
        uncoalesced_matmul(a, b, c, m, n, k, dim3(kPerfBlockX, kPerfBlockY), st);
      },
      [](Shape) { return only_kernel("uncoalesced_matmul_kernel"); }};
  for (const Shape s : {Shape{17, 33, 5}, Shape{129, 65, 257}, Shape{1000, 3, 777}}) {
    expect_correct_for_each(s, cudalab::Fill::SmallInt, {baseline});
  }
}

// ---------------------------------------------------------------------------
// Coalescing (perf): both kernels against the given uncoalesced baseline (x walks rows).
// The candidate is timed as the graph captured from its launcher. A and B each alternate
// between two ±1 sets behind one pointer (cudalab::testing::AlternatingInput): before every
// timed run, of the baseline and of the candidate alike, an untimed copy puts the next set
// there with about sqrt(n) elements replaced at positions drawn for that run, and both
// outputs are poisoned. Three rows of every earlier candidate run, drawn at random after it
// (kept before the next run's inputs are copied), must equal the host's product of exactly what
// that run read; the output of the candidate's last run must equal the baseline's on a fresh copy
// of exactly that run's inputs, and the host's on sampled rows.
// ---------------------------------------------------------------------------
void expect_beats_uncoalesced(const NamedLaunch& candidate) {
  namespace t = cudalab::testing;
  const int n = kPerfSize;  // M = N = K = n
  const std::size_t count = std::size_t(n) * n;
  const dim3 block(kPerfBlockX, kPerfBlockY);
  // ±1 data: every element of C is an integer, computed exactly by every kernel.
  const auto operand = [n](std::uint64_t seed) {
    return cudalab::random_matrix(n, n, cudalab::Fill::PlusMinusOne, seed);
  };
  t::AlternatingInput<float> a_in(operand(1), operand(3)), b_in(operand(2), operand(4));
  cudalab::DeviceBuffer<float> d_c_base(count), d_c_cand(count);
  CapturedWork cap = CapturedWork::capture([&](cudaStream_t st) {
    candidate.launch(a_in.live.data(), b_in.live.data(), d_c_cand.data(), n, n, n, st);
  });
  ASSERT_TRUE(cap.holds_only(candidate.rules(Shape{n, n, n}))) << candidate.what;

  const auto next_inputs = [&](float* c) {
    return [&a_in, &b_in, c, count](cudaStream_t st) {
      a_in.copy_next(st);
      b_in.copy_next(st);
      t::poison(c, count * sizeof(float), st);
    };
  };
  // Three random rows of the candidate's C after each of its runs, tagged with the inputs
  // that run read (the baseline's runs take inputs of their own in between).
  cudalab::kit::RunRows<float> run_rows(d_c_cand.data(), n, n);
  cudalab::BenchOptions o;
  o.before_baseline = next_inputs(d_c_base.data());
  o.before_candidate = run_rows.before_each_run(a_in, next_inputs(d_c_cand.data()));
  const cudalab::Comparison cmp = cudalab::compare(
      [&](cudaStream_t st) {
        uncoalesced_matmul(a_in.live.data(), b_in.live.data(), d_c_base.data(), n, n, n, block, st);
      },
      cap.as_work(), o);
  CUDA_CHECK(cudaDeviceSynchronize());
  cudalab::kit::expect_every_run_product(run_rows, a_in, b_in, Shape{n, n, n}, candidate.what);
  if (::testing::Test::HasFailure()) return;

  // No speed verdict for a wrong result: the last timed output must equal the given baseline's
  // (checked against the host by GivenUncoalescedBaselineGpu) on a fresh copy of that run's
  // inputs, and the host's product on sampled rows.
  const std::vector<float> got = d_c_cand.to_host();
  const std::vector<float> h_a = a_in.last_input(), h_b = b_in.last_input();
  {
    const cudalab::DeviceBuffer<float> d_a(h_a), d_b(h_b);
    cudalab::DeviceBuffer<float> d_ref(count);
    uncoalesced_matmul(d_a.data(), d_b.data(), d_ref.data(), n, n, n, block, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    ASSERT_TRUE(cudalab::testing::matrices_match(d_ref.to_host(), got, n, n, 0.0))
        << candidate.what << ", " << n << "^3 (expected = the given baseline's result on the "
        << "inputs of the last timed run: set " << a_in.last() << " with that run's changes)";
  }
  for (const int r : {0, n / 2, n - 1}) {
    for (int col = 0; col < n; col += 7) {
      double sum = 0.0;
      for (int i = 0; i < n; ++i)
        sum += double(h_a[std::size_t(r) * n + i]) * h_b[std::size_t(i) * n + col];
      ASSERT_EQ(got[std::size_t(r) * n + col], sum)
          << candidate.what << ": the last timed output is wrong at C(" << r << ", " << col << "); "
          << cudalab::seed_note();
    }
  }

  const double gflop = 2.0 * n * double(n) * n * 1e-9;
  const double base_gflops = gflop / (cmp.baseline.median_ms * 1e-3);
  const double cand_gflops = gflop / (cmp.candidate.median_ms * 1e-3);
  cudalab::testing::record_measurement("lab02 uncoalesced baseline", base_gflops, "GFLOP/s");
  cudalab::testing::record_measurement(candidate.what, cand_gflops, "GFLOP/s");
  const double ceiling = cudalab::device_ceilings().fp32_tflops_max * 1e3;
  cudalab::testing::expect_possible(cand_gflops, ceiling, "GFLOP/s", candidate.what);
  cudalab::testing::expect_speedup(cmp, candidate.what + " vs baseline (x walks rows, block " +
                                            dims(block) + "), " + std::to_string(n) + "^3");
}

// Each technique at the configuration of its bar: one block per row with kPerfRowThreads threads,
// one thread per element with kPerfBlockX x kPerfBlockY blocks.
void beats_uncoalesced_baseline(::testing::Test&, const lab02::Technique& t) {
  CUDALAB_REQUIRE_GPU();
  expect_beats_uncoalesced(t.blocks_2d ? thread_per_element(dim3(kPerfBlockX, kPerfBlockY))
                                       : row_per_block(kPerfRowThreads));
}

[[maybe_unused]] const bool kRegistered = [] {
  for_each_technique("CoalescingPerf.{}BeatsUncoalescedBaseline", beats_uncoalesced_baseline,
                     __FILE__, __LINE__);
  return true;
}();

}  // namespace
