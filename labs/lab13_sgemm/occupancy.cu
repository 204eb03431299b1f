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
  (void)kernel;
  (void)sm;
  // END TODO(lab13)
  return out;
}

}  // namespace lab13
