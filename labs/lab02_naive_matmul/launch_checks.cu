// SPDX-License-Identifier: BSD-3-Clause
// Lab 02 (given): argument checks shared by the launchers.
#include "cudalab/launch_checks.hpp"
#include "naive_matmul.cuh"

namespace lab02::detail {

void check_matmul_args(const char* who, const float* d_a, const float* d_b, const float* d_c, int m,
                       int n, int k, dim3 block) {
  cudalab::check_not_null(who, {d_a, d_b, d_c});
  cudalab::check_positive_dims(who, m, n, k);
  cudalab::check_block_shape(who, block);
}

}  // namespace lab02::detail
