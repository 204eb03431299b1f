// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file matrix.hpp
 * @brief Seeded host matrices, the host reference matmul, and result comparison.
 *
 * All matrices are row-major `std::vector<float>` with explicit rows/cols. Inputs are
 * drawn from a per-run seed (random unless CUDALAB_SEED is set) so that a hard-coded
 * answer cannot pass; every failure message names the seed to reproduce it.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <random>
#include <string>
#include <vector>

namespace cudalab {

/**
 * @brief This run's seed: CUDALAB_SEED when set (decimal), else drawn once from
 * std::random_device. Throws std::invalid_argument for a malformed CUDALAB_SEED.
 */
std::uint64_t run_seed();

/// "seed 1234 (reproduce with CUDALAB_SEED=1234)".
std::string seed_note();

/**
 * @brief A random generator derived from the run seed and a @p stream number, so that
 * different inputs of one test (A, B, ...) differ but are reproducible.
 */
std::mt19937_64 make_rng(std::uint64_t stream);

/// Fills @p m with -1 and +1, equally likely.
void fill_pm1(std::vector<float>& m, std::uint64_t stream);
/// Fills @p m with integers uniform in [lo, hi].
void fill_small_int(std::vector<float>& m, std::uint64_t stream, int lo = -4, int hi = 4);
/// Fills @p m with floats uniform in [lo, hi).
void fill_uniform(std::vector<float>& m, std::uint64_t stream, float lo = -1.0f, float hi = 1.0f);

/// A row-major M x N matrix of @p fill-generated values.
enum class Fill { PlusMinusOne, SmallInt, Uniform };
/// The enumerator's name ("PlusMinusOne", "SmallInt", "Uniform"; "Unknown" otherwise),
/// e.g. for test names and traces.
std::string fill_name(Fill fill);
/// Returns a rows*cols vector filled as @p fill says (stream distinguishes inputs).
std::vector<float> random_matrix(int rows, int cols, Fill fill, std::uint64_t stream);

/**
 * @brief Host reference C = A * B (A: M x K, B: K x N, C: M x N, row-major), summed in
 * double so the reference is more accurate than any float kernel.
 */
std::vector<float> reference_matmul(const std::vector<float>& a, const std::vector<float>& b, int m,
                                    int n, int k);

/// Outcome of comparing a result with a reference.
struct MatrixCompare {
  bool ok = true;
  std::size_t mismatches = 0;  ///< elements out of tolerance (or NaN/Inf)
  std::size_t index = 0;       ///< first mismatching element (row-major)
  int row = 0;                 ///< its row
  int col = 0;                 ///< its column
  double expected = 0.0;
  double got = 0.0;
  double tolerance = 0.0;  ///< absolute tolerance that applied there
  std::string message;     ///< "" when ok, else a full sentence with the seed
};

/**
 * @brief Compares @p got with @p expected (rows x cols).
 *
 * An element matches when |got - expected| <= rel_tol * max(1, |expected|). NaN or Inf
 * in @p got never matches. rel_tol = 0 asks for exact equality.
 */
MatrixCompare compare_matrices(const std::vector<float>& expected, const std::vector<float>& got,
                               int rows, int cols, double rel_tol);

/// Rows [first, last) of a product C and their host reference values (a demo's `--check`).
struct ReferenceRows {
  int first = 0;
  int last = 0;
  std::vector<float> expected;
};

/**
 * @brief The rows of C = A * B (n x n) that a demo's `--check` compares, with their
 * reference_matmul() values: every row up to n = @p full_up_to (the host reference costs
 * O(rows x n^2)), else 8 whole rows at the top, in the middle and at the bottom, announced on
 * stdout ("check: rows 0-7, ... of C (every row up to --size N)").
 */
std::vector<ReferenceRows> reference_rows(const std::vector<float>& a, const std::vector<float>& b,
                                          int n, int full_up_to);

/// Compares the rows of @p got (all of C, n x n) that @p rows holds (exact comparison).
MatrixCompare compare_rows(const std::vector<ReferenceRows>& rows, const std::vector<float>& got,
                           int n);

/**
 * @brief Tolerance for float matmul results with inner dimension @p k: float rounding
 * error grows about linearly with the number of terms, so the tolerance is
 * 4 * FLT_EPSILON * k (at least 1e-5).
 */
double matmul_tolerance(int k);

/// Prints at most max_rows x max_cols of a matrix (with "..." beyond), for demos and failures.
void print_matrix(std::ostream& os, const std::vector<float>& m, int rows, int cols,
                  int max_rows = 8, int max_cols = 8);

}  // namespace cudalab
