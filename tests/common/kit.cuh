// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file kit.cuh
 * @brief The grading kit: what every grader needs and none re-creates.
 *
 * Graders include it as common/kit.cuh (tests/ is on their include path). A grader keeps only its
 * shapes, thresholds and the probes specific to its lesson; the rest is here:
 * - Shape (m x n x k products) and Extent (rows x cols problems), their printers and
 *   shape_name, the test-name suffix of a parameterized suite over them; dims(), a block's text;
 * - only_kernel(), the graph rules "nothing but this kernel", taking the kernel identity a
 *   technique file exports (cudalab::KernelInfo) or, for kernels the grader owns, a name;
 * - SignProduct, random ±1 operands packed as bits and their exact product (binary labs);
 * - matmul_tolerance(), the one tolerance rule of float matrix products;
 * - ProductRace, the perf fixture: candidate vs baseline, alternating inputs, verified outputs;
 * - CUDALAB_SANITIZER_SUITE / CUDALAB_SANITIZER_TEST, a sanitizer suite in one line;
 * - expect_sass() and its SassRule (sass_rules.hpp): the technique's opcodes in a kernel's SASS;
 * - expect_fresh_results_on_same_buffers(), "same buffers, new data": a launcher called again
 *   with the same pointers and sizes after the data behind them changed must recompute;
 * - reset_kernel_state() / FreshKernelState, the order-independent verdict: a kernel's function
 *   attributes (dynamic shared-memory limit, carve-out preference, cache configuration) put
 *   back to the driver's defaults before a test that judges them, so that no earlier test of
 *   the same process can have prepared them.
 */
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <ostream>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cudalab/bench.cuh"
#include "cudalab/bits.hpp"
#include "cudalab/ceilings.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/grading.hpp"
#include "cudalab/graph_capture.cuh"
#include "cudalab/launch_checks.hpp"
#include "cudalab/matrix.hpp"
#include "cudalab/parallel.hpp"
#include "cudalab/remote.hpp"
#include "cudalab/testing.hpp"
#include "cudalab/tools.hpp"
#include "sass_rules.hpp"

namespace cudalab::kit {

/// A matrix product C (m x n) = A (m x k) * B (k x n).
struct Shape {
  int m;
  int n;
  int k;
};

/// A 2-D problem of rows x cols elements (transpose, copy, add-one, packing).
struct Extent {
  int rows;
  int cols;
};

/// "129x65x257" (m x n x k).
inline std::string to_string(const Shape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

/// "100x2" (rows x cols).
inline std::string to_string(const Extent& e) {
  return std::to_string(e.rows) + "x" + std::to_string(e.cols);
}

/// gtest printer: the to_string() text.
inline void PrintTo(const Shape& s, std::ostream* os) {
  *os << to_string(s);
}

/// gtest printer: the to_string() text.
inline void PrintTo(const Extent& e, std::ostream* os) {
  *os << to_string(e);
}

/**
 * @brief Test-name suffix of a parameterized suite over Shape or Extent (the last argument of
 * INSTANTIATE_TEST_SUITE_P): the to_string() text of the parameter, e.g. "129x65x257".
 */
struct ShapeName {
  template <class P>
  std::string operator()(const ::testing::TestParamInfo<P>& p) const {
    return to_string(p.param);
  }
};

/// The name generator of a suite over Shape or Extent: `INSTANTIATE_TEST_SUITE_P(Shapes,
/// MySuite, ::testing::ValuesIn(kShapes), cudalab::kit::shape_name);`.
inline constexpr ShapeName shape_name{};

/// "32x8": a block's x and y (what a failure message names a launch configuration by).
inline std::string dims(dim3 d) {
  return std::to_string(d.x) + "x" + std::to_string(d.y);
}

/**
 * @brief Graph rules: nothing but @p kernel (no copies, no memsets, no other kernel), which
 * must appear. The kernel is matched by its function (KernelInfo::function), which also
 * tells apart the instances of a template; a KernelInfo without a function is matched by its
 * name. Add launch expectations with `rules.expect_launch(kernel.name, ...)`.
 */
inline cudalab::testing::GraphRules only_kernel(const cudalab::KernelInfo& kernel) {
  cudalab::testing::GraphRules rules;
  if (kernel.function != nullptr) {
    rules.functions = {{kernel.function, kernel.name}};
  } else {
    rules.kernels = {kernel.name};
  }
  return rules;
}

/// Graph rules: nothing but the kernel named @p kernel_name (an identifier, no namespace);
/// for kernels the grader owns, which export no KernelInfo.
inline cudalab::testing::GraphRules only_kernel(const char* kernel_name) {
  cudalab::testing::GraphRules rules;
  rules.kernels = {kernel_name};
  return rules;
}

/**
 * @brief Cases of an argument check, each one bad argument of an otherwise valid call: Case is
 * a struct with a `std::string why`; `OneChange<Case> cases(ok)` then `cases.add("m is 0",
 * [](Case& c) { c.m = 0; })` appends a copy of @p ok changed so, and `cases.list` holds them.
 */
template <typename Case>
struct OneChange {
  explicit OneChange(const Case& valid) : ok(valid) {}
  template <typename Change>
  void add(std::string why, Change&& change) {
    Case c = ok;
    change(c);
    c.why = std::move(why);
    list.push_back(std::move(c));
  }
  Case ok;
  std::vector<Case> list;
};

/**
 * @brief A device address for the argument checks of a launcher, which must throw before any
 * CUDA call: never allocated, never dereferenced by a launcher that keeps its contract.
 * 256-byte aligned (as cudaMalloc returns) plus @p offset_bytes, so `unallocated<float>(4)`
 * is a float pointer that is not 16-byte aligned.
 */
template <typename T = float>
T* unallocated(std::size_t offset_bytes = 0) {
  constexpr std::uintptr_t kBase = std::uintptr_t{1} << 44;  // far from any mapping (16 TiB)
  return reinterpret_cast<T*>(kBase + offset_bytes);
}

/**
 * @brief Passes when @p call throws std::invalid_argument (an argument check); otherwise says
 * that @p what (the call as written, e.g. "matmul_tiled_static(m=0, n=4, k=4)") must throw it
 * and what it did instead: returned normally (nothing was checked), threw cudalab::CudaError
 * (the call reached CUDA, e.g. a launch without a GPU or with an invalid grid), or threw
 * another exception. Use: `EXPECT_TRUE(throws_invalid_argument(what, [&] { ... })) << why;`
 */
template <typename Call>
::testing::AssertionResult throws_invalid_argument(const std::string& what, Call&& call) {
  try {
    call();
  } catch (const std::invalid_argument&) {
    return ::testing::AssertionSuccess();
  } catch (const cudalab::CudaError& e) {
    return ::testing::AssertionFailure()
           << what << " must throw std::invalid_argument before any CUDA call; it threw "
           << "cudalab::CudaError (it reached CUDA): " << e.what();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure()
           << what << " must throw std::invalid_argument; it threw another exception: " << e.what();
  }
  return ::testing::AssertionFailure()
         << what << " must throw std::invalid_argument; it returned normally";
}

/// THE tolerance rule of float matrix products with inner dimension k, relative to
/// max(1, |expected|): 8 * gamma_k + u, u = 2^-24. Its derivation and assumptions are stated
/// at its one definition, cudalab::matmul_tolerance (cudalab/matrix.hpp).
using cudalab::matmul_tolerance;

/**
 * @brief "Same buffers, new data": calls a launcher directly (not captured) @p rounds times on
 * the same buffers, with the same pointers, sizes and launch arguments every time, and new
 * data behind the pointers before every call. A launcher that remembers its last call and
 * skips (or launches an empty kernel, or replays a remembered result) when called again with
 * the same arguments returns a stale result here, whatever the data; a graph replay cannot
 * catch it (the graph holds the launch the launcher made once, under capture).
 *
 * For each round r: @p load(r) puts round r's input behind the launcher's pointers and
 * poisons its outputs (synchronously, or on the legacy stream); the launcher runs as
 * @p launch(stream) on a non-blocking stream of its own, which is then synchronized with the
 * whole device; @p check(r) judges the outputs (gtest assertions). Stops at the first round
 * with a failure. Every round's data must differ from the round before it (a different seed).
 * @code
 * cudalab::kit::expect_fresh_results_on_same_buffers(
 *     "xnor_matmul_popc", [&](int r) { c.load(700 + 2 * r); },
 *     [&](cudaStream_t s) { lab08::xnor_matmul_popc(..., s); },
 *     [&](int) { EXPECT_TRUE(matrices_match(c.expected, c.d_c.to_host(), m, n, 0.0)); });
 * @endcode
 */
template <typename Load, typename Launch, typename Check>
void expect_fresh_results_on_same_buffers(const std::string& what, Load load, Launch launch,
                                          Check check, int rounds = 3) {
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  struct Destroy {
    cudaStream_t s;
    ~Destroy() { cudaStreamDestroy(s); }
  } destroy{stream};
  for (int round = 0; round < rounds; ++round) {
    SCOPED_TRACE(what + ": direct call " + std::to_string(round + 1) + " of " +
                 std::to_string(rounds) +
                 " with the same pointers and sizes, new data behind them (a launcher may not "
                 "remember an earlier call's result or skip its work)");
    CUDA_CHECK(cudaDeviceSynchronize());
    load(round);
    CUDA_CHECK(cudaDeviceSynchronize());
    launch(stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaDeviceSynchronize());
    check(round);
    if (::testing::Test::HasFailure()) return;
  }
}

/**
 * @brief Puts the function attributes of @p kernel a launcher may set back to the driver's
 * defaults: cudaFuncAttributeMaxDynamicSharedMemorySize 0 (no opt-in),
 * cudaFuncAttributePreferredSharedMemoryCarveout cudaSharedmemCarveoutDefault (-1, no
 * preference), cache configuration cudaFuncCachePreferNone; then reads them back and fails
 * the test if the driver kept another value. A function attribute outlives the test that set
 * it (it belongs to the process's CUDA context), so a test that judges what a launcher sets
 * calls this first: its verdict is then the same whether it runs alone, first, last or after
 * a test that set the attribute the launcher forgot.
 */
/// The driver's default dynamic shared-memory limit of a kernel: what 48 KB per block leaves
/// beside its static shared memory.
inline int default_dynamic_smem(const cudaFuncAttributes& attr) {
  return std::max(0, 48 * 1024 - static_cast<int>(attr.sharedSizeBytes));
}

inline void reset_kernel_state(const cudalab::KernelInfo& kernel) {
  ASSERT_NE(kernel.function, nullptr)
      << kernel.name << ": no function to reset (grader bug: the KernelInfo has none)";
  // The driver's default limit: what 48 KB per block leaves beside the kernel's static shared
  // memory (0 would forbid every dynamic launch that did not opt in, which is not the default).
  cudaFuncAttributes before{};
  CUDA_CHECK(cudaFuncGetAttributes(&before, kernel.function));
  const int default_dynamic = default_dynamic_smem(before);
  CUDA_CHECK(cudaFuncSetAttribute(kernel.function, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  default_dynamic));
  CUDA_CHECK(cudaFuncSetAttribute(kernel.function, cudaFuncAttributePreferredSharedMemoryCarveout,
                                  cudaSharedmemCarveoutDefault));
  CUDA_CHECK(cudaFuncSetCacheConfig(kernel.function, cudaFuncCachePreferNone));
  // A judged lab's launcher sets these in its own process: reset there too (its static state
  // stays, as it would in one process).
  cudalab::remote::reset_candidate_kernels();
  cudaFuncAttributes attr{};
  CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel.function));
  ASSERT_EQ(attr.maxDynamicSharedSizeBytes, default_dynamic)
      << kernel.name << ": the dynamic shared-memory limit did not reset (grader bug)";
  ASSERT_EQ(attr.preferredShmemCarveout, int(cudaSharedmemCarveoutDefault))
      << kernel.name << ": the carve-out preference did not reset (grader bug)";
}

/**
 * @brief reset_kernel_state() of every kernel given, when constructed and again when
 * destroyed: the test that holds it starts from the driver's defaults and leaves them to the
 * tests after it.
 * @code
 * const cudalab::kit::FreshKernelState fresh({lab04::tiled_dynamic_kernel()});
 * @endcode
 */
class FreshKernelState {
 public:
  explicit FreshKernelState(std::vector<cudalab::KernelInfo> kernels)
      : kernels_(std::move(kernels)) {
    for (const cudalab::KernelInfo& k : kernels_) reset_kernel_state(k);
  }
  ~FreshKernelState() {
    for (const cudalab::KernelInfo& k : kernels_) {
      if (k.function == nullptr) continue;
      // Never throw from a destructor: errors here surface in the next test's own checks.
      cudaFuncAttributes attr{};
      if (cudaFuncGetAttributes(&attr, k.function) == cudaSuccess) {
        cudaFuncSetAttribute(k.function, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             default_dynamic_smem(attr));
      }
      cudaFuncSetAttribute(k.function, cudaFuncAttributePreferredSharedMemoryCarveout,
                           cudaSharedmemCarveoutDefault);
      cudaFuncSetCacheConfig(k.function, cudaFuncCachePreferNone);
    }
    try {
      cudalab::remote::reset_candidate_kernels();
    } catch (...) {  // the next test's own reset reports it
    }
  }
  FreshKernelState(const FreshKernelState&) = delete;
  FreshKernelState& operator=(const FreshKernelState&) = delete;

 private:
  std::vector<cudalab::KernelInfo> kernels_;
};

/**
 * @brief Random ±1 operands of an m x n x k product, packed one bit per element as the binary
 * labs store them (A by rows, B by columns, 32-bit words: cudalab::bits), and their exact
 * product: the float reference where it is cheap (m n k <= 5e7), else the packed host
 * product (tested against the float one in common_test).
 */
struct SignProduct {
  std::vector<float> a;                 ///< A (m x k), ±1
  std::vector<float> b;                 ///< B (k x n), ±1
  std::vector<std::uint32_t> a32, b32;  ///< A packed by rows, B by columns
  std::vector<float> expected;          ///< C = A * B, exact

  /// New operands from random streams @p stream (A) and @p stream + 1 (B).
  static SignProduct random(const Shape& s, std::uint64_t stream) {
    namespace bits = cudalab::bits;
    SignProduct p;
    p.a = cudalab::random_matrix(s.m, s.k, cudalab::Fill::PlusMinusOne, stream);
    p.b = cudalab::random_matrix(s.k, s.n, cudalab::Fill::PlusMinusOne, stream + 1);
    p.a32 = bits::pack_rows(p.a, s.m, s.k);
    p.b32 = bits::pack_cols(p.b, s.k, s.n);
    p.expected = double(s.m) * s.n * s.k <= 5e7 ? cudalab::reference_matmul(p.a, p.b, s.m, s.n, s.k)
                                                : bits::binary_matmul(p.a32, p.b32, s.m, s.n, s.k);
    return p;
  }
};

/// A launcher of C (m x n) = A (m x k) * B (k x n) on a stream (pointers, m, n, k, stream).
using ProductLaunch =
    std::function<void(const float*, const float*, float*, int, int, int, cudaStream_t)>;

/**
 * @brief The size checks of a product launcher whose grid has one block row per @p tile_rows
 * rows of C (the contract "std::invalid_argument for non-positive sizes or more than 65535
 * tile rows"): m, n or k of 0 or -1; 65535 * @p tile_rows + 1 rows of C (one tile row past
 * gridDim.y's limit, while m / tile_rows rounded down is still 65535); INT_MAX rows (whose
 * tile-row count overflows an int in m + tile_rows - 1). Each must throw std::invalid_argument
 * before any CUDA call: the pointers are unallocated(). @p name names the launcher.
 */
inline void expect_product_launcher_rejects_bad_sizes(const ProductLaunch& launch,
                                                      const std::string& name, int tile_rows) {
  struct Case {
    int m, n, k;
    std::string why;
  };
  const int past = int(cudalab::kMaxGridYZ) * tile_rows + 1;
  const std::string tile = std::to_string(tile_rows);
  const Case cases[] = {
      {0, 64, 64, "m = 0 is not positive"},
      {-1, 64, 64, "m = -1 is not positive"},
      {64, 0, 64, "n = 0 is not positive"},
      {64, -1, 64, "n = -1 is not positive"},
      {64, 64, 0, "k = 0 is not positive"},
      {64, 64, -1, "k = -1 is not positive"},
      {past, 64, 64,
       std::to_string(past) + " rows need 65536 tile rows of " + tile +
           " (gridDim.y allows 65535)"},
      {std::numeric_limits<int>::max(), 64, 64,
       "INT_MAX rows need far more than 65535 tile rows of " + tile + " (and m + " + tile +
           " - 1 overflows an int)"},
  };
  for (const Case& c : cases) {
    const std::string what = name + "(m=" + std::to_string(c.m) + ", n=" + std::to_string(c.n) +
                             ", k=" + std::to_string(c.k) + ")";
    EXPECT_TRUE(throws_invalid_argument(what, [&] {
      launch(unallocated<const float>(), unallocated<const float>(), unallocated<float>(), c.m, c.n,
             c.k, nullptr);
    })) << c.why;
  }
}

/// One side of a ProductRace: a launcher, what its captured graph may hold, and its name.
struct Racer {
  ProductLaunch launch;
  /// The graph rules of its captured launch (e.g. only_kernel(labNN::x_kernel())). Required
  /// of a candidate; a baseline without rules (a library such as cuBLAS, whose kernels no
  /// rule can name) is timed uncaptured.
  std::optional<cudalab::testing::GraphRules> rules;
  std::string name;  ///< e.g. "the naive kernel", "cuBLAS SGEMM": for messages
};

/**
 * @brief A few rows of a timed kernel's output, as every run left them, for checking every
 * run and not only the last. From a BenchOptions::before_candidate hook, record() (before the
 * hook copies the next input) draws kRowsPerRun distinct rows from std::random_device, after
 * the run was launched, and downloads them as the previous run wrote them, tagged with the run
 * of the inputs it read (AlternatingInput::runs - 1; -1 for the warm-ups on the first set);
 * before_each_run() builds that hook around the step that copies the next input. After
 * timing, the grader rebuilds each run's input (AlternatingInput::input_view(), no copy) and checks
 * that run's rows: a result remembered from an earlier run fails whichever run served it, and
 * no kernel can know which rows of which run will be read.
 * @code
 * cudalab::kit::RunRows<float> rows(d_out.data(), n, m);  // m rows of n
 * opts.before_candidate = rows.before_each_run(in, [&](cudaStream_t s) { in.copy_next(s); });
 * cudalab::compare(baseline, candidate, opts);
 * rows.expect_every_run([&](long run) -> const std::vector<float>& { return in.input_view(run); },
 *                       expected_row, what);
 * @endcode
 */
template <typename T>
class RunRows {
 public:
  /// Rows checked per run (all rows of a shorter output).
  static constexpr int kRowsPerRun = 3;
  /// The row-major output at @p out, @p rows rows of @p cols checked elements whose starts
  /// lie @p stride elements apart (default: @p cols; a pitched output's pitch in elements).
  RunRows(const T* out, int cols, int rows, std::size_t stride = 0)
      : out_(out), cols_(cols), rows_(rows), stride_(stride == 0 ? std::size_t(cols) : stride) {}
  /// Draws the rows of this record (distinct, std::random_device) and enqueues on @p s their
  /// download as the last run left them (pageable memory: the call returns once they are
  /// copied), tagged with @p input_run.
  void record(long input_run, cudaStream_t s) {
    Record r{input_run, draw_rows(), {}};
    r.values.resize(r.rows.size() * std::size_t(cols_));
    for (std::size_t i = 0; i < r.rows.size(); ++i) {
      CUDA_CHECK(cudaMemcpyAsync(r.values.data() + i * cols_,
                                 out_ + std::size_t(r.rows[i]) * stride_, cols_ * sizeof(T),
                                 cudaMemcpyDeviceToHost, s));
    }
    records_.push_back(std::move(r));
  }
  /**
   * @brief The untimed hook of a timed kernel (BenchOptions::before_candidate): record() the
   * rows the previous run left, tagged with the run of @p in (an AlternatingInput) that it
   * read, then @p next (the step that copies the next input behind the kernel's pointers and
   * poisons its output), then note the run of @p in the coming run reads. The run read before
   * the first hook is the one @p in holds now (-1 before any copy: the warm-ups); runs of
   * @p in taken in between by others (a baseline reading the same input) are skipped. Keeps a
   * reference to @p in and to this object: both must outlive the hook.
   */
  template <typename Input>
  cudalab::GpuWork before_each_run(const Input& in, cudalab::GpuWork next) {
    return [this, &in, next = std::move(next), input_run = in.runs - 1](cudaStream_t s) mutable {
      record(input_run, s);
      next(s);
      input_run = in.runs - 1;
    };
  }
  /// One recorded run: the run of the inputs it read, the rows drawn for it and their
  /// elements, one row after the other.
  struct Record {
    long input_run;
    std::vector<int> rows;
    std::vector<T> values;
  };

  /**
   * @brief Checks the rows of every recorded run: @p inputs_of(input_run) rebuilds what the
   * run read (e.g. AlternatingInput::input_view() of each operand), @p expected_row(inputs,
   * row) gives that row as the host computes it. The first wrong element fails, naming the
   * run, the element, the value and the host's. A result remembered from an earlier run fails
   * whichever run served it.
   */
  template <typename InputsOf, typename ExpectedRow>
  void expect_every_run(InputsOf inputs_of, ExpectedRow expected_row,
                        const std::string& what) const {
    for (std::size_t run = 0; run < records_.size(); ++run) {
      const Record& rec = records_[run];
      const auto& inputs = inputs_of(rec.input_run);  // a view, where inputs_of gives one
      for (std::size_t i = 0; i < rec.rows.size(); ++i) {
        const std::vector<T> want = expected_row(inputs, rec.rows[i]);
        const T* got = rec.values.data() + i * cols_;
        for (int col = 0; col < cols_; ++col) {
          if (!(got[col] == want[std::size_t(col)])) {
            ADD_FAILURE() << what << ": the output of run " << run << " (" << records_.size()
                          << " checked before the last; run 0 is the last warm-up) is wrong at ("
                          << rec.rows[i] << ", " << col << "), a row drawn at random after the "
                          << "run: " << got[col] << ", the host computes " << want[std::size_t(col)]
                          << " on exactly what that run read. A result "
                          << "remembered from an earlier run, or rows left out? "
                          << cudalab::seed_note();
            return;
          }
        }
      }
    }
  }
  void clear() { records_.clear(); }

 private:
  /// kRowsPerRun distinct rows of [0, rows_) (all of them when fewer), ascending.
  std::vector<int> draw_rows() const {
    std::vector<int> rows;
    if (rows_ <= kRowsPerRun) {
      for (int r = 0; r < rows_; ++r) rows.push_back(r);
      return rows;
    }
    std::random_device rd;
    std::uniform_int_distribution<int> pick(0, rows_ - 1);
    while (int(rows.size()) < kRowsPerRun) {
      const int r = pick(rd);
      if (std::find(rows.begin(), rows.end(), r) == rows.end()) rows.push_back(r);
    }
    std::sort(rows.begin(), rows.end());
    return rows;
  }

  const T* out_;
  int cols_;
  int rows_;
  std::size_t stride_;
  std::vector<Record> records_;
};

/**
 * @brief The recorded rows of every run of an m x n x k float product against the host's
 * product of exactly what that run read: @p inputs_of(input_run) rebuilds that run's A and
 * B, packed row-major (a std::pair of std::vector<float>, or of references to them). Exact: the
 * inputs are small integers or ±1, every sum is exact in double and in float.
 */
template <typename InputsOf>
void expect_every_run_product(const RunRows<float>& rows, InputsOf inputs_of, const Shape& s,
                              const std::string& what) {
  rows.expect_every_run(
      inputs_of,
      [&](const auto& in, int r) {
        // Column ranges on the host's threads, each summing over all of k in order: the same
        // sums as one loop, in less time (a 4096^3 row streams all of B).
        const std::vector<float>& a = in.first;
        const std::vector<float>& b = in.second;
        std::vector<float> row(std::size_t(s.n));
        cudalab::parallel_ranges(std::size_t(s.n), 256, [&](std::size_t c0, std::size_t c1) {
          std::vector<double> sum(c1 - c0, 0.0);
          for (int p = 0; p < s.k; ++p) {
            const double x = a[std::size_t(r) * s.k + p];
            const float* b_row = b.data() + std::size_t(p) * s.n;
            for (std::size_t col = c0; col < c1; ++col) sum[col - c0] += x * b_row[col];
          }
          for (std::size_t col = c0; col < c1; ++col) row[col] = float(sum[col - c0]);
        });
        return row;
      },
      what);
}

/// The same with A and B the packed inputs @p a and @p b (AlternatingInput::input_view(), no
/// copies; A and B advance together).
inline void expect_every_run_product(const RunRows<float>& rows,
                                     const cudalab::testing::AlternatingInput<float>& a,
                                     const cudalab::testing::AlternatingInput<float>& b,
                                     const Shape& s, const std::string& what) {
  expect_every_run_product(
      rows, [&](long run) { return cudalab::testing::input_views(a, b, run); }, s, what);
}

/**
 * @brief The recorded rows of every run of a transpose (output @p in_cols x @p in_rows) against
 * the transpose of exactly what that run read (@p in, @p in_rows x @p in_cols, rebuilt with
 * AlternatingInput::input_view()): row r of the output is column r of the input. Exact.
 */
inline void expect_every_run_transpose(const RunRows<float>& rows,
                                       const cudalab::testing::AlternatingInput<float>& in,
                                       int in_rows, int in_cols, const std::string& what) {
  rows.expect_every_run([&](long run) -> const std::vector<float>& { return in.input_view(run); },
                        [in_rows, in_cols](const std::vector<float>& input, int r) {
                          std::vector<float> row(static_cast<std::size_t>(in_rows));
                          for (int c = 0; c < in_rows; ++c) {
                            row[std::size_t(c)] = input[std::size_t(c) * in_cols + r];
                          }
                          return row;
                        },
                        what);
}

/**
 * @brief The perf fixture: "candidate vs baseline with alternating inputs and verified
 * outputs" for an m x n x k float product on small integers (every sum exact in float).
 *
 * Holds two input sets (A and B, seeds @p seed .. seed + 3) and the buffers of both sides.
 * time() then:
 * 1. captures the candidate (reading the live inputs, writing its own C) and checks its graph
 *    against its rules; captures the baseline (set 0, its own C) and checks its graph, unless
 *    it has no rules (then it runs uncaptured);
 * 2. times both interleaved (cudalab::compare, L2 flushed); before every timed run of the
 *    candidate the next input set is copied behind its pointers (set 0, 1, 0, ..., with about
 *    sqrt(n) elements changed every run: cudalab::testing::AlternatingInput) and its C is
 *    filled with NaN, untimed: no repetition can reuse a remembered result;
 * 3. verifies the output of the candidate's last run: exactly the baseline's output on the
 *    same input (the baseline rerun on it), and the host's on three rows (first, middle,
 *    last; every 7th column); and three rows of every earlier timed run (and of the last
 *    warm-up), drawn at random and downloaded before the next run's input is copied (RunRows),
 *    against the host's product of exactly what that run read: a remembered result fails
 *    whichever run served it;
 * 4. bounds the candidate's rate by the FP32 ceiling (expect_possible).
 * Failures are gtest failures naming @p what; the grader returns on HasFailure() (no speed
 * verdict for a wrong result) and judges the returned comparison with
 * cudalab::testing::expect_speedup, which names the test's "speedup" bar and reads its number
 * from the calibration (speed_bar(): tests/calibration/<gpu>.tsv, the row of this test):
 * @code
 * cudalab::kit::ProductRace race({4096, 4096, 4096}, 11);
 * const auto cmp = race.time({naive_launch, kit::only_kernel(lab04::naive_kernel()), "naive"},
 *                            {static_launch, static_rules, "static tiles"}, "static vs naive");
 * if (HasFailure()) return;
 * cudalab::testing::expect_speedup(cmp, "static tiles vs naive");
 * @endcode
 */
class ProductRace {
 public:
  /// Two small-integer input sets of a @p shape product, from random streams @p seed...
  explicit ProductRace(Shape shape, std::uint64_t seed = 100)
      : s_(shape),
        a_in_(cudalab::random_matrix(shape.m, shape.k, cudalab::Fill::SmallInt, seed),
              cudalab::random_matrix(shape.m, shape.k, cudalab::Fill::SmallInt, seed + 2)),
        b_in_(cudalab::random_matrix(shape.k, shape.n, cudalab::Fill::SmallInt, seed + 1),
              cudalab::random_matrix(shape.k, shape.n, cudalab::Fill::SmallInt, seed + 3)),
        d_base_a_(cudalab::DeviceBuffer(a_in_.input_view(-1))),  // set 0, as uploaded
        d_base_b_(cudalab::DeviceBuffer(b_in_.input_view(-1))),
        d_c_(std::size_t(shape.m) * shape.n),
        d_c_base_(std::size_t(shape.m) * shape.n) {}

  /// The product's shape.
  const Shape& shape() const noexcept { return s_; }
  /// The rate of one product taking @p ms milliseconds, in TFLOP/s.
  double tflops(double ms) const { return 2.0 * s_.m * double(s_.n) * s_.k / (ms * 1e9); }

  /**
   * @brief Times @p baseline against @p candidate as described above; @p opts sets the
   * repetitions (its before_candidate is the fixture's). Returns the comparison (speedup =
   * baseline median / candidate median), or an empty one after a failure.
   */
  cudalab::Comparison time(const Racer& baseline, const Racer& candidate, const std::string& what,
                           cudalab::BenchOptions opts = {}) {
    namespace t = cudalab::testing;
    if (!candidate.rules) {
      ADD_FAILURE() << what << ": the candidate has no graph rules (grader bug)";
      return {};
    }
    std::optional<t::CapturedWork> base;
    if (baseline.rules) {
      base.emplace(t::CapturedWork::capture([&](cudaStream_t s) {
        baseline.launch(d_base_a_.data(), d_base_b_.data(), d_c_base_.data(), s_.m, s_.n, s_.k, s);
      }));
      EXPECT_TRUE(base->holds_only(*baseline.rules)) << "baseline of " << what;
    }
    const t::CapturedWork cand = t::CapturedWork::capture([&](cudaStream_t s) {
      candidate.launch(a_in_.live.data(), b_in_.live.data(), d_c_.data(), s_.m, s_.n, s_.k, s);
    });
    EXPECT_TRUE(cand.holds_only(*candidate.rules)) << what;
    if (::testing::Test::HasFailure()) return {};
    float* c = d_c_.data();
    const std::size_t c_bytes = d_c_.bytes();
    run_rows_.clear();
    opts.before_candidate = run_rows_.before_each_run(a_in_, [this, c, c_bytes](cudaStream_t s) {
      a_in_.copy_next(s);
      b_in_.copy_next(s);
      t::poison(c, c_bytes, s);
    });
    const cudalab::GpuWork base_work =
        base ? base->as_work() : cudalab::GpuWork([&](cudaStream_t s) {
          baseline.launch(d_base_a_.data(), d_base_b_.data(), d_c_base_.data(), s_.m, s_.n, s_.k,
                          s);
        });
    const cudalab::Comparison cmp = cudalab::compare(base_work, cand.as_work(), opts);
    CUDA_CHECK(cudaDeviceSynchronize());
    expect_every_run_product(run_rows_, a_in_, b_in_, s_, what);
    verify_last_output(baseline, what);
    if (::testing::Test::HasFailure()) return {};
    t::expect_possible(tflops(cmp.candidate.median_ms), cudalab::device_ceilings().fp32_tflops_max,
                       "TFLOP/s", what);
    return cmp;
  }

 private:
  /// The candidate's last timed output against the baseline on the same set and the host.
  void verify_last_output(const Racer& baseline, const std::string& what) {
    const int set = a_in_.last();
    const std::vector<float> got = d_c_.to_host();
    const std::vector<float> h_a = a_in_.last_input();  // set `set` with the run's changes
    const std::vector<float> h_b = b_in_.last_input();
    {
      cudalab::DeviceBuffer<float> d_a = cudalab::DeviceBuffer(h_a);
      cudalab::DeviceBuffer<float> d_b = cudalab::DeviceBuffer(h_b);
      cudalab::DeviceBuffer<float> d_ref(std::size_t(s_.m) * s_.n);
      baseline.launch(d_a.data(), d_b.data(), d_ref.data(), s_.m, s_.n, s_.k, nullptr);
      CUDA_CHECK(cudaDeviceSynchronize());
      EXPECT_TRUE(cudalab::testing::matrices_match(d_ref.to_host(), got, s_.m, s_.n, 0.0))
          << what << ": the output of the last timed run (input set " << set
          << " with that run's changed elements) differs from " << baseline.name
          << "'s on the same data";
    }
    for (const int r : {0, s_.m / 2, s_.m - 1}) {
      for (int col = 0; col < s_.n; col += 7) {
        double sum = 0.0;
        for (int i = 0; i < s_.k; ++i) {
          sum += double(h_a[std::size_t(r) * s_.k + i]) * h_b[std::size_t(i) * s_.n + col];
        }
        if (got[std::size_t(r) * s_.n + col] != sum) {
          ADD_FAILURE() << what << ": the output of the last timed run (input set " << set
                        << " with that run's changed elements) is wrong at C(" << r << ", " << col
                        << "): " << got[std::size_t(r) * s_.n + col] << ", the host computes "
                        << sum << ". " << cudalab::seed_note();
          return;
        }
      }
    }
  }

  Shape s_;
  cudalab::testing::AlternatingInput<float> a_in_, b_in_;
  cudalab::DeviceBuffer<float> d_base_a_, d_base_b_, d_c_, d_c_base_;
  /// Three rows of C, drawn at random after each run, of every run of the last time() call.
  RunRows<float> run_rows_{d_c_.data(), s_.n, s_.m};
};

}  // namespace cudalab::kit

/**
 * @brief One sanitizer test: TEST(@p suite, @p name) runs the tests of the gtest filter
 * @p filter under the compute-sanitizer tool @p tool ("racecheck", "memcheck", "synccheck")
 * and expects a clean report; skips without a GPU or without the tool.
 *   CUDALAB_SANITIZER_TEST(PaddedSanitizer, RacecheckIsClean, "racecheck", "SmallShapesGpu.*")
 */
#define CUDALAB_SANITIZER_TEST(suite, name, tool, filter) \
  TEST(suite, name) {                                     \
    CUDALAB_REQUIRE_GPU();                                \
    CUDALAB_EXPECT_SANITIZER_CLEAN(tool, filter);         \
  }

// The usual test name of each tool (CUDALAB_SANITIZER_SUITE).
#define CUDALAB_KIT_SANITIZER_racecheck(suite, filter) \
  CUDALAB_SANITIZER_TEST(suite, RacecheckFindsNoSharedMemoryHazard, "racecheck", filter)
#define CUDALAB_KIT_SANITIZER_memcheck(suite, filter) \
  CUDALAB_SANITIZER_TEST(suite, MemcheckFindsNoOutOfBoundsAccess, "memcheck", filter)
#define CUDALAB_KIT_SANITIZER_synccheck(suite, filter) \
  CUDALAB_SANITIZER_TEST(suite, SynccheckFindsNoInvalidBarrier, "synccheck", filter)

#define CUDALAB_KIT_SANITIZER_1(suite, filter, t1) CUDALAB_KIT_SANITIZER_##t1(suite, filter)
#define CUDALAB_KIT_SANITIZER_2(suite, filter, t1, t2) \
  CUDALAB_KIT_SANITIZER_1(suite, filter, t1) CUDALAB_KIT_SANITIZER_1(suite, filter, t2)
#define CUDALAB_KIT_SANITIZER_3(suite, filter, t1, t2, t3) \
  CUDALAB_KIT_SANITIZER_2(suite, filter, t1, t2) CUDALAB_KIT_SANITIZER_1(suite, filter, t3)
#define CUDALAB_KIT_SANITIZER_PICK(_1, _2, _3, chosen, ...) chosen

/**
 * @brief The usual sanitizer tests of a suite in one line, over the tests that the gtest
 * filter @p filter names (a small-shape suite), one test per tool listed (one to three of
 * racecheck, memcheck, synccheck, in the order given), with the usual names:
 *   CUDALAB_SANITIZER_SUITE(TiledSanitizer, "SmallTiledGpu.*", racecheck, memcheck, synccheck)
 * declares TEST(TiledSanitizer, RacecheckFindsNoSharedMemoryHazard),
 * TEST(TiledSanitizer, MemcheckFindsNoOutOfBoundsAccess) and
 * TEST(TiledSanitizer, SynccheckFindsNoInvalidBarrier). Tests named otherwise:
 * CUDALAB_SANITIZER_TEST.
 */
#define CUDALAB_SANITIZER_SUITE(suite, filter, ...)                                         \
  CUDALAB_KIT_SANITIZER_PICK(__VA_ARGS__, CUDALAB_KIT_SANITIZER_3, CUDALAB_KIT_SANITIZER_2, \
                             CUDALAB_KIT_SANITIZER_1, unused)                               \
  (suite, filter, __VA_ARGS__)
