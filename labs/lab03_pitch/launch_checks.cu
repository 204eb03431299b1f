// SPDX-License-Identifier: BSD-3-Clause
// Lab 03 (given): argument checks and grid shared by the pitched and unpitched launchers.
#include <stdexcept>
#include <string>

#include "cudalab/launch_checks.hpp"
#include "pitch.cuh"

namespace lab03::detail {

namespace {

void check_pitch(const char* who, const char* what, std::size_t pitch, int cols) {
  const std::size_t row_bytes = static_cast<std::size_t>(cols) * sizeof(float);
  if (pitch < row_bytes || pitch % sizeof(float) != 0) {
    throw std::invalid_argument(std::string(who) + ": pitch of " + what + " is " +
                                std::to_string(pitch) +
                                " bytes; it must be >= " + std::to_string(row_bytes) +
                                " (the row's data) and a multiple of sizeof(float)");
  }
}

}  // namespace

void check_matmul_args(const char* who, const float* d_a, std::size_t pitch_a, const float* d_b,
                       std::size_t pitch_b, const float* d_c, std::size_t pitch_c, int m, int n,
                       int k, dim3 block) {
  cudalab::check_not_null(who, {d_a, d_b, d_c});
  cudalab::check_positive_dims(who, m, n, k);
  check_pitch(who, "A", pitch_a, k);
  check_pitch(who, "B", pitch_b, n);
  check_pitch(who, "C", pitch_c, n);
  cudalab::check_block_shape(who, block);
  // Throws past the grid limits (more than 65535 blocks in y).
  cudalab::tile_grid(m, n, static_cast<int>(block.y), static_cast<int>(block.x), who);
}

dim3 grid_for(int m, int n, dim3 block) {
  return dim3((static_cast<unsigned>(n) + block.x - 1) / block.x,  // x: the N columns of C
              (static_cast<unsigned>(m) + block.y - 1) / block.y,  // y: the M rows of C
              1);
}

}  // namespace lab03::detail
