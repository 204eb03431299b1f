// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 12, cp_async_pipeline.cu (part 2): the two-stage cp.async kernel right on odd
// shapes under stream capture, its shared memory (exactly two stages), past 2^31 elements of A,
// B and C, on the small runs the sanitizers re-run, its speed against the synchronous kernel
// at full occupancy and with one block per SM, and its cp.async groups in the machine code.
// Helpers in prefetch_grading.cuh.
#include <cstddef>
#include <string>

#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "prefetch_grading.cuh"

namespace {

namespace kit = cudalab::kit;
using lab12_grading::CapturedWork;
using lab12_grading::expect_product_with_k_tiles;
using lab12_grading::FullOccupancyPerf;
using lab12_grading::KernelInfo;
using lab12_grading::kLongK;
using lab12_grading::kShapes;
using lab12_grading::kSmall;
using lab12_grading::LatencyExposedPerf;
using lab12_grading::only_kernel;
using lab12_grading::Shape;
using lab12_grading::shape_name;
using lab12_grading::tile_rules;

// ---------------------------------------------------------------------------
// Correctness on odd shapes: an odd number of k tiles ending in a partial tile is where a
// double-buffered loop most often drops or repeats its last tile.
// ---------------------------------------------------------------------------
class PipelinedGpu : public ::testing::TestWithParam<Shape> {};

TEST_P(PipelinedGpu, CorrectOnOddShapes) {
  CUDALAB_REQUIRE_GPU();
  expect_product_with_k_tiles(lab12::matmul_pipelined, lab12::pipelined_kernel(), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Shapes, PipelinedGpu, ::testing::ValuesIn(kShapes), shape_name);

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
// Index range: A holds more than 2^31 elements, so a row offset row * k computed in int
// overflows. A is filled on the device from a hash of the element index; the host checks
// sampled rows past the 2^31-element mark.
// ---------------------------------------------------------------------------

TEST(IndexRangeGpu, PipelinedPast2To31Elements) {
  CUDALAB_REQUIRE_GPU();
  matmul_grading::expect_large_a_rows(lab12::matmul_pipelined,
                                      tile_rules(lab12::pipelined_kernel()), lab12::kTile, 3);
}
// B (1040 x 2^21, + 3 where odd widths are allowed) and C (65535 tiles of rows x about
// 2^31 / rows columns) past 2^31 elements: offsets p * n and row * n must be 64-bit too.
TEST(IndexRangeGpu, PipelinedPast2To31ElementsOfB) {
  CUDALAB_REQUIRE_GPU();
  matmul_grading::expect_large_b_columns(lab12::matmul_pipelined,
                                         tile_rules(lab12::pipelined_kernel()), 5, false);
}
TEST(IndexRangeGpu, PipelinedPast2To31ElementsOfC) {
  CUDALAB_REQUIRE_GPU();
  matmul_grading::expect_large_c_rows(lab12::matmul_pipelined,
                                      tile_rules(lab12::pipelined_kernel()), lab12::kTile, false);
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
// Speed (PerfFixture::time_against_sync): no large regression at full occupancy, the load
// latency hidden with one block per SM.
// ---------------------------------------------------------------------------
TEST_F(FullOccupancyPerf, PipelinedDoesNotRegress) {
  const auto cmp =
      time_against_sync(full_occupancy(), lab12::matmul_pipelined, lab12::pipelined_kernel(),
                        "two-stage cp.async vs synchronous, 4096^2 (full occupancy)");
  if (HasFailure()) return;
  cudalab::testing::expect_speedup(cmp,
                                   "two-stage cp.async vs synchronous at full occupancy (no "
                                   "large regression)");
}

TEST_F(LatencyExposedPerf, PipelinedHidesTheLoadLatency) {
  const auto cmp =
      time_against_sync(latency_exposed(), lab12::matmul_pipelined, lab12::pipelined_kernel(),
                        "two-stage cp.async vs synchronous, one block per SM");
  if (HasFailure()) return;
  cudalab::testing::expect_speedup(
      cmp, "two-stage cp.async vs synchronous, one block per SM, k = " + std::to_string(kLongK));
}

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
