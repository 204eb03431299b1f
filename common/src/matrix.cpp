// SPDX-License-Identifier: BSD-3-Clause
#include "cudalab/matrix.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "cudalab/parallel.hpp"

namespace cudalab {

std::uint64_t run_seed() {
  static const std::uint64_t seed = []() -> std::uint64_t {
    const char* env = std::getenv("CUDALAB_SEED");
    if (env != nullptr && *env != '\0') {
      char* end = nullptr;
      const unsigned long long v = std::strtoull(env, &end, 10);
      if (end == env || *end != '\0') {
        throw std::invalid_argument(std::string("CUDALAB_SEED must be a decimal integer, got '") +
                                    env + "'");
      }
      return static_cast<std::uint64_t>(v);
    }
    std::random_device rd;
    return (static_cast<std::uint64_t>(rd()) << 32 | rd()) % 1000000000ULL;
  }();
  return seed;
}

std::string seed_note() {
  const auto s = std::to_string(run_seed());
  return "seed " + s + " (reproduce with CUDALAB_SEED=" + s + ")";
}

namespace {

/// A generator seeded from the run seed and @p words (the halves of 64-bit numbers).
std::mt19937_64 seeded_rng(std::initializer_list<std::uint64_t> words) {
  std::vector<std::uint32_t> halves{static_cast<std::uint32_t>(run_seed()),
                                    static_cast<std::uint32_t>(run_seed() >> 32)};
  for (const std::uint64_t w : words) {
    halves.push_back(static_cast<std::uint32_t>(w));
    halves.push_back(static_cast<std::uint32_t>(w >> 32));
  }
  std::seed_seq seq(halves.begin(), halves.end());
  return std::mt19937_64(seq);
}

}  // namespace

std::mt19937_64 make_rng(std::uint64_t stream) {
  return seeded_rng({stream});
}

namespace {

/// Elements drawn from one random stream: a fill is split into chunks of this many elements
/// (a multiple of 64), each with its own generator, so that the chunks can be drawn in
/// parallel and the values do not depend on the number of threads.
constexpr std::size_t kFillChunk = std::size_t(1) << 16;

/// The generator of chunk @p chunk of input @p stream; chunk 0 is make_rng(stream).
std::mt19937_64 chunk_rng(std::uint64_t stream, std::size_t chunk) {
  return chunk == 0 ? make_rng(stream) : seeded_rng({stream, chunk});
}

/// Calls fill(rng, first, count) for every chunk of @p m, the chunks spread over the host's
/// threads.
template <typename FillChunk>
void fill_chunks(std::vector<float>& m, std::uint64_t stream, const FillChunk& fill) {
  const std::size_t chunks = (m.size() + kFillChunk - 1) / kFillChunk;
  parallel_ranges(chunks, 4, [&](std::size_t first, std::size_t last) {
    for (std::size_t c = first; c < last; ++c) {
      auto rng = chunk_rng(stream, c);
      fill(rng, m.data() + c * kFillChunk, std::min(kFillChunk, m.size() - c * kFillChunk));
    }
  });
}

}  // namespace

// The fills take several values from each 64-bit draw and draw their chunks in parallel: a
// perf test's four 4096 x 4096 inputs take milliseconds, not a second (the GPU waits for them).

void fill_pm1(std::vector<float>& m, std::uint64_t stream) {
  fill_chunks(m, stream, [](std::mt19937_64& rng, float* p, std::size_t count) {
    for (std::size_t i = 0; i < count; i += 64) {
      std::uint64_t bits = rng();  // one draw: the signs of 64 elements
      const std::size_t end = std::min(count, i + 64);
      for (std::size_t j = i; j < end; ++j, bits >>= 1) p[j] = (bits & 1u) ? 1.0f : -1.0f;
    }
  });
}

void fill_small_int(std::vector<float>& m, std::uint64_t stream, int lo, int hi) {
  if (lo > hi) throw std::invalid_argument("fill_small_int: lo > hi");
  const std::uint64_t range = static_cast<std::uint64_t>(static_cast<std::int64_t>(hi) - lo) + 1;
  if (range > 256) {  // wide ranges: one draw per value
    fill_chunks(m, stream, [lo, hi](std::mt19937_64& rng, float* p, std::size_t count) {
      std::uniform_int_distribution<int> dist(lo, hi);
      for (std::size_t i = 0; i < count; ++i) p[i] = static_cast<float>(dist(rng));
    });
    return;
  }
  // Eight bytes per draw; a byte at or above the largest multiple of the range is rejected,
  // so every value in [lo, hi] is exactly equally likely.
  const std::uint64_t limit = 256 - 256 % range;
  fill_chunks(m, stream, [lo, range, limit](std::mt19937_64& rng, float* p, std::size_t count) {
    std::uint64_t bits = 0;
    int bytes_left = 0;
    for (std::size_t i = 0; i < count; ++i) {
      std::uint64_t byte = 0;
      do {
        if (bytes_left == 0) {
          bits = rng();
          bytes_left = 8;
        }
        byte = bits & 0xFFu;
        bits >>= 8;
        --bytes_left;
      } while (byte >= limit);
      p[i] = static_cast<float>(lo + static_cast<int>(byte % range));
    }
  });
}

void fill_uniform(std::vector<float>& m, std::uint64_t stream, float lo, float hi) {
  if (!(lo < hi)) throw std::invalid_argument("fill_uniform: needs lo < hi");
  const float width = hi - lo;
  fill_chunks(m, stream, [lo, hi, width](std::mt19937_64& rng, float* p, std::size_t count) {
    const auto to_float = [&](std::uint32_t half) {  // 24 random bits -> [lo, hi)
      const float x = lo + width * (static_cast<float>(half >> 8) * 0x1.0p-24f);
      return x < hi ? x : lo;  // rounding may reach hi for wide intervals: keep [lo, hi)
    };
    for (std::size_t i = 0; i < count; i += 2) {
      const std::uint64_t r = rng();  // two values per draw
      p[i] = to_float(static_cast<std::uint32_t>(r));
      if (i + 1 < count) p[i + 1] = to_float(static_cast<std::uint32_t>(r >> 32));
    }
  });
}

std::string fill_name(Fill fill) {
  switch (fill) {
    case Fill::PlusMinusOne:
      return "PlusMinusOne";
    case Fill::SmallInt:
      return "SmallInt";
    case Fill::Uniform:
      return "Uniform";
  }
  return "Unknown";
}

std::vector<float> random_matrix(int rows, int cols, Fill fill, std::uint64_t stream) {
  if (rows < 0 || cols < 0) throw std::invalid_argument("random_matrix: negative size");
  std::vector<float> m(static_cast<std::size_t>(rows) * cols);
  switch (fill) {
    case Fill::PlusMinusOne:
      fill_pm1(m, stream);
      break;
    case Fill::SmallInt:
      fill_small_int(m, stream);
      break;
    case Fill::Uniform:
      fill_uniform(m, stream);
      break;
  }
  return m;
}

double matmul_tolerance(int k) {
  constexpr double u = 0x1p-24;  // unit roundoff of float
  const double ku = std::max(k, 1) * u;
  const double gamma_k = ku / (1.0 - ku);
  return 8.0 * gamma_k + u;
}

MatrixCompare compare_matrices(const std::vector<float>& expected, const std::vector<float>& got,
                               int rows, int cols, double rel_tol) {
  MatrixCompare r;
  const std::size_t n = static_cast<std::size_t>(rows) * cols;
  if (expected.size() != n || got.size() != n) {
    r.ok = false;
    r.mismatches = n;
    r.message = "size mismatch: expected " + std::to_string(expected.size()) + " elements, got " +
                std::to_string(got.size()) + " for a " + std::to_string(rows) + "x" +
                std::to_string(cols) + " matrix";
    return r;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const double e = expected[i];
    const double g = got[i];
    const double tol = rel_tol * std::max(1.0, std::fabs(e));
    const bool bad = !std::isfinite(g) || std::fabs(g - e) > tol;
    if (bad) {
      if (r.ok) {
        r.ok = false;
        r.index = i;
        r.row = static_cast<int>(i / cols);
        r.col = static_cast<int>(i % cols);
        r.expected = e;
        r.got = g;
        r.tolerance = tol;
      }
      ++r.mismatches;
    }
  }
  if (!r.ok) {
    std::ostringstream os;
    os << std::setprecision(9) << r.mismatches << " of " << n << " elements wrong in a " << rows
       << "x" << cols << " result; first at index " << r.index << " (row " << r.row << ", col "
       << r.col << "): expected " << r.expected << ", got " << r.got;
    if (rel_tol > 0) os << " (tolerance " << r.tolerance << ")";
    os << "; " << seed_note();
    r.message = os.str();
  }
  return r;
}

void print_matrix(std::ostream& os, const std::vector<float>& m, int rows, int cols, int max_rows,
                  int max_cols) {
  const int show_r = std::min(rows, max_rows);
  const int show_c = std::min(cols, max_cols);
  for (int r = 0; r < show_r; ++r) {
    for (int c = 0; c < show_c; ++c) {
      os << std::setw(9) << std::setprecision(4) << m[std::size_t(r) * cols + c];
    }
    os << (show_c < cols ? "  ...\n" : "\n");
  }
  if (show_r < rows) os << "   ... (" << rows << "x" << cols << ")\n";
}

}  // namespace cudalab
