// The demo table of labs 06 and 07 (given).
#include "tile_demo.cuh"

#include <functional>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "conflicting_tile.cuh"
#include "cudalab/bench.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/matrix.hpp"

namespace smem_tiles {

namespace {

/// One row of the table: a kernel, how it is launched, and how its work is counted.
struct Variant {
  std::string name;
  std::string launch;
  cudalab::GpuWork work;
  double units;        ///< bytes moved (transpose) or flops (matmul) per run
  std::string unit;    ///< "GB/s" or "GFLOP/s"
  bool is_baseline;    ///< the conflicting kernel the next rows are compared with
  const void* kernel;  ///< the kernel, for its static shared memory
};

std::string static_smem(const void* kernel) {
  if (kernel == nullptr) return "-";
  cudaFuncAttributes attr{};
  CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel));
  return std::to_string(attr.sharedSizeBytes) + " B";
}

std::string grid_text(int rows, int cols, int block_x, int block_y) {
  const dim3 g = tile_grid(rows, cols, "demo");
  return "<<<" + std::to_string(g.x) + "x" + std::to_string(g.y) + ", " + std::to_string(block_x) +
         "x" + std::to_string(block_y) + ">>>";
}

}  // namespace

int run_tile_demo(const cudalab::DemoOptions& opt, const TileDemoKernels& lab) {
  const int n = opt.size;
  const int block_rows = opt.block;
  if (kTile % block_rows != 0) {
    throw std::invalid_argument("--block must divide " + std::to_string(kTile) +
                                " (rows of threads of a transpose block), got " +
                                std::to_string(block_rows));
  }
  const std::size_t count = std::size_t(n) * n;
  // Small integers keep every matmul sum exact, so --check can compare exactly.
  const auto h_a = cudalab::random_matrix(n, n, cudalab::Fill::SmallInt, 1);
  const auto h_b = cudalab::random_matrix(n, n, cudalab::Fill::SmallInt, 2);
  cudalab::DeviceBuffer<float> d_a(count);
  cudalab::DeviceBuffer<float> d_b(count);
  cudalab::DeviceBuffer<float> d_out(count);
  d_a.upload(h_a);
  d_b.upload(h_b);

  const double bytes = 2.0 * count * sizeof(float);
  const double flops = 2.0 * double(n) * n * n;
  const std::string t_launch = grid_text(n, n, kTile, block_rows);
  const std::string m_launch = grid_text(n, n, kTile, kTile);
  std::vector<Variant> variants = {
      {"transpose, conflicting", grid_text(n, n, kTile, kTransposeBlockRows),
       [&](cudaStream_t s) { conflicting_transpose(d_a.data(), d_out.data(), n, n, s); }, bytes,
       "GB/s", true, conflicting_transpose_kernel()},
      {"transpose, " + lab.technique, t_launch,
       [&](cudaStream_t s) { lab.transpose(d_a.data(), d_out.data(), n, n, block_rows, s); }, bytes,
       "GB/s", false, lab.transpose_kernel},
      {"matmul, conflicting", m_launch,
       [&](cudaStream_t s) {
         conflicting_matmul(d_a.data(), d_b.data(), d_out.data(), n, n, n, s);
       },
       flops, "GFLOP/s", true, conflicting_matmul_kernel()},
      {"matmul, " + lab.technique, m_launch,
       [&](cudaStream_t s) { lab.matmul(d_a.data(), d_b.data(), d_out.data(), n, n, n, s); }, flops,
       "GFLOP/s", false, lab.matmul_kernel},
  };
  for (std::size_t i = 0; i < lab.extra_transposes.size(); ++i) {
    const ExtraTranspose& extra = lab.extra_transposes[i];
    variants.insert(variants.begin() + 2 + static_cast<std::ptrdiff_t>(i),
                    {"transpose, " + extra.name, extra.launch,
                     [&](cudaStream_t s) { extra.transpose(d_a.data(), d_out.data(), n, n, s); },
                     bytes, "GB/s", false, extra.kernel});
  }

  // The host references are computed once, only when asked for (the matmul is O(n^3)).
  std::vector<float> ref_transpose;
  std::vector<float> ref_matmul;
  if (opt.check) {
    ref_transpose.resize(count);
    for (int r = 0; r < n; ++r) {
      for (int c = 0; c < n; ++c) {
        ref_transpose[std::size_t(c) * n + r] = h_a[std::size_t(r) * n + c];
      }
    }
    ref_matmul = cudalab::reference_matmul(h_a, h_b, n, n, n);
  }

  cudalab::Table table({"variant", "launch", "smem", "ms", "rate", "speedup", "check"});
  double baseline_ms = 0.0;
  int status = 0;
  const std::function<void()> poison = [&] { d_out.fill_bytes(0xFF); };
  for (const Variant& v : variants) {
    // With --check: poisoned, run once and compared; then (always) timed.
    const cudalab::OutputCheck check = [&] {
      const auto& expected = v.unit == "GB/s" ? ref_transpose : ref_matmul;
      return cudalab::compare_matrices(expected, d_out.to_host(), n, n, 0.0);
    };
    const auto r = cudalab::run_variant(v.work, opt.reps, v.name, opt.check ? check : nullptr,
                                        opt.check ? poison : nullptr);
    if (!r.ok) status = 1;
    if (v.is_baseline) baseline_ms = r.median_ms;
    const double rate = v.units / (r.median_ms * 1e6);
    table.add_row({v.name, v.launch, static_smem(v.kernel), cudalab::fixed(r.median_ms, 4),
                   cudalab::fixed(rate, 1) + " " + v.unit,
                   cudalab::fixed(baseline_ms / r.median_ms, 2) + "x", r.verdict});
  }
  table.print(std::cout);
  return status;
}

cudalab::DemoLimits tile_demo_limits() {
  cudalab::DemoLimits limits;
  limits.default_size = 4096;
  limits.max_size = 16384;
  limits.default_block = kTransposeBlockRows;
  limits.default_reps = 10;
  return limits;
}

}  // namespace smem_tiles
