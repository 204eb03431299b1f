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

}  // namespace
