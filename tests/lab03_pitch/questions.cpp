// SPDX-License-Identifier: BSD-3-Clause
// Lab 03 questions (labs/lab03_pitch/README.md, "Questions"): bytes and elements.
#include "common/answers.hpp"

namespace {

using cudalab::questions::choice_is;
using cudalab::questions::number_is;
using cudalab::questions::sheet;

TEST(QuestionsCpu, Q1ByteOffsetOfAnElementOfAPitchedMatrix) {
  const long long pitch = 4096;
  EXPECT_TRUE(
      number_is(sheet(), "q1", double(3 * pitch + 5 * 4), 0.0, "byte offset of element (3, 5)"));
}

TEST(QuestionsCpu, Q2PaddingBytesPerRow) {
  EXPECT_TRUE(number_is(sheet(), "q2", double(8192 - 2001 * 4), 0.0, "padding bytes per row"));
}

TEST(QuestionsCpu, Q3PitchDividedBySizeofFloatIsExact) {
  EXPECT_TRUE(choice_is(sheet(), "q3", 'a', "whether pitch / sizeof(float) is exact"));
}

TEST(QuestionsCpu, Q4PitchedAgainstPackedOnTheReferenceGpu) {
  // docs/reference-run.md: 0.977x (PitchPerf, H200): within 5 %.
  EXPECT_TRUE(choice_is(sheet(), "q4", 'b', "pitched against packed on the H200"));
}

}  // namespace
