// SPDX-License-Identifier: BSD-3-Clause
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>

#include "cudalab/check.cuh"
#include "cudalab/device.cuh"

namespace cudalab {

int device_count() noexcept {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the error so later calls start clean
    return 0;
  }
  return n;
}

namespace {

// Parses "id:3,slots:1" (CTest's format) and returns the id, or -1.
int parse_ctest_gpu(const char* value) {
  if (value == nullptr) return -1;
  const char* id = std::strstr(value, "id:");
  if (id == nullptr) return -1;
  char* end = nullptr;
  const long v = std::strtol(id + 3, &end, 10);
  return end == id + 3 || v < 0 ? -1 : static_cast<int>(v);
}

// Formats a CUDA version number (12080) as "12.8".
std::string cuda_version(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

// Why cudaGetDeviceCount() failed with @p err, in words a student can act on. Without a
// driver library the runtime reports cudaErrorInsufficientDriver, the same error as for a
// driver that is too old; cudaDriverGetVersion() tells the two apart (it reports 0 when
// no driver can be loaded).
std::string no_gpu_reason(cudaError_t err) {
  int driver = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess) {
    cudaGetLastError();
    driver = 0;
  }
  int runtime = 0;
  if (cudaRuntimeGetVersion(&runtime) != cudaSuccess) {
    cudaGetLastError();
    runtime = 0;
  }
  if (err == cudaErrorStubLibrary) {
    return "no NVIDIA driver found (only the CUDA toolkit's stub libcuda.so was loaded)";
  }
  if (driver == 0) {
    return "no NVIDIA driver found (libcuda.so.1 cannot be loaded; nvidia-smi shows whether a "
           "driver is installed)";
  }
  if (err == cudaErrorInsufficientDriver) {
    return "the NVIDIA driver supports CUDA " + cuda_version(driver) +
           ", older than this build's CUDA runtime " + cuda_version(runtime) +
           ": update the driver (cudaErrorInsufficientDriver)";
  }
  if (err == cudaErrorNoDevice) return "no CUDA GPU visible (cudaErrorNoDevice)";
  return std::string("no usable CUDA GPU: ") + cudaGetErrorName(err) + " (" +
         cudaGetErrorString(err) + ")";
}

}  // namespace

int preferred_device() {
  if (const char* groups = std::getenv("CTEST_RESOURCE_GROUP_COUNT"); groups && *groups) {
    const int id = parse_ctest_gpu(std::getenv("CTEST_RESOURCE_GROUP_0_GPUS"));
    if (id >= 0) return id;
  }
  if (const char* dev = std::getenv("CUDALAB_DEVICE"); dev && *dev) {
    char* end = nullptr;
    const long v = std::strtol(dev, &end, 10);
    if (end != dev && *end == '\0' && v >= 0) return static_cast<int>(v);
  }
  return 0;
}

std::string gpu_unavailable_reason(int min_major, int min_minor) {
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return no_gpu_reason(err);
  }
  if (n == 0) return "no CUDA GPU visible";
  const int dev = preferred_device();
  if (dev >= n) {
    return "assigned GPU " + std::to_string(dev) + " does not exist (" + std::to_string(n) +
           " visible)";
  }
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
    cudaGetLastError();
    return "cannot query GPU " + std::to_string(dev);
  }
  if (prop.major < min_major || (prop.major == min_major && prop.minor < min_minor)) {
    return std::string(prop.name) + " has compute capability " + std::to_string(prop.major) + "." +
           std::to_string(prop.minor) + ", this test needs " + std::to_string(min_major) + "." +
           std::to_string(min_minor);
  }
  if (cudaSetDevice(dev) != cudaSuccess) {
    cudaGetLastError();
    return "cannot select GPU " + std::to_string(dev);
  }
  return "";
}

DeviceInfo query_device(int device) {
  if (device < 0) CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp p{};
  CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  DeviceInfo d;
  d.id = device;
  d.name = p.name;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.l2_bytes = p.l2CacheSize;
  d.global_mem_bytes = p.totalGlobalMem;
  d.smem_per_block = p.sharedMemPerBlock;
  d.smem_per_block_optin = p.sharedMemPerBlockOptin;
  d.smem_per_sm = p.sharedMemPerMultiprocessor;
  d.max_threads_per_block = p.maxThreadsPerBlock;
  d.warp_size = p.warpSize;
  d.mem_bus_bits = p.memoryBusWidth;
  // CUDA 13 removed the clock fields from cudaDeviceProp; the attributes remain.
  CUDA_CHECK(cudaDeviceGetAttribute(&d.sm_clock_khz, cudaDevAttrClockRate, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&d.mem_clock_khz, cudaDevAttrMemoryClockRate, device));
  CUDA_CHECK(cudaDriverGetVersion(&d.driver_version));
  CUDA_CHECK(cudaRuntimeGetVersion(&d.runtime_version));
  return d;
}

std::string describe(const DeviceInfo& d) {
  std::ostringstream os;
  os << d.name << " (sm_" << d.cc_major << d.cc_minor << ", " << d.sm_count << " SMs, "
     << d.sm_clock_khz / 1000 << " MHz, " << d.smem_per_block_optin / 1024
     << " KB smem/block opt-in, driver " << d.driver_version / 1000 << '.'
     << (d.driver_version % 1000) / 10 << ", runtime " << d.runtime_version / 1000 << '.'
     << (d.runtime_version % 1000) / 10 << ')';
  return os.str();
}

}  // namespace cudalab
