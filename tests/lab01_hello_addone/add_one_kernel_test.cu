// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 01, add_one_kernel.cu: 2-D indexing with a bounds check. The kernel adds one to
// float data on every test shape with every block shape at its edges, through one captured graph
// replayed on two data sets, and writes nothing past the end; its flat index holds past 2^31
// elements; its bandwidth is a share of a device-to-device copy. grid_for() and the launch are
// add_one_launch_test.cu's; helpers in hello_addone_grading.cuh.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "cudalab/ceilings.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/grading.hpp"
#include "cudalab/testing.hpp"
#include "hello_addone_grading.cuh"

namespace {

using namespace lab01_grading;

constexpr int kPerfRows = 8192;  // 8192 x 8192 floats = 256 MiB, far beyond the L2
constexpr int kPerfCols = 8192;
constexpr unsigned kPerfBlockX = 32;
constexpr unsigned kPerfBlockY = 8;

// The block shapes add_one accepts, at their edges (one thread, 1024 threads along x, along y
// and square), and two ordinary ones.
const dim3 kBlocks[] = {dim3(1, 1),   dim3(1024, 1), dim3(1, 1024),
                        dim3(32, 32), dim3(16, 16),  dim3(7, 5)};

/// The grid the shape needs in y with this block (the test's own count, not grid_for()).
long long blocks_in_y(int rows, dim3 block) {
  return (static_cast<long long>(rows) + block.y - 1) / block.y;
}

// ---------------------------------------------------------------------------
// add_one (GPU): float data (not integers), every block shape at its edges, two data sets
// through one captured graph, nothing written past the end.
// ---------------------------------------------------------------------------
class AddOneGpu : public ::testing::TestWithParam<Shape> {};

TEST_P(AddOneGpu, AddsOneEverywhereAndNothingOutside) {
  CUDALAB_REQUIRE_GPU();
  const auto [rows, cols] = GetParam();
  const std::size_t n = std::size_t(rows) * cols;
  constexpr std::size_t kGuard = 4096;  // sentinel elements after the matrix
  constexpr float kSentinel = -12345.0f;
  cudalab::DeviceBuffer<float> d(n + kGuard);
  int set = 0;
  for (const dim3 block : kBlocks) {
    if (blocks_in_y(rows, block) > cudalab::kMaxGridYZ) continue;  // beyond the grid's y limit
    SCOPED_TRACE("block " + dims(block));
    CapturedWork cap = capture_add_one(d.data(), rows, cols, block);
    ASSERT_TRUE(cap.holds_only(add_one_rules(rows, cols, block)));
    // Two data sets behind the same pointer: uniform floats in [-1, 1) (an integer
    // temporary loses their fraction), each replayed through the captured graph.
    for (int round = 0; round < 2; ++round, ++set) {
      SCOPED_TRACE("data set " + std::to_string(round + 1) + " of the captured graph");
      std::vector<float> h =
          cudalab::random_matrix(rows, cols, cudalab::Fill::Uniform, 100 + std::uint64_t(set));
      h.resize(n + kGuard, kSentinel);
      d.upload(h);
      cudalab::testing::poison_shared_memory();
      cap.run();
      const std::vector<float> got = d.to_host();
      std::vector<float> expected(h.begin(), h.begin() + n);
      for (auto& x : expected) x += 1.0f;  // one float addition: exact on host and device
      const std::vector<float> got_matrix(got.begin(), got.begin() + n);
      ASSERT_TRUE(cudalab::testing::matrices_match(expected, got_matrix, rows, cols, 0.0));
      for (std::size_t i = n; i < n + kGuard; ++i) {
        ASSERT_EQ(got[i], kSentinel)
            << "element " << i - n
            << " past the end of the matrix was written: missing bounds check?";
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, AddOneGpu, ::testing::ValuesIn(kShapes), shape_name);

// ---------------------------------------------------------------------------
// Range edge (GPU): a matrix of more than 2^31 elements, filled on the device, checked on
// sampled rows (around the 2^31 boundary, first, last and random rows).
// ---------------------------------------------------------------------------
TEST(AddOneRangeGpu, FlatIndexPast2To31Elements) {
  CUDALAB_REQUIRE_GPU();
  constexpr int kRows = 40000;
  constexpr int kCols = 60001;  // 2.4e9 elements, 9.6 GB: element 2^31 lies in row 35791
  const std::size_t n = std::size_t(kRows) * kCols;
  CUDALAB_REQUIRE_FREE_MEMORY(n * sizeof(float));
  cudalab::DeviceBuffer<float> d(n);
  const int boundary_row = static_cast<int>((std::size_t(1) << 31) / kCols);
  std::vector<int> rows = {0,         1,        boundary_row - 1, boundary_row, boundary_row + 1,
                           kRows - 2, kRows - 1};
  std::vector<float> pick = cudalab::random_matrix(1, 8, cudalab::Fill::Uniform, 7);
  for (const float u : pick) rows.push_back(static_cast<int>((u + 1.0f) * 0.5f * (kRows - 1)));

  for (const dim3 block : {dim3(32, 32), dim3(1024, 1)}) {
    SCOPED_TRACE("block " + dims(block) + ", " + std::to_string(kRows) + "x" +
                 std::to_string(kCols) + " (" + std::to_string(n) + " elements)");
    CapturedWork cap = capture_add_one(d.data(), kRows, kCols, block);
    ASSERT_TRUE(cap.holds_only(add_one_rules(kRows, kCols, block)));
    // Byte patterns whose floats are not integers: 0x3F3F3F3F = 0.7471, 0x40404040 = 3.0039.
    for (const int byte : {0x3F, 0x40}) {
      std::uint32_t bits = 0x01010101u * static_cast<std::uint32_t>(byte);
      float before = 0.0f;
      std::memcpy(&before, &bits, sizeof before);
      const float want = before + 1.0f;
      d.fill_bytes(byte);
      cap.run();
      std::vector<float> row(kCols);
      for (const int r : rows) {
        CUDA_CHECK(cudaMemcpy(row.data(), d.data() + std::size_t(r) * kCols, kCols * sizeof(float),
                              cudaMemcpyDeviceToHost));
        const auto bad = std::find_if(row.begin(), row.end(), [&](float x) { return x != want; });
        ASSERT_TRUE(bad == row.end())
            << "element (" << r << ", " << bad - row.begin() << ") = flat index "
            << std::size_t(r) * kCols + std::size_t(bad - row.begin()) << ": expected " << want
            << " (" << before << " + 1), got " << *bad
            << (std::size_t(r) * kCols >= (std::size_t(1) << 31)
                    ? " (past 2^31: is the flat index computed in 32-bit int?)"
                    : "");
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Speed (perf): a share of a device-to-device copy of the same bytes.
// ---------------------------------------------------------------------------
TEST(AddOnePerf, BandwidthIsAShareOfDeviceCopy) {
  CUDALAB_REQUIRE_GPU();
  const std::size_t n = std::size_t(kPerfRows) * kPerfCols;
  const std::size_t bytes = n * sizeof(float);
  const dim3 block(kPerfBlockX, kPerfBlockY);
  // Two random matrices alternate behind one pointer (AlternatingInput): before each timed run an
  // untimed copy puts the next there with about sqrt(n) elements replaced at positions
  // drawn for that run, so no run's input is one an earlier run saw. The kernel works in
  // place; the result of the last run must be exactly that run's input + 1, and three rows of
  // every earlier run, drawn at random after it (kept before the next run's input is copied
  // over them), that run's input + 1 (the last warm-up's: set 0 + 1 once per warm-up).
  cudalab::testing::AlternatingInput<float> in(
      cudalab::random_matrix(kPerfRows, kPerfCols, cudalab::Fill::Uniform, 11),
      cudalab::random_matrix(kPerfRows, kPerfCols, cudalab::Fill::Uniform, 12));

  CapturedWork cap = capture_add_one(in.live.data(), kPerfRows, kPerfCols, block);
  ASSERT_TRUE(cap.holds_only(add_one_rules(kPerfRows, kPerfCols, block)));
  cudalab::kit::RunRows<float> run_rows(in.live.data(), kPerfCols, kPerfRows);
  cudalab::BenchOptions o;
  o.before_candidate = run_rows.before_each_run(in, [&](cudaStream_t s) { in.copy_next(s); });
  const cudalab::BenchStats stats = cudalab::benchmark(cap.as_work(), o);
  CUDA_CHECK(cudaDeviceSynchronize());
  run_rows.expect_every_run(
      [&](long run) { return std::pair<long, const std::vector<float>&>(run, in.input_view(run)); },
      [&](const std::pair<long, const std::vector<float>&>& input, int r) {
        std::vector<float> row(input.second.begin() + std::ptrdiff_t(r) * kPerfCols,
                               input.second.begin() + std::ptrdiff_t(r + 1) * kPerfCols);
        // In place: the warm-ups (run -1) all added 1 to set 0, one after the other.
        const int adds = input.first < 0 ? o.warmup : 1;
        for (float& x : row) {
          for (int i = 0; i < adds; ++i) x += 1.0f;
        }
        return row;
      },
      "add_one " + std::to_string(kPerfRows) + "x" + std::to_string(kPerfCols));
  if (HasFailure()) return;  // no speed verdict for a wrong result
  std::vector<float> expected = in.last_input();
  for (auto& x : expected) x += 1.0f;
  ASSERT_TRUE(
      cudalab::testing::matrices_match(expected, in.live.to_host(), kPerfRows, kPerfCols, 0.0))
      << "the output of the last timed run (block " << dims(block) << ", input set " << in.last()
      << " with that run's changed elements)";

  const double gbps = 2.0 * double(bytes) / (stats.median_ms * 1e-3) / 1e9;
  const double copy_gbps = cudalab::testing::d2d_copy_gbps(bytes);
  cudalab::testing::record_measurement("lab01 add_one", gbps, "GB/s");
  cudalab::testing::record_measurement("lab01 device-to-device copy", copy_gbps, "GB/s");
  const std::string what = "add_one " + std::to_string(kPerfRows) + "x" +
                           std::to_string(kPerfCols) + ", block " + dims(block);
  cudalab::testing::expect_possible(gbps, cudalab::device_ceilings().dram_gbps, "GB/s", what);
  cudalab::testing::expect_share(gbps, copy_gbps, "GB/s",
                                 what + " vs a device-to-device copy of the same bytes");
}

}  // namespace
