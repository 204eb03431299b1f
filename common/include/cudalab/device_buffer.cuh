// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file device_buffer.cuh
 * @brief RAII owner of a linear device allocation.
 */
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "cudalab/check.cuh"

namespace cudalab {

/**
 * @brief A typed device array freed when it goes out of scope (move-only).
 *
 * @code
 *   cudalab::DeviceBuffer<float> d_a(n);
 *   d_a.upload(h_a);            // host vector -> device
 *   kernel<<<grid, block>>>(d_a.data(), n);
 *   d_a.download(h_a);          // device -> host vector
 *   const cudalab::DeviceBuffer d_b(h_b);  // allocated and filled from a host vector
 * @endcode
 */
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  /// Allocates @p count elements (uninitialised).
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ > 0) {
      CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr_), bytes()));
    }
  }
  /// Allocates host.size() elements and copies @p host into them (synchronous).
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
  ~DeviceBuffer() {
    if (ptr_ != nullptr) {
      cudaFree(ptr_);  // never throw from a destructor
    }
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      DeviceBuffer(std::move(other)).swap(*this);
    }
    return *this;
  }
  void swap(DeviceBuffer& other) noexcept {
    std::swap(ptr_, other.ptr_);
    std::swap(count_, other.count_);
  }

  /// Device pointer to the first element.
  T* data() noexcept { return ptr_; }
  /// Device pointer to the first element.
  const T* data() const noexcept { return ptr_; }
  /// Number of elements.
  std::size_t size() const noexcept { return count_; }
  /// Size in bytes.
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }

  /// Copies size() elements from host memory (synchronous).
  void upload(const T* host) {
    CUDA_CHECK(cudaMemcpy(ptr_, host, bytes(), cudaMemcpyHostToDevice));
  }
  /// Copies a host vector of exactly size() elements (synchronous).
  void upload(const std::vector<T>& host) {
    check_size(host.size());
    upload(host.data());
  }
  /// Copies size() elements to host memory (synchronous).
  void download(T* host) const {
    CUDA_CHECK(cudaMemcpy(host, ptr_, bytes(), cudaMemcpyDeviceToHost));
  }
  /// Copies into a host vector, resized to size().
  void download(std::vector<T>& host) const {
    host.resize(count_);
    download(host.data());
  }
  /// Returns the contents as a new host vector.
  std::vector<T> to_host() const {
    std::vector<T> host(count_);
    download(host.data());
    return host;
  }
  /// Sets every byte to @p byte (cudaMemset). 0xFF poisons floats as NaN.
  void fill_bytes(int byte) {
    if (count_ > 0) CUDA_CHECK(cudaMemset(ptr_, byte, bytes()));
  }

 private:
  void check_size(std::size_t n) const {
    if (n != count_) {
      throw std::invalid_argument("DeviceBuffer: host size " + std::to_string(n) +
                                  " != device size " + std::to_string(count_));
    }
  }
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace cudalab
