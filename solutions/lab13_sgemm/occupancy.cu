// SPDX-License-Identifier: BSD-3-Clause
// Lab 13, stage 6: how many blocks of a kernel an SM holds at once, computed on the CPU from
// the kernel's resources and the SM's limits the way the CUDA runtime computes it.
#include "sgemm.cuh"

namespace lab13 {

Occupancy occupancy(const KernelResources& kernel, const SmLimits& sm) {
  Occupancy out;
  // TODO(lab13): stage 6. Zero blocks (Limiter::kDoesNotFit) when the block cannot run at all:
  // threads outside 1 .. max_threads_per_block, registers above max_registers_per_thread,
  // dynamic shared memory above max_dynamic_smem, or static + dynamic above the per-block
  // limit (smem_per_block_optin when max_dynamic_smem was raised past smem_per_block, else
  // smem_per_block). Else blocks per SM = the minimum of the bounds by threads, blocks,
  // registers and shared memory (the handout's stage 6 lists them, with the allocation units
  // of sgemm.cuh's SmLimits); the limiter is the first of these (in this order) that equals
  // the minimum.
  // HINT: registers are allocated per warp, in units, and each SM sub-partition has its own
  // HINT: share; shared memory per block includes the reserved bytes. Check your arithmetic on
  // HINT: question 2; the runtime's own calculator, cuda_occupancy.h, is in the CUDA toolkit.
  // Roughly 43 lines.
  const auto round_up = [](std::size_t x, std::size_t unit) {
    return (x + unit - 1) / unit * unit;
  };
  const std::size_t smem = kernel.static_smem + kernel.dynamic_smem;
  const std::size_t block_limit =
      kernel.max_dynamic_smem > sm.smem_per_block ? sm.smem_per_block_optin : sm.smem_per_block;
  if (kernel.threads < 1 || kernel.threads > sm.max_threads_per_block ||
      kernel.registers > sm.max_registers_per_thread ||
      kernel.dynamic_smem > kernel.max_dynamic_smem || smem > block_limit) {
    out.limiter = Limiter::kDoesNotFit;
    return out;
  }
  const int warps = (kernel.threads + sm.warp_size - 1) / sm.warp_size;
  const int by_threads = sm.max_warps_per_sm / warps;
  const int by_blocks = sm.max_blocks_per_sm;
  int by_registers = by_blocks;
  if (kernel.registers > 0) {
    const int per_warp = static_cast<int>(
        round_up(std::size_t(kernel.registers) * sm.warp_size, std::size_t(sm.register_unit)));
    const int warps_per_partition = sm.registers_per_sm / sm.sub_partitions / per_warp;
    by_registers = warps_per_partition * sm.sub_partitions / warps;
  }
  const std::size_t smem_alloc = round_up(smem + sm.reserved_smem_per_block, sm.smem_unit);
  const int by_smem = static_cast<int>(sm.smem_per_sm / smem_alloc);
  const struct {
    int blocks;
    Limiter limiter;
  } bounds[] = {{by_threads, Limiter::kThreads},
                {by_blocks, Limiter::kBlocks},
                {by_registers, Limiter::kRegisters},
                {by_smem, Limiter::kSharedMemory}};
  out.blocks_per_sm = by_threads;
  for (const auto& bound : bounds) {
    if (bound.blocks < out.blocks_per_sm) out.blocks_per_sm = bound.blocks;
  }
  for (const auto& bound : bounds) {
    if (bound.blocks == out.blocks_per_sm) {
      out.limiter = bound.limiter;
      break;
    }
  }
  out.warps_per_sm = out.blocks_per_sm * warps;
  if (out.blocks_per_sm == 0) out.limiter = Limiter::kDoesNotFit;
  // END TODO(lab13)
  return out;
}

}  // namespace lab13
