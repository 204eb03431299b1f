// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 06: the padded tile layout (CPU, bank model), the student's padded transpose
// kernel and the given tile matmul run with the layout (GPU: captured on the launcher's stream,
// poisoned memory, two data sets, exact on ragged, single-row, single-column and large shapes
// with every transpose block shape, within tolerance on floats, static shared memory, measured
// conflict degree, speed against the conflicting kernels, sanitizers, Nsight Compute
// bank-conflict counters).
#include <iterator>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/tile_grading.hpp"
#include "padding.cuh"

namespace {

using tile_grading::Extent;
using tile_grading::Lanes;
using tile_grading::Shape;

// ---------------------------------------------------------------------------
// Thresholds. Measured with the reference solution on an NVIDIA H200 (CUDA 13.0), three full runs;
// speed thresholds sit >= 30 % below the lowest measured ratio.
// ---------------------------------------------------------------------------
/// Padded vs conflicting matmul at 4096^2: measured 3.806x, 3.806x, 3.806x (6.81 against 1.79
/// TFLOP/s).
constexpr double kMatmulSpeedup = 2.6;
/// Padded vs conflicting transpose at 4096^2: measured 1.763x, 1.767x, 1.770x (2270 against 1286
/// GB/s) when the padded transpose was the given tile kernel run with the padded layout; the
/// solution's own kernel (padded_tile_transpose_kernel) is that code with padded_offset()
/// inlined. Lead: measure on GPU (re-measure with the student-written kernel's solution).
constexpr double kTransposeSpeedup = 1.2;
/// Nsight Compute bank conflicts per shared instruction: measured 0 for the padded
/// kernels (the transpose then the given tile kernel), 11.6 (transpose) and 5.3 (matmul) for
/// the conflicting ones.
constexpr double kMaxConflictsPerInstruction = 0.05;
constexpr double kMinBaselineConflictsPerInstruction = 2.0;
/// Side of the square problems of the perf tests.
constexpr int kPerfSize = 4096;

constexpr int kTile = lab06::kTile;
// What the captured graph of padded_transpose may hold: lab06::padded_transpose_kernel(), the
// student's kernel, nothing else (not the given tile transpose with the padded layout, nor the
// conflicting baseline); of padded_matmul: lab06::padded_matmul_kernel(), the given tile matmul
// with the padded layout (named after the layout type, which only its instances carry).

/// The graded transpose shapes: the tile labs' shapes (ragged tiles at both edges, single rows,
/// rectangles), single columns and one element, and large ragged ones.
std::vector<tile_grading::Extent> transpose_shapes() {
  std::vector<tile_grading::Extent> shapes(std::begin(tile_grading::kTransposeShapes),
                                           std::end(tile_grading::kTransposeShapes));
  shapes.insert(shapes.end(), {{1, 1}, {100, 1}, {4097, 3}, {3, 4097}, {1023, 4099}});
  return shapes;
}

/// Lane l accesses tile element at(l) = (row, col); returns each lane's word in the padded tile.
template <typename At>
Lanes padded_words(At at) {
  Lanes w{};
  for (int l = 0; l < kTile; ++l) {
    const auto [row, col] = at(l);
    w[l] = lab06::padded_offset(row, col);
  }
  return w;
}

void padded_transpose(const float* in, float* out, int rows, int cols, cudaStream_t s) {
  lab06::padded_transpose(in, out, rows, cols, lab06::kTransposeBlockRows, s);
}

void padded_matmul(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t s) {
  lab06::padded_matmul(a, b, c, m, n, k, s);
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
TEST(GivenArgumentChecksCpu, PaddedTransposeRejectsBadSizesBlockRowsAndTallGrids) {
  tile_grading::expect_transpose_launcher_rejects_bad_arguments(lab06::padded_transpose,
                                                                "padded_transpose");
}

TEST(GivenArgumentChecksCpu, PaddedMatmulRejectsBadSizesAndTallGrids) {
  // "as above": padded_matmul takes no block_rows; sizes and tile rows of 32 rows of C.
  cudalab::kit::expect_product_launcher_rejects_bad_sizes(padded_matmul, "padded_matmul", kTile);
}

// ---------------------------------------------------------------------------
// Padded transpose and matmul (GPU): exact on odd shapes and rectangles.
// ---------------------------------------------------------------------------
class PaddedTransposeGpu : public ::testing::TestWithParam<Extent> {};

TEST_P(PaddedTransposeGpu, MatchesTheHostTranspose) {
  CUDALAB_REQUIRE_GPU();
  tile_grading::expect_transpose_with_every_block(lab06::padded_transpose, GetParam(),
                                                  lab06::padded_transpose_kernel());
}

INSTANTIATE_TEST_SUITE_P(Shapes, PaddedTransposeGpu, ::testing::ValuesIn(transpose_shapes()),
                         tile_grading::shape_name);

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

// Every kernel of the lab, padded and conflicting, once on small odd shapes, and the student's
// transpose also on a single element, a single column and a ragged shape with the narrowest and
// the tallest block: what the sanitizer and profiler tests re-run under their tools (each
// operand in its own allocation of exactly its size, so memcheck sees a read past its end).
TEST(SmallShapesGpu, PaddedAndConflictingKernelsAreExact) {
  CUDALAB_REQUIRE_GPU();
  tile_grading::expect_small_shapes_exact(padded_transpose, padded_matmul, "padded");
  for (const Extent s : {Extent{1, 1}, Extent{100, 1}, Extent{33, 65}}) {
    for (const int block_rows : {1, kTile}) {
      EXPECT_TRUE(tile_grading::transpose_ok(
          [block_rows](const float* in, float* out, int rows, int cols, cudaStream_t st) {
            lab06::padded_transpose(in, out, rows, cols, block_rows, st);
          },
          s.rows, s.cols))
          << "padded transpose " << s.rows << "x" << s.cols << ", block " << kTile << "x"
          << block_rows;
    }
  }
}

// The tile the kernels declare is the layout's, and it is padded: more words than the plain
// 32 x 32 tile (padding spends memory; a tile of exactly 32 x 32 words is the unpadded one),
// at most one spare word per row. The transpose kernel is the student's: it must declare its
// tile as kPaddedTileWords floats (a kernel without a shared tile declares 0 bytes).
TEST(PaddedSharedMemoryGpu, KernelsDeclareThePaddedTile) {
  CUDALAB_REQUIRE_GPU();
  const std::size_t plain_tile = std::size_t(kTile) * kTile * sizeof(float);
  for (const auto& [kernel, name, plain_tiles] :
       {std::make_tuple(lab06::padded_transpose_kernel(), "transpose", 0),
        std::make_tuple(lab06::padded_matmul_kernel(), "matmul", 1)}) {
    cudaFuncAttributes attr{};
    CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel.function));
    const std::size_t expected =
        std::size_t(lab06::padded_tile_words()) * sizeof(float) + plain_tiles * plain_tile;
    cudalab::testing::record_measurement(std::string(name) + " static shared memory",
                                         double(attr.sharedSizeBytes), "bytes", double(expected));
    EXPECT_EQ(attr.sharedSizeBytes, expected)
        << "the padded " << name << " kernel declares " << attr.sharedSizeBytes
        << " bytes; padded_tile_words() says its tile takes " << lab06::padded_tile_words()
        << " words";
    const std::size_t padded_part = attr.sharedSizeBytes - plain_tiles * plain_tile;
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
  tile_grading::record_plain_column_degree();
  for (const int c : {0, 13, kTile - 1}) {
    tile_grading::expect_measured_conflict_free(
        padded_words([c](int l) { return std::make_pair(l, c); }), "column " + std::to_string(c));
  }
}

TEST(PaddedMeterGpu, RowAccessMeasuresConflictFree) {
  CUDALAB_REQUIRE_GPU();
  for (const int r : {0, 7, kTile - 1}) {
    tile_grading::expect_measured_conflict_free(
        padded_words([r](int l) { return std::make_pair(r, l); }), "row " + std::to_string(r));
  }
}

// ---------------------------------------------------------------------------
// Speed (GPU, 4096^2): padded vs conflicting, interleaved, output checked.
// ---------------------------------------------------------------------------
TEST(PaddedPerf, TransposeBeatsTheConflictingTranspose) {
  CUDALAB_REQUIRE_GPU();
  tile_grading::expect_transpose_speedup(padded_transpose, kPerfSize, kTransposeSpeedup, "padded",
                                         lab06::padded_transpose_kernel());
}

TEST(PaddedPerf, MatmulBeatsTheConflictingMatmul) {
  CUDALAB_REQUIRE_GPU();
  tile_grading::expect_matmul_speedup(padded_matmul, kPerfSize, kMatmulSpeedup, "padded",
                                      lab06::padded_matmul_kernel());
}

// ---------------------------------------------------------------------------
// compute-sanitizer over SmallShapesGpu: races (a missing __syncthreads()), out-of-bounds
// accesses (a missing edge check), barrier misuse.
// ---------------------------------------------------------------------------
CUDALAB_SANITIZER_TEST(PaddedSanitizer, RacecheckIsClean, "racecheck", "SmallShapesGpu.*")
CUDALAB_SANITIZER_TEST(PaddedSanitizer, MemcheckIsClean, "memcheck", "SmallShapesGpu.*")
CUDALAB_SANITIZER_TEST(PaddedSanitizer, SynccheckIsClean, "synccheck", "SmallShapesGpu.*")

// ---------------------------------------------------------------------------
// Nsight Compute: bank conflicts per shared-memory instruction, padded vs conflicting.
// ---------------------------------------------------------------------------
// The student's transpose kernel against the conflicting tile transpose, the given matmul with
// the padded layout against the conflicting matmul.
TEST(PaddedProfiler, PaddedKernelsHaveNoBankConflicts) {
  CUDALAB_REQUIRE_GPU();
  const std::vector<tile_grading::ConflictComparison> kernels = {
      {tile_grading::profiled(lab06::padded_transpose_kernel()),
       tile_grading::profiled_tile_kernel(smem_tiles::kTileTransposeKernelName,
                                          smem_tiles::conflicting_transpose_kernel())},
      tile_grading::tile_matmul_comparison(lab06::padded_matmul_kernel())};
  TILE_GRADING_EXPECT_FEW_CONFLICTS_IN(kernels, "SmallShapesGpu.*", kMaxConflictsPerInstruction,
                                       kMinBaselineConflictsPerInstruction);
}

}  // namespace
