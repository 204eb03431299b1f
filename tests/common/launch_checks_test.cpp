// SPDX-License-Identifier: BSD-3-Clause
// Unit tests of the launchers' shared argument checks (cudalab/launch_checks.hpp).
#include "cudalab/launch_checks.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace {

/// The message of the std::invalid_argument @p f throws ("" if it throws none).
template <class F>
std::string message_of(F f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(GivenLaunchChecksCpu, NullPointers) {
  const float x = 0.0f;
  EXPECT_NO_THROW(cudalab::check_not_null("f", {&x, &x, &x}));
  EXPECT_EQ(message_of([&] {
              cudalab::check_not_null("f", {&x, nullptr, &x});
            }),
            "f: null device pointer");
}

TEST(GivenLaunchChecksCpu, PositiveDims) {
  EXPECT_NO_THROW(cudalab::check_positive_dims("f", 1, 1, 1));
  EXPECT_EQ(message_of([] { cudalab::check_positive_dims("mm", 3, 0, 5); }),
            "mm: M, N and K must be positive, got M=3 N=0 K=5");
  EXPECT_THROW(cudalab::check_positive_dims("mm", -1, 2, 2), std::invalid_argument);
  EXPECT_THROW(cudalab::check_positive_dims("mm", 2, 2, 0), std::invalid_argument);
}

TEST(GivenLaunchChecksCpu, BlockShape) {
  EXPECT_NO_THROW(cudalab::check_block_shape("f", dim3(32, 32)));
  EXPECT_NO_THROW(cudalab::check_block_shape("f", dim3(1, 1)));
  EXPECT_NO_THROW(cudalab::check_block_shape("f", dim3(1024, 1)));
  EXPECT_EQ(message_of([] { cudalab::check_block_shape("mm", dim3(33, 32)); }),
            "mm: invalid block 33x32x1 (every extent >= 1, z == 1, at most 1024 threads)");
  EXPECT_THROW(cudalab::check_block_shape("f", dim3(0, 4)), std::invalid_argument);
  EXPECT_THROW(cudalab::check_block_shape("f", dim3(4, 0)), std::invalid_argument);
  EXPECT_THROW(cudalab::check_block_shape("f", dim3(4, 4, 2)), std::invalid_argument);
}

TEST(GivenLaunchChecksCpu, TileGrid) {
  const dim3 g = cudalab::tile_grid(33, 65, 32, 16, "f");
  EXPECT_EQ(g.x, 5u);
  EXPECT_EQ(g.y, 2u);
  EXPECT_EQ(g.z, 1u);
  const dim3 last = cudalab::tile_grid(65535 * 32, 1, 32, 32, "f");  // exactly 65535 tile rows
  EXPECT_EQ(last.y, 65535u);
  EXPECT_EQ(message_of([] { cudalab::tile_grid(65535 * 32 + 1, 1, 32, 32, "mm"); }),
            "mm: 2097121 rows need 65536 tile rows of 32, more than gridDim.y allows (65535)");
  EXPECT_EQ(message_of([] { cudalab::tile_grid(0, 4, 32, 32, "mm"); }),
            "mm: sizes must be positive, got 0x4");
  EXPECT_THROW(cudalab::tile_grid(4, -1, 32, 32, "f"), std::invalid_argument);
  EXPECT_THROW(cudalab::tile_grid(4, 4, 0, 32, "f"), std::invalid_argument);
}

}  // namespace
