// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 12, carveout.cu (part 4): configure_smem() sets the carve-out the driver then
// reads back, rejects bad arguments before any CUDA call, reports a failed CUDA call, and
// reports what the driver says; and (given) what the driver does with each preference on this
// GPU.
#include <cstddef>
#include <exception>
#include <stdexcept>
#include <string>

#include "cudalab/check.cuh"
#include "cudalab/remote.hpp"
#include "cudalab/testing.hpp"
#include "prefetch.cuh"

namespace {

// ---------------------------------------------------------------------------
// The carve-out: what configure_smem() sets must be what the driver reads back, and what it
// reports must be what the driver says (read here again, independently).
// ---------------------------------------------------------------------------
const void* pipelined_kernel() {
  return lab12::pipelined_kernel().function;
}
const void* sync_kernel() {
  return lab12::sync_kernel().function;
}

/// Restores the no-preference state of @p kernel when the test ends (and of the lab's own
/// kernels in its process, where the grader judges it from outside: cudalab/remote.hpp).
struct CarveoutReset {
  explicit CarveoutReset(const void* k) : kernel(k) {}
  ~CarveoutReset() {
    cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                         cudaSharedmemCarveoutDefault);
    cudaFuncSetCacheConfig(kernel, cudaFuncCachePreferNone);
    try {
      cudalab::remote::reset_candidate_kernels();
    } catch (const std::exception&) {
      // The lab's process has gone: the next call reports it.
    }
  }
  const void* kernel;
};

int driver_carveout(const void* kernel) {
  cudaFuncAttributes attr{};
  CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel));
  return attr.preferredShmemCarveout;
}

int driver_blocks_per_sm(const void* kernel, int threads, std::size_t dynamic) {
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, dynamic));
  return blocks;
}

TEST(CarveoutGpu, RequestedCarveoutIsReadBack) {
  CUDALAB_REQUIRE_GPU();
  const CarveoutReset reset(pipelined_kernel());
  for (const int percent : {0, 25, 50, 100, 10}) {
    SCOPED_TRACE("carve-out " + std::to_string(percent) + " %");
    const lab12::SmemConfigReport r = lab12::configure_smem(
        pipelined_kernel(), percent, cudaFuncCachePreferNone, lab12::kThreads);
    EXPECT_EQ(driver_carveout(pipelined_kernel()), percent)
        << "after configure_smem() the driver reports preferredShmemCarveout = "
        << driver_carveout(pipelined_kernel())
        << ": set cudaFuncAttributePreferredSharedMemoryCarveout";
    EXPECT_EQ(r.preferred_carveout, percent) << "the report's preferred_carveout";
  }
}

TEST(CarveoutGpu, RejectsBadArgumentsAndReportsAFailedCudaCall) {
  // The contract: std::invalid_argument for a carve-out outside -1..100 or block_threads outside
  // 1..1024 (before any CUDA call), and cudalab::CudaError when a CUDA call fails: here the
  // "kernel" is a null pointer, which no runtime call accepts as a __global__ function.
  CUDALAB_REQUIRE_GPU();
  const CarveoutReset reset(pipelined_kernel());
  const int before = driver_carveout(pipelined_kernel());
  for (const int percent : {-2, 101, -100, 1000}) {
    EXPECT_THROW(lab12::configure_smem(pipelined_kernel(), percent, cudaFuncCachePreferNone,
                                       lab12::kThreads),
                 std::invalid_argument)
        << "carve-out " << percent << " %";
  }
  for (const int threads : {0, -32, 1025, 4096}) {
    EXPECT_THROW(lab12::configure_smem(pipelined_kernel(), 50, cudaFuncCachePreferNone, threads),
                 std::invalid_argument)
        << "block_threads " << threads;
  }
  EXPECT_EQ(driver_carveout(pipelined_kernel()), before)
      << "a rejected call changed the kernel's carve-out preference";
  bool threw_cuda_error = false;
  std::string other = "returned normally";
  try {
    (void)lab12::configure_smem(nullptr, 50, cudaFuncCachePreferNone, lab12::kThreads);
  } catch (const cudalab::CudaError&) {
    threw_cuda_error = true;
  } catch (const std::exception& e) {
    other = std::string("threw '") + e.what() + "'";
  }
  (void)cudaGetLastError();  // the failed call's error is reported; clear it
  EXPECT_TRUE(threw_cuda_error)
      << "configure_smem(nullptr, ...) " << other << ": every runtime call fails on a null "
      << "kernel, and the failure must come back as a cudalab::CudaError (CUDA_CHECK each call)";
  // A valid call right after is still read back.
  const lab12::SmemConfigReport r =
      lab12::configure_smem(pipelined_kernel(), 25, cudaFuncCachePreferNone, lab12::kThreads);
  EXPECT_EQ(r.preferred_carveout, 25);
  EXPECT_EQ(driver_carveout(pipelined_kernel()), 25);
}

TEST(CarveoutGpu, ReportIsWhatTheDriverSays) {
  CUDALAB_REQUIRE_GPU();
  const CarveoutReset reset_p(pipelined_kernel());
  const CarveoutReset reset_s(sync_kernel());
  int reserved = 0, device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device));
  struct Case {
    const void* kernel;
    const char* name;
    int percent;
    cudaFuncCache preference;
    int threads;
    std::size_t dynamic;
  };
  const Case cases[] = {
      {pipelined_kernel(), lab12::pipelined_kernel().name, 100, cudaFuncCachePreferShared,
       lab12::kThreads, 0},
      {pipelined_kernel(), lab12::pipelined_kernel().name, 0, cudaFuncCachePreferL1,
       lab12::kThreads, 0},
      {sync_kernel(), lab12::sync_kernel().name, 50, cudaFuncCachePreferEqual, 256, 20000},
      {sync_kernel(), lab12::sync_kernel().name, -1, cudaFuncCachePreferNone, 512, 0}};
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.name) + ", carve-out " + std::to_string(c.percent) + " %, " +
                 std::to_string(c.threads) + " threads, " + std::to_string(c.dynamic) +
                 " B dynamic");
    const lab12::SmemConfigReport r =
        lab12::configure_smem(c.kernel, c.percent, c.preference, c.threads, c.dynamic);
    cudaFuncAttributes attr{};
    CUDA_CHECK(cudaFuncGetAttributes(&attr, c.kernel));
    const int blocks = driver_blocks_per_sm(c.kernel, c.threads, c.dynamic);
    EXPECT_EQ(r.preferred_carveout, attr.preferredShmemCarveout) << "preferred_carveout";
    EXPECT_EQ(r.static_smem, attr.sharedSizeBytes) << "static_smem";
    EXPECT_EQ(r.registers, attr.numRegs) << "registers";
    EXPECT_EQ(r.blocks_per_sm, blocks)
        << "blocks_per_sm (cudaOccupancyMaxActiveBlocksPerMultiprocessor)";
    EXPECT_EQ(r.reserved_smem, std::size_t(reserved)) << "reserved_smem";
    EXPECT_EQ(r.smem_per_sm,
              std::size_t(blocks) * (attr.sharedSizeBytes + c.dynamic + std::size_t(reserved)))
        << "smem_per_sm";
    EXPECT_GT(blocks, 0) << "the occupancy calculator found no room for one block";
  }
}

// Given (not graded): what the driver does with each preference on this GPU, for the handout.
TEST(GivenCarveoutProbeGpu, RecordsTheDriversChoices) {
  CUDALAB_REQUIRE_GPU();
  const CarveoutReset reset_p(pipelined_kernel());
  const CarveoutReset reset_s(sync_kernel());
  for (const int percent : {-1, 0, 5, 10, 25, 50, 100}) {
    CUDA_CHECK(cudaFuncSetAttribute(pipelined_kernel(),
                                    cudaFuncAttributePreferredSharedMemoryCarveout, percent));
    CUDA_CHECK(cudaFuncSetAttribute(sync_kernel(), cudaFuncAttributePreferredSharedMemoryCarveout,
                                    percent));
    const std::string p = percent < 0 ? "none" : std::to_string(percent);
    cudalab::testing::record_measurement(
        "pipelined_blocks_per_sm_carveout_" + p,
        driver_blocks_per_sm(pipelined_kernel(), lab12::kThreads, 0), "blocks");
    cudalab::testing::record_measurement("sync_blocks_per_sm_carveout_" + p,
                                         driver_blocks_per_sm(sync_kernel(), lab12::kThreads, 0),
                                         "blocks");
    cudalab::testing::record_measurement("sync_256t_blocks_per_sm_carveout_" + p,
                                         driver_blocks_per_sm(sync_kernel(), 256, 0), "blocks");
  }
  CUDA_CHECK(cudaFuncSetAttribute(sync_kernel(), cudaFuncAttributePreferredSharedMemoryCarveout,
                                  cudaSharedmemCarveoutDefault));
  for (const cudaFuncCache pref : {cudaFuncCachePreferL1, cudaFuncCachePreferShared,
                                   cudaFuncCachePreferEqual, cudaFuncCachePreferNone}) {
    CUDA_CHECK(cudaFuncSetCacheConfig(sync_kernel(), pref));
    const std::string p = std::to_string(int(pref));
    cudalab::testing::record_measurement("sync_carveout_after_cache_config_" + p,
                                         driver_carveout(sync_kernel()), "%");
    cudalab::testing::record_measurement("sync_256t_blocks_per_sm_cache_config_" + p,
                                         driver_blocks_per_sm(sync_kernel(), 256, 0), "blocks");
  }
}

}  // namespace
