// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file grading.hpp
 * @brief Speed verdicts beyond a same-run speedup: shares of a physical reference and the
 * "impossible" bound (link cudalab::testing).
 */
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cudalab/ceilings.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"

namespace cudalab::testing {

/**
 * @brief Fails (non-fatally) when @p measured exceeds @p ceiling by more than 5 %: no kernel
 * beats the hardware, so such a number means the work was skipped, cached or done elsewhere.
 * @param measured  the achieved rate (e.g. GB/s, TFLOP/s)
 * @param ceiling   the physical ceiling in the same unit (cudalab::device_ceilings())
 * @param unit      the unit, for the message
 * @param what      names the measurement
 */
void expect_possible(double measured, double ceiling, const std::string& unit,
                     const std::string& what);

/**
 * @brief Judges @p measured as a share of a physical @p reference measured in the same run
 * (e.g. the kernel's bandwidth against a device-to-device copy): passes when
 * measured / reference >= the test's "share" bar (speed_bar()) x CUDALAB_SPEEDUP_SCALE.
 * Prints and records it.
 */
void expect_share(double measured, double reference, const std::string& unit,
                  const std::string& what);

/**
 * @brief Bandwidth in GB/s (bytes read + bytes written) of cudaMemcpyAsync device-to-device
 * over @p bytes, median of 9 runs: the memory-bound reference a kernel is compared with.
 */
double d2d_copy_gbps(std::size_t bytes);

/**
 * @brief Enqueues on @p s: for j in [0, @p count), element p = changed_position(@p key, j,
 * @p elements) of @p live (elements of @p elem_bytes bytes: 1, 2, 4, 8 or 16) becomes the
 * element p of @p source. Throws std::invalid_argument for another element size.
 */
void copy_changed_elements(void* live, const void* source, std::size_t elements,
                           std::size_t elem_bytes, std::uint64_t key, std::size_t count,
                           cudaStream_t s);

/// The position of change @p j of @p key among @p elements (the same on host and device).
__host__ __device__ inline std::size_t changed_position(std::uint64_t key, std::uint64_t j,
                                                        std::size_t elements) {
  std::uint64_t z = key + (j + 1) * 0x9E3779B97F4A7C15ull;  // splitmix64
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return std::size_t((z ^ (z >> 31)) % elements);
}

/**
 * @brief Two input sets behind one device buffer, so that no timed repetition can be
 * satisfied by a remembered result. copy_next() (an untimed BenchOptions::before_candidate
 * step) copies set (run % 2) into live and then replaces about sqrt(size) elements (at least
 * 16), at positions drawn from std::random_device for every run, by the other set's element at
 * the same position. Every run's input is therefore new, yet a sampled hash of it almost never
 * sees a change (s samples of an n-element input notice one with probability about
 * s / sqrt(n): 32 samples of a 4096^2 matrix, 0.8 %). A kernel that serves a remembered result
 * when its sample matches thus serves a stale one on nearly every run, the last included, and
 * the changes reach every row of a product (about one per row of A and of B), so the stale
 * output differs from the right one almost everywhere. The values stay those of a valid input
 * at that position (padding stays padding). last_input() rebuilds on the host exactly what the
 * last run read, which the grader checks the output against.
 */
template <typename T>
struct AlternatingInput {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 ||
                    sizeof(T) == 16,
                "element sizes of 1, 2, 4, 8 or 16 bytes");
  AlternatingInput(const std::vector<T>& set0, const std::vector<T>& set1)
      : live(set0.size()),
        sets{DeviceBuffer<T>(set0.size()), DeviceBuffer<T>(set1.size())},
        host_{set0, set1} {
    if (set0.size() != set1.size() || set0.empty()) {
      throw std::invalid_argument("AlternatingInput: two non-empty sets of one size");
    }
    sets[0].upload(set0);
    sets[1].upload(set1);
    live.upload(set0);
  }
  /// Two sets already on the device (e.g. filled there by a kernel: large inputs need no host
  /// copy); last_input() downloads them when it is asked.
  AlternatingInput(DeviceBuffer<T>&& set0, DeviceBuffer<T>&& set1)
      : live(set0.size()), sets{std::move(set0), std::move(set1)} {
    if (sets[0].size() != sets[1].size() || sets[0].size() == 0) {
      throw std::invalid_argument("AlternatingInput: two non-empty sets of one size");
    }
    CUDA_CHECK(cudaMemcpy(live.data(), sets[0].data(), live.bytes(), cudaMemcpyDeviceToDevice));
  }
  /// Elements changed per run: about sqrt(size), at least 16.
  std::size_t changes() const {
    return std::max<std::size_t>(16, std::size_t(std::sqrt(double(live.size()))));
  }
  /// Enqueues the copy of the next set into live, then the changes, on @p s.
  void copy_next(cudaStream_t s) {
    keys_.push_back((std::uint64_t(random_()) << 32) ^ random_());
    rebuild_on_device(live.data(), runs++, s);
  }
  /// The set the last copy_next() put in live (0 before any).
  int last() const { return runs == 0 ? 0 : int((runs - 1) % 2); }
  /// What live held for the last run (set 0 before any run), rebuilt on the host.
  std::vector<T> last_input() const { return input_of_run(runs - 1); }
  /// What live held for run @p r (0 = after the first copy_next(); -1 = set 0 before any),
  /// rebuilt on the host: lets a grader check the output of every run, not only the last.
  std::vector<T> input_of_run(long r) const { return input_view(r); }
  /**
   * @brief input_of_run() without the copy: a view this object keeps for the run's set,
   * valid until the next input_view() of a run of the same set (-1 and even runs share set 0).
   * Moving the view from one run to another restores the earlier run's changed elements and
   * applies the new run's: O(changes()) instead of a copy of the whole input, which for the
   * 64-256 MiB inputs of a perf test took most of its time.
   */
  const std::vector<T>& input_view(long r) const {
    if (r < -1 || r >= runs) throw std::out_of_range("AlternatingInput: no such run");
    if (host_[0].empty()) {  // device-built sets
      host_[0] = sets[0].to_host();
      host_[1] = sets[1].to_host();
    }
    const int set = r < 0 ? 0 : int(r % 2);
    std::vector<T>& v = view_[set];
    if (v.empty()) v = host_[set];
    const std::vector<T>& own = host_[set];
    const std::vector<T>& other = host_[1 - set];
    if (view_run_[set] >= 0) {
      for (std::size_t j = 0; j < changes(); ++j) {
        const std::size_t p = changed_position(keys_[std::size_t(view_run_[set])], j, v.size());
        v[p] = own[p];
      }
    }
    view_run_[set] = r;
    if (r >= 0) {
      for (std::size_t j = 0; j < changes(); ++j) {
        const std::size_t p = changed_position(keys_[std::size_t(r)], j, v.size());
        v[p] = other[p];
      }
    }
    return v;
  }
  /// Enqueues on @p s the rebuild of last_input() on the device, into @p dst (live.size()
  /// elements): for inputs too large to check on the host.
  void last_input_to(T* dst, cudaStream_t s = nullptr) const {
    rebuild_on_device(dst, runs - 1, s);
  }
  DeviceBuffer<T> live;     ///< the buffer the timed work reads
  DeviceBuffer<T> sets[2];  ///< the two input sets
  long runs = 0;            ///< copies enqueued so far

 private:
  /// Enqueues on @p s the input of run @p r (-1: set 0 before any run) into @p dst: its set,
  /// then its changed elements from the other set.
  void rebuild_on_device(T* dst, long r, cudaStream_t s) const {
    const int set = r < 0 ? 0 : int(r % 2);
    CUDA_CHECK(cudaMemcpyAsync(dst, sets[set].data(), live.bytes(), cudaMemcpyDeviceToDevice, s));
    if (r < 0) return;
    copy_changed_elements(dst, sets[1 - set].data(), live.size(), sizeof(T), keys_[std::size_t(r)],
                          changes(), s);
  }

  mutable std::vector<T> host_[2];       ///< the two sets, for last_input() (lazy if device-built)
  mutable std::vector<T> view_[2];       ///< input_view() of each set: the set with a run's changes
  mutable long view_run_[2] = {-1, -1};  ///< the run view_[set] holds (-1: none applied)
  std::random_device random_;            ///< not the run seed: host code of a lab cannot predict it
  std::vector<std::uint64_t> keys_;      ///< every run's key: the positions of its changes
};

/// What @p a and @p b held for run @p r, as views (AlternatingInput::input_view()): the two
/// operands of a product whose rows of that run are checked.
template <typename T>
std::pair<const std::vector<T>&, const std::vector<T>&> input_views(const AlternatingInput<T>& a,
                                                                    const AlternatingInput<T>& b,
                                                                    long r) {
  return {a.input_view(r), b.input_view(r)};
}

/**
 * @brief A byte table that is as valid a "bit count" as popcount but gives other numbers: bit
 * b of a byte counts {3, 0, 1, 2, 0, 1, 1, 0}[b]. The weights sum to 8, so a byte and its
 * complement still count 8 together (the XNOR and XOR forms of a kernel agree) and a zero
 * byte counts 0. Handed to a table-popcount kernel, the product must follow this table; a
 * kernel that ignores its table (e.g. counts with __popc) returns the ordinary product.
 */
inline std::array<std::uint8_t, 256> weighted_popcount_table() {
  constexpr std::array<int, 8> kBitWeight = {3, 0, 1, 2, 0, 1, 1, 0};
  std::array<std::uint8_t, 256> t{};
  for (int i = 0; i < 256; ++i) {
    int sum = 0;
    for (int b = 0; b < 8; ++b) sum += ((i >> b) & 1) * kBitWeight[b];
    t[i] = static_cast<std::uint8_t>(sum);
  }
  return t;
}

}  // namespace cudalab::testing
