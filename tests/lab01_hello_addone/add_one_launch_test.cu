// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 01, add_one_launch.cu: grid_for() on the CPU (the grid covers each test shape
// without spare blocks), and add_one()'s launch: an invalid block reported by the launch check,
// every call adding one to the data there now, non-positive sizes rejected with no sticky error
// left behind. The kernel itself is add_one_kernel_test.cu's; helpers in
// hello_addone_grading.cuh.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/testing.hpp"
#include "hello_addone_grading.cuh"

namespace {

using namespace lab01_grading;

// ---------------------------------------------------------------------------
// grid_for (CPU): the grid covers the matrix and is not larger than needed.
// ---------------------------------------------------------------------------
TEST(GridForCpu, CoversEachTestShapeWithoutSpareBlocks) {
  const dim3 blocks[] = {dim3(16, 16), dim3(32, 8),   dim3(7, 5),    dim3(256, 1),
                         dim3(1, 1),   dim3(1024, 1), dim3(1, 1024), dim3(32, 32)};
  for (const Shape s : kShapes) {
    for (const dim3 b : blocks) {
      const dim3 g = lab01::grid_for(s.rows, s.cols, b);
      SCOPED_TRACE(std::to_string(s.rows) + "x" + std::to_string(s.cols) + " with block " +
                   dims(b));
      EXPECT_GE(std::size_t(g.x) * b.x, std::size_t(s.cols)) << "grid.x too small";
      EXPECT_GE(std::size_t(g.y) * b.y, std::size_t(s.rows)) << "grid.y too small";
      EXPECT_LT(std::size_t(g.x - 1) * b.x, std::size_t(s.cols)) << "grid.x has a spare block";
      EXPECT_LT(std::size_t(g.y - 1) * b.y, std::size_t(s.rows)) << "grid.y has a spare block";
      EXPECT_EQ(g.z, 1u);
    }
  }
}

// ---------------------------------------------------------------------------
// The launch check (GPU).
// ---------------------------------------------------------------------------
TEST(AddOneLaunchGpu, InvalidBlockIsReportedByAddOne) {
  CUDALAB_REQUIRE_GPU();
  cudalab::DeviceBuffer<float> d(64);
  try {
    lab01::add_one(d.data(), 8, 8, dim3(64, 32));  // 2048 threads > 1024 per block
    FAIL() << "a block of 64x32 = 2048 threads was launched without an error being reported;"
              " check the launch with CUDA_CHECK_LAST_LAUNCH()";
  } catch (const cudalab::CudaError& e) {
    // CUDA 12 reports cudaErrorInvalidConfiguration here, CUDA 13 cudaErrorInvalidValue.
    EXPECT_TRUE(e.code() == cudaErrorInvalidConfiguration || e.code() == cudaErrorInvalidValue)
        << "unexpected error for an oversized block: " << e.what();
    EXPECT_NE(std::string(e.what()).find(cudaGetErrorName(e.code())), std::string::npos)
        << "the message should name the error: " << e.what();
  }
}

// Same buffers, new data: add_one called directly three times on one matrix with the same
// pointer, sizes and block, new floats uploaded before each call: every call adds one to what
// is there now (a launcher that skips a call it has seen leaves the new data unchanged).
TEST(AddOneLaunchGpu, EveryCallAddsOneToTheDataThereNow) {
  CUDALAB_REQUIRE_GPU();
  const int rows = 33, cols = 65;
  cudalab::DeviceBuffer<float> d(std::size_t(rows) * cols);
  std::vector<float> h;
  for (const dim3 block : {dim3(16, 16), dim3(32, 8)}) {
    cudalab::kit::expect_fresh_results_on_same_buffers(
        "add_one, block " + dims(block),
        [&](int round) {
          h = cudalab::random_matrix(rows, cols, cudalab::Fill::Uniform,
                                     200 + 10 * std::uint64_t(block.y) + std::uint64_t(round));
          d.upload(h);
        },
        [&](cudaStream_t s) { lab01::add_one(d.data(), rows, cols, block, s); },
        [&](int) {
          std::vector<float> expected = h;
          for (auto& x : expected) x += 1.0f;
          EXPECT_TRUE(cudalab::testing::matrices_match(expected, d.to_host(), rows, cols, 0.0));
        });
    if (HasFailure()) return;
  }
}

TEST(AddOneLaunchGpu, RejectsNonPositiveSizes) {
  CUDALAB_REQUIRE_GPU();
  cudalab::DeviceBuffer<float> d(4);
  EXPECT_THROW(lab01::add_one(d.data(), 0, 4, dim3(16, 16)), std::invalid_argument);
  EXPECT_THROW(lab01::add_one(d.data(), 4, -1, dim3(16, 16)), std::invalid_argument);
  // A valid launch right after must still work (no sticky error left behind).
  d.upload(std::vector<float>{0.5f, -0.25f, 2.75f, -3.5f});
  CapturedWork cap = capture_add_one(d.data(), 2, 2, dim3(16, 16));
  ASSERT_TRUE(cap.holds_only(add_one_rules(2, 2, dim3(16, 16))));
  cap.run();
  EXPECT_EQ(d.to_host(), (std::vector<float>{1.5f, 0.75f, 3.75f, -2.5f}));
}

}  // namespace
