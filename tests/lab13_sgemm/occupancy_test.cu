// SPDX-License-Identifier: BSD-3-Clause
// Lab 13, stage 6 (occupancy.cu): the occupancy calculator on cases worked out by hand (CPU),
// and against the CUDA runtime on the kernels of every technique of lab13::kTechniques (GPU).

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>

#include "cudalab/check.cuh"
#include "sgemm_grading.cuh"

namespace {

using namespace lab13_grading;

// ---------------------------------------------------------------------------
// Stage 6 on the CPU: the occupancy calculator on cases worked out by hand for sm_90.
// ---------------------------------------------------------------------------
struct OccupancyCase {
  const char* what;
  lab13::KernelResources kernel;
  int blocks;
  lab13::Limiter limiter;
};

const char* limiter_name(lab13::Limiter l) {
  switch (l) {
    case lab13::Limiter::kNone:
      return "none";
    case lab13::Limiter::kThreads:
      return "threads";
    case lab13::Limiter::kBlocks:
      return "blocks";
    case lab13::Limiter::kRegisters:
      return "registers";
    case lab13::Limiter::kSharedMemory:
      return "shared memory";
    case lab13::Limiter::kDoesNotFit:
      return "does not fit";
  }
  return "?";
}

TEST(OccupancyCpu, KnownCasesOnComputeCapability90) {
  using lab13::Limiter;
  constexpr std::size_t k48K = 49152;
  const OccupancyCase cases[] = {
      {"256 threads, 32 registers: 8 blocks fill the 64 warp slots",
       {256, 32, 0, 0, k48K},
       8,
       Limiter::kThreads},
      {"32 threads, 16 registers: 32 block slots", {32, 16, 0, 0, k48K}, 32, Limiter::kBlocks},
      {"256 threads, 36 registers (1152 per warp, allocated 1280): 12 warps per quarter",
       {256, 36, 0, 0, k48K},
       6,
       Limiter::kRegisters},
      {"256 threads, 128 registers: 4 warps per register quarter",
       {256, 128, 0, 0, k48K},
       2,
       Limiter::kRegisters},
      {"256 threads, 215 registers (6912 per warp): 8 warps",
       {256, 215, 0, 0, k48K},
       1,
       Limiter::kRegisters},
      {"128 threads, 215 registers", {128, 215, 0, 0, k48K}, 2, Limiter::kRegisters},
      {"96 threads, 168 registers (5376 per warp): 12 warps",
       {96, 168, 0, 0, k48K},
       4,
       Limiter::kRegisters},
      {"1024 threads, 72 registers: a block needs more than the register file",
       {1024, 72, 0, 0, k48K},
       0,
       Limiter::kDoesNotFit},
      {"128 threads, 74496 B dynamic (opted in): 75520 B per block",
       {128, 32, 0, 74496, 74496},
       3,
       Limiter::kSharedMemory},
      {"256 threads, 8 KB static + 8 KB dynamic: 17408 B per block",
       {256, 40, 8192, 8192, k48K},
       6,
       Limiter::kRegisters},
      {"64 threads, 40000 B static: 41088 B per block",
       {64, 32, 40000, 0, k48K},
       5,
       Limiter::kSharedMemory},
      {"60000 B dynamic without opting in", {128, 32, 0, 60000, k48K}, 0, Limiter::kDoesNotFit},
      {"255 registers per thread (8160 per warp, allocated 8192): 2 warps per quarter",
       {128, 255, 0, 0, k48K},
       2,
       Limiter::kRegisters},
      {"300 registers per thread: above the 255 a thread can have",
       {128, 300, 0, 0, k48K},
       0,
       Limiter::kDoesNotFit},
      {"32 threads, 200 registers (6400 per warp): 2 warps per quarter, not 10 per SM",
       {32, 200, 0, 0, k48K},
       8,
       Limiter::kRegisters},
      {"64 threads, 36 registers (1280 per warp): 12 warps per quarter, 48 per SM, not 51",
       {64, 36, 0, 0, k48K},
       24,
       Limiter::kRegisters},
      {"32 threads, 7168 B dynamic: 8192 B per block with the 1 KB reservation",
       {32, 16, 0, 7168, k48K},
       28,
       Limiter::kSharedMemory},
      {"32 threads, 45666 B dynamic: 46690 B per block, allocated 46720 (128 B units)",
       {32, 16, 0, 45666, k48K},
       4,
       Limiter::kSharedMemory},
      {"32 threads, 232448 B dynamic (opted in to the 227 KB maximum): one block per SM",
       {32, 16, 0, 232448, 232448},
       1,
       Limiter::kSharedMemory},
      {"32 threads, 232449 B dynamic: one byte past the opt-in maximum",
       {32, 16, 0, 232449, 232449},
       0,
       Limiter::kDoesNotFit},
      {"1025 threads", {1025, 16, 0, 0, k48K}, 0, Limiter::kDoesNotFit},
      {"33 threads count as 2 warps", {33, 16, 0, 0, k48K}, 32, Limiter::kThreads},
  };
  for (const OccupancyCase& c : cases) {
    const lab13::Occupancy o = lab13::occupancy(c.kernel);
    EXPECT_EQ(o.blocks_per_sm, c.blocks) << c.what;
    EXPECT_EQ(limiter_name(o.limiter), std::string(limiter_name(c.limiter))) << c.what;
    const int warps = (c.kernel.threads + 31) / 32;
    EXPECT_EQ(o.warps_per_sm, c.blocks * warps) << c.what << ": warps per SM";
  }
}

// ---------------------------------------------------------------------------
// Stage 6 on the GPU: the calculator agrees with the runtime on the lab's kernels.
// ---------------------------------------------------------------------------
lab13::SmLimits device_limits() {
  int dev = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  cudaDeviceProp p{};
  CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
  lab13::SmLimits sm;
  sm.warp_size = p.warpSize;
  sm.max_threads_per_block = p.maxThreadsPerBlock;
  sm.max_warps_per_sm = p.maxThreadsPerMultiProcessor / p.warpSize;
  sm.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
  sm.registers_per_sm = p.regsPerMultiprocessor;
  sm.smem_per_sm = p.sharedMemPerMultiprocessor;
  sm.smem_per_block = p.sharedMemPerBlock;
  sm.smem_per_block_optin = p.sharedMemPerBlockOptin;
  sm.reserved_smem_per_block = p.reservedSharedMemPerBlock;
  return sm;
}

TEST(OccupancyGpu, MatchesTheRuntimeOnTheLabsKernels) {
  CUDALAB_REQUIRE_CC(9, 0);
  const lab13::SmLimits sm = device_limits();
  for (const lab13::Technique& t : lab13::kTechniques) {
    const KernelInfo info = t.kernel(true);
    ASSERT_NE(info.function, nullptr) << info.name;
    const int threads_per_block = int(info.block.x * info.block.y * info.block.z);
    if (info.dynamic_smem > 48 * 1024) {
      // What the launcher does before its first launch (the opt-in past 48 KB).
      CUDA_CHECK(cudaFuncSetAttribute(info.function, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      int(info.dynamic_smem)));
    }
    cudaFuncAttributes attr{};
    CUDA_CHECK(cudaFuncGetAttributes(&attr, info.function));
    cudalab::testing::record_measurement(std::string(info.name) + "_registers", attr.numRegs,
                                         "registers");
    // As launched, and with other block sizes and dynamic shared memory the kernel allows
    // (never above its maxDynamicSharedSizeBytes): 96 threads split the register quarters
    // unevenly; 32 threads with the most dynamic shared memory make shared memory the bound.
    const std::size_t most = std::size_t(attr.maxDynamicSharedSizeBytes);
    const std::pair<int, std::size_t> configs[] = {{threads_per_block, info.dynamic_smem},
                                                   {64, 0},
                                                   {96, std::min<std::size_t>(20000, most)},
                                                   {128, std::min<std::size_t>(4096, most)},
                                                   {32, most},
                                                   {threads_per_block, most}};
    for (const auto& [threads, dynamic] : configs) {
      if (threads > attr.maxThreadsPerBlock) continue;  // the kernel cannot launch so
      SCOPED_TRACE(std::string(info.name) + ": " + std::to_string(threads) + " threads, " +
                   std::to_string(attr.numRegs) + " registers, " +
                   std::to_string(attr.sharedSizeBytes) + " B static + " + std::to_string(dynamic) +
                   " B dynamic shared memory");
      int runtime = -1;
      CUDA_CHECK(
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&runtime, info.function, threads, dynamic));
      lab13::KernelResources r;
      r.threads = threads;
      r.registers = attr.numRegs;
      r.static_smem = attr.sharedSizeBytes;
      r.dynamic_smem = dynamic;
      r.max_dynamic_smem = std::size_t(attr.maxDynamicSharedSizeBytes);
      const lab13::Occupancy o = lab13::occupancy(r, sm);
      EXPECT_EQ(o.blocks_per_sm, runtime)
          << "occupancy() against cudaOccupancyMaxActiveBlocksPerMultiprocessor (limiter: "
          << limiter_name(o.limiter) << ")";
    }
  }
}

}  // namespace
