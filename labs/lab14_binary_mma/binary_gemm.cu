// SPDX-License-Identifier: BSD-3-Clause
// Lab 14 (given): the whole ±1 product — the popcounts of A's rows and B's columns, then one of
// the tensor-core kernels (a launcher of lab14::kTechniques), all on one stream; and the device
// check of the tensor-core launchers.
#include <stdexcept>
#include <string>

#include "binary_mma.cuh"
#include "cudalab/check.cuh"

namespace lab14 {

void require_binary_tensor_cores(const char* who) {
  int device = 0;
  int major = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  if (major < 8) {
    throw std::runtime_error(std::string(who) +
                             ": mma.m16n8k256 .b1 .and.popc needs compute capability 8.0 or newer");
  }
}

void binary_gemm(MmaLauncher mma, const std::uint32_t* d_a_bits, const std::uint32_t* d_b_bits,
                 int* d_popcounts, float* d_c, int m, int n, int k, cudaStream_t stream) {
  if (m <= 0 || n <= 0 || k <= 0) {
    throw std::invalid_argument("binary_gemm: m, n and k must be positive");
  }
  if (mma == nullptr) {
    throw std::invalid_argument("binary_gemm: no tensor-core launcher");
  }
  int* d_a_pop = d_popcounts;      // M counts: rows of A
  int* d_b_pop = d_popcounts + m;  // N counts: columns of B
  popcount_vectors(d_a_bits, m, k, d_a_pop, stream);
  popcount_vectors(d_b_bits, n, k, d_b_pop, stream);
  mma(d_a_bits, d_b_bits, d_a_pop, d_b_pop, d_c, m, n, k, stream);
}

}  // namespace lab14
