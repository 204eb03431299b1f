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

dim3 tile_grid(int rows, int cols, int tile_rows, int tile_cols, const char* who) {
  if (tile_rows <= 0 || tile_cols <= 0) {
    throw std::invalid_argument(std::string(who) + ": tile extents must be positive, got " +
                                std::to_string(tile_rows) + "x" + std::to_string(tile_cols));
  }
  if (rows <= 0 || cols <= 0) {
    throw std::invalid_argument(std::string(who) + ": sizes must be positive, got " +
                                std::to_string(rows) + "x" + std::to_string(cols));
  }
  const long long tiles_y = (static_cast<long long>(rows) + tile_rows - 1) / tile_rows;
  const long long tiles_x = (static_cast<long long>(cols) + tile_cols - 1) / tile_cols;
  if (tiles_y > kMaxGridYZ) {
    throw std::invalid_argument(std::string(who) + ": " + std::to_string(rows) + " rows need " +
                                std::to_string(tiles_y) + " tile rows of " +
                                std::to_string(tile_rows) + ", more than gridDim.y allows (65535)");
  }
  if (tiles_x > kMaxGridX) {
    throw std::invalid_argument(std::string(who) + ": " + std::to_string(cols) +
                                " columns need more tile columns than gridDim.x allows");
  }
  return dim3(static_cast<unsigned>(tiles_x), static_cast<unsigned>(tiles_y), 1);
}

}  // namespace cudalab
