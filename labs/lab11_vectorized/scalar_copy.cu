// SPDX-License-Identifier: BSD-3-Clause
// Lab 11, given: the scalar copy (one float per thread per step) that the float4 copy is
// measured against, and the argument checks both copies share.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "cudalab/check.cuh"
#include "vectorized.cuh"

namespace lab11 {

dim3 copy_grid(const float* d_src, std::size_t src_pitch, const float* d_dst, std::size_t dst_pitch,
               int width, int rows, int units_per_row, const CopyLaunch& launch, const char* who) {
  const std::string name(who);
  if (width <= 0 || rows <= 0) throw std::invalid_argument(name + ": sizes must be positive");
  const std::size_t row_bytes = std::size_t(width) * sizeof(float);
  if (src_pitch < row_bytes || dst_pitch < row_bytes || src_pitch % 4 != 0 || dst_pitch % 4 != 0) {
    throw std::invalid_argument(name + ": pitches must hold a row (" + std::to_string(row_bytes) +
                                " bytes) and be multiples of 4, got " + std::to_string(src_pitch) +
                                " and " + std::to_string(dst_pitch));
  }
  if (reinterpret_cast<std::uintptr_t>(d_src) % 4 != 0 ||
      reinterpret_cast<std::uintptr_t>(d_dst) % 4 != 0) {
    throw std::invalid_argument(name + ": float pointers must be 4-byte aligned");
  }
  if (launch.block < 32 || launch.block > 1024 || launch.block % 32 != 0 || launch.grid_x < 0 ||
      launch.grid_y < 0 || launch.grid_y > cudalab::kMaxGridYZ) {
    throw std::invalid_argument(name + ": block must be a multiple of 32 in 32..1024 and grids " +
                                "non-negative (grid_y <= " + std::to_string(cudalab::kMaxGridYZ) +
                                "), got block " + std::to_string(launch.block));
  }
  const long long blocks_x = (units_per_row + launch.block - 1) / launch.block;
  dim3 grid;
  grid.x = launch.grid_x > 0 ? unsigned(launch.grid_x) : unsigned(blocks_x > 0 ? blocks_x : 1);
  // By default a block row per matrix row, up to the grid's y limit (the kernel strides over
  // the rows beyond it).
  grid.y = launch.grid_y > 0 ? unsigned(launch.grid_y)
                             : unsigned(std::min<long long>(rows, cudalab::kMaxGridYZ));
  return grid;
}

namespace {

__global__ void scalar_copy_kernel(const float* __restrict__ src, std::size_t src_pitch,
                                   float* __restrict__ dst, std::size_t dst_pitch, int width,
                                   int rows) {
  const int stride = gridDim.x * blockDim.x;
  for (int row = blockIdx.y; row < rows; row += gridDim.y) {
    const float* s = reinterpret_cast<const float*>(reinterpret_cast<const char*>(src) +
                                                    static_cast<std::size_t>(row) * src_pitch);
    float* d = reinterpret_cast<float*>(reinterpret_cast<char*>(dst) +
                                        static_cast<std::size_t>(row) * dst_pitch);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < width; i += stride) d[i] = s[i];
  }
}

}  // namespace

void scalar_copy(const float* d_src, std::size_t src_pitch, float* d_dst, std::size_t dst_pitch,
                 int width, int rows, CopyLaunch launch, cudaStream_t stream) {
  const dim3 grid =
      copy_grid(d_src, src_pitch, d_dst, dst_pitch, width, rows, width, launch, "scalar_copy");
  scalar_copy_kernel<<<grid, launch.block, 0, stream>>>(d_src, src_pitch, d_dst, dst_pitch, width,
                                                        rows);
  CUDA_CHECK_LAST_LAUNCH();
}

cudalab::KernelInfo scalar_copy_kernel() {
  // The private kernel of the same name (the typed pointer picks it); block and grid come from
  // each call's CopyLaunch.
  void (*kernel)(const float*, std::size_t, float*, std::size_t, int, int) = scalar_copy_kernel;
  return {reinterpret_cast<const void*>(kernel), "scalar_copy_kernel"};
}

}  // namespace lab11
