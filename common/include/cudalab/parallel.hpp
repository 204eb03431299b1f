// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file parallel.hpp
 * @brief Host loops split into contiguous ranges that run on several threads.
 *
 * The graders' large inputs (4096 x 4096 matrices, their bit packings) are built on the host
 * while the GPU waits; spread over the host's cores they take a fraction of the time. Results
 * never depend on the number of threads: each range computes its own items only.
 */
#pragma once
#include <algorithm>
#include <cstddef>
#include <future>
#include <vector>

namespace cudalab {

/// Threads a host loop may use: CUDALAB_HOST_THREADS when set, else the hardware's
/// concurrency; at least 1, at most 64. Throws std::invalid_argument when CUDALAB_HOST_THREADS
/// is not a positive integer (as CUDALAB_SEED and CUDALAB_SPEEDUP_SCALE do).
unsigned host_threads();

/**
 * @brief Runs `body(begin, end)` over contiguous ranges that cover [0, @p count), in parallel.
 * @param count  number of items
 * @param grain  fewest items worth a thread of their own (small loops run inline)
 * @param body   callable (std::size_t begin, std::size_t end); ranges never overlap
 *
 * Waits for every range; the first exception a range throws is rethrown here.
 */
template <typename Body>
void parallel_ranges(std::size_t count, std::size_t grain, const Body& body) {
  const std::size_t most = std::max<std::size_t>(1, count / std::max<std::size_t>(grain, 1));
  const std::size_t tasks = std::min<std::size_t>(host_threads(), most);
  if (tasks <= 1) {
    if (count > 0) body(std::size_t{0}, count);
    return;
  }
  const std::size_t per = (count + tasks - 1) / tasks;
  std::vector<std::future<void>> others;  // a future of std::async waits in its destructor
  others.reserve(tasks - 1);
  for (std::size_t begin = per; begin < count; begin += per) {
    const std::size_t end = std::min(count, begin + per);
    others.push_back(std::async(std::launch::async, [&body, begin, end] { body(begin, end); }));
  }
  body(std::size_t{0}, per);
  for (auto& f : others) f.get();
}

}  // namespace cudalab
