// SPDX-License-Identifier: BSD-3-Clause
// Lab 03, pitched_matrix.cu: PitchedMatrix on the GPU: the allocation (cudaMallocPitch: the
// runtime's pitch, aligned rows), cudaMemcpy2D in both directions (padding left alone), the
// whole pipeline (upload, pitched_matmul on the matrices, download), and the rest of its
// contract (what the constructor and upload() reject, a failed allocation, move and swap).
// Shared helpers: pitch_grading.cuh.
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/kit.cuh"
#include "cudalab/check.cuh"
#include "cudalab/grading.hpp"
#include "cudalab/graph_capture.cuh"
#include "cudalab/testing.hpp"
#include "pitch.cuh"
#include "pitch_grading.cuh"

namespace lab03::remote {
// tests/lab03_pitch/remote.cu: the lab's matrices live in its own process; the grader's hold
// copies of their memory. For a matrix's data() (live or gone), cudaPointerGetAttributes there
// of the lab's allocation behind it: whether it is device memory.
bool lab_allocation_is_device_memory(const void* data);
}  // namespace lab03::remote

namespace {

using namespace lab03_grading;

// ===========================================================================
// PitchedMatrix (GPU): cudaMallocPitch, and cudaMemcpy2D in both directions.
// ===========================================================================
struct Dims {
  int rows;
  int cols;
};

const Dims kMatrixDims[] = {{1, 1}, {65, 33}, {7, 1001}, {1000, 1000}, {1001, 1001}, {3, 4096}};

std::string dims_name(const ::testing::TestParamInfo<Dims>& p) {
  return std::to_string(p.param.rows) + "x" + std::to_string(p.param.cols);
}

/// A packed host image of a pitched matrix: rows of data, padding filled with @p pad.
std::vector<unsigned char> pitched_image(const std::vector<float>& h_packed, int rows, int cols,
                                         std::size_t pitch, unsigned char pad) {
  std::vector<unsigned char> image(std::size_t(rows) * pitch, pad);
  for (int r = 0; r < rows; ++r) {
    std::memcpy(&image[r * pitch], &h_packed[std::size_t(r) * cols],
                std::size_t(cols) * sizeof(float));
  }
  return image;
}

class PitchedMatrixGpu : public ::testing::TestWithParam<Dims> {
 protected:
  void SetUp() override { CUDALAB_REQUIRE_GPU(); }
};

TEST_P(PitchedMatrixGpu, AllocatesAnAlignedPitchOfAtLeastTheRow) {
  const auto [rows, cols] = GetParam();
  lab03::PitchedMatrix m(rows, cols);
  ASSERT_NE(m.data(), nullptr) << "PitchedMatrix(" << rows << ", " << cols << ") allocated nothing";
  const std::size_t row_bytes = std::size_t(cols) * sizeof(float);
  EXPECT_GE(m.pitch_bytes(), row_bytes)
      << "the pitch must hold a row of " << cols << " floats = " << row_bytes
      << " bytes (cudaMallocPitch's width is in bytes)";
  // Any pitch that keeps every row start aligned is right; the exact value is the runtime's
  // choice (and may differ between GPUs and CUDA versions).
  int device = 0;
  int alignment = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&alignment, cudaDevAttrTexturePitchAlignment, device));
  EXPECT_EQ(m.pitch_bytes() % std::size_t(alignment), 0u)
      << "rows of " << cols << " floats (" << row_bytes << " bytes): a pitch of " << m.pitch_bytes()
      << " bytes does not start every row on a " << alignment
      << "-byte boundary (the device's pitch alignment); did the allocation pad the rows?";
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(m.data()) % 256, 0u)
      << "the allocation does not start on a 256-byte boundary";
  // The allocation holds rows x pitch bytes: writing all of them must succeed.
  CUDA_CHECK(cudaMemset(m.data(), 0, std::size_t(rows) * m.pitch_bytes()));
  CUDA_CHECK(cudaDeviceSynchronize());
}

// The pitch is the runtime's: PitchedMatrix allocates with cudaMallocPitch and reports the
// pitch it returned. The grader asks cudaMallocPitch itself for the same width and height and
// compares: a pitch computed by hand (rounded to a cache line, say), stored in floats, or
// truncated differs from it at some width. Besides the suite's shape, widths around the usual
// alignments and a wide row. (A hand-computed pitch that equals the runtime's at every width
// cannot be told apart; pitch.cuh says so.)
TEST_P(PitchedMatrixGpu, PitchIsWhatCudaMallocPitchReturnsForThatWidth) {
  const auto [rows, cols] = GetParam();
  const Dims widths[] = {{rows, cols}, {2, 1},   {2, 31},  {2, 32},   {2, 33},
                         {2, 127},     {2, 128}, {2, 129}, {2, 1001}, {3, 100003}};
  for (const Dims& d : widths) {
    const std::size_t row_bytes = std::size_t(d.cols) * sizeof(float);
    void* probe = nullptr;
    std::size_t runtime_pitch = 0;
    CUDA_CHECK(cudaMallocPitch(&probe, &runtime_pitch, row_bytes, std::size_t(d.rows)));
    CUDA_CHECK(cudaFree(probe));
    lab03::PitchedMatrix m(d.rows, d.cols);
    ASSERT_NE(m.data(), nullptr) << "PitchedMatrix(" << d.rows << ", " << d.cols
                                 << ") allocated nothing";
    EXPECT_EQ(m.pitch_bytes(), runtime_pitch)
        << "PitchedMatrix(" << d.rows << ", " << d.cols << "): rows of " << row_bytes
        << " bytes; cudaMallocPitch returns a pitch of " << runtime_pitch
        << " bytes for that width here, PitchedMatrix reports " << m.pitch_bytes()
        << ". Allocate with cudaMallocPitch (width in BYTES) and keep the pitch it returns, in "
           "bytes, unchanged";
    if (HasFailure()) return;
  }
}

TEST_P(PitchedMatrixGpu, UploadPutsRowRAtRTimesPitchAndLeavesPadding) {
  const auto [rows, cols] = GetParam();
  const std::vector<float> h = cudalab::random_matrix(rows, cols, cudalab::Fill::Uniform, 1);
  lab03::PitchedMatrix m(rows, cols);
  ASSERT_GE(m.pitch_bytes(), std::size_t(cols) * sizeof(float)) << "no valid pitch";
  m.fill_bytes(kPoisonByte);
  m.upload(h);
  std::vector<unsigned char> got(std::size_t(rows) * m.pitch_bytes());
  CUDA_CHECK(cudaMemcpy(got.data(), m.data(), got.size(), cudaMemcpyDeviceToHost));
  const std::vector<unsigned char> want =
      pitched_image(h, rows, cols, m.pitch_bytes(), kPoisonByte);
  for (std::size_t at = 0; at < want.size(); ++at) {
    if (got[at] != want[at]) {
      const std::size_t r = at / m.pitch_bytes();
      const std::size_t byte = at % m.pitch_bytes();
      FAIL() << "device byte " << at << " (row " << r << ", byte " << byte << " of the row, pitch "
             << m.pitch_bytes() << "): expected "
             << (byte < cols * sizeof(float) ? "data of column " + std::to_string(byte / 4)
                                             : std::string("untouched padding"))
             << " = 0x" << std::hex << int(want[at]) << ", got 0x" << int(got[at]) << std::dec
             << "; " << cudalab::seed_note();
    }
  }
}

TEST_P(PitchedMatrixGpu, DownloadReadsRowRFromRTimesPitch) {
  const auto [rows, cols] = GetParam();
  const std::vector<float> h = cudalab::random_matrix(rows, cols, cudalab::Fill::Uniform, 2);
  lab03::PitchedMatrix m(rows, cols);
  ASSERT_GE(m.pitch_bytes(), std::size_t(cols) * sizeof(float)) << "no valid pitch";
  // Padding bytes 0x42 read as floats are 48.56...: a download that reads padding shows it.
  const std::vector<unsigned char> image = pitched_image(h, rows, cols, m.pitch_bytes(), 0x42);
  CUDA_CHECK(cudaMemcpy(m.data(), image.data(), image.size(), cudaMemcpyHostToDevice));
  EXPECT_TRUE(cudalab::testing::matrices_match(h, m.to_host(), rows, cols, 0.0));
}

TEST_P(PitchedMatrixGpu, RoundTripPreservesData) {
  const auto [rows, cols] = GetParam();
  const std::vector<float> h = cudalab::random_matrix(rows, cols, cudalab::Fill::Uniform, 3);
  lab03::PitchedMatrix m(rows, cols);
  m.fill_bytes(kPoisonByte);
  m.upload(h);
  std::vector<float> back(h.size(), 0.0f);
  m.download(back);
  EXPECT_TRUE(cudalab::testing::matrices_match(h, back, rows, cols, 0.0));
}

INSTANTIATE_TEST_SUITE_P(Widths, PitchedMatrixGpu, ::testing::ValuesIn(kMatrixDims), dims_name);

// ===========================================================================
// The whole pipeline (GPU): PitchedMatrix upload, pitched_matmul, download.
// ===========================================================================
class PitchedPipelineGpu : public ::testing::TestWithParam<Shape> {};

TEST_P(PitchedPipelineGpu, UploadMultiplyDownloadMatchesHostReference) {
  CUDALAB_REQUIRE_GPU();
  const Shape s = GetParam();
  SCOPED_TRACE(shape_text(s));
  const std::vector<float> h_a = cudalab::random_matrix(s.m, s.k, cudalab::Fill::SmallInt, 1);
  const std::vector<float> h_b = cudalab::random_matrix(s.k, s.n, cudalab::Fill::SmallInt, 2);
  lab03::PitchedMatrix a(s.m, s.k), b(s.k, s.n), c(s.m, s.n);
  a.upload(h_a);
  b.upload(h_b);
  c.fill_bytes(kPoisonByte);
  CapturedWork cap = CapturedWork::capture(
      [&](cudaStream_t st) { lab03::pitched_matmul(a, b, c, dim3(16, 16), st); });
  ASSERT_TRUE(cap.holds_only(pitched_rules(s.m, s.n, dim3(16, 16))));
  cudalab::testing::poison_shared_memory();
  cap.run();
  EXPECT_TRUE(cudalab::testing::matrices_match(cudalab::reference_matmul(h_a, h_b, s.m, s.n, s.k),
                                               c.to_host(), s.m, s.n, 0.0));
}

std::string shape_name(const ::testing::TestParamInfo<Shape>& p) {
  return "m" + std::to_string(p.param.m) + "_n" + std::to_string(p.param.n) + "_k" +
         std::to_string(p.param.k);
}

INSTANTIATE_TEST_SUITE_P(Shapes, PitchedPipelineGpu, ::testing::ValuesIn(kShapes), shape_name);

// ---------------------------------------------------------------------------
// The rest of PitchedMatrix's contract: what the constructor and upload() reject, what a failed
// allocation reports, and what moving and swapping matrices do with their allocations. Each
// test ends with a valid use that needs the lab's own code (an allocation, a copy), so the
// untouched stub fails it.
// ---------------------------------------------------------------------------

/// Whether @p p, a matrix's data(), is still the start of a live device allocation (asked of
/// the lab's process, where the matrix allocated it).
bool is_device_allocation(const void* p) {
  return lab03::remote::lab_allocation_is_device_memory(p);
}

TEST(PitchedContractGpu, ConstructorRejectsBadShapesAndReportsAFailedAllocation) {
  CUDALAB_REQUIRE_GPU();
  for (const auto& [rows, cols] :
       {std::pair{0, 5}, std::pair{5, 0}, std::pair{-1, 5}, std::pair{5, -3}, std::pair{0, 0}}) {
    EXPECT_THROW(lab03::PitchedMatrix(rows, cols), std::invalid_argument)
        << "PitchedMatrix(" << rows << ", " << cols << "): rows and cols must be positive";
  }
  // 2^20 rows of 2^28 floats (1 GiB each): a pebibyte, which no GPU has. cudaMallocPitch fails,
  // and the constructor must say so (CUDA_CHECK) rather than leave an empty matrix behind.
  bool threw_cuda_error = false;
  try {
    lab03::PitchedMatrix huge(1 << 20, 1 << 28);
    ADD_FAILURE() << "PitchedMatrix(2^20, 2^28) returned (data " << huge.data() << ", pitch "
                  << huge.pitch_bytes() << "): a pebibyte cannot be allocated, so the "
                  << "cudaMallocPitch error was ignored (wrap the call in CUDA_CHECK)";
  } catch (const cudalab::CudaError&) {
    threw_cuda_error = true;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "PitchedMatrix(2^20, 2^28) threw '" << e.what()
                  << "', expected a cudalab::CudaError (the failed cudaMallocPitch)";
  }
  (void)cudaGetLastError();  // the failed allocation's error is reported; clear it
  EXPECT_TRUE(threw_cuda_error);
  // And a matrix that fits is allocated.
  lab03::PitchedMatrix ok(3, 5);
  EXPECT_NE(ok.data(), nullptr) << "PitchedMatrix(3, 5) allocated nothing";
  EXPECT_GE(ok.pitch_bytes(), ok.row_bytes());
  EXPECT_TRUE(ok.data() == nullptr || is_device_allocation(ok.data()))
      << "PitchedMatrix(3, 5)'s data() is not device memory";
}

TEST(PitchedContractGpu, MoveAndSwapHandOverAllocationsAndMoveAssignmentFreesTheOldOne) {
  CUDALAB_REQUIRE_GPU();
  const std::vector<float> h_a = small_ints(3, 5, 1);
  const std::vector<float> h_b = small_ints(4, 2, 2);
  lab03::PitchedMatrix a(3, 5);
  lab03::PitchedMatrix b(4, 2);
  ASSERT_NE(a.data(), nullptr) << "PitchedMatrix(3, 5) allocated nothing";
  ASSERT_NE(b.data(), nullptr) << "PitchedMatrix(4, 2) allocated nothing";
  a.upload(h_a);
  b.upload(h_b);
  float* const a_data = a.data();
  float* const b_data = b.data();
  const std::size_t a_pitch = a.pitch_bytes();
  const std::size_t b_pitch = b.pitch_bytes();

  // swap(): the allocations, pitches and shapes change places; the data goes with them.
  a.swap(b);
  EXPECT_EQ(a.data(), b_data);
  EXPECT_EQ(b.data(), a_data);
  EXPECT_EQ(a.pitch_bytes(), b_pitch);
  EXPECT_EQ(b.pitch_bytes(), a_pitch);
  EXPECT_EQ(a.rows(), 4);
  EXPECT_EQ(a.cols(), 2);
  EXPECT_EQ(b.rows(), 3);
  EXPECT_EQ(b.cols(), 5);
  EXPECT_EQ(a.to_host(), h_b) << "after swap, a holds what b held";
  EXPECT_EQ(b.to_host(), h_a) << "after swap, b holds what a held";

  // Move construction: the new matrix takes the allocation, the old one is empty.
  lab03::PitchedMatrix c(std::move(b));
  EXPECT_EQ(c.data(), a_data);
  EXPECT_EQ(b.data(), nullptr);  // NOLINT(bugprone-use-after-move): the contract says empty
  EXPECT_EQ(b.rows(), 0);
  EXPECT_EQ(b.cols(), 0);
  EXPECT_EQ(b.pitch_bytes(), 0u);
  EXPECT_EQ(c.to_host(), h_a);

  // Move assignment: c frees its own allocation (a_data) and takes a's (b_data); a is empty.
  ASSERT_TRUE(is_device_allocation(a_data)) << "c's allocation should be live before the move";
  c = std::move(a);
  EXPECT_EQ(c.data(), b_data);
  EXPECT_EQ(c.rows(), 4);
  EXPECT_EQ(c.cols(), 2);
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(a.rows(), 0);
  EXPECT_EQ(a.pitch_bytes(), 0u);
  EXPECT_FALSE(is_device_allocation(a_data))
      << "the allocation c held before `c = std::move(a)` is still live: a moved-into matrix "
      << "(through its destructor) must free what it held";
  EXPECT_EQ(c.to_host(), h_b);

  // The destructor frees too: a matrix that goes out of scope leaves nothing allocated.
  float* scoped_data = nullptr;
  {
    lab03::PitchedMatrix scoped(2, 3);
    scoped_data = scoped.data();
    ASSERT_TRUE(scoped_data != nullptr && is_device_allocation(scoped_data));
  }
  EXPECT_FALSE(is_device_allocation(scoped_data))
      << "a PitchedMatrix that went out of scope still holds its device memory";
}

TEST(PitchedContractGpu, UploadRejectsAHostMatrixOfTheWrongSize) {
  CUDALAB_REQUIRE_GPU();
  lab03::PitchedMatrix m(3, 5);
  ASSERT_NE(m.data(), nullptr) << "PitchedMatrix(3, 5) allocated nothing";
  const std::vector<float> h = small_ints(3, 5, 3);
  m.upload(h);
  for (const std::size_t size :
       {std::size_t(16), std::size_t(30), std::size_t(14), std::size_t(0)}) {
    EXPECT_THROW(m.upload(std::vector<float>(size, 1.0f)), std::invalid_argument)
        << "upload() of " << size << " floats into a 3 x 5 matrix (15 floats)";
  }
  EXPECT_EQ(m.to_host(), h) << "the matrix uploaded before the rejected calls came back changed";
}

}  // namespace
