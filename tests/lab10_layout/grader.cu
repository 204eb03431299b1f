// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 10: the sector model (CPU, graded first), the particle kernels in SoA and AoS4
// layouts, the x-only count through any stride, the tiled AoS -> SoA conversion; Nsight Compute's
// sectors per request against your model for every kernel, and the speed of each layout.
// Every graded launcher runs under stream capture (the graph may hold only the lab's kernel and,
// for the count, the memset that zeroes it), then on new inputs behind the same pointers, with
// NaN-poisoned outputs and shared memory.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <numeric>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "common/kit.cuh"
#include "cudalab/bench.cuh"
#include "cudalab/ceilings.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/grading.hpp"
#include "cudalab/graph_capture.cuh"
#include "cudalab/testing.hpp"
#include "cudalab/tools.hpp"
#include "layout.cuh"

namespace {

// ---------------------------------------------------------------------------
// Speed bars: each perf test names its bar ("speedup", "share", ...), and its number and
// provenance are the calibration's (tests/calibration/nvidia-h200.tsv on the reference GPU).
// ---------------------------------------------------------------------------
/// Fields per record of the conversion speed test.
constexpr int kPerfFields = 32;
/// Relative tolerance of the weighted distance on random floats (a few roundings).
constexpr double kFloatTolerance = 1e-5;

namespace kit = cudalab::kit;
using cudalab::testing::CapturedWork;
using cudalab::testing::GraphRules;
using kit::only_kernel;

/// What the graph captured from count_below(..., d_count, ...) may hold: its kernel, after
/// the memset that zeroes *d_count (the interface: "the launcher zeroes *d_count, a memset on
/// the stream"). A kernel that zeroes the count itself races with the blocks that add to it.
GraphRules count_rules(const unsigned int* d_count) {
  GraphRules rules = only_kernel(lab10::count_below_kernel());
  rules.expect_memset(d_count, sizeof(unsigned int), 0, "*d_count zeroed");
  return rules;
}

// ===========================================================================
// CPU: the sector model
// ===========================================================================

/// Independent check: every byte every active lane reads, divided by 32, counted once.
int sectors_by_every_byte(const lab10::GlobalRequest& r) {
  std::set<std::uint64_t> sectors;
  for (int lane = 0; lane < 32; ++lane) {
    if (((r.active_mask >> lane) & 1u) == 0) continue;
    for (int b = 0; b < r.access_bytes; ++b) {
      sectors.insert((r.byte_address[static_cast<std::size_t>(lane)] + b) / 32);
    }
  }
  return static_cast<int>(sectors.size());
}

std::string describe(const lab10::GlobalRequest& r) {
  std::string s = std::to_string(r.access_bytes) + "-byte loads, mask 0x";
  char mask[16];
  std::snprintf(mask, sizeof mask, "%08x", r.active_mask);
  s += mask;
  s += ", byte addresses {";
  for (int i = 0; i < 32; ++i) {
    s += (i ? ", " : "") + std::to_string(r.byte_address[static_cast<std::size_t>(i)]);
  }
  return s + "}";
}

::testing::AssertionResult sectors_are(const lab10::GlobalRequest& r, int expected,
                                       const std::string& what) {
  int got = 0;
  try {
    got = lab10::sectors_touched(r);
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure()
           << what << ": expected " << expected << " sectors, sectors_touched threw: " << e.what();
  }
  if (got == expected) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": expected " << expected << " sectors, got "
                                       << got << " (" << describe(r) << ")";
}

TEST(SectorOfCpu, ThirtyTwoByteSectors) {
  const std::uint64_t fixed[] = {0,   1,   31,  32,   33,   63,   64,
                                 127, 128, 255, 4096, 4127, 4128, (std::uint64_t{1} << 35) + 31};
  for (const std::uint64_t a : fixed) EXPECT_EQ(lab10::sector_of(a), a / 32) << "byte " << a;
  auto rng = cudalab::make_rng(101);
  std::uniform_int_distribution<std::uint64_t> addr(0, std::uint64_t{1} << 44);
  for (int t = 0; t < 2000; ++t) {
    const std::uint64_t a = addr(rng);
    ASSERT_EQ(lab10::sector_of(a), a / 32) << "byte " << a << " (" << cudalab::seed_note() << ")";
  }
}

// The issue's three numbers: a warp reading x[i] of SoA floats, p[i].x of 12-byte AoS3 records,
// and whole 16-byte float4 records.
TEST(SectorsTouchedCpu, SoaFloatIsFourSectors) {
  EXPECT_TRUE(sectors_are(lab10::strided_request(4, 4), 4, "SoA x[i], 32 consecutive floats"));
}

TEST(SectorsTouchedCpu, AosFloat3XOnlyIsTwelveSectors) {
  EXPECT_TRUE(sectors_are(lab10::strided_request(12, 4), 12, "AoS3 p[i].x, 12 bytes apart"));
  EXPECT_TRUE(sectors_are(lab10::strided_request(12, 4, 8), 12, "AoS3 p[i].z, 12 bytes apart"));
}

TEST(SectorsTouchedCpu, AosFloat4IsSixteenSectors) {
  EXPECT_TRUE(sectors_are(lab10::strided_request(16, 16), 16, "AoS4 p[i] as one float4"));
  EXPECT_TRUE(sectors_are(lab10::strided_request(16, 4), 16, "AoS4 p[i].x alone"));
  EXPECT_TRUE(sectors_are(lab10::strided_request(16, 8), 16, "AoS4 p[i].xy as a float2"));
}

// Lane i at 4 s i: for s <= 8 neighbouring lanes are at most one sector apart, so every sector
// from 0 to floor(31 s / 8) is touched; from s = 8 on every lane has its own sector.
TEST(SectorsTouchedCpu, FourByteStridesOneToSixtyFour) {
  for (int s = 1; s <= 64; ++s) {
    const int want = std::min(32, 31 * s / 8 + 1);
    EXPECT_TRUE(sectors_are(lab10::strided_request(4 * std::uint64_t(s), 4), want,
                            "4-byte loads, stride " + std::to_string(s) + " floats"));
  }
}

TEST(SectorsTouchedCpu, ConsecutiveAccessesOfEveryWidth) {
  for (const int w : {1, 2, 4, 8, 16}) {
    EXPECT_TRUE(sectors_are(lab10::strided_request(w, w), w,
                            std::to_string(w) + "-byte loads of consecutive elements"));
  }
}

TEST(SectorsTouchedCpu, MisalignedBaseCostsOneMoreSector) {
  for (std::uint64_t offset = 4; offset < 32; offset += 4) {
    EXPECT_TRUE(sectors_are(lab10::strided_request(4, 4, 4096 + offset), 5,
                            "32 consecutive floats from byte 4096 + " + std::to_string(offset)));
  }
  EXPECT_TRUE(sectors_are(lab10::strided_request(4, 4, 4096 + 32), 4,
                          "32 consecutive floats from a sector boundary"));
  EXPECT_TRUE(sectors_are(lab10::strided_request(16, 16, 16), 17,
                          "32 float4 from byte 16 (the array starts mid-sector)"));
  EXPECT_TRUE(sectors_are(lab10::strided_request(8, 8, 24), 9, "32 float2 from byte 24"));
  auto rng = cudalab::make_rng(102);
  std::uniform_int_distribution<std::uint64_t> sector(0, std::uint64_t{1} << 30);
  std::uniform_int_distribution<int> word(1, 7);
  for (int t = 0; t < 200; ++t) {
    const std::uint64_t base = sector(rng) * 32 + 4 * std::uint64_t(word(rng));
    ASSERT_TRUE(sectors_are(lab10::strided_request(4, 4, base), 5,
                            "32 consecutive floats from byte " + std::to_string(base) + " (" +
                                cudalab::seed_note() + ")"));
  }
}

TEST(SectorsTouchedCpu, InactiveLanesAndBroadcasts) {
  lab10::GlobalRequest r = lab10::strided_request(4, 4);
  r.active_mask = 0;
  EXPECT_TRUE(sectors_are(r, 0, "no active lane"));
  r.active_mask = 1u << 17;
  EXPECT_TRUE(sectors_are(r, 1, "lane 17 alone"));
  r.active_mask = 1u;  // n = 33: the second warp has one live lane
  EXPECT_TRUE(sectors_are(r, 1, "the last warp of n = 33: lane 0 alone"));
  r = lab10::strided_request(16, 4);
  r.active_mask = 0x0000FFFFu;
  EXPECT_TRUE(sectors_are(r, 8, "lanes 0-15, 16 bytes apart"));
  r.active_mask = 0x55555555u;
  EXPECT_TRUE(sectors_are(r, 16, "even lanes, 16 bytes apart"));
  EXPECT_TRUE(sectors_are(lab10::strided_request(0, 4, 1000), 1, "every lane reads byte 1000"));
  EXPECT_TRUE(sectors_are(lab10::strided_request(0, 16, 4096), 1, "a float4 broadcast"));
  lab10::GlobalRequest two_lines = lab10::strided_request(0, 4, 0);
  for (int i = 16; i < 32; ++i) two_lines.byte_address[std::size_t(i)] = 1 << 20;
  EXPECT_TRUE(sectors_are(two_lines, 2, "16 lanes on byte 0, 16 on byte 2^20"));
}

TEST(SectorsTouchedCpu, RejectsBadWidthsAndMisalignedLanes) {
  for (const int w : {0, 3, 5, 12, 32, -4}) {
    lab10::GlobalRequest r = lab10::strided_request(4, 4);
    r.access_bytes = w;
    EXPECT_THROW(lab10::sectors_touched(r), std::invalid_argument) << "access_bytes = " << w;
  }
  lab10::GlobalRequest r = lab10::strided_request(4, 4);
  r.byte_address[5] = 22;  // a 4-byte load from byte 22
  EXPECT_THROW(lab10::sectors_touched(r), std::invalid_argument) << "lane 5 reads 4 bytes at 22";
  r.active_mask = ~(1u << 5);  // the misaligned lane is inactive: fine
  EXPECT_TRUE(sectors_are(r, 4, "misaligned lane 5 inactive"));
  EXPECT_THROW(lab10::sectors_touched(lab10::strided_request(16, 16, 8)), std::invalid_argument)
      << "float4 loads from byte 8";
}

TEST(SectorsTouchedCpu, SeededRequestsMatchEveryByteCounted) {
  auto rng = cudalab::make_rng(103);
  std::uniform_int_distribution<int> width_index(0, 4);
  std::uniform_int_distribution<std::uint64_t> element(0, 2000);
  std::uniform_int_distribution<std::uint32_t> mask;
  for (int t = 0; t < 3000; ++t) {
    lab10::GlobalRequest r;
    r.access_bytes = 1 << width_index(rng);
    const std::uint64_t base = element(rng) * 4096;
    for (auto& a : r.byte_address) a = base + element(rng) * std::uint64_t(r.access_bytes);
    r.active_mask = t % 3 == 0 ? 0xFFFFFFFFu : mask(rng);
    ASSERT_TRUE(
        sectors_are(r, sectors_by_every_byte(r),
                    "seeded request " + std::to_string(t) + " (" + cudalab::seed_note() + ")"));
  }
}

// ---------------------------------------------------------------------------
// CPU: the padded pitch of the conversion tile
// ---------------------------------------------------------------------------
TEST(RecordPitchCpu, ColumnReadsAreConflictFreeWithTheLeastPadding) {
  for (int fields = 1; fields <= lab10::kMaxFields; ++fields) {
    const int pitch = lab10::record_pitch(fields);
    ASSERT_GE(pitch, fields) << "record_pitch(" << fields << ") = " << pitch
                             << ": a record's fields must fit in its row";
    EXPECT_LE(pitch, lab10::kMaxFields + 1) << "record_pitch(" << fields << ") = " << pitch;
    int worst = 0;  // largest number of distinct words in one bank, over the fields
    for (int f = 0; f < fields; ++f) {
      std::array<int, 32> per_bank{};
      for (int lane = 0; lane < 32; ++lane) {
        worst = std::max(worst, ++per_bank[std::size_t((lane * pitch + f) % 32)]);
      }
    }
    EXPECT_EQ(worst, 1) << "record_pitch(" << fields << ") = " << pitch
                        << ": a warp reading field f of 32 consecutive records (words lane * "
                        << pitch << " + f) has a " << worst << "-way bank conflict";
    int least = fields;  // the smallest conflict-free pitch: the first odd one
    if (least % 2 == 0) ++least;
    EXPECT_EQ(pitch, least) << "record_pitch(" << fields << ") = " << pitch
                            << ": a smaller pitch is conflict-free too (padding costs memory)";
  }
}

// ===========================================================================
// GPU data: small integers (exact) and random floats (tolerance), from host or from a hash on
// the device for the large sets.
// ===========================================================================

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
constexpr float kTieX0 = 0.0f;

/// A float of record element @p e (any of 2^20 values, exact copies compare with ==).
__host__ __device__ inline float hashed_record(std::uint64_t salt, long long e) {
  return static_cast<float>(mix64(salt ^ (static_cast<std::uint64_t>(e) * 0x9E3779B97F4A7C15ull)) &
                            0xFFFFFu) *
         0.25f;
}

__global__ void grader_fill_field(float* base, long long stride, long long n, int field,
                                  std::uint64_t salt) {
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    base[i * stride] = hashed_value(salt, i, field);
  }
}

__global__ void grader_fill_records(float* aos, long long total, std::uint64_t salt) {
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += step) {
    aos[e] = hashed_record(salt, e);
  }
}

/// Reference count (one atomic per block): how many base[i * stride] < x0.
__global__ void grader_count(const float* base, long long stride, long long n, float x0,
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

constexpr unsigned kGraderBlocks = 2048;
constexpr unsigned kGraderThreads = 256;

void fill_field(float* base, long long stride, long long n, int field, std::uint64_t salt,
                cudaStream_t s) {
  grader_fill_field<<<kGraderBlocks, kGraderThreads, 0, s>>>(base, stride, n, field, salt);
  CUDA_CHECK_LAST_LAUNCH();
}

void fill_records(float* aos, long long total, std::uint64_t salt, cudaStream_t s) {
  grader_fill_records<<<kGraderBlocks, kGraderThreads, 0, s>>>(aos, total, salt);
  CUDA_CHECK_LAST_LAUNCH();
}

unsigned long long reference_count(const float* base, long long stride, long long n, float x0) {
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
std::uint64_t salt_for(std::uint64_t stream) {
  auto rng = cudalab::make_rng(stream);
  return rng() & 0xFFFFFFFFFFull;
}

// ===========================================================================
// GPU: the particle kernels, exact on small integers and close on random floats, for
// N = 1, 31, 33 (partial warps) and 10^6 + 7.
// ===========================================================================

/// Host particles: x, y, z, m.
struct HostParticles {
  std::vector<float> x, y, z, m;
};

HostParticles make_particles(int n, bool integers, std::uint64_t stream) {
  HostParticles h;
  auto rng = cudalab::make_rng(stream);
  std::uniform_int_distribution<int> small(-8, 8);
  std::uniform_real_distribution<float> real(-10.0f, 10.0f);
  for (std::vector<float>* v : {&h.x, &h.y, &h.z, &h.m}) {
    v->resize(std::size_t(n));
    for (float& e : *v) e = integers ? static_cast<float>(small(rng)) : real(rng);
  }
  for (float& e : h.m) e = std::fabs(e);
  return h;
}

std::vector<float> host_distance(const HostParticles& h, float3 c) {
  std::vector<float> out(h.x.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double dx = double(h.x[i]) - c.x, dy = double(h.y[i]) - c.y, dz = double(h.z[i]) - c.z;
    out[i] = static_cast<float>(double(h.m[i]) * (dx * dx + dy * dy + dz * dz));
  }
  return out;
}

std::vector<float> interleave4(const HostParticles& h) {
  std::vector<float> a(4 * h.x.size());
  for (std::size_t i = 0; i < h.x.size(); ++i) {
    a[4 * i] = h.x[i];
    a[4 * i + 1] = h.y[i];
    a[4 * i + 2] = h.z[i];
    a[4 * i + 3] = h.m[i];
  }
  return a;
}

// ---------------------------------------------------------------------------
// The grader's own baseline (given): the reference solution's count kernel, copied here with
// its launch, so that the stride ratios never divide by a kernel the student wrote (a student
// kernel slowed down at stride 4 or 32 would flatter its stride-1 run). The all-fields test
// keeps the student's SoA kernel beside the AoS4 one: both are judged against the copy.
// ---------------------------------------------------------------------------
__global__ void grader_baseline_count_kernel(const float* __restrict__ field, int stride, int n,
                                             float x0, unsigned int* __restrict__ count) {
  unsigned int mine = 0;
  const long long pass = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += pass) {
    mine += field[i * stride] < x0 ? 1u : 0u;  // NaN is not below anything
  }
  for (int offset = lab10::kWarpSize / 2; offset > 0; offset /= 2) {
    mine += __shfl_down_sync(0xFFFFFFFFu, mine, offset);
  }
  if (threadIdx.x % lab10::kWarpSize == 0 && mine != 0) atomicAdd(count, mine);
}

constexpr const char* kGraderCountKernel = "grader_baseline_count_kernel";

unsigned int grader_blocks_for(long long threads) {
  return static_cast<unsigned int>((threads + lab10::kPointThreads - 1) / lab10::kPointThreads);
}

/// The solution's count_below launch (zero *d_count, then a full GPU of resident blocks), with
/// the grader's kernel.
void grader_count_below(const float* d_field, int stride, int n, float x0, unsigned int* d_count,
                        cudaStream_t stream) {
  int device = 0;
  int sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const unsigned int blocks =
      std::min<unsigned int>(grader_blocks_for(n), static_cast<unsigned int>(sms) * 8u);
  CUDA_CHECK(cudaMemsetAsync(d_count, 0, sizeof(unsigned int), stream));
  grader_baseline_count_kernel<<<blocks, lab10::kPointThreads, 0, stream>>>(d_field, stride, n, x0,
                                                                            d_count);
  CUDA_CHECK_LAST_LAUNCH();
}

/// count_rules() for the grader's count.
GraphRules grader_count_rules(const unsigned int* d_count) {
  GraphRules rules = only_kernel(kGraderCountKernel);
  rules.expect_memset(d_count, sizeof(unsigned int), 0, "*d_count zeroed");
  return rules;
}

class PointsGpu : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { CUDALAB_REQUIRE_GPU(); }
  /// Two replays of @p cap: small integers (exact), then random floats (kFloatTolerance);
  /// @p load puts a data set behind the captured pointers. Then the launcher itself,
  /// @p launch(stream), twice more on the same buffers with new small integers
  /// (kit::expect_fresh_results_on_same_buffers: a launcher may not skip a repeated call).
  template <typename Load, typename Launch>
  void expect_two_data_sets(const CapturedWork& cap, cudalab::DeviceBuffer<float>& d_out,
                            const float3 c, Load load, Launch launch) {
    const int n = GetParam();
    for (const bool integers : {true, false}) {
      SCOPED_TRACE(integers ? "small-integer data (exact)" : "random floats (tolerance)");
      const HostParticles h = make_particles(n, integers, integers ? 11 : 12);
      load(h);
      cudalab::testing::poison(d_out.data(), d_out.bytes());
      cap.run();
      EXPECT_TRUE(cudalab::testing::matrices_match(host_distance(h, c), d_out.to_host(), 1, n,
                                                   integers ? 0.0 : kFloatTolerance));
    }
    if (HasFailure()) return;
    HostParticles h;
    kit::expect_fresh_results_on_same_buffers(
        "the launcher",
        [&](int round) {
          h = make_particles(n, true, 13 + std::uint64_t(round));
          load(h);
          cudalab::testing::poison(d_out.data(), d_out.bytes());
        },
        launch,
        [&](int) {
          EXPECT_TRUE(
              cudalab::testing::matrices_match(host_distance(h, c), d_out.to_host(), 1, n, 0.0));
        },
        2);
  }
};

TEST_P(PointsGpu, WeightedDistanceSoa) {
  const int n = GetParam();
  cudalab::DeviceBuffer<float> d_x(n), d_y(n), d_z(n), d_m(n), d_out(n);
  const float3 c{1.0f, -3.0f, 2.0f};
  const lab10::PointsSoA p{d_x.data(), d_y.data(), d_z.data(), d_m.data()};
  const CapturedWork cap = CapturedWork::capture(
      [&](cudaStream_t s) { lab10::weighted_distance_soa(p, c, d_out.data(), n, s); });
  ASSERT_TRUE(cap.holds_only(only_kernel(lab10::weighted_distance_soa_kernel())));
  expect_two_data_sets(
      cap, d_out, c,
      [&](const HostParticles& h) {
        d_x.upload(h.x);
        d_y.upload(h.y);
        d_z.upload(h.z);
        d_m.upload(h.m);
      },
      [&](cudaStream_t s) { lab10::weighted_distance_soa(p, c, d_out.data(), n, s); });
}

TEST_P(PointsGpu, WeightedDistanceAos4) {
  const int n = GetParam();
  cudalab::DeviceBuffer<float> d_p(4 * std::size_t(n)), d_out(n);
  const float3 c{-2.0f, 0.0f, 5.0f};
  const auto* p4 = reinterpret_cast<const float4*>(d_p.data());
  const CapturedWork cap = CapturedWork::capture(
      [&](cudaStream_t s) { lab10::weighted_distance_aos4(p4, c, d_out.data(), n, s); });
  ASSERT_TRUE(cap.holds_only(only_kernel(lab10::weighted_distance_aos4_kernel())));
  expect_two_data_sets(
      cap, d_out, c, [&](const HostParticles& h) { d_p.upload(interleave4(h)); },
      [&](cudaStream_t s) { lab10::weighted_distance_aos4(p4, c, d_out.data(), n, s); });
}

/// One count pattern: the field starts @p offset floats into the buffer, elements @p stride
/// floats apart.
struct CountPattern {
  int stride;
  int offset;
  const char* what;
};
const CountPattern kCountPatterns[] = {{1, 0, "SoA x (stride 1)"},
                                       {1, 1, "SoA x from x + 1 (misaligned)"},
                                       {3, 0, "AoS3 p.x (stride 3)"},
                                       {4, 0, "AoS4 p.x (stride 4)"},
                                       {32, 0, "stride 32"}};

TEST_P(PointsGpu, CountBelowIsExactAtEveryStride) {
  const int n = GetParam();
  for (const CountPattern& pat : kCountPatterns) {
    SCOPED_TRACE(std::string(pat.what) + ", n = " + std::to_string(n));
    const std::size_t floats = std::size_t(n) * pat.stride + pat.offset;
    cudalab::DeviceBuffer<float> d_buf(floats);
    cudalab::DeviceBuffer<unsigned int> d_count(1);
    float x0 = 0.0f;  // the capture takes x0 by value: one graph per threshold
    const auto capture = [&](float threshold) {
      x0 = threshold;
      return CapturedWork::capture([&](cudaStream_t s) {
        lab10::count_below(d_buf.data() + pat.offset, pat.stride, n, x0, d_count.data(), s);
      });
    };
    // Data set 1: small integers below 100 and a threshold above them all (count = n); the
    // floats between the elements are NaN, so reading one of them counts nothing.
    // Data set 2: random floats in [-1, 1] with some NaN elements, threshold 0.25, and every
    // 7th element (element 0 included) exactly 0.25: a tie, which is not below.
    // Data set 3: small integers below 100, threshold 50, every 5th element (element 0
    // included) exactly 50 besides the random ones that equal it: ties again.
    for (int set = 0; set < 3; ++set) {
      auto rng = cudalab::make_rng(20 + set);
      std::uniform_real_distribution<float> real(-1.0f, 1.0f);
      std::uniform_int_distribution<int> small(0, 99);
      std::vector<float> h(floats, std::numeric_limits<float>::quiet_NaN());
      unsigned long long want = 0;
      const float threshold = set == 0 ? 100.0f : set == 1 ? 0.25f : 50.0f;
      for (int i = 0; i < n; ++i) {
        float v = set == 1 ? real(rng) : float(small(rng));
        if (set == 1 && i % 97 == 5) v = std::numeric_limits<float>::quiet_NaN();
        if ((set == 1 && i % 7 == 0) || (set == 2 && i % 5 == 0)) v = threshold;  // a tie
        h[std::size_t(i) * pat.stride + pat.offset] = v;
        want += v < threshold ? 1 : 0;
      }
      const CapturedWork cap = capture(threshold);
      ASSERT_TRUE(cap.holds_only(count_rules(d_count.data())));
      d_buf.upload(h);
      cudalab::testing::poison(d_count.data(), d_count.bytes());
      cap.run();
      EXPECT_EQ(d_count.to_host()[0], want)
          << "count of elements < " << threshold << " (data set " << set + 1
          << (set == 0 ? ")" : ", with elements equal to the threshold: equal is not below)");
    }
    if (HasFailure()) return;
    // Same buffers, new data: count_below called directly twice more with the same pointer,
    // stride, n and threshold (50, with ties), new integers behind the pointer each time.
    unsigned long long want = 0;
    kit::expect_fresh_results_on_same_buffers(
        "count_below",
        [&](int round) {
          auto rng = cudalab::make_rng(30 + std::uint64_t(round));
          std::uniform_int_distribution<int> small(0, 99);
          std::vector<float> h(floats, std::numeric_limits<float>::quiet_NaN());
          want = 0;
          for (int i = 0; i < n; ++i) {
            const float v = i % 5 == 0 ? 50.0f : float(small(rng));
            h[std::size_t(i) * pat.stride + pat.offset] = v;
            want += v < 50.0f ? 1 : 0;
          }
          d_buf.upload(h);
          cudalab::testing::poison(d_count.data(), d_count.bytes());
        },
        [&](cudaStream_t s) {
          lab10::count_below(d_buf.data() + pat.offset, pat.stride, n, 50.0f, d_count.data(), s);
        },
        [&](int) { EXPECT_EQ(d_count.to_host()[0], want) << "count of elements < 50"; }, 2);
    if (HasFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, PointsGpu, ::testing::Values(1, 31, 33, 1000007),
                         [](const ::testing::TestParamInfo<int>& p) {
                           return "n" + std::to_string(p.param);
                         });

// The grader's baselines of the perf tests are themselves correct (not graded).
class GivenGraderBaselineGpu : public PointsGpu {};

TEST_P(GivenGraderBaselineGpu, CountBelowAtStrides4And32) {
  const int n = GetParam();
  constexpr float kX0 = kTieX0;  // about 1 in 17 elements equals it
  for (const int stride : {4, 32}) {
    SCOPED_TRACE("stride " + std::to_string(stride) + ", n = " + std::to_string(n));
    cudalab::DeviceBuffer<float> d_buf(std::size_t(n) * stride);
    cudalab::DeviceBuffer<unsigned int> d_count(1);
    d_buf.fill_bytes(0xFF);  // NaN between the elements: reading one of them counts nothing
    const CapturedWork cap = CapturedWork::capture([&](cudaStream_t s) {
      grader_count_below(d_buf.data(), stride, n, kX0, d_count.data(), s);
    });
    ASSERT_TRUE(cap.holds_only(grader_count_rules(d_count.data())));
    for (const std::uint64_t salt : {salt_for(70), salt_for(71)}) {
      fill_field(d_buf.data(), stride, n, 0, salt, nullptr);
      const unsigned long long want = reference_count(d_buf.data(), stride, n, kX0);
      cudalab::testing::poison(d_count.data(), d_count.bytes());
      cap.run();
      EXPECT_EQ(d_count.to_host()[0], want) << "count of elements < " << kX0;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, GivenGraderBaselineGpu, ::testing::Values(1, 31, 33, 1000007),
                         [](const ::testing::TestParamInfo<int>& p) {
                           return "n" + std::to_string(p.param);
                         });

// ---------------------------------------------------------------------------
// GPU: the tiled conversion, exact for N = 1, 31, 33, 10^6 + 7 and widths 1 ... 32.
// ---------------------------------------------------------------------------
/// A conversion of n records of `fields` floats: the AoS as an n x fields matrix (rows x cols).
using Conversion = kit::Extent;

const Conversion kConversions[] = {{1, 3},    {31, 3},   {33, 4},   {1000007, 3}, {257, 32},
                                   {1000, 1}, {4097, 2}, {300, 31}, {100003, 8},  {1000007, 5}};

std::vector<float> host_soa(const std::vector<float>& aos, int n, int fields) {
  std::vector<float> soa(aos.size());
  for (int i = 0; i < n; ++i) {
    for (int f = 0; f < fields; ++f) {
      soa[std::size_t(f) * n + i] = aos[std::size_t(i) * fields + f];
    }
  }
  return soa;
}

class ConversionGpu : public ::testing::TestWithParam<Conversion> {};

TEST_P(ConversionGpu, TiledIsExact) {
  CUDALAB_REQUIRE_GPU();
  const int n = GetParam().rows, fields = GetParam().cols;
  const std::size_t count = std::size_t(n) * fields;
  cudalab::DeviceBuffer<float> d_aos(count), d_soa(count);
  const CapturedWork cap = CapturedWork::capture(
      [&](cudaStream_t s) { lab10::aos_to_soa_tiled(d_aos.data(), d_soa.data(), n, fields, s); });
  ASSERT_TRUE(cap.holds_only(only_kernel(lab10::aos_to_soa_tiled_kernel())));
  for (int run = 0; run < 2; ++run) {  // new data each time; a race may also hide in one run
    SCOPED_TRACE("replay " + std::to_string(run + 1) + " of the captured launch");
    auto rng = cudalab::make_rng(30 + run);
    std::uniform_real_distribution<float> real(-1e3f, 1e3f);
    std::vector<float> aos(count);
    for (float& v : aos) v = real(rng);
    d_aos.upload(aos);
    cudalab::testing::poison(d_soa.data(), d_soa.bytes());
    cudalab::testing::poison_shared_memory();
    cap.run();
    EXPECT_TRUE(
        cudalab::testing::matrices_match(host_soa(aos, n, fields), d_soa.to_host(), fields, n, 0.0))
        << "soa as a fields x n matrix: row f is field f of every record";
  }
  if (HasFailure()) return;
  // Same buffers, new data: the launcher called directly twice more with the same pointers
  // and sizes, new records behind them.
  std::vector<float> aos(count);
  kit::expect_fresh_results_on_same_buffers(
      "aos_to_soa_tiled",
      [&](int round) {
        auto rng = cudalab::make_rng(40 + std::uint64_t(round));
        std::uniform_real_distribution<float> real(-1e3f, 1e3f);
        for (float& v : aos) v = real(rng);
        d_aos.upload(aos);
        cudalab::testing::poison(d_soa.data(), d_soa.bytes());
      },
      [&](cudaStream_t s) { lab10::aos_to_soa_tiled(d_aos.data(), d_soa.data(), n, fields, s); },
      [&](int) {
        EXPECT_TRUE(cudalab::testing::matrices_match(host_soa(aos, n, fields), d_soa.to_host(),
                                                     fields, n, 0.0));
      },
      2);
}

INSTANTIATE_TEST_SUITE_P(Shapes, ConversionGpu, ::testing::ValuesIn(kConversions), kit::shape_name);

TEST(GivenNaiveConversionGpu, NaiveIsExact) {
  CUDALAB_REQUIRE_GPU();
  for (const Conversion c : {Conversion{33, 3}, Conversion{1000, 32}, Conversion{4097, 2}}) {
    const int n = c.rows, fields = c.cols;
    const std::size_t count = std::size_t(n) * fields;
    std::vector<float> aos(count);
    for (std::size_t e = 0; e < count; ++e) aos[e] = float(e % 1009) - 500.0f;
    const auto d_aos = cudalab::DeviceBuffer(aos);
    cudalab::DeviceBuffer<float> d_soa(count);
    d_soa.fill_bytes(0xFF);
    lab10::aos_to_soa_naive(d_aos.data(), d_soa.data(), n, fields);
    EXPECT_TRUE(cudalab::testing::matrices_match(host_soa(aos, n, fields), d_soa.to_host(), fields,
                                                 n, 0.0));
  }
}

// ---------------------------------------------------------------------------
// Range edges: element indices and byte offsets past 2^31 (an int product overflows).
// ---------------------------------------------------------------------------
TEST(CountRangeGpu, ElementIndexPastTwoToThe31) {
  CUDALAB_REQUIRE_GPU();
  constexpr int kStride = 1 << 16;
  constexpr int kN = (1 << 15) + 5;  // last element index (kN - 1) * kStride > 2^31
  const std::size_t floats = std::size_t(kN - 1) * kStride + 1;
  CUDALAB_REQUIRE_FREE_MEMORY(floats * sizeof(float));
  cudalab::DeviceBuffer<float> d_buf(floats);
  cudalab::DeviceBuffer<unsigned int> d_count(1);
  const CapturedWork cap = CapturedWork::capture([&](cudaStream_t s) {
    lab10::count_below(d_buf.data(), kStride, kN, kTieX0, d_count.data(), s);
  });
  ASSERT_TRUE(cap.holds_only(count_rules(d_count.data())));
  d_buf.fill_bytes(0xFF);  // NaN between the elements
  const std::uint64_t salt = salt_for(40);
  fill_field(d_buf.data(), kStride, kN, 0, salt, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  unsigned long long want = 0;
  for (int i = 0; i < kN; ++i) want += hashed_value(salt, i, 0) < kTieX0 ? 1 : 0;
  cudalab::testing::poison(d_count.data(), d_count.bytes());
  cap.run();
  EXPECT_EQ(d_count.to_host()[0], want)
      << kN << " elements " << kStride << " floats apart: the last one is element "
      << (long long)(kN - 1) * kStride << " (> 2^31): compute i * stride in 64 bits";
}

TEST(ConversionRangeGpu, OffsetsPastTwoToThe31) {
  CUDALAB_REQUIRE_GPU();
  constexpr int kFields = 4;
  constexpr int kN = (1 << 29) + 5;  // kN * kFields floats > 2^31: int offsets overflow
  const std::size_t count = std::size_t(kN) * kFields;
  CUDALAB_REQUIRE_FREE_MEMORY(2 * count * sizeof(float));
  cudalab::DeviceBuffer<float> d_aos(count), d_soa(count);
  const CapturedWork cap = CapturedWork::capture(
      [&](cudaStream_t s) { lab10::aos_to_soa_tiled(d_aos.data(), d_soa.data(), kN, kFields, s); });
  ASSERT_TRUE(cap.holds_only(only_kernel(lab10::aos_to_soa_tiled_kernel())));
  const std::uint64_t salt = salt_for(41);
  fill_records(d_aos.data(), static_cast<long long>(count), salt, nullptr);
  cudalab::testing::poison(d_soa.data(), d_soa.bytes());
  cudalab::testing::poison_shared_memory();
  cap.run();
  const DeviceVerdict v = device_verdict([&](unsigned long long* bad, unsigned long long* first) {
    grader_check_soa<<<kGraderBlocks, kGraderThreads>>>(d_soa.data(), kN, kFields,
                                                        HashedRecords{salt}, bad, first);
  });
  EXPECT_EQ(v.bad, 0u) << v.bad << " wrong elements of " << count << ", the first at soa["
                       << v.first << "] (" << kN << " records of " << kFields
                       << " floats: offsets pass 2^31, compute them in 64 bits)";
}

// ---------------------------------------------------------------------------
// The launches the profiler test measures, in a fixed order, each checked.
// ---------------------------------------------------------------------------

/// A profiled launch: which kernel, and the pattern of its global loads for the model.
struct Profiled {
  const char* what;
  cudalab::KernelInfo (*kernel)();
  std::uint64_t stride_bytes;
  int access_bytes;
  std::uint64_t base_byte;
  bool any_vector_width;  // consecutive loads of 4, 8 or 16 bytes are all fine (the tile loads)
};

constexpr int kProfiledN = 1 << 20;      // particles / elements of the profiled launches
constexpr int kProfiledWideN = 1 << 16;  // records of 32 floats

const Profiled kProfiled[] = {
    {"count: SoA x, stride 1", lab10::count_below_kernel, 4, 4, 0, false},
    {"count: SoA x from x + 1 (misaligned)", lab10::count_below_kernel, 4, 4, 4, false},
    {"count: AoS3 p.x, stride 3", lab10::count_below_kernel, 12, 4, 0, false},
    {"count: AoS4 p.x, stride 4", lab10::count_below_kernel, 16, 4, 0, false},
    {"count: stride 8", lab10::count_below_kernel, 32, 4, 0, false},
    {"count: stride 32", lab10::count_below_kernel, 128, 4, 0, false},
    {"weighted distance: SoA", lab10::weighted_distance_soa_kernel, 4, 4, 0, false},
    {"weighted distance: AoS4", lab10::weighted_distance_aos4_kernel, 16, 16, 0, false},
    {"tiled conversion: 3 fields", lab10::aos_to_soa_tiled_kernel, 4, 4, 0, true},
    {"tiled conversion: 32 fields", lab10::aos_to_soa_tiled_kernel, 4, 4, 0, true},
    {"naive conversion (given): 3 fields", lab10::aos_to_soa_naive_kernel, 12, 4, 0, false},
    {"naive conversion (given): 32 fields", lab10::aos_to_soa_naive_kernel, 128, 4, 0, false},
};

TEST(PatternsGpu, EveryProfiledLaunchIsCorrect) {
  CUDALAB_REQUIRE_GPU();
  const int n = kProfiledN;
  const std::uint64_t salt = salt_for(50);
  // Counts: one buffer of n * 32 + 1 floats, the field written where each pattern reads it.
  cudalab::DeviceBuffer<float> d_buf(std::size_t(n) * 32 + 1);
  cudalab::DeviceBuffer<unsigned int> d_count(1);
  const struct { int stride, offset; } counts[] = {{1, 0}, {1, 1}, {3, 0}, {4, 0}, {8, 0}, {32, 0}};
  for (const auto& c : counts) {
    SCOPED_TRACE("count, stride " + std::to_string(c.stride) + ", offset " +
                 std::to_string(c.offset));
    fill_field(d_buf.data() + c.offset, c.stride, n, 0, salt, nullptr);
    const unsigned long long want = reference_count(d_buf.data() + c.offset, c.stride, n, kTieX0);
    lab10::count_below(d_buf.data() + c.offset, c.stride, n, kTieX0, d_count.data());
    EXPECT_EQ(d_count.to_host()[0], want);
  }
  // Weighted distance, SoA then AoS4 (the same particles).
  {
    cudalab::DeviceBuffer<float> d_soa(4 * std::size_t(n)), d_aos(4 * std::size_t(n)), d_out(n);
    for (int f = 0; f < 4; ++f) {
      fill_field(d_soa.data() + std::size_t(f) * n, 1, n, f, salt, nullptr);
      fill_field(d_aos.data() + f, 4, n, f, salt, nullptr);
    }
    const float3 c{1.0f, 2.0f, -1.0f};
    const lab10::PointsSoA p{d_soa.data(), d_soa.data() + n, d_soa.data() + 2 * std::size_t(n),
                             d_soa.data() + 3 * std::size_t(n)};
    for (int layout = 0; layout < 2; ++layout) {
      d_out.fill_bytes(0xFF);
      if (layout == 0) {
        lab10::weighted_distance_soa(p, c, d_out.data(), n);
      } else {
        lab10::weighted_distance_aos4(reinterpret_cast<const float4*>(d_aos.data()), c,
                                      d_out.data(), n);
      }
      const DeviceVerdict v = device_verdict([&](auto* bad, auto* first) {
        grader_check_distance<<<kGraderBlocks, kGraderThreads>>>(d_out.data(), n, c,
                                                                 HashedParticles{salt}, bad, first);
      });
      EXPECT_EQ(v.bad, 0u) << (layout ? "AoS4" : "SoA") << ": first wrong distance at " << v.first;
    }
  }
  // Conversions: tiled 3 and 32 fields, then the naive ones.
  for (const bool tiled : {true, false}) {
    for (const auto& shape : {std::pair{n, 3}, std::pair{kProfiledWideN, 32}}) {
      const int records = shape.first, fields = shape.second;
      const long long total = static_cast<long long>(records) * fields;
      cudalab::DeviceBuffer<float> d_aos(total), d_soa(total);
      fill_records(d_aos.data(), total, salt, nullptr);
      d_soa.fill_bytes(0xFF);
      if (tiled) {
        cudalab::testing::poison_shared_memory();
        lab10::aos_to_soa_tiled(d_aos.data(), d_soa.data(), records, fields);
      } else {
        lab10::aos_to_soa_naive(d_aos.data(), d_soa.data(), records, fields);
      }
      const DeviceVerdict v = device_verdict([&](auto* bad, auto* first) {
        grader_check_soa<<<kGraderBlocks, kGraderThreads>>>(d_soa.data(), records, fields,
                                                            HashedRecords{salt}, bad, first);
      });
      EXPECT_EQ(v.bad, 0u) << (tiled ? "tiled" : "naive") << " conversion, " << fields
                           << " fields: first wrong element soa[" << v.first << "]";
    }
  }
}

// ---------------------------------------------------------------------------
// Profiler: Nsight Compute's sectors per global-load request against your model, for every
// kernel; and the tiled conversion's shared-memory reads conflict-free (one wavefront each).
// ---------------------------------------------------------------------------
TEST(SectorsProfiler, SectorsPerRequestMatchYourModel) {
  CUDALAB_REQUIRE_GPU();
  const std::string sectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
  const std::string requests = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum";
  const std::string wavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
  const std::string shared_loads = "smsp__sass_inst_executed_op_shared_ld.sum";
  std::string kernels;  // every kernel of kProfiled, as a regex alternation
  for (const cudalab::KernelInfo& k :
       {lab10::count_below_kernel(), lab10::weighted_distance_soa_kernel(),
        lab10::weighted_distance_aos4_kernel(), lab10::aos_to_soa_tiled_kernel(),
        lab10::aos_to_soa_naive_kernel()}) {
    kernels += (kernels.empty() ? "" : "|") + std::string(k.name);
  }
  const cudalab::testing::NcuRun run =
      cudalab::testing::run_ncu({sectors, requests, wavefronts, shared_loads}, kernels,
                                "PatternsGpu.EveryProfiledLaunchIsCorrect");
  if (!run.available) GTEST_SKIP() << run.skip_reason;
  ASSERT_EQ(run.exit_code, 0) << cudalab::testing::excerpt(run.output);
  constexpr std::size_t kLaunches = sizeof(kProfiled) / sizeof(kProfiled[0]);
  ASSERT_EQ(run.kernels.size(), kLaunches) << "expected one profiled launch per pattern:\n"
                                           << cudalab::testing::excerpt(run.output);
  for (std::size_t i = 0; i < kLaunches; ++i) {
    const Profiled& p = kProfiled[i];
    const cudalab::testing::KernelMetrics& k = run.kernels[i];
    const char* kernel = p.kernel().name;
    SCOPED_TRACE(std::string(p.what) + " (" + k.name + ")");
    ASSERT_NE(k.name.find(kernel), std::string::npos) << "launch " << i << " should be " << kernel;
    const auto s = k.values.find(sectors), r = k.values.find(requests);
    ASSERT_TRUE(s != k.values.end() && r != k.values.end() && r->second > 0)
        << "no global-load requests measured";
    const double measured = s->second / r->second;
    std::vector<int> model;
    for (const int w :
         p.any_vector_width ? std::vector<int>{4, 8, 16} : std::vector<int>{p.access_bytes}) {
      const std::uint64_t stride = p.any_vector_width ? std::uint64_t(w) : p.stride_bytes;
      model.push_back(lab10::sectors_touched(lab10::strided_request(stride, w, p.base_byte)));
    }
    bool close = false;
    for (const int m : model) close = close || std::fabs(measured - m) <= 0.1 * m;
    std::string name = p.what;
    std::replace(name.begin(), name.end(), ' ', '_');
    cudalab::testing::record_measurement(name + "_sectors_per_request", measured, "sectors");
    std::printf("[ NCU      ] %-40s %6.2f sectors/request, your model %d\n", p.what, measured,
                model[0]);
    EXPECT_TRUE(close) << "ncu measures " << measured << " sectors per request, your model says "
                       << model[0]
                       << (model.size() > 1 ? " (or the same for 8- or 16-byte loads)" : "")
                       << " (tolerance 10 %)";
    if (p.kernel == lab10::aos_to_soa_tiled_kernel && i == 9) {  // 32 fields
      const auto w = k.values.find(wavefronts), l = k.values.find(shared_loads);
      ASSERT_TRUE(w != k.values.end() && l != k.values.end() && l->second > 0)
          << "no shared-memory loads measured in the tiled conversion";
      const double per_load = w->second / l->second;
      cudalab::testing::record_measurement("tiled_32_fields_wavefronts_per_shared_load", per_load,
                                           "wavefronts", 1.1, cudalab::testing::Bound::kAtMost);
      EXPECT_LE(per_load, 1.1) << "the tile's reads need " << per_load
                               << " wavefronts per shared load (1 = conflict-free): the kernel "
                                  "must index the tile with record_pitch()";
    }
  }
}

// ---------------------------------------------------------------------------
// Sanitizers: the tiled conversion (shared memory, a barrier) on small shapes with partial tiles;
// the particle kernels under memcheck at N = 31 and 33 (reads past the end).
// ---------------------------------------------------------------------------
constexpr const char* kConversionSanitized =
    "Shapes/ConversionGpu.*/31x3:Shapes/ConversionGpu.*/257x32:Shapes/ConversionGpu.*/300x31";
constexpr const char* kPointsSanitized = "Sizes/PointsGpu.*/n31:Sizes/PointsGpu.*/n33";

CUDALAB_SANITIZER_SUITE(ConversionSanitizer, kConversionSanitized, racecheck, synccheck, memcheck)
CUDALAB_SANITIZER_SUITE(PointsSanitizer, kPointsSanitized, memcheck)

// ---------------------------------------------------------------------------
// Perf. Every input alternates between two data sets hashed on the device
// (cudalab::testing::AlternatingInput): before every timed run, of the baseline and of the
// candidate alike, an untimed copy puts the next set behind the input pointer with about sqrt(n)
// elements replaced at positions drawn for that run, and the run's output is poisoned; so
// no run can be satisfied by a remembered result. The last timed outputs are checked in full on
// the device against exactly the input of their run (rebuilt there by last_input_to()).
// ---------------------------------------------------------------------------
namespace t = cudalab::testing;

/// Two data sets of @p elements floats, zeroed and then written by @p fill(buffer, salt,
/// stream) with salts @p salt0 and another, alternating behind one live buffer.
template <typename Fill>
t::AlternatingInput<float> hashed_sets(std::size_t elements, std::uint64_t salt0, Fill fill) {
  cudalab::DeviceBuffer<float> sets[2] = {cudalab::DeviceBuffer<float>(elements),
                                          cudalab::DeviceBuffer<float>(elements)};
  for (int i = 0; i < 2; ++i) {
    sets[i].fill_bytes(0);  // what a strided field skips
    fill(sets[i].data(), salt0 + std::uint64_t(i) * 0x10000000000ull, nullptr);
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  return t::AlternatingInput<float>(std::move(sets[0]), std::move(sets[1]));
}

/// The untimed step before a timed run: the next input of @p in, and @p bytes of @p out
/// poisoned.
cudalab::GpuWork next_run(t::AlternatingInput<float>& in, void* out, std::size_t bytes) {
  return [&in, out, bytes](cudaStream_t s) {
    in.copy_next(s);
    t::poison(out, bytes, s);
  };
}

/// What the last run of @p in read, rebuilt on the device.
cudalab::DeviceBuffer<float> last_input_on_device(const t::AlternatingInput<float>& in) {
  cudalab::DeviceBuffer<float> last(in.live.size());
  in.last_input_to(last.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  return last;
}

/// Records @p gbps and judges it as a share of a device-to-device copy and against the DRAM
/// ceiling ("impossible" above it).
void judge_bandwidth(double gbps, double copy_gbps, const std::string& what) {
  cudalab::testing::record_measurement(what + "_gbps", gbps, "GB/s");
  cudalab::testing::expect_possible(gbps, cudalab::device_ceilings().dram_gbps, "GB/s",
                                    what + " (DRAM peak)");
  cudalab::testing::expect_share(gbps, copy_gbps, "GB/s",
                                 what + " useful bytes/s vs a device-to-device copy");
}

class PointsPerf : public ::testing::Test {
 protected:
  void SetUp() override { CUDALAB_REQUIRE_GPU(); }
};

/// Count launches of a field (stride floats apart) with their own count buffer, over an
/// alternating input of hashed data sets.
struct CountCase {
  t::AlternatingInput<float> in;
  cudalab::DeviceBuffer<unsigned int> count{1};
  int stride;
  int n;
  CountCase(int stride_, int n_, std::uint64_t salt)
      : in(hashed_sets(std::size_t(n_) * stride_, salt,
                       [stride_, n_](float* b, std::uint64_t s, cudaStream_t st) {
                         fill_field(b, stride_, n_, 0, s, st);
                       })),
        stride(stride_),
        n(n_) {}
  CapturedWork capture(float x0) {
    return CapturedWork::capture([this, x0](cudaStream_t s) {
      lab10::count_below(in.live.data(), stride, n, x0, count.data(), s);
    });
  }
  /// The grader's count (the baseline of a ratio) on this case.
  CapturedWork capture_grader(float x0) {
    return CapturedWork::capture([this, x0](cudaStream_t s) {
      grader_count_below(in.live.data(), stride, n, x0, count.data(), s);
    });
  }
  /// The untimed step before each timed run: the count of the run before it is kept with the
  /// grader's count of the input it read (still live), then the next input, the count
  /// poisoned. A count is one number: every run's is checked, not only the last's.
  cudalab::GpuWork next_run(float x0) {
    return [this, x0](cudaStream_t s) {
      if (kept < kKept) {
        CUDA_CHECK(cudaMemcpyAsync(got.data() + kept, count.data(), sizeof(unsigned int),
                                   cudaMemcpyDeviceToDevice, s));
        CUDA_CHECK(cudaMemsetAsync(want.data() + kept, 0, sizeof(unsigned long long), s));
        grader_count<<<kGraderBlocks, kGraderThreads, 0, s>>>(in.live.data(), stride, n, x0,
                                                              want.data() + kept);
        CUDA_CHECK_LAST_LAUNCH();
        ++kept;
      }
      ::next_run(in, count.data(), count.bytes())(s);
    };
  }
  /// Checks every kept count, and the last against the reference count of exactly the input
  /// its run read.
  void expect_counts(float x0, const std::string& what) {
    const std::vector<unsigned int> h_got = got.to_host();
    const std::vector<unsigned long long> h_want = want.to_host();
    for (int i = 0; i < kept; ++i) {
      EXPECT_EQ(h_got[std::size_t(i)], h_want[std::size_t(i)])
          << what << ": the count of run " << i << " (warm-up last, then timed) is wrong";
    }
    const cudalab::DeviceBuffer<float> last = last_input_on_device(in);
    EXPECT_EQ(count.to_host()[0], reference_count(last.data(), stride, n, x0))
        << what << ": the last timed count is wrong (input set " << in.last()
        << " with that run's changed elements)";
  }
  static constexpr int kKept = 64;  ///< more than the runs of a timing
  cudalab::DeviceBuffer<unsigned int> got{kKept};
  cudalab::DeviceBuffer<unsigned long long> want{kKept};
  int kept = 0;
};

/// Times the baseline and candidate counts interleaved, each on its own alternating input.
cudalab::Comparison time_counts(CountCase& base, const CapturedWork& cap_base, CountCase& cand,
                                const CapturedWork& cap_cand, float x0) {
  cudalab::BenchOptions bo;
  bo.before_baseline = base.next_run(x0);
  bo.before_candidate = cand.next_run(x0);
  return cudalab::compare(cap_base.as_work(), cap_cand.as_work(), bo);
}

TEST_F(PointsPerf, XOnlySoaIsFasterThanAos4) {
  constexpr int kN = 1 << 26;
  constexpr float kX0 = kTieX0;  // about 1 in 17 elements equals it
  CountCase soa(1, kN, salt_for(60)), aos4(4, kN, salt_for(64));
  const CapturedWork cap_soa = soa.capture(kX0), cap_aos4 = aos4.capture_grader(kX0);
  ASSERT_TRUE(cap_soa.holds_only(count_rules(soa.count.data())));
  ASSERT_TRUE(cap_aos4.holds_only(grader_count_rules(aos4.count.data())));
  const cudalab::Comparison cmp = time_counts(aos4, cap_aos4, soa, cap_soa, kX0);
  aos4.expect_counts(kX0, "AoS4 p.x (stride 4)");
  soa.expect_counts(kX0, "SoA x (stride 1)");
  const double copy = cudalab::testing::d2d_copy_gbps(std::size_t(kN) * sizeof(float));
  judge_bandwidth(4.0 * kN / (cmp.candidate.median_ms * 1e6), copy, "count_soa");
  cudalab::testing::expect_speedup(cmp, "x-only count: SoA x (stride 1) vs AoS4 p.x (stride 4)");
}

TEST_F(PointsPerf, StrideOneIsFasterThanStride32) {
  constexpr int kN = 1 << 25;
  constexpr float kX0 = kTieX0;  // about 1 in 17 elements equals it
  CountCase strided(32, kN, salt_for(61)), dense(1, kN, salt_for(65));
  const CapturedWork cap_strided = strided.capture_grader(kX0), cap_dense = dense.capture(kX0);
  ASSERT_TRUE(cap_strided.holds_only(grader_count_rules(strided.count.data())));
  ASSERT_TRUE(cap_dense.holds_only(count_rules(dense.count.data())));
  const cudalab::Comparison cmp = time_counts(strided, cap_strided, dense, cap_dense, kX0);
  strided.expect_counts(kX0, "stride 32");
  dense.expect_counts(kX0, "stride 1");
  cudalab::testing::record_measurement("stride32_ms", cmp.baseline.median_ms, "ms");
  cudalab::testing::expect_speedup(cmp,
                                   "x-only count: stride 1 vs stride 32 (a float per 128 bytes)");
}

TEST_F(PointsPerf, AllFieldsAos4KeepsPaceWithSoa) {
  constexpr int kN = 1 << 25;
  const float3 c{1.0f, -1.0f, 2.0f};
  const std::uint64_t salt = salt_for(62);
  t::AlternatingInput<float> soa_in =
      hashed_sets(4 * std::size_t(kN), salt, [](float* b, std::uint64_t s, cudaStream_t st) {
        for (int f = 0; f < 4; ++f) fill_field(b + std::size_t(f) * kN, 1, kN, f, s, st);
      });
  t::AlternatingInput<float> aos_in =
      hashed_sets(4 * std::size_t(kN), salt, [](float* b, std::uint64_t s, cudaStream_t st) {
        for (int f = 0; f < 4; ++f) fill_field(b + f, 4, kN, f, s, st);
      });
  cudalab::DeviceBuffer<float> d_out_soa(kN), d_out_aos(kN);
  float* const soa = soa_in.live.data();
  const lab10::PointsSoA p{soa, soa + kN, soa + 2 * std::size_t(kN), soa + 3 * std::size_t(kN)};
  const auto* p4 = reinterpret_cast<const float4*>(aos_in.live.data());
  const CapturedWork cap_soa = CapturedWork::capture(
      [&](cudaStream_t s) { lab10::weighted_distance_soa(p, c, d_out_soa.data(), kN, s); });
  const CapturedWork cap_aos = CapturedWork::capture(
      [&](cudaStream_t s) { lab10::weighted_distance_aos4(p4, c, d_out_aos.data(), kN, s); });
  ASSERT_TRUE(cap_soa.holds_only(only_kernel(lab10::weighted_distance_soa_kernel())));
  ASSERT_TRUE(cap_aos.holds_only(only_kernel(lab10::weighted_distance_aos4_kernel())));
  cudalab::BenchOptions bo;
  bo.before_baseline = next_run(soa_in, d_out_soa.data(), d_out_soa.bytes());
  bo.before_candidate = next_run(aos_in, d_out_aos.data(), d_out_aos.bytes());
  const cudalab::Comparison cmp = cudalab::compare(cap_soa.as_work(), cap_aos.as_work(), bo);
  // field f of particle i at in[f * field_step + i * stride]
  for (const auto& check : {std::tuple{&d_out_soa, &soa_in, kN, 1, "SoA"},
                            std::tuple{&d_out_aos, &aos_in, 1, 4, "AoS4"}}) {
    const float* out = std::get<0>(check)->data();
    const t::AlternatingInput<float>& in = *std::get<1>(check);
    const cudalab::DeviceBuffer<float> last = last_input_on_device(in);
    const DeviceVerdict v = device_verdict([&](auto* bad, auto* first) {
      grader_check_distance<<<kGraderBlocks, kGraderThreads>>>(
          out, kN, c, ParticlesAt{last.data(), std::get<2>(check), std::get<3>(check)}, bad, first);
    });
    EXPECT_EQ(v.bad, 0u) << std::get<4>(check) << ": the last timed output is wrong from index "
                         << v.first << " (input set " << in.last()
                         << " with that run's changed elements)";
  }
  const double copy = cudalab::testing::d2d_copy_gbps(std::size_t(kN) * 4 * sizeof(float));
  const double bytes = 5.0 * sizeof(float) * kN;  // 4 floats read, 1 written per particle
  judge_bandwidth(bytes / (cmp.baseline.median_ms * 1e6), copy, "distance_soa");    // "share"
  judge_bandwidth(bytes / (cmp.candidate.median_ms * 1e6), copy, "distance_aos4");  // "share#2"
  // A two-sided band: neither layout may be much slower than the other when every field is used.
  const double scale = cudalab::speedup_scale();
  using cudalab::testing::Bound;
  const double band_low = cudalab::testing::speed_bar("speedup", Bound::kAtLeast, cmp.speedup);
  const double band_high =
      cudalab::testing::speed_bar("speedup_upper_bound", Bound::kAtMost, cmp.speedup);
  const double low = band_low * scale, high = band_high / scale;
  char text[300];
  std::snprintf(text, sizeof text,
                "all fields: AoS4 vs SoA speedup %.3fx, needs %.2fx .. %.2fx (band %.2f .. %.2f, "
                "CUDALAB_SPEEDUP_SCALE %.2f)",
                cmp.speedup, low, high, band_low, band_high, scale);
  std::printf("[ SPEED    ] %s\n", text);
  cudalab::testing::record_measurement("speedup", cmp.speedup, "x", low,
                                       cudalab::testing::Bound::kAtLeast);
  cudalab::testing::record_measurement("speedup_upper_bound", cmp.speedup, "x", high,
                                       cudalab::testing::Bound::kAtMost);
  EXPECT_GE(cmp.speedup, low) << text << ": the AoS4 kernel is too slow";
  EXPECT_LE(cmp.speedup, high) << text << ": the SoA kernel is too slow";
}

TEST(ConversionPerf, TiledIsFasterThanNaive) {
  CUDALAB_REQUIRE_GPU();
  constexpr int kN = (1 << 27) / kPerfFields;  // 512 MiB of records
  const long long total = static_cast<long long>(kN) * kPerfFields;
  // Both conversions read one alternating input (each run its own changes) into their own
  // output.
  t::AlternatingInput<float> in = hashed_sets(
      std::size_t(total), salt_for(63),
      [total](float* b, std::uint64_t s, cudaStream_t st) { fill_records(b, total, s, st); });
  cudalab::DeviceBuffer<float> d_soa(total), d_soa_base(total);
  const CapturedWork cap_naive = CapturedWork::capture([&](cudaStream_t s) {
    lab10::aos_to_soa_naive(in.live.data(), d_soa_base.data(), kN, kPerfFields, s);
  });
  const CapturedWork cap_tiled = CapturedWork::capture([&](cudaStream_t s) {
    lab10::aos_to_soa_tiled(in.live.data(), d_soa.data(), kN, kPerfFields, s);
  });
  ASSERT_TRUE(cap_naive.holds_only(only_kernel(lab10::aos_to_soa_naive_kernel())));
  ASSERT_TRUE(cap_tiled.holds_only(only_kernel(lab10::aos_to_soa_tiled_kernel())));
  cudalab::BenchOptions bo;
  bo.before_baseline = next_run(in, d_soa_base.data(), d_soa_base.bytes());
  bo.before_candidate = next_run(in, d_soa.data(), d_soa.bytes());
  const cudalab::Comparison cmp = cudalab::compare(cap_naive.as_work(), cap_tiled.as_work(), bo);
  {
    const cudalab::DeviceBuffer<float> last = last_input_on_device(in);
    const DeviceVerdict v = device_verdict([&](auto* bad, auto* first) {
      grader_check_soa<<<kGraderBlocks, kGraderThreads>>>(d_soa.data(), kN, kPerfFields,
                                                          RecordsAt{last.data()}, bad, first);
    });
    EXPECT_EQ(v.bad, 0u) << "the last timed conversion is wrong from soa[" << v.first
                         << "] (input set " << in.last() << " with that run's changed elements)";
  }
  const double copy = cudalab::testing::d2d_copy_gbps(std::size_t(total) * sizeof(float));
  judge_bandwidth(2.0 * sizeof(float) * total / (cmp.candidate.median_ms * 1e6), copy,
                  "tiled_conversion");
  cudalab::testing::record_measurement("naive_ms", cmp.baseline.median_ms, "ms");
  cudalab::testing::expect_speedup(cmp, "AoS -> SoA, " + std::to_string(kPerfFields) +
                                            " fields: tiled vs the naive strided copy");
}

// ---------------------------------------------------------------------------
// The technique in the machine code (cuobjdump -sass of this grader, no GPU): the tiled
// conversion stages its records in shared memory behind a barrier. The naive strided copy
// under the tiled name has no STS/LDS.
// ---------------------------------------------------------------------------
TEST(ConversionSassCpu, TiledKernelStagesItsRecordsInSharedMemory) {
  using cudalab::kit::sass_requires;
  kit::expect_sass(
      lab10::aos_to_soa_tiled_kernel(),
      {sass_requires({"STS"}, "the tile of records must be stored to shared memory (no STS)"),
       sass_requires({"LDS"}, "the fields must be read back from shared memory (no LDS)"),
       sass_requires({"BAR.SYNC"},
                     "the block must wait at a barrier (__syncthreads) before "
                     "reading records other threads staged")});
}

}  // namespace
