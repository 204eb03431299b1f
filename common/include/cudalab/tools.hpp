// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file tools.hpp
 * @brief Run this grader again under compute-sanitizer or Nsight Compute (ncu).
 *
 * A `...Sanitizer` test re-runs some GPU tests of the same executable under
 * compute-sanitizer (racecheck, memcheck, synccheck, initcheck) and fails with the tool's
 * report when it finds a hazard; a `...Profiler` test re-runs them under ncu and reads
 * hardware counters (e.g. shared-memory bank conflicts per instruction). Where the tool
 * is missing, or cannot use this GPU or its counters, the result says why and the test
 * is Skipped with that reason.
 *
 * A `...SassCpu` test reads the machine code compiled into this grader (`cuobjdump -sass`,
 * no GPU needed) to check that a kernel uses the instructions its lab teaches.
 *
 * Tools are looked up in CUDALAB_COMPUTE_SANITIZER / CUDALAB_NCU, then PATH, then the
 * CUDA toolkit's bin folder (and Nsight Compute's usual install folders).
 */
#pragma once

#include <map>
#include <string>
#include <vector>

namespace cudalab::testing {

/// The outcome of running a tool over part of this grader.
struct ToolRun {
  bool available = false;   ///< false: the tool could not run here (see skip_reason)
  std::string skip_reason;  ///< why it could not run, with the fix where there is one
  int exit_code = -1;       ///< the tool's exit code (0: no error found, tests passed)
  std::string command;      ///< the command that was run
  std::string output;       ///< everything the tool and the tests printed
};

/// Counter values of one profiled kernel launch.
struct KernelMetrics {
  std::string name;                      ///< the kernel's (demangled) name
  std::map<std::string, double> values;  ///< metric name -> value
};

/// The outcome of profiling part of this grader with ncu.
struct NcuRun : ToolRun {
  std::vector<KernelMetrics> kernels;  ///< one entry per profiled launch, in order
};

/// True inside a run started by run_sanitizer() / run_ncu() (CUDALAB_UNDER_TOOL is set).
bool running_under_tool();

/// Full path of a tool ("compute-sanitizer", "ncu"), or "" when not found.
std::string find_tool(const std::string& name);

/**
 * @brief Runs this executable's tests matching @p gtest_filter under
 * `compute-sanitizer --tool <tool>`.
 * @param tool          racecheck, memcheck, synccheck or initcheck
 * @param gtest_filter  which tests of this executable to run under the tool
 */
ToolRun run_sanitizer(const std::string& tool, const std::string& gtest_filter);

/**
 * @brief Profiles the launches of kernels matching @p kernel_regex in the tests matching
 * @p gtest_filter, collecting @p metrics (ncu --clock-control none: clocks untouched).
 * @param metrics       ncu metric names, e.g. "smsp__sass_inst_executed_op_shared_ld.sum"
 * @param kernel_regex  regular expression on kernel names (ncu --kernel-name regex:...)
 * @param gtest_filter  which tests of this executable to run under ncu
 */
NcuRun run_ncu(const std::vector<std::string>& metrics, const std::string& kernel_regex,
               const std::string& gtest_filter);

/**
 * @brief The usual sanitizer test in one call: skips when the tool cannot run (or when
 * already under a tool), otherwise expects a clean report from tests that did run.
 *
 * Use as the whole body of a `...Sanitizer` test after CUDALAB_REQUIRE_GPU():
 * `cudalab::testing::expect_sanitizer_clean("racecheck", "TiledGpu.Small*"); `
 * Must be called directly from the test body (it may GTEST_SKIP()).
 */
#define CUDALAB_EXPECT_SANITIZER_CLEAN(tool, filter)                       \
  do {                                                                     \
    const ::cudalab::testing::ToolRun cudalab_run_ =                       \
        ::cudalab::testing::run_sanitizer((tool), (filter));               \
    if (!cudalab_run_.available) GTEST_SKIP() << cudalab_run_.skip_reason; \
    ::cudalab::testing::expect_tool_clean(cudalab_run_, (tool));           \
  } while (0)

/// Fails (non-fatally) unless @p run exited 0 after running at least one test; the
/// failure message quotes the tool's report.
void expect_tool_clean(const ToolRun& run, const std::string& what);

/// Number of tests the inner run executed ("[==========] N tests ... ran"), or -1.
int tests_ran(const std::string& output);

/// One function of the SASS compiled into this grader, for one architecture.
struct SassFunction {
  std::string arch;                  ///< "sm_90" (from cuobjdump's `arch = sm_90` line)
  std::string name;                  ///< the mangled function name
  std::vector<std::string> opcodes;  ///< each instruction's opcode with its modifiers, in order
  /// Each instruction's operands as printed, parallel to opcodes: "SB0, 0x1" for
  /// `DEPBAR.LE SB0, 0x1 ;` ("" when it has none).
  std::vector<std::string> operands;
};

/// The SASS of this grader (`cuobjdump -sass` of this executable, read once).
struct SassListing {
  std::string skip_reason;              ///< non-empty: cuobjdump is missing or failed (why)
  std::vector<SassFunction> functions;  ///< every function of every architecture
  std::string excerpt;                  ///< the first lines of cuobjdump's output, for messages
};

/// The demangled form of the C++ symbol @p mangled ("void lab09::(anonymous namespace)::
/// tiled_xnor_kernel<true>(unsigned int const*, ...)"), or @p mangled itself when it does not
/// demangle (a C name, or not a symbol).
std::string demangle(const std::string& mangled);

/// The SASS of this executable; functions are empty and skip_reason says why when cuobjdump
/// is not found or fails. Opcodes are as cuobjdump prints them: `LDG.E.128.CONSTANT`,
/// `BMMA.168256.AND.POPC` (predicates such as `@!P0` dropped).
const SassListing& sass_of_this_grader();

/// The block size each kernel of this grader was compiled for: `__launch_bounds__(n)` leaves
/// EIATTR_MAX_THREADS in the kernel's `.nv.info.<name>` section (`cuobjdump -elf`).
struct LaunchBoundsListing {
  std::string skip_reason;             ///< non-empty: cuobjdump is missing or failed (why)
  std::map<std::string, int> kernels;  ///< every kernel's mangled name -> its bound, 0 if none
  std::string excerpt;                 ///< the first lines of cuobjdump's output, for messages
};

/// The launch bounds of every kernel in this executable (read once); kernels are empty and
/// skip_reason says why when cuobjdump is not found or fails.
const LaunchBoundsListing& launch_bounds_of_this_grader();

/// Shortens a long tool report to its first and last lines for a failure message.
std::string excerpt(const std::string& output, std::size_t max_lines = 60);

}  // namespace cudalab::testing
