// SPDX-License-Identifier: BSD-3-Clause
// Lab 09 (given): the 256-entry popcount table of lab 08, filled on the device.
#include "blocked_xnor.cuh"
#include "cudalab/check.cuh"

namespace lab09 {

namespace {

constexpr int kTableEntries = 256;

/// Thread i writes entry i: the number of 1 bits of the byte value i.
__global__ void fill_popcount_table_kernel(std::uint8_t* table) {
  table[threadIdx.x] = static_cast<std::uint8_t>(__popc(threadIdx.x));
}

}  // namespace

cudalab::DeviceBuffer<std::uint8_t> make_popcount_table(cudaStream_t stream) {
  cudalab::DeviceBuffer<std::uint8_t> d_table(kTableEntries);
  fill_popcount_table_kernel<<<1, kTableEntries, 0, stream>>>(d_table.data());
  CUDA_CHECK_LAST_LAUNCH();
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return d_table;
}

cudalab::KernelInfo popcount_table_kernel() {
  return {reinterpret_cast<const void*>(fill_popcount_table_kernel), "fill_popcount_table_kernel",
          dim3(kTableEntries), 0};
}

}  // namespace lab09
