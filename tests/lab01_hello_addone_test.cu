// Grader of lab 01: 2-D indexing with a bounds check, grid size, checked launch.
#include <string>
#include <vector>

#include "add_one.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/testing.hpp"

namespace {

struct Shape {
  int rows;
  int cols;
};

std::string shape_name(const ::testing::TestParamInfo<Shape>& p) {
  return std::to_string(p.param.rows) + "x" + std::to_string(p.param.cols);
}

const Shape kShapes[] = {{1, 1},    {5, 5},    {1, 100000}, {100000, 1},
                         {4097, 3}, {3, 4097}, {33, 65},    {1000, 1000}};

// ---------------------------------------------------------------------------
// grid_for (CPU): the grid covers the matrix and is not larger than needed.
// ---------------------------------------------------------------------------
TEST(GridForCpu, CoversEveryShapeWithoutSpareBlocks) {
  const dim3 blocks[] = {dim3(16, 16), dim3(32, 8), dim3(7, 5), dim3(256, 1), dim3(1, 1)};
  for (const Shape s : kShapes) {
    for (const dim3 b : blocks) {
      const dim3 g = lab01::grid_for(s.rows, s.cols, b);
      SCOPED_TRACE(std::to_string(s.rows) + "x" + std::to_string(s.cols) + " with block " +
                   std::to_string(b.x) + "x" + std::to_string(b.y));
      EXPECT_GE(std::size_t(g.x) * b.x, std::size_t(s.cols)) << "grid.x too small";
      EXPECT_GE(std::size_t(g.y) * b.y, std::size_t(s.rows)) << "grid.y too small";
      EXPECT_LT(std::size_t(g.x - 1) * b.x, std::size_t(s.cols)) << "grid.x has a spare block";
      EXPECT_LT(std::size_t(g.y - 1) * b.y, std::size_t(s.rows)) << "grid.y has a spare block";
      EXPECT_EQ(g.z, 1u);
    }
  }
}

// ---------------------------------------------------------------------------
// add_one (GPU): exact result on every shape, and nothing written past the end.
// ---------------------------------------------------------------------------
class AddOneGpu : public ::testing::TestWithParam<Shape> {};

TEST_P(AddOneGpu, AddsOneEverywhereAndNothingOutside) {
  CUDALAB_REQUIRE_GPU();
  const auto [rows, cols] = GetParam();
  const std::size_t n = std::size_t(rows) * cols;
  constexpr std::size_t kGuard = 4096;  // sentinel elements after the matrix
  constexpr float kSentinel = -12345.0f;
  const dim3 blocks[] = {dim3(16, 16), dim3(32, 8), dim3(7, 5)};
  for (const dim3 block : blocks) {
    SCOPED_TRACE("block " + std::to_string(block.x) + "x" + std::to_string(block.y));
    std::vector<float> h = cudalab::random_matrix(rows, cols, cudalab::Fill::SmallInt, 1);
    h.resize(n + kGuard, kSentinel);
    cudalab::DeviceBuffer<float> d(n + kGuard);
    d.upload(h);
    lab01::add_one(d.data(), rows, cols, block);
    std::vector<float> got = d.to_host();
    CUDA_CHECK(cudaDeviceSynchronize());

    std::vector<float> expected(h.begin(), h.begin() + n);
    for (auto& x : expected) x += 1.0f;
    std::vector<float> got_matrix(got.begin(), got.begin() + n);
    EXPECT_TRUE(cudalab::testing::matrices_match(expected, got_matrix, rows, cols, 0.0));
    for (std::size_t i = n; i < n + kGuard; ++i) {
      ASSERT_EQ(got[i], kSentinel)
          << "element " << i - n
          << " past the end of the matrix was written: missing bounds check?";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, AddOneGpu, ::testing::ValuesIn(kShapes), shape_name);

TEST(AddOneLaunchGpu, InvalidBlockIsReportedByTheLaunchCheck) {
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

TEST(AddOneLaunchGpu, RejectsNonPositiveSizes) {
  CUDALAB_REQUIRE_GPU();
  cudalab::DeviceBuffer<float> d(4);
  EXPECT_THROW(lab01::add_one(d.data(), 0, 4, dim3(16, 16)), std::invalid_argument);
  EXPECT_THROW(lab01::add_one(d.data(), 4, -1, dim3(16, 16)), std::invalid_argument);
  // A valid launch right after must still work (no sticky error left behind).
  d.fill_bytes(0);
  lab01::add_one(d.data(), 2, 2, dim3(16, 16));
  EXPECT_EQ(d.to_host(), (std::vector<float>{1, 1, 1, 1}));
}

}  // namespace
