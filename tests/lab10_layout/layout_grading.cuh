// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file layout_grading.cuh
 * @brief What the test files of lab 10's grader share: the graph rules of the count, the data
 * sets hashed on the device with the grader's reference kernels that fill, count and check
 * them, and the host reference of the AoS -> SoA conversion.
 */
#pragma once

#include <cstdint>
#include <vector>

#include "common/kit.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/grading.hpp"
#include "cudalab/graph_capture.cuh"
#include "cudalab/testing.hpp"
#include "layout.cuh"

namespace lab10_grading {

// The kit's names the test files use (each says `using namespace lab10_grading;`).
namespace kit = cudalab::kit;
using cudalab::kit::only_kernel;
using cudalab::testing::CapturedWork;
using cudalab::testing::GraphRules;

/// What the graph captured from count_below(..., d_count, ...) may hold: its kernel, after
/// the memset that zeroes *d_count (the interface: "the launcher zeroes *d_count, a memset on
/// the stream"). A kernel that zeroes the count itself races with the blocks that add to it.
inline GraphRules count_rules(const unsigned int* d_count) {
  GraphRules rules = kit::only_kernel(lab10::count_below_kernel());
  rules.expect_memset(d_count, sizeof(unsigned int), 0, "*d_count zeroed");
  return rules;
}

// ===========================================================================
// GPU data: small integers (exact) and random floats (tolerance), from host or from a hash on
// the device for the large sets.
// ===========================================================================

/// A 64-bit mix (MurmurHash3's finalizer), its low 32 bits.
__host__ __device__ inline std::uint32_t mix64(std::uint64_t k) {
  k ^= k >> 33;
  k *= 0xFF51AFD7ED558CCDull;
  k ^= k >> 33;
  k *= 0xC4CEB9FE1A85EC53ull;
  k ^= k >> 33;
  return static_cast<std::uint32_t>(k);
}

/// Field @p f (0 x, 1 y, 2 z, 3 m) of particle @p i of data set @p salt: an integer in [-8, 8]
/// (the mass in [0, 8]).
__host__ __device__ inline float hashed_value(std::uint64_t salt, long long i, int f) {
  const int v = static_cast<int>(mix64(salt + 4ull * static_cast<std::uint64_t>(i) + f) % 17u) - 8;
  return static_cast<float>(f == 3 ? (v < 0 ? -v : v) : v);
}

/// The threshold of the counts over hashed data: one of the 17 values of hashed_value()'s x
/// field, so about one element in 17 equals it (a tie, which is not below: `<`, never `<=`).
inline constexpr float kTieX0 = 0.0f;

/// A float of record element @p e (any of 2^20 values, exact copies compare with ==).
__host__ __device__ inline float hashed_record(std::uint64_t salt, long long e) {
  return static_cast<float>(mix64(salt ^ (static_cast<std::uint64_t>(e) * 0x9E3779B97F4A7C15ull)) &
                            0xFFFFFu) *
         0.25f;
}

// The grader's kernels are static: each test file that includes this header has its own copy.

/// base[i * stride] = hashed_value(salt, i, field) for i < n.
static __global__ void grader_fill_field(float* base, long long stride, long long n, int field,
                                         std::uint64_t salt) {
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    base[i * stride] = hashed_value(salt, i, field);
  }
}

/// aos[e] = hashed_record(salt, e) for e < total.
static __global__ void grader_fill_records(float* aos, long long total, std::uint64_t salt) {
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += step) {
    aos[e] = hashed_record(salt, e);
  }
}

/// Reference count (one atomic per block): how many base[i * stride] < x0.
static __global__ void grader_count(const float* base, long long stride, long long n, float x0,
                                    unsigned long long* count) {
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  unsigned long long mine = 0;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    mine += base[i * stride] < x0 ? 1 : 0;
  }
  atomicAdd(count, mine);
}

/// The weighted distance of a particle (x, y, z) of mass m from @p c (exact on small integers).
__device__ inline float weighted_distance(float x, float y, float z, float m, float3 c) {
  const float dx = x - c.x, dy = y - c.y, dz = z - c.z;
  return m * (dx * dx + dy * dy + dz * dz);
}

/// Field @p f of particle @p i of data set `salt` (grader_fill_field's values).
struct HashedParticles {
  std::uint64_t salt;
  __device__ float operator()(long long i, int f) const { return hashed_value(salt, i, f); }
};

/// Field f of particle i in a buffer: in[f * field_step + i * stride] (SoA: field_step n,
/// stride 1; AoS4: 1, 4).
struct ParticlesAt {
  const float* in;
  long long field_step, stride;
  __device__ float operator()(long long i, int f) const { return in[f * field_step + i * stride]; }
};

/// Counts wrong distances of the particles @p field gives (field(i, f)); remembers the
/// smallest wrong index.
template <typename Field>
__global__ void grader_check_distance(const float* out, long long n, float3 c, Field field,
                                      unsigned long long* bad, unsigned long long* first_bad) {
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    const float want = weighted_distance(field(i, 0), field(i, 1), field(i, 2), field(i, 3), c);
    if (!(out[i] == want)) {
      atomicAdd(bad, 1ull);
      atomicMin(first_bad, static_cast<unsigned long long>(i));
    }
  }
}

/// Element @p e of the records of data set `salt` (grader_fill_records's values).
struct HashedRecords {
  std::uint64_t salt;
  __device__ float operator()(long long e) const { return hashed_record(salt, e); }
};

/// Element @p e of the records in a buffer.
struct RecordsAt {
  const float* aos;
  __device__ float operator()(long long e) const { return aos[e]; }
};

/// Counts wrong elements of soa (n records of `fields` floats, record element e = record(e));
/// remembers the smallest wrong index.
template <typename Record>
__global__ void grader_check_soa(const float* soa, long long n, int fields, Record record,
                                 unsigned long long* bad, unsigned long long* first_bad) {
  const long long total = n * fields;
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long k = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; k < total;
       k += step) {
    const long long f = k / n, i = k - f * n;  // soa[f * n + i] = aos[i * fields + f]
    if (!(soa[k] == record(i * fields + f))) {
      atomicAdd(bad, 1ull);
      atomicMin(first_bad, static_cast<unsigned long long>(k));
    }
  }
}

/// The launch of the grader's grid-stride kernels.
inline constexpr unsigned kGraderBlocks = 2048;
inline constexpr unsigned kGraderThreads = 256;  ///< threads per block of kGraderBlocks

/// Writes field @p field of @p n particles of data set @p salt at base[i * stride] (on @p s).
inline void fill_field(float* base, long long stride, long long n, int field, std::uint64_t salt,
                       cudaStream_t s) {
  grader_fill_field<<<kGraderBlocks, kGraderThreads, 0, s>>>(base, stride, n, field, salt);
  CUDA_CHECK_LAST_LAUNCH();
}

/// Writes @p total record elements of data set @p salt to @p aos (on @p s).
inline void fill_records(float* aos, long long total, std::uint64_t salt, cudaStream_t s) {
  grader_fill_records<<<kGraderBlocks, kGraderThreads, 0, s>>>(aos, total, salt);
  CUDA_CHECK_LAST_LAUNCH();
}

/// How many base[i * stride] < x0 for i < n, counted by the grader (synchronizes).
inline unsigned long long reference_count(const float* base, long long stride, long long n,
                                          float x0) {
  cudalab::DeviceBuffer<unsigned long long> d(1);
  d.fill_bytes(0);
  grader_count<<<kGraderBlocks, kGraderThreads>>>(base, stride, n, x0, d.data());
  CUDA_CHECK_LAST_LAUNCH();
  return d.to_host()[0];
}

/// {wrong elements, first wrong index} from one of the check kernels.
struct DeviceVerdict {
  unsigned long long bad = 0;
  unsigned long long first = 0;
};

/// The DeviceVerdict of the check kernel that @p launch(bad, first_bad) launches.
template <typename Launch>
DeviceVerdict device_verdict(Launch launch) {
  cudalab::DeviceBuffer<unsigned long long> d(2);
  const unsigned long long init[2] = {0, ~0ull};
  d.upload(init);
  launch(d.data(), d.data() + 1);
  CUDA_CHECK_LAST_LAUNCH();
  const auto h = d.to_host();
  return {h[0], h[1]};
}

/// A run-varying salt for the hashed data sets (from the run seed, so CUDALAB_SEED fixes it).
inline std::uint64_t salt_for(std::uint64_t stream) {
  auto rng = cudalab::make_rng(stream);
  return rng() & 0xFFFFFFFFFFull;
}

// ---------------------------------------------------------------------------
// The AoS -> SoA conversion on the host
// ---------------------------------------------------------------------------
/// A conversion of n records of `fields` floats: the AoS as an n x fields matrix (rows x cols).
using Conversion = kit::Extent;

/// The host's conversion of @p n records of @p fields floats: soa[f * n + i] = aos[i * fields + f].
inline std::vector<float> host_soa(const std::vector<float>& aos, int n, int fields) {
  std::vector<float> soa(aos.size());
  for (int i = 0; i < n; ++i) {
    for (int f = 0; f < fields; ++f) {
      soa[std::size_t(f) * n + i] = aos[std::size_t(i) * fields + f];
    }
  }
  return soa;
}

}  // namespace lab10_grading
