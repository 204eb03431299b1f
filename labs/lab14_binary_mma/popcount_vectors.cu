// SPDX-License-Identifier: BSD-3-Clause
// Lab 14, part 1: the popcount of every packed vector — the per-row and per-column terms of
// popc(a ^ b) = popc(a) + popc(b) - 2 popc(a & b). One warp per vector; lanes stride its words.
#include <stdexcept>

#include "binary_mma.cuh"
#include "cudalab/check.cuh"

namespace lab14 {

namespace {

constexpr int kWarpsPerBlock = kPopcountThreads / 32;

/// Warp v (global index) counts the 1 bits of vector v and lane 0 writes counts[v].
__global__ void __launch_bounds__(kPopcountThreads)
    popcount_vectors_kernel(const std::uint32_t* __restrict__ bits, int vectors, int words,
                            int* __restrict__ counts) {
  // TODO(lab14): warp v = blockIdx.x * kWarpsPerBlock + threadIdx.x / 32 sums __popc over the
  // `words` words of vector v (lane l takes words l, l + 32, ...), reduces the 32 partial sums
  // across the warp and lane 0 stores the total in counts[v]. Warps past the last vector do
  // nothing.
  // HINT: __reduce_add_sync(0xffffffffu, x) (sm_80+) or five __shfl_xor_sync steps add a value
  // HINT: over the warp. Index with std::size_t: vectors * words can pass 2^31.
  // Roughly 8 lines.
  cudalab::unused(bits, vectors, words, counts);
  // END TODO(lab14)
}

}  // namespace

void popcount_vectors(const std::uint32_t* d_bits, int vectors, int k, int* d_counts,
                      cudaStream_t stream) {
  if (vectors <= 0 || k <= 0) {
    throw std::invalid_argument("popcount_vectors: vectors and k must be positive");
  }
  const int blocks = (vectors + kWarpsPerBlock - 1) / kWarpsPerBlock;
  popcount_vectors_kernel<<<blocks, kPopcountThreads, 0, stream>>>(d_bits, vectors, row_words(k),
                                                                   d_counts);
  CUDA_CHECK_LAST_LAUNCH();
}

cudalab::KernelInfo popcount_kernel() {
  return {reinterpret_cast<const void*>(popcount_vectors_kernel), "popcount_vectors_kernel",
          dim3(kPopcountThreads), 0};
}

}  // namespace lab14
