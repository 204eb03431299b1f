// SPDX-License-Identifier: BSD-3-Clause
// Lab 14 (given): the CUDA cores' XOR-popcount peak, measured in the run that times your kernel.
// No binary GEMM on the CUDA cores can pass it (lab 09's register-tiled kernel reached 92 % of
// the computed popcount ceiling in the reference run), so a tensor-core kernel that does is
// faster than any of them.
#include <stdexcept>

#include "binary_mma.cuh"
#include "cudalab/check.cuh"

namespace lab14 {

namespace {

constexpr int kPeakChains = 8;       // independent XOR-popcount chains per thread
constexpr int kPeakThreads = 256;    // threads per block
constexpr int kPeakBlocksPerSm = 8;  // 2048 threads: every SM at full occupancy

/// One thread's work: kPeakChains chains of `x = x * a + c; sum += popc(x ^ key)` for
/// @p iterations steps, one POPC (32 bit multiply-adds) per chain and step, with the LCG step,
/// the XOR and the add on the other integer pipes; returns the sum of the chains. (No unroll
/// pragmas: the host compiles this too; nvcc unrolls the chains and 4 steps by itself.)
__host__ __device__ __forceinline__ int thread_sum(unsigned tid, int iterations,
                                                   std::uint32_t key) {
  std::uint32_t x[kPeakChains];
  int sum[kPeakChains];
  for (int j = 0; j < kPeakChains; ++j) {
    x[j] = tid * (2u * j + 1u) + key;
    sum[j] = 0;
  }
  for (int i = 0; i < iterations; ++i) {
    for (int j = 0; j < kPeakChains; ++j) {
#ifdef __CUDA_ARCH__
      sum[j] += __popc(x[j] ^ key);
#else
      sum[j] += __builtin_popcount(x[j] ^ key);
#endif
      x[j] = x[j] * 1664525u + 1013904223u;
    }
  }
  int total = 0;
  for (int j = 0; j < kPeakChains; ++j) total += sum[j];
  return total;
}

/// Nothing is read in the loop; each thread writes its sum, so no step can be left out.
__global__ void __launch_bounds__(kPeakThreads, kPeakBlocksPerSm)
    popcount_peak_kernel(int iterations, std::uint32_t key, int* __restrict__ sink) {
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  sink[tid] = thread_sum(tid, iterations, key);
}

}  // namespace

long popcount_peak_threads() {
  int device = 0;
  int sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return long(sms) * kPeakBlocksPerSm * kPeakThreads;
}

int popcount_peak_expected(long thread, int iterations, std::uint32_t key) {
  return thread_sum(static_cast<unsigned>(thread), iterations, key);
}

double popcount_peak_bit_macs(int iterations) {
  return double(popcount_peak_threads()) * iterations * kPeakChains * 32.0;
}

void popcount_peak(int iterations, std::uint32_t key, int* d_sink, cudaStream_t stream) {
  if (iterations <= 0) throw std::invalid_argument("popcount_peak: iterations must be positive");
  const long blocks = popcount_peak_threads() / kPeakThreads;
  popcount_peak_kernel<<<unsigned(blocks), kPeakThreads, 0, stream>>>(iterations, key, d_sink);
  CUDA_CHECK_LAST_LAUNCH();
}

}  // namespace lab14
