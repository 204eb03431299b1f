// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 11, the float4 tile layouts of vectorized.cuh that tell the tile stage's rows of
// lab11::kTransposeTechniques apart (plain, lab 07's interleave): the bank model of a column
// read through each (CPU), and Nsight Compute wavefronts of the tile stage's 16-byte shared
// loads with both layouts against it (the run vec4_tile_transpose_test.cu's
// ProfiledShapesGpu.TileStageWithInterleavedAndPlainLayouts makes).

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "cudalab/bank_model.hpp"
#include "cudalab/testing.hpp"
#include "cudalab/tools.hpp"
#include "vectorized.cuh"

namespace {

namespace t = cudalab::testing;

// ---------------------------------------------------------------------------
// Thresholds of the counters (the speed bars, with their provenance, are the calibration's:
// tests/calibration/nvidia-h200.tsv).
// ---------------------------------------------------------------------------
/// Nsight Compute: measured wavefronts per 16-byte shared load within this share of the
/// bank model's prediction, and bank conflicts per shared load of the interleave at most
/// kMaxInterleavedConflicts.
constexpr double kWavefrontTolerance = 0.10;
constexpr double kMaxInterleavedConflicts = 0.05;

// Why the interleave (given: the layouts are given, the model decides).
using Lanes = std::array<std::int64_t, cudalab::bank::kWarpSize>;

/// Lane l reads float4 @p vec of tile row l (the tile stage's column read) through @p Layout.
template <typename Layout>
Lanes column_read(int vec) {
  Lanes v{};
  for (int l = 0; l < cudalab::bank::kWarpSize; ++l) v[l] = Layout::index(l, vec);
  return v;
}

template <typename Layout>
int column_read_wavefronts(int vec) {
  return cudalab::bank::wavefronts(
      cudalab::bank::from_element_indices(column_read<Layout>(vec), 16));
}

TEST(GivenVec4ModelCpu, InterleavedColumnReadIsFourWavefrontsPlainIsThirtyTwo) {
  for (int v = 0; v < lab11::kVec4PerRow; ++v) {
    EXPECT_EQ(column_read_wavefronts<lab11::InterleavedVec4>(v), 4) << "float4 " << v;
    EXPECT_EQ(column_read_wavefronts<lab11::PlainVec4>(v), 32) << "float4 " << v;
  }
}

// ---------------------------------------------------------------------------
// Nsight Compute: wavefronts per 16-byte shared load against the bank model.
// ---------------------------------------------------------------------------
const std::vector<std::string> kSharedMetrics = {
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"};

TEST(TileStageProfiler, InterleavedLoadsAreConflictFreeAndPlainMatchesTheModel) {
  CUDALAB_REQUIRE_GPU();
  if (t::running_under_tool()) GTEST_SKIP() << "already under a tool";
  const std::string kernel =
      lab11::vec4_tile_transpose_kernel<lab11::InterleavedVec4>().name;  // every layout
  const t::NcuRun run = t::run_ncu(kSharedMetrics, kernel, "ProfiledShapesGpu.*");
  if (!run.available) GTEST_SKIP() << run.skip_reason;
  ASSERT_FALSE(run.kernels.empty()) << "ncu profiled no kernel:\n" << t::excerpt(run.output);
  struct Expect {
    std::string layout;
    int model;  // wavefronts of one warp's column read (the bank model)
  };
  for (const Expect& e :
       {Expect{"InterleavedVec4", column_read_wavefronts<lab11::InterleavedVec4>(0)},
        Expect{"PlainVec4", column_read_wavefronts<lab11::PlainVec4>(0)}}) {
    double wavefronts = 0, loads = 0, conflicts = 0;
    int launches = 0;
    for (const auto& k : run.kernels) {
      if (k.name.find(e.layout) == std::string::npos) continue;
      auto value = [&](const std::string& m) {
        const auto it = k.values.find(m);
        return it == k.values.end() ? 0.0 : it->second;
      };
      wavefronts += value(kSharedMetrics[0]);
      loads += value(kSharedMetrics[1]);
      conflicts += value(kSharedMetrics[2]);
      ++launches;
    }
    ASSERT_GT(launches, 0) << kernel << "<" << e.layout << "> was not profiled";
    ASSERT_GT(loads, 0.0) << e.layout << ": no shared-memory load: is the tile read back?";
    const double per_load = wavefronts / loads;
    t::record_measurement(e.layout + " wavefronts per shared load", per_load, "", e.model);
    t::record_measurement(e.layout + " bank conflicts per shared load", conflicts / loads, "");
    EXPECT_NEAR(per_load, e.model, kWavefrontTolerance * e.model)
        << e.layout << ": " << wavefronts << " wavefronts over " << loads
        << " shared loads; the bank model gives " << e.model << " for lane l reading float4 v "
        << "of tile row l (one 16-byte load per warp and tile column)";
    if (e.layout == "InterleavedVec4") {
      EXPECT_LE(conflicts / loads, kMaxInterleavedConflicts)
          << "the interleaved tile stage has " << conflicts << " bank conflicts over " << loads
          << " shared loads";
    }
  }
}

}  // namespace
