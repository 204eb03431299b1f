// SPDX-License-Identifier: BSD-3-Clause
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "cudalab/bench.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/grading.hpp"
#include "cudalab/testing.hpp"

namespace cudalab::testing {

namespace {

template <typename T>
__global__ void copy_changed_kernel(T* live, const T* source, std::size_t elements,
                                    std::uint64_t key, std::size_t count) {
  for (std::size_t j = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; j < count;
       j += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t p = changed_position(key, j, elements);
    live[p] = source[p];
  }
}

template <typename T>
void launch_copy_changed(void* live, const void* source, std::size_t elements, std::uint64_t key,
                         std::size_t count, cudaStream_t s) {
  const int block = 256;
  const int grid = int(std::min<std::size_t>((count + block - 1) / block, 1024));
  copy_changed_kernel<<<grid, block, 0, s>>>(static_cast<T*>(live), static_cast<const T*>(source),
                                             elements, key, count);
  CUDA_CHECK_LAST_LAUNCH();
}

}  // namespace

void copy_changed_elements(void* live, const void* source, std::size_t elements,
                           std::size_t elem_bytes, std::uint64_t key, std::size_t count,
                           cudaStream_t s) {
  switch (elem_bytes) {
    case 1:
      return launch_copy_changed<std::uint8_t>(live, source, elements, key, count, s);
    case 2:
      return launch_copy_changed<std::uint16_t>(live, source, elements, key, count, s);
    case 4:
      return launch_copy_changed<std::uint32_t>(live, source, elements, key, count, s);
    case 8:
      return launch_copy_changed<std::uint64_t>(live, source, elements, key, count, s);
    case 16:
      return launch_copy_changed<uint4>(live, source, elements, key, count, s);
    default:
      throw std::invalid_argument("copy_changed_elements: element size " +
                                  std::to_string(elem_bytes) + " is not 1, 2, 4, 8 or 16 bytes");
  }
}

std::string free_memory_shortfall(std::size_t bytes) {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t need = bytes + (std::size_t{1} << 30);
  if (free_bytes >= need) return "";
  return "needs " + std::to_string(need >> 20) + " MiB of free GPU memory (" +
         std::to_string(bytes >> 20) + " MiB for the test and 1 GiB of headroom), " +
         std::to_string(free_bytes >> 20) + " MiB free";
}

void expect_possible(double measured, double ceiling, const std::string& unit,
                     const std::string& what) {
  const bool ok = measured <= 1.05 * ceiling;
  char buf[400];
  std::snprintf(buf, sizeof buf, "%s: %.4g %s against a physical ceiling of %.4g %s (%s)",
                what.c_str(), measured, unit.c_str(), ceiling, unit.c_str(),
                ok ? "possible"
                   : "impossible: the timed work was skipped, cached or done outside the timed "
                     "stream");
  std::printf("[ CEILING  ] %s\n", buf);
  EXPECT_TRUE(ok) << buf;
}

void expect_share(double measured, double reference, const std::string& unit,
                  const std::string& what) {
  const double scale = speedup_scale();
  const double share = reference > 0 ? measured / reference : 0.0;
  const double threshold = speed_bar("share", Bound::kAtLeast, share);
  const double needed = threshold * scale;
  char buf[400];
  std::snprintf(buf, sizeof buf,
                "%s: %.4g %s = %.2f of the reference %.4g %s, needs >= %.2f (threshold %.2f x "
                "CUDALAB_SPEEDUP_SCALE %.2f)",
                what.c_str(), measured, unit.c_str(), share, reference, unit.c_str(), needed,
                threshold, scale);
  Measurement m;
  m.name = "share";
  m.value = share;
  m.unit = "x";
  m.threshold = needed;
  m.bound = Bound::kAtLeast;
  m.unscaled_threshold = threshold;
  m.text = buf;
  record_measurement(m);
  std::printf("[ SPEED    ] %s\n", buf);
  EXPECT_GE(share, needed) << buf;
}

double d2d_copy_gbps(std::size_t bytes) {
  DeviceBuffer<char> src(bytes);
  DeviceBuffer<char> dst(bytes);
  src.fill_bytes(1);
  BenchOptions o;
  o.flush_l2 = true;
  const BenchStats s = benchmark(
      [&](cudaStream_t st) {
        CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, st));
      },
      o);
  return s.median_ms > 0 ? 2.0 * double(bytes) / (s.median_ms * 1e-3) / 1e9 : 0.0;
}

}  // namespace cudalab::testing
