// SPDX-License-Identifier: BSD-3-Clause
// Lab 07 demo: the conflicting (plain) and XOR-swizzled shared-memory transpose and matmul,
// and the float4 transpose with each float4 layout of lab07::kTechniques (plain, interleaved),
// on a size x size problem, with each kernel's static shared memory (a swizzle costs none).
// --block sets the rows of threads of the scalar transpose (a divisor of 32); the matmul block
// is 32 x 32.
// --check compares every row with the host up to --size 512 and a few rows at each end
// above (run_tile_demo), so it stays quick at any size.
#include "cudalab/demo.hpp"
#include "swizzle.cuh"
#include "tile_demo.cuh"

int main(int argc, char** argv) {
  smem_tiles::TileDemoKernels swizzled{"XOR-swizzled", lab07::swizzled_transpose,
                                       lab07::swizzled_matmul, lab07::swizzled_transpose_kernel(),
                                       lab07::swizzled_matmul_kernel()};
  for (const lab07::Technique& x : lab07::kTechniques) {
    swizzled.extra_transposes.push_back({x.title, "32x8 threads, float4", x.launcher, x.kernel()});
  }
  return cudalab::run_demo(
      argc, argv, "lab07 swizzle: conflicting vs XOR-swizzled shared-memory tiles",
      smem_tiles::tile_demo_limits(),
      [&](const cudalab::DemoOptions& opt) { return smem_tiles::run_tile_demo(opt, swizzled); });
}
