// SPDX-License-Identifier: BSD-3-Clause
// Unit tests of cudalab/matrix.hpp (CPU only).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudalab/parallel.hpp"
#include "cudalab/testing.hpp"

namespace {

using cudalab::compare_matrices;

TEST(GivenMatrixCpu, FillsAreSeededAndReproducible) {
  auto a = cudalab::random_matrix(7, 9, cudalab::Fill::PlusMinusOne, 1);
  auto b = cudalab::random_matrix(7, 9, cudalab::Fill::PlusMinusOne, 1);
  auto c = cudalab::random_matrix(7, 9, cudalab::Fill::PlusMinusOne, 2);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c) << "different streams should give different inputs";
  for (float x : a) EXPECT_TRUE(x == 1.0f || x == -1.0f) << x;
}

/// Sets CUDALAB_HOST_THREADS for the lifetime of the object (restores the previous value).
class HostThreads {
 public:
  explicit HostThreads(const char* value) {
    if (const char* old = std::getenv("CUDALAB_HOST_THREADS")) old_ = old;
    setenv("CUDALAB_HOST_THREADS", value, 1);
  }
  ~HostThreads() {
    if (old_.empty()) {
      unsetenv("CUDALAB_HOST_THREADS");
    } else {
      setenv("CUDALAB_HOST_THREADS", old_.c_str(), 1);
    }
  }
  HostThreads(const HostThreads&) = delete;
  HostThreads& operator=(const HostThreads&) = delete;

 private:
  std::string old_;
};

TEST(GivenMatrixCpu, FillsDoNotDependOnTheHostThreads) {
  // 300 x 1001: several random chunks, the last one partial.
  std::vector<float> one[3], many[3];
  const cudalab::Fill fills[] = {cudalab::Fill::PlusMinusOne, cudalab::Fill::SmallInt,
                                 cudalab::Fill::Uniform};
  {
    const HostThreads t("1");
    EXPECT_EQ(cudalab::host_threads(), 1u);
    for (int f = 0; f < 3; ++f) one[f] = cudalab::random_matrix(300, 1001, fills[f], 8);
  }
  {
    const HostThreads t("7");
    EXPECT_EQ(cudalab::host_threads(), 7u);
    for (int f = 0; f < 3; ++f) many[f] = cudalab::random_matrix(300, 1001, fills[f], 8);
  }
  for (int f = 0; f < 3; ++f) {
    EXPECT_EQ(one[f], many[f]) << cudalab::fill_name(fills[f]);
    EXPECT_NE(std::vector<float>(one[f].begin(), one[f].begin() + 1000),
              std::vector<float>(one[f].begin() + 65536, one[f].begin() + 66536))
        << cudalab::fill_name(fills[f]) << ": two chunks drew the same values";
  }
}

TEST(GivenMatrixCpu, ParallelRangesCoverEachItemOnceAndRethrow) {
  const HostThreads t("5");
  std::vector<int> hits(1000, 0);
  cudalab::parallel_ranges(hits.size(), 10, [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) ++hits[i];
  });
  EXPECT_EQ(std::count(hits.begin(), hits.end(), 1), 1000);
  EXPECT_THROW(cudalab::parallel_ranges(1000, 10,
                                        [](std::size_t first, std::size_t) {
                                          if (first > 0) throw std::runtime_error("range");
                                        }),
               std::runtime_error);
  int calls = 0;
  cudalab::parallel_ranges(0, 10, [&](std::size_t, std::size_t) { ++calls; });
  EXPECT_EQ(calls, 0) << "an empty loop runs no range";
}

TEST(GivenMatrixCpu, HostThreadsRejectsABadValue) {
  for (const char* bad : {"0", "-2", "four", "3x"}) {
    const HostThreads t(bad);
    EXPECT_THROW(cudalab::host_threads(), std::invalid_argument) << "CUDALAB_HOST_THREADS=" << bad;
  }
}

TEST(GivenMatrixCpu, FillNamesAreTheEnumerators) {
  EXPECT_EQ(cudalab::fill_name(cudalab::Fill::PlusMinusOne), "PlusMinusOne");
  EXPECT_EQ(cudalab::fill_name(cudalab::Fill::SmallInt), "SmallInt");
  EXPECT_EQ(cudalab::fill_name(cudalab::Fill::Uniform), "Uniform");
  EXPECT_EQ(cudalab::fill_name(static_cast<cudalab::Fill>(99)), "Unknown");
}

TEST(GivenMatrixCpu, SmallIntsStayInRange) {
  std::vector<float> m(1000);
  cudalab::fill_small_int(m, 3, -2, 5);
  bool saw_lo = false, saw_hi = false;
  for (float x : m) {
    EXPECT_GE(x, -2.0f);
    EXPECT_LE(x, 5.0f);
    EXPECT_EQ(x, std::floor(x));
    saw_lo |= x == -2.0f;
    saw_hi |= x == 5.0f;
  }
  EXPECT_TRUE(saw_lo && saw_hi);
}

TEST(GivenMatrixCpu, FillsAreBalanced) {
  // 2^16 values: each count within 6 standard deviations of its expectation.
  constexpr int kCount = 1 << 16;
  const auto within = [](double got, double p) {
    const double mean = kCount * p, sd = std::sqrt(kCount * p * (1 - p));
    return std::fabs(got - mean) <= 6 * sd;
  };
  const auto pm1 = cudalab::random_matrix(1, kCount, cudalab::Fill::PlusMinusOne, 4);
  int plus = 0;
  for (float x : pm1) plus += x == 1.0f;
  EXPECT_TRUE(within(plus, 0.5)) << plus << " of " << kCount << " are +1";
  std::vector<float> ints(kCount);
  cudalab::fill_small_int(ints, 5, -4, 4);
  for (int v = -4; v <= 4; ++v) {
    int seen = 0;
    for (float x : ints) seen += x == float(v);
    EXPECT_TRUE(within(seen, 1.0 / 9)) << "value " << v << " drawn " << seen << " times";
  }
  std::vector<float> uni(kCount);
  cudalab::fill_uniform(uni, 6, -1.0f, 1.0f);
  int below_zero = 0;
  for (float x : uni) {
    EXPECT_GE(x, -1.0f);
    EXPECT_LT(x, 1.0f);
    below_zero += x < 0.0f;
  }
  EXPECT_TRUE(within(below_zero, 0.5)) << below_zero << " of " << kCount << " are below 0";
}

TEST(GivenMatrixCpu, ReferenceMatmulOfKnownMatrices) {
  // [1 2 3; 4 5 6] * [7 8; 9 10; 11 12] = [58 64; 139 154]
  std::vector<float> a{1, 2, 3, 4, 5, 6}, b{7, 8, 9, 10, 11, 12};
  auto c = cudalab::reference_matmul(a, b, 2, 2, 3);
  EXPECT_EQ(c, (std::vector<float>{58, 64, 139, 154}));
  EXPECT_THROW(cudalab::reference_matmul(a, b, 2, 2, 2), std::invalid_argument);
}

TEST(GivenMatrixCpu, CompareReportsFirstMismatchWithRowAndColumn) {
  std::vector<float> e(12, 1.0f), g(12, 1.0f);
  g[7] = 2.0f;
  g[10] = 5.0f;
  auto r = compare_matrices(e, g, 3, 4, 0.0);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.mismatches, 2u);
  EXPECT_EQ(r.index, 7u);
  EXPECT_EQ(r.row, 1);
  EXPECT_EQ(r.col, 3);
  EXPECT_EQ(r.expected, 1.0);
  EXPECT_EQ(r.got, 2.0);
  EXPECT_NE(r.message.find("row 1, col 3"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("CUDALAB_SEED="), std::string::npos) << r.message;
}

TEST(GivenMatrixCpu, NanAndInfNeverMatch) {
  std::vector<float> e{1.0f, 2.0f}, g{1.0f, std::numeric_limits<float>::quiet_NaN()};
  EXPECT_FALSE(compare_matrices(e, g, 1, 2, 1e30).ok);
  g[1] = std::numeric_limits<float>::infinity();
  EXPECT_FALSE(compare_matrices(e, g, 1, 2, 1e30).ok);
  std::vector<float> nan_ref{std::numeric_limits<float>::quiet_NaN()};
  EXPECT_FALSE(compare_matrices(nan_ref, nan_ref, 1, 1, 0.0).ok);
}

TEST(GivenMatrixCpu, ToleranceIsRelativeAndGrowsWithK) {
  EXPECT_GT(cudalab::matmul_tolerance(4096), cudalab::matmul_tolerance(64));
  std::vector<float> e{1000.0f}, g{1000.0f + 1000.0f * 5e-5f};
  EXPECT_TRUE(compare_matrices(e, g, 1, 1, 1e-4).ok);
  EXPECT_FALSE(compare_matrices(e, g, 1, 1, 1e-5).ok);
  EXPECT_FALSE(compare_matrices(e, g, 1, 1, 0.0).ok);
}

TEST(GivenMatrixCpu, SizeMismatchIsReported) {
  std::vector<float> e(6), g(5);
  auto r = compare_matrices(e, g, 2, 3, 0.0);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("size mismatch"), std::string::npos);
}

TEST(GivenMatrixCpu, PrinterElidesLargeMatrices) {
  std::vector<float> m(20 * 20, 3.0f);
  std::ostringstream os;
  cudalab::print_matrix(os, m, 20, 20, 4, 4);
  EXPECT_NE(os.str().find("..."), std::string::npos);
  EXPECT_NE(os.str().find("(20x20)"), std::string::npos);
}

}  // namespace
