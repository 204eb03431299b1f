// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 12: register prefetch, the two-stage cp.async pipeline and (advanced) the
// two-stage bulk-copy (TMA) pipeline of the tiled matmul, against the synchronous kernel of
// lab 04 (a given copy); the carve-out read back from the driver. Every graded launcher runs
// under stream capture (the graph may hold only the lab's kernel), then on new inputs behind
// the same pointers, with NaN-poisoned outputs and shared memory.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/kit.cuh"
#include "common/matmul_grading.cuh"
#include "cudalab/ceilings.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/grading.hpp"
#include "cudalab/graph_capture.cuh"
#include "cudalab/remote.hpp"
#include "cudalab/testing.hpp"
#include "cudalab/tools.hpp"
#include "prefetch.cuh"

namespace {

// ---------------------------------------------------------------------------
// Speed bars: each perf test names its bar ("speedup", "share", ...), and its number and
// provenance are the calibration's (tests/calibration/nvidia-h200.tsv on the reference GPU).
// ---------------------------------------------------------------------------

constexpr int kPerfSize = 4096;
/// k of the latency-exposed products: not a multiple of the tile, an odd number of tiles
/// (16396 = 512 x 32 + 12: 513 tiles), a multiple of 4 (the bulk-copy kernel).
constexpr int kLongK = 16396;
static_assert((kLongK + lab12::kTile - 1) / lab12::kTile % 2 == 1 && kLongK % lab12::kTile != 0,
              "the long k must end in a partial tile after an odd number of tiles");

namespace kit = cudalab::kit;
using cudalab::KernelInfo;
using cudalab::testing::CapturedWork;
using cudalab::testing::GraphRules;
using kit::only_kernel;
using kit::Shape;
using kit::shape_name;
using matmul_grading::Launch;

int k_tiles(int k) {
  return (k + lab12::kTile - 1) / lab12::kTile;
}

// Odd shapes: 1, primes, one past a tile, rectangles both ways; k with an odd number of
// tiles and a partial last tile (5: 1 tile, 70: 3, 135: 5, 257: 9, 777: 25, 1030: 33), an
// even number (33: 2, 100: 4), and whole tiles (32, 64).
const Shape kShapes[] = {{1, 1, 1},      {17, 33, 5},    {40, 33, 70},  {33, 31, 100},
                         {129, 65, 257}, {1000, 3, 777}, {3, 1000, 64}, {2, 300, 1030},
                         {257, 129, 33}, {96, 160, 32},  {61, 67, 135}};
// The bulk-copy kernel needs k and n multiples of 4: the same kinds of k (68: 3 tiles,
// 260: 9, 772: 25, 1028: 33; 36: 2; 32, 64).
const Shape kTmaShapes[] = {{1, 4, 4},     {17, 36, 68},    {129, 68, 260}, {1000, 4, 772},
                            {3, 1000, 64}, {33, 100, 1028}, {257, 132, 36}, {96, 160, 32}};

/// The launch every kernel here has (lab12::tile_launch, TileLaunch): only @p kernel, on
/// (kTile, kTile) blocks, one block per kTile x kTile tile of C; the dynamic shared memory is
/// the launcher's choice (0 for static tiles, or one extern buffer of two stages).
matmul_grading::Rules tile_rules(const KernelInfo& kernel) {
  return [kernel](const Shape& s) {
    GraphRules rules = only_kernel(kernel);
    const unsigned tile = lab12::kTile;
    rules.expect_launch(kernel.name,
                        dim3((unsigned(s.n) + tile - 1) / tile, (unsigned(s.m) + tile - 1) / tile),
                        dim3(tile, tile), std::nullopt,
                        "lab12::tile_launch: block (kTile, kTile), one per tile of C");
    return rules;
  };
}

/// The shared product check (tests/common/matmul_grading.hpp), with the number of k tiles in
/// the failure trace: the double-buffering tail bugs depend on it.
void expect_product_with_k_tiles(const Launch& launch, const KernelInfo& kernel, const Shape& s) {
  SCOPED_TRACE(std::to_string(k_tiles(s.k)) + " k tiles");
  matmul_grading::expect_correct_product(launch, tile_rules(kernel), s);
}

// ---------------------------------------------------------------------------
// Given: the synchronous baseline is right (not graded).
// ---------------------------------------------------------------------------
class GivenSyncGpu : public ::testing::TestWithParam<Shape> {};

TEST_P(GivenSyncGpu, ExactOnOddShapes) {
  CUDALAB_REQUIRE_GPU();
  expect_product_with_k_tiles(lab12::matmul_sync, lab12::sync_kernel(), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Shapes, GivenSyncGpu,
                         ::testing::Values(Shape{17, 33, 5}, Shape{129, 65, 257},
                                           Shape{2, 300, 1030}),
                         shape_name);

// ---------------------------------------------------------------------------
// Correctness on odd shapes: an odd number of k tiles ending in a partial tile is where a
// double-buffered loop most often drops or repeats its last tile.
// ---------------------------------------------------------------------------
class RegisterPrefetchGpu : public ::testing::TestWithParam<Shape> {};

TEST_P(RegisterPrefetchGpu, CorrectOnOddShapes) {
  CUDALAB_REQUIRE_GPU();
  expect_product_with_k_tiles(lab12::matmul_register_prefetch, lab12::register_prefetch_kernel(),
                              GetParam());
}

INSTANTIATE_TEST_SUITE_P(Shapes, RegisterPrefetchGpu, ::testing::ValuesIn(kShapes), shape_name);

class PipelinedGpu : public ::testing::TestWithParam<Shape> {};

TEST_P(PipelinedGpu, CorrectOnOddShapes) {
  CUDALAB_REQUIRE_GPU();
  expect_product_with_k_tiles(lab12::matmul_pipelined, lab12::pipelined_kernel(), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Shapes, PipelinedGpu, ::testing::ValuesIn(kShapes), shape_name);

class TmaPipelineGpu : public ::testing::TestWithParam<Shape> {};

TEST_P(TmaPipelineGpu, CorrectOnOddShapes) {
  CUDALAB_REQUIRE_GPU();
  expect_product_with_k_tiles(lab12::matmul_tma, lab12::tma_kernel(), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Shapes, TmaPipelineGpu, ::testing::ValuesIn(kTmaShapes), shape_name);

// matmul_tma's contract, each case one bad argument of an otherwise valid call (8 x 8 x 8,
// 256-byte aligned pointers). The launcher is given (tma_pipeline.cu, outside the TODO region):
// not graded. Nothing is launched: the pointers are unallocated. What it must accept (any m,
// k and n multiples of 4 down to 4) is TmaPipelineGpu.CorrectOnOddShapes.
TEST(GivenArgumentChecksCpu, TmaLauncherRejectsBadSizesAndMisalignedOperands) {
  struct Case {
    int m, n, k;
    std::size_t a_offset, b_offset;  ///< bytes past a 256-byte aligned address
    std::string why;
  };
  cudalab::kit::OneChange<Case> cases(Case{8, 8, 8, 0, 0, ""});
  for (const int bad : {0, -1, -4}) {
    const std::string v = std::to_string(bad);
    cases.add("m = " + v + " is not positive", [=](Case& c) { c.m = bad; });
    cases.add("n = " + v + " is not positive", [=](Case& c) { c.n = bad; });
    cases.add("k = " + v + " is not positive", [=](Case& c) { c.k = bad; });
  }
  for (const int bad : {1, 2, 3, 5, 6, 33}) {
    const std::string v = std::to_string(bad);
    cases.add("k = " + v + " is not a multiple of 4 (rows of A off 16-byte boundaries)",
              [=](Case& c) { c.k = bad; });
    cases.add("n = " + v + " is not a multiple of 4 (rows of B off 16-byte boundaries)",
              [=](Case& c) { c.n = bad; });
  }
  for (const std::size_t bad : {4, 8, 12}) {
    const std::string v = std::to_string(bad);
    cases.add("d_a " + v + " bytes past a 16-byte boundary", [=](Case& c) { c.a_offset = bad; });
    cases.add("d_b " + v + " bytes past a 16-byte boundary", [=](Case& c) { c.b_offset = bad; });
  }
  for (const Case& c : cases.list) {
    const std::string what = "matmul_tma(d_a=<aligned + " + std::to_string(c.a_offset) +
                             ">, d_b=<aligned + " + std::to_string(c.b_offset) +
                             ">, m=" + std::to_string(c.m) + ", n=" + std::to_string(c.n) +
                             ", k=" + std::to_string(c.k) + ")";
    EXPECT_TRUE(cudalab::kit::throws_invalid_argument(what, [&] {
      lab12::matmul_tma(cudalab::kit::unallocated<const float>(c.a_offset),
                        cudalab::kit::unallocated<const float>(c.b_offset),
                        cudalab::kit::unallocated<float>(), c.m, c.n, c.k);
    })) << c.why;
  }
}

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

TEST(IndexRangeGpu, RegisterPrefetchPast2To31Elements) {
  CUDALAB_REQUIRE_GPU();
  matmul_grading::expect_large_a_rows(lab12::matmul_register_prefetch,
                                      tile_rules(lab12::register_prefetch_kernel()), lab12::kTile,
                                      3);
}
TEST(IndexRangeGpu, PipelinedPast2To31Elements) {
  CUDALAB_REQUIRE_GPU();
  matmul_grading::expect_large_a_rows(lab12::matmul_pipelined,
                                      tile_rules(lab12::pipelined_kernel()), lab12::kTile, 3);
}
TEST(TmaIndexRangeGpu, BulkCopiesPast2To31Elements) {
  CUDALAB_REQUIRE_GPU();
  matmul_grading::expect_large_a_rows(lab12::matmul_tma, tile_rules(lab12::tma_kernel()),
                                      lab12::kTile, 4);
}
// B (1040 x 2^21, + 3 where odd widths are allowed) and C (65535 tiles of rows x about
// 2^31 / rows columns) past 2^31 elements: offsets p * n and row * n must be 64-bit too.
TEST(IndexRangeGpu, RegisterPrefetchPast2To31ElementsOfB) {
  CUDALAB_REQUIRE_GPU();
  matmul_grading::expect_large_b_columns(lab12::matmul_register_prefetch,
                                         tile_rules(lab12::register_prefetch_kernel()),
                                         lab12::kTile, true);
}
TEST(IndexRangeGpu, PipelinedPast2To31ElementsOfB) {
  CUDALAB_REQUIRE_GPU();
  matmul_grading::expect_large_b_columns(lab12::matmul_pipelined,
                                         tile_rules(lab12::pipelined_kernel()), 5, false);
}
TEST(TmaIndexRangeGpu, BulkCopiesPast2To31ElementsOfB) {
  CUDALAB_REQUIRE_GPU();
  matmul_grading::expect_large_b_columns(lab12::matmul_tma, tile_rules(lab12::tma_kernel()),
                                         lab12::kTile, false);
}
TEST(IndexRangeGpu, RegisterPrefetchPast2To31ElementsOfC) {
  CUDALAB_REQUIRE_GPU();
  matmul_grading::expect_large_c_rows(lab12::matmul_register_prefetch,
                                      tile_rules(lab12::register_prefetch_kernel()), lab12::kTile,
                                      true);
}
TEST(IndexRangeGpu, PipelinedPast2To31ElementsOfC) {
  CUDALAB_REQUIRE_GPU();
  matmul_grading::expect_large_c_rows(lab12::matmul_pipelined,
                                      tile_rules(lab12::pipelined_kernel()), lab12::kTile, false);
}
TEST(TmaIndexRangeGpu, BulkCopiesPast2To31ElementsOfC) {
  CUDALAB_REQUIRE_GPU();
  matmul_grading::expect_large_c_rows(lab12::matmul_tma, tile_rules(lab12::tma_kernel()),
                                      lab12::kTile, false);
}

// ---------------------------------------------------------------------------
// Small runs: what the sanitizer tests re-run under compute-sanitizer (a few blocks; an odd
// number of k tiles with a partial last one). One suite per kernel, so a student who skipped
// the advanced kernel fails only its own tests. In 41 x 35 x 69 the last row of A and of B
// ends in a partial group of four floats that starts 16-byte aligned: a 16-byte copy of it
// reads past the end of the matrix.
// ---------------------------------------------------------------------------
const Shape kSmall[] = {{40, 33, 70}, {17, 65, 100}, {41, 35, 69}};

TEST(SmallPrefetchGpu, RegisterPrefetch) {
  CUDALAB_REQUIRE_GPU();
  for (const Shape& s : kSmall)
    expect_product_with_k_tiles(lab12::matmul_register_prefetch, lab12::register_prefetch_kernel(),
                                s);
}
TEST(SmallPipelinedGpu, Pipelined) {
  CUDALAB_REQUIRE_GPU();
  for (const Shape& s : kSmall)
    expect_product_with_k_tiles(lab12::matmul_pipelined, lab12::pipelined_kernel(), s);
}
TEST(SmallTmaGpu, BulkCopyPipeline) {
  CUDALAB_REQUIRE_GPU();
  for (const Shape& s : {Shape{40, 36, 68}, Shape{17, 64, 100}}) {
    expect_product_with_k_tiles(lab12::matmul_tma, lab12::tma_kernel(), s);
  }
}

CUDALAB_SANITIZER_SUITE(PrefetchSanitizer, "SmallPrefetchGpu.*", racecheck, synccheck, memcheck)
CUDALAB_SANITIZER_SUITE(PipelinedSanitizer, "SmallPipelinedGpu.*", racecheck, synccheck, memcheck)
CUDALAB_SANITIZER_SUITE(TmaSanitizer, "SmallTmaGpu.*", racecheck, synccheck, memcheck)

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

// ---------------------------------------------------------------------------
// Speed (cudalab::kit::ProductRace): both kernels are timed as captured graphs (provenance
// checked first), interleaved; the candidate reads one of two input sets (copied behind its
// pointers before every timed run) and its C is NaN before every run; the output of its last
// run must equal the synchronous kernel's on the same set exactly (small integers) and the
// host's on a few rows.
// ---------------------------------------------------------------------------
class PerfFixture : public ::testing::Test {
 protected:
  void SetUp() override { CUDALAB_REQUIRE_GPU(); }

  /// Square n^3 product: every SM runs two blocks (full occupancy).
  static Shape full_occupancy() { return {kPerfSize, kPerfSize, kPerfSize}; }

  /// One block per SM: a grid of gy x gx <= SMs blocks, k = kLongK.
  static Shape latency_exposed() {
    const int sms = cudalab::query_device().sm_count;
    const int gy = std::max(1, static_cast<int>(std::sqrt(double(sms))));
    const int gx = std::max(1, sms / gy);
    return {gy * lab12::kTile, gx * lab12::kTile, kLongK};
  }

  /// Times the synchronous kernel against @p launch (its graph may hold only @p kernel) on a
  /// @p shape product, checks the last output and the FP32 ceiling; returns the comparison.
  static cudalab::Comparison time_against_sync(const Shape& shape, const Launch& launch,
                                               const KernelInfo& kernel, const std::string& what) {
    kit::ProductRace race(shape);
    const cudalab::Comparison cmp =
        race.time({lab12::matmul_sync, only_kernel(lab12::sync_kernel()), "the synchronous kernel"},
                  {launch, only_kernel(kernel), what}, what);
    if (::testing::Test::HasFailure()) return cmp;
    cudalab::testing::record_measurement(what + " TFLOP/s", race.tflops(cmp.candidate.median_ms),
                                         "TFLOP/s");
    std::printf("[ SPEED    ] %s: synchronous %.3f ms, candidate %.3f ms\n", what.c_str(),
                cmp.baseline.median_ms, cmp.candidate.median_ms);
    return cmp;
  }
};

class FullOccupancyPerf : public PerfFixture {};

TEST_F(FullOccupancyPerf, PipelinedDoesNotRegress) {
  const auto cmp =
      time_against_sync(full_occupancy(), lab12::matmul_pipelined, lab12::pipelined_kernel(),
                        "two-stage cp.async vs synchronous, 4096^2 (full occupancy)");
  if (HasFailure()) return;
  cudalab::testing::expect_speedup(cmp,
                                   "two-stage cp.async vs synchronous at full occupancy (no "
                                   "large regression)");
}

TEST_F(FullOccupancyPerf, RegisterPrefetchDoesNotRegress) {
  const auto cmp = time_against_sync(full_occupancy(), lab12::matmul_register_prefetch,
                                     lab12::register_prefetch_kernel(),
                                     "register prefetch vs synchronous, 4096^2 (full occupancy)");
  if (HasFailure()) return;
  cudalab::testing::expect_speedup(cmp,
                                   "register prefetch vs synchronous at full occupancy (no "
                                   "large regression)");
}

class LatencyExposedPerf : public PerfFixture {};

TEST_F(LatencyExposedPerf, PipelinedHidesTheLoadLatency) {
  const auto cmp =
      time_against_sync(latency_exposed(), lab12::matmul_pipelined, lab12::pipelined_kernel(),
                        "two-stage cp.async vs synchronous, one block per SM");
  if (HasFailure()) return;
  cudalab::testing::expect_speedup(
      cmp, "two-stage cp.async vs synchronous, one block per SM, k = " + std::to_string(kLongK));
}

TEST_F(LatencyExposedPerf, RegisterPrefetchHidesTheLoadLatency) {
  const auto cmp = time_against_sync(latency_exposed(), lab12::matmul_register_prefetch,
                                     lab12::register_prefetch_kernel(),
                                     "register prefetch vs synchronous, one block per SM");
  if (HasFailure()) return;
  cudalab::testing::expect_speedup(
      cmp, "register prefetch vs synchronous, one block per SM, k = " + std::to_string(kLongK));
}

class TmaPerf : public PerfFixture {};

TEST_F(TmaPerf, DoesNotRegressAtFullOccupancy) {
  const auto cmp = time_against_sync(full_occupancy(), lab12::matmul_tma, lab12::tma_kernel(),
                                     "two-stage bulk copy vs synchronous, 4096^2 (full occupancy)");
  if (HasFailure()) return;
  cudalab::testing::expect_speedup(cmp, "two-stage bulk copy vs synchronous at full occupancy");
}

TEST_F(TmaPerf, HidesTheLoadLatencyWithOneBlockPerSm) {
  const auto cmp = time_against_sync(latency_exposed(), lab12::matmul_tma, lab12::tma_kernel(),
                                     "two-stage bulk copy vs synchronous, one block per SM");
  if (HasFailure()) return;
  cudalab::testing::expect_speedup(cmp, "two-stage bulk copy vs synchronous, one block per SM");
}

// ---------------------------------------------------------------------------
// Nsight Compute: where the warps wait. One block per SM, the synchronous kernel and the
// two-stage pipeline on the same data (this test is also what the profiler test re-runs).
// ---------------------------------------------------------------------------
TEST(LatencyExposedGpu, PipelinedMatchesSyncOnOneBlockPerSm) {
  CUDALAB_REQUIRE_GPU();
  const int sms = cudalab::query_device().sm_count;
  const int gy = std::max(1, static_cast<int>(std::sqrt(double(sms))));
  const int gx = std::max(1, sms / gy);
  const int m = gy * lab12::kTile, n = gx * lab12::kTile, k = 2060;  // 65 tiles
  const auto h_a = cudalab::random_matrix(m, k, cudalab::Fill::SmallInt, 7);
  const auto h_b = cudalab::random_matrix(k, n, cudalab::Fill::SmallInt, 8);
  cudalab::DeviceBuffer<float> d_a(h_a.size()), d_b(h_b.size()), d_ref(std::size_t(m) * n),
      d_c(std::size_t(m) * n);
  d_a.upload(h_a);
  d_b.upload(h_b);
  lab12::matmul_sync(d_a.data(), d_b.data(), d_ref.data(), m, n, k);
  const std::vector<float> ref = d_ref.to_host();
  for (const auto& [name, launch] :
       {std::pair{"register prefetch", Launch(lab12::matmul_register_prefetch)},
        std::pair{"two-stage cp.async", Launch(lab12::matmul_pipelined)}}) {
    d_c.fill_bytes(0xFF);
    launch(d_a.data(), d_b.data(), d_c.data(), m, n, k, nullptr);
    EXPECT_TRUE(cudalab::testing::matrices_match(ref, d_c.to_host(), m, n, 0.0)) << name;
  }
}

TEST(PipelinedProfiler, FewerLongScoreboardStallsPerInstruction) {
  CUDALAB_REQUIRE_GPU();
  const std::string long_sb =
      "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio";
  const std::string barrier = "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio";
  // Recorded only: where the rest of the time goes.
  const std::vector<std::string> others = {
      "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio",
      "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio",
      "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio",
      "smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio",
      "smsp__inst_executed.sum",
      "gpu__time_duration.sum"};
  std::vector<std::string> metrics = {long_sb, barrier};
  metrics.insert(metrics.end(), others.begin(), others.end());
  const KernelInfo sync_k = lab12::sync_kernel(), prefetch_k = lab12::register_prefetch_kernel(),
                   pipelined_k = lab12::pipelined_kernel();
  const cudalab::testing::NcuRun run = cudalab::testing::run_ncu(
      metrics, std::string(sync_k.name) + "|" + prefetch_k.name + "|" + pipelined_k.name,
      "LatencyExposedGpu.PipelinedMatchesSyncOnOneBlockPerSm");
  if (!run.available) GTEST_SKIP() << run.skip_reason;
  ASSERT_EQ(run.exit_code, 0) << cudalab::testing::excerpt(run.output);
  double sync = -1, pipelined = -1;
  for (const auto& kern : run.kernels) {
    const auto l = kern.values.find(long_sb), b = kern.values.find(barrier);
    ASSERT_TRUE(l != kern.values.end() && b != kern.values.end())
        << kern.name << ": metrics missing in the ncu report";
    std::string tag = "sync";
    if (kern.name.find(pipelined_k.name) != std::string::npos) tag = "pipelined";
    if (kern.name.find(prefetch_k.name) != std::string::npos) tag = "register_prefetch";
    cudalab::testing::record_measurement(tag + "_long_scoreboard_per_issue", l->second, "warps");
    cudalab::testing::record_measurement(tag + "_barrier_per_issue", b->second, "warps");
    for (const std::string& o : others) {
      const auto v = kern.values.find(o);
      if (v != kern.values.end())
        cudalab::testing::record_measurement(tag + " " + o, v->second, "");
    }
    if (tag == "sync") sync = l->second;
    if (tag == "pipelined") pipelined = l->second;
  }
  ASSERT_GT(sync, 0.0) << "no profiled launch of " << sync_k.name
                       << " (or no long-scoreboard stalls)";
  ASSERT_GE(pipelined, 0.0) << "no profiled launch of " << pipelined_k.name;
  const double share = pipelined / sync;
  const double bound = cudalab::testing::speed_bar("long_scoreboard_share",
                                                   cudalab::testing::Bound::kAtMost, share) /
                       cudalab::speedup_scale();
  cudalab::testing::record_measurement("long_scoreboard_share", share, "x", bound,
                                       cudalab::testing::Bound::kAtMost);
  EXPECT_LE(share, bound) << "long-scoreboard stalls per issued instruction: two-stage "
                          << pipelined << ", synchronous " << sync << " (share " << share
                          << ", needs <= " << bound
                          << "): the loads of the next step should be in flight during the "
                             "multiply, not waited for right after they are issued";
}

// ---------------------------------------------------------------------------
// The technique in the machine code (cuobjdump -sass of this grader, no GPU). The two-stage
// kernel copies with cp.async (LDGSTS), commits groups (LDGDEPBAR) and waits on them (DEPBAR);
// sm_80 and later. The bulk-copy kernel copies with the TMA unit (UBLKCP, or UTMALDG for a
// tensor map), completes on mbarriers (SYNCS) and holds no cp.async: part 2's kernel under its
// name fails; sm_90 and later.
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

TEST(PipelineSassCpu, TmaKernelCopiesWithBulkCopiesOnMbarriers) {
  kit::expect_sass(
      lab12::tma_kernel(),
      {kit::sass_requires({"UBLKCP", "UTMALDG"},
                          "the tile rows must be copied by the TMA unit (cuda::memcpy_async of "
                          "aligned_size_t<16> on a block-scope cuda::barrier: cp.async.bulk)"),
       kit::sass_requires({"SYNCS"},
                          "the stages must complete on mbarriers (cuda::barrier in "
                          "shared memory)"),
       kit::sass_forbids({"LDGSTS"},
                         "the bulk-copy kernel must not copy with cp.async "
                         "(part 2's technique)")},
      "", 90);
}

}  // namespace
