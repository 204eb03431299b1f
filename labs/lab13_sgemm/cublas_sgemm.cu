// Lab 13 (given): the baseline — cuBLAS SGEMM (FP32, default math mode: no TF32).
#include <stdexcept>
#include <string>

#include "sgemm.cuh"

namespace lab13 {

namespace {

/// Throws std::runtime_error "file:line: cuBLAS error NAME (text) in `call`".
void check_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": cuBLAS error " +
                           cublasGetStatusName(status) + " (" + cublasGetStatusString(status) +
                           ") in `" + call + "`");
}

}  // namespace

/// Runs a cuBLAS call and throws std::runtime_error naming the status when it fails.
#define CUBLAS_CHECK(call) check_cublas((call), #call, __FILE__, __LINE__)

CublasHandle::CublasHandle() {
  CUBLAS_CHECK(cublasCreate(&handle_));
}

CublasHandle::~CublasHandle() {
  if (handle_ != nullptr) cublasDestroy(handle_);  // never throw from a destructor
}

void cublas_sgemm(const CublasHandle& handle, const float* d_a, const float* d_b, float* d_c, int m,
                  int n, int k, cudaStream_t stream) {
  if (m <= 0 || n <= 0 || k <= 0) {
    throw std::invalid_argument("cublas_sgemm: m, n and k must be positive");
  }
  // cuBLAS is column-major. A row-major M x N matrix is its column-major transpose, so the
  // row-major C = A * B is the column-major C^T = B^T * A^T: pass B first, swap M and N.
  const float one = 1.0f;
  const float zero = 0.0f;
  CUBLAS_CHECK(cublasSetStream(handle.get(), stream));
  CUBLAS_CHECK(cublasSgemm(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, d_b, n, d_a, k,
                           &zero, d_c, n));
}

}  // namespace lab13
