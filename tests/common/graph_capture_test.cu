// SPDX-License-Identifier: BSD-3-Clause
// The grader infrastructure itself (given): what a captured graph shows of a launcher's work,
// shared-memory poisoning, and the device ceilings.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "cudalab/ceilings.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/grading.hpp"
#include "cudalab/graph_capture.cuh"
#include "cudalab/testing.hpp"

namespace {

using cudalab::testing::CapturedWork;
using cudalab::testing::GraphRules;

__global__ void probe_add_kernel(float* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1.0f;
}

__global__ void probe_other_kernel(float* data) {
  data[0] = 7.0f;
}

/// Reads shared memory it never writes: what an earlier kernel left there.
__global__ void read_unwritten_shared_kernel(float* out, int words) {
  extern __shared__ float stale[];
  for (int i = threadIdx.x; i < words; i += blockDim.x) out[i] = stale[i];
}

GraphRules only(const char* kernel) {
  GraphRules r;
  r.kernels = {kernel};
  return r;
}

TEST(GivenGraphCaptureGpu, KernelOnTheGivenStreamIsANamedNodeAndReplaysOnNewData) {
  CUDALAB_REQUIRE_GPU();
  constexpr int n = 1000;
  cudalab::DeviceBuffer<float> d(n);
  d.upload(std::vector<float>(n, 1.0f));
  CapturedWork cap = CapturedWork::capture([&](cudaStream_t s) {
    probe_add_kernel<<<(n + 255) / 256, 256, 0, s>>>(d.data(), n);
    CUDA_CHECK_LAST_LAUNCH();
  });
  EXPECT_EQ(cap.kernel_count(), 1) << cap.summary();
  EXPECT_TRUE(cap.holds_only(only("probe_add_kernel")));
  EXPECT_FALSE(cap.holds_only(only("probe_other_kernel")));
  EXPECT_EQ(d.to_host()[0], 1.0f) << "capture must not execute the kernel";
  d.upload(std::vector<float>(n, 5.0f));  // new data behind the same pointer
  cap.run();
  EXPECT_EQ(d.to_host()[n - 1], 6.0f);
}

TEST(GivenGraphCaptureGpu, WorkOnTheLegacyStreamLeavesNoNode) {
  CUDALAB_REQUIRE_GPU();
  cudalab::DeviceBuffer<float> d(32);
  d.fill_bytes(0);
  CapturedWork cap = CapturedWork::capture([&](cudaStream_t) {
    probe_add_kernel<<<1, 32>>>(d.data(), 32);  // ignores the stream it was given
    CUDA_CHECK_LAST_LAUNCH();
  });
  CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(cap.kernel_count(), 0) << cap.summary();
  const auto verdict = cap.holds_only(only("probe_add_kernel"));
  EXPECT_FALSE(verdict);
  EXPECT_NE(std::string(verdict.message()).find("ignore its stream"), std::string::npos)
      << verdict.message();
}

TEST(GivenGraphCaptureGpu, HostRoundTripShowsItsCopies) {
  CUDALAB_REQUIRE_GPU();
  cudalab::DeviceBuffer<float> d(64);
  std::vector<float> h(64, 0.0f);
  d.upload(h);
  CapturedWork cap = CapturedWork::capture([&](cudaStream_t s) {
    CUDA_CHECK(cudaMemcpyAsync(h.data(), d.data(), d.bytes(), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaMemcpyAsync(d.data(), h.data(), d.bytes(), cudaMemcpyHostToDevice, s));
    probe_other_kernel<<<1, 1, 0, s>>>(d.data());
    CUDA_CHECK_LAST_LAUNCH();
  });
  const auto verdict = cap.holds_only(only("probe_other_kernel"));
  EXPECT_FALSE(verdict);
  EXPECT_NE(std::string(verdict.message()).find("device-to-host"), std::string::npos)
      << verdict.message();
  GraphRules copies = only("probe_other_kernel");
  copies.allow_host_copies = true;
  EXPECT_TRUE(cap.holds_only(copies));
}

TEST(GivenGraphCaptureGpu, LaunchConfigurationIsCheckedAgainstTheRequest) {
  CUDALAB_REQUIRE_GPU();
  constexpr int n = 1000;
  cudalab::DeviceBuffer<float> d(n);
  CapturedWork cap = CapturedWork::capture([&](cudaStream_t s) {
    probe_add_kernel<<<(n + 127) / 128, 128, 16, s>>>(d.data(), n);  // asked for 256 threads
    CUDA_CHECK_LAST_LAUNCH();
  });
  GraphRules asked = only("probe_add_kernel");
  asked.expect_launch("probe_add_kernel", dim3((n + 255) / 256), dim3(256), 0u, "block 256");
  const auto verdict = cap.holds_only(asked);
  EXPECT_FALSE(verdict);
  const std::string message = verdict.message();
  EXPECT_NE(message.find("grid expected (4,1,1), got (8,1,1)"), std::string::npos) << message;
  EXPECT_NE(message.find("block expected (256,1,1), got (128,1,1)"), std::string::npos) << message;
  EXPECT_NE(message.find("dynamic shared memory expected 0 bytes, got 16"), std::string::npos)
      << message;
  GraphRules right = only("probe_add_kernel");
  right.expect_launch("probe_add_kernel", dim3(8), dim3(128), 16u);
  EXPECT_TRUE(cap.holds_only(right));
  GraphRules block_only = only("probe_add_kernel");
  block_only.expect_launch("probe_add_kernel", std::nullopt, dim3(128), std::nullopt);
  EXPECT_TRUE(cap.holds_only(block_only));  // an empty field is the launcher's choice
}

TEST(GivenGraphCaptureGpu, ExpectedMemsetMustBeANode) {
  CUDALAB_REQUIRE_GPU();
  cudalab::DeviceBuffer<float> d(64);
  GraphRules zeroed = only("probe_other_kernel");
  zeroed.expect_memset(d.data(), 4 * sizeof(float), 0, "the first four floats zeroed");
  CapturedWork with = CapturedWork::capture([&](cudaStream_t s) {
    CUDA_CHECK(cudaMemsetAsync(d.data(), 0, 4 * sizeof(float), s));
    probe_other_kernel<<<1, 1, 0, s>>>(d.data());
    CUDA_CHECK_LAST_LAUNCH();
  });
  EXPECT_TRUE(with.holds_only(zeroed)) << with.summary();
  CapturedWork without = CapturedWork::capture([&](cudaStream_t s) {
    probe_other_kernel<<<1, 1, 0, s>>>(d.data());
    CUDA_CHECK_LAST_LAUNCH();
  });
  const auto missing = without.holds_only(zeroed);
  EXPECT_FALSE(missing);
  EXPECT_NE(std::string(missing.message()).find("no memset node"), std::string::npos)
      << missing.message();
  CapturedWork wrong_value = CapturedWork::capture([&](cudaStream_t s) {
    CUDA_CHECK(cudaMemsetAsync(d.data(), 1, 4 * sizeof(float), s));
    probe_other_kernel<<<1, 1, 0, s>>>(d.data());
    CUDA_CHECK_LAST_LAUNCH();
  });
  EXPECT_FALSE(wrong_value.holds_only(zeroed));
  CapturedWork too_much = CapturedWork::capture([&](cudaStream_t s) {
    CUDA_CHECK(cudaMemsetAsync(d.data(), 0, d.bytes(), s));
    probe_other_kernel<<<1, 1, 0, s>>>(d.data());
    CUDA_CHECK_LAST_LAUNCH();
  });
  EXPECT_FALSE(too_much.holds_only(zeroed)) << "a memset past the expected range";
}

TEST(GivenGraphCaptureGpu, SynchronizingInsideTheCaptureIsReported) {
  CUDALAB_REQUIRE_GPU();
  EXPECT_THROW(CapturedWork::capture([](cudaStream_t s) {
                 probe_other_kernel<<<1, 1, 0, s>>>(nullptr);
                 CUDA_CHECK(cudaDeviceSynchronize());
               }),
               cudalab::CudaError);
  // The context is usable afterwards.
  cudalab::DeviceBuffer<float> d(1);
  d.fill_bytes(0);
  probe_other_kernel<<<1, 1>>>(d.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(d.to_host()[0], 7.0f);
}

TEST(GivenGraphCaptureGpu, PoisonedSharedMemoryReadsAsNaN) {
  CUDALAB_REQUIRE_GPU();
  constexpr int words = 4096;  // 16 KB
  cudalab::DeviceBuffer<float> d(words);
  // Other test processes may share the GPU (ctest -j) and run a kernel between the poison and
  // the read on the same SM: a few tries, the best one counts.
  int nan = 0;
  for (int attempt = 0; attempt < 5 && nan < words; ++attempt) {
    cudalab::testing::poison_shared_memory();
    read_unwritten_shared_kernel<<<1, 256, words * sizeof(float)>>>(d.data(), words);
    CUDA_CHECK_LAST_LAUNCH();
    const std::vector<float> got = d.to_host();
    int n = 0;
    for (const float x : got) n += std::isnan(x) ? 1 : 0;
    nan = std::max(nan, n);
  }
  EXPECT_EQ(nan, words) << "only " << nan << " of " << words << " unwritten shared words read NaN";
}

TEST(GivenAlternatingInputGpu, EveryRunReadsANewInputThatTheHostRebuilds) {
  CUDALAB_REQUIRE_GPU();
  const std::size_t n = 1 << 16;  // 256 changes per run
  std::vector<std::uint32_t> set0(n), set1(n);
  for (std::size_t i = 0; i < n; ++i) {
    set0[i] = std::uint32_t(2 * i);
    set1[i] = std::uint32_t(2 * i + 1);  // differs from set 0 everywhere
  }
  cudalab::testing::AlternatingInput<std::uint32_t> in(set0, set1);
  EXPECT_EQ(in.changes(), std::size_t(256));
  EXPECT_EQ(in.last_input(), set0);  // before any run: set 0 as uploaded
  std::vector<std::vector<std::uint32_t>> seen;
  for (int run = 0; run < 4; ++run) {
    in.copy_next(nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<std::uint32_t> live = in.live.to_host();
    ASSERT_EQ(live, in.last_input()) << "run " << run << ": the host rebuild differs";
    ASSERT_EQ(live, in.input_of_run(run)) << "run " << run;
    const std::vector<std::uint32_t>& base = run % 2 == 0 ? set0 : set1;
    std::size_t changed = 0;
    for (std::size_t i = 0; i < n; ++i) changed += live[i] != base[i];
    EXPECT_GT(changed, std::size_t(200)) << "run " << run << " (positions may repeat)";
    EXPECT_LE(changed, in.changes()) << "run " << run;
    for (const auto& earlier : seen) EXPECT_NE(live, earlier) << "run " << run << " repeats";
    seen.push_back(live);
  }
  for (int run = 0; run < 4; ++run) EXPECT_EQ(in.input_of_run(run), seen[std::size_t(run)]);
  // The view moves between runs in any order, runs -1 and 0 and 2 sharing set 0's view.
  for (const long run : {3L, 0L, 2L, -1L, 1L, 2L, 3L, 0L, -1L}) {
    const std::vector<std::uint32_t>& want = run < 0 ? set0 : seen[std::size_t(run)];
    EXPECT_EQ(in.input_view(run), want) << "input_view(" << run << ")";
  }
  EXPECT_THROW(in.input_of_run(4), std::out_of_range);
  EXPECT_THROW(in.input_view(-2), std::out_of_range);
}

TEST(GivenCeilingsGpu, MeasuredClockAndCopyStayBelowTheCeilings) {
  CUDALAB_REQUIRE_GPU();
  const cudalab::Ceilings c = cudalab::device_ceilings();
  std::printf("[ CUDALAB  ] ceilings: %s\n", c.describe().c_str());
  EXPECT_GT(c.sm_clock_mhz, 100.0);
  EXPECT_LT(c.sm_clock_mhz, 1.1 * c.max_clock_mhz + 50.0);
  const double copy = cudalab::testing::d2d_copy_gbps(std::size_t(1) << 30);
  std::printf("[ CUDALAB  ] device-to-device copy: %.0f GB/s\n", copy);
  EXPECT_GT(copy, 0.2 * c.dram_gbps);
  cudalab::testing::expect_possible(copy, c.dram_gbps, "GB/s", "device-to-device copy");
}

TEST(GivenCeilingsCpu, ThroughputTableMatchesTheProgrammingGuide) {
  EXPECT_EQ(cudalab::fp32_lanes_per_sm(9, 0), 128);
  EXPECT_EQ(cudalab::fp32_lanes_per_sm(8, 0), 64);
  EXPECT_EQ(cudalab::fp32_lanes_per_sm(8, 6), 128);
  EXPECT_EQ(cudalab::fp32_lanes_per_sm(7, 5), 64);
  EXPECT_EQ(cudalab::popc_per_clock_per_sm(9, 0), 16);
  EXPECT_EQ(cudalab::popc_per_clock_per_sm(7, 0), 16);
  EXPECT_EQ(cudalab::popc_per_clock_per_sm(6, 1), 32);
}

}  // namespace
