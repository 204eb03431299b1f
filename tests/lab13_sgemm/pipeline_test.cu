// SPDX-License-Identifier: BSD-3-Clause
// Lab 13, stages 4 and 5 (pipeline.cu): the block swizzle on the CPU, the cp.async pipeline in
// the machine code (cp.async, its block size, copies in flight during the FFMAs), which tile
// each block computes, and the pipelined kernels under compute-sanitizer. Their correctness,
// index range and speed are checked with every technique's (sgemm_test.cu).

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/graph_capture.cuh"
#include "sgemm_grading.cuh"

namespace {

using namespace lab13_grading;

// ---------------------------------------------------------------------------
// Stage 5 on the CPU: the swizzle visits every tile exactly once, in groups down the rows.
// ---------------------------------------------------------------------------
TEST(SwizzleCpu, VisitsEveryTileExactlyOnce) {
  for (int tiles_m = 1; tiles_m <= 19; ++tiles_m) {
    for (int tiles_n = 1; tiles_n <= 13; ++tiles_n) {
      for (const int group : {1, 2, 3, 4, 8, 16}) {
        std::vector<int> seen(std::size_t(tiles_m) * tiles_n, -1);
        for (int block = 0; block < tiles_m * tiles_n; ++block) {
          const lab13::TileCoord t = lab13::swizzle_tile(block, tiles_m, tiles_n, group);
          ASSERT_TRUE(t.row >= 0 && t.row < tiles_m && t.col >= 0 && t.col < tiles_n)
              << "block " << block << " of a " << tiles_m << " x " << tiles_n << " grid (group "
              << group << ") -> tile (" << t.row << ", " << t.col << "): outside the grid";
          int& first = seen[std::size_t(t.row) * tiles_n + t.col];
          ASSERT_EQ(first, -1) << "blocks " << first << " and " << block << " of a " << tiles_m
                               << " x " << tiles_n << " grid (group " << group
                               << ") both compute tile (" << t.row << ", " << t.col
                               << "): some other tile is never computed";
          first = block;
        }
      }
    }
  }
}

/// The documented order (sgemm.cuh, handout): block b lies in group g = b / (group * tiles_n)
/// of rows = min(group, tiles_m - g * group) tile rows; position p inside it maps to tile row
/// g * group + p % rows, column p / rows.
lab13::TileCoord documented_swizzle(int block, int tiles_m, int tiles_n, int group) {
  const int g = block / (group * tiles_n), p = block % (group * tiles_n);
  const int rows = std::min(group, tiles_m - g * group);
  return {g * group + p % rows, p / rows};
}

TEST(SwizzleCpu, WalksDownTheRowsOfAGroupFirst) {
  // Every grid: full groups, a last group with fewer rows (tiles_m % group != 0), and grids
  // with fewer tile rows than one group (the graded 4096^2 grid is 32 x 16, groups of 8).
  for (int tiles_m = 1; tiles_m <= 19; ++tiles_m) {
    for (const int tiles_n : {1, 2, 5, 13, 16}) {
      for (const int group : {1, 3, 4, lab13::kSwizzleGroup, 16}) {
        for (int block = 0; block < tiles_m * tiles_n; ++block) {
          const lab13::TileCoord t = lab13::swizzle_tile(block, tiles_m, tiles_n, group);
          const lab13::TileCoord want = documented_swizzle(block, tiles_m, tiles_n, group);
          ASSERT_TRUE(t.row == want.row && t.col == want.col)
              << "block " << block << " of a " << tiles_m << " x " << tiles_n
              << " grid of tiles, groups of " << group << " rows: tile (" << t.row << ", " << t.col
              << "), the documented order gives (" << want.row << ", " << want.col
              << ") (the blocks of a group walk down its rows, also in a last, shorter group)";
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------
// The pipelined kernel in the machine code (cuobjdump -sass of this grader, on the CPU):
// cp.async (LDGSTS) in every pipelined kernel and 16-byte copies on its vector path, no local
// memory, compiled for its block, and the copies of a later k tile in flight during the FFMAs.
// ---------------------------------------------------------------------------
TEST_F(StagesSassCpu, PipelinedKernelCopiesWithCpAsync) {
  if (const std::string why = no_cp_async_code(); !why.empty()) GTEST_SKIP() << why;
  const KernelInfo pipelined = lab13::pipelined_kernel();
  const auto functions = sass_functions(mangled_name(pipelined), kCpAsyncSm);
  ASSERT_FALSE(functions.empty()) << "no function named like " << pipelined.name
                                  << " in cuobjdump -sass of this grader:\n"
                                  << sass::sass_of_this_grader().excerpt;
  bool wide_copy = false, wide_store = false;
  for (const auto& [name, ops] : functions) {
    EXPECT_TRUE(has_op(ops, "LDGSTS", false))
        << name << " has no cp.async (LDGSTS): the tiles must reach shared memory by cp.async";
    expect_no_local_memory(name, ops);
    wide_copy = wide_copy || has_op(ops, "LDGSTS", true);
    wide_store = wide_store || has_op(ops, "STG", true);
  }
  EXPECT_TRUE(wide_copy) << "no instance of " << pipelined.name
                         << " copies 16 bytes per cp.async (LDGSTS...128): the B tile's vector "
                            "path";
  EXPECT_TRUE(wide_store) << "no instance of " << pipelined.name
                          << " stores C 16 bytes at a time (STG.E.128) on its vector path";
}

TEST_F(StagesSassCpu, PipelinedKernelsAreCompiledForTheirBlock) {
  // cudaFuncGetAttributes' maxThreadsPerBlock cannot tell: at the ~190-215 registers these
  // kernels take, it reads 256 with or without __launch_bounds__ (measured on the H200).
  const sass::LaunchBoundsListing& bounds = sass::launch_bounds_of_this_grader();
  if (!bounds.skip_reason.empty()) GTEST_SKIP() << bounds.skip_reason;
  const KernelInfo pipelined = lab13::pipelined_kernel();
  int found = 0;
  for (const auto& [name, threads] : bounds.kernels) {
    if (name.find(mangled_name(pipelined)) == std::string::npos) continue;
    ++found;
    EXPECT_EQ(threads, lab13::kPipeThreads)
        << name << " is compiled for "
        << (threads == 0 ? std::string("any block size") : std::to_string(threads) + " threads")
        << ": __launch_bounds__(" << lab13::kPipeThreads
        << ", 1) on the kernel tells the compiler the block it must fit (stage 6)";
  }
  EXPECT_GT(found, 0) << "no kernel named like " << pipelined.name
                      << " in cuobjdump -elf of this grader:\n"
                      << bounds.excerpt;
}

// The pipeline's point: the copies of a later k tile are in flight while the FFMAs of the
// current one run. In program order, an FFMA whose nearest cp.async event (an LDGSTS, a commit
// LDGDEPBAR, or a wait DEPBAR.LE SB0, 0x0 for every group) is such a wait computes with no
// copy in flight: the wait covered the copies issued last. The solution waits for tile t with
// kStages - 2 groups still pending, or (right/pipeline_waits_for_every_group.patch) for every
// group BEFORE it issues the next copy; a kernel that issues the next copy and then waits for
// it (or copies a tile and waits for it) before its FFMAs overlaps nothing.

/// Where the FFMAs of one SASS function stand against its cp.async copies.
struct CopyOverlap {
  int copies = 0;       ///< LDGSTS instructions
  int ffma = 0;         ///< FFMA instructions
  int after_drain = 0;  ///< FFMAs whose nearest preceding cp.async event waits for every group
};

/// True for `DEPBAR.LE SB0, 0x0` (cp.async.wait_group 0 / wait_all): no group left pending.
bool waits_for_every_group(const std::string& opcode, const std::string& operands) {
  if (opcode.rfind("DEPBAR", 0) != 0 || operands.rfind("SB0", 0) != 0) return false;
  const std::size_t comma = operands.find(',');
  if (comma == std::string::npos) return false;
  return std::strtoul(operands.c_str() + comma + 1, nullptr, 0) == 0;
}

CopyOverlap copy_overlap(const std::vector<std::string>& opcodes,
                         const std::vector<std::string>& operands) {
  CopyOverlap o;
  bool drained = false;  // the nearest cp.async event so far waits for every group
  for (std::size_t i = 0; i < opcodes.size(); ++i) {
    const std::string& op = opcodes[i];
    if (op.rfind("LDGSTS", 0) == 0 || op.rfind("LDGDEPBAR", 0) == 0) {
      o.copies += op.rfind("LDGSTS", 0) == 0 ? 1 : 0;
      drained = false;
    } else if (waits_for_every_group(op, i < operands.size() ? operands[i] : "")) {
      drained = true;
    } else if (op.rfind("FFMA", 0) == 0) {
      ++o.ffma;
      o.after_drain += drained ? 1 : 0;
    }
  }
  return o;
}

/// Empty when the copies can overlap the FFMAs (most FFMAs follow a copy issued after the last
/// wait for every group); otherwise what is wrong.
std::string overlap_verdict(const CopyOverlap& o) {
  if (o.copies == 0) return "no cp.async (LDGSTS)";
  if (o.ffma == 0) return "no FFMA: where is the multiply?";
  if (2 * o.after_drain <= o.ffma) return {};
  return std::to_string(o.after_drain) + " of its " + std::to_string(o.ffma) +
         " FFMAs run right after a wait for every cp.async group (DEPBAR.LE SB0, 0x0) with no "
         "copy issued since: the copies just issued are waited for before the multiply, so no "
         "copy is in flight while it runs. Wait for tile t with kStages - 2 groups pending (or "
         "wait first, then issue the next copy), then compute";
}

TEST_F(StagesSassCpu, PipelinedKernelsComputeWhileTheNextCopiesFly) {
  if (const std::string why = no_cp_async_code(); !why.empty()) GTEST_SKIP() << why;
  const KernelInfo pipelined = lab13::pipelined_kernel();
  int found = 0;
  for (const sass::SassFunction& f : sass::sass_of_this_grader().functions) {
    if (cudalab::kit::sm_number(f.arch) < kCpAsyncSm) continue;
    if (f.name.find(mangled_name(pipelined)) == std::string::npos) continue;
    ++found;
    const CopyOverlap o = copy_overlap(f.opcodes, f.operands);
    const std::string verdict = overlap_verdict(o);
    EXPECT_TRUE(verdict.empty()) << f.name << " (" << f.arch << "): " << verdict;
  }
  EXPECT_GT(found, 0) << "no function named like " << pipelined.name
                      << " in cuobjdump -sass of this grader:\n"
                      << sass::sass_of_this_grader().excerpt;
}

// Given (not graded): the overlap rule on hand-written listings.
TEST(GivenSassRulesCpu, CopiesInFlightDuringTheFfmas) {
  using Listing = std::vector<std::pair<std::string, std::string>>;
  const auto verdict = [](const Listing& l) {
    std::vector<std::string> ops, args;
    for (const auto& [op, arg] : l) {
      ops.push_back(op);
      args.push_back(arg);
    }
    return overlap_verdict(copy_overlap(ops, args));
  };
  const std::pair<std::string, std::string> copy{"LDGSTS.E.BYPASS.LTC128B.128", "[R1], [R2.64]"},
      commit{"LDGDEPBAR", ""}, wait1{"DEPBAR.LE", "SB0, 0x1"}, wait0{"DEPBAR.LE", "SB0, 0x0"},
      bar{"BAR.SYNC.DEFER_BLOCKING", "0x0"}, lds{"LDS.128", "R4, [R3]"},
      ffma{"FFMA", "R8, R4, R5, R8"}, bra{"BRA", "0x200"}, stg{"STG.E.128", "[R6.64], R8"},
      exit{"EXIT", ""};
  // The solution: a prologue, then wait (kStages - 2 pending), barrier, next copy, multiply.
  EXPECT_EQ(verdict({copy, commit, copy, commit, wait1, bar, copy, commit, lds, ffma, ffma, bra,
                     wait0, stg, exit}),
            "");
  // right/pipeline_waits_for_every_group.patch: wait for all, then issue the next copy.
  EXPECT_EQ(verdict({copy, commit, wait0, bar, copy, commit, lds, ffma, ffma, bra, wait0, stg}),
            "");
  // The solution with its loop rotated (the multiply first, the wait and copy at the bottom).
  EXPECT_EQ(verdict({copy, commit, copy, commit, wait1, bar, copy, commit, lds, ffma, ffma, wait1,
                     bar, copy, commit, bra, wait0, stg}),
            "");
  // A wait after the commit that leaves the copy just issued pending.
  EXPECT_EQ(verdict({copy, commit, bar, copy, commit, wait1, bar, lds, ffma, ffma, bra}), "");
  // The next copy issued, then waited for, then the multiply: no overlap.
  EXPECT_NE(verdict({copy, commit, bar, copy, commit, wait0, bar, lds, ffma, ffma, bra, stg}), "");
  // The same with its loop rotated: the multiply at the top, after the prologue's full wait.
  EXPECT_NE(
      verdict({copy, commit, wait0, bar, lds, ffma, ffma, bar, copy, commit, wait0, bar, bra, stg}),
      "");
  // Copy after the multiply, wait for it at the top of the next step: no overlap either.
  EXPECT_NE(verdict({copy, commit, wait0, bar, lds, ffma, ffma, bar, copy, commit, bra}), "");
  EXPECT_NE(verdict({lds, ffma, stg}), "");            // no cp.async at all
  EXPECT_NE(verdict({copy, commit, wait0, stg}), "");  // no FFMA
  EXPECT_TRUE(waits_for_every_group("DEPBAR.LE", "SB0, 0x0"));
  EXPECT_FALSE(waits_for_every_group("DEPBAR.LE", "SB0, 0x2"));
  EXPECT_FALSE(waits_for_every_group("DEPBAR.LE", "SB5, 0x0"));
}

// ---------------------------------------------------------------------------
// Which tile each block computes (stages 4 and 5): the launcher's captured kernel is launched
// again with only its first blocks (the 1-D grid cut short); the tiles those blocks computed
// hold the product, every other tile keeps its NaN. Stage 4 must go row by row, stage 5 in
// swizzle groups (a stage 5 that launches stage 4's order, or maps blocks another way, fails).
// ---------------------------------------------------------------------------

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

/// Captures @p stage's launcher, checks its graph holds one launch of the pipelined kernel on a 1-D
/// grid of @p tiles blocks, then launches that kernel with the same arguments on @p blocks blocks.
void launch_first_blocks(const lab13::Technique& stage, const float* d_a, const float* d_b,
                         float* d_c, int m, int n, int k, unsigned tiles, unsigned blocks) {
  const KernelInfo kernel = kernel_for(stage, Shape{m, n, k});
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  stage.launcher(d_a, d_b, d_c, m, n, k, stream);
  cudaGraph_t graph = nullptr;
  CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  std::size_t count = 0;
  CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &count));
  std::vector<cudaGraphNode_t> nodes(count);
  if (count > 0) CUDA_CHECK(cudaGraphGetNodes(graph, nodes.data(), &count));
  cudaKernelNodeParams p{};
  int kernels = 0;
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type{};
    CUDA_CHECK(cudaGraphNodeGetType(node, &type));
    if (type == cudaGraphNodeTypeKernel) {
      cudalab::testing::kernel_node_params(node, &p);
      ++kernels;
    }
  }
  const char* name = nullptr;
  const bool named = kernels == 1 && cudaFuncGetName(&name, p.func) == cudaSuccess;
  (void)cudaGetLastError();
  const std::string name_of_node = named && name != nullptr ? name : "";
  // The launcher's own call: (const float* a, const float* b, float* c, int m, int n, int k).
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
  int dims[3] = {0, 0, 0};
  const bool ours = name_of_node.find(mangled_name(kernel)) != std::string::npos &&
                    ends_with(cudalab::testing::demangle(name_of_node),
                              "(float const*, float const*, float*, int, int, int)");
  if (ours && p.kernelParams != nullptr) {
    std::memcpy(&a, p.kernelParams[0], sizeof a);
    std::memcpy(&b, p.kernelParams[1], sizeof b);
    std::memcpy(&c, p.kernelParams[2], sizeof c);
    for (int i = 0; i < 3; ++i) std::memcpy(&dims[i], p.kernelParams[3 + i], sizeof(int));
  }
  const dim3 grid = p.gridDim, block = p.blockDim;
  const unsigned smem = p.sharedMemBytes;
  CUDA_CHECK(cudaGraphDestroy(graph));
  CUDA_CHECK(cudaStreamDestroy(stream));
  ASSERT_TRUE(ours) << "the captured graph should hold exactly one launch of " << kernel.name
                    << " (" << kernels << " kernel nodes; kernel " << name_of_node << ")";
  ASSERT_NE(p.kernelParams, nullptr) << "the kernel node holds no argument array";
  ASSERT_TRUE(a == d_a && b == d_b && c == d_c && dims[0] == m && dims[1] == n && dims[2] == k)
      << "the kernel should be launched with (a, b, c, m, n, k) as the launcher got them";
  ASSERT_TRUE(grid.x == tiles && grid.y == 1 && grid.z == 1)
      << "the pipelined kernel runs on a 1-D grid of tiles_m x tiles_n = " << tiles
      << " blocks (sgemm.cuh); the grid was (" << grid.x << ", " << grid.y << ", " << grid.z << ")";
  void* args[] = {&a, &b, &c, &dims[0], &dims[1], &dims[2]};
  CUDA_CHECK(cudaLaunchKernel(p.func, dim3(blocks), block, args, smem, nullptr));
  CUDA_CHECK(cudaDeviceSynchronize());
}

/// Runs @p stage on an 11 x 5 grid of tiles (a last swizzle group of 3 rows) with only its first
/// @p blocks blocks and checks that exactly the tiles want(b) of blocks b < blocks were written.
template <class Want>
void expect_block_order(const lab13::Technique& stage, unsigned blocks, Want want) {
  CUDALAB_REQUIRE_GPU();
  SCOPED_TRACE(std::string("stage ") + stage.name);
  const int tiles_m = 11, tiles_n = 5;
  const int m = (tiles_m - 1) * lab13::kPipeBlockM + 3, n = tiles_n * lab13::kPipeBlockN - 4;
  const int k = 20;
  const auto h_a = cudalab::random_matrix(m, k, cudalab::Fill::SmallInt, 61);
  const auto h_b = cudalab::random_matrix(k, n, cudalab::Fill::SmallInt, 62);
  cudalab::DeviceBuffer<float> d_a(h_a.size()), d_b(h_b.size()), d_c(std::size_t(m) * n);
  d_a.upload(h_a);
  d_b.upload(h_b);
  cudalab::testing::poison(d_c.data(), d_c.bytes());
  CUDA_CHECK(cudaDeviceSynchronize());
  launch_first_blocks(stage, d_a.data(), d_b.data(), d_c.data(), m, n, k,
                      unsigned(tiles_m * tiles_n), blocks);
  if (::testing::Test::HasFatalFailure()) return;
  const std::vector<float> got = d_c.to_host();
  std::set<std::pair<int, int>> computed;
  for (unsigned b = 0; b < blocks; ++b) {
    const lab13::TileCoord t = want(int(b), tiles_m, tiles_n);
    computed.insert({t.row, t.col});
  }
  for (int tr = 0; tr < tiles_m; ++tr) {
    for (int tc = 0; tc < tiles_n; ++tc) {
      // The tile's last element inside C: written only by the block that computes the tile.
      const int r = std::min(m, (tr + 1) * lab13::kPipeBlockM) - 1;
      const int col = std::min(n, (tc + 1) * lab13::kPipeBlockN) - 1;
      const float v = got[std::size_t(r) * n + col];
      if (computed.count({tr, tc}) != 0) {
        double sum = 0.0;
        for (int i = 0; i < k; ++i)
          sum += double(h_a[std::size_t(r) * k + i]) * h_b[std::size_t(i) * n + col];
        EXPECT_EQ(v, sum) << "tile (" << tr << ", " << tc << ") should have been computed by one "
                          << "of the first " << blocks << " blocks: C(" << r << ", " << col << ")";
      } else {
        EXPECT_TRUE(std::isnan(v)) << "tile (" << tr << ", " << tc << ") was computed by one of "
                                   << "the first " << blocks << " blocks, which should compute "
                                   << "other tiles: C(" << r << ", " << col << ") = " << v;
      }
    }
  }
}

TEST(BlockOrderGpu, PipelinedBlocksGoRowByRow) {
  // 13 blocks: tile rows 0 and 1 and the first 3 tiles of row 2.
  expect_block_order(technique_of(lab13::sgemm_pipelined), 13, [](int b, int, int tiles_n) {
    return lab13::TileCoord{b / tiles_n, b % tiles_n};
  });
}

TEST(BlockOrderGpu, SwizzledBlocksWalkDownTheirGroup) {
  // 47 blocks: the first group (8 rows x 5 columns) and 7 blocks of the last group of 3 rows.
  expect_block_order(technique_of(lab13::sgemm_swizzled), 47, [](int b, int tiles_m, int tiles_n) {
    return documented_swizzle(b, tiles_m, tiles_n, lab13::kSwizzleGroup);
  });
}

// ---------------------------------------------------------------------------
// Races, memory errors, barriers (compute-sanitizer) on small shapes with partial tiles.
// ---------------------------------------------------------------------------
constexpr const char* kPipelineSanitized =
    "Shapes/PipelinedGpu.*/17x17x17:Shapes/PipelinedGpu.*/129x260x33:"
    "Shapes/SwizzledGpu.*/130x68x20:Shapes/SwizzledGpu.*/257x516x1028";

CUDALAB_SANITIZER_SUITE(PipelineSanitizer, kPipelineSanitized, racecheck, memcheck, synccheck)

}  // namespace
