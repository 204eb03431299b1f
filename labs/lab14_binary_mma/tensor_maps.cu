// SPDX-License-Identifier: BSD-3-Clause
// Lab 14 (given, a library of its own: lab14_tensor_maps): the TMA tensor maps of the advanced
// part's persistent kernel. cuTensorMapEncodeTiled is a driver API function; it is found through
// the runtime's driver entry point so that nothing links libcuda (a machine without a GPU driver
// still runs the CPU tests). The build's isolation check forbids driver entry points in the lab's
// own library (lab14_impl), which is why this file is compiled apart and linked to it: it is
// course code, never taken from a submission, and it encodes maps, nothing else.
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled

#include <stdexcept>
#include <string>

#include "binary_mma.cuh"
#include "cudalab/check.cuh"

namespace lab14 {

namespace {

/// cuTensorMapEncodeTiled of the installed driver (ABI of CUDA 12.0), looked up once.
PFN_cuTensorMapEncodeTiled_v12000 encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000,
                                                cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || p == nullptr) {
      throw std::runtime_error(
          "encode_ws_tensor_maps: the driver has no cuTensorMapEncodeTiled (needs a CUDA 12 "
          "driver or newer)");
    }
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

/// A 2-D map over a row-major (outer x inner) array with @p row_bytes between rows: box
/// (box_inner x box_outer) elements, 128-byte swizzle (box_inner x element size = 128 bytes),
/// elements past the edges zero-filled on loads and left out on stores.
CUtensorMap map_2d(const char* what, CUtensorMapDataType type, const void* base,
                   std::uint64_t inner, std::uint64_t outer, std::uint64_t row_bytes,
                   std::uint32_t box_inner, std::uint32_t box_outer,
                   CUtensorMapL2promotion promotion) {
  CUtensorMap map{};
  const cuuint64_t dims[2] = {inner, outer};
  const cuuint64_t strides[1] = {row_bytes};
  const cuuint32_t box[2] = {box_inner, box_outer};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult r =
      encoder()(&map, type, 2, const_cast<void*>(base), dims, strides, box, element_strides,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, promotion,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    throw std::runtime_error(std::string("encode_ws_tensor_maps: cuTensorMapEncodeTiled refused "
                                         "the map of ") +
                             what + " (error " + std::to_string(static_cast<int>(r)) +
                             "): " + std::to_string(inner) + " x " + std::to_string(outer) +
                             " elements, rows " + std::to_string(row_bytes) + " bytes apart, box " +
                             std::to_string(box_inner) + " x " + std::to_string(box_outer));
  }
  return map;
}

}  // namespace

WsTensorMaps encode_ws_tensor_maps(const std::uint32_t* d_a_bits, const std::uint32_t* d_b_bits,
                                   float* d_c, int m, int n, int k) {
  const int words = row_words(k);
  WsTensorMaps maps{};
  // A: m rows of `words` words; box 32 words (1024 bits = 128 bytes) x kWsBlockM rows.
  maps.a = map_2d("A", CU_TENSOR_MAP_DATA_TYPE_UINT32, d_a_bits, words, m, words * 4ull, 32,
                  kWsBlockM, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
  // B by columns: n rows of `words` words; box 32 words x kWsBlockN columns.
  maps.b = map_2d("B", CU_TENSOR_MAP_DATA_TYPE_UINT32, d_b_bits, words, n, words * 4ull, 32,
                  kWsBlockN, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
  // C: m rows of n floats; box 32 floats (128 bytes) x 16 rows, one consumer warp's chunk.
  if (n % 4 == 0) {
    maps.c = map_2d("C", CU_TENSOR_MAP_DATA_TYPE_FLOAT32, d_c, n, m, n * 4ull, 32, 16,
                    CU_TENSOR_MAP_L2_PROMOTION_NONE);
    maps.c_valid = true;
  }
  return maps;
}

}  // namespace lab14
