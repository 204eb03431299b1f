// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 02, thread_per_element.cu: thread_per_element_grid() on the CPU (N columns in x,
// M rows in y, no spare block); one thread per element right on every shape and fill with every
// block shape at the edges and in between, under stream capture and on two data sets behind the
// same pointers; K past 70000 (LargeKGpu); A, B and C past 2^31 elements. Its memcheck run and
// its speed against the uncoalesced baseline are checked with the other kernel's
// (naive_matmul_test.cu). Helpers in naive_matmul_grading.cuh.
#include <cstddef>
#include <string>
#include <vector>

#include "common/matmul_grading.cuh"
#include "naive_matmul_grading.cuh"

namespace {

using namespace lab02_grading;

// ---------------------------------------------------------------------------
// thread_per_element_grid (CPU): N columns in x, M rows in y, no spare block.
// ---------------------------------------------------------------------------
TEST(ThreadPerElementGridCpu, CoversColumnsInXAndRowsInYWithoutSpareBlocks) {
  const dim3 blocks[] = {dim3(16, 16), dim3(32, 8), dim3(7, 5), dim3(1, 64), dim3(1, 1)};
  for (const Shape s : kShapes) {
    for (const dim3 b : blocks) {
      const dim3 g = lab02::thread_per_element_grid(s.m, s.n, b);
      // Expected: ceil(N / block.x) blocks in x (columns), ceil(M / block.y) in y (rows).
      const unsigned want_x = (unsigned(s.n) + b.x - 1) / b.x;
      const unsigned want_y = (unsigned(s.m) + b.y - 1) / b.y;
      if (g.x != want_x || g.y != want_y || g.z != 1) {
        std::string why;
        if (std::size_t(g.x) * b.x < std::size_t(s.n))
          why += "; grid.x does not cover the N columns";
        if (std::size_t(g.y) * b.y < std::size_t(s.m)) why += "; grid.y does not cover the M rows";
        if (g.x > want_x || g.y > want_y) why += "; spare blocks";
        if (g.x == want_y && g.y == want_x && g.x != g.y) why += "; x and y swapped?";
        FAIL() << "thread_per_element_grid(M=" << s.m << ", N=" << s.n << ", block " << dims(b)
               << "): expected grid " << want_x << "x" << want_y << "x1, got " << g.x << "x" << g.y
               << "x" << g.z << why;
      }
    }
  }
}

// Every block shape the launcher accepts, at the edges (1 and 1024 threads, 1024 along x and
// along y) and in between.
const dim3 kElementBlocks[] = {dim3(16, 16), dim3(32, 8), dim3(7, 5),    dim3(33, 3),
                               dim3(1, 32),  dim3(1, 1),  dim3(1024, 1), dim3(1, 1024)};

// ---------------------------------------------------------------------------
// (b) one thread per element (GPU): every shape and fill, every block shape edge.
// ---------------------------------------------------------------------------
class ThreadPerElementGpu : public ::testing::TestWithParam<Param> {};

TEST_P(ThreadPerElementGpu, MatchesHostReference) {
  CUDALAB_REQUIRE_GPU();
  const Shape s = std::get<0>(GetParam());
  std::vector<NamedLaunch> launches;
  for (const dim3 block : kElementBlocks) {
    if ((s.m + block.y - 1) / block.y > cudalab::kMaxGridYZ) continue;  // the launcher refuses it
    launches.push_back(thread_per_element(block));
  }
  expect_correct_for_each(s, std::get<1>(GetParam()), launches);
}

INSTANTIATE_TEST_SUITE_P(Shapes, ThreadPerElementGpu, kAllShapesAndFills, param_name);

// Range edge (GPU): K far larger than any fixed-size staging buffer (naive_matmul_grading.cuh).
TEST_P(LargeKGpu, ThreadPerElementHandlesKPast70000) {
  CUDALAB_REQUIRE_GPU();
  expect_correct_for_each(std::get<0>(GetParam()), std::get<1>(GetParam()),
                          {thread_per_element(dim3(32, 8)), thread_per_element(dim3(16, 16))});
}

// ---------------------------------------------------------------------------
// Index range (GPU): A, B and C in turn past 2^31 elements, as for one block per row
// (row_per_block_test.cu, tests/common/matmul_grading.cuh).
// ---------------------------------------------------------------------------

TEST(IndexRangeGpu, ThreadPerElementPast2To31ElementsOfA) {
  CUDALAB_REQUIRE_GPU();
  // 32 rows per block: 65535 blocks in y cover 2,097,120 rows of A.
  matmul_grading::expect_large_a_rows(
      thread_per_element(dim3(32, 32)).launch,
      matmul_grading::only_kernel_rules(lab02::thread_per_element_kernel()), 32, 3);
}

TEST(IndexRangeGpu, ThreadPerElementPast2To31ElementsOfB) {
  CUDALAB_REQUIRE_GPU();
  matmul_grading::expect_large_b_columns(
      thread_per_element(dim3(32, 8)).launch,
      matmul_grading::only_kernel_rules(lab02::thread_per_element_kernel()), 8, false);
}

TEST(IndexRangeGpu, ThreadPerElementPast2To31ElementsOfC) {
  CUDALAB_REQUIRE_GPU();
  // 16 rows per block: 65535 blocks in y cover 1,048,560 rows of C, x 2071 columns.
  matmul_grading::expect_large_c_rows(
      thread_per_element(dim3(16, 16)).launch,
      matmul_grading::only_kernel_rules(lab02::thread_per_element_kernel()), 16, true);
}

}  // namespace
