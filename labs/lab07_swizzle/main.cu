// Lab 07 demo: the conflicting (plain) and XOR-swizzled shared-memory transpose and matmul on
// a size x size problem, timed like the seed articles' tables, with each kernel's static
// shared memory (a swizzle costs none). --block sets the rows of threads of a transpose block
// (a divisor of 32); the matmul block is always 32 x 32.
#include "cudalab/demo.hpp"
#include "swizzle.cuh"
#include "tile_demo.cuh"

int main(int argc, char** argv) {
  const smem_tiles::TileDemoKernels swizzled{
      "XOR-swizzled", lab07::swizzled_transpose, lab07::swizzled_matmul,
      reinterpret_cast<const void*>(lab07::swizzled_transpose_kernel),
      reinterpret_cast<const void*>(lab07::swizzled_matmul_kernel)};
  return cudalab::run_demo(
      argc, argv, "lab07 swizzle: conflicting vs XOR-swizzled shared-memory tiles",
      smem_tiles::tile_demo_limits(),
      [&](const cudalab::DemoOptions& opt) { return smem_tiles::run_tile_demo(opt, swizzled); });
}
