// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file tile_demo.cuh
 * @brief The demo table of labs 06 and 07 (given): the conflicting kernels against the lab's
 *        conflict-free ones (transpose and matmul), timed like the course's tables.
 */
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <string>
#include <vector>

#include "cudalab/demo.hpp"
#include "cudalab/launch_checks.hpp"

namespace smem_tiles {

/// A further transpose of a lab (e.g. lab 07's float4 one), with its own launch.
struct ExtraTranspose {
  std::string name;    ///< e.g. "float4, interleaved"
  std::string launch;  ///< the launch configuration as printed
  std::function<void(const float* in, float* out, int rows, int cols, cudaStream_t stream)>
      transpose;               ///< out (cols x rows) = in^T
  cudalab::KernelInfo kernel;  ///< the kernel, for its static shared memory (none: "-")
};

/// The conflict-free kernels of one lab, as the demo runs them.
struct TileDemoKernels {
  /// Names the technique in the table, e.g. "padded [32][33]".
  std::string technique;
  /// out (cols x rows) = in^T with blocks of kTile x block_rows threads (empty when the lab's
  /// transpose is transpose_in_place).
  std::function<void(const float* in, float* out, int rows, int cols, int block_rows,
                     cudaStream_t stream)>
      transpose;
  /// C (m x n) = A (m x k) * B (k x n).
  std::function<void(const float* a, const float* b, float* c, int m, int n, int k,
                     cudaStream_t stream)>
      matmul;
  cudalab::KernelInfo transpose_kernel;  ///< the transpose kernel, for its static shared memory
  cudalab::KernelInfo matmul_kernel;     ///< the matmul kernel, for its static shared memory
  std::vector<ExtraTranspose> extra_transposes = {};  ///< more rows after the lab's transpose
  /// Lab 06's transpose: an n x n matrix transposed in place with blocks of kTile x block_rows
  /// threads, one block per tile pair on or above the diagonal. When set, the lab's transpose row
  /// runs it on a copy of the input (copied before the checked run, untimed); the timed runs
  /// transpose that buffer back and forth.
  std::function<void(float* matrix, int n, int block_rows, cudaStream_t stream)>
      transpose_in_place = {};
};

/// Demo options of labs 06 and 07: --size defaults to 4096, --block is the transpose's rows
/// of threads (default kTransposeBlockRows; it must divide kTile).
cudalab::DemoLimits tile_demo_limits();

/**
 * @brief Runs the conflicting transpose and matmul and @p lab's on an opt.size^2 problem:
 *        with --check each is compared with the host first, then timed; prints variant,
 *        launch, static shared memory, ms, rate and speedup over the conflicting kernel.
 *        --check compares every row up to size 512, else a few rows at each end, so the
 *        host reference stays short at any size.
 * @return 0, or 1 when a --check comparison failed
 * @throws std::invalid_argument when opt.block does not divide kTile
 */
int run_tile_demo(const cudalab::DemoOptions& opt, const TileDemoKernels& lab);

}  // namespace smem_tiles
