// SPDX-License-Identifier: BSD-3-Clause
// Lab 13, stage 2 (vectorized.cu): float4 global accesses on the 16-byte paths of stages 2
// and 3, seen in the machine code (cuobjdump -sass of this grader, on the CPU). The fallback to
// scalar accesses for misaligned operands is checked with every technique's (sgemm_test.cu).

#include <string>

#include "sgemm_grading.cuh"

namespace {

using namespace lab13_grading;

// ---------------------------------------------------------------------------
// The compiled kernels (cuobjdump -sass of this grader, on the CPU): 16-byte global loads
// and stores on the vector paths of stages 2 and 3, no local memory in either.
// ---------------------------------------------------------------------------
TEST_F(StagesSassCpu, VectorPathsOfStages2And3Use16ByteGlobalAccesses) {
  // "ILb1E": the instance of template argument true (kVec).
  for (const std::string& part : {mangled_name(lab13::vectorized_kernel()) + "ILb1E",
                                  mangled_name(lab13::warp_tiled_kernel()) + "ILb1E"}) {
    const auto functions = sass_functions(part);
    ASSERT_FALSE(functions.empty()) << "no function named like " << part
                                    << " (the kernel's kVec = true instance) in cuobjdump -sass "
                                    << "of this grader:\n"
                                    << sass::sass_of_this_grader().excerpt;
    for (const auto& [name, ops] : functions) {
      EXPECT_TRUE(has_op(ops, "LDG", true))
          << name << " has no 16-byte global load (LDG.E.128): are A's and B's chunks read as "
          << "one float4 on the vector path?";
      EXPECT_TRUE(has_op(ops, "STG", true))
          << name << " has no 16-byte global store (STG.E.128): is C stored as float4 on the "
          << "vector path?";
      expect_no_local_memory(name, ops);
    }
  }
}

}  // namespace
