// SPDX-License-Identifier: BSD-3-Clause
// Lab 11 demo: the classic 128-bit accesses on a big pitched matrix. Times a device-to-device
// cudaMemcpy2DAsync (the reference), the given scalar copy and your float4 copy at full
// occupancy and with one block of 4 warps per SM (where the instruction count shows), and
// the transposes: the given padded one against your float4 tile stage with the plain and the
// interleaved float4 layout. Bandwidths count bytes read + bytes written.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudalab/bench.cuh"
#include "cudalab/check.cuh"
#include "cudalab/demo.hpp"
#include "cudalab/device.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/matrix.hpp"
#include "vectorized.cuh"

namespace {

/// Rows checked with --check: 4 at each end of the matrix (a bounded host comparison).
constexpr int kCheckedRows = 4;

int run(const cudalab::DemoOptions& opt) {
  const int n = opt.size;  // the matrix is n x n floats, rows padded to a 512-byte pitch
  if (opt.block % 32 != 0) {
    throw std::invalid_argument("--block must be a multiple of 32 (threads of a copy block), got " +
                                std::to_string(opt.block));
  }
  const std::size_t pitch = (std::size_t(n) * sizeof(float) + 511) / 512 * 512;
  const std::size_t words = pitch / sizeof(float) * std::size_t(n);
  const std::vector<float> h_in =
      cudalab::random_matrix(n, int(pitch / sizeof(float)), cudalab::Fill::Uniform, 1);
  cudalab::DeviceBuffer<float> d_in(words);
  cudalab::DeviceBuffer<float> d_out(words);
  d_in.upload(h_in);
  const int sms = cudalab::query_device().sm_count;
  const lab11::CopyLaunch full{opt.block, 0, 0};
  const lab11::CopyLaunch sparse{128, 1, sms};  // one block of 4 warps per SM

  // The expected rows: a copy keeps rows, a transpose turns columns into rows.
  auto in_at = [&](int r, int c) { return h_in[std::size_t(r) * (pitch / 4) + c]; };
  const std::vector<int> rows_checked = [&] {
    std::vector<int> r;
    for (int i = 0; i < n; ++i) {
      if (i < kCheckedRows || i >= n - kCheckedRows) r.push_back(i);
    }
    return r;
  }();
  auto check_rows = [&](bool transposed, std::size_t out_pitch_floats) {
    return [&, transposed, out_pitch_floats] {
      const std::vector<float> got = d_out.to_host();
      std::vector<float> want;
      std::vector<float> have;
      for (const int r : rows_checked) {
        for (int c = 0; c < n; ++c) {
          want.push_back(transposed ? in_at(c, r) : in_at(r, c));
          have.push_back(got[std::size_t(r) * out_pitch_floats + c]);
        }
      }
      return cudalab::compare_matrices(want, have, int(rows_checked.size()), n, 0.0);
    };
  };

  struct Variant {
    std::string name;
    std::string launch;
    cudalab::GpuWork work;
    bool transposed;
    std::size_t out_pitch_floats;
  };
  const std::string blocks_full = std::to_string(opt.block) + " threads, one per unit";
  const std::string blocks_sparse = "<<<1x" + std::to_string(sms) + ", 128>>> (4 warps/SM)";
  const std::string tiles = std::to_string((n + 31) / 32);
  // The reference, the copies of lab11::kCopyTechniques at full occupancy and then with few
  // warps, the transposes of lab11::kTransposeTechniques.
  std::vector<Variant> variants = {{"cudaMemcpy2DAsync D2D", "-",
                                    [&](cudaStream_t s) {
                                      CUDA_CHECK(cudaMemcpy2DAsync(d_out.data(), pitch, d_in.data(),
                                                                   pitch, n * sizeof(float), n,
                                                                   cudaMemcpyDeviceToDevice, s));
                                    },
                                    false, pitch / 4}};
  struct CopyRun {
    lab11::CopyLaunch launch;
    std::string suffix;
    std::string blocks;
  };
  for (const CopyRun& run :
       {CopyRun{full, "", blocks_full}, CopyRun{sparse, ", few warps", blocks_sparse}}) {
    for (const lab11::CopyTechnique& t : lab11::kCopyTechniques) {
      variants.push_back({t.title + run.suffix, run.blocks,
                          [&, t, launch = run.launch](cudaStream_t s) {
                            t.launcher(d_in.data(), pitch, d_out.data(), pitch, n, n, launch, s);
                          },
                          false, pitch / 4});
    }
  }
  for (const lab11::TransposeTechnique& t : lab11::kTransposeTechniques) {
    // A transpose that takes no padded rows (the given padded kernel is unpitched) transposes
    // the n x (pitch / 4) matrix that holds the n x n one.
    const bool pitched = t.takes(reinterpret_cast<std::uintptr_t>(d_in.data()), pitch, pitch, n, n);
    const int cols = pitched ? n : int(pitch / 4);
    const std::size_t out_pitch = pitched ? pitch : std::size_t(n) * sizeof(float);
    variants.push_back({t.title, "<<<" + tiles + "x" + tiles + ", 32x8>>>",
                        [&, t, cols, out_pitch](cudaStream_t s) {
                          t.launcher(d_in.data(), pitch, d_out.data(), out_pitch, n, cols, s);
                        },
                        true, out_pitch / 4});
  }

  const double bytes = 2.0 * double(n) * n * sizeof(float);
  cudalab::Table table({"variant", "launch", "ms", "GB/s", "% of D2D copy", "check"});
  double copy_ms = 0.0;
  int status = 0;
  for (const Variant& v : variants) {
    const auto r = cudalab::run_variant(
        v.work, opt.reps, v.name,
        opt.check ? cudalab::OutputCheck(check_rows(v.transposed, v.out_pitch_floats)) : nullptr,
        [&] { d_out.fill_bytes(0xFF); });
    if (!r.ok) status = 1;
    if (copy_ms == 0.0) copy_ms = r.median_ms;
    table.add_row({v.name, v.launch, cudalab::fixed(r.median_ms, 4),
                   cudalab::fixed(bytes / (r.median_ms * 1e6), 0),
                   cudalab::fixed(100.0 * copy_ms / r.median_ms, 1), r.verdict});
  }
  table.print(std::cout);
  std::cout << "matrix " << n << " x " << n << " floats, pitch " << pitch << " B; GB/s = 2 x " << n
            << "^2 x 4 B / time\n";
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  cudalab::DemoLimits limits;
  limits.default_size = 8192;
  limits.max_size = 16384;
  limits.default_block = 256;
  limits.block_is_2d = false;
  return cudalab::run_demo(
      argc, argv, "lab11 vectorized: float4 copies and a float4 tile stage vs scalar", limits, run);
}
