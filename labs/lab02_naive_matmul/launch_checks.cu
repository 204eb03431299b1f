// Lab 02 (given): argument checks shared by the launchers.
#include <stdexcept>
#include <string>

#include "naive_matmul.cuh"

namespace lab02::detail {

void check_matmul_args(const char* who, const float* d_a, const float* d_b, const float* d_c, int m,
                       int n, int k, dim3 block) {
  if (d_a == nullptr || d_b == nullptr || d_c == nullptr) {
    throw std::invalid_argument(std::string(who) + ": null device pointer");
  }
  if (m <= 0 || n <= 0 || k <= 0) {
    throw std::invalid_argument(std::string(who) +
                                ": M, N and K must be positive, got M=" + std::to_string(m) +
                                " N=" + std::to_string(n) + " K=" + std::to_string(k));
  }
  const unsigned long long threads = static_cast<unsigned long long>(block.x) * block.y * block.z;
  if (block.x == 0 || block.y == 0 || block.z != 1 || threads > 1024) {
    throw std::invalid_argument(std::string(who) + ": invalid block " + std::to_string(block.x) +
                                "x" + std::to_string(block.y) + "x" + std::to_string(block.z) +
                                " (every extent >= 1, z == 1, at most 1024 threads)");
  }
}

}  // namespace lab02::detail
