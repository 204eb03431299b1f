// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file launch_checks.hpp
 * @brief Argument checks shared by the labs' launchers (given code).
 *
 * Each check throws std::invalid_argument whose message starts with @p who (the
 * launcher's name) so a failing test says which launcher rejected what.
 */
#pragma once

#include <vector_types.h>  // dim3

#include <initializer_list>

namespace cudalab {

/// Throws "<who>: null device pointer" when any of @p pointers is null.
void check_not_null(const char* who, std::initializer_list<const void*> pointers);

/// Throws "<who>: M, N and K must be positive, got M=.. N=.. K=.." unless all are > 0.
void check_positive_dims(const char* who, int m, int n, int k);

/**
 * @brief Checks a 2-D block shape: every extent >= 1, z == 1, at most 1024 threads.
 * Throws "<who>: invalid block XxYxZ (every extent >= 1, z == 1, at most 1024 threads)".
 */
void check_block_shape(const char* who, dim3 block);

}  // namespace cudalab
