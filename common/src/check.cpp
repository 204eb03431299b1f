// SPDX-License-Identifier: BSD-3-Clause
#include "cudalab/check.cuh"

#include <sstream>

namespace cudalab {

std::string format_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  std::ostringstream os;
  os << file << ':' << line << ": CUDA error " << cudaGetErrorName(code) << " ("
     << cudaGetErrorString(code) << ") in `" << call << '`';
  return os.str();
}

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  throw CudaError(code, format_cuda_error(code, call, file, line));
}

}  // namespace cudalab
