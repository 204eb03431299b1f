// SPDX-License-Identifier: BSD-3-Clause
// Lab 13, stage 7 (stream_k.cu; part 3): stream-K's kernels in the machine code, its plan on
// the CPU, its kernels on odd shapes and on one workspace shared by many shapes, under
// compute-sanitizer, and its speed against cuBLAS SGEMM and against stage 5.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "sgemm_grading.cuh"

namespace {

using namespace lab13_grading;

/// k of the technique's shape: a tile takes ~0.7 ms, so the tail tile is worth timing.
constexpr int kStreamKIdentityK = 4096;

// Stage 7's kernels in the machine code: both copy their tiles with cp.async (16-byte copies
// on the vector path), keep their accumulators and both fragment sets in registers (no local
// memory: at ~250 registers a run-time index or a spill would show), and the tail kernel counts
// its blocks with an atomic on the tile counter (ATOM or RED), which the DP kernel never does.
class StreamKSassCpu : public StagesSassCpu {};

TEST_F(StreamKSassCpu, KernelsCopyWithCpAsyncInRegistersAndTheTailCounts) {
  if (const std::string why = no_cp_async_code(); !why.empty()) GTEST_SKIP() << why;
  for (const bool vec : {true, false}) {
    for (const KernelInfo& kernel :
         {lab13::stream_k_dp_kernel(vec), lab13::stream_k_tail_kernel(vec)}) {
      const bool tail = std::strcmp(kernel.name, lab13::stream_k_tail_kernel().name) == 0;
      // "ILb1E" / "ILb0E": the instance of template argument kVec.
      const std::string part = mangled_name(kernel) + (vec ? "ILb1E" : "ILb0E");
      const auto functions = sass_functions(part, kCpAsyncSm);
      ASSERT_FALSE(functions.empty())
          << "no function named like " << part << " in cuobjdump -sass of this grader:\n"
          << sass::sass_of_this_grader().excerpt;
      for (const auto& [name, ops] : functions) {
        EXPECT_TRUE(has_op(ops, "LDGSTS", vec))
            << name << " has no cp.async (LDGSTS" << (vec ? "...128" : "")
            << "): the tiles must reach shared memory by cp.async"
            << (vec ? ", B's 16 bytes at a time on the vector path" : "");
        expect_no_local_memory(name, ops);
        const bool counts = has_op(ops, "ATOM", false) || has_op(ops, "RED", false);
        EXPECT_EQ(counts, tail) << name
                                << (tail ? " has no atomic (ATOM/RED): how does a block learn "
                                           "that it is the last of its tile?"
                                         : " has an atomic (ATOM/RED): the DP kernel's tiles "
                                           "need no fixup");
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Stage 7: stream-K. The plan on the CPU (the rule of sgemm.cuh, stated again below, and what
// any plan must hold: every (tile, k iteration) once, DP in whole waves, at most 2 segments per
// tail block, an even split); the kernels on odd shapes, twice on new data behind the same
// workspace (a counter left set shows on the second run), the graph holding only the plan's
// kernels on the plan's grids.
// ---------------------------------------------------------------------------

/// The plan rule of sgemm.cuh (stream_k_plan), as the grader states it.
lab13::StreamKPlan expected_plan(int m, int n, int k, int slots) {
  lab13::StreamKPlan p;
  p.tiles = ((m + lab13::kPipeBlockM - 1) / lab13::kPipeBlockM) *
            ((n + lab13::kPipeBlockN - 1) / lab13::kPipeBlockN);
  p.iters = (k + lab13::kPipeBlockK - 1) / lab13::kPipeBlockK;
  p.slots = slots;
  const int tail = p.tiles % slots;
  const bool split = tail != 0 && 10 * tail < lab13::kStreamKFallbackTenths * slots;
  p.sk_tiles = split ? tail : 0;
  p.dp_tiles = p.tiles - p.sk_tiles;
  p.sk_blocks = split ? slots : 0;
  const long long iters = static_cast<long long>(p.sk_tiles) * p.iters;
  p.sk_base = split ? static_cast<int>(iters / slots) : 0;
  p.sk_extra = split ? static_cast<int>(iters % slots) : 0;
  return p;
}

std::string plan_text(const lab13::StreamKPlan& p) {
  return "{tiles " + std::to_string(p.tiles) + ", iters " + std::to_string(p.iters) + ", slots " +
         std::to_string(p.slots) + ", dp_tiles " + std::to_string(p.dp_tiles) + ", sk_tiles " +
         std::to_string(p.sk_tiles) + ", sk_blocks " + std::to_string(p.sk_blocks) + ", sk_base " +
         std::to_string(p.sk_base) + ", sk_extra " + std::to_string(p.sk_extra) + "}";
}

/// Empty when @p p covers every (tile, k iteration) of its tiles exactly once (DP tiles whole,
/// the tail's iterations split into consecutive ranges by sk_begin(), each owned by
/// sk_block_of()) with whole waves of DP, a tail shorter than a wave, at most 2 segments per
/// tail block and block ranges within one iteration of each other; else what breaks.
std::string plan_problem(const lab13::StreamKPlan& p) {
  if (p.dp_tiles < 0 || p.sk_tiles < 0 || p.dp_tiles + p.sk_tiles != p.tiles) {
    return "dp_tiles + sk_tiles must be the tiles (every tile computed once)";
  }
  if (p.sk_tiles > 0 && p.dp_tiles % p.slots != 0) return "DP tiles are not whole waves";
  if (p.sk_tiles >= p.slots) return "a tail of a wave or more";
  if ((p.sk_tiles > 0) != (p.sk_blocks > 0)) return "tail blocks without tail tiles, or back";
  if (p.sk_tiles == 0) return {};
  const long long total = static_cast<long long>(p.sk_tiles) * p.iters;
  if (p.sk_begin(0) != 0 || p.sk_begin(p.sk_blocks) != total) {
    return "the tail blocks' ranges run from " + std::to_string(p.sk_begin(0)) + " to " +
           std::to_string(p.sk_begin(p.sk_blocks)) + ", not over all " + std::to_string(total) +
           " tail iterations";
  }
  int shortest = 1 << 30, longest = -1;
  for (int b = 0; b < p.sk_blocks; ++b) {
    const int lo = p.sk_begin(b), hi = p.sk_begin(b + 1);
    if (hi < lo) return "tail block " + std::to_string(b) + "'s range ends before it starts";
    shortest = std::min(shortest, hi - lo);
    longest = std::max(longest, hi - lo);
    if (hi > lo && (hi - 1) / p.iters - lo / p.iters + 1 > 2) {
      return "tail block " + std::to_string(b) + " runs pieces of more than 2 tiles";
    }
    for (int it = lo; it < hi; ++it) {
      if (p.sk_block_of(it) != b) {
        return "tail iteration " + std::to_string(it) + " lies in block " + std::to_string(b) +
               "'s range, but sk_block_of() names block " + std::to_string(p.sk_block_of(it));
      }
    }
  }
  if (longest - shortest > 1) {
    return "tail blocks run " + std::to_string(shortest) + " to " + std::to_string(longest) +
           " iterations: not an even split";
  }
  return {};
}

TEST(StreamKPlanCpu, FollowsTheRuleOnEveryShape) {
  const int slots_list[] = {1, 2, 7, 10, 108, 132, 264};
  const int ms[] = {1, 127, 128, 129, 1000, 4096, 4224, 8192, 17024};
  const int ns[] = {1, 255, 256, 257, 4096, 8192};
  const int ks[] = {1, 15, 16, 17, 40, 4096};
  for (const int slots : slots_list) {
    for (const int m : ms) {
      for (const int n : ns) {
        for (const int k : ks) {
          const lab13::StreamKPlan got = lab13::stream_k_plan(m, n, k, slots);
          const lab13::StreamKPlan want = expected_plan(m, n, k, slots);
          const std::string where = std::to_string(m) + "x" + std::to_string(n) + "x" +
                                    std::to_string(k) + " on " + std::to_string(slots) + " slots";
          const std::string problem = plan_problem(got);
          ASSERT_TRUE(problem.empty()) << where << ": " << problem << ": " << plan_text(got);
          ASSERT_TRUE(got.tiles == want.tiles && got.iters == want.iters &&
                      got.slots == want.slots && got.dp_tiles == want.dp_tiles &&
                      got.sk_tiles == want.sk_tiles && got.sk_blocks == want.sk_blocks &&
                      got.sk_base == want.sk_base && got.sk_extra == want.sk_extra)
              << where << ": plan " << plan_text(got) << ", the rule of sgemm.cuh gives "
              << plan_text(want);
        }
      }
    }
  }
}

TEST(StreamKPlanCpu, SplitsTheLastWaveUnlessItIsNearlyFull) {
  struct Case {
    int m, n, k, slots;
    int dp_tiles, sk_tiles, sk_base, sk_extra;
    const char* what;
  };
  const Case cases[] = {
      {4096, 4096, 4096, 132, 396, 116, 224, 128, "512 tiles: 3 waves + 116 tiles split"},
      {8192, 8192, 8192, 132, 1980, 68, 263, 100, "2048 tiles: 15 waves + 68 tiles split"},
      {4224, 4096, 4096, 132, 528, 0, 0, 0, "528 tiles: exactly 4 waves, no tail"},
      {2048, 2048, 2048, 132, 128, 0, 0, 0, "128 tiles fill 97 % of a wave: no split"},
      {1024, 1024, 1024, 132, 0, 32, 15, 68, "32 tiles: less than a wave, all split"},
      {17024, 256, 4096, 132, 132, 1, 1, 124, "133 tiles: one tile past a wave"},
      {9 * 128, 256, 16, 10, 9, 0, 0, 0, "9 tiles on 10 slots: 90 %, no split"},
      {8 * 128, 256, 16, 10, 0, 8, 0, 8, "8 tiles on 10 slots: 80 %, split"},
  };
  for (const Case& c : cases) {
    const lab13::StreamKPlan p = lab13::stream_k_plan(c.m, c.n, c.k, c.slots);
    EXPECT_TRUE(p.dp_tiles == c.dp_tiles && p.sk_tiles == c.sk_tiles && p.sk_base == c.sk_base &&
                p.sk_extra == c.sk_extra && p.sk_blocks == (c.sk_tiles > 0 ? c.slots : 0))
        << c.m << "x" << c.n << "x" << c.k << " on " << c.slots << " slots (" << c.what
        << "): expected dp_tiles " << c.dp_tiles << ", sk_tiles " << c.sk_tiles << ", sk_base "
        << c.sk_base << ", sk_extra " << c.sk_extra << "; got " << plan_text(p);
  }
}

/// The graph of a stream-K product of shape @p s on this GPU: the DP kernel on dp_tiles blocks
/// and/or the tail kernel on sk_blocks blocks, as the plan rule says, and nothing else.
cudalab::testing::GraphRules stream_k_rules(const Shape& s) {
  const lab13::StreamKPlan p = expected_plan(s.m, s.n, s.k, lab13::stream_k_slots());
  const bool vec = lab13::float4_rows_of_b_c(s.m, s.n, s.k);
  cudalab::testing::GraphRules rules;
  const auto add = [&](const KernelInfo& kernel, int blocks, const char* what) {
    rules.functions.push_back({kernel.function, kernel.name});
    rules.expect_launch(kernel.name, dim3(unsigned(blocks)), kernel.block,
                        unsigned(kernel.dynamic_smem), what);
  };
  if (p.dp_tiles > 0) add(lab13::stream_k_dp_kernel(vec), p.dp_tiles, "the plan's DP tiles");
  if (p.sk_blocks > 0) add(lab13::stream_k_tail_kernel(vec), p.sk_blocks, "the plan's tail");
  return rules;
}

/// A zeroed workspace for stream-K products up to @p bytes, and the launcher bound to it.
struct StreamKWorkspace {
  explicit StreamKWorkspace(std::size_t need)
      : bytes(std::max<std::size_t>(need, 16)), buffer(bytes) {
    CUDA_CHECK(cudaMemset(buffer.data(), 0, bytes));
  }
  explicit StreamKWorkspace(const Shape& s)
      : StreamKWorkspace(lab13::stream_k_workspace_bytes(s.m, s.n, s.k)) {}
  Launch launch() {
    return [this](const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t st) {
      lab13::sgemm_stream_k(a, b, c, m, n, k, buffer.data(), bytes, st);
    };
  }
  std::size_t bytes;
  cudalab::DeviceBuffer<unsigned char> buffer;
};

// Shapes (slots = 132, an H100's or H200's SMs x 1 block): 1x1x1 .. 300x1x40 have fewer tiles
// than 90 % of a wave, so every tile is split (k smaller than the blocks' shares: many blocks
// idle; ragged m, n and k; n % 4 != 0: the scalar path); 257x516x1028: 9 tiles of 65
// iterations, 4-5 per block, ~14 blocks per tile; 4096x4096x64: 3 DP waves + 116 tail tiles;
// 4224x4096x64: 4 whole waves, no tail; 2048x2048x48: 128 tiles, no split (fallback);
// 17024x256x160: one tile past a wave, its 10 iterations on 10 blocks; 25605x300x40: 402
// tiles, 3 DP waves and 6 tail tiles with ragged rows and columns, scalar path.
const Shape kStreamKShapes[] = {
    {1, 1, 1},        {17, 17, 17},     {129, 260, 33},    {1000, 3, 777},   {33, 1001, 515},
    {130, 68, 20},    {40, 516, 1},     {300, 1, 40},      {257, 516, 1028}, {4096, 4096, 64},
    {4224, 4096, 64}, {2048, 2048, 48}, {17024, 256, 160}, {25605, 300, 40}};

class StreamKGpu : public ::testing::TestWithParam<Shape> {};
TEST_P(StreamKGpu, CorrectOnOddShapes) {
  CUDALAB_REQUIRE_GPU();
  StreamKWorkspace ws(GetParam());
  matmul_grading::expect_correct_product(ws.launch(), stream_k_rules, GetParam());
}
INSTANTIATE_TEST_SUITE_P(Shapes, StreamKGpu, ::testing::ValuesIn(kStreamKShapes), shape_name);

TEST(StreamKWorkspaceGpu, OneWorkspaceServesShapesInTurn) {
  CUDALAB_REQUIRE_GPU();
  // One workspace, zeroed once, for every shape in turn, each twice on new data: the counters
  // must be back at 0 after every launch. A workspace one byte short must be refused.
  const Shape shapes[] = {
      {257, 516, 1028}, {129, 260, 33}, {4096, 4096, 32}, {1000, 3, 777}, {257, 516, 1028}};
  std::size_t most = 0;
  for (const Shape& s : shapes)
    most = std::max(most, lab13::stream_k_workspace_bytes(s.m, s.n, s.k));
  StreamKWorkspace ws(most);
  std::uint64_t seed = 300;
  for (const Shape& s : shapes) {
    cudalab::DeviceBuffer<float> d_a(std::size_t(s.m) * s.k), d_b(std::size_t(s.k) * s.n),
        d_c(std::size_t(s.m) * s.n);
    for (int run = 0; run < 2; ++run) {
      SCOPED_TRACE(to_string(s) + ", run " + std::to_string(run + 1) + " on the shared workspace");
      const auto h_a = cudalab::random_matrix(s.m, s.k, cudalab::Fill::SmallInt, seed++);
      const auto h_b = cudalab::random_matrix(s.k, s.n, cudalab::Fill::SmallInt, seed++);
      d_a.upload(h_a);
      d_b.upload(h_b);
      d_c.fill_bytes(0xFF);
      lab13::sgemm_stream_k(d_a.data(), d_b.data(), d_c.data(), s.m, s.n, s.k, ws.buffer.data(),
                            ws.bytes, nullptr);
      CUDA_CHECK(cudaDeviceSynchronize());
      ASSERT_TRUE(cudalab::testing::matrices_match(
          cudalab::reference_matmul(h_a, h_b, s.m, s.n, s.k), d_c.to_host(), s.m, s.n, 0.0));
    }
  }
  const Shape s{4096, 4096, 32};
  const std::size_t need = lab13::stream_k_workspace_bytes(s.m, s.n, s.k);
  ASSERT_GT(need, 0u) << "4096x4096x32 has a tail on this GPU's " << lab13::stream_k_slots()
                      << " slots; its workspace cannot be empty";
  EXPECT_THROW(lab13::sgemm_stream_k(nullptr, nullptr, nullptr, s.m, s.n, s.k, ws.buffer.data(),
                                     need - 1, nullptr),
               std::invalid_argument)
      << "sgemm_stream_k must refuse a workspace smaller than stream_k_workspace_bytes()";
}

// Stage 7: a ragged shape split over many blocks, the scalar path, and DP waves with a tail.
constexpr const char* kStreamKSanitized =
    "Shapes/StreamKGpu.*/129x260x33:Shapes/StreamKGpu.*/1000x3x777:"
    "Shapes/StreamKGpu.*/25605x300x40";
CUDALAB_SANITIZER_SUITE(StreamKSanitizer, kStreamKSanitized, racecheck, memcheck, synccheck)

// ---------------------------------------------------------------------------
// Stage 7's speed: its share of cuBLAS at 4096^3 (512 tiles = 3.88 waves on 132 SMs), and the
// technique's own case, slots + 1 tiles, where stage 5 needs a second wave for one tile.
// ---------------------------------------------------------------------------
class StreamKPerf : public SgemmPerf {};

TEST_F(StreamKPerf, ShareOfCublas) {
  const Shape shape{n, n, n};
  StreamKWorkspace ws(shape);
  const cudalab::Comparison cmp =
      time_against_cublas(ws.launch(), stream_k_rules(shape), "stream_k");
  if (HasFailure()) return;
  cudalab::testing::expect_speedup(cmp, "stream_k share of cuBLAS SGEMM at 4096^3 (same run)");
  record_percent_with_tiers(cmp, "stream_k_percent_of_cublas");
}

TEST_F(StreamKPerf, BeatsSwizzledWhenOneTileStartsANewWave) {
  const int slots = lab13::stream_k_slots();
  const Shape shape{lab13::kPipeBlockM * (slots + 1), lab13::kPipeBlockN, kStreamKIdentityK};
  const lab13::StreamKPlan plan = expected_plan(shape.m, shape.n, shape.k, slots);
  ASSERT_EQ(plan.sk_tiles, 1) << "the case needs one tail tile: " << plan_text(plan);
  StreamKWorkspace ws(shape);
  kit::ProductRace race(shape, 700);
  const kit::Racer swizzled{lab13::sgemm_swizzled, only_kernel(lab13::swizzled_kernel(true)),
                            "stage 5 (swizzled)"};
  const cudalab::Comparison cmp =
      race.time(swizzled, {ws.launch(), stream_k_rules(shape), "stream-K"},
                "stream-K against stage 5 on " + std::to_string(slots + 1) + " tiles");
  if (HasFailure()) return;
  std::printf("[ SPEED    ] %s on %d slots: stage 5 %.3f ms, stream-K %.3f ms = %.2fx\n",
              to_string(shape).c_str(), slots, cmp.baseline.median_ms, cmp.candidate.median_ms,
              cmp.speedup);
  cudalab::testing::expect_speedup(
      cmp, "stream-K over stage 5 with one tile past a whole wave (" + to_string(shape) + ")");
}

}  // namespace
