// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 02: one-block-per-row and thread-per-element matmul, and coalescing.
//
// Every graded launch is captured from the stream it is given (cudalab/graph_capture.cuh):
// the graph may hold the launcher's own kernel and nothing else. Each captured graph is
// replayed on two data sets behind the same pointers, with C poisoned (NaN) and the shared
// memory of every SM filled with NaN before each replay.
#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "common/kit.cuh"
#include "common/matmul_grading.cuh"
#include "cudalab/bench.cuh"
#include "cudalab/ceilings.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/grading.hpp"
#include "cudalab/graph_capture.cuh"
#include "cudalab/testing.hpp"
#include "naive_matmul.cuh"

namespace {

using cudalab::testing::CapturedWork;
using cudalab::testing::GraphRules;

constexpr int kPerfRowThreads = 256;
constexpr int kPerfSize = 4096;
constexpr unsigned kPerfBlockX = 32;
constexpr unsigned kPerfBlockY = 8;

// Elements after C that no thread may touch (catches missing bounds checks).
constexpr std::size_t kGuard = 1024;
constexpr std::uint32_t kPoison = 0xFFFFFFFFu;  // fill_bytes(0xFF): a NaN in every float

using cudalab::kit::only_kernel;
using cudalab::kit::Shape;

const Shape kShapes[] = {{1, 1, 1},      {17, 33, 5},    {64, 64, 64}, {129, 65, 257},
                         {1000, 3, 777}, {3, 1000, 129}, {1, 300, 2},  {300, 1, 1}};

// Large K on a small C: more than any fixed-size shared staging buffer of a row of A holds
// (70001 floats = 273 KB > the 227 KB of opt-in shared memory per block).
const Shape kLargeKShapes[] = {{3, 70, 70001}, {2, 257, 100003}};

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

/// A launcher under test, bound to its launch configuration: (d_a, d_b, d_c, m, n, k, stream).
using Launch = std::function<void(const float*, const float*, float*, int, int, int, cudaStream_t)>;

/**
 * One problem C = A * B of a given shape and fill: two input data sets with their host
 * references, and device buffers (C followed by kGuard guard elements).
 */
class MatmulProblem {
 public:
  MatmulProblem(Shape s, cudalab::Fill fill)
      : s_(s),
        exact_(fill != cudalab::Fill::Uniform),
        d_a_(std::size_t(s.m) * s.k),
        d_b_(std::size_t(s.k) * s.n),
        d_c_(c_count() + kGuard) {
    for (int set = 0; set < 2; ++set) {
      DataSet d;
      d.a = cudalab::random_matrix(s.m, s.k, fill, 1 + 2 * std::uint64_t(set));
      d.b = cudalab::random_matrix(s.k, s.n, fill, 2 + 2 * std::uint64_t(set));
      d.expected = cudalab::reference_matmul(d.a, d.b, s.m, s.n, s.k);
      sets_.push_back(std::move(d));
    }
  }

  /**
   * Captures @p launch on the problem's buffers, checks that the graph holds only what
   * @p rules allow, then for each data set: uploads it, poisons C, the guard and the shared
   * memory, replays the graph, and checks C and the guard.
   */
  ::testing::AssertionResult run_and_check(const Launch& launch, const GraphRules& rules) {
    CapturedWork cap = CapturedWork::capture([&](cudaStream_t st) {
      launch(d_a_.data(), d_b_.data(), d_c_.data(), s_.m, s_.n, s_.k, st);
    });
    ::testing::AssertionResult provenance = cap.holds_only(rules);
    if (!provenance) return provenance;
    for (std::size_t set = 0; set < sets_.size(); ++set) {
      d_a_.upload(sets_[set].a);
      d_b_.upload(sets_[set].b);
      d_c_.fill_bytes(0xFF);
      cudalab::testing::poison_shared_memory();
      cap.run();
      ::testing::AssertionResult r = check(sets_[set].expected);
      if (!r) return r << " (data set " << set + 1 << " of the captured graph)";
    }
    return ::testing::AssertionSuccess();
  }

 private:
  struct DataSet {
    std::vector<float> a;
    std::vector<float> b;
    std::vector<float> expected;
  };

  std::size_t c_count() const { return std::size_t(s_.m) * s_.n; }

  ::testing::AssertionResult check(const std::vector<float>& expected) const {
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
    return cudalab::testing::matrices_match(expected, got, s_.m, s_.n, tol);
  }

  Shape s_;
  bool exact_;
  std::vector<DataSet> sets_;
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

/// A launcher bound to its launch configuration, with a description for failures and what
/// the graph captured from it may hold on a problem of a given shape.
struct NamedLaunch {
  std::string what;
  Launch launch;
  std::function<GraphRules(Shape)> rules;
};

/// Runs every launch on one problem of shape @p s and fill @p fill (two data sets each).
void expect_correct_for_each(Shape s, cudalab::Fill fill,
                             const std::vector<NamedLaunch>& launches) {
  SCOPED_TRACE(shape_trace(Param(s, fill)));
  MatmulProblem problem(s, fill);
  for (const NamedLaunch& l : launches) {
    SCOPED_TRACE(l.what);
    EXPECT_TRUE(problem.run_and_check(l.launch, l.rules(s)));
  }
}

const auto kAllShapesAndFills =
    ::testing::Combine(::testing::ValuesIn(kShapes), ::testing::ValuesIn(kFills));

/// row_per_block_matmul with @p threads threads per block: its own kernel, launched as the
/// interface says, <<<M, threads>>> without dynamic shared memory.
NamedLaunch row_per_block(int threads) {
  return {
      "row_per_block_matmul with " + std::to_string(threads) + " threads per block",
      [threads](const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t st) {
        lab02::row_per_block_matmul(a, b, c, m, n, k, threads, st);
      },
      [threads](Shape s) {
        const cudalab::KernelInfo kernel = lab02::row_per_block_kernel();
        GraphRules r = only_kernel(kernel);
        r.expect_launch(kernel.name, dim3(unsigned(s.m)), dim3(unsigned(threads)), 0u,
                        "M blocks of the requested threads");
        return r;
      }};
}

/// thread_per_element_matmul with @p block: its own kernel on the requested block and the
/// smallest grid with N columns in x and M rows in y (the test's own count), no dynamic
/// shared memory.
NamedLaunch thread_per_element(dim3 block) {
  return {"thread_per_element_matmul with block " + dims(block),
          [block](const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t st) {
            lab02::thread_per_element_matmul(a, b, c, m, n, k, block, st);
          },
          [block](Shape s) {
            const cudalab::KernelInfo kernel = lab02::thread_per_element_kernel();
            GraphRules r = only_kernel(kernel);
            const dim3 grid((unsigned(s.n) + block.x - 1) / block.x,
                            (unsigned(s.m) + block.y - 1) / block.y);
            r.expect_launch(kernel.name, grid, block, 0u,
                            "thread_per_element_grid() blocks of the requested block");
            return r;
          }};
}

// Every block size the launchers accept, at the edges (1 and 1024 threads, 1024 along x
// and along y) and in between.
const int kRowThreads[] = {1, 32, 100, 256, 1024};
const dim3 kElementBlocks[] = {dim3(16, 16), dim3(32, 8), dim3(7, 5),    dim3(33, 3),
                               dim3(1, 32),  dim3(1, 1),  dim3(1024, 1), dim3(1, 1024)};

// ---------------------------------------------------------------------------
// (a) one block per row (GPU): every shape and fill, every block size edge.
// ---------------------------------------------------------------------------
class RowPerBlockGpu : public ::testing::TestWithParam<Param> {};

TEST_P(RowPerBlockGpu, MatchesHostReference) {
  CUDALAB_REQUIRE_GPU();
  std::vector<NamedLaunch> launches;
  for (const int threads : kRowThreads) launches.push_back(row_per_block(threads));
  expect_correct_for_each(std::get<0>(GetParam()), std::get<1>(GetParam()), launches);
}

INSTANTIATE_TEST_SUITE_P(Shapes, RowPerBlockGpu, kAllShapesAndFills, param_name);

// ---------------------------------------------------------------------------
// (b) one thread per element (GPU): every shape and fill, every block shape edge.
// ---------------------------------------------------------------------------
class ThreadPerElementGpu : public ::testing::TestWithParam<Param> {};

TEST_P(ThreadPerElementGpu, MatchesHostReference) {
  CUDALAB_REQUIRE_GPU();
  const Shape s = std::get<0>(GetParam());
  std::vector<NamedLaunch> launches;
  for (const dim3 block : kElementBlocks) {
    if ((s.m + block.y - 1) / block.y > cudalab::kMaxGridYZ) continue;  // the launcher refuses it
    launches.push_back(thread_per_element(block));
  }
  expect_correct_for_each(s, std::get<1>(GetParam()), launches);
}

INSTANTIATE_TEST_SUITE_P(Shapes, ThreadPerElementGpu, kAllShapesAndFills, param_name);

// ---------------------------------------------------------------------------
// Memory errors (compute-sanitizer memcheck): both kernels on every shape and block size of
// the two suites above, small-integer data. A and B are each their own allocation of exactly
// M*K and K*N floats (MatmulProblem) and most shapes are ragged and odd-sized (17x33x5,
// 129x65x257, 1000x3x777, ...), so a read past either operand (B's row K, the element after
// A's last one) falls outside every allocation even where its value is thrown away. Writes
// past C land in C's NaN guard, which the suites themselves check.
// ---------------------------------------------------------------------------
CUDALAB_SANITIZER_SUITE(NaiveSanitizer,
                        "Shapes/RowPerBlockGpu.*SmallInt:Shapes/ThreadPerElementGpu.*SmallInt",
                        memcheck)

// ---------------------------------------------------------------------------
// Range edge (GPU): K far larger than any fixed-size staging buffer, small C; small
// integers (exact: every partial sum stays below 2^24) and uniform floats.
// ---------------------------------------------------------------------------
using LargeKParam = std::tuple<Shape, cudalab::Fill>;

class LargeKGpu : public ::testing::TestWithParam<LargeKParam> {};

TEST_P(LargeKGpu, RowPerBlockHandlesKPast70000) {
  CUDALAB_REQUIRE_GPU();
  std::vector<NamedLaunch> launches;
  for (const int threads : {32, 256, 1024}) launches.push_back(row_per_block(threads));
  expect_correct_for_each(std::get<0>(GetParam()), std::get<1>(GetParam()), launches);
}

TEST_P(LargeKGpu, ThreadPerElementHandlesKPast70000) {
  CUDALAB_REQUIRE_GPU();
  expect_correct_for_each(std::get<0>(GetParam()), std::get<1>(GetParam()),
                          {thread_per_element(dim3(32, 8)), thread_per_element(dim3(16, 16))});
}

INSTANTIATE_TEST_SUITE_P(Shapes, LargeKGpu,
                         ::testing::Combine(::testing::ValuesIn(kLargeKShapes),
                                            ::testing::Values(cudalab::Fill::SmallInt,
                                                              cudalab::Fill::Uniform)),
                         param_name);

// ---------------------------------------------------------------------------
// Index range (GPU): one operand holds more than 2^31 elements while the others stay far
// below, so the offset into that operand (row * k in A, p * n in B, row * n in C) overflows
// when computed in int (tests/common/matmul_grading.cuh). The big operand is filled on the
// device from a hash of the element index; the host checks sampled elements of C.
// ---------------------------------------------------------------------------

TEST(IndexRangeGpu, RowPerBlockPast2To31ElementsOfA) {
  CUDALAB_REQUIRE_GPU();
  // 2,097,120 x 1040 A: one block of 32 threads per row, 3 columns.
  matmul_grading::expect_large_a_rows(
      row_per_block(32).launch, matmul_grading::only_kernel_rules(lab02::row_per_block_kernel()),
      32, 3);
}

TEST(IndexRangeGpu, ThreadPerElementPast2To31ElementsOfA) {
  CUDALAB_REQUIRE_GPU();
  // 32 rows per block: 65535 blocks in y cover 2,097,120 rows of A.
  matmul_grading::expect_large_a_rows(
      thread_per_element(dim3(32, 32)).launch,
      matmul_grading::only_kernel_rules(lab02::thread_per_element_kernel()), 32, 3);
}

TEST(IndexRangeGpu, RowPerBlockPast2To31ElementsOfB) {
  CUDALAB_REQUIRE_GPU();
  // Two rows of C: two blocks of 1024 threads walk all 2^21 + 3 columns of B.
  matmul_grading::expect_large_b_columns(
      row_per_block(1024).launch, matmul_grading::only_kernel_rules(lab02::row_per_block_kernel()),
      2, true);
}

TEST(IndexRangeGpu, ThreadPerElementPast2To31ElementsOfB) {
  CUDALAB_REQUIRE_GPU();
  matmul_grading::expect_large_b_columns(
      thread_per_element(dim3(32, 8)).launch,
      matmul_grading::only_kernel_rules(lab02::thread_per_element_kernel()), 8, false);
}

TEST(IndexRangeGpu, RowPerBlockPast2To31ElementsOfC) {
  CUDALAB_REQUIRE_GPU();
  // 65535 * 8 = 524,280 rows of C (one block each) x 4116 columns.
  matmul_grading::expect_large_c_rows(
      row_per_block(256).launch, matmul_grading::only_kernel_rules(lab02::row_per_block_kernel()),
      8, false);
}

TEST(IndexRangeGpu, ThreadPerElementPast2To31ElementsOfC) {
  CUDALAB_REQUIRE_GPU();
  // 16 rows per block: 65535 blocks in y cover 1,048,560 rows of C, x 2071 columns.
  matmul_grading::expect_large_c_rows(
      thread_per_element(dim3(16, 16)).launch,
      matmul_grading::only_kernel_rules(lab02::thread_per_element_kernel()), 16, true);
}

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

TEST(CoalescingPerf, ThreadPerElementBeatsUncoalescedBaseline) {
  CUDALAB_REQUIRE_GPU();
  expect_beats_uncoalesced(thread_per_element(dim3(kPerfBlockX, kPerfBlockY)));
}

TEST(CoalescingPerf, RowPerBlockBeatsUncoalescedBaseline) {
  CUDALAB_REQUIRE_GPU();
  expect_beats_uncoalesced(row_per_block(kPerfRowThreads));
}

}  // namespace
