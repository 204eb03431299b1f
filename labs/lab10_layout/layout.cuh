// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file layout.cuh
 * @brief Lab 10 interface: global-memory layout. A host model of the 32-byte sectors one warp
 *        request touches; kernels over N particles (position x, y, z and mass m) stored as a
 *        structure of arrays (SoA) or an array of float4 structures (AoS); an "x only" count
 *        that reads one field through any stride; and the conversion of an array of records
 *        (K floats each) into one array per field, tiled through padded shared memory.
 *
 * Layouts of N particles (all device pointers):
 * - SoA:  four arrays x[N], y[N], z[N], m[N] (PointsSoA);
 * - AoS4: one array of float4 {x, y, z, w = m}, 16 bytes per particle;
 * - AoS3: one array of float3 {x, y, z}, 12 bytes per particle (the x-only count reads it).
 * Records for the conversion: aos[i * fields + f] is field f of record i; the result is
 * soa[f * n + i].
 *
 * Launchers enqueue on @p stream, check the launch, never synchronize, and throw
 * std::invalid_argument for bad sizes or null pointers. Background and grading:
 * labs/lab10_layout/README.md.
 */
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <stdexcept>

#include "cudalab/launch_checks.hpp"

namespace lab10 {

// ---------------------------------------------------------------------------
// The sector model (host, sector_model.cpp)
// ---------------------------------------------------------------------------

/// Lanes of a warp.
inline constexpr int kWarpSize = 32;
/// Bytes of a sector: the unit in which L1 fetches global memory from L2 (4 per 128-byte line).
inline constexpr int kSectorBytes = 32;

/// One warp-wide global-memory load: each lane's byte address and the access width.
struct GlobalRequest {
  /// Byte address that lane i reads; a multiple of access_bytes for every active lane.
  std::array<std::uint64_t, kWarpSize> byte_address{};
  /// Bit i set: lane i takes part (inactive lanes, e.g. past the end of an array, read nothing).
  std::uint32_t active_mask = 0xFFFFFFFFu;
  /// Bytes per lane: 1, 2, 4 (float), 8 (float2) or 16 (float4).
  int access_bytes = 4;
};

/// The index of the 32-byte sector that holds byte @p byte_address (student).
std::uint64_t sector_of(std::uint64_t byte_address);

/**
 * @brief Sectors one warp request touches: the number of distinct 32-byte sectors that hold
 * at least one byte some active lane reads (lane i reads access_bytes bytes from
 * byte_address[i]). 0 when no lane is active. Nsight Compute reports the same quantity,
 * summed over requests, as l1tex__t_sectors_pipe_lsu_mem_global_op_ld (student).
 * @throws std::invalid_argument when access_bytes is not 1, 2, 4, 8 or 16, or an active lane's
 * address is not a multiple of access_bytes (the GPU faults on a misaligned access)
 */
int sectors_touched(const GlobalRequest& r);

/**
 * @brief The request of a strided pattern (given): lane i reads @p access_bytes bytes at
 * @p base_byte + i * @p stride_bytes, every lane active.
 * Examples: SoA float x[i] is (4, 4); AoS3 p[i].x is (12, 4); AoS4 p[i] as float4 is (16, 16);
 * the same at a base 4 bytes past a sector boundary is (..., base_byte = 4).
 */
inline GlobalRequest strided_request(std::uint64_t stride_bytes, int access_bytes,
                                     std::uint64_t base_byte = 0) {
  GlobalRequest r;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    r.byte_address[static_cast<std::size_t>(lane)] =
        base_byte + static_cast<std::uint64_t>(lane) * stride_bytes;
  }
  r.access_bytes = access_bytes;
  return r;
}

// ---------------------------------------------------------------------------
// Particles (points.cu): the same computation over two layouts, and an x-only count
// ---------------------------------------------------------------------------

/// Threads per block of the particle kernels (their launchers are given).
inline constexpr int kPointThreads = 256;

/// The four arrays of N particles in SoA layout (device pointers).
struct PointsSoA {
  const float* x = nullptr;  ///< x[i]: position x of particle i
  const float* y = nullptr;  ///< y[i]
  const float* z = nullptr;  ///< z[i]
  const float* m = nullptr;  ///< m[i]: mass of particle i
};

/**
 * @brief out[i] = m_i * ((x_i - c.x)^2 + (y_i - c.y)^2 + (z_i - c.z)^2), every field used, from
 * the SoA layout (one float of each array per particle).
 * @param p      the four arrays, n floats each
 * @param c      the centre
 * @param d_out  n floats (written, never read)
 * @param n      particles (> 0)
 * @param stream stream to launch on; not synchronized
 */
void weighted_distance_soa(const PointsSoA& p, float3 c, float* d_out, int n,
                           cudaStream_t stream = nullptr);

/// As weighted_distance_soa(), from the AoS4 layout: d_p[i] = {x_i, y_i, z_i, m_i}.
void weighted_distance_aos4(const float4* d_p, float3 c, float* d_out, int n,
                            cudaStream_t stream = nullptr);

/**
 * @brief "x only": *d_count = the number of i in [0, n) with d_field[i * stride] < x0, one float
 * per thread per load, lanes on consecutive i. The launcher zeroes *d_count (a memset on
 * @p stream) and launches a grid-stride kernel.
 * - SoA x:      d_field = x,           stride 1
 * - AoS3 p[i].x: d_field = &p[0].x,    stride 3
 * - AoS4 p[i].x: d_field = &p[0].x,    stride 4
 * @param d_field first float of the field; n elements, stride floats apart (the element index
 *                i * stride may exceed 2^31)
 * @param stride  floats from one element to the next (>= 1)
 * @param n       elements (> 0)
 * @param x0      the threshold (NaN never counts)
 * @param d_count one unsigned int (written)
 * @param stream  stream to launch on; not synchronized
 */
void count_below(const float* d_field, int stride, int n, float x0, unsigned int* d_count,
                 cudaStream_t stream = nullptr);

/// The kernels of points.cu as their launchers above launch them (block kPointThreads, no
/// dynamic shared memory). Each `*_kernel()` here and below names the kernel (`__global__`,
/// private to its file) of the same name: what the graders use for provenance and profiling.
cudalab::KernelInfo weighted_distance_soa_kernel();
cudalab::KernelInfo weighted_distance_aos4_kernel();
cudalab::KernelInfo count_below_kernel();

// ---------------------------------------------------------------------------
// AoS -> SoA conversion of records of `fields` floats (aos_to_soa.cu, aos_to_soa_naive.cu)
// ---------------------------------------------------------------------------

/// Most fields a record may have (a tile row must fit in one row of 32 banks plus padding).
inline constexpr int kMaxFields = 32;
/// Records per tile of the tiled conversion = threads per block.
inline constexpr int kTileRecords = 256;

/**
 * @brief Words from one record's row of the shared tile to the next (student, aos_to_soa.cu):
 * the smallest pitch >= @p fields at which 32 lanes reading field f of 32 consecutive records
 * (word lane * pitch + f) hit 32 different banks.
 * @pre 1 <= fields <= kMaxFields; the result is at most kMaxFields + 1
 */
__host__ __device__ int record_pitch(int fields);

/**
 * @brief soa[f * n + i] = aos[i * fields + f] for every record i < n and field f < fields,
 * kTileRecords records per block staged through a shared tile of pitch record_pitch(fields):
 * read as one contiguous run of floats (coalesced), written one field at a time (coalesced).
 * Byte offsets may exceed 2^31.
 * @param d_aos  n * fields floats
 * @param d_soa  n * fields floats (written, never read)
 * @param n      records (> 0)
 * @param fields floats per record, 1..kMaxFields
 * @param stream stream to launch on; not synchronized
 */
void aos_to_soa_tiled(const float* d_aos, float* d_soa, int n, int fields,
                      cudaStream_t stream = nullptr);

/**
 * @brief The naive conversion (given baseline): thread i copies record i field by field, so
 * the 32 lanes of a warp read floats fields * 4 bytes apart (writes are coalesced).
 */
void aos_to_soa_naive(const float* d_aos, float* d_soa, int n, int fields,
                      cudaStream_t stream = nullptr);

/// The kernel of aos_to_soa_tiled() (block kTileRecords; its dynamic shared memory, the tile,
/// depends on the call's fields: dynamic_smem is 0 here).
cudalab::KernelInfo aos_to_soa_tiled_kernel();
/// The kernel of aos_to_soa_naive() (block kTileRecords, no shared memory).
cudalab::KernelInfo aos_to_soa_naive_kernel();

// ---------------------------------------------------------------------------
// The AoS -> SoA conversions in one table (the demo's rows, the grader's lists of kernels)
// ---------------------------------------------------------------------------

/// A launcher of the conversion (aos_to_soa_naive(), aos_to_soa_tiled()).
using ConversionLauncher = void (*)(const float* d_aos, float* d_soa, int n, int fields,
                                    cudaStream_t stream);

/// One technique of the AoS -> SoA conversion: what the demo times and the grader checks of it.
/// Both take the same records (every n and fields of aos_to_soa_tiled()'s contract), so the
/// table holds no condition on the shape. The weighted distances are not here: each layout's
/// launcher takes its own kind of input (PointsSoA or float4 records).
struct Technique {
  const char* name;                 ///< its name in messages, e.g. "tiled"
  const char* title;                ///< its rows in the demo's table, after the record width
  ConversionLauncher launcher;      ///< the conversion
  cudalab::KernelInfo (*kernel)();  ///< the kernel its launcher runs
  /// Floats between the addresses that neighbouring lanes of a warp read for records of
  /// @p fields floats (the request the sector model prices): a record per lane, or consecutive.
  int (*lane_stride)(int fields);
  bool given;  ///< the lab's given baseline rather than a student's kernel
};

/// The naive baseline, then the tiled conversion.
inline constexpr Technique kTechniques[] = {
    {"naive", "naive", aos_to_soa_naive, aos_to_soa_naive_kernel, [](int fields) { return fields; },
     true},
    {"tiled", "tiled", aos_to_soa_tiled, aos_to_soa_tiled_kernel, [](int) { return 1; }, false},
};

}  // namespace lab10
