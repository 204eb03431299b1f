// Grader of lab 02: one-block-per-row and thread-per-element matmul, and coalescing.
#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "cudalab/bench.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/testing.hpp"
#include "naive_matmul.cuh"

namespace {

// Speed threshold of the perf test: thread-per-element (x walks columns) over the given
// uncoalesced baseline (x walks rows), same 32x8 block, M = N = K = kPerfSize.
// Measured with the reference solution on an NVIDIA H200 (CUDA 13.0), three full runs:
// 11.86x, 11.91x, 11.91x (5.9 TFLOP/s against 0.50). The threshold sits >= 30 % below
// the lowest (11.86 x 0.7 = 8.3).
constexpr double kCoalescedOverUncoalesced = 8.0;
constexpr int kPerfSize = 4096;
constexpr unsigned kPerfBlockX = 32;
constexpr unsigned kPerfBlockY = 8;

// Elements after C that no thread may touch (catches missing bounds checks).
constexpr std::size_t kGuard = 1024;
constexpr std::uint32_t kPoison = 0xFFFFFFFFu;  // fill_bytes(0xFF): a NaN in every float

struct Shape {
  int m;
  int n;
  int k;
};

const Shape kShapes[] = {{1, 1, 1},      {17, 33, 5},    {64, 64, 64}, {129, 65, 257},
                         {1000, 3, 777}, {3, 1000, 129}, {1, 300, 2},  {300, 1, 1}};

const cudalab::Fill kFills[] = {cudalab::Fill::PlusMinusOne, cudalab::Fill::SmallInt,
                                cudalab::Fill::Uniform};

std::string dims(dim3 d) {
  return std::to_string(d.x) + "x" + std::to_string(d.y);
}

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

/// A launcher under test, bound to its block: (d_a, d_b, d_c, m, n, k).
using Launch = std::function<void(const float*, const float*, float*, int, int, int)>;

/**
 * One problem C = A * B of a given shape and fill: host inputs, the host reference and
 * device buffers, C followed by kGuard guard elements.
 */
class MatmulProblem {
 public:
  MatmulProblem(Shape s, cudalab::Fill fill)
      : s_(s),
        exact_(fill != cudalab::Fill::Uniform),
        h_a_(cudalab::random_matrix(s.m, s.k, fill, 1)),
        h_b_(cudalab::random_matrix(s.k, s.n, fill, 2)),
        expected_(cudalab::reference_matmul(h_a_, h_b_, s.m, s.n, s.k)),
        d_a_(h_a_.size()),
        d_b_(h_b_.size()),
        d_c_(c_count() + kGuard) {
    d_a_.upload(h_a_);
    d_b_.upload(h_b_);
  }

  /// Poisons C and the guard, runs @p launch, and checks C and the guard.
  ::testing::AssertionResult run_and_check(const Launch& launch) {
    d_c_.fill_bytes(0xFF);
    launch(d_a_.data(), d_b_.data(), d_c_.data(), s_.m, s_.n, s_.k);
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> got_all = d_c_.to_host();
    for (std::size_t i = c_count(); i < got_all.size(); ++i) {
      std::uint32_t bits = 0;
      std::memcpy(&bits, &got_all[i], sizeof bits);
      if (bits != kPoison) {
        return ::testing::AssertionFailure()
               << "element " << i - c_count() << " past the end of C (M*N = " << c_count()
               << ") was written: expected it untouched, got " << got_all[i]
               << " (missing bounds check?); " << cudalab::seed_note();
      }
    }
    const std::vector<float> got(got_all.begin(), got_all.begin() + c_count());
    const double tol = exact_ ? 0.0 : cudalab::matmul_tolerance(s_.k);
    return cudalab::testing::matrices_match(expected_, got, s_.m, s_.n, tol);
  }

 private:
  std::size_t c_count() const { return std::size_t(s_.m) * s_.n; }

  Shape s_;
  bool exact_;
  std::vector<float> h_a_;
  std::vector<float> h_b_;
  std::vector<float> expected_;
  cudalab::DeviceBuffer<float> d_a_;
  cudalab::DeviceBuffer<float> d_b_;
  cudalab::DeviceBuffer<float> d_c_;
};

using Param = std::tuple<Shape, cudalab::Fill>;

std::string param_name(const ::testing::TestParamInfo<Param>& p) {
  const Shape s = std::get<0>(p.param);
  return "m" + std::to_string(s.m) + "_n" + std::to_string(s.n) + "_k" + std::to_string(s.k) + "_" +
         cudalab::fill_name(std::get<1>(p.param));
}

std::string shape_trace(const Param& p) {
  const Shape s = std::get<0>(p);
  return "C(" + std::to_string(s.m) + "x" + std::to_string(s.n) + ") = A(" + std::to_string(s.m) +
         "x" + std::to_string(s.k) + ") * B(" + std::to_string(s.k) + "x" + std::to_string(s.n) +
         "), " + cudalab::fill_name(std::get<1>(p)) + " data";
}

// ---------------------------------------------------------------------------
// thread_per_element_grid (CPU): N columns in x, M rows in y, no spare block.
// ---------------------------------------------------------------------------
TEST(ThreadPerElementGridCpu, CoversColumnsInXAndRowsInYWithoutSpareBlocks) {
  const dim3 blocks[] = {dim3(16, 16), dim3(32, 8), dim3(7, 5), dim3(1, 64), dim3(1, 1)};
  for (const Shape s : kShapes) {
    for (const dim3 b : blocks) {
      const dim3 g = lab02::thread_per_element_grid(s.m, s.n, b);
      // Expected: ceil(N / block.x) blocks in x (columns), ceil(M / block.y) in y (rows).
      const unsigned want_x = (unsigned(s.n) + b.x - 1) / b.x;
      const unsigned want_y = (unsigned(s.m) + b.y - 1) / b.y;
      if (g.x != want_x || g.y != want_y || g.z != 1) {
        std::string why;
        if (std::size_t(g.x) * b.x < std::size_t(s.n))
          why += "; grid.x does not cover the N columns";
        if (std::size_t(g.y) * b.y < std::size_t(s.m)) why += "; grid.y does not cover the M rows";
        if (g.x > want_x || g.y > want_y) why += "; spare blocks";
        if (g.x == want_y && g.y == want_x && g.x != g.y) why += "; x and y swapped?";
        FAIL() << "thread_per_element_grid(M=" << s.m << ", N=" << s.n << ", block " << dims(b)
               << "): expected grid " << want_x << "x" << want_y << "x1, got " << g.x << "x" << g.y
               << "x" << g.z << why;
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Argument checks (given code in the launchers): nothing is launched.
// ---------------------------------------------------------------------------
TEST(GivenArgumentChecksCpu, LaunchersRejectBadSizesPointersAndBlocks) {
  float h_dummy[1] = {0.0f};  // only checked for null, never dereferenced
  const float* p = h_dummy;
  float* q = h_dummy;
  EXPECT_THROW(lab02::row_per_block_matmul(p, p, q, 0, 4, 4, 32), std::invalid_argument);
  EXPECT_THROW(lab02::row_per_block_matmul(p, p, q, 4, -1, 4, 32), std::invalid_argument);
  EXPECT_THROW(lab02::row_per_block_matmul(p, p, q, 4, 4, 0, 32), std::invalid_argument);
  EXPECT_THROW(lab02::row_per_block_matmul(p, p, q, 4, 4, 4, 0), std::invalid_argument);
  EXPECT_THROW(lab02::row_per_block_matmul(p, p, q, 4, 4, 4, -32), std::invalid_argument);
  EXPECT_THROW(lab02::row_per_block_matmul(p, p, q, 4, 4, 4, 1025), std::invalid_argument);
  EXPECT_THROW(lab02::row_per_block_matmul(nullptr, p, q, 4, 4, 4, 32), std::invalid_argument);
  EXPECT_THROW(lab02::thread_per_element_matmul(p, p, q, 4, 4, -3, dim3(16, 16)),
               std::invalid_argument);
  EXPECT_THROW(lab02::thread_per_element_matmul(p, p, q, 4, 4, 4, dim3(64, 32)),
               std::invalid_argument);
  EXPECT_THROW(lab02::thread_per_element_matmul(p, p, q, 4, 4, 4, dim3(0, 8)),
               std::invalid_argument);
  EXPECT_THROW(lab02::thread_per_element_matmul(p, p, q, 4, 4, 4, dim3(8, 8, 2)),
               std::invalid_argument);
  EXPECT_THROW(lab02::thread_per_element_matmul(p, p, nullptr, 4, 4, 4, dim3(16, 16)),
               std::invalid_argument);
  EXPECT_THROW(lab02::thread_per_element_matmul(p, p, q, 70000, 4, 4, dim3(1024, 1)),
               std::invalid_argument);  // 70000 blocks in y > 65535
}

/// A launcher bound to its launch configuration, with a description for failures.
struct NamedLaunch {
  std::string what;
  Launch launch;
};

/// Runs every launch on one problem of shape and fill @p p, each on a poisoned C.
void expect_correct_for_each(const Param& p, const std::vector<NamedLaunch>& launches) {
  SCOPED_TRACE(shape_trace(p));
  MatmulProblem problem(std::get<0>(p), std::get<1>(p));
  for (const NamedLaunch& l : launches) {
    SCOPED_TRACE(l.what);
    EXPECT_TRUE(problem.run_and_check(l.launch));
  }
}

const auto kAllShapesAndFills =
    ::testing::Combine(::testing::ValuesIn(kShapes), ::testing::ValuesIn(kFills));

// ---------------------------------------------------------------------------
// (a) one block per row (GPU): every shape and fill, several block sizes.
// ---------------------------------------------------------------------------
class RowPerBlockGpu : public ::testing::TestWithParam<Param> {};

TEST_P(RowPerBlockGpu, MatchesHostReference) {
  CUDALAB_REQUIRE_GPU();
  std::vector<NamedLaunch> launches;
  for (const int threads : {32, 256, 100, 1, 1024}) {
    launches.push_back(
        {"row_per_block_matmul with " + std::to_string(threads) + " threads per block",
         [threads](const float* a, const float* b, float* c, int m, int n, int k) {
           lab02::row_per_block_matmul(a, b, c, m, n, k, threads);
         }});
  }
  expect_correct_for_each(GetParam(), launches);
}

INSTANTIATE_TEST_SUITE_P(Shapes, RowPerBlockGpu, kAllShapesAndFills, param_name);

// ---------------------------------------------------------------------------
// (b) one thread per element (GPU): every shape and fill, several block shapes.
// ---------------------------------------------------------------------------
class ThreadPerElementGpu : public ::testing::TestWithParam<Param> {};

TEST_P(ThreadPerElementGpu, MatchesHostReference) {
  CUDALAB_REQUIRE_GPU();
  std::vector<NamedLaunch> launches;
  for (const dim3 block : {dim3(16, 16), dim3(32, 8), dim3(7, 5), dim3(33, 3), dim3(1, 32)}) {
    launches.push_back({"thread_per_element_matmul with block " + dims(block),
                        [block](const float* a, const float* b, float* c, int m, int n, int k) {
                          lab02::thread_per_element_matmul(a, b, c, m, n, k, block);
                        }});
  }
  expect_correct_for_each(GetParam(), launches);
}

INSTANTIATE_TEST_SUITE_P(Shapes, ThreadPerElementGpu, kAllShapesAndFills, param_name);

// ---------------------------------------------------------------------------
// The given baseline is itself correct (not graded).
// ---------------------------------------------------------------------------
TEST(GivenUncoalescedBaselineGpu, MatchesHostReference) {
  CUDALAB_REQUIRE_GPU();
  for (const Shape s : {Shape{17, 33, 5}, Shape{129, 65, 257}, Shape{1000, 3, 777}}) {
    MatmulProblem problem(s, cudalab::Fill::SmallInt);
    EXPECT_TRUE(
        problem.run_and_check([](const float* a, const float* b, float* c, int m, int n, int k) {
          uncoalesced_matmul(a, b, c, m, n, k, dim3(kPerfBlockX, kPerfBlockY), nullptr);
        }));
  }
}

// ---------------------------------------------------------------------------
// Coalescing (perf): x walking the columns beats x walking the rows.
// ---------------------------------------------------------------------------
TEST(CoalescingPerf, ThreadPerElementBeatsUncoalescedBaseline) {
  CUDALAB_REQUIRE_GPU();
  const int n = kPerfSize;  // M = N = K = n
  const std::size_t count = std::size_t(n) * n;
  const dim3 block(kPerfBlockX, kPerfBlockY);
  // ±1 data: every element of C is an integer, computed exactly by both kernels.
  const std::vector<float> h_a = cudalab::random_matrix(n, n, cudalab::Fill::PlusMinusOne, 1);
  const std::vector<float> h_b = cudalab::random_matrix(n, n, cudalab::Fill::PlusMinusOne, 2);
  cudalab::DeviceBuffer<float> d_a(count), d_b(count), d_c_base(count), d_c_cand(count);
  d_a.upload(h_a);
  d_b.upload(h_b);
  d_c_base.fill_bytes(0xFF);
  d_c_cand.fill_bytes(0xFF);

  const cudalab::Comparison cmp = cudalab::compare(
      [&](cudaStream_t s) {
        uncoalesced_matmul(d_a.data(), d_b.data(), d_c_base.data(), n, n, n, block, s);
      },
      [&](cudaStream_t s) {
        lab02::thread_per_element_matmul(d_a.data(), d_b.data(), d_c_cand.data(), n, n, n, block,
                                         s);
      });
  CUDA_CHECK(cudaDeviceSynchronize());

  // No speed verdict for a wrong result: the timed output must equal the baseline's
  // (itself checked against the host reference by GivenUncoalescedBaselineGpu).
  ASSERT_TRUE(cudalab::testing::matrices_match(d_c_base.to_host(), d_c_cand.to_host(), n, n, 0.0))
      << "thread_per_element_matmul " << n << "^3 with block " << dims(block)
      << " (expected = the given baseline's result)";

  const double gflop = 2.0 * n * double(n) * n * 1e-9;
  cudalab::testing::record_measurement("lab02 uncoalesced baseline",
                                       gflop / (cmp.baseline.median_ms * 1e-3), "GFLOP/s");
  cudalab::testing::record_measurement("lab02 thread_per_element",
                                       gflop / (cmp.candidate.median_ms * 1e-3), "GFLOP/s");
  cudalab::testing::expect_speedup(
      cmp, kCoalescedOverUncoalesced,
      "thread_per_element (x walks columns) vs baseline (x walks rows), " + std::to_string(n) +
          "^3, block " + dims(block));
}

}  // namespace
