// SPDX-License-Identifier: BSD-3-Clause
// Lab 03: pitched indexing (row start = base + row * pitch BYTES) and the thread-per-element
// matmul over pitched A, B and C. The index helper lives in this file so that the kernel
// can call (and inline) it: without relocatable device code, a kernel only sees device
// functions of its own translation unit.
#include <cstddef>
#include <stdexcept>
#include <string>

#include "cudalab/check.cuh"
#include "pitch.cuh"

namespace lab03 {

__host__ __device__ const float* pitched_row(const float* base, std::size_t pitch_bytes, int row) {
  // TODO(lab03): return the address of the first float of row `row`: `row * pitch_bytes`
  // BYTES after `base` (roughly 2 lines).
  // HINT: pointer arithmetic on a float* counts floats, not bytes: through which pointer
  // type does adding an offset step one byte at a time?
  // HINT: how large can row * pitch_bytes get (the grader goes past 4 GiB), and which type
  // holds it?
  const std::size_t offset = static_cast<std::size_t>(row) * pitch_bytes;  // bytes, not floats
  return reinterpret_cast<const float*>(reinterpret_cast<const char*>(base) + offset);
  // END TODO(lab03)
}

namespace {

// C = A * B over pitched matrices, one thread per element of C; x walks the columns of C
// (coalesced, as in lab 02), y the rows; threads outside C do nothing.
__global__ void pitched_matmul_kernel(const float* __restrict__ a, std::size_t pitch_a,
                                      const float* __restrict__ b, std::size_t pitch_b,
                                      float* __restrict__ c, std::size_t pitch_c, int m, int n,
                                      int k) {
  // TODO(lab03): as lab 02's thread-per-element kernel (x walks the columns, y the rows,
  // threads outside C return), but reach every row of A, B and C through pitched_row(),
  // each matrix with its own pitch.
  // (roughly 9 lines)
  // HINT: which row pointer stays the same for every p? Take it once, before the loop.
  const int col = blockIdx.x * blockDim.x + threadIdx.x;  // x walks the columns of C and B
  const int row = blockIdx.y * blockDim.y + threadIdx.y;  // y walks the rows of C and A
  if (row >= m || col >= n) return;
  const float* a_row = pitched_row(a, pitch_a, row);  // A(row, 0), row * pitch_a bytes in
  float sum = 0.0f;
  for (int p = 0; p < k; ++p) {
    sum += a_row[p] * pitched_row(b, pitch_b, p)[col];  // B(p, col), p * pitch_b bytes in
  }
  pitched_row(c, pitch_c, row)[col] = sum;  // C(row, col); the padding is never touched
  // END TODO(lab03)
}

}  // namespace

void pitched_matmul(const float* d_a, std::size_t pitch_a, const float* d_b, std::size_t pitch_b,
                    float* d_c, std::size_t pitch_c, int m, int n, int k, dim3 block,
                    cudaStream_t stream) {
  detail::check_matmul_args("pitched_matmul", d_a, pitch_a, d_b, pitch_b, d_c, pitch_c, m, n, k,
                            block);
  const dim3 grid = detail::grid_for(m, n, block);  // x: N columns, y: M rows
  // TODO(lab03): launch pitched_matmul_kernel on `stream` with `grid` and `block`, passing
  // each matrix with its own pitch, then check the launch (roughly 3 lines).
  // HINT: as in labs 01 and 02: the stream is the launch's fourth argument.
  pitched_matmul_kernel<<<grid, block, 0, stream>>>(d_a, pitch_a, d_b, pitch_b, d_c, pitch_c, m, n,
                                                    k);
  CUDA_CHECK_LAST_LAUNCH();
  // END TODO(lab03)
}

void pitched_matmul(const PitchedMatrix& a, const PitchedMatrix& b, PitchedMatrix& c, dim3 block,
                    cudaStream_t stream) {
  if (a.cols() != b.rows() || c.rows() != a.rows() || c.cols() != b.cols()) {
    throw std::invalid_argument("pitched_matmul: shapes do not match: C(" +
                                std::to_string(c.rows()) + "x" + std::to_string(c.cols()) +
                                ") = A(" + std::to_string(a.rows()) + "x" +
                                std::to_string(a.cols()) + ") * B(" + std::to_string(b.rows()) +
                                "x" + std::to_string(b.cols()) + ")");
  }
  pitched_matmul(a.data(), a.pitch_bytes(), b.data(), b.pitch_bytes(), c.data(), c.pitch_bytes(),
                 a.rows(), b.cols(), a.cols(), block, stream);
}

cudalab::KernelInfo pitched_matmul_kernel() {
  // The private kernel of the same name (the typed pointer picks it); its block is the
  // caller's.
  void (*kernel)(const float*, std::size_t, const float*, std::size_t, float*, std::size_t, int,
                 int, int) = pitched_matmul_kernel;
  return {reinterpret_cast<const void*>(kernel), "pitched_matmul_kernel", dim3(0, 0, 0), 0};
}

}  // namespace lab03
