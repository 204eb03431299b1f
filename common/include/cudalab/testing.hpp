/**
 * @file testing.hpp
 * @brief GoogleTest helpers used by every grader (link cudalab::testing).
 *
 * - CUDALAB_REQUIRE_GPU(): skip (not pass, not fail) when no usable GPU is present.
 * - matrices_match(): an AssertionResult that names the first wrong element and the seed.
 * - expect_speedup(): the speed verdict, printed with both numbers and recorded.
 * - record_measurement(): one line the scoreboard reads from CTest's JUnit output.
 */
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cudalab/bench.cuh"
#include "cudalab/device.cuh"
#include "cudalab/matrix.hpp"

/// Skips the current test with the reason when no GPU (of at least sm_75) can be used.
#define CUDALAB_REQUIRE_GPU()                                                \
  do {                                                                       \
    const std::string cudalab_reason_ = ::cudalab::gpu_unavailable_reason(); \
    if (!cudalab_reason_.empty()) GTEST_SKIP() << cudalab_reason_;           \
  } while (0)

/// Skips the current test unless the GPU has at least compute capability major.minor.
#define CUDALAB_REQUIRE_CC(major, minor)                                                 \
  do {                                                                                   \
    const std::string cudalab_reason_ = ::cudalab::gpu_unavailable_reason(major, minor); \
    if (!cudalab_reason_.empty()) GTEST_SKIP() << cudalab_reason_;                       \
  } while (0)

namespace cudalab::testing {

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

/**
 * @brief Prints and records one measurement for the scoreboard:
 * `[ MEASURE  ] <name> = <value> <unit> (threshold <t>)`.
 * @param name       what was measured, e.g. "speedup" or "conflict_degree"
 * @param value      the measured value
 * @param unit       its unit, e.g. "x", "cycles", "ms"
 * @param threshold  the bound it is judged against; NaN when it has none
 */
void record_measurement(const std::string& name, double value, const std::string& unit,
                        double threshold = std::nan(""));

/**
 * @brief Judges a comparison against @p threshold (scaled by CUDALAB_SPEEDUP_SCALE),
 * records it, and fails the test (non-fatally) below the threshold.
 */
void expect_speedup(const Comparison& cmp, double threshold, const std::string& what);

}  // namespace cudalab::testing
