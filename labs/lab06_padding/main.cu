// SPDX-License-Identifier: BSD-3-Clause
// Lab 06 demo: the conflicting (plain, out-of-place) transpose against your padded in-place
// tile-pair transpose, and the conflicting against the padded matmul (the given tile kernel with
// your layout), on a size x size problem, timed like the course's tables, with each kernel's
// static shared memory. --block sets the rows of threads of a transpose block (a divisor of 32);
// the matmul block is always 32 x 32.
// --check compares every row with the host up to --size 512 and a few rows at each end
// above (run_tile_demo), so it stays quick at any size.
#include "cudalab/demo.hpp"
#include "padding.cuh"
#include "tile_demo.cuh"

int main(int argc, char** argv) {
  smem_tiles::TileDemoKernels padded{"padded",
                                     {},
                                     lab06::padded_matmul,
                                     lab06::padded_transpose_kernel(),
                                     lab06::padded_matmul_kernel()};
  padded.transpose_in_place = lab06::padded_transpose_in_place;
  return cudalab::run_demo(argc, argv, "lab06 padding: conflicting vs padded shared-memory tiles",
                           smem_tiles::tile_demo_limits(), [&](const cudalab::DemoOptions& opt) {
                             return smem_tiles::run_tile_demo(opt, padded);
                           });
}
