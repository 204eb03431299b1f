// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file kit.cuh
 * @brief The grading kit: what every grader needs and none re-creates.
 *
 * Include as "common/kit.cuh". A grader keeps only its shapes, thresholds and the probes
 * specific to its lesson; the rest is here:
 * - Shape (m x n x k products) and Extent (rows x cols problems), their printers and
 *   shape_name, the test-name suffix of a parameterized suite over them;
 * - only_kernel(), the graph rules "nothing but this kernel", taking the kernel identity a
 *   technique file exports (cudalab::KernelInfo) or, for kernels the grader owns, a name;
 * - upload(), a device buffer holding a copy of host data;
 * - matmul_tolerance(), the one tolerance rule of float matrix products;
 * - CUDALAB_SANITIZER_SUITE / CUDALAB_SANITIZER_TEST, a sanitizer suite in one line.
 */
#pragma once

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "cudalab/device_buffer.cuh"
#include "cudalab/graph_capture.cuh"
#include "cudalab/launch_checks.hpp"
#include "cudalab/matrix.hpp"
#include "cudalab/testing.hpp"
#include "cudalab/tools.hpp"

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

/// A device buffer holding a copy of @p host.
template <class T>
cudalab::DeviceBuffer<T> upload(const std::vector<T>& host) {
  cudalab::DeviceBuffer<T> d(host.size());
  d.upload(host);
  return d;
}

/// THE tolerance rule of float matrix products with inner dimension k, relative to
/// max(1, |expected|): 8 * gamma_k + u, u = 2^-24. Its derivation and assumptions are stated
/// at its one definition, cudalab::matmul_tolerance (cudalab/matrix.hpp).
using cudalab::matmul_tolerance;

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
