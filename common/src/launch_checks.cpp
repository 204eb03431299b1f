// SPDX-License-Identifier: BSD-3-Clause
#include "cudalab/launch_checks.hpp"

#include <stdexcept>
#include <string>

namespace cudalab {

void check_not_null(const char* who, std::initializer_list<const void*> pointers) {
  for (const void* p : pointers) {
    if (p == nullptr) throw std::invalid_argument(std::string(who) + ": null device pointer");
  }
}

void check_positive_dims(const char* who, int m, int n, int k) {
  if (m <= 0 || n <= 0 || k <= 0) {
    throw std::invalid_argument(std::string(who) +
                                ": M, N and K must be positive, got M=" + std::to_string(m) +
                                " N=" + std::to_string(n) + " K=" + std::to_string(k));
  }
}

void check_block_shape(const char* who, dim3 block) {
  const unsigned long long threads = static_cast<unsigned long long>(block.x) * block.y * block.z;
  if (block.x == 0 || block.y == 0 || block.z != 1 || threads > 1024) {
    throw std::invalid_argument(std::string(who) + ": invalid block " + std::to_string(block.x) +
                                "x" + std::to_string(block.y) + "x" + std::to_string(block.z) +
                                " (every extent >= 1, z == 1, at most 1024 threads)");
  }
}

}  // namespace cudalab
