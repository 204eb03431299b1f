// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file naive_matmul_grading.cuh
 * @brief What the test files of lab 02's grader share: the odd shapes and fills, one problem
 * C = A * B with its two data sets and its NaN guard (MatmulProblem), both launchers bound to
 * a block with the rules of their graphs (row_per_block(), thread_per_element()), the large-K
 * suite whose tests live in both technique files (LargeKGpu), and the techniques of
 * lab02::kTechniques (tests registered for every technique).
 *
 * Every graded launch is captured from the stream it is given (cudalab/graph_capture.cuh):
 * the graph may hold the launcher's own kernel and nothing else. Each captured graph is
 * replayed on two data sets behind the same pointers, with C poisoned (NaN) and the shared
 * memory of every SM filled with NaN before each replay.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/kit.cuh"
#include "common/technique_tests.hpp"
#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/grading.hpp"
#include "cudalab/graph_capture.cuh"
#include "cudalab/testing.hpp"
#include "naive_matmul.cuh"

namespace lab02_grading {

// What the test files use from elsewhere (each says `using namespace lab02_grading;`).
using cudalab::kit::dims;
using cudalab::kit::only_kernel;
using cudalab::kit::Shape;
using cudalab::testing::CapturedWork;
using cudalab::testing::GraphRules;

// Elements after C that no thread may touch (catches missing bounds checks).
inline constexpr std::size_t kGuard = 1024;
inline constexpr std::uint32_t kPoison = 0xFFFFFFFFu;  // fill_bytes(0xFF): a NaN in every float

inline const Shape kShapes[] = {{1, 1, 1},      {17, 33, 5},    {64, 64, 64}, {129, 65, 257},
                                {1000, 3, 777}, {3, 1000, 129}, {1, 300, 2},  {300, 1, 1}};

inline const cudalab::Fill kFills[] = {cudalab::Fill::PlusMinusOne, cudalab::Fill::SmallInt,
                                       cudalab::Fill::Uniform};

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

inline std::string param_name(const ::testing::TestParamInfo<Param>& p) {
  const Shape s = std::get<0>(p.param);
  return "m" + std::to_string(s.m) + "_n" + std::to_string(s.n) + "_k" + std::to_string(s.k) + "_" +
         cudalab::fill_name(std::get<1>(p.param));
}

inline std::string shape_trace(const Param& p) {
  const Shape s = std::get<0>(p);
  return "C(" + std::to_string(s.m) + "x" + std::to_string(s.n) + ") = A(" + std::to_string(s.m) +
         "x" + std::to_string(s.k) + ") * B(" + std::to_string(s.k) + "x" + std::to_string(s.n) +
         "), " + cudalab::fill_name(std::get<1>(p)) + " data";
}

/// A launcher bound to its launch configuration, with a description for failures and what
/// the graph captured from it may hold on a problem of a given shape.
struct NamedLaunch {
  std::string what;
  Launch launch;
  std::function<GraphRules(Shape)> rules;
};

/// Runs every launch on one problem of shape @p s and fill @p fill (two data sets each).
inline void expect_correct_for_each(Shape s, cudalab::Fill fill,
                                    const std::vector<NamedLaunch>& launches) {
  SCOPED_TRACE(shape_trace(Param(s, fill)));
  MatmulProblem problem(s, fill);
  for (const NamedLaunch& l : launches) {
    SCOPED_TRACE(l.what);
    EXPECT_TRUE(problem.run_and_check(l.launch, l.rules(s)));
  }
}

inline const auto kAllShapesAndFills =
    ::testing::Combine(::testing::ValuesIn(kShapes), ::testing::ValuesIn(kFills));

/// row_per_block_matmul with @p threads threads per block: its own kernel, launched as the
/// interface says, <<<M, threads>>> without dynamic shared memory.
inline NamedLaunch row_per_block(int threads) {
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
inline NamedLaunch thread_per_element(dim3 block) {
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

// ---------------------------------------------------------------------------
// Range edge (GPU): K far larger than any fixed-size staging buffer, small C; small
// integers (exact: every partial sum stays below 2^24) and uniform floats. One suite, a test
// in each technique's file (row_per_block_test.cu, thread_per_element_test.cu), instantiated
// in naive_matmul_test.cu: one fixture class for both.
// ---------------------------------------------------------------------------
using LargeKParam = std::tuple<Shape, cudalab::Fill>;

class LargeKGpu : public ::testing::TestWithParam<LargeKParam> {};

// ---------------------------------------------------------------------------
// The techniques of lab02::kTechniques
// ---------------------------------------------------------------------------

/**
 * @brief Registers test @p name ("Suite.Case", "{}" standing for the technique's name in
 * CamelCase, e.g. "CoalescingPerf.{}BeatsUncoalescedBaseline") for every technique of
 * lab02::kTechniques, in table order; each runs @p body(fixture, technique) in a @p Fixture.
 * tests/tools/test_bar_keys.py reads these calls (the literal name, then the body) to find the
 * speed bars they ask for.
 */
template <class Fixture>
void for_each_technique(const char* name, void (*body)(Fixture&, const lab02::Technique&),
                        const char* file, int line) {
  cudalab::kit::register_for_each(lab02::kTechniques, name, body, file, line);
}

}  // namespace lab02_grading
