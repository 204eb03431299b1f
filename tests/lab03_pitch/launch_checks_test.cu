// SPDX-License-Identifier: BSD-3-Clause
// Lab 03, launch_checks.cu (the argument checks and grid both launchers share) and the launchers
// that call them: what both pitched_matmul() overloads reject, what a failed launch reports,
// and the given packed baseline's checks (on the CPU). Shared helpers: pitch_grading.cuh.
#include <cstddef>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/testing.hpp"
#include "pitch.cuh"
#include "pitch_grading.cuh"

namespace {

using namespace lab03_grading;

/// The valid use a contract test ends with, which needs the lab's own code (the untouched stub
/// fails it): small integers (salts @p salt_a, @p salt_b) into pitched A (m x k) and B (k x n),
/// pitched_matmul() on them with a 16 x 16 block on the default stream, C against the packed
/// product.
void expect_pointer_product(cudalab::DeviceBuffer<float>& d_a, std::size_t pa,
                            cudalab::DeviceBuffer<float>& d_b, std::size_t pb,
                            cudalab::DeviceBuffer<float>& d_c, std::size_t pc, int m, int n, int k,
                            int salt_a, int salt_b) {
  const std::vector<float> h_a = small_ints(m, k, salt_a);
  const std::vector<float> h_b = small_ints(k, n, salt_b);
  CUDA_CHECK(cudaMemcpy2D(d_a.data(), pa, h_a.data(), k * sizeof(float), k * sizeof(float), m,
                          cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy2D(d_b.data(), pb, h_b.data(), n * sizeof(float), n * sizeof(float), k,
                          cudaMemcpyHostToDevice));
  lab03::pitched_matmul(d_a.data(), pa, d_b.data(), pb, d_c.data(), pc, m, n, k, dim3(16, 16));
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> h_c(std::size_t(m) * n);
  CUDA_CHECK(cudaMemcpy2D(h_c.data(), n * sizeof(float), d_c.data(), pc, n * sizeof(float), m,
                          cudaMemcpyDeviceToHost));
  EXPECT_EQ(h_c, packed_product(h_a, h_b, m, n, k));
}

// ---------------------------------------------------------------------------
// The rest of the launchers' contract: what both pitched_matmul() overloads reject and what a
// failed launch reports. Each test ends with a valid use that needs the lab's own code (a
// product), so the untouched stub fails it.
// ---------------------------------------------------------------------------

TEST(PitchedContractGpu, LauncherRejectsBadArgumentsAndStillComputes) {
  CUDALAB_REQUIRE_GPU();
  constexpr int m = 5, n = 7, k = 3;
  const std::size_t pa = 512, pb = 512, pc = 1024;  // bytes: each >= its row, a multiple of 4
  cudalab::DeviceBuffer<float> d_a(m * pa / sizeof(float));
  cudalab::DeviceBuffer<float> d_b(k * pb / sizeof(float));
  cudalab::DeviceBuffer<float> d_c(m * pc / sizeof(float));
  const float* a = d_a.data();
  const float* b = d_b.data();
  float* c = d_c.data();
  const dim3 blk(16, 16);
  struct Bad {
    const char* why;
    std::function<void()> call;
  };
  // Every call is refused before a launch; the pointers are real allocations, so a launcher
  // that skips the checks fails with a launch error (a CudaError) rather than corrupting memory,
  // except for the null pointers, which come last.
  const Bad bad[] = {
      {"m = 0", [&] { lab03::pitched_matmul(a, pa, b, pb, c, pc, 0, n, k, blk); }},
      {"n = -1", [&] { lab03::pitched_matmul(a, pa, b, pb, c, pc, m, -1, k, blk); }},
      {"k = 0", [&] { lab03::pitched_matmul(a, pa, b, pb, c, pc, m, n, 0, blk); }},
      {"pitch of A below K floats",
       [&] { lab03::pitched_matmul(a, k * 4 - 4, b, pb, c, pc, m, n, k, blk); }},
      {"pitch of B below N floats",
       [&] { lab03::pitched_matmul(a, pa, b, n * 4 - 4, c, pc, m, n, k, blk); }},
      {"pitch of C below N floats",
       [&] { lab03::pitched_matmul(a, pa, b, pb, c, n * 4 - 4, m, n, k, blk); }},
      {"block 64 x 32 (2048 threads)",
       [&] { lab03::pitched_matmul(a, pa, b, pb, c, pc, m, n, k, dim3(64, 32)); }},
      {"block 0 x 8", [&] { lab03::pitched_matmul(a, pa, b, pb, c, pc, m, n, k, dim3(0, 8)); }},
      {"block.z = 2", [&] { lab03::pitched_matmul(a, pa, b, pb, c, pc, m, n, k, dim3(8, 8, 2)); }},
      {"70000 rows in blocks of 1024 x 1: 70000 blocks in y",
       [&] { lab03::pitched_matmul(a, pa, b, pb, c, pc, 70000, n, k, dim3(1024, 1)); }},
      {"pitch of A not a multiple of sizeof(float)",
       [&] { lab03::pitched_matmul(a, pa + 2, b, pb, c, pc, m, n, k, blk); }},
      {"pitch of B not a multiple of sizeof(float)",
       [&] { lab03::pitched_matmul(a, pa, b, pb + 1, c, pc, m, n, k, blk); }},
      {"pitch of C not a multiple of sizeof(float)",
       [&] { lab03::pitched_matmul(a, pa, b, pb, c, pc + 3, m, n, k, blk); }},
      {"null A", [&] { lab03::pitched_matmul(nullptr, pa, b, pb, c, pc, m, n, k, blk); }},
      {"null B", [&] { lab03::pitched_matmul(a, pa, nullptr, pb, c, pc, m, n, k, blk); }},
      {"null C", [&] { lab03::pitched_matmul(a, pa, b, pb, nullptr, pc, m, n, k, blk); }},
  };
  for (const Bad& x : bad) {
    EXPECT_THROW(x.call(), std::invalid_argument) << "pitched_matmul(" << x.why << ")";
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess)
      << "a rejected call launched a kernel that failed";
  // A valid call right after computes the product.
  expect_pointer_product(d_a, pa, d_b, pb, d_c, pc, m, n, k, 4, 5);
}

TEST(PitchedContractGpu, LauncherReportsAFailedLaunch) {
  // A launch that passes every argument check can still fail: here the stream's capture was
  // invalidated (a stream query is not allowed while the stream is captured), so a kernel
  // enqueued on it is refused with cudaErrorStreamCaptureInvalidated. The launcher must check
  // its launch and throw a cudalab::CudaError, not return as if the product were on its way.
  CUDALAB_REQUIRE_GPU();
  constexpr int m = 4, n = 4, k = 4;
  const std::size_t pitch = 64;
  cudalab::DeviceBuffer<float> d_a(m * pitch / sizeof(float));
  cudalab::DeviceBuffer<float> d_b(k * pitch / sizeof(float));
  cudalab::DeviceBuffer<float> d_c(m * pitch / sizeof(float));
  cudaStream_t s = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
  (void)cudaStreamQuery(s);  // not allowed during capture: invalidates it
  (void)cudaGetLastError();
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  (void)cudaStreamIsCapturing(s, &status);
  (void)cudaGetLastError();
  const bool premise = status == cudaStreamCaptureStatusInvalidated;
  bool threw_cuda_error = false;
  std::string other;
  if (premise) {
    try {
      lab03::pitched_matmul(d_a.data(), pitch, d_b.data(), pitch, d_c.data(), pitch, m, n, k,
                            dim3(16, 16), s);
    } catch (const cudalab::CudaError&) {
      threw_cuda_error = true;
    } catch (const std::exception& e) {
      other = e.what();
    }
  }
  cudaGraph_t graph = nullptr;
  (void)cudaStreamEndCapture(s, &graph);  // ends the invalidated capture (an error, no graph)
  if (graph != nullptr) (void)cudaGraphDestroy(graph);
  (void)cudaGetLastError();
  (void)cudaStreamDestroy(s);
  ASSERT_TRUE(premise) << "grader premise: the capture was not invalidated (status " << int(status)
                       << ")";
  EXPECT_TRUE(threw_cuda_error)
      << "pitched_matmul on a stream whose capture is invalidated "
      << (other.empty() ? "returned normally" : "threw '" + other + "'")
      << ": the failed launch was not reported as a cudalab::CudaError (CUDA_CHECK_LAST_LAUNCH "
      << "after the launch)";
  // And the same launcher on an ordinary stream works.
  expect_pointer_product(d_a, pitch, d_b, pitch, d_c, pitch, m, n, k, 6, 7);
}

TEST(PitchedContractGpu, MatrixOverloadRejectsShapesThatDoNotMatch) {
  CUDALAB_REQUIRE_GPU();
  lab03::PitchedMatrix a(3, 4);
  lab03::PitchedMatrix b(4, 6);
  lab03::PitchedMatrix c(3, 6);
  ASSERT_TRUE(a.data() != nullptr && b.data() != nullptr && c.data() != nullptr)
      << "PitchedMatrix allocated nothing";
  const std::vector<float> h_a = small_ints(3, 4, 8);
  const std::vector<float> h_b = small_ints(4, 6, 9);
  a.upload(h_a);
  b.upload(h_b);
  // Shapes whose product would stay inside the allocations if it were (wrongly) computed.
  lab03::PitchedMatrix a_short(3, 3);  // a.cols() 3 != b.rows() 4
  lab03::PitchedMatrix c_tall(4, 6);   // c.rows() 4 != a.rows() 3
  lab03::PitchedMatrix c_wide(3, 7);   // c.cols() 7 != b.cols() 6
  EXPECT_THROW(lab03::pitched_matmul(a_short, b, c, dim3(16, 16)), std::invalid_argument)
      << "A 3x3 times B 4x6";
  EXPECT_THROW(lab03::pitched_matmul(a, b, c_tall, dim3(16, 16)), std::invalid_argument)
      << "C 4x6 = A 3x4 times B 4x6";
  EXPECT_THROW(lab03::pitched_matmul(a, b, c_wide, dim3(16, 16)), std::invalid_argument)
      << "C 3x7 = A 3x4 times B 4x6";
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  lab03::pitched_matmul(a, b, c, dim3(16, 16));
  CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(c.to_host(), packed_product(h_a, h_b, 3, 6, 4));
}

// The given baseline's argument checks (the contract: "std::invalid_argument as
// pitched_matmul()"; its pitches are the packed row sizes). Given code, not graded; nothing is
// launched: the pointers are host dummies, only checked for null.
TEST(GivenArgumentChecksCpu, UnpitchedBaselineRejectsWhatPitchedMatmulRejects) {
  float h_dummy[1] = {0.0f};
  const float* p = h_dummy;
  float* q = h_dummy;
  const dim3 ok(16, 16);
  EXPECT_THROW(lab03::unpitched_matmul(nullptr, p, q, 4, 4, 4, ok), std::invalid_argument);
  EXPECT_THROW(lab03::unpitched_matmul(p, nullptr, q, 4, 4, 4, ok), std::invalid_argument);
  EXPECT_THROW(lab03::unpitched_matmul(p, p, nullptr, 4, 4, 4, ok), std::invalid_argument);
  EXPECT_THROW(lab03::unpitched_matmul(p, p, q, 0, 4, 4, ok), std::invalid_argument);
  EXPECT_THROW(lab03::unpitched_matmul(p, p, q, 4, -2, 4, ok), std::invalid_argument);
  EXPECT_THROW(lab03::unpitched_matmul(p, p, q, 4, 4, 0, ok), std::invalid_argument);
  EXPECT_THROW(lab03::unpitched_matmul(p, p, q, 4, 4, 4, dim3(64, 32)), std::invalid_argument)
      << "2048 threads per block";
  EXPECT_THROW(lab03::unpitched_matmul(p, p, q, 4, 4, 4, dim3(0, 8)), std::invalid_argument);
  EXPECT_THROW(lab03::unpitched_matmul(p, p, q, 4, 4, 4, dim3(8, 8, 2)), std::invalid_argument)
      << "block.z != 1";
  EXPECT_THROW(lab03::unpitched_matmul(p, p, q, 70000, 4, 4, dim3(1024, 1)), std::invalid_argument)
      << "70000 blocks in y > 65535";
}

}  // namespace
