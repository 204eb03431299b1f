// SPDX-License-Identifier: BSD-3-Clause
#include "cudalab/parallel.hpp"

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

namespace cudalab {

unsigned host_threads() {
  constexpr unsigned kMost = 64;
  if (const char* env = std::getenv("CUDALAB_HOST_THREADS"); env != nullptr && *env != '\0') {
    char* end = nullptr;
    const long v = std::strtol(env, &end, 10);
    if (end == env || *end != '\0' || v <= 0) {
      throw std::invalid_argument(
          std::string("CUDALAB_HOST_THREADS must be a positive integer, got '") + env + "'");
    }
    return static_cast<unsigned>(std::min<long>(v, kMost));
  }
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1u : std::min(hw, kMost);
}

}  // namespace cudalab
