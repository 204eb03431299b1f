// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 03: pitched allocation and 2-D copies, pitched indexing (on the CPU), and
// the thread-per-element matmul over pitched matrices.
//
// Every graded pitched_matmul launch is captured from the stream it is given
// (cudalab/graph_capture.cuh): the graph may hold the lab's pitched kernel and nothing else
// (the PitchedMatrix functions allocate and copy synchronously, so they are tested outside a
// capture: cudaMallocPitch cannot be captured). The graph is replayed on two data sets behind
// the same pointers, with C poisoned and every SM's shared memory filled with NaN.
//
// The lab runs in a process of its own (tests/lab03_pitch/remote.cu): a PitchedMatrix here
// holds a copy of the device memory of the lab's matrix, kept equal to it around every call, so
// what a test reads through data() is the lab's; whether the lab freed an allocation is asked
// of the lab's process (is_device_allocation).
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/kit.cuh"
#include "cudalab/bench.cuh"
#include "cudalab/ceilings.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/grading.hpp"
#include "cudalab/graph_capture.cuh"
#include "cudalab/testing.hpp"
#include "pitch.cuh"

namespace {

using cudalab::testing::CapturedWork;
using cudalab::testing::GraphRules;

/// What the graph captured from pitched_matmul(..., m, n, k, block) may hold: the lab's
/// kernel, nothing else, launched with the requested block on the grid the launcher is
/// given (N columns in x, M rows in y, no spare block: the test's own count) and no dynamic
/// shared memory.
GraphRules pitched_rules(int m, int n, dim3 block) {
  const cudalab::KernelInfo kernel = lab03::pitched_matmul_kernel();
  GraphRules r = cudalab::kit::only_kernel(kernel);
  const dim3 grid((unsigned(n) + block.x - 1) / block.x, (unsigned(m) + block.y - 1) / block.y);
  r.expect_launch(kernel.name, grid, block, 0u, "`grid` blocks of the requested block");
  return r;
}

constexpr int kPerfSize = 4001;
constexpr unsigned kPerfBlockX = 32;
constexpr unsigned kPerfBlockY = 8;

constexpr unsigned char kPoisonByte = 0xFF;  // 0xFFFFFFFF is a NaN float
constexpr std::size_t kGuardBytes = 4096;    // after the last row: must stay untouched

std::size_t round_up(std::size_t x, std::size_t to) {
  return (x + to - 1) / to * to;
}

std::string dims(dim3 d) {
  return std::to_string(d.x) + "x" + std::to_string(d.y);
}

// ===========================================================================
// pitched_row (CPU): row r starts r * pitch BYTES after the base.
// ===========================================================================

/// A host stand-in for a pitched allocation: rows of `pitch` bytes, all bytes kPoisonByte.
struct HostPitched {
  HostPitched(int n_rows, int n_cols, std::size_t row_pitch)
      : rows(n_rows),
        cols(n_cols),
        pitch(row_pitch),
        storage((std::size_t(n_rows) * row_pitch + sizeof(float) - 1) / sizeof(float)) {
    std::memset(storage.data(), kPoisonByte, storage.size() * sizeof(float));
  }
  const char* bytes() const { return reinterpret_cast<const char*>(storage.data()); }
  int rows;
  int cols;
  std::size_t pitch;
  std::vector<float> storage;  // float-aligned bytes
};

/// Bytes from @p base to @p p (negative when p is below base), without pointer UB.
long long byte_distance(const void* base, const void* p) {
  return static_cast<long long>(reinterpret_cast<std::uintptr_t>(p) -
                                reinterpret_cast<std::uintptr_t>(base));
}

/// Explains a wrong row offset by the usual mistakes.
std::string diagnose(long long got, std::size_t pitch, int cols, int row) {
  if (row > 0 && got == static_cast<long long>(row * pitch * sizeof(float))) {
    return " (the pitch was used as a count of floats: it is already in bytes)";
  }
  if (row > 0 && got == static_cast<long long>(row * std::size_t(cols) * sizeof(float))) {
    return " (that is the packed row size: the pitch was ignored)";
  }
  if (row > 0 && got == 0) return " (every row starts at the base?)";
  return "";
}

struct RowCase {
  int cols;           // floats of data per row
  std::size_t pitch;  // bytes from one row start to the next
};

// Fake pitches: as cudaMallocPitch would choose, packed, and odd ones that are not a
// multiple of the row's data nor of 128 bytes.
const RowCase kRowCases[] = {{1001, 4096}, {1001, 4004}, {1001, 4100}, {1000, 4096},
                             {1000, 4608}, {33, 512},    {33, 132},    {33, 164},
                             {1, 4},       {1, 512},     {4096, 16384}};

TEST(PitchedRowCpu, RowStartsRowTimesPitchBytesAfterTheBase) {
  for (const RowCase rc : kRowCases) {
    const HostPitched m(9, rc.cols, rc.pitch);
    const float* base = m.storage.data();
    for (int row = 0; row < m.rows; ++row) {
      const long long expected = static_cast<long long>(row * rc.pitch);
      const long long got = byte_distance(base, lab03::pitched_row(base, rc.pitch, row));
      if (got != expected) {  // report the first wrong row of each case
        ADD_FAILURE() << "pitched_row(base, pitch " << rc.pitch << " bytes, row " << row
                      << ") for rows of " << rc.cols << " floats (" << rc.cols * 4
                      << " bytes): expected base + " << expected << " bytes, got base + " << got
                      << " bytes" << diagnose(got, rc.pitch, rc.cols, row);
        break;
      }
    }
  }
}

TEST(PitchedRowCpu, ElementsWrittenThroughRowsLandAtPitchedOffsetsAndPaddingStaysUntouched) {
  // Width 1001 floats = 4004 bytes in a pitch of 4096 (and two odd pitches).
  for (const RowCase rc : {RowCase{1001, 4096}, RowCase{33, 164}, RowCase{1000, 4100}}) {
    SCOPED_TRACE("rows of " + std::to_string(rc.cols) + " floats, pitch " +
                 std::to_string(rc.pitch) + " bytes");
    HostPitched m(7, rc.cols, rc.pitch);
    float* base = m.storage.data();
    const long long last_start = static_cast<long long>((m.rows - 1) * rc.pitch);
    // Refuse to write through a row pointer outside the buffer (it would corrupt the heap).
    for (int row = 0; row < m.rows; ++row) {
      const long long got = byte_distance(base, lab03::pitched_row(base, rc.pitch, row));
      ASSERT_TRUE(got >= 0 && got <= last_start)
          << "row " << row << " starts at base + " << got << " bytes, outside the " << m.rows
          << " rows of " << rc.pitch << " bytes; expected base + " << row * rc.pitch
          << diagnose(got, rc.pitch, rc.cols, row);
    }
    for (int row = 0; row < m.rows; ++row) {
      float* r = lab03::pitched_row(base, rc.pitch, row);
      for (int col = 0; col < m.cols; ++col) r[col] = float(row * 10000 + col);
    }
    const std::size_t row_bytes = std::size_t(m.cols) * sizeof(float);
    for (int row = 0; row < m.rows; ++row) {
      const std::size_t row_start = row * rc.pitch;
      for (int col = 0; col < m.cols; ++col) {
        float got = 0.0f;
        std::memcpy(&got, m.bytes() + row_start + col * sizeof(float), sizeof got);
        ASSERT_EQ(got, float(row * 10000 + col))
            << "element (" << row << ", " << col << ") at byte " << row_start + col * sizeof(float)
            << " = row * pitch + col * 4 does not hold the value written to it";
      }
      for (std::size_t byte = row_bytes; byte < rc.pitch; ++byte) {
        ASSERT_EQ(static_cast<unsigned char>(m.bytes()[row_start + byte]), kPoisonByte)
            << "padding byte " << byte << " of row " << row << " (byte " << row_start + byte
            << " of the buffer) was written: expected untouched";
      }
    }
  }
}

TEST(PitchedRowCpu, OffsetsBeyond4GiBDoNotOverflow) {
  // The base only serves as a reference point; nothing is dereferenced.
  const float anchor = 0.0f;
  const struct {
    std::size_t pitch;
    int row;
  } cases[] = {{65536, 70000}, {8192, 1048575}, {4096, 2000000000}, {512, 3}};
  for (const auto c : cases) {
    const long long expected = static_cast<long long>(std::size_t(c.row) * c.pitch);
    const long long got = byte_distance(&anchor, lab03::pitched_row(&anchor, c.pitch, c.row));
    if (got != expected) {
      ADD_FAILURE() << "pitched_row(base, pitch " << c.pitch << ", row " << c.row
                    << "): expected base + " << expected << " bytes, got base + " << got
                    << " bytes (compute row * pitch in std::size_t, not int)";
    }
  }
}

// ===========================================================================
// GPU helpers
// ===========================================================================

/// What follows the last row's data in a GraderPitched allocation.
enum class Tail {
  kGuard,  ///< the last row's padding and kGuardBytes more: a write there is seen by value
  kExact,  ///< nothing: the allocation ends at the last element (memcheck sees a read past it)
};

/**
 * A pitched matrix made by the grader itself (one linear allocation of rows * pitch bytes
 * plus a guard, or, with Tail::kExact, ending at the last row's last element), so the matmul
 * is graded independently of the PitchedMatrix code and with pitches cudaMallocPitch would
 * not choose. Padding and guard bytes are poisoned (NaN floats) and must stay so.
 */
class GraderPitched {
 public:
  GraderPitched(int rows, int cols, std::size_t pitch, Tail tail = Tail::kGuard)
      : rows_(rows),
        cols_(cols),
        pitch_(pitch),
        d_bytes_(tail == Tail::kGuard
                     ? std::size_t(rows) * pitch + kGuardBytes
                     : std::size_t(rows - 1) * pitch + std::size_t(cols) * sizeof(float)) {
    poison();
  }
  /// Writes a packed host matrix into the rows; padding and guard poisoned.
  void upload(const std::vector<float>& h_packed) {
    std::vector<unsigned char> image(d_bytes_.size(), kPoisonByte);
    for (int r = 0; r < rows_; ++r) {
      std::memcpy(&image[r * pitch_], &h_packed[std::size_t(r) * cols_], row_bytes());
    }
    d_bytes_.upload(image);
  }
  void poison() { d_bytes_.fill_bytes(kPoisonByte); }
  /// The allocation's image (rows, padding and guard) of a packed host matrix, as floats:
  /// padding and guard are the poison NaN. pitch must be a multiple of 4 bytes.
  std::vector<float> image_of(const std::vector<float>& h_packed) const {
    std::vector<float> image(d_bytes_.size() / sizeof(float));
    std::memset(image.data(), kPoisonByte, image.size() * sizeof(float));
    for (int r = 0; r < rows_; ++r) {
      std::memcpy(&image[r * pitch_ / sizeof(float)], &h_packed[std::size_t(r) * cols_],
                  row_bytes());
    }
    return image;
  }
  /// The packed matrix held in the rows of @p image (image_of() backwards).
  std::vector<float> packed_of(const std::vector<float>& image) const {
    std::vector<float> h_packed(std::size_t(rows_) * cols_);
    for (int r = 0; r < rows_; ++r) {
      std::memcpy(&h_packed[std::size_t(r) * cols_], &image[r * pitch_ / sizeof(float)],
                  row_bytes());
    }
    return h_packed;
  }
  /// The whole allocation (rows, padding and guard), e.g. to copy one matrix into another.
  cudalab::DeviceBuffer<unsigned char>& bytes() { return d_bytes_; }
  float* data() { return reinterpret_cast<float*>(d_bytes_.data()); }
  std::size_t pitch() const { return pitch_; }
  /// Reads the rows back (packed) and checks that no padding or guard byte changed.
  ::testing::AssertionResult read(std::vector<float>& h_packed) const {
    const std::vector<unsigned char> image = d_bytes_.to_host();
    h_packed.assign(std::size_t(rows_) * cols_, 0.0f);
    for (int r = 0; r < rows_; ++r) {
      std::memcpy(&h_packed[std::size_t(r) * cols_], &image[r * pitch_], row_bytes());
      for (std::size_t byte = row_bytes(); byte < pitch_ && r * pitch_ + byte < image.size();
           ++byte) {
        if (image[r * pitch_ + byte] != kPoisonByte) {
          return ::testing::AssertionFailure()
                 << "padding byte " << byte << " of row " << r << " (pitch " << pitch_ << " bytes, "
                 << row_bytes() << " bytes of data) was written: expected untouched";
        }
      }
    }
    for (std::size_t at = std::size_t(rows_) * pitch_; at < image.size(); ++at) {
      if (image[at] != kPoisonByte) {
        return ::testing::AssertionFailure()
               << "byte " << at - std::size_t(rows_) * pitch_
               << " after the last row was written: expected untouched (missing bounds check?)";
      }
    }
    return ::testing::AssertionSuccess();
  }

 private:
  std::size_t row_bytes() const { return std::size_t(cols_) * sizeof(float); }
  int rows_;
  int cols_;
  std::size_t pitch_;
  cudalab::DeviceBuffer<unsigned char> d_bytes_;
};

/// Pitches for the three matrices: what cudaMallocPitch would do, packed, and odd ones
/// that differ between A, B and C (so mixing up the pitches is caught).
enum class PitchStyle { Aligned512, Packed, Odd };

std::size_t pitch_for(PitchStyle style, int cols, int which) {
  const std::size_t row = std::size_t(cols) * sizeof(float);
  switch (style) {
    case PitchStyle::Aligned512:
      return round_up(row, 512);
    case PitchStyle::Packed:
      return row;
    case PitchStyle::Odd:
      return row + sizeof(float) * (1 + 8 * which);  // +4, +36, +68 bytes
  }
  return row;
}

const char* style_name(PitchStyle s) {
  switch (s) {
    case PitchStyle::Aligned512:
      return "pitches rounded up to 512 bytes";
    case PitchStyle::Packed:
      return "packed pitches (pitch = row bytes)";
    case PitchStyle::Odd:
      return "odd pitches (row bytes + 4 / 36 / 68)";
  }
  return "";
}

using cudalab::kit::Shape;

// Widths (columns) 1000, 1001 and 33 for every matrix, rectangles, and 1x1x1.
const Shape kShapes[] = {{1, 1, 1},        {17, 33, 5},      {129, 65, 257},
                         {33, 1001, 1000}, {1000, 33, 1001}, {1001, 1000, 33}};

const cudalab::Fill kFills[] = {cudalab::Fill::PlusMinusOne, cudalab::Fill::SmallInt,
                                cudalab::Fill::Uniform};

std::string shape_text(Shape s) {
  return "C(" + std::to_string(s.m) + "x" + std::to_string(s.n) + ") = A(" + std::to_string(s.m) +
         "x" + std::to_string(s.k) + ") * B(" + std::to_string(s.k) + "x" + std::to_string(s.n) +
         ")";
}

// ===========================================================================
// pitched_matmul (GPU): every shape and fill, three pitch styles, several blocks.
// ===========================================================================
using MatmulParam = std::tuple<Shape, cudalab::Fill>;

std::string matmul_param_name(const ::testing::TestParamInfo<MatmulParam>& p) {
  const Shape s = std::get<0>(p.param);
  return "m" + std::to_string(s.m) + "_n" + std::to_string(s.n) + "_k" + std::to_string(s.k) + "_" +
         cudalab::fill_name(std::get<1>(p.param));
}

/**
 * pitched_matmul on an m x n x k product of @p fill data, for each pitch style and each of
 * @p blocks: captured (only its own kernel, on the grid of the block), then replayed on two
 * data sets with C, the padding and what follows the rows (@p tail) poisoned; C must match
 * the host and the padding and guard must stay poisoned. Then the launcher is called directly
 * twice more on the same buffers, with the data sets swapped in before each call
 * (cudalab::kit::expect_fresh_results_on_same_buffers).
 */
void expect_pitched_matmul(Shape s, cudalab::Fill fill, Tail tail,
                           const std::vector<dim3>& blocks) {
  SCOPED_TRACE(shape_text(s) + ", " + cudalab::fill_name(fill) + " data");
  const std::vector<float> h_a = cudalab::random_matrix(s.m, s.k, fill, 1);
  const std::vector<float> h_b = cudalab::random_matrix(s.k, s.n, fill, 2);
  const std::vector<float> expected = cudalab::reference_matmul(h_a, h_b, s.m, s.n, s.k);
  const double tol = fill == cudalab::Fill::Uniform ? cudalab::matmul_tolerance(s.k) : 0.0;

  // A second data set behind the same pointers, replayed through the same captured graph.
  const std::vector<float> h_a2 = cudalab::random_matrix(s.m, s.k, fill, 3);
  const std::vector<float> h_b2 = cudalab::random_matrix(s.k, s.n, fill, 4);
  const std::vector<float> expected2 = cudalab::reference_matmul(h_a2, h_b2, s.m, s.n, s.k);

  for (const PitchStyle style : {PitchStyle::Aligned512, PitchStyle::Packed, PitchStyle::Odd}) {
    GraderPitched a(s.m, s.k, pitch_for(style, s.k, 0), tail);
    GraderPitched b(s.k, s.n, pitch_for(style, s.n, 1), tail);
    GraderPitched c(s.m, s.n, pitch_for(style, s.n, 2), tail);
    for (const dim3 block : blocks) {
      SCOPED_TRACE(std::string(style_name(style)) + ": A " + std::to_string(a.pitch()) + ", B " +
                   std::to_string(b.pitch()) + ", C " + std::to_string(c.pitch()) +
                   " bytes; block " + dims(block));
      if ((s.m + block.y - 1) / block.y > cudalab::kMaxGridYZ) continue;  // refused by the launcher
      CapturedWork cap = CapturedWork::capture([&](cudaStream_t st) {
        lab03::pitched_matmul(a.data(), a.pitch(), b.data(), b.pitch(), c.data(), c.pitch(), s.m,
                              s.n, s.k, block, st);
      });
      ASSERT_TRUE(cap.holds_only(pitched_rules(s.m, s.n, block)));
      for (int set = 0; set < 2; ++set) {
        SCOPED_TRACE("data set " + std::to_string(set + 1) + " of the captured graph");
        a.upload(set == 0 ? h_a : h_a2);
        b.upload(set == 0 ? h_b : h_b2);
        c.poison();
        cudalab::testing::poison_shared_memory();
        cap.run();
        std::vector<float> got;
        ASSERT_TRUE(c.read(got));
        ASSERT_TRUE(
            cudalab::testing::matrices_match(set == 0 ? expected : expected2, got, s.m, s.n, tol));
      }
      // Same buffers, new data: the launcher itself, called twice more with these pointers,
      // pitches, sizes and block, each data set in turn behind them and C poisoned.
      cudalab::kit::expect_fresh_results_on_same_buffers(
          "pitched_matmul",
          [&](int round) {
            a.upload(round == 0 ? h_a : h_a2);
            b.upload(round == 0 ? h_b : h_b2);
            c.poison();
          },
          [&](cudaStream_t st) {
            lab03::pitched_matmul(a.data(), a.pitch(), b.data(), b.pitch(), c.data(), c.pitch(),
                                  s.m, s.n, s.k, block, st);
          },
          [&](int round) {
            std::vector<float> got;
            ASSERT_TRUE(c.read(got));
            EXPECT_TRUE(cudalab::testing::matrices_match(round == 0 ? expected : expected2, got,
                                                         s.m, s.n, tol));
          },
          2);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

class PitchedMatmulGpu : public ::testing::TestWithParam<MatmulParam> {};

TEST_P(PitchedMatmulGpu, MatchesHostReferenceAndLeavesPaddingAlone) {
  CUDALAB_REQUIRE_GPU();
  expect_pitched_matmul(
      std::get<0>(GetParam()), std::get<1>(GetParam()), Tail::kGuard,
      {dim3(16, 16), dim3(32, 8), dim3(7, 5), dim3(1, 1), dim3(1024, 1), dim3(1, 1024)});
}

INSTANTIATE_TEST_SUITE_P(Shapes, PitchedMatmulGpu,
                         ::testing::Combine(::testing::ValuesIn(kShapes),
                                            ::testing::ValuesIn(kFills)),
                         matmul_param_name);

// Small products for memcheck (PitchSanitizer): A, B and C each one allocation that ends at
// its last row's last element (no padding after the last row, no guard), every pitch style,
// ragged shapes and blocks. A read past the last row is outside the allocation; a read of a
// row's padding reads NaN (the padding is poisoned) and shows in C.
TEST(SmallPitchedGpu, ExactAllocationsOnRaggedShapes) {
  CUDALAB_REQUIRE_GPU();
  for (const Shape s : {Shape{1, 1, 1}, Shape{17, 33, 5}, Shape{129, 65, 257}}) {
    expect_pitched_matmul(s, cudalab::Fill::SmallInt, Tail::kExact,
                          {dim3(16, 16), dim3(7, 5), dim3(1024, 1)});
  }
}

CUDALAB_SANITIZER_SUITE(PitchSanitizer, "SmallPitchedGpu.*", memcheck)

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

// ===========================================================================
// The given packed baseline is itself correct (not graded).
// ===========================================================================
// ---------------------------------------------------------------------------
// The rest of pitch.cuh's contract: what the constructor, upload() and both pitched_matmul()
// overloads reject, what a failed allocation or launch reports, and what moving and swapping
// matrices do with their allocations. Each test ends with a valid use that needs the lab's own
// code (an allocation, a copy, a product), so the untouched stub fails it.
// ---------------------------------------------------------------------------

/// Small integers (exact products): row r, column c of a rows x cols matrix, packed.
std::vector<float> small_ints(int rows, int cols, int salt) {
  std::vector<float> h(std::size_t(rows) * cols);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      h[std::size_t(r) * cols + c] = float((r * 7 + c * 3 + salt) % 9 - 4);
    }
  }
  return h;
}

std::vector<float> packed_product(const std::vector<float>& a, const std::vector<float>& b, int m,
                                  int n, int k) {
  std::vector<float> c(std::size_t(m) * n, 0.0f);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      float sum = 0.0f;
      for (int p = 0; p < k; ++p) sum += a[std::size_t(i) * k + p] * b[std::size_t(p) * n + j];
      c[std::size_t(i) * n + j] = sum;
    }
  }
  return c;
}

}  // namespace

namespace lab03::remote {
// tests/lab03_pitch/remote.cu: the lab's matrices live in its own process; the grader's hold
// copies of their memory. For a matrix's data() (live or gone), cudaPointerGetAttributes there
// of the lab's allocation behind it: whether it is device memory.
bool lab_allocation_is_device_memory(const void* data);
}  // namespace lab03::remote

namespace {

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
  const std::vector<float> h_a = small_ints(m, k, 4);
  const std::vector<float> h_b = small_ints(k, n, 5);
  CUDA_CHECK(cudaMemcpy2D(d_a.data(), pa, h_a.data(), k * sizeof(float), k * sizeof(float), m,
                          cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy2D(d_b.data(), pb, h_b.data(), n * sizeof(float), n * sizeof(float), k,
                          cudaMemcpyHostToDevice));
  lab03::pitched_matmul(a, pa, b, pb, c, pc, m, n, k, blk);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> h_c(std::size_t(m) * n);
  CUDA_CHECK(cudaMemcpy2D(h_c.data(), n * sizeof(float), d_c.data(), pc, n * sizeof(float), m,
                          cudaMemcpyDeviceToHost));
  EXPECT_EQ(h_c, packed_product(h_a, h_b, m, n, k));
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
  const std::vector<float> h_a = small_ints(m, k, 6);
  const std::vector<float> h_b = small_ints(k, n, 7);
  CUDA_CHECK(cudaMemcpy2D(d_a.data(), pitch, h_a.data(), k * sizeof(float), k * sizeof(float), m,
                          cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy2D(d_b.data(), pitch, h_b.data(), n * sizeof(float), n * sizeof(float), k,
                          cudaMemcpyHostToDevice));
  lab03::pitched_matmul(d_a.data(), pitch, d_b.data(), pitch, d_c.data(), pitch, m, n, k,
                        dim3(16, 16));
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> h_c(std::size_t(m) * n);
  CUDA_CHECK(cudaMemcpy2D(h_c.data(), n * sizeof(float), d_c.data(), pitch, n * sizeof(float), m,
                          cudaMemcpyDeviceToHost));
  EXPECT_EQ(h_c, packed_product(h_a, h_b, m, n, k));
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

TEST(GivenUnpitchedBaselineGpu, MatchesHostReference) {
  CUDALAB_REQUIRE_GPU();
  for (const Shape s : {Shape{17, 33, 5}, Shape{33, 1001, 1000}, Shape{1000, 33, 1001}}) {
    SCOPED_TRACE(shape_text(s));
    const std::vector<float> h_a = cudalab::random_matrix(s.m, s.k, cudalab::Fill::SmallInt, 1);
    const std::vector<float> h_b = cudalab::random_matrix(s.k, s.n, cudalab::Fill::SmallInt, 2);
    const cudalab::DeviceBuffer<float> d_a = cudalab::DeviceBuffer(h_a);
    const cudalab::DeviceBuffer<float> d_b = cudalab::DeviceBuffer(h_b);
    cudalab::DeviceBuffer<float> d_c(std::size_t(s.m) * s.n);
    d_c.fill_bytes(kPoisonByte);
    lab03::unpitched_matmul(d_a.data(), d_b.data(), d_c.data(), s.m, s.n, s.k, dim3(7, 5));
    EXPECT_TRUE(cudalab::testing::matrices_match(cudalab::reference_matmul(h_a, h_b, s.m, s.n, s.k),
                                                 d_c.to_host(), s.m, s.n, 0.0));
  }
}

// ===========================================================================
// No regression (perf): pitched rows cost nothing over packed ones.
// ===========================================================================
TEST(PitchPerf, PitchedMatmulKeepsTwoThirdsOfUnpitchedSpeed) {
  CUDALAB_REQUIRE_GPU();
  const int n = kPerfSize;  // M = N = K = n
  const std::size_t count = std::size_t(n) * n;
  const std::size_t pitch = round_up(std::size_t(n) * sizeof(float), 512);
  const dim3 block(kPerfBlockX, kPerfBlockY);
  // ±1 data: every element of C is an integer, computed exactly by both kernels. A and B each
  // alternate between two sets behind one pointer (cudalab::testing::AlternatingInput), the
  // pitched kernel's as pitched images (padding and guard NaN), the packed baseline's packed:
  // before every timed run of either an untimed copy puts the next set there with about sqrt(n)
  // elements replaced at positions drawn for that run (padding stays padding), and the
  // run's output is poisoned. Three random rows of every earlier pitched run, data and
  // padding (kept before the next run's inputs are copied), must be the host's product of
  // exactly what that run read, and the padding must still be the poison.
  std::vector<float> h_in[2][2];
  for (int set = 0; set < 2; ++set) {
    h_in[set][0] = cudalab::random_matrix(n, n, cudalab::Fill::PlusMinusOne, 1 + 2 * set);
    h_in[set][1] = cudalab::random_matrix(n, n, cudalab::Fill::PlusMinusOne, 2 + 2 * set);
  }
  GraderPitched p_c(n, n, pitch);
  const GraderPitched& layout = p_c;  // A and B have C's shape and pitch
  using cudalab::testing::AlternatingInput;
  AlternatingInput<float> p_a(layout.image_of(h_in[0][0]), layout.image_of(h_in[1][0]));
  AlternatingInput<float> p_b(layout.image_of(h_in[0][1]), layout.image_of(h_in[1][1]));
  AlternatingInput<float> d_a(h_in[0][0], h_in[1][0]), d_b(h_in[0][1], h_in[1][1]);
  cudalab::DeviceBuffer<float> d_c(count);

  CapturedWork cap = CapturedWork::capture([&](cudaStream_t st) {
    lab03::pitched_matmul(p_a.live.data(), pitch, p_b.live.data(), pitch, p_c.data(), pitch, n, n,
                          n, block, st);
  });
  ASSERT_TRUE(cap.holds_only(pitched_rules(n, n, block)));
  cudalab::BenchOptions o;
  o.before_baseline = [&](cudaStream_t st) {
    d_a.copy_next(st);
    d_b.copy_next(st);
    cudalab::testing::poison(d_c.data(), d_c.bytes(), st);
  };
  // The checked rows of C after every pitched run: their data (n floats a pitch apart) and
  // their padding (the rest of each pitch, as words: the poison is a NaN).
  const std::size_t pitch_floats = pitch / sizeof(float);
  cudalab::kit::RunRows<float> run_rows(p_c.data(), n, n, pitch_floats);
  cudalab::kit::RunRows<std::uint32_t> run_padding(
      reinterpret_cast<const std::uint32_t*>(p_c.data()) + n, int(pitch_floats) - n, n,
      pitch_floats);
  o.before_candidate = run_rows.before_each_run(p_a, [&](cudaStream_t st) {
    run_padding.record(p_a.runs - 1, st);
    p_a.copy_next(st);
    p_b.copy_next(st);
    cudalab::testing::poison(p_c.bytes().data(), p_c.bytes().bytes(), st);
  });
  const cudalab::Comparison cmp = cudalab::compare(
      [&](cudaStream_t st) {
        lab03::unpitched_matmul(d_a.live.data(), d_b.live.data(), d_c.data(), n, n, n, block, st);
      },
      cap.as_work(), o);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::string what =
      "pitched_matmul " + std::to_string(n) + "^3, pitch " + std::to_string(pitch) + " bytes";
  cudalab::kit::expect_every_run_product(
      run_rows,
      [&](long run) {
        return std::make_pair(layout.packed_of(p_a.input_view(run)),
                              layout.packed_of(p_b.input_view(run)));
      },
      Shape{n, n, n}, what);
  std::uint32_t poison_word = 0;
  std::memset(&poison_word, kPoisonByte, sizeof poison_word);
  run_padding.expect_every_run(
      [](long run) { return run; },
      [&](long, int) { return std::vector<std::uint32_t>(pitch_floats - n, poison_word); },
      what + ": the padding (columns counted from the end of the row's data) must stay NaN");
  if (HasFailure()) return;  // no speed verdict for a wrong result

  // No speed verdict for a wrong result: the last timed output (rows, padding and guard) must
  // equal the given packed kernel's (itself checked by GivenUnpitchedBaselineGpu) on a fresh
  // copy of exactly the inputs of that run.
  {
    const cudalab::DeviceBuffer<float> a(layout.packed_of(p_a.last_input()));
    const cudalab::DeviceBuffer<float> b(layout.packed_of(p_b.last_input()));
    cudalab::DeviceBuffer<float> ref(count);
    lab03::unpitched_matmul(a.data(), b.data(), ref.data(), n, n, n, block);
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> got;
    ASSERT_TRUE(p_c.read(got)) << "pitched_matmul " << n << "^3, pitch " << pitch << " bytes";
    ASSERT_TRUE(cudalab::testing::matrices_match(ref.to_host(), got, n, n, 0.0))
        << "pitched_matmul " << n << "^3, pitch " << pitch << " bytes, block " << dims(block)
        << " (expected = the given baseline's result on the inputs of the last timed run: set "
        << p_a.last() << " with that run's changes)";
  }

  const double gflop = 2.0 * n * double(n) * n * 1e-9;
  const double pitched_gflops = gflop / (cmp.candidate.median_ms * 1e-3);
  cudalab::testing::record_measurement("lab03 unpitched baseline",
                                       gflop / (cmp.baseline.median_ms * 1e-3), "GFLOP/s");
  cudalab::testing::record_measurement("lab03 pitched_matmul", pitched_gflops, "GFLOP/s");
  cudalab::testing::expect_possible(pitched_gflops,
                                    cudalab::device_ceilings().fp32_tflops_max * 1e3, "GFLOP/s",
                                    "pitched_matmul " + std::to_string(n) + "^3");
  cudalab::testing::expect_speedup(cmp, "pitched vs unpitched (given), " + std::to_string(n) +
                                            "^3, pitch " + std::to_string(pitch) + " B, block " +
                                            dims(block));
}

/// Uploads A (m x k) and B (k x n) into their pitched buffers, poisons C, then captures
/// pitched_matmul with 32 x 8 blocks, checks the graph's launch and replays it once.
void run_pitched_product(cudalab::DeviceBuffer<unsigned char>& d_a, std::size_t pitch_a,
                         const std::vector<float>& h_a, cudalab::DeviceBuffer<unsigned char>& d_b,
                         std::size_t pitch_b, const std::vector<float>& h_b,
                         cudalab::DeviceBuffer<unsigned char>& d_c, std::size_t pitch_c, int m,
                         int n, int k) {
  CUDA_CHECK(cudaMemcpy2D(d_a.data(), pitch_a, h_a.data(), k * sizeof(float), k * sizeof(float), m,
                          cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy2D(d_b.data(), pitch_b, h_b.data(), n * sizeof(float), n * sizeof(float), k,
                          cudaMemcpyHostToDevice));
  d_c.fill_bytes(kPoisonByte);
  const float* a = reinterpret_cast<const float*>(d_a.data());
  const float* b = reinterpret_cast<const float*>(d_b.data());
  float* c = reinterpret_cast<float*>(d_c.data());
  CapturedWork cap = CapturedWork::capture([&](cudaStream_t st) {
    lab03::pitched_matmul(a, pitch_a, b, pitch_b, c, pitch_c, m, n, k, dim3(32, 8), st);
  });
  ASSERT_TRUE(cap.holds_only(pitched_rules(m, n, dim3(32, 8))));
  cudalab::testing::poison_shared_memory();
  cap.run();
}

// ===========================================================================
// Range edge (GPU): byte offsets past 2^32 (so past 2^31 too) in A and C; the packed host
// matrices are small, the pitched rows huge. Checked on sampled rows of C.
// ===========================================================================
TEST(PitchedRangeGpu, ByteOffsetsPast4GiB) {
  CUDALAB_REQUIRE_GPU();
  constexpr int kM = 131101;  // rows of A and C: row 131072 starts 2^32 bytes in at 32 KiB
  constexpr int kN = 40;
  constexpr int kK = 7;
  const std::size_t pitch_a = 36864;  // 9 x 4 KiB
  const std::size_t pitch_b = 512;
  const std::size_t pitch_c = 33280;  // 65 x 512
  CUDALAB_REQUIRE_FREE_MEMORY(kM * (pitch_a + pitch_c));
  cudalab::DeviceBuffer<unsigned char> d_a(kM * pitch_a), d_b(kK * pitch_b), d_c(kM * pitch_c);
  const int block_rows[] = {0, 1, 58254, 64528, 65536, 116509, 129056, 131072, kM - 1};
  for (int set = 0; set < 2; ++set) {
    SCOPED_TRACE("A " + std::to_string(kM) + "x" + std::to_string(kK) + " (pitch " +
                 std::to_string(pitch_a) + "), C " + std::to_string(kM) + "x" + std::to_string(kN) +
                 " (pitch " + std::to_string(pitch_c) + "), data set " + std::to_string(set + 1));
    const std::vector<float> h_a = cudalab::random_matrix(kM, kK, cudalab::Fill::SmallInt, 5 + set);
    const std::vector<float> h_b = cudalab::random_matrix(kK, kN, cudalab::Fill::SmallInt, 7 + set);
    run_pitched_product(d_a, pitch_a, h_a, d_b, pitch_b, h_b, d_c, pitch_c, kM, kN, kK);
    if (HasFatalFailure()) return;
    std::vector<unsigned char> row(pitch_c);
    for (const int r : block_rows) {
      CUDA_CHECK(cudaMemcpy(row.data(), d_c.data() + std::size_t(r) * pitch_c, pitch_c,
                            cudaMemcpyDeviceToHost));
      for (int j = 0; j < kN; ++j) {
        float want = 0.0f;
        for (int p = 0; p < kK; ++p) {
          want += h_a[std::size_t(r) * kK + p] * h_b[std::size_t(p) * kN + j];
        }
        float got = 0.0f;
        std::memcpy(&got, &row[j * sizeof(float)], sizeof got);
        ASSERT_EQ(got, want) << "C(" << r << ", " << j << ") at byte offset "
                             << std::size_t(r) * pitch_c + j * sizeof(float) << " (A's row " << r
                             << " starts " << std::size_t(r) * pitch_a
                             << " bytes in): are byte offsets computed in 32 bits?";
      }
      for (std::size_t at = kN * sizeof(float); at < pitch_c; ++at) {
        ASSERT_EQ(row[at], kPoisonByte)
            << "padding byte " << at << " of row " << r << " of C was written: expected untouched";
      }
    }
  }
}

// Byte offsets past 2^32 in B: 4100 rows at a pitch of 1 MiB + 512 B (row 4094 on starts past
// 2^32 bytes, row 2047 on past 2^31), A and C small. Every element of C sums over those rows
// (4100 small-integer products: exact in any order); all of C is checked.
TEST(PitchedRangeGpu, ByteOffsetsPast4GiBInB) {
  CUDALAB_REQUIRE_GPU();
  constexpr int kM = 5;
  constexpr int kN = 40;
  constexpr int kK = 4100;                      // rows of B
  const std::size_t pitch_a = 16640;            // 65 x 256 >= 4100 floats
  const std::size_t pitch_b = (1 << 20) + 512;  // 1 MiB + 512 B
  const std::size_t pitch_c = 512;
  CUDALAB_REQUIRE_FREE_MEMORY(kK * pitch_b);
  cudalab::DeviceBuffer<unsigned char> d_a(kM * pitch_a), d_b(kK * pitch_b), d_c(kM * pitch_c);
  for (int set = 0; set < 2; ++set) {
    SCOPED_TRACE("A " + std::to_string(kM) + "x" + std::to_string(kK) + ", B " +
                 std::to_string(kK) + "x" + std::to_string(kN) + " (pitch " +
                 std::to_string(pitch_b) + "), data set " + std::to_string(set + 1));
    const std::vector<float> h_a = cudalab::random_matrix(kM, kK, cudalab::Fill::SmallInt, 9 + set);
    const std::vector<float> h_b =
        cudalab::random_matrix(kK, kN, cudalab::Fill::SmallInt, 11 + set);
    run_pitched_product(d_a, pitch_a, h_a, d_b, pitch_b, h_b, d_c, pitch_c, kM, kN, kK);
    if (HasFatalFailure()) return;
    std::vector<float> got(std::size_t(kM) * kN);
    CUDA_CHECK(cudaMemcpy2D(got.data(), kN * sizeof(float), d_c.data(), pitch_c, kN * sizeof(float),
                            kM, cudaMemcpyDeviceToHost));
    for (int r = 0; r < kM; ++r) {
      for (int j = 0; j < kN; ++j) {
        double want = 0.0;
        for (int p = 0; p < kK; ++p) {
          want += double(h_a[std::size_t(r) * kK + p]) * h_b[std::size_t(p) * kN + j];
        }
        ASSERT_EQ(got[std::size_t(r) * kN + j], want)
            << "C(" << r << ", " << j << "): B's rows from " << (std::size_t(1) << 32) / pitch_b + 1
            << " on start past 2^32 bytes (pitch " << pitch_b
            << " B): are byte offsets p * pitch_b computed in 32 bits?";
      }
    }
  }
}

}  // namespace
