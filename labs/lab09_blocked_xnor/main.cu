// SPDX-License-Identifier: BSD-3-Clause
// Lab 09 demo: the classic headline — a binary GEMM on packed ±1 matrices against cuBLAS
// SGEMM on the same data as floats. Times cuBLAS and the binary matmuls of lab09::kTechniques:
// the naive XNOR kernel (table / __popc), the 16x16 tiled kernel (table in shared memory /
// __popc) and the register-tiled 64-bit kernel, with each one's share of the popcount ceiling
// of the GPU.
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "blocked_xnor.cuh"
#include "cudalab/bench.cuh"
#include "cudalab/bits.hpp"
#include "cudalab/ceilings.cuh"
#include "cudalab/demo.hpp"
#include "cudalab/device.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/matrix.hpp"

namespace {

int run(const cudalab::DemoOptions& opt) {
  const int n = opt.size;  // A, B and C are n x n
  if (opt.block != lab09::kTile) {
    std::cout << "note: the tiles are compile-time constants (kTile = " << lab09::kTile
              << "); --block " << opt.block << " is ignored\n";
  }
  const std::size_t count = std::size_t(n) * n;
  const std::vector<float> h_a = cudalab::random_matrix(n, n, cudalab::Fill::PlusMinusOne, 1);
  const std::vector<float> h_b = cudalab::random_matrix(n, n, cudalab::Fill::PlusMinusOne, 2);
  const auto a32 = cudalab::bits::pack_rows(h_a, n, n);
  const auto b32 = cudalab::bits::pack_cols(h_b, n, n);  // the tiled kernels' B
  const auto b32_word_major = cudalab::bits::pack_cols_word_major(h_b, n, n);  // naive (lab 08)
  const auto a64 = cudalab::bits::pack_rows64(h_a, n, n);
  const auto b64 = cudalab::bits::pack_cols64(h_b, n, n);

  cudalab::DeviceBuffer<float> d_a(count), d_b(count), d_c(count);
  cudalab::DeviceBuffer<std::uint32_t> d_a32(a32.size()), d_b32(b32.size());
  cudalab::DeviceBuffer<std::uint32_t> d_b32_word_major(b32_word_major.size());
  cudalab::DeviceBuffer<std::uint64_t> d_a64(a64.size()), d_b64(b64.size());
  d_a.upload(h_a);
  d_b.upload(h_b);
  d_a32.upload(a32);
  d_b32.upload(b32);
  d_b32_word_major.upload(b32_word_major);
  d_a64.upload(a64);
  d_b64.upload(b64);
  const cudalab::DeviceBuffer<std::uint8_t> d_table = lab09::make_popcount_table();
  const lab09::CublasHandle cublas;

  // The rows of C checked against the host: all of a small C, else 8 at each end.
  const int head = n <= 512 ? n : 8;
  if (opt.check && head < n) {
    std::cout << "check: rows 0-7 and " << n - 8 << "-" << n - 1
              << " of C (every row up to --size 512)\n";
  }
  const std::vector<float> want_head = cudalab::bits::binary_matmul_rows(a32, b32, n, n, 0, head);
  const std::vector<float> want_tail =
      cudalab::bits::binary_matmul_rows(a32, b32, n, n, n - head, n);
  const cudalab::OutputCheck verify = [&] {
    const std::vector<float> got = d_c.to_host();
    const std::vector<float> got_head(got.begin(), got.begin() + std::size_t(head) * n);
    const std::vector<float> got_tail(got.end() - std::ptrdiff_t(head) * n, got.end());
    for (const auto& [want, have] :
         {std::pair{&want_head, &got_head}, std::pair{&want_tail, &got_tail}}) {
      auto cmp = cudalab::compare_matrices(*want, *have, head, n, 0.0);
      if (!cmp.ok) return cmp;
    }
    return cudalab::MatrixCompare{};
  };

  lab09::PackedOperands in;
  in.a32 = d_a32.data();
  in.b32 = d_b32.data();
  in.b32_word_major = d_b32_word_major.data();
  in.a64 = d_a64.data();
  in.b64 = d_b64.data();
  in.table = d_table.data();
  struct Variant {
    std::string name;
    std::string config;
    std::function<void(cudaStream_t)> work;
    bool binary;
  };
  std::vector<Variant> variants = {
      {"cuBLAS SGEMM (float)", "cublasSgemm",
       [&](cudaStream_t s) {
         lab09::cublas_sgemm(cublas, d_a.data(), d_b.data(), d_c.data(), n, n, n, s);
       },
       false},
  };
  // The binary matmuls of the technique table, each on the operands it reads, as
  // <<<blocks, threads>>>: a block per row of C, or a grid of tiles of C.
  for (const lab09::Technique& t : lab09::kTechniques) {
    std::string grid = std::to_string(n);  // a block per row of C
    if (t.tile > 0) {                      // a block per tile of C
      const std::string tiles = std::to_string((n + t.tile - 1) / t.tile);
      grid = tiles + "x" + tiles;
    }
    const dim3 block = t.kernel().block;
    const std::string threads = block.y > 1
                                    ? std::to_string(block.x) + "x" + std::to_string(block.y)
                                    : std::to_string(block.x);
    variants.push_back(
        {t.title, "<<<" + grid + ", " + threads + ">>>",
         [&, launch = t.launcher](cudaStream_t s) { launch(in, d_c.data(), n, n, n, s); }, true});
  }

  // The popcount ceiling at the SM clock measured now, from the per-CC table in common.
  const cudalab::Ceilings ceilings = cudalab::device_ceilings();
  const double ceiling = ceilings.popc_tbitops * 1e12;  // bit-ops (bit-MACs) per second
  const double macs = double(n) * n * n;
  cudalab::Table table(
      {"variant", "config", "ms", "vs cuBLAS", "TOPS", "Tbit-MAC/s", "% popc ceiling", "check"});
  double cublas_ms = 0.0;
  int status = 0;
  for (const Variant& v : variants) {
    // Poisoned with NaN first: a kernel that writes nothing fails the check.
    const auto r = cudalab::run_variant(v.work, opt.reps, v.name, opt.check ? verify : nullptr,
                                        [&] { d_c.fill_bytes(0xFF); });
    if (!r.ok) status = 1;
    if (cublas_ms == 0.0) cublas_ms = r.median_ms;
    const double per_second = macs / (r.median_ms * 1e-3);
    table.add_row({v.name, v.config, cudalab::fixed(r.median_ms, 3),
                   cudalab::fixed(cublas_ms / r.median_ms, 2) + "x",
                   cudalab::fixed(2.0 * per_second / 1e12, 1),
                   v.binary ? cudalab::fixed(per_second / 1e12, 1) : "-",
                   v.binary ? cudalab::fixed(100.0 * per_second / ceiling, 1) : "-", r.verdict});
  }
  table.print(std::cout);
  std::cout << "popc ceiling (cudalab::device_ceilings()): " << ceilings.describe()
            << "; TOPS = 2 n^3 / time (float FLOPs or bit operations)\n";
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  cudalab::DemoLimits limits;
  limits.default_size = 4096;
  limits.max_size = 16384;
  limits.default_block = lab09::kTile;
  return cudalab::run_demo(
      argc, argv, "lab09 blocked_xnor: tiled binary GEMM vs cuBLAS SGEMM on ±1 data", limits, run);
}
