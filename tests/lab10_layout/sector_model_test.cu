// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 10, the sector model (sector_model.cpp): sector_of() and sectors_touched() on the
// CPU (graded first), then Nsight Compute's sectors per global-load request of every kernel of
// the lab against the model, over the launches PatternsGpu.EveryProfiledLaunchIsCorrect makes
// and checks; and the tiled conversion's shared-memory reads conflict-free.
//
// One test file per technique file of the lab (sector_model_test.cu, points_test.cu,
// aos_to_soa_test.cu, aos_to_soa_naive_test.cu) and the speed of each layout
// (layout_perf_test.cu); what they share is in layout_grading.cuh.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cudalab/device_buffer.cuh"
#include "cudalab/grading.hpp"
#include "cudalab/testing.hpp"
#include "cudalab/tools.hpp"
#include "layout.cuh"
#include "layout_grading.cuh"

namespace {

using namespace lab10_grading;

// ===========================================================================
// CPU: the sector model
// ===========================================================================

/// Independent check: every byte every active lane reads, divided by 32, counted once.
int sectors_by_every_byte(const lab10::GlobalRequest& r) {
  std::set<std::uint64_t> sectors;
  for (int lane = 0; lane < 32; ++lane) {
    if (((r.active_mask >> lane) & 1u) == 0) continue;
    for (int b = 0; b < r.access_bytes; ++b) {
      sectors.insert((r.byte_address[static_cast<std::size_t>(lane)] + b) / 32);
    }
  }
  return static_cast<int>(sectors.size());
}

std::string describe(const lab10::GlobalRequest& r) {
  std::string s = std::to_string(r.access_bytes) + "-byte loads, mask 0x";
  char mask[16];
  std::snprintf(mask, sizeof mask, "%08x", r.active_mask);
  s += mask;
  s += ", byte addresses {";
  for (int i = 0; i < 32; ++i) {
    s += (i ? ", " : "") + std::to_string(r.byte_address[static_cast<std::size_t>(i)]);
  }
  return s + "}";
}

::testing::AssertionResult sectors_are(const lab10::GlobalRequest& r, int expected,
                                       const std::string& what) {
  int got = 0;
  try {
    got = lab10::sectors_touched(r);
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure()
           << what << ": expected " << expected << " sectors, sectors_touched threw: " << e.what();
  }
  if (got == expected) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": expected " << expected << " sectors, got "
                                       << got << " (" << describe(r) << ")";
}

TEST(SectorOfCpu, ThirtyTwoByteSectors) {
  const std::uint64_t fixed[] = {0,   1,   31,  32,   33,   63,   64,
                                 127, 128, 255, 4096, 4127, 4128, (std::uint64_t{1} << 35) + 31};
  for (const std::uint64_t a : fixed) EXPECT_EQ(lab10::sector_of(a), a / 32) << "byte " << a;
  auto rng = cudalab::make_rng(101);
  std::uniform_int_distribution<std::uint64_t> addr(0, std::uint64_t{1} << 44);
  for (int t = 0; t < 2000; ++t) {
    const std::uint64_t a = addr(rng);
    ASSERT_EQ(lab10::sector_of(a), a / 32) << "byte " << a << " (" << cudalab::seed_note() << ")";
  }
}

// The issue's three numbers: a warp reading x[i] of SoA floats, p[i].x of 12-byte AoS3 records,
// and whole 16-byte float4 records.
TEST(SectorsTouchedCpu, SoaFloatIsFourSectors) {
  EXPECT_TRUE(sectors_are(lab10::strided_request(4, 4), 4, "SoA x[i], 32 consecutive floats"));
}

TEST(SectorsTouchedCpu, AosFloat3XOnlyIsTwelveSectors) {
  EXPECT_TRUE(sectors_are(lab10::strided_request(12, 4), 12, "AoS3 p[i].x, 12 bytes apart"));
  EXPECT_TRUE(sectors_are(lab10::strided_request(12, 4, 8), 12, "AoS3 p[i].z, 12 bytes apart"));
}

TEST(SectorsTouchedCpu, AosFloat4IsSixteenSectors) {
  EXPECT_TRUE(sectors_are(lab10::strided_request(16, 16), 16, "AoS4 p[i] as one float4"));
  EXPECT_TRUE(sectors_are(lab10::strided_request(16, 4), 16, "AoS4 p[i].x alone"));
  EXPECT_TRUE(sectors_are(lab10::strided_request(16, 8), 16, "AoS4 p[i].xy as a float2"));
}

// Lane i at 4 s i: for s <= 8 neighbouring lanes are at most one sector apart, so every sector
// from 0 to floor(31 s / 8) is touched; from s = 8 on every lane has its own sector.
TEST(SectorsTouchedCpu, FourByteStridesOneToSixtyFour) {
  for (int s = 1; s <= 64; ++s) {
    const int want = std::min(32, 31 * s / 8 + 1);
    EXPECT_TRUE(sectors_are(lab10::strided_request(4 * std::uint64_t(s), 4), want,
                            "4-byte loads, stride " + std::to_string(s) + " floats"));
  }
}

TEST(SectorsTouchedCpu, ConsecutiveAccessesOfEveryWidth) {
  for (const int w : {1, 2, 4, 8, 16}) {
    EXPECT_TRUE(sectors_are(lab10::strided_request(w, w), w,
                            std::to_string(w) + "-byte loads of consecutive elements"));
  }
}

TEST(SectorsTouchedCpu, MisalignedBaseCostsOneMoreSector) {
  for (std::uint64_t offset = 4; offset < 32; offset += 4) {
    EXPECT_TRUE(sectors_are(lab10::strided_request(4, 4, 4096 + offset), 5,
                            "32 consecutive floats from byte 4096 + " + std::to_string(offset)));
  }
  EXPECT_TRUE(sectors_are(lab10::strided_request(4, 4, 4096 + 32), 4,
                          "32 consecutive floats from a sector boundary"));
  EXPECT_TRUE(sectors_are(lab10::strided_request(16, 16, 16), 17,
                          "32 float4 from byte 16 (the array starts mid-sector)"));
  EXPECT_TRUE(sectors_are(lab10::strided_request(8, 8, 24), 9, "32 float2 from byte 24"));
  auto rng = cudalab::make_rng(102);
  std::uniform_int_distribution<std::uint64_t> sector(0, std::uint64_t{1} << 30);
  std::uniform_int_distribution<int> word(1, 7);
  for (int t = 0; t < 200; ++t) {
    const std::uint64_t base = sector(rng) * 32 + 4 * std::uint64_t(word(rng));
    ASSERT_TRUE(sectors_are(lab10::strided_request(4, 4, base), 5,
                            "32 consecutive floats from byte " + std::to_string(base) + " (" +
                                cudalab::seed_note() + ")"));
  }
}

TEST(SectorsTouchedCpu, InactiveLanesAndBroadcasts) {
  lab10::GlobalRequest r = lab10::strided_request(4, 4);
  r.active_mask = 0;
  EXPECT_TRUE(sectors_are(r, 0, "no active lane"));
  r.active_mask = 1u << 17;
  EXPECT_TRUE(sectors_are(r, 1, "lane 17 alone"));
  r.active_mask = 1u;  // n = 33: the second warp has one live lane
  EXPECT_TRUE(sectors_are(r, 1, "the last warp of n = 33: lane 0 alone"));
  r = lab10::strided_request(16, 4);
  r.active_mask = 0x0000FFFFu;
  EXPECT_TRUE(sectors_are(r, 8, "lanes 0-15, 16 bytes apart"));
  r.active_mask = 0x55555555u;
  EXPECT_TRUE(sectors_are(r, 16, "even lanes, 16 bytes apart"));
  EXPECT_TRUE(sectors_are(lab10::strided_request(0, 4, 1000), 1, "every lane reads byte 1000"));
  EXPECT_TRUE(sectors_are(lab10::strided_request(0, 16, 4096), 1, "a float4 broadcast"));
  lab10::GlobalRequest two_lines = lab10::strided_request(0, 4, 0);
  for (int i = 16; i < 32; ++i) two_lines.byte_address[std::size_t(i)] = 1 << 20;
  EXPECT_TRUE(sectors_are(two_lines, 2, "16 lanes on byte 0, 16 on byte 2^20"));
}

TEST(SectorsTouchedCpu, RejectsBadWidthsAndMisalignedLanes) {
  for (const int w : {0, 3, 5, 12, 32, -4}) {
    lab10::GlobalRequest r = lab10::strided_request(4, 4);
    r.access_bytes = w;
    EXPECT_THROW(lab10::sectors_touched(r), std::invalid_argument) << "access_bytes = " << w;
  }
  lab10::GlobalRequest r = lab10::strided_request(4, 4);
  r.byte_address[5] = 22;  // a 4-byte load from byte 22
  EXPECT_THROW(lab10::sectors_touched(r), std::invalid_argument) << "lane 5 reads 4 bytes at 22";
  r.active_mask = ~(1u << 5);  // the misaligned lane is inactive: fine
  EXPECT_TRUE(sectors_are(r, 4, "misaligned lane 5 inactive"));
  EXPECT_THROW(lab10::sectors_touched(lab10::strided_request(16, 16, 8)), std::invalid_argument)
      << "float4 loads from byte 8";
}

TEST(SectorsTouchedCpu, SeededRequestsMatchEveryByteCounted) {
  auto rng = cudalab::make_rng(103);
  std::uniform_int_distribution<int> width_index(0, 4);
  std::uniform_int_distribution<std::uint64_t> element(0, 2000);
  std::uniform_int_distribution<std::uint32_t> mask;
  for (int t = 0; t < 3000; ++t) {
    lab10::GlobalRequest r;
    r.access_bytes = 1 << width_index(rng);
    const std::uint64_t base = element(rng) * 4096;
    for (auto& a : r.byte_address) a = base + element(rng) * std::uint64_t(r.access_bytes);
    r.active_mask = t % 3 == 0 ? 0xFFFFFFFFu : mask(rng);
    ASSERT_TRUE(
        sectors_are(r, sectors_by_every_byte(r),
                    "seeded request " + std::to_string(t) + " (" + cudalab::seed_note() + ")"));
  }
}

// ---------------------------------------------------------------------------
// The launches the profiler test measures, in a fixed order, each checked.
// ---------------------------------------------------------------------------

/// A profiled launch: which kernel, and the pattern of its global loads for the model.
struct Profiled {
  const char* what;
  cudalab::KernelInfo (*kernel)();
  std::uint64_t stride_bytes;
  int access_bytes;
  std::uint64_t base_byte;
  bool any_vector_width;  // consecutive loads of 4, 8 or 16 bytes are all fine (the tile loads)
};

constexpr int kProfiledN = 1 << 20;      // particles / elements of the profiled launches
constexpr int kProfiledWideN = 1 << 16;  // records of 32 floats

const Profiled kProfiled[] = {
    {"count: SoA x, stride 1", lab10::count_below_kernel, 4, 4, 0, false},
    {"count: SoA x from x + 1 (misaligned)", lab10::count_below_kernel, 4, 4, 4, false},
    {"count: AoS3 p.x, stride 3", lab10::count_below_kernel, 12, 4, 0, false},
    {"count: AoS4 p.x, stride 4", lab10::count_below_kernel, 16, 4, 0, false},
    {"count: stride 8", lab10::count_below_kernel, 32, 4, 0, false},
    {"count: stride 32", lab10::count_below_kernel, 128, 4, 0, false},
    {"weighted distance: SoA", lab10::weighted_distance_soa_kernel, 4, 4, 0, false},
    {"weighted distance: AoS4", lab10::weighted_distance_aos4_kernel, 16, 16, 0, false},
    {"tiled conversion: 3 fields", lab10::aos_to_soa_tiled_kernel, 4, 4, 0, true},
    {"tiled conversion: 32 fields", lab10::aos_to_soa_tiled_kernel, 4, 4, 0, true},
    {"naive conversion (given): 3 fields", lab10::aos_to_soa_naive_kernel, 12, 4, 0, false},
    {"naive conversion (given): 32 fields", lab10::aos_to_soa_naive_kernel, 128, 4, 0, false},
};

TEST(PatternsGpu, EveryProfiledLaunchIsCorrect) {
  CUDALAB_REQUIRE_GPU();
  const int n = kProfiledN;
  const std::uint64_t salt = salt_for(50);
  // Counts: one buffer of n * 32 + 1 floats, the field written where each pattern reads it.
  cudalab::DeviceBuffer<float> d_buf(std::size_t(n) * 32 + 1);
  cudalab::DeviceBuffer<unsigned int> d_count(1);
  const struct { int stride, offset; } counts[] = {{1, 0}, {1, 1}, {3, 0}, {4, 0}, {8, 0}, {32, 0}};
  for (const auto& c : counts) {
    SCOPED_TRACE("count, stride " + std::to_string(c.stride) + ", offset " +
                 std::to_string(c.offset));
    fill_field(d_buf.data() + c.offset, c.stride, n, 0, salt, nullptr);
    const unsigned long long want = reference_count(d_buf.data() + c.offset, c.stride, n, kTieX0);
    lab10::count_below(d_buf.data() + c.offset, c.stride, n, kTieX0, d_count.data());
    EXPECT_EQ(d_count.to_host()[0], want);
  }
  // Weighted distance, SoA then AoS4 (the same particles).
  {
    cudalab::DeviceBuffer<float> d_soa(4 * std::size_t(n)), d_aos(4 * std::size_t(n)), d_out(n);
    for (int f = 0; f < 4; ++f) {
      fill_field(d_soa.data() + std::size_t(f) * n, 1, n, f, salt, nullptr);
      fill_field(d_aos.data() + f, 4, n, f, salt, nullptr);
    }
    const float3 c{1.0f, 2.0f, -1.0f};
    const lab10::PointsSoA p{d_soa.data(), d_soa.data() + n, d_soa.data() + 2 * std::size_t(n),
                             d_soa.data() + 3 * std::size_t(n)};
    for (int layout = 0; layout < 2; ++layout) {
      d_out.fill_bytes(0xFF);
      if (layout == 0) {
        lab10::weighted_distance_soa(p, c, d_out.data(), n);
      } else {
        lab10::weighted_distance_aos4(reinterpret_cast<const float4*>(d_aos.data()), c,
                                      d_out.data(), n);
      }
      const DeviceVerdict v = device_verdict([&](auto* bad, auto* first) {
        grader_check_distance<<<kGraderBlocks, kGraderThreads>>>(d_out.data(), n, c,
                                                                 HashedParticles{salt}, bad, first);
      });
      EXPECT_EQ(v.bad, 0u) << (layout ? "AoS4" : "SoA") << ": first wrong distance at " << v.first;
    }
  }
  // Conversions: tiled 3 and 32 fields, then the naive ones.
  for (const bool tiled : {true, false}) {
    for (const auto& shape : {std::pair{n, 3}, std::pair{kProfiledWideN, 32}}) {
      const int records = shape.first, fields = shape.second;
      const long long total = static_cast<long long>(records) * fields;
      cudalab::DeviceBuffer<float> d_aos(total), d_soa(total);
      fill_records(d_aos.data(), total, salt, nullptr);
      d_soa.fill_bytes(0xFF);
      if (tiled) {
        cudalab::testing::poison_shared_memory();
        lab10::aos_to_soa_tiled(d_aos.data(), d_soa.data(), records, fields);
      } else {
        lab10::aos_to_soa_naive(d_aos.data(), d_soa.data(), records, fields);
      }
      const DeviceVerdict v = device_verdict([&](auto* bad, auto* first) {
        grader_check_soa<<<kGraderBlocks, kGraderThreads>>>(d_soa.data(), records, fields,
                                                            HashedRecords{salt}, bad, first);
      });
      EXPECT_EQ(v.bad, 0u) << (tiled ? "tiled" : "naive") << " conversion, " << fields
                           << " fields: first wrong element soa[" << v.first << "]";
    }
  }
}

// ---------------------------------------------------------------------------
// Profiler: Nsight Compute's sectors per global-load request against your model, for every
// kernel; and the tiled conversion's shared-memory reads conflict-free (one wavefront each).
// ---------------------------------------------------------------------------
TEST(SectorsProfiler, SectorsPerRequestMatchYourModel) {
  CUDALAB_REQUIRE_GPU();
  const std::string sectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
  const std::string requests = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum";
  const std::string wavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
  const std::string shared_loads = "smsp__sass_inst_executed_op_shared_ld.sum";
  // every kernel of kProfiled: the particles' and the conversions of lab10::kTechniques
  std::vector<cudalab::KernelInfo> profiled = {lab10::count_below_kernel(),
                                               lab10::weighted_distance_soa_kernel(),
                                               lab10::weighted_distance_aos4_kernel()};
  for (const lab10::Technique& t : lab10::kTechniques) profiled.push_back(t.kernel());
  std::string kernels;  // as a regex alternation
  for (const cudalab::KernelInfo& k : profiled) {
    kernels += (kernels.empty() ? "" : "|") + std::string(k.name);
  }
  const cudalab::testing::NcuRun run =
      cudalab::testing::run_ncu({sectors, requests, wavefronts, shared_loads}, kernels,
                                "PatternsGpu.EveryProfiledLaunchIsCorrect");
  if (!run.available) GTEST_SKIP() << run.skip_reason;
  ASSERT_EQ(run.exit_code, 0) << cudalab::testing::excerpt(run.output);
  constexpr std::size_t kLaunches = sizeof(kProfiled) / sizeof(kProfiled[0]);
  ASSERT_EQ(run.kernels.size(), kLaunches) << "expected one profiled launch per pattern:\n"
                                           << cudalab::testing::excerpt(run.output);
  for (std::size_t i = 0; i < kLaunches; ++i) {
    const Profiled& p = kProfiled[i];
    const cudalab::testing::KernelMetrics& k = run.kernels[i];
    const char* kernel = p.kernel().name;
    SCOPED_TRACE(std::string(p.what) + " (" + k.name + ")");
    ASSERT_NE(k.name.find(kernel), std::string::npos) << "launch " << i << " should be " << kernel;
    const auto s = k.values.find(sectors), r = k.values.find(requests);
    ASSERT_TRUE(s != k.values.end() && r != k.values.end() && r->second > 0)
        << "no global-load requests measured";
    const double measured = s->second / r->second;
    std::vector<int> model;
    for (const int w :
         p.any_vector_width ? std::vector<int>{4, 8, 16} : std::vector<int>{p.access_bytes}) {
      const std::uint64_t stride = p.any_vector_width ? std::uint64_t(w) : p.stride_bytes;
      model.push_back(lab10::sectors_touched(lab10::strided_request(stride, w, p.base_byte)));
    }
    bool close = false;
    for (const int m : model) close = close || std::fabs(measured - m) <= 0.1 * m;
    std::string name = p.what;
    std::replace(name.begin(), name.end(), ' ', '_');
    cudalab::testing::record_measurement(name + "_sectors_per_request", measured, "sectors");
    std::printf("[ NCU      ] %-40s %6.2f sectors/request, your model %d\n", p.what, measured,
                model[0]);
    EXPECT_TRUE(close) << "ncu measures " << measured << " sectors per request, your model says "
                       << model[0]
                       << (model.size() > 1 ? " (or the same for 8- or 16-byte loads)" : "")
                       << " (tolerance 10 %)";
    if (p.kernel == lab10::aos_to_soa_tiled_kernel && i == 9) {  // 32 fields
      const auto w = k.values.find(wavefronts), l = k.values.find(shared_loads);
      ASSERT_TRUE(w != k.values.end() && l != k.values.end() && l->second > 0)
          << "no shared-memory loads measured in the tiled conversion";
      const double per_load = w->second / l->second;
      cudalab::testing::record_measurement("tiled_32_fields_wavefronts_per_shared_load", per_load,
                                           "wavefronts", 1.1, cudalab::testing::Bound::kAtMost);
      EXPECT_LE(per_load, 1.1) << "the tile's reads need " << per_load
                               << " wavefronts per shared load (1 = conflict-free): the kernel "
                                  "must index the tile with record_pitch()";
    }
  }
}

}  // namespace
