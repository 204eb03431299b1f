// SPDX-License-Identifier: BSD-3-Clause
// Grading helpers of the graders of lab 06 (padding) and lab 07 (swizzle): both grade a
// layout of a 32 x 32 shared tile with the bank model, then the given tile kernels run with
// it (provenance by capture, poisoned memory, two data sets) against the same conflicting
// baselines (labs/common/smem_tiles).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common/kit.cuh"
#include "conflicting_tile.cuh"
#include "cudalab/bank_diagram.hpp"
#include "cudalab/bank_model.hpp"
#include "cudalab/bench.cuh"
#include "cudalab/ceilings.cuh"
#include "cudalab/conflict_meter.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/grading.hpp"
#include "cudalab/graph_capture.cuh"
#include "cudalab/launch_checks.hpp"
#include "cudalab/matrix.hpp"
#include "cudalab/testing.hpp"
#include "cudalab/tools.hpp"

namespace tile_grading {

/// The word (or element) each lane of a warp accesses.
using Lanes = std::array<std::int64_t, cudalab::bank::kWarpSize>;
/// out (cols x rows) = in (rows x cols)^T on a stream.
using TransposeLaunch = std::function<void(const float*, float*, int, int, cudaStream_t)>;
/// out = in^T with blocks of 32 x block_rows threads, on a stream.
using BlockRowsTranspose = std::function<void(const float*, float*, int, int, int, cudaStream_t)>;
/// C (m x n) = A (m x k) * B (k x n) on a stream.
using MatmulLaunch =
    std::function<void(const float*, const float*, float*, int, int, int, cudaStream_t)>;

/// A transpose problem: the input is rows x cols.
using cudalab::kit::Extent;
/// A matmul problem: A is m x k, B is k x n.
using cudalab::kit::Shape;
/// Test-name suffix of the suites over Extent and Shape ("100x2", "33x65x17").
using cudalab::kit::shape_name;
/// Graph rules "nothing but this kernel" (matched by its function: the instance of a given
/// tile kernel with the lab's layout, not the conflicting one).
using cudalab::kit::only_kernel;

/// Graded shapes: odd shapes, rectangles, a single row, two columns, tiles cut at both edges.
/// Every one fails with a layout that stores two elements of a tile in one word (the stub's).
inline const Extent kTransposeShapes[] = {{1, 100},  {100, 2},   {31, 33},    {33, 65},  {64, 64},
                                          {257, 31}, {96, 1000}, {1000, 999}, {2049, 67}};
inline const Shape kMatmulShapes[] = {{32, 32, 32},   {33, 65, 17}, {100, 37, 129}, {31, 300, 33},
                                      {257, 130, 45}, {64, 1, 200}, {1, 96, 64}};
/// Edge shapes of the given tile kernels (one element, one column): a layout that sends
/// every element of a row to one word still transposes them right (one element per row of
/// the tile), so they grade the given kernels' bounds, not the layout (Given suites).
inline const Extent kGivenEdgeTransposeShapes[] = {{1, 1}, {100, 1}};
inline const Shape kGivenEdgeMatmulShapes[] = {{1, 1, 1}, {40, 3, 1}};

/// The conflicting baselines in the launcher signatures.
inline void conflicting_transpose(const float* in, float* out, int rows, int cols, cudaStream_t s) {
  smem_tiles::conflicting_transpose(in, out, rows, cols, s);
}
inline void conflicting_matmul(const float* a, const float* b, float* c, int m, int n, int k,
                               cudaStream_t s) {
  smem_tiles::conflicting_matmul(a, b, c, m, n, k, s);
}

inline std::string describe_lanes(const Lanes& lanes) {
  std::ostringstream os;
  os << "{";
  for (int l = 0; l < cudalab::bank::kWarpSize; ++l) os << (l ? ", " : "") << lanes[l];
  os << "}";
  return os.str();
}

/**
 * @brief A warp access of @p element_bytes per lane through a layout: 32 different elements
 * must get 32 different, non-negative indices, and the bank model must find no conflict.
 */
inline ::testing::AssertionResult conflict_free(const Lanes& index, const std::string& what,
                                                int element_bytes = 4) {
  for (int i = 0; i < cudalab::bank::kWarpSize; ++i) {
    if (index[i] < 0) {
      return ::testing::AssertionFailure()
             << what << ": lane " << i << " gets the negative index " << index[i];
    }
    for (int j = 0; j < i; ++j) {
      if (index[i] == index[j]) {
        return ::testing::AssertionFailure()
               << what << ": lanes " << j << " and " << i << " access different elements but "
               << "the layout stores both at " << index[i] << "; lane indices "
               << describe_lanes(index);
      }
    }
  }
  const auto request = cudalab::bank::from_element_indices(index, element_bytes);
  const int degree = cudalab::bank::conflict_degree(request);
  if (degree == 1) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << what << ": the bank model finds a " << degree << "-way conflict, expected 1 "
         << "(conflict-free); lane indices " << describe_lanes(index) << "\n"
         << cudalab::bank::render_bank_diagram(request, what);
}

/// Measures the 4-byte access @p words on the GPU and expects degree 1 within the meter's
/// resolution (the pattern must first be conflict-free by the model).
inline void expect_measured_conflict_free(const Lanes& words, const std::string& what) {
  ASSERT_TRUE(conflict_free(words, what)) << "(the layout fails on the CPU already)";
  for (const auto w : words) {
    ASSERT_LT(w, cudalab::bank::kMeterWords) << what << ": word beyond the meter's array";
  }
  const int model = cudalab::bank::conflict_degree(cudalab::bank::from_word_indices(words));
  const auto reading = cudalab::bank::measure_word_pattern(words);
  cudalab::testing::record_measurement(what + " degree", reading.degree, "way",
                                       1.0 + cudalab::bank::meter_tolerance(1));
  EXPECT_TRUE(cudalab::bank::degree_matches(reading.degree, 1))
      << what << ": measured degree " << reading.degree << " (" << reading.cycles_per_access
      << " cycles per access), expected 1 +- " << cudalab::bank::meter_tolerance(1)
      << " (model: " << model << ")";
}

/// Records the measured degree of a column of an unpadded, unswizzled tile (for contrast).
inline void record_plain_column_degree() {
  const auto plain =
      cudalab::bank::measure_word_pattern(cudalab::bank::strided_words(cudalab::bank::kWarpSize));
  cudalab::testing::record_measurement("plain 32x32 tile column degree", plain.degree, "way");
}

/// Lane l accesses tile element at(l) = (row, col) of a layout that stores (row, col) at word
/// offset(row, col) (lab06::padded_offset, lab07::swizzled_offset): each lane's word.
template <typename Offset, typename At>
Lanes lane_words(Offset offset, At at) {
  Lanes w{};
  for (int l = 0; l < smem_tiles::kTile; ++l) {
    const auto [row, col] = at(l);
    w[l] = offset(row, col);
  }
  return w;
}

/// The clock64 meter on columns 0, 13 and 31 of a tile of layout @p offset (lane l accesses
/// (l, col)), each expected conflict-free; the plain tile's column degree is recorded first, for
/// contrast.
template <typename Offset>
void expect_columns_measure_conflict_free(Offset offset) {
  record_plain_column_degree();
  for (const int c : {0, 13, smem_tiles::kTile - 1}) {
    expect_measured_conflict_free(lane_words(offset, [c](int l) { return std::make_pair(l, c); }),
                                  "column " + std::to_string(c));
  }
}

/// The clock64 meter on rows 0, 7 and 31 of a tile of layout @p offset (lane l accesses
/// (row, l)), each expected conflict-free.
template <typename Offset>
void expect_rows_measure_conflict_free(Offset offset) {
  for (const int r : {0, 7, smem_tiles::kTile - 1}) {
    expect_measured_conflict_free(lane_words(offset, [r](int l) { return std::make_pair(r, l); }),
                                  "row " + std::to_string(r));
  }
}

inline std::vector<float> host_transpose(const std::vector<float>& in, int rows, int cols) {
  std::vector<float> out(in.size());
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      out[static_cast<size_t>(c) * rows + r] = in[static_cast<size_t>(r) * cols + c];
    }
  }
  return out;
}

/// The work of one launcher call on a stream (the graph-captured unit).
using Work = std::function<void(cudaStream_t)>;

/**
 * @brief Provenance and two data sets: captures @p work (the launcher on its stream),
 * checks that the graph holds only @p kernel, then twice: @p fill puts a new data
 * set behind the launcher's pointers (argument 0 or 1), the outputs (@p out) are poisoned
 * with NaN, the shared memory of every SM too, the graph replays, and @p check judges the
 * output against the reference of that data set. Then @p work runs directly (uncaptured) twice
 * more on the same buffers, each data set in turn behind them
 * (cudalab::kit::expect_fresh_results_on_same_buffers): a launcher that remembers its last
 * call and skips the work when called again with the same arguments fails.
 */
inline void expect_captured_twice(const Work& work, const cudalab::KernelInfo& kernel,
                                  const std::function<void(int)>& fill,
                                  cudalab::DeviceBuffer<float>& out,
                                  const std::function<::testing::AssertionResult(int)>& check) {
  namespace t = cudalab::testing;
  t::CapturedWork cap = t::CapturedWork::capture(work);
  ASSERT_TRUE(cap.holds_only(only_kernel(kernel)));
  for (int set = 0; set < 2; ++set) {
    SCOPED_TRACE("data set " + std::to_string(set));
    fill(set);
    t::poison(out.data(), out.size() * sizeof(float));
    t::poison_shared_memory();
    CUDA_CHECK(cudaDeviceSynchronize());
    cap.run();
    ASSERT_TRUE(check(set));
  }
  // Same buffers, new data: the launcher itself (not the graph) called twice more with the
  // same pointers and sizes, each data set in turn behind them and the outputs poisoned.
  cudalab::kit::expect_fresh_results_on_same_buffers(
      "the launcher",
      [&](int set) {
        fill(set);
        t::poison(out.data(), out.size() * sizeof(float));
      },
      work, [&](int set) { ASSERT_TRUE(check(set)); }, 2);
}

/// Two random rows x cols inputs (uniform floats: a transpose moves them bit for bit).
inline std::vector<float> transpose_input(int rows, int cols, int set) {
  return cudalab::random_matrix(rows, cols, cudalab::Fill::Uniform, 11 + set);
}

/// @p launch transposes two random rows x cols matrices exactly, captured on its stream,
/// holding only @p kernel.
inline void expect_transpose_ok(const TransposeLaunch& launch, int rows, int cols,
                                const cudalab::KernelInfo& kernel) {
  const std::size_t count = std::size_t(rows) * cols;
  cudalab::DeviceBuffer<float> d_in(count);
  cudalab::DeviceBuffer<float> d_out(count);
  std::vector<float> h_in;
  expect_captured_twice([&](cudaStream_t s) { launch(d_in.data(), d_out.data(), rows, cols, s); },
                        kernel,
                        [&](int set) {
                          h_in = transpose_input(rows, cols, set);
                          d_in.upload(h_in);
                        },
                        d_out,
                        [&](int) {
                          return cudalab::testing::matrices_match(host_transpose(h_in, rows, cols),
                                                                  d_out.to_host(), cols, rows, 0.0);
                        });
}

/**
 * @brief @p launch multiplies two pairs of random matrices, captured on its stream: small
 * integers (every sum exact in float, so compared bit for bit) when @p fill is SmallInt,
 * uniform floats with the K-scaled tolerance otherwise.
 */
inline void expect_matmul_ok(const MatmulLaunch& launch, Shape s, cudalab::Fill fill,
                             const cudalab::KernelInfo& kernel) {
  cudalab::DeviceBuffer<float> d_a(std::size_t(s.m) * s.k);
  cudalab::DeviceBuffer<float> d_b(std::size_t(s.k) * s.n);
  cudalab::DeviceBuffer<float> d_c(std::size_t(s.m) * s.n);
  std::vector<float> h_a;
  std::vector<float> h_b;
  const double tol = fill == cudalab::Fill::SmallInt ? 0.0 : cudalab::kit::matmul_tolerance(s.k);
  expect_captured_twice(
      [&](cudaStream_t st) { launch(d_a.data(), d_b.data(), d_c.data(), s.m, s.n, s.k, st); },
      kernel,
      [&](int set) {
        h_a = cudalab::random_matrix(s.m, s.k, fill, 21 + 2 * set);
        h_b = cudalab::random_matrix(s.k, s.n, fill, 22 + 2 * set);
        d_a.upload(h_a);
        d_b.upload(h_b);
      },
      d_c,
      [&](int) {
        return cudalab::testing::matrices_match(cudalab::reference_matmul(h_a, h_b, s.m, s.n, s.k),
                                                d_c.to_host(), s.m, s.n, tol);
      });
}

/// Plain (uncaptured) runs on small odd shapes, for the sanitizer and profiler re-runs.
inline ::testing::AssertionResult transpose_ok(const TransposeLaunch& launch, int rows, int cols) {
  const auto h_in = transpose_input(rows, cols, 0);
  cudalab::DeviceBuffer<float> d_in(h_in.size());
  cudalab::DeviceBuffer<float> d_out(h_in.size());
  d_in.upload(h_in);
  d_out.fill_bytes(0xFF);
  launch(d_in.data(), d_out.data(), rows, cols, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  return cudalab::testing::matrices_match(host_transpose(h_in, rows, cols), d_out.to_host(), cols,
                                          rows, 0.0);
}

inline ::testing::AssertionResult matmul_ok(const MatmulLaunch& launch, Shape s) {
  const auto h_a = cudalab::random_matrix(s.m, s.k, cudalab::Fill::SmallInt, 1);
  const auto h_b = cudalab::random_matrix(s.k, s.n, cudalab::Fill::SmallInt, 2);
  cudalab::DeviceBuffer<float> d_a(h_a.size());
  cudalab::DeviceBuffer<float> d_b(h_b.size());
  cudalab::DeviceBuffer<float> d_c(static_cast<size_t>(s.m) * s.n);
  d_a.upload(h_a);
  d_b.upload(h_b);
  d_c.fill_bytes(0xFF);
  launch(d_a.data(), d_b.data(), d_c.data(), s.m, s.n, s.k, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  return cudalab::testing::matrices_match(cudalab::reference_matmul(h_a, h_b, s.m, s.n, s.k),
                                          d_c.to_host(), s.m, s.n, 0.0);
}

/// @p launch transposes exactly with blocks of 32 x r for every r dividing 32.
inline void expect_transpose_with_every_block(const BlockRowsTranspose& launch, Extent s,
                                              const cudalab::KernelInfo& kernel) {
  for (int block_rows = 1; block_rows <= smem_tiles::kTile; block_rows *= 2) {
    SCOPED_TRACE("block " + std::to_string(smem_tiles::kTile) + "x" + std::to_string(block_rows));
    expect_transpose_ok([&](const float* in, float* out, int rows, int cols,
                            cudaStream_t st) { launch(in, out, rows, cols, block_rows, st); },
                        s.rows, s.cols, kernel);
  }
}

/**
 * @brief The contract of a tile transpose launcher (blocks of kTile x block_rows, one block row
 * per kTile input rows): std::invalid_argument, before any CUDA call (the pointers are
 * unallocated), for rows or cols of 0 or -1; a block_rows that is not a divisor of kTile (0,
 * -1, -32, 3, 5, 12, 33, and 64, a multiple); 65535 * kTile + 1 input rows (one tile row past
 * gridDim.y's limit) and INT_MAX rows. @p name names the launcher. Every divisor of kTile is
 * accepted: expect_transpose_with_every_block (GPU).
 */
inline void expect_transpose_launcher_rejects_bad_arguments(const BlockRowsTranspose& launch,
                                                            const std::string& name) {
  struct Case {
    int rows, cols, block_rows;
    std::string why;
  };
  constexpr int kRows = smem_tiles::kTransposeBlockRows;
  const int past = int(cudalab::kMaxGridYZ) * smem_tiles::kTile + 1;
  std::vector<Case> cases = {
      {0, 64, kRows, "rows = 0 is not positive"},
      {-1, 64, kRows, "rows = -1 is not positive"},
      {64, 0, kRows, "cols = 0 is not positive"},
      {64, -1, kRows, "cols = -1 is not positive"},
      {past, 64, kRows,
       std::to_string(past) + " input rows need 65536 tile rows of 32 (gridDim.y allows 65535)"},
      {std::numeric_limits<int>::max(), 64, kRows,
       "INT_MAX input rows need far more than 65535 tile rows of 32"},
  };
  for (const int bad : {0, -1, -32, 3, 5, 12, 33, 64}) {
    cases.push_back({64, 64, bad,
                     "block_rows = " + std::to_string(bad) + " is not a divisor of " +
                         std::to_string(smem_tiles::kTile) + " (1, 2, 4, 8, 16 or 32)"});
  }
  for (const Case& c : cases) {
    const std::string what = name + "(rows=" + std::to_string(c.rows) +
                             ", cols=" + std::to_string(c.cols) +
                             ", block_rows=" + std::to_string(c.block_rows) + ")";
    EXPECT_TRUE(cudalab::kit::throws_invalid_argument(what, [&] {
      launch(cudalab::kit::unallocated<const float>(), cudalab::kit::unallocated<float>(), c.rows,
             c.cols, c.block_rows, nullptr);
    })) << c.why;
  }
}

/// The edge shapes of the given tile kernels (kGivenEdge*Shapes) with the lab's launchers:
/// exact, captured, every transpose block shape. The body of the labs' Given edge tests.
inline void expect_given_edge_shapes_exact(const BlockRowsTranspose& transpose,
                                           const cudalab::KernelInfo& transpose_kernel,
                                           const MatmulLaunch& matmul,
                                           const cudalab::KernelInfo& matmul_kernel) {
  for (const Extent s : kGivenEdgeTransposeShapes) {
    SCOPED_TRACE("transpose " + std::to_string(s.rows) + "x" + std::to_string(s.cols));
    expect_transpose_with_every_block(transpose, s, transpose_kernel);
  }
  for (const Shape s : kGivenEdgeMatmulShapes) {
    SCOPED_TRACE("matmul " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
                 std::to_string(s.k));
    expect_matmul_ok(matmul, s, cudalab::Fill::SmallInt, matmul_kernel);
  }
}

/// The lab's kernels (named @p name) and the conflicting ones, once each on 100 x 70 (x 90):
/// the body of the SmallShapesGpu test that the sanitizer and profiler tests re-run.
inline void expect_small_shapes_exact(const TransposeLaunch& transpose, const MatmulLaunch& matmul,
                                      const std::string& name) {
  EXPECT_TRUE(transpose_ok(transpose, 100, 70)) << name << " transpose";
  EXPECT_TRUE(transpose_ok(conflicting_transpose, 100, 70)) << "conflicting transpose";
  EXPECT_TRUE(matmul_ok(matmul, {100, 70, 90})) << name << " matmul";
  EXPECT_TRUE(matmul_ok(conflicting_matmul, {100, 70, 90})) << "conflicting matmul";
}

inline cudalab::BenchOptions perf_options(int reps) {
  cudalab::BenchOptions o;
  o.warmup = 2;
  o.reps = reps;
  return o;
}

/**
 * @brief Times @p candidate (captured: only @p kernel) against the conflicting
 * transpose at n x n, both reading one input that alternates between two sets
 * (cudalab::testing::AlternatingInput: before every timed run of either, an untimed copy puts
 * the next set there with about sqrt(n) elements replaced at positions drawn for that run,
 * and the run's output is poisoned); checks three rows, drawn at random, of every earlier
 * candidate run (and of the last warm-up; kept before the next run's input is copied)
 * against the transpose of exactly what that run read (input_view()), and the last timed
 * output whole against the transpose of that run's input (last_input()); bounds the
 * bandwidth by the DRAM ceiling, records both bandwidths and judges the speedup (the test's
 * "speedup" bar, cudalab::testing::speed_bar()).
 * @p baseline defaults to the conflicting transpose.
 */
inline void expect_transpose_speedup(const TransposeLaunch& candidate, int n,
                                     const std::string& name, const cudalab::KernelInfo& kernel,
                                     const TransposeLaunch& baseline = conflicting_transpose,
                                     const std::string& baseline_name = "conflicting") {
  const std::size_t count = std::size_t(n) * n;
  cudalab::testing::AlternatingInput<float> in(transpose_input(n, n, 0), transpose_input(n, n, 1));
  cudalab::DeviceBuffer<float> d_base(count), d_out(count);
  cudalab::testing::CapturedWork cap = cudalab::testing::CapturedWork::capture(
      [&](cudaStream_t s) { candidate(in.live.data(), d_out.data(), n, n, s); });
  ASSERT_TRUE(cap.holds_only(only_kernel(kernel)));
  auto opts = perf_options(21);
  opts.before_baseline = [&](cudaStream_t s) {
    in.copy_next(s);
    cudalab::testing::poison(d_base.data(), d_base.bytes(), s);
  };
  // The baseline's runs take inputs of their own in between: each candidate run is tagged
  // with the input it read.
  cudalab::kit::RunRows<float> run_rows(d_out.data(), n, n);
  opts.before_candidate = run_rows.before_each_run(in, [&](cudaStream_t s) {
    in.copy_next(s);
    cudalab::testing::poison(d_out.data(), d_out.bytes(), s);
  });
  const auto cmp =
      cudalab::compare([&](cudaStream_t s) { baseline(in.live.data(), d_base.data(), n, n, s); },
                       cap.as_work(), opts);
  CUDA_CHECK(cudaDeviceSynchronize());
  ASSERT_GT(in.runs, 0);
  cudalab::kit::expect_every_run_transpose(run_rows, in, n, n, "the timed " + name + " transpose");
  if (::testing::Test::HasFailure()) return;  // no speed verdict for a wrong result
  ASSERT_TRUE(cudalab::testing::matrices_match(host_transpose(in.last_input(), n, n),
                                               d_out.to_host(), n, n, 0.0))
      << "the timed " << name << " transpose is wrong (input set " << in.last()
      << " with that run's changed elements); no speed verdict";
  const double bytes = 2.0 * double(count) * sizeof(float);
  const double gbps = bytes / (cmp.candidate.median_ms * 1e6);
  cudalab::testing::record_measurement(name + " transpose", gbps, "GB/s");
  cudalab::testing::record_measurement(baseline_name + " transpose",
                                       bytes / (cmp.baseline.median_ms * 1e6), "GB/s");
  cudalab::testing::expect_possible(gbps, cudalab::device_ceilings().dram_gbps, "GB/s",
                                    name + " transpose");
  cudalab::testing::expect_speedup(cmp, name + " vs " + baseline_name + " transpose");
}

/**
 * @brief Times @p candidate (captured: only @p kernel) against the conflicting matmul
 * (captured: only its kernel) at n x n x n on small integers with the kit's perf fixture
 * (cudalab::kit::ProductRace: both inputs alternate between two sets, the last timed output
 * must equal the conflicting matmul's on the same set and the host's on sampled rows, the
 * rate is bounded by the FP32 ceiling), records both rates and judges the speedup.
 */
inline void expect_matmul_speedup(const MatmulLaunch& candidate, int n, const std::string& name,
                                  const cudalab::KernelInfo& kernel) {
  cudalab::kit::ProductRace race({n, n, n}, 31);
  const cudalab::Comparison cmp =
      race.time({conflicting_matmul, only_kernel(smem_tiles::conflicting_matmul_kernel()),
                 "the conflicting matmul"},
                {candidate, only_kernel(kernel), "the " + name + " matmul"},
                name + " vs conflicting matmul", perf_options(7));
  if (::testing::Test::HasFailure()) return;  // no speed verdict for a wrong result
  cudalab::testing::record_measurement(name + " matmul", race.tflops(cmp.candidate.median_ms),
                                       "TFLOP/s");
  cudalab::testing::record_measurement("conflicting matmul", race.tflops(cmp.baseline.median_ms),
                                       "TFLOP/s");
  cudalab::testing::expect_speedup(cmp, name + " vs conflicting matmul");
}

/// Nsight Compute counters: bank conflicts and executed shared-memory instructions.
inline const std::vector<std::string> kConflictMetrics = {
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum", "smsp__sass_inst_executed_op_shared_st.sum"};

/// Counter totals over every profiled launch of one kernel.
struct ConflictCount {
  double conflicts = 0.0;
  double instructions = 0.0;
  int launches = 0;
};

/// A profiled kernel: how messages and measurements name it, and the substrings an ncu kernel
/// name must all contain to be counted as it (the first one is the kernel's identifier).
struct ProfiledKernel {
  std::string label;
  std::vector<std::string> match;
};

/// A lab kernel whose bank conflicts the profiler test bounds, and the conflicting baseline
/// that must show conflicts on the same run.
struct ConflictComparison {
  ProfiledKernel mine;
  ProfiledKernel base;
};

/// A lab kernel profiled under its own name.
inline ProfiledKernel profiled(const cudalab::KernelInfo& kernel) {
  return {kernel.name, {kernel.name}};
}

/// An instance of a given tile kernel (@p kernel_name: smem_tiles::kTileTransposeKernelName or
/// kTileMatmulKernelName) whose KernelInfo @p layout names its layout type.
inline ProfiledKernel profiled_tile_kernel(const std::string& kernel_name,
                                           const cudalab::KernelInfo& layout) {
  return {kernel_name + "<" + layout.name + ">", {kernel_name, layout.name}};
}

/// The given tile transpose with the lab's layout against the same kernel with the plain layout.
inline ConflictComparison tile_transpose_comparison(const cudalab::KernelInfo& transpose) {
  return {profiled_tile_kernel(smem_tiles::kTileTransposeKernelName, transpose),
          profiled_tile_kernel(smem_tiles::kTileTransposeKernelName,
                               smem_tiles::conflicting_transpose_kernel())};
}

/// The given tile matmul with the lab's layout against the same kernel with the plain layout.
inline ConflictComparison tile_matmul_comparison(const cudalab::KernelInfo& matmul) {
  return {profiled_tile_kernel(smem_tiles::kTileMatmulKernelName, matmul),
          profiled_tile_kernel(smem_tiles::kTileMatmulKernelName,
                               smem_tiles::conflicting_matmul_kernel())};
}

/// The ncu kernel filter of @p comparisons: their identifiers as alternatives.
inline std::string kernel_regex(const std::vector<ConflictComparison>& comparisons) {
  std::vector<std::string> ids;
  for (const auto& c : comparisons) {
    for (const ProfiledKernel* k : {&c.mine, &c.base}) {
      if (std::find(ids.begin(), ids.end(), k->match.front()) == ids.end()) {
        ids.push_back(k->match.front());
      }
    }
  }
  std::string regex;
  for (const auto& id : ids) regex += (regex.empty() ? "" : "|") + id;
  return regex;
}

inline ConflictCount sum_for(const cudalab::testing::NcuRun& run, const ProfiledKernel& kernel) {
  ConflictCount c;
  for (const auto& k : run.kernels) {
    const bool all = std::all_of(kernel.match.begin(), kernel.match.end(), [&](const auto& m) {
      return k.name.find(m) != std::string::npos;
    });
    if (!all) continue;
    auto value = [&](const std::string& m) {
      const auto it = k.values.find(m);
      return it == k.values.end() ? 0.0 : it->second;
    };
    c.conflicts += value(kConflictMetrics[0]) + value(kConflictMetrics[1]);
    c.instructions += value(kConflictMetrics[2]) + value(kConflictMetrics[3]);
    ++c.launches;
  }
  return c;
}

/// Nsight Compute bank conflicts per shared instruction: at most kMaxConflictsPerInstruction in
/// a lab's kernel (measured 0 for the padded kernels of lab 06 and the swizzled ones of lab 07),
/// at least kMinBaselineConflictsPerInstruction in its conflicting baseline (measured 11.6 for
/// the transpose and 5.3 for the matmul), else the counters are not trusted. (The speed bars,
/// with their provenance, are the calibration's: tests/calibration/nvidia-h200.tsv.)
inline constexpr double kMaxConflictsPerInstruction = 0.05;
inline constexpr double kMinBaselineConflictsPerInstruction = 2.0;

/**
 * @brief Profiles the kernels that @p comparisons name in the tests of @p gtest_filter with
 * ncu and expects at most kMaxConflictsPerInstruction bank conflicts per shared instruction in
 * each lab kernel and at least kMinBaselineConflictsPerInstruction in its baseline. Skips when
 * ncu cannot run. Must be called directly from the test body (it may GTEST_SKIP()).
 */
#define TILE_GRADING_EXPECT_FEW_CONFLICTS_IN(comparisons, gtest_filter)                           \
  do {                                                                                            \
    if (::cudalab::testing::running_under_tool()) GTEST_SKIP() << "already under a tool";         \
    const std::vector<::tile_grading::ConflictComparison> tg_cmp_ = (comparisons);                \
    const auto tg_run_ = ::cudalab::testing::run_ncu(                                             \
        ::tile_grading::kConflictMetrics, ::tile_grading::kernel_regex(tg_cmp_), (gtest_filter)); \
    if (!tg_run_.available) GTEST_SKIP() << tg_run_.skip_reason;                                  \
    ::tile_grading::expect_few_conflicts(tg_run_, tg_cmp_,                                        \
                                         ::tile_grading::kMaxConflictsPerInstruction,             \
                                         ::tile_grading::kMinBaselineConflictsPerInstruction);    \
  } while (0)

inline void expect_few_conflicts(const cudalab::testing::NcuRun& run,
                                 const std::vector<ConflictComparison>& comparisons,
                                 double max_per_inst, double min_baseline_per_inst) {
  ASSERT_FALSE(run.kernels.empty()) << "ncu profiled no kernel:\n"
                                    << cudalab::testing::excerpt(run.output);
  // Counters are only worth reading for kernels that compute the right thing: a layout that
  // stores every element in one word has no conflicts and a wrong result.
  ASSERT_GT(cudalab::testing::tests_ran(run.output), 0) << "no test ran under ncu:\n"
                                                        << cudalab::testing::excerpt(run.output);
  ASSERT_EQ(run.output.find("[  FAILED  ]"), std::string::npos)
      << "the tests profiled under ncu failed, so their conflict counts grade nothing:\n"
      << cudalab::testing::excerpt(run.output);
  for (const ConflictComparison& c : comparisons) {
    const std::string& mine = c.mine.label;
    const std::string& base = c.base.label;
    const auto m = sum_for(run, c.mine);
    const auto b = sum_for(run, c.base);
    ASSERT_GT(m.launches, 0) << mine << " was not profiled";
    ASSERT_GT(b.launches, 0) << base << " was not profiled";
    ASSERT_GT(m.instructions, 0.0) << mine << " executed no shared-memory instruction: does it "
                                   << "stage its tile in shared memory?";
    const double per_inst = m.conflicts / m.instructions;
    const double base_per_inst = b.conflicts / std::max(1.0, b.instructions);
    cudalab::testing::record_measurement(mine + " conflicts per shared instruction", per_inst, "",
                                         max_per_inst);
    cudalab::testing::record_measurement(base + " conflicts per shared instruction", base_per_inst,
                                         "", min_baseline_per_inst);
    EXPECT_LE(per_inst, max_per_inst) << mine << ": " << m.conflicts << " bank conflicts over "
                                      << m.instructions << " shared instructions";
    EXPECT_GE(base_per_inst, min_baseline_per_inst)
        << base << " should conflict heavily (" << b.conflicts << " conflicts over "
        << b.instructions << " shared instructions): the counters look unreliable here";
  }
}

}  // namespace tile_grading
