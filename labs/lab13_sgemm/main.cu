// SPDX-License-Identifier: BSD-3-Clause
// Lab 13 demo: the question — can a hand-written SGEMM beat cuBLAS? — as a size sweep.
// For each square size from 256 up to --size (doubling), times cuBLAS SGEMM and the six
// SGEMM stages (1-5 and 7, stream-K), and prints each one's TFLOP/s and share of cuBLAS in the
// same run.
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "cudalab/bench.cuh"
#include "cudalab/check.cuh"
#include "cudalab/demo.hpp"
#include "cudalab/device_buffer.cuh"
#include "cudalab/matrix.hpp"
#include "sgemm.cuh"

namespace {

/// Every row of C is checked against the host up to this size, else 24 sampled rows.
constexpr int kFullCheckSize = 512;

using Launcher =
    std::function<void(const float*, const float*, float*, int, int, int, cudaStream_t)>;

int run(const cudalab::DemoOptions& opt) {
  struct Variant {
    std::string name;
    Launcher launch;  // empty: cuBLAS
  };
  // Stage 7's workspace (partial tiles and tile counters), zeroed once per size.
  cudalab::DeviceBuffer<unsigned char> workspace;
  std::size_t workspace_bytes = 0;
  const Launcher stream_k = [&](const float* a, const float* b, float* c, int m, int n, int k,
                                cudaStream_t s) {
    lab13::sgemm_stream_k(a, b, c, m, n, k, workspace.data(), workspace_bytes, s);
  };
  // cuBLAS, the stages of the technique table (1-5), then stream-K.
  std::vector<Variant> variants = {{"cuBLAS SGEMM", nullptr}};
  for (const lab13::Technique& t : lab13::kTechniques) variants.push_back({t.title, t.launcher});
  variants.push_back({"7 stream-K (+ fragments double-buffered)", stream_k});
  const lab13::CublasHandle cublas;
  cudalab::Table table({"n", "variant", "ms", "TFLOP/s", "% of cuBLAS", "check"});
  int status = 0;
  // n = 256, 512, ... doubling, and --size last (also when it is not a power of two).
  for (int n = opt.size < 256 ? opt.size : 256;; n = 2 * n < opt.size ? 2 * n : opt.size) {
    // Small integers: every product and sum is exact in float, so the check is exact.
    const std::vector<float> h_a = cudalab::random_matrix(n, n, cudalab::Fill::SmallInt, 1);
    const std::vector<float> h_b = cudalab::random_matrix(n, n, cudalab::Fill::SmallInt, 2);
    const std::size_t count = std::size_t(n) * n;
    cudalab::DeviceBuffer<float> d_a(count), d_b(count), d_c(count);
    d_a.upload(h_a);
    d_b.upload(h_b);
    workspace_bytes = lab13::stream_k_workspace_bytes(n, n, n);
    workspace = cudalab::DeviceBuffer<unsigned char>(workspace_bytes > 0 ? workspace_bytes : 1);
    CUDA_CHECK(cudaMemset(workspace.data(), 0, workspace.bytes()));
    std::vector<cudalab::ReferenceRows> expected;
    if (opt.check) expected = cudalab::reference_rows(h_a, h_b, n, kFullCheckSize);
    const cudalab::OutputCheck check = [&] {
      return cudalab::compare_rows(expected, d_c.to_host(), n);
    };
    double cublas_ms = 0.0;
    for (const Variant& v : variants) {
      const cudalab::GpuWork work = [&](cudaStream_t s) {
        if (!v.launch) {
          lab13::cublas_sgemm(cublas, d_a.data(), d_b.data(), d_c.data(), n, n, n, s);
        } else {
          v.launch(d_a.data(), d_b.data(), d_c.data(), n, n, n, s);
        }
      };
      // Poisoned with NaN first: a kernel that skips elements cannot pass the check.
      const auto r = cudalab::run_variant(work, opt.reps, v.name + " n=" + std::to_string(n),
                                          opt.check ? check : cudalab::OutputCheck{},
                                          [&] { d_c.fill_bytes(0xFF); });
      if (!r.ok) status = 1;
      if (!v.launch) cublas_ms = r.median_ms;
      const double tflops = 2.0 * n * double(n) * n / (r.median_ms * 1e9);
      table.add_row({std::to_string(n), v.name, cudalab::fixed(r.median_ms, 3),
                     cudalab::fixed(tflops, 1), cudalab::fixed(100.0 * cublas_ms / r.median_ms, 1),
                     r.verdict});
    }
    if (n == opt.size) break;
  }
  table.print(std::cout);
  std::cout << "TFLOP/s = 2 n^3 / time; % of cuBLAS = cuBLAS time / variant time (same run)\n";
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  cudalab::DemoLimits limits;
  limits.default_size = 16384;
  limits.max_size = 16384;
  limits.default_block = lab13::kBlockThreads;
  limits.block_is_2d = false;
  limits.default_reps = 10;
  return cudalab::run_demo(
      argc, argv, "lab13 sgemm: six stages toward cuBLAS SGEMM, sizes 256 .. --size", limits, run);
}
