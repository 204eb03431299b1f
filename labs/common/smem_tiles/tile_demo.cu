// SPDX-License-Identifier: BSD-3-Clause
// The demo table of labs 06 and 07 (given).
#include "tile_demo.cuh"

#include <algorithm>
#include <functional>
#include <iostream>
#include <stdexcept>
#include <string>
#include <utility>
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
  double units;                ///< bytes moved (transpose) or flops (matmul) per run
  std::string unit;            ///< "GB/s" or "GFLOP/s"
  bool is_baseline;            ///< the conflicting kernel the next rows are compared with
  cudalab::KernelInfo kernel;  ///< the kernel, for its static shared memory
  bool in_place = false;       ///< transposes d_out in place: its checked run needs the input there
};

std::string static_smem(const cudalab::KernelInfo& kernel) {
  if (kernel.function == nullptr) return "-";
  cudaFuncAttributes attr{};
  CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel.function));
  return std::to_string(attr.sharedSizeBytes) + " B";
}

/// Rows [first, first + count) of an n x n row-major matrix.
struct RowBlock {
  int first;
  int count;
};

/**
 * The rows --check compares: every row of a small problem, else a few rows at each end, as
 * many as keep the host matmul of the checked rows near 2^27 multiply-adds (8 rows at each
 * end at 4096, one at 16384): a full host reference is O(n^3) and would take hours.
 */
std::vector<RowBlock> checked_rows(int n) {
  constexpr int kAllRowsUpTo = 512;
  constexpr int kMaxEdgeRows = 8;
  constexpr double kHostMacs = double(1 << 27);
  if (n <= kAllRowsUpTo) return {{0, n}};
  const int edge = std::clamp(int(kHostMacs / (double(n) * n)), 1, kMaxEdgeRows);
  return {{0, edge}, {n - edge, edge}};
}

/// Copies rows [b.first, b.first + b.count) of the n x n device matrix @p d to the host.
std::vector<float> rows_to_host(const float* d, int n, RowBlock b) {
  std::vector<float> h(std::size_t(b.count) * n);
  CUDA_CHECK(cudaMemcpy(h.data(), d + std::size_t(b.first) * n, h.size() * sizeof(float),
                        cudaMemcpyDeviceToHost));
  return h;
}

std::string grid_text(int rows, int cols, int block_x, int block_y) {
  const dim3 g = tile_grid(rows, cols, "demo");
  return "<<<" + std::to_string(g.x) + "x" + std::to_string(g.y) + ", " + std::to_string(block_x) +
         "x" + std::to_string(block_y) + ">>>";
}

/// The launch of an in-place transpose of an n x n matrix: one block per tile pair on or above
/// the diagonal, T (T + 1) / 2 of them for T tile rows.
std::string pair_grid_text(int n, int block_y) {
  const long long tiles = (static_cast<long long>(n) + kTile - 1) / kTile;
  return "<<<" + std::to_string(tiles * (tiles + 1) / 2) + ", " + std::to_string(kTile) + "x" +
         std::to_string(block_y) + ">>>";
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
  if (lab.transpose_in_place) {  // the lab's transpose works in place on d_out
    Variant& v = variants[1];
    v.name = "transpose in place, " + lab.technique;
    v.launch = pair_grid_text(n, block_rows);
    v.work = [&](cudaStream_t s) { lab.transpose_in_place(d_out.data(), n, block_rows, s); };
    v.in_place = true;
  }
  for (std::size_t i = 0; i < lab.extra_transposes.size(); ++i) {
    const ExtraTranspose& extra = lab.extra_transposes[i];
    variants.insert(variants.begin() + 2 + static_cast<std::ptrdiff_t>(i),
                    {"transpose, " + extra.name, extra.launch,
                     [&](cudaStream_t s) { extra.transpose(d_a.data(), d_out.data(), n, n, s); },
                     bytes, "GB/s", false, extra.kernel});
  }

  // The host references of the checked rows (checked_rows()), computed once, only when asked
  // for: output row j of the transpose is input column j; rows of C need the same rows of A.
  const std::vector<RowBlock> blocks = opt.check ? checked_rows(n) : std::vector<RowBlock>{};
  std::vector<std::vector<float>> ref_transpose;
  std::vector<std::vector<float>> ref_matmul;
  for (const RowBlock& b : blocks) {
    std::vector<float> t(std::size_t(b.count) * n);
    for (int j = 0; j < b.count; ++j) {
      for (int i = 0; i < n; ++i) t[std::size_t(j) * n + i] = h_a[std::size_t(i) * n + b.first + j];
    }
    ref_transpose.push_back(std::move(t));
    const std::vector<float> a_rows(h_a.begin() + std::ptrdiff_t(b.first) * n,
                                    h_a.begin() + std::ptrdiff_t(b.first + b.count) * n);
    ref_matmul.push_back(cudalab::reference_matmul(a_rows, h_b, b.count, n, n));
  }

  cudalab::Table table({"variant", "launch", "smem", "ms", "rate", "speedup", "check"});
  double baseline_ms = 0.0;
  int status = 0;
  const std::function<void()> poison = [&] { d_out.fill_bytes(0xFF); };
  // An in-place transpose starts its checked run from the input, copied where it works.
  const std::function<void()> load_input = [&] {
    CUDA_CHECK(
        cudaMemcpy(d_out.data(), d_a.data(), count * sizeof(float), cudaMemcpyDeviceToDevice));
  };
  for (const Variant& v : variants) {
    // With --check: poisoned, run once and compared; then (always) timed.
    const cudalab::OutputCheck check = [&] {
      const auto& expected = v.unit == "GB/s" ? ref_transpose : ref_matmul;
      for (std::size_t i = 0; i < blocks.size(); ++i) {
        auto cmp = cudalab::compare_matrices(expected[i], rows_to_host(d_out.data(), n, blocks[i]),
                                             blocks[i].count, n, 0.0);
        if (!cmp.ok) {
          cmp.message = "rows " + std::to_string(blocks[i].first) + ".." +
                        std::to_string(blocks[i].first + blocks[i].count - 1) +
                        " (row numbers below count from there): " + cmp.message;
          return cmp;
        }
      }
      return cudalab::MatrixCompare{};
    };
    const auto r = cudalab::run_variant(v.work, opt.reps, v.name, opt.check ? check : nullptr,
                                        opt.check ? (v.in_place ? load_input : poison) : nullptr);
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
