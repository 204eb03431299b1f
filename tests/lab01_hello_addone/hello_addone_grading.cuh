// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file hello_addone_grading.cuh
 * @brief What the test files of lab 01's grader share: the test shapes (grid_for() on the CPU in
 * add_one_launch_test.cu, add_one_kernel on the GPU in add_one_kernel_test.cu) and add_one()
 * captured from its stream with the rules of its graph.
 *
 * Every graded launch is captured from the stream it is given (cudalab/graph_capture.cuh):
 * the graph may hold add_one_kernel and nothing else. The captured graph is then replayed on
 * two different data sets behind the same pointer, after the shared memory of every SM was
 * filled with NaN.
 */
#pragma once

#include "add_one.cuh"
#include "common/kit.cuh"
#include "cudalab/graph_capture.cuh"

namespace lab01_grading {

// What the test files use from elsewhere (each says `using namespace lab01_grading;`).
using cudalab::kit::dims;
using cudalab::kit::shape_name;
using cudalab::testing::CapturedWork;
using cudalab::testing::GraphRules;

using Shape = cudalab::kit::Extent;

inline const Shape kShapes[] = {{1, 1},    {5, 5},    {1, 100000}, {100000, 1},
                                {4097, 3}, {3, 4097}, {33, 65},    {1000, 1000}};

/// What the graph captured from add_one(rows, cols, block) may hold: add_one_kernel, nothing
/// else, launched as the interface says: the requested block, the smallest grid covering
/// cols (x) by rows (y) (the test's own count, not grid_for()), no dynamic shared memory.
inline GraphRules add_one_rules(int rows, int cols, dim3 block) {
  const cudalab::KernelInfo kernel = lab01::add_one_kernel_info();
  GraphRules r = cudalab::kit::only_kernel(kernel);
  const dim3 grid((unsigned(cols) + block.x - 1) / block.x,
                  (unsigned(rows) + block.y - 1) / block.y);
  r.expect_launch(kernel.name, grid, block, 0u,
                  "grid_for(rows, cols, block) blocks of the requested block");
  return r;
}

/// Captures add_one(d_data, rows, cols, block) and checks what the graph holds.
inline CapturedWork capture_add_one(float* d_data, int rows, int cols, dim3 block) {
  return CapturedWork::capture(
      [&](cudaStream_t s) { lab01::add_one(d_data, rows, cols, block, s); });
}

}  // namespace lab01_grading
