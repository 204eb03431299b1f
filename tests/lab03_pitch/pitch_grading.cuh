// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file pitch_grading.cuh
 * @brief What the test files of lab 03's grader share: the graph rules of a pitched_matmul()
 * launch, pitched matrices the grader makes itself (GraderPitched: its own pitches, poisoned
 * padding and guard), the product shapes, and small-integer host matrices and their products.
 *
 * Every graded pitched_matmul launch is captured from the stream it is given
 * (cudalab/graph_capture.cuh): the graph may hold the lab's pitched kernel and nothing else
 * (the PitchedMatrix functions allocate and copy synchronously, so they are tested outside a
 * capture: cudaMallocPitch cannot be captured). The graph is replayed on two data sets behind
 * the same pointers, with C poisoned and every SM's shared memory filled with NaN.
 *
 * The lab runs in a process of its own (tests/lab03_pitch/remote.cu): a PitchedMatrix here
 * holds a copy of the device memory of the lab's matrix, kept equal to it around every call, so
 * what a test reads through data() is the lab's; whether the lab freed an allocation is asked
 * of the lab's process (pitched_matrix_test.cu's is_device_allocation).
 */
#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "common/kit.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/graph_capture.cuh"
#include "cudalab/testing.hpp"
#include "pitch.cuh"

namespace lab03_grading {

// What the test files use from elsewhere (each says `using namespace lab03_grading;`).
using cudalab::kit::dims;
using cudalab::kit::Shape;
using cudalab::testing::CapturedWork;
using cudalab::testing::GraphRules;

/// What the graph captured from pitched_matmul(..., m, n, k, block) may hold: the lab's
/// kernel, nothing else, launched with the requested block on the grid the launcher is
/// given (N columns in x, M rows in y, no spare block: the test's own count) and no dynamic
/// shared memory.
inline GraphRules pitched_rules(int m, int n, dim3 block) {
  const cudalab::KernelInfo kernel = lab03::pitched_matmul_kernel();
  GraphRules r = cudalab::kit::only_kernel(kernel);
  const dim3 grid((unsigned(n) + block.x - 1) / block.x, (unsigned(m) + block.y - 1) / block.y);
  r.expect_launch(kernel.name, grid, block, 0u, "`grid` blocks of the requested block");
  return r;
}

inline constexpr unsigned char kPoisonByte = 0xFF;  // 0xFFFFFFFF is a NaN float
inline constexpr std::size_t kGuardBytes = 4096;    // after the last row: must stay untouched

/// @p x rounded up to a multiple of @p to.
inline std::size_t round_up(std::size_t x, std::size_t to) {
  return (x + to - 1) / to * to;
}

// ---------------------------------------------------------------------------
// Pitched matrices the grader makes itself
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Products: shapes, and small-integer operands
// ---------------------------------------------------------------------------

/// The products of PitchedMatmulGpu and PitchedPipelineGpu: widths (columns) 1000, 1001 and 33
/// for every matrix, rectangles, and 1x1x1.
inline const Shape kShapes[] = {{1, 1, 1},        {17, 33, 5},      {129, 65, 257},
                                {33, 1001, 1000}, {1000, 33, 1001}, {1001, 1000, 33}};

/// "C(17x33) = A(17x5) * B(5x33)", for traces.
inline std::string shape_text(Shape s) {
  return "C(" + std::to_string(s.m) + "x" + std::to_string(s.n) + ") = A(" + std::to_string(s.m) +
         "x" + std::to_string(s.k) + ") * B(" + std::to_string(s.k) + "x" + std::to_string(s.n) +
         ")";
}

/// Small integers (exact products): row r, column c of a rows x cols matrix, packed.
inline std::vector<float> small_ints(int rows, int cols, int salt) {
  std::vector<float> h(std::size_t(rows) * cols);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      h[std::size_t(r) * cols + c] = float((r * 7 + c * 3 + salt) % 9 - 4);
    }
  }
  return h;
}

/// The host product of packed @p a (m x k) and @p b (k x n), summed in order in float.
inline std::vector<float> packed_product(const std::vector<float>& a, const std::vector<float>& b,
                                         int m, int n, int k) {
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

}  // namespace lab03_grading
