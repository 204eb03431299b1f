// SPDX-License-Identifier: BSD-3-Clause
// Lab 10: particles in two layouts — the same all-fields kernel over SoA (four arrays) and AoS4
// (one float4 per particle), and an "x only" count that reads one field through a stride.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "cudalab/check.cuh"
#include "layout.cuh"

namespace lab10 {

namespace {

/// Thread i computes out[i] from x[i], y[i], z[i], m[i]: lanes read consecutive floats of each
/// array, four fully used sectors per load instruction.
__global__ void weighted_distance_soa_kernel(const float* __restrict__ x,
                                             const float* __restrict__ y,
                                             const float* __restrict__ z,
                                             const float* __restrict__ m, float3 c,
                                             float* __restrict__ out, int n) {
  // TODO(lab10): one particle per thread: out[i] = m[i] * (dx^2 + dy^2 + dz^2), d = p_i - c, for
  // i < n (roughly 6 lines).
  // HINT: i = blockIdx.x * blockDim.x + threadIdx.x; neighbouring lanes then read neighbouring
  // HINT: floats of each of the four arrays.
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float dx = x[i] - c.x;
    const float dy = y[i] - c.y;
    const float dz = z[i] - c.z;
    out[i] = m[i] * (dx * dx + dy * dy + dz * dz);
  }
  // END TODO(lab10)
}

/// Thread i computes out[i] from the float4 p[i] = {x, y, z, m}: one 16-byte load per particle.
__global__ void weighted_distance_aos4_kernel(const float4* __restrict__ p, float3 c,
                                              float* __restrict__ out, int n) {
  // TODO(lab10): the same as the SoA kernel from p[i] (roughly 8 lines).
  // HINT: read p[i] once, as a whole float4 (one 16-byte load), then use its .x .y .z .w.
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float4 q = p[i];
    const float dx = q.x - c.x;
    const float dy = q.y - c.y;
    const float dz = q.z - c.z;
    out[i] = q.w * (dx * dx + dy * dy + dz * dz);
  }
  // END TODO(lab10)
}

/// Grid-stride count of field[i * stride] < x0: lanes on consecutive i, so one load instruction
/// of a warp reads 32 floats stride * 4 bytes apart; lane 0 of each warp adds the warp's count.
__global__ void count_below_kernel(const float* __restrict__ field, int stride, int n, float x0,
                                   unsigned int* __restrict__ count) {
  // TODO(lab10): count the elements below x0 in a grid-stride loop (lanes on consecutive i),
  // then add the count to *count with few atomics (roughly 10 lines).
  // HINT: a grid-stride loop (handout, "Three tools"): where does thread t start, how far does
  // HINT: it step so that any grid covers n and a warp's lanes stay on consecutive i?
  // HINT: i * stride passes 2^31 for large strides: compute it in 64 bits (long long).
  // HINT: add up a warp's counts with shuffles first: how many atomics does that leave?
  unsigned int mine = 0;
  const long long pass = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += pass) {
    mine += field[i * stride] < x0 ? 1u : 0u;  // NaN is not below anything
  }
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    mine += __shfl_down_sync(0xFFFFFFFFu, mine, offset);
  }
  if (threadIdx.x % kWarpSize == 0 && mine != 0) atomicAdd(count, mine);
  // END TODO(lab10)
}

void check_points(int n, const void* d_out, const char* who) {
  if (n <= 0) throw std::invalid_argument(std::string(who) + ": n must be positive");
  if (d_out == nullptr) throw std::invalid_argument(std::string(who) + ": null pointer");
}

unsigned int blocks_for(long long threads) {
  return static_cast<unsigned int>((threads + kPointThreads - 1) / kPointThreads);
}

}  // namespace

void weighted_distance_soa(const PointsSoA& p, float3 c, float* d_out, int n, cudaStream_t stream) {
  check_points(n, d_out, "weighted_distance_soa");
  if (!p.x || !p.y || !p.z || !p.m) {
    throw std::invalid_argument("weighted_distance_soa: null pointer");
  }
  weighted_distance_soa_kernel<<<blocks_for(n), kPointThreads, 0, stream>>>(p.x, p.y, p.z, p.m, c,
                                                                            d_out, n);
  CUDA_CHECK_LAST_LAUNCH();
}

void weighted_distance_aos4(const float4* d_p, float3 c, float* d_out, int n, cudaStream_t stream) {
  check_points(n, d_out, "weighted_distance_aos4");
  if (d_p == nullptr) throw std::invalid_argument("weighted_distance_aos4: null pointer");
  weighted_distance_aos4_kernel<<<blocks_for(n), kPointThreads, 0, stream>>>(d_p, c, d_out, n);
  CUDA_CHECK_LAST_LAUNCH();
}

void count_below(const float* d_field, int stride, int n, float x0, unsigned int* d_count,
                 cudaStream_t stream) {
  check_points(n, d_count, "count_below");
  if (d_field == nullptr) throw std::invalid_argument("count_below: null pointer");
  if (stride < 1) throw std::invalid_argument("count_below: stride must be >= 1");
  int device = 0;
  int sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  // A full GPU of resident blocks (8 x 256 threads per SM), fewer when n is small.
  const unsigned int blocks =
      std::min<unsigned int>(blocks_for(n), static_cast<unsigned int>(sms) * 8u);
  CUDA_CHECK(cudaMemsetAsync(d_count, 0, sizeof(unsigned int), stream));
  count_below_kernel<<<blocks, kPointThreads, 0, stream>>>(d_field, stride, n, x0, d_count);
  CUDA_CHECK_LAST_LAUNCH();
}

// The kernels' identities. Each function shares its name with the private kernel it describes;
// the typed pointer picks that kernel out of the two.
cudalab::KernelInfo weighted_distance_soa_kernel() {
  void (*kernel)(const float*, const float*, const float*, const float*, float3, float*, int) =
      weighted_distance_soa_kernel;
  return {reinterpret_cast<const void*>(kernel), "weighted_distance_soa_kernel",
          dim3(kPointThreads), 0};
}

cudalab::KernelInfo weighted_distance_aos4_kernel() {
  void (*kernel)(const float4*, float3, float*, int) = weighted_distance_aos4_kernel;
  return {reinterpret_cast<const void*>(kernel), "weighted_distance_aos4_kernel",
          dim3(kPointThreads), 0};
}

cudalab::KernelInfo count_below_kernel() {
  void (*kernel)(const float*, int, int, float, unsigned int*) = count_below_kernel;
  return {reinterpret_cast<const void*>(kernel), "count_below_kernel", dim3(kPointThreads), 0};
}

}  // namespace lab10
