// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file cublas_ref.cuh
 * @brief The cuBLAS baselines of labs 09, 13 and 14 (given): row-major C = A * B on a stream.
 *
 * cuBLAS is column-major. A row-major M x N matrix is the column-major N x M transpose, so the
 * row-major C = A * B is computed as the column-major C^T = B^T * A^T: B is passed first and
 * M and N swap places. Every function checks its sizes and enqueues on @p stream only.
 */
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace cublas_ref {

/// Throws std::runtime_error "file:line: cuBLAS error NAME (text) in `call`" unless @p status
/// is CUBLAS_STATUS_SUCCESS.
void check_cublas(cublasStatus_t status, const char* call, const char* file, int line);

/// Runs a cuBLAS call and throws std::runtime_error naming the status when it fails.
#define CUBLAS_CHECK(call) ::cublas_ref::check_cublas((call), #call, __FILE__, __LINE__)

/// Owns a cuBLAS handle (created in the constructor, destroyed in the destructor).
class CublasHandle {
 public:
  /// @throws std::runtime_error when cublasCreate() fails
  CublasHandle();
  ~CublasHandle();
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  /// The raw handle, for cuBLAS calls.
  cublasHandle_t get() const noexcept { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

/**
 * @brief Row-major float C = A * B (A: M x K, B: K x N) with cublasSgemm on @p stream: FP32 on
 * the CUDA cores (the handle's math mode stays CUBLAS_DEFAULT_MATH, no TF32).
 * @throws std::invalid_argument unless m, n, k > 0; std::runtime_error naming a failed call
 */
void cublas_sgemm(const CublasHandle& handle, const float* d_a, const float* d_b, float* d_c, int m,
                  int n, int k, cudaStream_t stream = nullptr);

/// As cublas_sgemm(), through cublasGemmEx with CUBLAS_COMPUTE_32F_FAST_TF32 (tensor cores; ±1
/// data and their sums are exact with TF32 inputs and FP32 accumulation for K < 2^24).
void cublas_tf32(const CublasHandle& handle, const float* d_a, const float* d_b, float* d_c, int m,
                 int n, int k, cudaStream_t stream = nullptr);

/**
 * @brief Row-major int32 C = A * B from int8 data through cublasGemmEx (CUDA_R_8I inputs,
 * CUBLAS_COMPUTE_32I): A row-major M x K, B stored by columns (N x K, column j's K values
 * contiguous), the "TN" layout of the int8 tensor-core kernels.
 * @throws std::invalid_argument unless m, n, k > 0 and k % 4 == 0
 */
void cublas_int8(const CublasHandle& handle, const std::int8_t* d_a, const std::int8_t* d_b_cols,
                 std::int32_t* d_c, int m, int n, int k, cudaStream_t stream = nullptr);

}  // namespace cublas_ref
