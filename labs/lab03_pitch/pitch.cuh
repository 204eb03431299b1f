// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file pitch.cuh
 * @brief Lab 03 interface: pitched device matrices (cudaMallocPitch, cudaMemcpy2D),
 * pitched indexing, a thread-per-element matmul over pitched A, B and C, and the table of the
 * two thread-per-element matmuls (lab03::kTechniques: the given packed one and the pitched one).
 *
 * A pitched allocation pads every row so that each row starts on an aligned address.
 * The distance between the starts of two consecutive rows is the *pitch*, in BYTES,
 * chosen by cudaMallocPitch (>= cols * sizeof(float)). Row r starts at
 * `(char*)base + r * pitch`; element (r, c) is `((float*)((char*)base + r * pitch))[c]`.
 * The bytes after column cols - 1 of a row are padding: never read as data, never written.
 *
 * Host matrices stay packed row-major `std::vector<float>` (row r at r * cols);
 * cudaMemcpy2D converts between the two layouts.
 */
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <utility>
#include <vector>

#include "cudalab/launch_checks.hpp"

namespace lab03 {

// ---------------------------------------------------------------------------
// Pitched storage (pitched_matrix.cu)
// ---------------------------------------------------------------------------

/**
 * @brief A rows x cols float matrix in pitched device memory, freed when it goes out of
 * scope (move-only).
 *
 * @code
 *   lab03::PitchedMatrix d_a(rows, cols);   // cudaMallocPitch
 *   d_a.upload(h_a);                        // packed host rows -> pitched device rows
 *   kernel<<<grid, block>>>(d_a.data(), d_a.pitch_bytes(), ...);
 *   std::vector<float> h = d_a.to_host();   // pitched device rows -> packed host rows
 * @endcode
 */
class PitchedMatrix {
 public:
  /// An empty matrix (no allocation).
  PitchedMatrix() = default;
  /**
   * @brief Allocates rows rows of cols floats with cudaMallocPitch (uninitialised).
   *
   * pitch_bytes() is then exactly the pitch cudaMallocPitch returned for that width and
   * height (checked against the runtime's own answer). Which call made the allocation is
   * untestable: a pitch computed by hand that equals the runtime's at every width, over a
   * plain cudaMalloc, cannot be told apart from it.
   * @throws std::invalid_argument for rows or cols <= 0
   * @throws cudalab::CudaError when the allocation fails
   */
  PitchedMatrix(int rows, int cols);
  ~PitchedMatrix();
  PitchedMatrix(const PitchedMatrix&) = delete;
  PitchedMatrix& operator=(const PitchedMatrix&) = delete;
  /// Takes over @p other's allocation; @p other becomes empty.
  PitchedMatrix(PitchedMatrix&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        pitch_(std::exchange(other.pitch_, 0)),
        rows_(std::exchange(other.rows_, 0)),
        cols_(std::exchange(other.cols_, 0)) {}
  /// Frees this allocation and takes over @p other's; @p other becomes empty.
  PitchedMatrix& operator=(PitchedMatrix&& other) noexcept {
    if (this != &other) {
      PitchedMatrix(std::move(other)).swap(*this);
    }
    return *this;
  }
  /// Exchanges the allocations of two matrices.
  void swap(PitchedMatrix& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(pitch_, other.pitch_);
    std::swap(rows_, other.rows_);
    std::swap(cols_, other.cols_);
  }

  /// Device pointer to element (0, 0).
  float* data() noexcept { return data_; }
  /// Device pointer to element (0, 0).
  const float* data() const noexcept { return data_; }
  /// Bytes from the start of one row to the start of the next (>= row_bytes()).
  std::size_t pitch_bytes() const noexcept { return pitch_; }
  /// Bytes of data in one row: cols * sizeof(float).
  std::size_t row_bytes() const noexcept { return static_cast<std::size_t>(cols_) * sizeof(float); }
  /// Number of rows.
  int rows() const noexcept { return rows_; }
  /// Number of columns (floats of data per row).
  int cols() const noexcept { return cols_; }

  /**
   * @brief Copies a packed row-major host matrix (rows * cols floats) into the pitched
   * rows (synchronous). The padding bytes are left as they are.
   * @throws std::invalid_argument when @p h_src does not hold rows * cols floats
   */
  void upload(const std::vector<float>& h_src);
  /**
   * @brief Copies the pitched rows into a packed row-major host matrix, resized to
   * rows * cols floats (synchronous). The padding is not copied.
   */
  void download(std::vector<float>& h_dst) const;
  /// Returns the matrix as a new packed row-major host vector.
  std::vector<float> to_host() const;
  /// Sets every byte of the allocation, padding included, to @p byte (0xFF: NaN floats).
  void fill_bytes(int byte);

 private:
  void require_allocation(const char* who) const;

  float* data_ = nullptr;
  std::size_t pitch_ = 0;
  int rows_ = 0;
  int cols_ = 0;
};

// ---------------------------------------------------------------------------
// Pitched indexing and the pitched matmul (pitched_matmul.cu)
// ---------------------------------------------------------------------------

/**
 * @brief Start of row @p row of a pitched matrix: the address @p row * @p pitch_bytes
 * BYTES after @p base.
 *
 * Works on the host and on the device. The offset is computed in std::size_t, so rows
 * more than 4 GiB into an allocation are addressed correctly.
 * @param base         address of element (0, 0)
 * @param pitch_bytes  bytes from one row start to the next (any value >= the row's data)
 * @param row          row index, >= 0
 */
__host__ __device__ const float* pitched_row(const float* base, std::size_t pitch_bytes, int row);

/// The non-const overload of pitched_row() (same address).
__host__ __device__ inline float* pitched_row(float* base, std::size_t pitch_bytes, int row) {
  return const_cast<float*>(pitched_row(static_cast<const float*>(base), pitch_bytes, row));
}

/**
 * @brief C = A * B over pitched matrices: one launch of the lab's pitched kernel (one thread
 * per element of C, x walking the columns) on @p stream, and nothing else; checks the launch.
 *
 * The three matrices may have three different pitches.
 * @param d_a      device pointer to A (M x K, pitched)
 * @param pitch_a  pitch of A in bytes, >= K * sizeof(float), a multiple of sizeof(float)
 * @param d_b      device pointer to B (K x N, pitched)
 * @param pitch_b  pitch of B in bytes, >= N * sizeof(float), a multiple of sizeof(float)
 * @param d_c      device pointer to C (M x N, pitched)
 * @param pitch_c  pitch of C in bytes, >= N * sizeof(float), a multiple of sizeof(float)
 * @param m        rows of A and C
 * @param n        columns of B and C
 * @param k        columns of A, rows of B
 * @param block    2-D block (x: columns, y: rows), at most 1024 threads, block.z == 1
 * @param stream   stream to launch on
 * @throws std::invalid_argument for a null pointer, m, n or k <= 0, a pitch that is too
 *         small or not a multiple of sizeof(float), an invalid block, or more than 65535
 *         blocks in y
 * @throws cudalab::CudaError when the launch fails
 */
void pitched_matmul(const float* d_a, std::size_t pitch_a, const float* d_b, std::size_t pitch_b,
                    float* d_c, std::size_t pitch_c, int m, int n, int k, dim3 block,
                    cudaStream_t stream = nullptr);

/**
 * @brief pitched_matmul() on PitchedMatrix operands: C = A * B.
 * @param a       A (M x K)
 * @param b       B (K x N)
 * @param c       C (M x N)
 * @param block   2-D block (x: columns, y: rows)
 * @param stream  stream to launch on
 * @throws std::invalid_argument when the shapes do not match (a.cols() != b.rows(), ...)
 */
void pitched_matmul(const PitchedMatrix& a, const PitchedMatrix& b, PitchedMatrix& c, dim3 block,
                    cudaStream_t stream = nullptr);

/// The kernel pitched_matmul() launches (pitched_matmul.cu): provenance, attributes.
cudalab::KernelInfo pitched_matmul_kernel();

// ---------------------------------------------------------------------------
// Given baseline (unpitched_matmul.cu): the packed thread-per-element matmul of lab 02
// ---------------------------------------------------------------------------

/**
 * @brief C = A * B on packed row-major matrices (row r of A at d_a + r * K), one thread
 * per element of C with x walking the columns: the baseline the pitched kernel is timed
 * against. Given code, not part of the exercise.
 * @param d_a     device pointer to A (M x K, packed)
 * @param d_b     device pointer to B (K x N, packed)
 * @param d_c     device pointer to C (M x N, packed)
 * @param m       rows of A and C
 * @param n       columns of B and C
 * @param k       columns of A, rows of B
 * @param block   2-D block (x: columns, y: rows)
 * @param stream  stream to launch on
 * @throws std::invalid_argument as pitched_matmul()
 */
void unpitched_matmul(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                      dim3 block, cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// The two thread-per-element matmuls in one table (the demo's rows, the grader's speed race)
// ---------------------------------------------------------------------------

/// A launcher of the table: C = A * B, the rows of A, B and C pitch_a, pitch_b and pitch_c
/// bytes apart (pitched_matmul()'s parameters).
using MatmulLauncher = void (*)(const float* d_a, std::size_t pitch_a, const float* d_b,
                                std::size_t pitch_b, float* d_c, std::size_t pitch_c, int m, int n,
                                int k, dim3 block, cudaStream_t stream);

/// One thread-per-element matmul: a row of the demo's table, a side of the grader's race.
struct Technique {
  const char* name;         ///< its name, e.g. "pitched"
  const char* title;        ///< its row in the demo's table
  MatmulLauncher launcher;  ///< runs it on rows laid out as packed_rows_only says
  /// Whether it reads packed rows only (each pitch the row's data, K or N floats: the given
  /// kernel indexes row r at r * K and r * N); otherwise it takes any pitch pitched_matmul()
  /// takes.
  bool packed_rows_only;
};

/// The given packed baseline, then the lab's pitched matmul.
inline constexpr Technique kTechniques[] = {
    {"unpitched", "unpitched (given)",
     [](const float* d_a, std::size_t pitch_a, const float* d_b, std::size_t pitch_b, float* d_c,
        std::size_t pitch_c, int m, int n, int k, dim3 block, cudaStream_t stream) {
       // Rows of other pitches would be read as packed ones.
       const std::size_t row_a = static_cast<std::size_t>(k) * sizeof(float);
       const std::size_t row_bc = static_cast<std::size_t>(n) * sizeof(float);
       if (pitch_a != row_a || pitch_b != row_bc || pitch_c != row_bc) {
         throw std::invalid_argument("unpitched_matmul: packed rows only (pitch = the row's data)");
       }
       unpitched_matmul(d_a, d_b, d_c, m, n, k, block, stream);
     },
     true},
    {"pitched", "pitched", pitched_matmul, false},
};

namespace detail {

/**
 * @brief The argument checks of pitched_matmul() (and of unpitched_matmul(), whose
 * pitches are the packed row sizes); throws std::invalid_argument naming @p who.
 * @param who      name of the calling launcher, for the message
 * @param d_a      device pointer to A
 * @param pitch_a  pitch of A in bytes
 * @param d_b      device pointer to B
 * @param pitch_b  pitch of B in bytes
 * @param d_c      device pointer to C
 * @param pitch_c  pitch of C in bytes
 * @param m        rows of A and C
 * @param n        columns of B and C
 * @param k        columns of A, rows of B
 * @param block    the block shape the launcher will use (x: columns, y: rows)
 */
void check_matmul_args(const char* who, const float* d_a, std::size_t pitch_a, const float* d_b,
                       std::size_t pitch_b, const float* d_c, std::size_t pitch_c, int m, int n,
                       int k, dim3 block);

/// The grid of @p block-shaped blocks covering N columns (x) and M rows (y) of C.
dim3 grid_for(int m, int n, dim3 block);

}  // namespace detail

}  // namespace lab03
