// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 12, register_prefetch.cu (part 1): the register-prefetch kernel on the small runs
// the sanitizers re-run. What it shares with the cp.async kernel (odd shapes, past 2^31 elements,
// the speed races) is registered once over both in prefetch_test.cu. Helpers in
// prefetch_grading.cuh.
#include "prefetch_grading.cuh"

namespace {

using namespace lab12_grading;

// ---------------------------------------------------------------------------
// Small runs: what the sanitizer tests re-run under compute-sanitizer (kSmall). One suite per
// kernel, so a student who skipped the advanced kernel fails only its own tests.
// ---------------------------------------------------------------------------
TEST(SmallPrefetchGpu, RegisterPrefetch) {
  CUDALAB_REQUIRE_GPU();
  for (const Shape& s : kSmall)
    expect_product_with_k_tiles(lab12::matmul_register_prefetch, lab12::register_prefetch_kernel(),
                                s);
}

CUDALAB_SANITIZER_SUITE(PrefetchSanitizer, "SmallPrefetchGpu.*", racecheck, synccheck, memcheck)

}  // namespace
