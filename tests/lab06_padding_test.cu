// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 06: the padded tile layout (CPU, bank model), and the given tile kernels run
// with it (GPU: captured on the launcher's stream, poisoned memory, two data sets, exact on
// odd shapes and within tolerance on floats, static shared memory, measured conflict degree,
// speed against the conflicting kernels, sanitizers, Nsight Compute bank-conflict counters).
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/tile_grading.hpp"
#include "padding.cuh"

namespace {

using tile_grading::Lanes;
using tile_grading::MatmulShape;
using tile_grading::Shape;

// ---------------------------------------------------------------------------
// Thresholds. Measured with the reference solution on an NVIDIA H200 (CUDA 13.0), three full runs;
// speed thresholds sit >= 30 % below the lowest measured ratio.
// ---------------------------------------------------------------------------
/// Padded vs conflicting matmul at 4096^2: measured 3.806x, 3.806x, 3.806x (6.81 against 1.79
/// TFLOP/s).
constexpr double kMatmulSpeedup = 2.6;
/// Padded vs conflicting transpose at 4096^2: measured 1.763x, 1.767x, 1.770x (2270 against 1286
/// GB/s).
constexpr double kTransposeSpeedup = 1.2;
/// Nsight Compute bank conflicts per shared instruction: measured 0 for the padded
/// kernels, 11.6 (transpose) and 5.3 (matmul) for the conflicting ones.
constexpr double kMaxConflictsPerInstruction = 0.05;
constexpr double kMinBaselineConflictsPerInstruction = 2.0;
/// Side of the square problems of the perf tests.
constexpr int kPerfSize = 4096;

constexpr int kTile = lab06::kTile;
/// What the captured graph of a lab 06 launcher may hold: the tile kernels with the padded
/// layout (their mangled names carry the layout type), nothing else.
const std::vector<std::string> kOwnKernels = {"PaddedLayout"};

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
// Padded transpose and matmul (GPU): exact on odd shapes and rectangles.
// ---------------------------------------------------------------------------
class PaddedTransposeGpu : public ::testing::TestWithParam<Shape> {};

TEST_P(PaddedTransposeGpu, MatchesTheHostTranspose) {
  CUDALAB_REQUIRE_GPU();
  tile_grading::expect_transpose_with_every_block(lab06::padded_transpose, GetParam(), kOwnKernels);
}

INSTANTIATE_TEST_SUITE_P(Shapes, PaddedTransposeGpu,
                         ::testing::ValuesIn(tile_grading::kTransposeShapes),
                         tile_grading::shape_name);

class PaddedMatmulGpu : public ::testing::TestWithParam<MatmulShape> {};

TEST_P(PaddedMatmulGpu, MatchesTheHostMatmulExactly) {
  CUDALAB_REQUIRE_GPU();
  tile_grading::expect_matmul_ok(padded_matmul, GetParam(), cudalab::Fill::SmallInt, kOwnKernels);
}

TEST_P(PaddedMatmulGpu, MatchesTheHostMatmulOnFloats) {
  CUDALAB_REQUIRE_GPU();
  tile_grading::expect_matmul_ok(padded_matmul, GetParam(), cudalab::Fill::Uniform, kOwnKernels);
}

INSTANTIATE_TEST_SUITE_P(Shapes, PaddedMatmulGpu, ::testing::ValuesIn(tile_grading::kMatmulShapes),
                         tile_grading::matmul_shape_name);

// Edge shapes of the given tile kernels (one element, one column) with the padded layout:
// any layout that keeps the elements of a tile row apart passes them, so not graded.
TEST(GivenTileEdgesGpu, PaddedKernelsHandleOneElementAndOneColumn) {
  CUDALAB_REQUIRE_GPU();
  tile_grading::expect_given_edge_shapes_exact(lab06::padded_transpose, padded_matmul, kOwnKernels);
}

// Every kernel of the lab, padded and conflicting, once on small odd shapes: what the
// sanitizer and profiler tests re-run under their tools.
TEST(SmallShapesGpu, PaddedAndConflictingKernelsAreExact) {
  CUDALAB_REQUIRE_GPU();
  tile_grading::expect_small_shapes_exact(padded_transpose, padded_matmul, "padded");
}

// The tile the kernels declare is the layout's, and it is padded: more words than the plain
// 32 x 32 tile (padding spends memory; a tile of exactly 32 x 32 words is the unpadded one),
// at most one spare word per row.
TEST(PaddedSharedMemoryGpu, KernelsDeclareThePaddedTile) {
  CUDALAB_REQUIRE_GPU();
  const std::size_t plain_tile = std::size_t(kTile) * kTile * sizeof(float);
  for (const auto& [kernel, name, plain_tiles] :
       {std::make_tuple(lab06::padded_transpose_kernel(), "transpose", 0),
        std::make_tuple(lab06::padded_matmul_kernel(), "matmul", 1)}) {
    cudaFuncAttributes attr{};
    CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel));
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
                                         kOwnKernels);
}

TEST(PaddedPerf, MatmulBeatsTheConflictingMatmul) {
  CUDALAB_REQUIRE_GPU();
  tile_grading::expect_matmul_speedup(padded_matmul, kPerfSize, kMatmulSpeedup, "padded",
                                      kOwnKernels);
}

// ---------------------------------------------------------------------------
// compute-sanitizer over SmallShapesGpu: races (a missing __syncthreads()), out-of-bounds
// accesses (a missing edge check), barrier misuse.
// ---------------------------------------------------------------------------
TEST(PaddedSanitizer, RacecheckIsClean) {
  CUDALAB_REQUIRE_GPU();
  CUDALAB_EXPECT_SANITIZER_CLEAN("racecheck", "SmallShapesGpu.*");
}

TEST(PaddedSanitizer, MemcheckIsClean) {
  CUDALAB_REQUIRE_GPU();
  CUDALAB_EXPECT_SANITIZER_CLEAN("memcheck", "SmallShapesGpu.*");
}

TEST(PaddedSanitizer, SynccheckIsClean) {
  CUDALAB_REQUIRE_GPU();
  CUDALAB_EXPECT_SANITIZER_CLEAN("synccheck", "SmallShapesGpu.*");
}

// ---------------------------------------------------------------------------
// Nsight Compute: bank conflicts per shared-memory instruction, padded vs conflicting.
// ---------------------------------------------------------------------------
TEST(PaddedProfiler, PaddedKernelsHaveNoBankConflicts) {
  CUDALAB_REQUIRE_GPU();
  TILE_GRADING_EXPECT_FEW_CONFLICTS("PaddedLayout", "SmallShapesGpu.*", kMaxConflictsPerInstruction,
                                    kMinBaselineConflictsPerInstruction);
}

}  // namespace
