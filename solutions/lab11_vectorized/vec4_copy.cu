// SPDX-License-Identifier: BSD-3-Clause
// Lab 11, the float4 copy of a pitched matrix: per row a scalar head up to the first 16-byte
// boundary, a body of float4 (one 16-byte load and store per thread and step: a quarter of
// the instructions of a scalar copy for the same bytes), and a scalar tail. The launcher asks
// the alignment predicate once and hands the kernel the head every row has.
#include <cstdint>

#include "cudalab/check.cuh"
#include "vectorized.cuh"

namespace lab11 {

namespace {

/**
 * Copies rows x width floats; every row has @p head scalar floats before its float4 body
 * (head == width: the rows cannot be vectorized, everything is scalar). Thread x of the grid's
 * x extent takes float4 x, x + stride, ... of a row; rows go to blockIdx.y, + gridDim.y, ...
 */
__global__ void vec4_copy_kernel(const float* __restrict__ src, std::size_t src_pitch,
                                 float* __restrict__ dst, std::size_t dst_pitch, int width,
                                 int rows, int head) {
  // TODO(lab11): copy every row: head scalars, then (width - head) / 4 float4, then the tail
  // scalars (roughly 15 lines).
  // HINT: row r starts at byte r * pitch of the base: cast to char*, offset with size_t
  // HINT: (rows * pitch passes 2^31 bytes), cast back. s + head is 16-byte aligned when head
  // HINT: came from the predicate: reinterpret_cast<const float4*>(s + head)[v]. Let the
  // HINT: first threads of the row also take the head and tail floats; stride over rows and
  // HINT: over float4 with the grid's extents (any grid must work).
  const int body = (width - head) / kVecFloats;  // float4 per row
  const int tail = head + kVecFloats * body;     // first float of the scalar tail
  const int first = blockIdx.x * blockDim.x + threadIdx.x;
  const int stride = gridDim.x * blockDim.x;
  for (int row = blockIdx.y; row < rows; row += gridDim.y) {
    const float* s = reinterpret_cast<const float*>(reinterpret_cast<const char*>(src) +
                                                    static_cast<std::size_t>(row) * src_pitch);
    float* d = reinterpret_cast<float*>(reinterpret_cast<char*>(dst) +
                                        static_cast<std::size_t>(row) * dst_pitch);
    const float4* s4 = reinterpret_cast<const float4*>(s + head);  // 16-byte aligned
    float4* d4 = reinterpret_cast<float4*>(d + head);
    for (int v = first; v < body; v += stride) d4[v] = s4[v];
    for (int i = first; i < head; i += stride) d[i] = s[i];  // the whole row when head == width
    for (int i = tail + first; i < width; i += stride) d[i] = s[i];
  }
  // END TODO(lab11)
}

}  // namespace

void vec4_copy(const float* d_src, std::size_t src_pitch, float* d_dst, std::size_t dst_pitch,
               int width, int rows, CopyLaunch launch, cudaStream_t stream) {
  const auto src = reinterpret_cast<std::uintptr_t>(d_src);
  const auto dst = reinterpret_cast<std::uintptr_t>(d_dst);
  const bool vectorize = can_vectorize(src, src_pitch, dst, dst_pitch);
  const int head = vectorize ? head_floats(src, width) : width;
  const int units = vectorize ? (width - head + kVecFloats - 1) / kVecFloats : width;
  const dim3 grid = copy_grid(d_src, src_pitch, d_dst, dst_pitch, width, rows,
                              units > 0 ? units : 1, launch, "vec4_copy");
  vec4_copy_kernel<<<grid, launch.block, 0, stream>>>(d_src, src_pitch, d_dst, dst_pitch, width,
                                                      rows, head);
  CUDA_CHECK_LAST_LAUNCH();
}

cudalab::KernelInfo vec4_copy_kernel() {
  // The private kernel of the same name (the typed pointer picks it); block and grid come from
  // each call's CopyLaunch.
  void (*kernel)(const float*, std::size_t, float*, std::size_t, int, int, int) = vec4_copy_kernel;
  return {reinterpret_cast<const void*>(kernel), "vec4_copy_kernel"};
}

}  // namespace lab11
