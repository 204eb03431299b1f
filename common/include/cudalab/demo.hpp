// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file demo.hpp
 * @brief Command line, GPU check and result table shared by the labs' demo programs.
 *
 * Every demo accepts `--size N` (side of the square problem), `--block B` (block edge
 * for 2-D launches, threads for 1-D ones), `--reps R` (timed repetitions) and `--check`
 * (verify every variant against the host reference; exit 1 on a mismatch). Bad
 * arguments print one "error:" line and exit 2; no GPU prints the reason and exits 77.
 */
#pragma once

#include <functional>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudalab/bench.cuh"
#include "cudalab/matrix.hpp"

namespace cudalab {

/// Defaults and bounds of a demo's options.
struct DemoLimits {
  int default_size = 1024;
  int min_size = 1;
  int max_size = 16384;
  int default_block = 16;
  bool block_is_2d = true;  ///< the block is B x B threads, so B*B <= 1024
  int default_reps = 10;
  int max_reps = 10000;
  /// The compute capability the demo's kernels need: below it the demo is skipped (exit 77,
  /// gpu_unavailable_reason()'s message), as without a GPU.
  int min_major = 7;
  int min_minor = 5;
};

/// Parsed demo options.
struct DemoOptions {
  int size = 0;
  int block = 0;
  int reps = 0;
  bool check = false;
};

/// A bad command line (reported as one line, exit code 2).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Parses argv; throws UsageError on anything invalid. `--help` sets help=true.
DemoOptions parse_demo_args(int argc, const char* const* argv, const DemoLimits& limits,
                            bool* help = nullptr);

/// Usage text for @p program.
std::string demo_usage(const std::string& program, const DemoLimits& limits);

/**
 * @brief Runs a demo body with uniform error handling.
 *
 * Parses the arguments, exits 77 when no GPU can be used (none, or one below the compute
 * capability of @p limits), prints the device, then calls
 * @p body; CUDA and other errors become "error: ..." and exit code 1.
 * @return the process exit code (body's own on success)
 */
int run_demo(int argc, const char* const* argv, const std::string& title, const DemoLimits& limits,
             const std::function<int(const DemoOptions&)>& body);

/// A plain text table printed with aligned columns (a demo's timing table).
class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  /// Appends a row (must have as many cells as the header).
  void add_row(std::vector<std::string> cells);
  /// Prints the table.
  void print(std::ostream& os) const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

/// What run_variant() found for one variant (one row of a demo's table).
struct VariantResult {
  std::string verdict = "-";  ///< the "check" cell: "ok", "WRONG", or "-" when not checked
  double median_ms = 0.0;     ///< median of the timed runs (0 from check_variant())
  bool ok = true;             ///< false only when the check found a mismatch
};

/// Compares a variant's output with the host reference (e.g. via compare_matrices()).
using OutputCheck = std::function<MatrixCompare()>;

/**
 * @brief Turns @p check into a verdict: "-" (ok) when @p check is empty, else "ok" or
 * "WRONG"; a mismatch prints "<label>: <message>" to @p err. The CPU half of run_variant().
 */
VariantResult check_variant(const OutputCheck& check, const std::string& label, std::ostream& err);

/**
 * @brief The demos' per-variant step: an optional checked run, then the timing.
 *
 * When @p prepare or @p check is set: calls @p prepare (e.g. poisons the output with
 * `fill_bytes(0xFF)`), runs @p work once on the default stream, then
 * check_variant(check, label, std::cerr). Then times @p work with benchmark() and
 * @p reps timed runs (default warm-up and L2 flush).
 * @param work     the variant's launch
 * @param reps     timed repetitions (`--reps`)
 * @param label    names the variant in a mismatch message
 * @param check    empty: not checked (verdict "-"), e.g. when `--check` was not given
 * @param prepare  runs before the checked run; may be empty
 * @return the verdict, the median time in ms, and ok == false on a mismatch
 */
VariantResult run_variant(const GpuWork& work, int reps, const std::string& label,
                          const OutputCheck& check = {}, const std::function<void()>& prepare = {});

/// Formats @p value with @p digits after the point.
std::string fixed(double value, int digits = 3);

}  // namespace cudalab
