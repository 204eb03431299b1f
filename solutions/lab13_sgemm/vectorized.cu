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
  __shared__ __align__(16) float as[kBlockK][kBlockM];  // as[kk][r] = A[row0 + r][k0 + kk]
  __shared__ __align__(16) float bs[kBlockK][kBlockN];  // bs[kk][cc] = B[k0 + kk][col0 + cc]
  // Reads the 4-float chunk (r, c .. c + 3) of a rows x cols row-major matrix, zeros outside.
  const auto chunk = [](const float* p, int rows, int cols, int r, int col) {
    if (kVec && r < rows && col + 3 < cols) {
      return *reinterpret_cast<const float4*>(p + static_cast<std::size_t>(r) * cols + col);
    }
    float v[4];
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      v[q] = r < rows && col + q < cols ? p[static_cast<std::size_t>(r) * cols + col + q] : 0.0f;
    }
    return make_float4(v[0], v[1], v[2], v[3]);
  };
  const int a_r = tid / (kBlockK / 4), a_c = (tid % (kBlockK / 4)) * 4;
  const int b_r = tid / (kBlockN / 4), b_c = (tid % (kBlockN / 4)) * 4;
  float acc[kThreadM][kThreadN] = {};
  for (int k0 = 0; k0 < k; k0 += kBlockK) {
    const float4 va = chunk(a, m, k, row0 + a_r, k0 + a_c);
    as[a_c][a_r] = va.x;
    as[a_c + 1][a_r] = va.y;
    as[a_c + 2][a_r] = va.z;
    as[a_c + 3][a_r] = va.w;
    *reinterpret_cast<float4*>(&bs[b_r][b_c]) = chunk(b, k, n, k0 + b_r, col0 + b_c);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kBlockK; ++kk) {
      float ra[kThreadM], rb[kThreadN];
#pragma unroll
      for (int h = 0; h < kThreadM / 4; ++h) {
        const float4 v = *reinterpret_cast<const float4*>(&as[kk][tr * kThreadM + 4 * h]);
        ra[4 * h] = v.x;
        ra[4 * h + 1] = v.y;
        ra[4 * h + 2] = v.z;
        ra[4 * h + 3] = v.w;
      }
#pragma unroll
      for (int h = 0; h < kThreadN / 4; ++h) {
        const float4 v = *reinterpret_cast<const float4*>(&bs[kk][tc * kThreadN + 4 * h]);
        rb[4 * h] = v.x;
        rb[4 * h + 1] = v.y;
        rb[4 * h + 2] = v.z;
        rb[4 * h + 3] = v.w;
      }
#pragma unroll
      for (int i = 0; i < kThreadM; ++i) {
#pragma unroll
        for (int j = 0; j < kThreadN; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kThreadM; ++i) {
    const int r = row0 + tr * kThreadM + i;
    if (r >= m) continue;
    float* const c_row = c + static_cast<std::size_t>(r) * n;
#pragma unroll
    for (int h = 0; h < kThreadN / 4; ++h) {
      const int col = col0 + tc * kThreadN + 4 * h;
      if (kVec && col + 3 < n) {
        *reinterpret_cast<float4*>(c_row + col) =
            make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          if (col + q < n) c_row[col + q] = acc[i][4 * h + q];
        }
      }
    }
  }
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
  if (k % 4 == 0 && n % 4 == 0 && aligned16(d_a) && aligned16(d_b) && aligned16(d_c)) {
    sgemm_vectorized_kernel<true><<<grid, kBlockThreads, 0, stream>>>(d_a, d_b, d_c, m, n, k);
  } else {
    sgemm_vectorized_kernel<false><<<grid, kBlockThreads, 0, stream>>>(d_a, d_b, d_c, m, n, k);
  }
  // END TODO(lab13)
  CUDA_CHECK_LAST_LAUNCH();
}

cudalab::KernelInfo vectorized_kernel(bool vector_path) {
  const void* f = vector_path ? reinterpret_cast<const void*>(sgemm_vectorized_kernel<true>)
                              : reinterpret_cast<const void*>(sgemm_vectorized_kernel<false>);
  return {f, "sgemm_vectorized_kernel", dim3(kBlockThreads), 0};
}

}  // namespace lab13
