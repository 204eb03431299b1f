// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 12, cp_async_pipeline.cu (part 2): the two-stage cp.async kernel's shared memory
// (exactly two stages), the small runs the sanitizers re-run, and its cp.async groups in the
// machine code. What it shares with the register-prefetch kernel (odd shapes, past 2^31 elements,
// the speed races) is registered once over both in prefetch_test.cu. Helpers in
// prefetch_grading.cuh.
#include <cstddef>

#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "prefetch_grading.cuh"

namespace {

using namespace lab12_grading;

// ---------------------------------------------------------------------------
// Shared memory of the two-stage kernel: exactly two stages of the synchronous kernel's
// tiles (static bytes from cudaFuncGetAttributes plus the dynamic bytes of its launch).
// ---------------------------------------------------------------------------
std::size_t static_smem(const void* kernel) {
  cudaFuncAttributes attr{};
  CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel));
  return attr.sharedSizeBytes;
}

TEST(SharedMemoryGpu, TwoStageKernelHoldsExactlyTwoStages) {
  CUDALAB_REQUIRE_GPU();
  const KernelInfo pipelined = lab12::pipelined_kernel();
  const std::size_t single = static_smem(lab12::sync_kernel().function);
  ASSERT_EQ(single, lab12::kStageBytes) << "the given synchronous kernel's tiles";
  cudalab::DeviceBuffer<float> d_a(64 * 64), d_b(64 * 64), d_c(64 * 64);
  const CapturedWork cap = CapturedWork::capture([&](cudaStream_t s) {
    lab12::matmul_pipelined(d_a.data(), d_b.data(), d_c.data(), 64, 64, 64, s);
  });
  ASSERT_TRUE(cap.holds_only(only_kernel(pipelined)));
  unsigned dynamic = 0;
  for (const auto& node : cap.nodes()) {
    if (node.type == cudaGraphNodeTypeKernel) dynamic = node.smem;
  }
  const std::size_t stat = static_smem(pipelined.function);
  cudalab::testing::record_measurement("pipelined_smem_bytes", double(stat + dynamic), "B",
                                       double(2 * single));
  EXPECT_EQ(stat + dynamic, 2 * single)
      << pipelined.name << " uses " << stat << " B of static and " << dynamic
      << " B of dynamic shared memory; two stages of the synchronous kernel's tiles are "
      << 2 * single << " B (a third stage, padding or extra buffers cost occupancy)";
}

// ---------------------------------------------------------------------------
// Small runs: what the sanitizer tests re-run under compute-sanitizer (kSmall). One suite per
// kernel, so a student who skipped the advanced kernel fails only its own tests.
// ---------------------------------------------------------------------------
TEST(SmallPipelinedGpu, Pipelined) {
  CUDALAB_REQUIRE_GPU();
  for (const Shape& s : kSmall)
    expect_product_with_k_tiles(lab12::matmul_pipelined, lab12::pipelined_kernel(), s);
}

CUDALAB_SANITIZER_SUITE(PipelinedSanitizer, "SmallPipelinedGpu.*", racecheck, synccheck, memcheck)

// ---------------------------------------------------------------------------
// The technique in the machine code (cuobjdump -sass of this grader, no GPU). The two-stage
// kernel copies with cp.async (LDGSTS), commits groups (LDGDEPBAR) and waits on them (DEPBAR);
// sm_80 and later.
// ---------------------------------------------------------------------------
TEST(PipelineSassCpu, PipelinedKernelCopiesWithCpAsyncGroups) {
  using kit::sass_requires;
  kit::expect_sass(lab12::pipelined_kernel(),
                   {sass_requires({"LDGSTS"}, "the tiles must reach shared memory by cp.async"),
                    sass_requires({"LDGDEPBAR"},
                                  "each step's copies must be committed as a group "
                                  "(__pipeline_commit / cp.async.commit_group)"),
                    sass_requires({"DEPBAR"},
                                  "the kernel must wait for a group of copies "
                                  "(__pipeline_wait_prior / cp.async.wait_group)")},
                   "", 80);
}

}  // namespace
