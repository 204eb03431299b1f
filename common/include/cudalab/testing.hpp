// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file testing.hpp
 * @brief GoogleTest helpers used by every grader (link cudalab::testing).
 *
 * - CUDALAB_REQUIRE_GPU(): skip (not pass, not fail) when no usable GPU is present.
 * - matrices_match(): an AssertionResult that names the first wrong element and the seed.
 * - expect_speedup(): the speed verdict, printed with both numbers and recorded.
 * - record_measurement(): a `[ MEASURE  ]` line for the student and a record for the scoreboard.
 *
 * The measurement channel: CTest runs every test of a grader under the judge process
 * `cudalab_verdict`, which names the test (CUDALAB_TEST_NAME) and connects the grader to its
 * verdict channel (cudalab/verdict.hpp). The test sends records there, each one JSON object: a
 * "test" record when it starts (time, CUDALAB_SPEEDUP_SCALE, seed), the "device" it runs on,
 * each "measurement" and "bar", and a "result" after the test body has returned. The judge
 * authenticates them, decides the test's verdict from its "result" alone, and prints them as
 * `[ CUDALAB-RECORD ] ` lines in the test's output, where tools/scoreboard.py reads them; any
 * such line the grader itself prints is defused first (docs/scores-schema.md).
 */
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "cudalab/bench.cuh"
#include "cudalab/device.cuh"
#include "cudalab/matrix.hpp"

/// Skips the current test with the reason when no GPU (of at least sm_75) can be used. The
/// first GPU test of a process prints the GPU it runs on (CPU tests never touch CUDA).
#define CUDALAB_REQUIRE_GPU()                                                \
  do {                                                                       \
    const std::string cudalab_reason_ = ::cudalab::gpu_unavailable_reason(); \
    ::cudalab::testing::note_gpu();                                          \
    if (!cudalab_reason_.empty()) GTEST_SKIP() << cudalab_reason_;           \
  } while (0)

/// Skips the current test unless the GPU has at least compute capability major.minor.
#define CUDALAB_REQUIRE_CC(major, minor)                                                 \
  do {                                                                                   \
    const std::string cudalab_reason_ = ::cudalab::gpu_unavailable_reason(major, minor); \
    ::cudalab::testing::note_gpu();                                                      \
    if (!cudalab_reason_.empty()) GTEST_SKIP() << cudalab_reason_;                       \
  } while (0)

/// Skips the current test (or returns from the helper it is in) with both amounts when the GPU
/// has less than @p bytes of free memory plus 1 GiB left for the tests sharing it.
#define CUDALAB_REQUIRE_FREE_MEMORY(bytes)                                                \
  do {                                                                                    \
    const std::string cudalab_reason_ = ::cudalab::testing::free_memory_shortfall(bytes); \
    if (!cudalab_reason_.empty()) GTEST_SKIP() << cudalab_reason_;                        \
  } while (0)

namespace cudalab::testing {

/// Why the GPU cannot give @p bytes (plus 1 GiB of headroom) now; empty when it can.
std::string free_memory_shortfall(std::size_t bytes);

/**
 * @brief Compares a result matrix with its reference; on failure the message gives the
 * first wrong element (index, row, col, expected, got), the count and the seed.
 * @param expected  the reference (rows x cols, row-major)
 * @param got       the result to check
 * @param rows      number of rows
 * @param cols      number of columns
 * @param rel_tol   relative tolerance; 0 for exact comparison (±1 and small-integer data)
 */
::testing::AssertionResult matrices_match(const std::vector<float>& expected,
                                          const std::vector<float>& got, int rows, int cols,
                                          double rel_tol);

/// How a measurement is judged against its threshold.
enum class Bound {
  kNone,     ///< not judged here (the test's own assertions decide)
  kAtLeast,  ///< passes when value >= threshold (a speedup, a share)
  kAtMost,   ///< passes when value <= threshold (a conflict degree, a time)
};

/// A named level above a measurement's pass bar (e.g. "good" at 75 % of cuBLAS); its value
/// comes from the calibration files (speed_tiers()).
struct Tier {
  std::string name;  ///< e.g. "good", "excellent"
  double at_least;   ///< the value from which the tier is reached
};

/// One measurement as the scoreboard receives it.
struct Measurement {
  std::string name;                          ///< what was measured, e.g. "speedup"
  double value = 0.0;                        ///< the measured value
  std::string unit;                          ///< e.g. "x", "cycles", "ms", "GB/s"
  double threshold = std::nan("");           ///< the bound it is judged against (scaled); NaN: none
  Bound bound = Bound::kNone;                ///< how value and threshold compare
  double unscaled_threshold = std::nan("");  ///< before CUDALAB_SPEEDUP_SCALE; NaN: unscaled
  std::string text;                          ///< the verdict sentence shown, if any
  std::vector<Tier> tiers;                   ///< levels above the pass bar, lowest first
};

/**
 * @brief Prints and records one measurement for the scoreboard:
 * `[ MEASURE  ] <name> = <value> <unit> (threshold <t>)`.
 * @param name       what was measured, e.g. "speedup" or "conflict_degree"
 * @param value      the measured value
 * @param unit       its unit, e.g. "x", "cycles", "ms"
 * @param threshold  the bound it is judged against; NaN when it has none
 * @param bound      how @p value is judged against @p threshold (kNone: by the test itself)
 */
void record_measurement(const std::string& name, double value, const std::string& unit,
                        double threshold = std::nan(""), Bound bound = Bound::kNone);

/// Prints and records @p m (the full form of record_measurement()).
void record_measurement(const Measurement& m);

/**
 * @brief The bar a speed measurement of the running test is judged against, before
 * CUDALAB_SPEEDUP_SCALE. A grader names the bar, never its number: the key is the test's CTest
 * name and @p name ("name#2", "name#3", ... for the second and later bars of one name in a
 * test), looked up in the calibration file of this GPU model, else in the reference GPU's
 * (with a printed note; cudalab/calibration.hpp). A key in neither file fails the test
 * (non-fatally) and gives NaN, which no measurement passes. A later key the calibration lacks
 * gets the name's calibrated bar, so that code which judged a bar of that name first cannot
 * move the real one to an uncalibrated key.
 *
 * Prints `[ BAR      ] <key>: <bar> (<where it came from>)` and records a "bar" record (key,
 * bound, @p measured, the bar, the reference file's bar, its source and calibration file) that
 * the course's calibration run and the scoreboard read.
 * @param name      the measurement judged, e.g. "speedup" or "share"
 * @param bound     kAtLeast for a lower bar, kAtMost for an upper one
 * @param measured  the value judged (recorded so that calibration reads it)
 */
double speed_bar(const std::string& name, Bound bound, double measured);

/// The bar speed_bar() chose for @p key in the running test; NaN when there was none.
double current_bar(const std::string& key);

/**
 * @brief The tiers @p names of the running test's @p measurement (levels above its bar, shown
 * and recorded with it, not graded), lowest first. A grader names its tiers, never their
 * numbers: each is looked up as speed_bar() looks up a bar, by the test's CTest name,
 * @p measurement and the tier's name, in the calibration file of this GPU model, else in the
 * reference GPU's (cudalab/calibration.hpp). A tier in neither file fails the test
 * (non-fatally) and is left out. Prints nothing: the measurement it goes with shows the tiers.
 * @param measurement  the measurement the tiers are levels of, e.g. "speedup"
 * @param names        the tiers, e.g. {"good", "excellent"}
 */
std::vector<Tier> speed_tiers(const std::string& measurement,
                              const std::vector<std::string>& names);

/**
 * @brief Judges a comparison against the test's "speedup" bar (speed_bar(), scaled by
 * CUDALAB_SPEEDUP_SCALE), records it, and fails the test (non-fatally) below it.
 */
void expect_speedup(const Comparison& cmp, const std::string& what);

/**
 * @brief Called by CUDALAB_REQUIRE_GPU() / CUDALAB_REQUIRE_CC(): the first time in a process,
 * prints the GPU the process runs on (its CTest resource, when assigned) or why there is none,
 * and records it as the channel's "device" record. Processes that run only CPU tests never
 * initialize CUDA.
 */
void note_gpu();

/// The GPU this process runs on, for the channel's "device" record (note_gpu()).
void set_channel_device(const DeviceInfo& info);

/// Why this process cannot use a GPU, for the channel's "device" record (note_gpu()).
void set_channel_no_gpu(const std::string& reason);

/// What starts a record line of the measurement channel on a test's standard output.
inline constexpr const char* kRecordMarker = "[ CUDALAB-RECORD ]";

/// What starts the judge's line that gives one test's status in a batch run.
inline constexpr const char* kBatchMarker = "[ CUDALAB-BATCH ]";

/// CTest's name of the test @p gtest_name (Suite.Case) of this process: CUDALAB_TEST_NAME, or
/// in a batch run CUDALAB_TEST_PREFIX + @p gtest_name; empty when CTest did not start it.
std::string ctest_name_of(const std::string& gtest_name);

/**
 * @brief The listener that prints the channel's "test" and "result" records; the graders'
 * main() appends it (GoogleTest owns it afterwards).
 */
::testing::TestEventListener* make_channel_listener();

/// The ending of a suite's base name ("Inst/TiledGpu/2" -> "Gpu"): Cpu, Gpu, Perf, Sanitizer,
/// Profiler, or "" (cmake/CudalabGrading.cmake's rule table, which labels the tests).
std::string suite_ending(const std::string& suite);

/**
 * @brief The listener that holds this process's GPU lock (cudalab/gpu_lock.hpp) test by test:
 * shared while a test runs (none for a sanitizer test, whose tool-run grader locks itself).
 * The graders' main() appends it (GoogleTest owns it afterwards).
 */
::testing::TestEventListener* make_gpu_use_listener();

/// Whether the running test has had its GPU alone (timed or profiled) since it started.
bool timed_alone_in_this_test();

/// A file name for a test's name plus @p suffix: letters, digits, '.', '-' and '_' kept, the
/// rest '_' (a batch run's .result files, which
/// cmake/CudalabGrading.cmake names by the same rule).
std::string test_file_name(const std::string& test, const std::string& suffix);

/// The line note_gpu() printed ("[ CUDALAB  ] GPU 0: ..."); empty before the first GPU test.
std::string gpu_note_line();

/// Whether note_gpu() found a GPU this process uses (false before the first GPU test).
bool gpu_in_use();

/**
 * @brief Batch runs (cmake/CudalabBatch.cmake): one grader process runs every test of a Gpu
 * suite, and each CTest test of the suite then reports its own result from that run.
 *
 * With CUDALAB_BATCH_DIR set, the returned listener writes one file per test into that folder:
 * everything the test printed (stdout and stderr, from its start to its end), which the judge
 * shows when the test's CTest test reports; the verdict itself travels on the verdict channel
 * and the judge keeps it (cudalab_verdict --batch). A test that runs longer than
 * CUDALAB_BATCH_TEST_TIMEOUT seconds is reported failed (timed out), and the process ends; so
 * does a test after which the CUDA context reports an error. The tests without a verdict then
 * run alone, one process each. Returns nullptr when CUDALAB_BATCH_DIR is not set.
 */
::testing::TestEventListener* make_batch_listener();

/**
 * @brief Sends the running test's "result" record as failed with @p message (the batch
 * watchdog, before it ends a process whose test outlived its timeout).
 */
void report_running_test_failed(const std::string& message);

}  // namespace cudalab::testing
