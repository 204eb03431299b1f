// SPDX-License-Identifier: BSD-3-Clause
// Lab 12 runs in its own process (cudalab/remote.hpp): each function of prefetch.cuh that the
// grader calls crosses as data, and the launchers' kernels are replayed by the grader from its
// own load of the lab's device code. configure_smem() takes a kernel: it crosses by its mangled
// name, and the attributes it leaves on the lab's kernel are given to the grader's handle of the
// same kernel, where the tests read them back. A .cu file: the header holds device code.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "cudalab/remote.hpp"
#include "prefetch.cuh"

CUDALAB_REMOTE(lab12::matmul_register_prefetch,
               (const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                cudaStream_t stream),
               (d_a, d_b, d_c, m, n, k, stream), void)
CUDALAB_REMOTE(lab12::register_prefetch_kernel, (), (), cudalab::KernelInfo)
CUDALAB_REMOTE(lab12::matmul_pipelined,
               (const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                cudaStream_t stream),
               (d_a, d_b, d_c, m, n, k, stream), void)
CUDALAB_REMOTE(lab12::pipelined_kernel, (), (), cudalab::KernelInfo)
CUDALAB_REMOTE(lab12::matmul_tma,
               (const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                cudaStream_t stream),
               (d_a, d_b, d_c, m, n, k, stream), void)
CUDALAB_REMOTE(lab12::tma_kernel, (), (), cudalab::KernelInfo)

namespace {
constexpr const char* kConfigureSmem = "lab12::configure_smem";
}  // namespace

#if CUDALAB_REMOTE_JUDGE
lab12::SmemConfigReport lab12::configure_smem(const void* kernel, int carveout_percent,
                                              cudaFuncCache preference, int block_threads,
                                              std::size_t dynamic_smem) {
  using namespace cudalab::remote;
  Writer w;
  w.str(judge_kernel_symbol(kernel));
  w.pod(carveout_percent);
  w.pod(preference);
  w.pod(block_threads);
  w.pod(static_cast<std::uint64_t>(dynamic_smem));
  std::string answer;
  try {
    answer = round_trip(kConfigureSmem, w.bytes());
  } catch (const CandidateError&) {
    throw;
  } catch (...) {
    // A call that threw may still have changed the kernel (the tests check that it did not).
    mirror_kernel_attributes(kernel);
    throw;
  }
  mirror_kernel_attributes(kernel);
  Reader r(answer);
  return r.pod<SmemConfigReport>();
}
#else
namespace {
void serve_configure_smem(cudalab::remote::Reader& r, cudalab::remote::Writer& w) {
  const void* kernel = cudalab::remote::candidate_kernel(r.str());
  const auto carveout_percent = r.pod<int>();
  const auto preference = r.pod<cudaFuncCache>();
  const auto block_threads = r.pod<int>();
  const auto dynamic_smem = static_cast<std::size_t>(r.pod<std::uint64_t>());
  w.pod(lab12::configure_smem(kernel, carveout_percent, preference, block_threads, dynamic_smem));
}
const cudalab::remote::Registrar configure_smem_entry(kConfigureSmem, &serve_configure_smem);
}  // namespace
// The given synchronous kernel runs in the grader, but configure_smem() may be asked about it:
// this entry keeps its file in the candidate, whose table then knows it by name.
CUDALAB_REMOTE(lab12::sync_kernel, (), (), cudalab::KernelInfo)
#endif
