// Host reference matmul (grader-only), summed in double.
#include <cstddef>
#include <stdexcept>
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

}  // namespace cudalab
