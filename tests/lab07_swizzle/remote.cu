// SPDX-License-Identifier: BSD-3-Clause
// Lab 07 runs in its own process (cudalab/remote.hpp): each function of swizzle.cuh that the
// grader calls crosses as data (the swizzle maps too, on the host), and the launchers' kernels
// are replayed by the grader from its own load of the lab's device code. In the grader these
// lines are proxies; in the candidate, the table its server answers from. A .cu file: the
// header holds the given tile kernels.
#include <cuda_runtime.h>

#include <string>

#include "cudalab/remote.hpp"
#include "swizzle.cuh"

CUDALAB_REMOTE(lab07::swizzled_transpose,
               (const float* d_in, float* d_out, int rows, int cols, int block_rows,
                cudaStream_t stream),
               (d_in, d_out, rows, cols, block_rows, stream), void)
CUDALAB_REMOTE(lab07::swizzled_matmul,
               (const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                cudaStream_t stream),
               (d_a, d_b, d_c, m, n, k, stream), void)
CUDALAB_REMOTE(lab07::swizzled_transpose_kernel, (), (), cudalab::KernelInfo)
CUDALAB_REMOTE(lab07::swizzled_matmul_kernel, (), (), cudalab::KernelInfo)

#if CUDALAB_REMOTE_JUDGE
// The maps are declared __host__ __device__: the grader calls them on the host only (their
// device copies are never called here; the lab's device code is not linked into the grader).
#ifdef __CUDA_ARCH__
#define LAB07_HOST_ONLY(call) return -1
#else
#define LAB07_HOST_ONLY(call) return call
#endif
__host__ __device__ int lab07::swizzled_col(int row, int col) {
  LAB07_HOST_ONLY(::cudalab::remote::call<&lab07::swizzled_col>("lab07::swizzled_col")(row, col));
}
__host__ __device__ int lab07::swizzled_offset(int row, int col) {
  LAB07_HOST_ONLY(
      ::cudalab::remote::call<&lab07::swizzled_offset>("lab07::swizzled_offset")(row, col));
}
__host__ __device__ int lab07::vec4_slot(int row, int vec) {
  LAB07_HOST_ONLY(::cudalab::remote::call<&lab07::vec4_slot>("lab07::vec4_slot")(row, vec));
}

namespace lab07 {
namespace {
template <typename Layout>
const char* layout_name();
template <>
const char* layout_name<InterleavedVec4>() {
  return "lab07::InterleavedVec4";
}
template <>
const char* layout_name<PlainVec4>() {
  return "lab07::PlainVec4";
}
template <>
const char* layout_name<MirroredVec4>() {
  return "lab07::MirroredVec4";
}
template <>
const char* layout_name<ProbeVec4>() {
  return "lab07::ProbeVec4";
}
}  // namespace

template <typename Vec4Layout>
void vec4_transpose(const float* d_in, float* d_out, int rows, int cols, cudaStream_t stream) {
  static const std::string name =
      std::string("lab07::vec4_transpose<") + layout_name<Vec4Layout>() + ">";
  ::cudalab::remote::call<&vec4_transpose<Vec4Layout>>(name.c_str())(d_in, d_out, rows, cols,
                                                                     stream);
}
template <typename Vec4Layout>
cudalab::KernelInfo vec4_kernel() {
  static const std::string name =
      std::string("lab07::vec4_kernel<") + layout_name<Vec4Layout>() + ">";
  return ::cudalab::remote::call<&vec4_kernel<Vec4Layout>>(name.c_str())();
}
template void vec4_transpose<InterleavedVec4>(const float*, float*, int, int, cudaStream_t);
template void vec4_transpose<PlainVec4>(const float*, float*, int, int, cudaStream_t);
template void vec4_transpose<MirroredVec4>(const float*, float*, int, int, cudaStream_t);
template void vec4_transpose<ProbeVec4>(const float*, float*, int, int, cudaStream_t);
template cudalab::KernelInfo vec4_kernel<InterleavedVec4>();
template cudalab::KernelInfo vec4_kernel<PlainVec4>();
template cudalab::KernelInfo vec4_kernel<MirroredVec4>();
template cudalab::KernelInfo vec4_kernel<ProbeVec4>();
}  // namespace lab07
#else
CUDALAB_REMOTE(lab07::swizzled_col, (int row, int col), (row, col), int)
CUDALAB_REMOTE(lab07::swizzled_offset, (int row, int col), (row, col), int)
CUDALAB_REMOTE(lab07::vec4_slot, (int row, int vec), (row, vec), int)
#define LAB07_VEC4(Layout)                                                                   \
  CUDALAB_REMOTE(lab07::vec4_transpose<lab07::Layout>,                                       \
                 (const float* d_in, float* d_out, int rows, int cols, cudaStream_t stream), \
                 (d_in, d_out, rows, cols, stream), void)                                    \
  CUDALAB_REMOTE(lab07::vec4_kernel<lab07::Layout>, (), (), cudalab::KernelInfo)
LAB07_VEC4(InterleavedVec4)
LAB07_VEC4(PlainVec4)
LAB07_VEC4(MirroredVec4)
LAB07_VEC4(ProbeVec4)
#endif
