// The cuBLAS baselines of the labs (given; see cublas_ref.cuh).
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

}  // namespace cublas_ref
