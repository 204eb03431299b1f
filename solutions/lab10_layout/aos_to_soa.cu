// SPDX-License-Identifier: BSD-3-Clause
// Lab 10: AoS -> SoA conversion through a padded shared-memory tile. A block stages
// kTileRecords records (one contiguous run of floats: coalesced reads) and writes them out one
// field at a time (coalesced writes); in between, a warp reads field f of 32 consecutive records
// from the tile, word lane * pitch + f, so the pitch decides the bank conflicts.
//
//     word of (record r, field f) = r * pitch + f        bank = word % 32
#include <cstddef>
#include <stdexcept>
#include <string>

#include "cudalab/check.cuh"
#include "layout.cuh"

namespace lab10 {

__host__ __device__ int record_pitch(int fields) {
  // TODO(lab10): the padded pitch of a tile row (roughly 1 line).
  // HINT: lanes 0..31 read words lane * pitch + f: which pitches put them in 32 different
  // HINT: banks? Take the smallest such pitch >= fields (lab 06 padded 32 to 33).
  return fields % 2 == 0 ? fields + 1 : fields;
  // END TODO(lab10)
}

namespace {

/// Bytes of a block's tile: kTileRecords rows of the padded pitch (dynamic shared memory, so
/// narrow records leave room for more resident blocks).
std::size_t tile_bytes(int pitch) {
  return static_cast<std::size_t>(kTileRecords) * pitch * sizeof(float);
}
static_assert(kTileRecords * (kMaxFields + 1) * sizeof(float) <= 48 * 1024,
              "the widest tile must fit in the 48 KB of shared memory a block gets by default");
static_assert(kTileRecords % kWarpSize == 0, "a tile holds whole warps of records");

__global__ void __launch_bounds__(kTileRecords)
    aos_to_soa_tiled_kernel(const float* __restrict__ aos, float* __restrict__ soa, int n,
                            int fields) {
  extern __shared__ float tile[];  // record r, field f at r * record_pitch(fields) + f
  // TODO(lab10): this block converts the kTileRecords records starting at record
  // blockIdx.x * kTileRecords (fewer in the last block): stage them in the tile with loads in
  // which a warp reads consecutive floats of aos, wait for the whole tile, then write each
  // field so that a warp writes consecutive floats of soa. Work out, on paper first, which
  // record and field the e-th float of the block's run of aos is, and where record r's field f
  // goes in soa (the handout's Background gives both layouts).
  // Roughly 15 lines.
  // HINT: byte offsets pass 2^31 for large n: first * fields and f * n in 64 bits (long long /
  // HINT: size_t). Use record_pitch(fields) for every tile index.
  const int pitch = record_pitch(fields);
  const long long first = static_cast<long long>(blockIdx.x) * kTileRecords;
  const int count = static_cast<int>(min(static_cast<long long>(kTileRecords), n - first));
  const float* src = aos + first * fields;  // this tile's records: count * fields floats in a row
  for (int e = threadIdx.x; e < count * fields; e += kTileRecords) {
    const int r = e / fields;
    tile[r * pitch + (e - r * fields)] = src[e];
  }
  __syncthreads();  // every record is in the tile before any thread reads another's row
  if (static_cast<int>(threadIdx.x) < count) {
    for (int f = 0; f < fields; ++f) {
      soa[static_cast<long long>(f) * n + first + threadIdx.x] = tile[threadIdx.x * pitch + f];
    }
  }
  // END TODO(lab10)
}

}  // namespace

void aos_to_soa_tiled(const float* d_aos, float* d_soa, int n, int fields, cudaStream_t stream) {
  if (n <= 0 || fields < 1 || fields > kMaxFields) {
    throw std::invalid_argument("aos_to_soa_tiled: need n > 0 and 1 <= fields <= " +
                                std::to_string(kMaxFields));
  }
  if (d_aos == nullptr || d_soa == nullptr) {
    throw std::invalid_argument("aos_to_soa_tiled: null pointer");
  }
  const int pitch = record_pitch(fields);
  if (pitch < fields || pitch > kMaxFields + 1) {
    throw std::invalid_argument("aos_to_soa_tiled: record_pitch(" + std::to_string(fields) +
                                ") = " + std::to_string(pitch) + " must lie in [fields, " +
                                std::to_string(kMaxFields + 1) + "]");
  }
  const unsigned int blocks =
      static_cast<unsigned int>((static_cast<long long>(n) + kTileRecords - 1) / kTileRecords);
  aos_to_soa_tiled_kernel<<<blocks, kTileRecords, tile_bytes(pitch), stream>>>(d_aos, d_soa, n,
                                                                               fields);
  CUDA_CHECK_LAST_LAUNCH();
}

cudalab::KernelInfo aos_to_soa_tiled_kernel() {
  // The private kernel of the same name (the typed pointer picks it); its tile, the dynamic
  // shared memory, is sized per call.
  void (*kernel)(const float*, float*, int, int) = aos_to_soa_tiled_kernel;
  return {reinterpret_cast<const void*>(kernel), "aos_to_soa_tiled_kernel", dim3(kTileRecords), 0};
}

}  // namespace lab10
