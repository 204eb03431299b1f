// SPDX-License-Identifier: BSD-3-Clause
// Lab 03: pitched storage — cudaMallocPitch, and cudaMemcpy2D between packed host rows
// and pitched device rows.
#include <stdexcept>
#include <string>

#include "cudalab/check.cuh"
#include "pitch.cuh"

namespace lab03 {

PitchedMatrix::PitchedMatrix(int rows, int cols) : rows_(rows), cols_(cols) {
  if (rows <= 0 || cols <= 0) {
    throw std::invalid_argument("PitchedMatrix: rows and cols must be positive, got " +
                                std::to_string(rows) + "x" + std::to_string(cols));
  }
  // TODO(lab03): allocate rows_ rows of row_bytes() bytes each with cudaMallocPitch, storing
  // the device pointer in data_ and the pitch the runtime chose (in bytes) in pitch_
  // (roughly 2 lines).
  // HINT: cudaMallocPitch(void** ptr, size_t* pitch, size_t width_in_bytes, size_t height);
  // wrap it in CUDA_CHECK(...).
  // END TODO(lab03)
}

PitchedMatrix::~PitchedMatrix() {
  if (data_ != nullptr) {
    cudaFree(data_);  // never throw from a destructor
  }
}

void PitchedMatrix::require_allocation(const char* who) const {
  if (data_ == nullptr) {
    throw std::logic_error(std::string("PitchedMatrix::") + who +
                           ": no device allocation (empty matrix, or the constructor did not "
                           "allocate)");
  }
}

void PitchedMatrix::upload(const std::vector<float>& h_src) {
  require_allocation("upload");
  if (h_src.size() != static_cast<std::size_t>(rows_) * cols_) {
    throw std::invalid_argument("PitchedMatrix::upload: host matrix has " +
                                std::to_string(h_src.size()) + " floats, expected " +
                                std::to_string(rows_) + "x" + std::to_string(cols_));
  }
  // TODO(lab03): copy the packed host rows (row r at h_src.data() + r * cols_) into the
  // pitched device rows (row r at r * pitch_ bytes from data_) with one cudaMemcpy2D
  // (roughly 2 lines).
  // HINT: cudaMemcpy2D(dst, dst_pitch, src, src_pitch, width_in_bytes, height, kind): all
  // three sizes are in bytes. What is the pitch of a packed host row?
  // END TODO(lab03)
}

void PitchedMatrix::download(std::vector<float>& h_dst) const {
  require_allocation("download");
  h_dst.resize(static_cast<std::size_t>(rows_) * cols_);
  // TODO(lab03): copy the pitched device rows back into the packed host rows of h_dst
  // with one cudaMemcpy2D (the padding stays on the device) (roughly 2 lines).
  // HINT: the same call as in upload() with source and destination (and kind) swapped.
  // END TODO(lab03)
}

std::vector<float> PitchedMatrix::to_host() const {
  std::vector<float> h_dst;
  download(h_dst);
  return h_dst;
}

void PitchedMatrix::fill_bytes(int byte) {
  require_allocation("fill_bytes");
  // Width = pitch: the padding bytes are set too.
  CUDA_CHECK(cudaMemset2D(data_, pitch_, byte, pitch_, static_cast<std::size_t>(rows_)));
}

}  // namespace lab03
