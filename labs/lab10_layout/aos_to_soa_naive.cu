// SPDX-License-Identifier: BSD-3-Clause
// Lab 10, given: the naive AoS -> SoA conversion (the baseline of the tiled one). Thread i copies
// record i field by field: its writes soa[f * n + i] are coalesced across the warp, its reads
// aos[i * fields + f] are fields * 4 bytes apart.
#include <stdexcept>
#include <string>

#include "cudalab/check.cuh"
#include "layout.cuh"

namespace lab10 {

namespace {

__global__ void aos_to_soa_naive_kernel(const float* __restrict__ aos, float* __restrict__ soa,
                                        int n, int fields) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int f = 0; f < fields; ++f) {
    soa[static_cast<long long>(f) * n + i] = aos[i * fields + f];  // lanes fields floats apart
  }
}

}  // namespace

void aos_to_soa_naive(const float* d_aos, float* d_soa, int n, int fields, cudaStream_t stream) {
  if (n <= 0 || fields < 1 || fields > kMaxFields) {
    throw std::invalid_argument("aos_to_soa_naive: need n > 0 and 1 <= fields <= " +
                                std::to_string(kMaxFields));
  }
  if (d_aos == nullptr || d_soa == nullptr) {
    throw std::invalid_argument("aos_to_soa_naive: null pointer");
  }
  const unsigned int blocks =
      static_cast<unsigned int>((static_cast<long long>(n) + kTileRecords - 1) / kTileRecords);
  aos_to_soa_naive_kernel<<<blocks, kTileRecords, 0, stream>>>(d_aos, d_soa, n, fields);
  CUDA_CHECK_LAST_LAUNCH();
}

cudalab::KernelInfo aos_to_soa_naive_kernel() {
  // The private kernel of the same name (the typed pointer picks it).
  void (*kernel)(const float*, float*, int, int) = aos_to_soa_naive_kernel;
  return {reinterpret_cast<const void*>(kernel), "aos_to_soa_naive_kernel", dim3(kTileRecords), 0};
}

}  // namespace lab10
