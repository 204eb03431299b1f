// SPDX-License-Identifier: BSD-3-Clause
#include <cstdio>

#include "cudalab/ceilings.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"

namespace cudalab {

int fp32_lanes_per_sm(int major, int minor) {
  if (major == 6 && minor == 0) return 64;
  if (major == 7) return 64;
  if (major == 8 && minor == 0) return 64;
  return 128;  // 5.x, 6.1/6.2, 8.6/8.7/8.9, 9.0 and newer
}

int popc_per_clock_per_sm(int major, int minor) {
  if (major == 5 || (major == 6 && minor != 0)) return 32;
  return 16;  // 6.0, 7.x, 8.x, 9.0 and newer
}

namespace {

__global__ void clock_spin_kernel(long long spin_cycles, unsigned long long* out) {
  unsigned long long t0 = 0;
  unsigned long long t1 = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  const long long c0 = clock64();
  long long c1 = c0;
  while (c1 - c0 < spin_cycles) c1 = clock64();
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
  if (threadIdx.x == 0) {
    out[0] = static_cast<unsigned long long>(c1 - c0);
    out[1] = t1 - t0;
  }
}

}  // namespace

double measured_sm_clock_mhz() {
  static double cached = 0.0;
  if (cached > 0.0) return cached;
  DeviceBuffer<unsigned long long> d_out(2);
  unsigned long long h[2] = {0, 0};
  // Warm-up wakes the clocks; then ~20 ms at ~2 GHz: globaltimer's coarse ticks
  // (about 1 us) are below 0.01 % of it.
  for (const long long cycles : {4000000LL, 40000000LL}) {
    clock_spin_kernel<<<1, 32>>>(cycles, d_out.data());
    CUDA_CHECK_LAST_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  d_out.download(h);
  cached = h[1] > 0 ? double(h[0]) / double(h[1]) * 1000.0 : 0.0;
  return cached;
}

Ceilings device_ceilings() {
  const DeviceInfo d = query_device();
  Ceilings c;
  c.sm_clock_mhz = measured_sm_clock_mhz();
  c.max_clock_mhz = d.sm_clock_khz / 1000.0;
  c.dram_gbps = 2.0 * d.mem_clock_khz * 1e3 * (d.mem_bus_bits / 8.0) / 1e9;
  const double fma = 2.0 * fp32_lanes_per_sm(d.cc_major, d.cc_minor) * d.sm_count;
  const double popc = 32.0 * popc_per_clock_per_sm(d.cc_major, d.cc_minor) * d.sm_count;
  c.fp32_tflops = fma * c.sm_clock_mhz * 1e6 / 1e12;
  c.popc_tbitops = popc * c.sm_clock_mhz * 1e6 / 1e12;
  const double top = c.max_clock_mhz > c.sm_clock_mhz ? c.max_clock_mhz : c.sm_clock_mhz;
  c.fp32_tflops_max = fma * top * 1e6 / 1e12;
  c.popc_tbitops_max = popc * top * 1e6 / 1e12;
  return c;
}

std::string Ceilings::describe() const {
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "SM clock %.0f MHz measured (peak %.0f); DRAM %.0f GB/s; FP32 %.1f TFLOP/s; "
                "popcount %.1f Tbit-op/s",
                sm_clock_mhz, max_clock_mhz, dram_gbps, fp32_tflops, popc_tbitops);
  return buf;
}

}  // namespace cudalab
