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

#include <cstddef>
#include <initializer_list>

namespace cudalab {

/// The largest grid extents a launch may ask for (CUDA Programming Guide, Table
/// "Technical Specifications per Compute Capability": x 2^31 - 1, y and z 65535).
inline constexpr long long kMaxGridX = 2147483647LL;
inline constexpr long long kMaxGridYZ = 65535LL;

/**
 * @brief One kernel of a lab as its technique file launches it: what the graders use for
 * provenance (the name a captured graph must hold), attributes and SASS lookups.
 *
 * Each technique file exports `KernelInfo labNN::<technique>_kernel()`; the `__global__`
 * function itself stays private to that file.
 */
struct KernelInfo {
  const void* function = nullptr;  ///< the `__global__` function (cudaFuncGetAttributes etc.)
  const char* name = "";           ///< its unqualified name, as a captured graph reports it
  dim3 block{0, 0, 0};             ///< the block the launcher uses (0 x 0: chosen per call)
  std::size_t dynamic_smem = 0;    ///< dynamic shared memory per block of the usual launch
};

/// Throws "<who>: null device pointer" when any of @p pointers is null.
void check_not_null(const char* who, std::initializer_list<const void*> pointers);

/// Throws "<who>: M, N and K must be positive, got M=.. N=.. K=.." unless all are > 0.
void check_positive_dims(const char* who, int m, int n, int k);

/**
 * @brief Checks a 2-D block shape: every extent >= 1, z == 1, at most 1024 threads.
 * Throws "<who>: invalid block XxYxZ (every extent >= 1, z == 1, at most 1024 threads)".
 */
void check_block_shape(const char* who, dim3 block);

/**
 * @brief The grid of @p tile_rows x @p tile_cols tiles over a @p rows x @p cols matrix:
 * x = ceil(cols / tile_cols) tile columns, y = ceil(rows / tile_rows) tile rows.
 * Throws "<who>: sizes must be positive, got RxC" and, past the grid limits,
 * "<who>: R rows need T tile rows of T_r, more than gridDim.y allows (65535)".
 */
dim3 tile_grid(int rows, int cols, int tile_rows, int tile_cols, const char* who);

}  // namespace cudalab
