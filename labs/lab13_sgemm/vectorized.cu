// SPDX-License-Identifier: BSD-3-Clause
// Lab 13, stage 2: stage 1's tiles loaded 16 bytes at a time, with A's tile stored transposed
// in shared memory (as[kk][row]) so a thread's 8 values of A's column kk are two float4 reads.
#include <cstdint>

#include "cudalab/check.cuh"
#include "cudalab/launch_checks.hpp"
#include "sgemm.cuh"

namespace lab13 {

namespace {

static_assert(kBlockM * kBlockK == 4 * kBlockThreads && kBlockK * kBlockN == 4 * kBlockThreads,
              "each thread loads one float4 of A's tile and one of B's");

/// Template flag kVec: k and n multiples of 4 and A, B, C 16-byte aligned, so every 4-float
/// chunk of a row is one aligned float4 (else the same chunks are read one float at a time).
template <bool kVec>
__global__ void __launch_bounds__(kBlockThreads)
    sgemm_vectorized_kernel(const float* __restrict__ a, const float* __restrict__ b,
                            float* __restrict__ c, int m, int n, int k) {
  constexpr int kThreadsN = kBlockN / kThreadN;
  const int tid = static_cast<int>(threadIdx.x);
  const int tr = tid / kThreadsN;
  const int tc = tid % kThreadsN;
  const int row0 = static_cast<int>(blockIdx.y) * kBlockM;
  const int col0 = static_cast<int>(blockIdx.x) * kBlockN;
  // TODO(lab13): stage 2. As stage 1, with: each thread loads ONE 4-float chunk of A's tile
  // A's tile and one of B's (256 threads, 256 chunks each: which chunk is whose is yours to
  // choose, so that neighbouring threads read neighbouring global floats): a float4 load when
  // kVec and the chunk lies inside the matrix, else four bounds-checked floats (0.0f outside).
  // A's chunk goes into as[kk][row] (transposed: four scalar stores), B's into bs[kk][col] (one
  // float4 store). In the multiply, read a thread's 8 A values as two float4 from as[kk][..] and
  // its 8 B values as two float4 from bs[kk][..]. Store C as float4 when kVec, else float by
  // float.
  // HINT: __shared__ __align__(16) float as[kBlockK][kBlockM]; reinterpret_cast<const float4*>.
  // HINT: with kVec a chunk is either wholly inside (col + 3 < cols) or wholly outside.
  // Roughly 70 lines.
  cudalab::unused(a, b, c, m, n, k, tr, tc, row0, col0);
  // END TODO(lab13)
}

bool aligned16(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

}  // namespace

void sgemm_vectorized(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                      cudaStream_t stream) {
  cudalab::check_positive_dims("sgemm_vectorized", m, n, k);
  const dim3 grid = cudalab::tile_grid(m, n, kBlockM, kBlockN, "sgemm_vectorized");
  // TODO(lab13): launch sgemm_vectorized_kernel<true> (every row of A, B and C 16-byte aligned: k
  // and n multiples of 4 and the pointers aligned16) or <false>, grid x kBlockThreads, on @p
  // stream. HINT: a float4 access to an address that is not a multiple of 16 faults. Roughly 5
  // lines.
  cudalab::unused(d_a, d_b, d_c, m, n, k, grid, stream);
  // END TODO(lab13)
  CUDA_CHECK_LAST_LAUNCH();
}

cudalab::KernelInfo vectorized_kernel(bool vector_path) {
  const void* f = vector_path ? reinterpret_cast<const void*>(sgemm_vectorized_kernel<true>)
                              : reinterpret_cast<const void*>(sgemm_vectorized_kernel<false>);
  return {f, "sgemm_vectorized_kernel", dim3(kBlockThreads), 0};
}

}  // namespace lab13
