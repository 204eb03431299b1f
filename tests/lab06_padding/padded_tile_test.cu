// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 06, padded_tile.cu: the padded tile layout on the CPU (every element its own word
// of the padded tile, rows and columns conflict-free in the bank model), the given launchers'
// argument checks, the student's in-place tile-pair transpose exact on ragged, single-tile and
// large square shapes with every transpose block shape, the given tile matmul with the layout
// exact on odd shapes and rectangles (within tolerance on floats) and on the edge shapes, the
// kernels' static shared memory, the measured conflict degree of the layout's column and row
// accesses, and the speed of both against the conflicting kernels. Their small runs, the
// sanitizers and the Nsight Compute counters are padding_test.cu's; helpers in
// padding_grading.cuh.
#include <algorithm>
#include <climits>
#include <cstddef>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "padding_grading.cuh"

namespace {

using namespace lab06_grading;

/// Side of the square problems of the perf tests.
constexpr int kPerfSize = 4096;

/**
 * @brief The graded sizes of the in-place transpose, one test each; an instance with more than
 * one size checks them in turn. One element (1) transposes to itself, so it shares its instance
 * with 2, the smallest matrix a transpose changes. The others: one ragged tile (31), one whole
 * tile (32), tiles cut at the edge with T = 2, 3, 4, 9 and 32 tile rows (33, 65, 100, 257,
 * 999), exact multiples (64 + 1 below, 1024) and a large ragged one (2049, T = 65: a map from
 * block to tile pair that is only right for small T fails there).
 */
const std::vector<std::vector<int>> kInPlaceSizes = {{1, 2}, {31},  {32},  {33},   {65},
                                                     {100},  {257}, {999}, {1024}, {2049}};

/// Test-name suffix of an instance: its sizes joined by "_" ("1_2", "33").
std::string sizes_name(const ::testing::TestParamInfo<std::vector<int>>& info) {
  std::string name;
  for (const int n : info.param) name += (name.empty() ? "" : "_") + std::to_string(n);
  return name;
}

/// Lane l accesses tile element at(l) = (row, col); returns each lane's word in the padded tile.
template <typename At>
Lanes padded_words(At at) {
  return tile_grading::lane_words(lab06::padded_offset, at);
}

// ---------------------------------------------------------------------------
// The padded layout (CPU, exhaustive over the tile, judged by the bank model).
// ---------------------------------------------------------------------------
TEST(PaddedLayoutCpu, EveryElementOwnsOneWordOfThePaddedTile) {
  const int words = lab06::padded_tile_words();
  EXPECT_GE(words, kTile * kTile) << "a " << kTile << "x" << kTile << " tile needs at least "
                                  << kTile * kTile << " words";
  EXPECT_LE(words, kTile * (kTile + 1))
      << "padding should cost at most one word per row (float tile[" << kTile << "][" << kTile + 1
      << "] = " << kTile * (kTile + 1) << " words), the layout declares " << words;
  std::map<int, std::pair<int, int>> owner;  // word -> the element stored there
  for (int r = 0; r < kTile; ++r) {
    for (int c = 0; c < kTile; ++c) {
      const int w = lab06::padded_offset(r, c);
      ASSERT_TRUE(w >= 0 && w < words) << "padded_offset(" << r << ", " << c << ") = " << w
                                       << " lies outside the tile's " << words << " words";
      const auto [it, fresh] = owner.emplace(w, std::make_pair(r, c));
      ASSERT_TRUE(fresh) << "padded_offset(" << r << ", " << c << ") = " << w
                         << " is already the word of element (" << it->second.first << ", "
                         << it->second.second << "): the two would overwrite each other";
    }
  }
}

TEST(PaddedLayoutCpu, RowAccessIsConflictFree) {
  for (int r = 0; r < kTile; ++r) {
    ASSERT_TRUE(tile_grading::conflict_free(
        padded_words([r](int l) { return std::make_pair(r, l); }),
        "row " + std::to_string(r) + " (lane l reads (" + std::to_string(r) + ", l))"));
  }
}

TEST(PaddedLayoutCpu, ColumnAccessIsConflictFree) {
  for (int c = 0; c < kTile; ++c) {
    ASSERT_TRUE(tile_grading::conflict_free(
        padded_words([c](int l) { return std::make_pair(l, c); }),
        "column " + std::to_string(c) + " (lane l reads (l, " + std::to_string(c) + "))"));
  }
}

// ---------------------------------------------------------------------------
// The launchers' argument checks (CPU: each must throw before any CUDA call). The launchers are
// given (padded_tile.cu, outside the TODO regions), so these are not graded.
// ---------------------------------------------------------------------------
TEST(GivenArgumentChecksCpu, PaddedTransposeInPlaceRejectsBadSizesAndBlockRows) {
  struct Case {
    int n, block_rows;
    std::string why;
  };
  constexpr int kRows = lab06::kTransposeBlockRows;
  std::vector<Case> cases = {
      {0, kRows, "n = 0 is not positive"},
      {-1, kRows, "n = -1 is not positive"},
      {INT_MIN, kRows, "n = INT_MIN is not positive"},
      {lab06::kMaxInPlaceN + 1, kRows,
       std::to_string(lab06::kMaxInPlaceN + 1) + " needs 65536 tile rows of 32, whose 65536 * " +
           "65537 / 2 tile pairs are more blocks than gridDim.x allows (2^31 - 1)"},
      {INT_MAX, kRows, "INT_MAX needs far more tile pairs than gridDim.x allows"},
  };
  for (const int bad : {0, -1, -32, 3, 5, 12, 33, 64}) {
    cases.push_back({64, bad,
                     "block_rows = " + std::to_string(bad) + " is not a divisor of " +
                         std::to_string(kTile) + " (1, 2, 4, 8, 16 or 32)"});
  }
  for (const Case& c : cases) {
    const std::string what = "padded_transpose_in_place(n=" + std::to_string(c.n) +
                             ", block_rows=" + std::to_string(c.block_rows) + ")";
    EXPECT_TRUE(cudalab::kit::throws_invalid_argument(what, [&] {
      lab06::padded_transpose_in_place(cudalab::kit::unallocated<float>(), c.n, c.block_rows,
                                       nullptr);
    })) << c.why;
  }
}

TEST(GivenArgumentChecksCpu, PaddedMatmulRejectsBadSizesAndTallGrids) {
  // "as above": padded_matmul takes no block_rows; sizes and tile rows of 32 rows of C.
  cudalab::kit::expect_product_launcher_rejects_bad_sizes(padded_matmul, "padded_matmul", kTile);
}

// ---------------------------------------------------------------------------
// Padded in-place transpose and matmul (GPU): exact on ragged and large squares, rectangles.
// ---------------------------------------------------------------------------
class PaddedTransposeGpu : public ::testing::TestWithParam<std::vector<int>> {};

TEST_P(PaddedTransposeGpu, MatchesTheHostTranspose) {
  CUDALAB_REQUIRE_GPU();
  for (const int n : GetParam()) {
    for (int block_rows = 1; block_rows <= kTile; block_rows *= 2) {
      SCOPED_TRACE(std::to_string(n) + "x" + std::to_string(n) + " in place, block " +
                   std::to_string(kTile) + "x" + std::to_string(block_rows));
      expect_in_place_ok(n, block_rows);
      if (HasFailure()) return;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, PaddedTransposeGpu, ::testing::ValuesIn(kInPlaceSizes),
                         sizes_name);

class PaddedMatmulGpu : public ::testing::TestWithParam<Shape> {};

TEST_P(PaddedMatmulGpu, MatchesTheHostMatmulExactly) {
  CUDALAB_REQUIRE_GPU();
  tile_grading::expect_matmul_ok(padded_matmul, GetParam(), cudalab::Fill::SmallInt,
                                 lab06::padded_matmul_kernel());
}

TEST_P(PaddedMatmulGpu, MatchesTheHostMatmulOnFloats) {
  CUDALAB_REQUIRE_GPU();
  tile_grading::expect_matmul_ok(padded_matmul, GetParam(), cudalab::Fill::Uniform,
                                 lab06::padded_matmul_kernel());
}

INSTANTIATE_TEST_SUITE_P(Shapes, PaddedMatmulGpu, ::testing::ValuesIn(tile_grading::kMatmulShapes),
                         tile_grading::shape_name);

// Edge shapes of the given tile matmul (one element, one column) with the padded layout:
// any layout that keeps the elements of a tile row apart passes them, so not graded (the
// transpose is the student's: its edge shapes are graded in PaddedTransposeGpu).
TEST(GivenTileEdgesGpu, PaddedMatmulHandlesOneElementAndOneColumn) {
  CUDALAB_REQUIRE_GPU();
  for (const Shape s : tile_grading::kGivenEdgeMatmulShapes) {
    SCOPED_TRACE(cudalab::kit::to_string(s));
    tile_grading::expect_matmul_ok(padded_matmul, s, cudalab::Fill::SmallInt,
                                   lab06::padded_matmul_kernel());
  }
}

// The tiles the kernels declare are the layout's, and they are padded: more words than the plain
// 32 x 32 tile (padding spends memory; a tile of exactly 32 x 32 words is the unpadded one),
// at most one spare word per row. The transpose kernel is the student's: it swaps a tile pair,
// so it must declare two tiles of kPaddedTileWords floats (a kernel without a shared tile
// declares 0 bytes, one that stages a single tile of the pair half of it); the matmul declares
// one padded A tile and a plain B tile.
TEST(PaddedSharedMemoryGpu, KernelsDeclareThePaddedTile) {
  CUDALAB_REQUIRE_GPU();
  const std::size_t plain_tile = std::size_t(kTile) * kTile * sizeof(float);
  for (const auto& [kernel, name, padded_tiles, plain_tiles] :
       {std::make_tuple(lab06::padded_transpose_kernel(), "transpose", 2, 0),
        std::make_tuple(lab06::padded_matmul_kernel(), "matmul", 1, 1)}) {
    cudaFuncAttributes attr{};
    CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel.function));
    const std::size_t expected =
        padded_tiles * std::size_t(lab06::padded_tile_words()) * sizeof(float) +
        plain_tiles * plain_tile;
    cudalab::testing::record_measurement(std::string(name) + " static shared memory",
                                         double(attr.sharedSizeBytes), "bytes", double(expected));
    EXPECT_EQ(attr.sharedSizeBytes, expected)
        << "the padded " << name << " kernel declares " << attr.sharedSizeBytes << " bytes; "
        << padded_tiles << " padded tile(s) of padded_tile_words() = " << lab06::padded_tile_words()
        << " words" << (plain_tiles ? " and a plain 32x32 tile" : "") << " take " << expected;
    const std::size_t padded_part =
        (attr.sharedSizeBytes -
         std::min<std::size_t>(attr.sharedSizeBytes, plain_tiles * plain_tile)) /
        padded_tiles;
    EXPECT_GT(padded_part, plain_tile)
        << "the " << name << " kernel's tile takes " << padded_part << " bytes, no more than "
        << "an unpadded " << kTile << "x" << kTile << " float tile (" << plain_tile
        << " bytes): a padded tile spends spare words (kPaddedTileWords)";
    EXPECT_LE(padded_part, std::size_t(kTile) * (kTile + 1) * sizeof(float))
        << "the " << name << " kernel's tile spends more than one spare word per row";
  }
}

// ---------------------------------------------------------------------------
// Measured conflict degree (GPU, clock64 meter) of the layout's column and row accesses.
// ---------------------------------------------------------------------------
TEST(PaddedMeterGpu, ColumnAccessMeasuresConflictFree) {
  CUDALAB_REQUIRE_GPU();
  tile_grading::expect_columns_measure_conflict_free(lab06::padded_offset);
}

TEST(PaddedMeterGpu, RowAccessMeasuresConflictFree) {
  CUDALAB_REQUIRE_GPU();
  tile_grading::expect_rows_measure_conflict_free(lab06::padded_offset);
}

// ---------------------------------------------------------------------------
// Speed (GPU, 4096^2): padded vs conflicting, interleaved, output checked.
// ---------------------------------------------------------------------------
// The student's in-place transpose against the given conflicting out-of-place transpose on the
// same n x n input: both read and write every element once. The in-place kernel works on a
// buffer of its own: before each of its timed runs (untimed) the next input is copied into
// that buffer (about sqrt(n) elements changed every run, cudalab::testing::AlternatingInput);
// three rows of every run, drawn at random after it, are checked against the transpose of what
// that run read, and the last run whole; the bandwidth is bounded by the DRAM ceiling.
TEST(PaddedPerf, TransposeBeatsTheConflictingTranspose) {
  CUDALAB_REQUIRE_GPU();
  const int n = kPerfSize;
  const std::size_t count = std::size_t(n) * n;
  cudalab::testing::AlternatingInput<float> in(in_place_input(n, 0), in_place_input(n, 1));
  cudalab::DeviceBuffer<float> d_base(count), d_work(count);
  CUDA_CHECK(cudaMemcpy(d_work.data(), in.live.data(), d_work.bytes(), cudaMemcpyDeviceToDevice));
  cudalab::testing::CapturedWork cap = cudalab::testing::CapturedWork::capture([&](cudaStream_t s) {
    lab06::padded_transpose_in_place(d_work.data(), n, lab06::kTransposeBlockRows, s);
  });
  ASSERT_TRUE(cap.holds_only(tile_grading::only_kernel(lab06::padded_transpose_kernel())));
  auto opts = tile_grading::perf_options(21);
  // An odd number of warm-ups leaves d_work the transpose of the first input, as the check of
  // the last warm-up (input run -1) expects.
  opts.warmup = 3;
  opts.before_baseline = [&](cudaStream_t s) {
    in.copy_next(s);
    cudalab::testing::poison(d_base.data(), d_base.bytes(), s);
  };
  cudalab::kit::RunRows<float> run_rows(d_work.data(), n, n);
  opts.before_candidate = run_rows.before_each_run(in, [&](cudaStream_t s) {
    in.copy_next(s);
    CUDA_CHECK(cudaMemcpyAsync(d_work.data(), in.live.data(), d_work.bytes(),
                               cudaMemcpyDeviceToDevice, s));
  });
  const auto cmp = cudalab::compare(
      [&](cudaStream_t s) {
        tile_grading::conflicting_transpose(in.live.data(), d_base.data(), n, n, s);
      },
      cap.as_work(), opts);
  CUDA_CHECK(cudaDeviceSynchronize());
  ASSERT_GT(in.runs, 0);
  cudalab::kit::expect_every_run_transpose(run_rows, in, n, n, "the timed padded transpose");
  if (HasFailure()) return;  // no speed verdict for a wrong result
  ASSERT_TRUE(cudalab::testing::matrices_match(tile_grading::host_transpose(in.last_input(), n, n),
                                               d_work.to_host(), n, n, 0.0))
      << "the timed padded transpose is wrong (input set " << in.last()
      << " with that run's changed elements); no speed verdict";
  const double bytes = 2.0 * double(count) * sizeof(float);
  const double gbps = bytes / (cmp.candidate.median_ms * 1e6);
  cudalab::testing::record_measurement("padded transpose", gbps, "GB/s");
  cudalab::testing::record_measurement("conflicting transpose",
                                       bytes / (cmp.baseline.median_ms * 1e6), "GB/s");
  cudalab::testing::expect_possible(gbps, cudalab::device_ceilings().dram_gbps, "GB/s",
                                    "padded transpose");
  cudalab::testing::expect_speedup(cmp, "padded vs conflicting transpose");
}

TEST(PaddedPerf, MatmulBeatsTheConflictingMatmul) {
  CUDALAB_REQUIRE_GPU();
  tile_grading::expect_matmul_speedup(padded_matmul, kPerfSize, "padded",
                                      lab06::padded_matmul_kernel());
}

}  // namespace
