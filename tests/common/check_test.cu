// SPDX-License-Identifier: BSD-3-Clause
// Unit tests of CUDA_CHECK and the device helpers.
#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/testing.hpp"
#include "cudalab/timer.cuh"

namespace {

TEST(GivenCheckCpu, MessageNamesFileLineErrorAndCall) {
  try {
    CUDA_CHECK(cudaErrorInvalidValue);
    FAIL() << "CUDA_CHECK did not throw";
  } catch (const cudalab::CudaError& e) {
    const std::string m = e.what();
    EXPECT_EQ(e.code(), cudaErrorInvalidValue);
    EXPECT_NE(m.find("check_test.cu:"), std::string::npos) << m;
    EXPECT_NE(m.find("cudaErrorInvalidValue"), std::string::npos) << m;
    EXPECT_NE(m.find("`cudaErrorInvalidValue`"), std::string::npos) << m;
  }
}

TEST(GivenCheckCpu, CtestResourceVariableSelectsTheDevice) {
  setenv("CTEST_RESOURCE_GROUP_COUNT", "1", 1);
  setenv("CTEST_RESOURCE_GROUP_0_GPUS", "id:3,slots:1", 1);
  EXPECT_EQ(cudalab::preferred_device(), 3);
  unsetenv("CTEST_RESOURCE_GROUP_COUNT");
  unsetenv("CTEST_RESOURCE_GROUP_0_GPUS");
  setenv("CUDALAB_DEVICE", "2", 1);
  EXPECT_EQ(cudalab::preferred_device(), 2);
  unsetenv("CUDALAB_DEVICE");
  EXPECT_EQ(cudalab::preferred_device(), 0);
}

__global__ void write_index(int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}

TEST(GivenCheckGpu, InvalidLaunchIsReportedByLastLaunchCheck) {
  CUDALAB_REQUIRE_GPU();
  cudalab::DeviceBuffer<int> d(16);
  write_index<<<1, 2048>>>(d.data(), 16);  // more than 1024 threads per block
  try {
    CUDA_CHECK_LAST_LAUNCH();
    FAIL() << "an invalid launch configuration went unreported";
  } catch (const cudalab::CudaError& e) {
    // CUDA 12 reports cudaErrorInvalidConfiguration, CUDA 13 cudaErrorInvalidValue.
    EXPECT_TRUE(e.code() == cudaErrorInvalidConfiguration || e.code() == cudaErrorInvalidValue)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("kernel launch"), std::string::npos) << e.what();
  }
}

TEST(GivenDeviceBufferGpu, RoundTripAndMove) {
  CUDALAB_REQUIRE_GPU();
  cudalab::DeviceBuffer<int> d(1000);
  write_index<<<4, 256>>>(d.data(), 1000);
  CUDA_CHECK_LAST_LAUNCH();
  cudalab::DeviceBuffer<int> moved = std::move(d);
  EXPECT_EQ(d.data(), nullptr);
  auto h = moved.to_host();
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(h[i], i);
  EXPECT_THROW(moved.upload(std::vector<int>(5)), std::invalid_argument);
}

TEST(GivenDeviceGpu, QueryReportsSensibleLimits) {
  CUDALAB_REQUIRE_GPU();
  const auto d = cudalab::query_device();
  EXPECT_GT(d.sm_count, 0);
  EXPECT_GT(d.sm_clock_khz, 0);
  EXPECT_GE(d.smem_per_block_optin, d.smem_per_block);
  EXPECT_EQ(d.warp_size, 32);
  std::printf("%s\n", cudalab::describe(d).c_str());
}

}  // namespace
