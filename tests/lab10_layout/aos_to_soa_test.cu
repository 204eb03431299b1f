// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 10, the tiled AoS -> SoA conversion (aos_to_soa.cu): record_pitch() on the CPU,
// the conversion exact for N = 1, 31, 33, 10^6 + 7 and widths 1 ... 32, past 2^31 floats, under
// the sanitizers, and its shared-memory staging in the machine code. The launcher runs under
// stream capture (the graph may hold only the lab's kernel), then on new inputs behind the same
// pointers, with NaN-poisoned outputs and shared memory. Its speed against the naive
// conversion is tested in layout_perf_test.cu.
#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/kit.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/grading.hpp"
#include "cudalab/graph_capture.cuh"
#include "cudalab/testing.hpp"
#include "cudalab/tools.hpp"
#include "layout.cuh"
#include "layout_grading.cuh"

namespace {

using namespace lab10_grading;

// ---------------------------------------------------------------------------
// CPU: the padded pitch of the conversion tile
// ---------------------------------------------------------------------------
TEST(RecordPitchCpu, ColumnReadsAreConflictFreeWithTheLeastPadding) {
  for (int fields = 1; fields <= lab10::kMaxFields; ++fields) {
    const int pitch = lab10::record_pitch(fields);
    ASSERT_GE(pitch, fields) << "record_pitch(" << fields << ") = " << pitch
                             << ": a record's fields must fit in its row";
    EXPECT_LE(pitch, lab10::kMaxFields + 1) << "record_pitch(" << fields << ") = " << pitch;
    int worst = 0;  // largest number of distinct words in one bank, over the fields
    for (int f = 0; f < fields; ++f) {
      std::array<int, 32> per_bank{};
      for (int lane = 0; lane < 32; ++lane) {
        worst = std::max(worst, ++per_bank[std::size_t((lane * pitch + f) % 32)]);
      }
    }
    EXPECT_EQ(worst, 1) << "record_pitch(" << fields << ") = " << pitch
                        << ": a warp reading field f of 32 consecutive records (words lane * "
                        << pitch << " + f) has a " << worst << "-way bank conflict";
    int least = fields;  // the smallest conflict-free pitch: the first odd one
    if (least % 2 == 0) ++least;
    EXPECT_EQ(pitch, least) << "record_pitch(" << fields << ") = " << pitch
                            << ": a smaller pitch is conflict-free too (padding costs memory)";
  }
}

// ---------------------------------------------------------------------------
// GPU: the tiled conversion, exact for N = 1, 31, 33, 10^6 + 7 and widths 1 ... 32.
// ---------------------------------------------------------------------------
const Conversion kConversions[] = {{1, 3},    {31, 3},   {33, 4},   {1000007, 3}, {257, 32},
                                   {1000, 1}, {4097, 2}, {300, 31}, {100003, 8},  {1000007, 5}};

class ConversionGpu : public ::testing::TestWithParam<Conversion> {};

TEST_P(ConversionGpu, TiledIsExact) {
  CUDALAB_REQUIRE_GPU();
  const int n = GetParam().rows, fields = GetParam().cols;
  const std::size_t count = std::size_t(n) * fields;
  cudalab::DeviceBuffer<float> d_aos(count), d_soa(count);
  const CapturedWork cap = CapturedWork::capture(
      [&](cudaStream_t s) { lab10::aos_to_soa_tiled(d_aos.data(), d_soa.data(), n, fields, s); });
  ASSERT_TRUE(cap.holds_only(only_kernel(lab10::aos_to_soa_tiled_kernel())));
  for (int run = 0; run < 2; ++run) {  // new data each time; a race may also hide in one run
    SCOPED_TRACE("replay " + std::to_string(run + 1) + " of the captured launch");
    auto rng = cudalab::make_rng(30 + run);
    std::uniform_real_distribution<float> real(-1e3f, 1e3f);
    std::vector<float> aos(count);
    for (float& v : aos) v = real(rng);
    d_aos.upload(aos);
    cudalab::testing::poison(d_soa.data(), d_soa.bytes());
    cudalab::testing::poison_shared_memory();
    cap.run();
    EXPECT_TRUE(
        cudalab::testing::matrices_match(host_soa(aos, n, fields), d_soa.to_host(), fields, n, 0.0))
        << "soa as a fields x n matrix: row f is field f of every record";
  }
  if (HasFailure()) return;
  // Same buffers, new data: the launcher called directly twice more with the same pointers
  // and sizes, new records behind them.
  std::vector<float> aos(count);
  kit::expect_fresh_results_on_same_buffers(
      "aos_to_soa_tiled",
      [&](int round) {
        auto rng = cudalab::make_rng(40 + std::uint64_t(round));
        std::uniform_real_distribution<float> real(-1e3f, 1e3f);
        for (float& v : aos) v = real(rng);
        d_aos.upload(aos);
        cudalab::testing::poison(d_soa.data(), d_soa.bytes());
      },
      [&](cudaStream_t s) { lab10::aos_to_soa_tiled(d_aos.data(), d_soa.data(), n, fields, s); },
      [&](int) {
        EXPECT_TRUE(cudalab::testing::matrices_match(host_soa(aos, n, fields), d_soa.to_host(),
                                                     fields, n, 0.0));
      },
      2);
}

INSTANTIATE_TEST_SUITE_P(Shapes, ConversionGpu, ::testing::ValuesIn(kConversions), kit::shape_name);

// ---------------------------------------------------------------------------
// Range edges: byte offsets past 2^31 (an int product overflows).
// ---------------------------------------------------------------------------
TEST(ConversionRangeGpu, OffsetsPastTwoToThe31) {
  CUDALAB_REQUIRE_GPU();
  constexpr int kFields = 4;
  constexpr int kN = (1 << 29) + 5;  // kN * kFields floats > 2^31: int offsets overflow
  const std::size_t count = std::size_t(kN) * kFields;
  CUDALAB_REQUIRE_FREE_MEMORY(2 * count * sizeof(float));
  cudalab::DeviceBuffer<float> d_aos(count), d_soa(count);
  const CapturedWork cap = CapturedWork::capture(
      [&](cudaStream_t s) { lab10::aos_to_soa_tiled(d_aos.data(), d_soa.data(), kN, kFields, s); });
  ASSERT_TRUE(cap.holds_only(only_kernel(lab10::aos_to_soa_tiled_kernel())));
  const std::uint64_t salt = salt_for(41);
  fill_records(d_aos.data(), static_cast<long long>(count), salt, nullptr);
  cudalab::testing::poison(d_soa.data(), d_soa.bytes());
  cudalab::testing::poison_shared_memory();
  cap.run();
  const DeviceVerdict v = device_verdict([&](unsigned long long* bad, unsigned long long* first) {
    grader_check_soa<<<kGraderBlocks, kGraderThreads>>>(d_soa.data(), kN, kFields,
                                                        HashedRecords{salt}, bad, first);
  });
  EXPECT_EQ(v.bad, 0u) << v.bad << " wrong elements of " << count << ", the first at soa["
                       << v.first << "] (" << kN << " records of " << kFields
                       << " floats: offsets pass 2^31, compute them in 64 bits)";
}

// ---------------------------------------------------------------------------
// Sanitizers: the tiled conversion (shared memory, a barrier) on small shapes with partial tiles.
// ---------------------------------------------------------------------------
constexpr const char* kConversionSanitized =
    "Shapes/ConversionGpu.*/31x3:Shapes/ConversionGpu.*/257x32:Shapes/ConversionGpu.*/300x31";

CUDALAB_SANITIZER_SUITE(ConversionSanitizer, kConversionSanitized, racecheck, synccheck, memcheck)

// ---------------------------------------------------------------------------
// The technique in the machine code (cuobjdump -sass of this grader, no GPU): the tiled
// conversion stages its records in shared memory behind a barrier. The naive strided copy
// under the tiled name has no STS/LDS.
// ---------------------------------------------------------------------------
TEST(ConversionSassCpu, TiledKernelStagesItsRecordsInSharedMemory) {
  using kit::sass_requires;
  kit::expect_sass(
      lab10::aos_to_soa_tiled_kernel(),
      {sass_requires({"STS"}, "the tile of records must be stored to shared memory (no STS)"),
       sass_requires({"LDS"}, "the fields must be read back from shared memory (no LDS)"),
       sass_requires({"BAR.SYNC"},
                     "the block must wait at a barrier (__syncthreads) before "
                     "reading records other threads staged")});
}

}  // namespace
