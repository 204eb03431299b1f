// SPDX-License-Identifier: BSD-3-Clause
// Lab 10 runs in its own process (cudalab/remote.hpp): each function of layout.cuh that the
// grader calls crosses as data (record_pitch() too, on the host), and the launchers' kernels
// are replayed by the grader from its own load of the lab's device code. In the grader these
// lines are proxies; in the candidate, the table its server answers from. The given files
// are the course's: they are compiled into the grader and not listed here.
#include <cuda_runtime.h>

#include <cstdint>

#include "cudalab/remote.hpp"
#include "layout.cuh"

CUDALAB_REMOTE(lab10::sector_of, (std::uint64_t byte_address), (byte_address), std::uint64_t)
CUDALAB_REMOTE(lab10::sectors_touched, (const lab10::GlobalRequest& r), (r), int)
CUDALAB_REMOTE(lab10::weighted_distance_soa,
               (const lab10::PointsSoA& p, float3 c, float* d_out, int n, cudaStream_t stream),
               (p, c, d_out, n, stream), void)
CUDALAB_REMOTE(lab10::weighted_distance_aos4,
               (const float4* d_p, float3 c, float* d_out, int n, cudaStream_t stream),
               (d_p, c, d_out, n, stream), void)
CUDALAB_REMOTE(lab10::count_below,
               (const float* d_field, int stride, int n, float x0, unsigned int* d_count,
                cudaStream_t stream),
               (d_field, stride, n, x0, d_count, stream), void)
CUDALAB_REMOTE(lab10::weighted_distance_soa_kernel, (), (), cudalab::KernelInfo)
CUDALAB_REMOTE(lab10::weighted_distance_aos4_kernel, (), (), cudalab::KernelInfo)
CUDALAB_REMOTE(lab10::count_below_kernel, (), (), cudalab::KernelInfo)
CUDALAB_REMOTE(lab10::record_pitch, (int fields), (fields), int)
CUDALAB_REMOTE(lab10::aos_to_soa_tiled,
               (const float* d_aos, float* d_soa, int n, int fields, cudaStream_t stream),
               (d_aos, d_soa, n, fields, stream), void)
CUDALAB_REMOTE(lab10::aos_to_soa_tiled_kernel, (), (), cudalab::KernelInfo)
