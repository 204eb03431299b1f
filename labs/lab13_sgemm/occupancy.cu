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
  // smem_per_block). Else blocks per SM = the minimum of
  //   threads:   max_warps_per_sm / warps per block (warps rounded up),
  //   blocks:    max_blocks_per_sm,
  //   registers: (registers_per_sm / sub_partitions / registers per warp) * sub_partitions
  //              / warps per block, registers per warp = registers x warp_size rounded up to
  //              register_unit (no limit when the kernel uses no registers),
  //   shared:    smem_per_sm / (static + dynamic + reserved_smem_per_block, rounded up to
  //              smem_unit);
  // the limiter is the first of these (in this order) that equals the minimum.
  // HINT: the runtime's own calculator, cuda_occupancy.h, is in the CUDA toolkit.
  // Roughly 25 lines.
  (void)kernel;
  (void)sm;
  // END TODO(lab13)
  return out;
}

}  // namespace lab13
