// Lab 07: the float4 interleave compiled into the lab library, for host callers (the grader).
#include "swizzle.cuh"
#include "vec4_interleave.cuh"

namespace lab07 {

int vec4_slot_host(int row, int vec) { return vec4_slot(row, vec); }

}  // namespace lab07
