// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 14, popcount_peak.cu (given, not graded): the CUDA cores' popcount-peak
// microbenchmark does all its work. Its rate is the same-run baseline of the pipelined kernel
// (mma_pipelined_test.cu). Helpers in binary_mma_grading.cuh.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "binary_mma_grading.cuh"

namespace {

// The popcount-peak microbenchmark does all its work: every thread's sum equals the host's.
TEST(GivenPopcountPeakGpu, EveryThreadWritesItsSum) {
  CUDALAB_REQUIRE_GPU();
  const long threads = lab14::popcount_peak_threads();
  cudalab::DeviceBuffer<int> d_sink(static_cast<std::size_t>(threads));
  d_sink.fill_bytes(0xFF);
  constexpr int kIterations = 5;
  constexpr std::uint32_t kKey = 0x2545f491u;
  lab14::popcount_peak(kIterations, kKey, d_sink.data());
  const std::vector<int> got = d_sink.to_host();
  for (long i = 0; i < threads; i += 97) {
    ASSERT_EQ(got[std::size_t(i)], lab14::popcount_peak_expected(i, kIterations, kKey))
        << "thread " << i << " of " << threads;
  }
}

}  // namespace
