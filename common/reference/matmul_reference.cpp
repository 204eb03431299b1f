// SPDX-License-Identifier: BSD-3-Clause
// Host reference matmul (grader-only), summed in double.
#include <cstddef>
#include <iostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cudalab/matrix.hpp"

namespace cudalab {

std::vector<float> reference_matmul(const std::vector<float>& a, const std::vector<float>& b, int m,
                                    int n, int k) {
  if (m < 0 || n < 0 || k < 0 || a.size() != std::size_t(m) * k || b.size() != std::size_t(k) * n) {
    throw std::invalid_argument("reference_matmul: sizes do not match M, N, K");
  }
  std::vector<double> acc(static_cast<std::size_t>(m) * n, 0.0);
  // i-k-j order: the inner loop walks rows of B and C contiguously.
  for (int i = 0; i < m; ++i) {
    double* c_row = &acc[std::size_t(i) * n];
    for (int p = 0; p < k; ++p) {
      const double a_ip = a[std::size_t(i) * k + p];
      const float* b_row = &b[std::size_t(p) * n];
      for (int j = 0; j < n; ++j) c_row[j] += a_ip * b_row[j];
    }
  }
  return std::vector<float>(acc.begin(), acc.end());
}

std::vector<ReferenceRows> reference_rows(const std::vector<float>& a, const std::vector<float>& b,
                                          int n, int full_up_to) {
  const std::vector<std::pair<int, int>> ranges =
      n <= full_up_to
          ? std::vector<std::pair<int, int>>{{0, n}}
          : std::vector<std::pair<int, int>>{{0, 8}, {n / 2 - 4, n / 2 + 4}, {n - 8, n}};
  std::vector<ReferenceRows> out;
  for (const auto& [first, last] : ranges) {
    const std::vector<float> a_rows(a.begin() + std::ptrdiff_t(first) * n,
                                    a.begin() + std::ptrdiff_t(last) * n);
    out.push_back({first, last, reference_matmul(a_rows, b, last - first, n, n)});
  }
  if (out.size() > 1) {
    std::cout << "check: rows " << out[0].first << "-" << out[0].last - 1 << ", " << out[1].first
              << "-" << out[1].last - 1 << " and " << out[2].first << "-" << out[2].last - 1
              << " of C (every row up to --size " << full_up_to << ")\n";
  }
  return out;
}

MatrixCompare compare_rows(const std::vector<ReferenceRows>& rows, const std::vector<float>& got,
                           int n) {
  for (const ReferenceRows& r : rows) {
    const std::vector<float> part(got.begin() + std::ptrdiff_t(r.first) * n,
                                  got.begin() + std::ptrdiff_t(r.last) * n);
    MatrixCompare cmp = compare_matrices(r.expected, part, r.last - r.first, n, 0.0);
    if (!cmp.ok) {
      if (rows.size() > 1)
        cmp.message = "rows from " + std::to_string(r.first) + ": " + cmp.message;
      return cmp;
    }
  }
  return MatrixCompare{};
}

}  // namespace cudalab
