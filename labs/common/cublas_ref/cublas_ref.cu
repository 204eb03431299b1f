// SPDX-License-Identifier: BSD-3-Clause
// The cuBLAS baselines of labs 09, 13 and 14 (given; see cublas_ref.cuh).
#include "cublas_ref.cuh"

#include <stdexcept>
#include <string>

#include "cudalab/launch_checks.hpp"

namespace cublas_ref {

void check_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": cuBLAS error " +
                           cublasGetStatusName(status) + " (" + cublasGetStatusString(status) +
                           ") in `" + call + "`");
}

CublasHandle::CublasHandle() {
  CUBLAS_CHECK(cublasCreate(&handle_));
}

CublasHandle::~CublasHandle() {
  if (handle_ != nullptr) cublasDestroy(handle_);  // never throw from a destructor
}

void cublas_sgemm(const CublasHandle& handle, const float* d_a, const float* d_b, float* d_c, int m,
                  int n, int k, cudaStream_t stream) {
  cudalab::check_positive_dims("cublas_sgemm", m, n, k);
  const float one = 1.0f;
  const float zero = 0.0f;
  CUBLAS_CHECK(cublasSetStream(handle.get(), stream));
  CUBLAS_CHECK(cublasSgemm(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, d_b, n, d_a, k,
                           &zero, d_c, n));
}

void cublas_tf32(const CublasHandle& handle, const float* d_a, const float* d_b, float* d_c, int m,
                 int n, int k, cudaStream_t stream) {
  cudalab::check_positive_dims("cublas_tf32", m, n, k);
  const float one = 1.0f;
  const float zero = 0.0f;
  CUBLAS_CHECK(cublasSetStream(handle.get(), stream));
  CUBLAS_CHECK(cublasGemmEx(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, d_b, CUDA_R_32F,
                            n, d_a, CUDA_R_32F, k, &zero, d_c, CUDA_R_32F, n,
                            CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
}

void cublas_int8(const CublasHandle& handle, const std::int8_t* d_a, const std::int8_t* d_b_cols,
                 std::int32_t* d_c, int m, int n, int k, cudaStream_t stream) {
  cudalab::check_positive_dims("cublas_int8", m, n, k);
  if (k % 4 != 0) throw std::invalid_argument("cublas_int8: k must be a multiple of 4");
  // Column-major C^T (N x M) = X^T * Y with X = B's columns (column-major K x N, ld K) and
  // Y = A^T (row-major M x K is column-major K x M, ld K): the TN layout.
  const std::int32_t one = 1;
  const std::int32_t zero = 0;
  CUBLAS_CHECK(cublasSetStream(handle.get(), stream));
  CUBLAS_CHECK(cublasGemmEx(handle.get(), CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &one, d_b_cols,
                            CUDA_R_8I, k, d_a, CUDA_R_8I, k, &zero, d_c, CUDA_R_32I, n,
                            CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT));
}

}  // namespace cublas_ref
