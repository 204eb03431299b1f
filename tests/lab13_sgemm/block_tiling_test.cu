// SPDX-License-Identifier: BSD-3-Clause
// Lab 13, stage 1 (block_tiling.cu) and the block tiles stages 2 and 3 keep: races, memory
// errors and barriers of the tiled kernels under compute-sanitizer. Their correctness, index
// range and speed are checked with every technique's (sgemm_test.cu).

#include "sgemm_grading.cuh"

namespace {

// ---------------------------------------------------------------------------
// Races, memory errors, barriers (compute-sanitizer) on small shapes with partial tiles.
// ---------------------------------------------------------------------------
constexpr const char* kTiledSanitized =
    "Shapes/BlockTiledGpu.*/17x17x17:Shapes/BlockTiledGpu.*/129x260x33:"
    "Shapes/VectorizedGpu.*/129x260x33:Shapes/VectorizedGpu.*/130x68x20:"
    "Shapes/WarpTiledGpu.*/129x260x33:Shapes/WarpTiledGpu.*/130x68x20";

CUDALAB_SANITIZER_SUITE(TiledSanitizer, kTiledSanitized, racecheck, memcheck, synccheck)

}  // namespace
