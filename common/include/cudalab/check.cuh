// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file check.cuh
 * @brief Error checks for CUDA runtime calls and kernel launches.
 *
 * Every CUDA runtime call in cudalabs goes through CUDA_CHECK(). A failing call throws
 * cudalab::CudaError, whose message names the file and line, the error's name and text
 * and the call itself. In a GoogleTest test the exception fails the test with that
 * message; in a demo program cudalab::run_demo() prints it and exits non-zero.
 */
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace cudalab {

/// A failed CUDA runtime call: carries the error code and a full description.
class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  /// The CUDA error code that the call returned.
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

/**
 * @brief Formats "file:line: CUDA error cudaErrorX (text) in `call`".
 * @param code  the error returned by the call
 * @param call  the text of the call, as written in the source
 * @param file  source file of the call
 * @param line  source line of the call
 */
std::string format_cuda_error(cudaError_t code, const char* call, const char* file, int line);

/// format_cuda_error() for a stream capture of a launcher that ended with @p code: names the
/// likely cause (a synchronizing call, an allocation, a synchronous copy, unjoined work).
std::string capture_failure(cudaError_t code, const char* file, int line);

/// Throws CudaError for @p code (never returns). Used by CUDA_CHECK().
[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line);

/// Uses its arguments and does nothing: the placeholder body of a stub's TODO region, so that
/// the unwritten code compiles without unused-variable warnings.
template <typename... Ts>
__host__ __device__ constexpr void unused(const Ts&... /*values*/) {}

}  // namespace cudalab

/**
 * @brief Runs a CUDA runtime call and throws cudalab::CudaError if it fails.
 *
 * Example: `CUDA_CHECK(cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice));`
 */
#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    const cudaError_t cudalab_err_ = (call);                                \
    if (cudalab_err_ != cudaSuccess) {                                      \
      ::cudalab::throw_cuda_error(cudalab_err_, #call, __FILE__, __LINE__); \
    }                                                                       \
  } while (0)

/**
 * @brief Checks the most recent kernel launch (bad configuration, too many resources).
 *
 * Place it right after `kernel<<<grid, block, smem, stream>>>(...)`. It does not wait
 * for the kernel: errors raised while the kernel runs surface at the next synchronising
 * call, which CUDA_CHECK() reports.
 */
#define CUDA_CHECK_LAST_LAUNCH()                                                      \
  do {                                                                                \
    const cudaError_t cudalab_err_ = cudaGetLastError();                              \
    if (cudalab_err_ != cudaSuccess) {                                                \
      ::cudalab::throw_cuda_error(cudalab_err_, "kernel launch", __FILE__, __LINE__); \
    }                                                                                 \
  } while (0)
