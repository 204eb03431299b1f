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
 * @brief THE tolerance of a float matrix product with inner dimension @p k, relative to
 * max(1, |expected|) (compare_matrices): tol(k) = 8 * gamma_k + u, with u = 2^-24 (the unit
 * roundoff of float) and gamma_k = k * u / (1 - k * u). The graders use it as
 * cudalab::kit::matmul_tolerance (tests/common/kit.cuh); it is the only rule.
 *
 * Derivation. Every correct kernel computes C(r, c) = sum_i a_i * b_i in float with k
 * products and k - 1 additions (or k FMAs) in some order (row loop, tiles, split-k,
 * pairwise, vector lanes). To first order its error is sum_j delta_j * v_j over those
 * roundings, |delta_j| <= u, where v_j is the exact value of what rounding j produced (a
 * product or a partial sum of a subset of the products); hence the classical bound
 * |error| <= gamma_k * sum_i |a_i * b_i| (Higham, Accuracy and Stability of Numerical
 * Algorithms, 2nd ed., eq. 3.5), for every order.
 * Assumptions: (1) the graded float data are cudalab::random_matrix(Fill::Uniform):
 * independent, uniform in [-1, 1), so every product is at most 1 in magnitude, partial
 * sums of j products have mean 0 and variance j / 9; (2) the rounding errors delta_j are
 * independent with mean 0 (the standard probabilistic model, Higham & Mary, SIAM J. Sci.
 * Comput. 41(5), 2019); (3) the reference (reference_matmul) accumulates in double and
 * rounds once, an error of at most u * |expected|.
 * Taken at its worst case (sum |a_i b_i| up to k), the deterministic bound is k * gamma_k
 * ~ k^2 u: 0.063 at k = 1030 and ~600 at k = 100003, far too loose to catch a dropped tile
 * at the graded shapes. Under (1) and (2) the error is a sum of independent terms: its
 * variance is at most (u^2 / 3) * sum_j E[v_j^2] <= (u^2 / 3) * (k^2 / 18 + k / 9) in the
 * worst order (recursive summation; tiled and pairwise orders have smaller partial sums),
 * so its standard deviation is at most ~ k * u / 7.3 ~ gamma_k / 7.3. 8 * gamma_k is ~58
 * standard deviations: no correct summation order fails at any graded shape or seed. The
 * final + u covers (3) (relative to max(1, |expected|) it is at most u).
 * Strictness: dropping one k-step (one product, |a_i b_i| ~ 0.25 on average) or one tile
 * of products changes an element whose |expected| < 1 by ~0.25 or more, while tol(1030) =
 * 4.9e-4 and tol(257) = 1.2e-4; every graded uniform-float shape has such elements. (For
 * k = 100003, tol = 0.048: a dropped 32-product tile, ~1.9 absolute, still fails every
 * element with |expected| < 40.) Small-integer data sets stay exact (tolerance 0).
 */
double matmul_tolerance(int k);

/// Prints at most max_rows x max_cols of a matrix (with "..." beyond), for demos and failures.
void print_matrix(std::ostream& os, const std::vector<float>& m, int rows, int cols,
                  int max_rows = 8, int max_cols = 8);

}  // namespace cudalab
