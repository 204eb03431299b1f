// SPDX-License-Identifier: BSD-3-Clause
// LDS.128 wavefront probe: one warp issues 64 16-byte shared loads (ld.shared.v4.f32) in each
// of seven lane patterns; Nsight Compute counts the shared-memory wavefronts per load. The
// table of docs/reference-run.md ("16-byte shared loads") and the handouts that quote it
// (labs 11 and 13) come from this probe. Instructor tool, not part of the build:
//   nvcc -arch=sm_90 -o build/lds128_probe tools/lds128_probe.cu
//   ncu --kernel-name regex:lds128_kernel --metrics
//     l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__sass_inst_executed_op_shared_ld.sum
//     build/lds128_probe
// Wavefronts per load = the first metric / the second (64 loads per launch).
#include <cstdio>

namespace {

constexpr int kLoads = 64;
constexpr int kSlots = 256;  // float4 slots of the shared array (4 KB)

// The float4 index lane l reads, by pattern: 0, l / 8, l / 4, l / 2, l % 4, l % 8, l.
__device__ __forceinline__ int slot_of(int pattern, int lane) {
  switch (pattern) {
    case 0:
      return 0;
    case 1:
      return lane / 8;
    case 2:
      return lane / 4;
    case 3:
      return lane / 2;
    case 4:
      return lane % 4;
    case 5:
      return lane % 8;
    default:
      return lane;
  }
}

template <int kPattern>
__global__ void lds128_kernel(float* out) {
  __shared__ __align__(16) float s[kSlots * 4];
  const int lane = static_cast<int>(threadIdx.x);
  for (int i = lane; i < kSlots * 4; i += 32) s[i] = static_cast<float>(i);
  __syncthreads();
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(s));
  float sum = 0.0f;
#pragma unroll 1
  for (int it = 0; it < kLoads; ++it) {
    const int slot = (it % 8) * 32 + slot_of(kPattern, lane);
    float x, y, z, w;
    asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];\n"
                 : "=f"(x), "=f"(y), "=f"(z), "=f"(w)
                 : "r"(base + 16u * static_cast<unsigned>(slot)));
    sum += x + y + z + w;
  }
  out[lane] = sum;
}

}  // namespace

int main() {
  float* out = nullptr;
  if (cudaMalloc(&out, 32 * sizeof(float)) != cudaSuccess) {
    std::printf("lds128_probe: no GPU\n");
    return 77;
  }
  lds128_kernel<0><<<1, 32>>>(out);
  lds128_kernel<1><<<1, 32>>>(out);
  lds128_kernel<2><<<1, 32>>>(out);
  lds128_kernel<3><<<1, 32>>>(out);
  lds128_kernel<4><<<1, 32>>>(out);
  lds128_kernel<5><<<1, 32>>>(out);
  lds128_kernel<6><<<1, 32>>>(out);
  const cudaError_t err = cudaDeviceSynchronize();
  std::printf("lds128_probe: patterns 0, l/8, l/4, l/2, l%%4, l%%8, l: %s\n",
              cudaGetErrorString(err));
  cudaFree(out);
  return err == cudaSuccess ? 0 : 1;
}
