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

std::string capture_failure(cudaError_t code, const char* file, int line) {
  return format_cuda_error(code,
                           "capture of the launcher: it made a call that cannot be part of its "
                           "stream's work (a synchronizing call such as cudaDeviceSynchronize, an "
                           "allocation, a synchronous copy, or work forked onto another stream "
                           "and never joined back)",
                           file, line);
}

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  throw CudaError(code, format_cuda_error(code, call, file, line));
}

}  // namespace cudalab
