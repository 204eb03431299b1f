// SPDX-License-Identifier: BSD-3-Clause
#include "cudalab/check.cuh"
#include "cudalab/timer.cuh"

namespace cudalab {

GpuTimer::GpuTimer() {
  CUDA_CHECK(cudaEventCreate(&start_));
  CUDA_CHECK(cudaEventCreate(&stop_));
}

GpuTimer::~GpuTimer() {
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}

void GpuTimer::start(cudaStream_t stream) {
  CUDA_CHECK(cudaEventRecord(start_, stream));
}

void GpuTimer::stop(cudaStream_t stream) {
  CUDA_CHECK(cudaEventRecord(stop_, stream));
}

float GpuTimer::elapsed_ms() {
  CUDA_CHECK(cudaEventSynchronize(stop_));
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
  return ms;
}

}  // namespace cudalab
