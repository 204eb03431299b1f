// SPDX-License-Identifier: BSD-3-Clause
// Lab 11 runs in its own process (cudalab/remote.hpp): each function of vectorized.cuh that
// the grader calls crosses as data, and the launchers' kernels are replayed by the grader from
// its own load of the lab's device code. In the grader these lines are proxies; in the
// candidate, the table its server answers from. A .cu file: the header holds the given tile
// kernels.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "cudalab/remote.hpp"
#include "vectorized.cuh"

CUDALAB_REMOTE(lab11::head_floats, (std::uintptr_t row_address, int width), (row_address, width),
               int)
CUDALAB_REMOTE(lab11::can_vectorize,
               (std::uintptr_t src, std::size_t src_pitch, std::uintptr_t dst,
                std::size_t dst_pitch),
               (src, src_pitch, dst, dst_pitch), bool)
CUDALAB_REMOTE(lab11::vec4_copy,
               (const float* d_src, std::size_t src_pitch, float* d_dst, std::size_t dst_pitch,
                int width, int rows, lab11::CopyLaunch launch, cudaStream_t stream),
               (d_src, src_pitch, d_dst, dst_pitch, width, rows, launch, stream), void)
CUDALAB_REMOTE(lab11::vec4_copy_kernel, (), (), cudalab::KernelInfo)

#if CUDALAB_REMOTE_JUDGE
namespace lab11 {
namespace {
template <typename Layout>
const char* layout_name();
template <>
const char* layout_name<InterleavedVec4>() {
  return "lab11::InterleavedVec4";
}
template <>
const char* layout_name<PlainVec4>() {
  return "lab11::PlainVec4";
}
template <>
const char* layout_name<MirroredVec4>() {
  return "lab11::MirroredVec4";
}
template <>
const char* layout_name<ProbeVec4>() {
  return "lab11::ProbeVec4";
}
}  // namespace

template <typename Vec4Layout>
void vec4_tile_transpose(const float* d_in, std::size_t in_pitch, float* d_out,
                         std::size_t out_pitch, int rows, int cols, cudaStream_t stream) {
  static const std::string name =
      std::string("lab11::vec4_tile_transpose<") + layout_name<Vec4Layout>() + ">";
  ::cudalab::remote::call<&vec4_tile_transpose<Vec4Layout>>(name.c_str())(
      d_in, in_pitch, d_out, out_pitch, rows, cols, stream);
}
template <typename Vec4Layout>
cudalab::KernelInfo vec4_tile_transpose_kernel() {
  static const std::string name =
      std::string("lab11::vec4_tile_transpose_kernel<") + layout_name<Vec4Layout>() + ">";
  return ::cudalab::remote::call<&vec4_tile_transpose_kernel<Vec4Layout>>(name.c_str())();
}
#define LAB11_INSTANCES(Layout)                                                                  \
  template void vec4_tile_transpose<Layout>(const float*, std::size_t, float*, std::size_t, int, \
                                            int, cudaStream_t);                                  \
  template cudalab::KernelInfo vec4_tile_transpose_kernel<Layout>();
LAB11_INSTANCES(InterleavedVec4)
LAB11_INSTANCES(PlainVec4)
LAB11_INSTANCES(MirroredVec4)
LAB11_INSTANCES(ProbeVec4)
}  // namespace lab11
#else
#define LAB11_VEC4(Layout)                                                                      \
  CUDALAB_REMOTE(lab11::vec4_tile_transpose<lab11::Layout>,                                     \
                 (const float* d_in, std::size_t in_pitch, float* d_out, std::size_t out_pitch, \
                  int rows, int cols, cudaStream_t stream),                                     \
                 (d_in, in_pitch, d_out, out_pitch, rows, cols, stream), void)                  \
  CUDALAB_REMOTE(lab11::vec4_tile_transpose_kernel<lab11::Layout>, (), (), cudalab::KernelInfo)
LAB11_VEC4(InterleavedVec4)
LAB11_VEC4(PlainVec4)
LAB11_VEC4(MirroredVec4)
LAB11_VEC4(ProbeVec4)
#endif
