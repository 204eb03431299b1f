// SPDX-License-Identifier: BSD-3-Clause
// Lab 14 demo: the ±1 product on the 1-bit tensor cores against the CUDA cores' popcount peak
// (measured by the given microbenchmark: no CUDA-core binary GEMM passes it) and cuBLAS's exact
// ways on the same data: SGEMM (FP32), TF32 and INT8 tensor-core GEMMs; the tensor-core kernels
// are those of lab14::kTechniques. Prints ms, Tbit-MAC/s (±1 multiply-adds per second) and the
// multiple of the popcount ceiling of the GPU.
#include <cstdint>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "binary_mma.cuh"
#include "cudalab/bench.cuh"
#include "cudalab/bits.hpp"
#include "cudalab/ceilings.cuh"
#include "cudalab/demo.hpp"
#include "cudalab/device.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/matrix.hpp"

namespace {

/// Packs rows (or columns, via pack_cols) into lab 14's layout: row_words(k) words per vector.
std::vector<std::uint32_t> repitch(const std::vector<std::uint32_t>& packed, int vectors, int k) {
  const int words = cudalab::bits::words32(k);
  const int pitch = lab14::row_words(k);
  std::vector<std::uint32_t> out(std::size_t(vectors) * pitch, 0u);
  for (int v = 0; v < vectors; ++v) {
    for (int w = 0; w < words; ++w) {
      out[std::size_t(v) * pitch + w] = packed[std::size_t(v) * words + w];
    }
  }
  return out;
}

int run(const cudalab::DemoOptions& opt) {
  const int n = opt.size;  // A, B and C are n x n; K = n bits
  if (opt.block != lab14::kBlockM) {
    std::cout << "note: the tiles are compile-time constants (kBlockM = " << lab14::kBlockM
              << "); --block " << opt.block << " is ignored\n";
  }
  const std::size_t count = std::size_t(n) * n;
  const std::vector<float> h_a = cudalab::random_matrix(n, n, cudalab::Fill::PlusMinusOne, 1);
  const std::vector<float> h_b = cudalab::random_matrix(n, n, cudalab::Fill::PlusMinusOne, 2);
  const auto a_bits = repitch(cudalab::bits::pack_rows(h_a, n, n), n, n);
  const auto b_bits = repitch(cudalab::bits::pack_cols(h_b, n, n), n, n);
  std::vector<std::int8_t> a8(count), b8_cols(count);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      a8[std::size_t(i) * n + j] = static_cast<std::int8_t>(h_a[std::size_t(i) * n + j]);
      b8_cols[std::size_t(j) * n + i] = static_cast<std::int8_t>(h_b[std::size_t(i) * n + j]);
    }
  }

  cudalab::DeviceBuffer<float> d_a(count), d_b(count), d_c(count);
  cudalab::DeviceBuffer<std::uint32_t> d_a_bits(a_bits.size()), d_b_bits(b_bits.size());
  cudalab::DeviceBuffer<std::int8_t> d_a8(count), d_b8(count);
  cudalab::DeviceBuffer<std::int32_t> d_c32(count);
  cudalab::DeviceBuffer<int> d_popcounts(2 * std::size_t(n));
  d_a.upload(h_a);
  d_b.upload(h_b);
  d_a_bits.upload(a_bits);
  d_b_bits.upload(b_bits);
  d_a8.upload(a8);
  d_b8.upload(b8_cols);
  const lab14::CublasHandle cublas;

  // Sampled rows of C against the host (every row up to --size 512).
  const std::vector<cudalab::ReferenceRows> want =
      opt.check ? cudalab::reference_rows(h_a, h_b, n, 512) : std::vector<cudalab::ReferenceRows>{};
  const auto check_floats = [&] { return cudalab::compare_rows(want, d_c.to_host(), n); };
  const auto check_ints = [&] {
    const std::vector<std::int32_t> got = d_c32.to_host();
    return cudalab::compare_rows(want, std::vector<float>(got.begin(), got.end()), n);
  };

  struct Variant {
    std::string name;
    std::string config;
    std::function<void(cudaStream_t)> work;
    bool int_output;
  };
  std::vector<Variant> variants = {
      {"cuBLAS SGEMM (FP32)", "cublasSgemm",
       [&](cudaStream_t s) {
         lab14::cublas_sgemm(cublas, d_a.data(), d_b.data(), d_c.data(), n, n, n, s);
       },
       false},
      {"cuBLAS TF32 (tensor cores)", "cublasGemmEx 32F_FAST_TF32",
       [&](cudaStream_t s) {
         lab14::cublas_tf32(cublas, d_a.data(), d_b.data(), d_c.data(), n, n, n, s);
       },
       false},
  };
  if (n % 4 == 0) {
    variants.push_back({"cuBLAS INT8 (tensor cores)", "cublasGemmEx 8I->32I TN",
                        [&](cudaStream_t s) {
                          lab14::cublas_int8(cublas, d_a8.data(), d_b8.data(), d_c32.data(), n, n,
                                             n, s);
                        },
                        true});
  } else {
    std::cout << "note: cuBLAS INT8 needs K a multiple of 4; left out at --size " << n << "\n";
  }
  // The tensor-core kernels of the technique table, each with its popcounts; one that cannot run
  // here (the advanced part's, sm_90a only) is left out.
  for (const lab14::Technique& t : lab14::kTechniques) {
    if (const std::string why = t.unavailable != nullptr ? t.unavailable() : ""; !why.empty()) {
      std::cout << "note: " << why << "; " << t.title << " is left out\n";
      continue;
    }
    variants.push_back({t.title, t.config,
                        [&, mma = t.launcher](cudaStream_t s) {
                          lab14::binary_gemm(mma, d_a_bits.data(), d_b_bits.data(),
                                             d_popcounts.data(), d_c.data(), n, n, n, s);
                        },
                        false});
  }

  // The CUDA cores' popcount peak, measured (given microbenchmark), and the popcount ceiling at
  // the SM clock measured now, from the per-CC table in common.
  constexpr int kPeakIterations = 1024;
  cudalab::DeviceBuffer<int> d_sink(static_cast<std::size_t>(lab14::popcount_peak_threads()));
  const auto peak_run = cudalab::run_variant(
      [&](cudaStream_t s) { lab14::popcount_peak(kPeakIterations, 0x9e3779b9u, d_sink.data(), s); },
      opt.reps, "CUDA-core popcount peak");
  const double peak = lab14::popcount_peak_bit_macs(kPeakIterations) / (peak_run.median_ms * 1e-3);
  const cudalab::Ceilings ceilings = cudalab::device_ceilings();
  const double ceiling = ceilings.popc_tbitops * 1e12;  // bit-MACs per second
  const double macs = double(n) * n * n;
  cudalab::Table table(
      {"variant", "config", "ms", "Tbit-MAC/s", "x popc ceiling", "x CUDA-core peak", "check"});
  std::vector<double> ms(variants.size());
  std::vector<std::string> verdicts(variants.size());
  int status = 0;
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const Variant& v = variants[i];
    cudalab::OutputCheck verify;
    if (opt.check) verify = v.int_output ? cudalab::OutputCheck(check_ints) : check_floats;
    const auto r = cudalab::run_variant(v.work, opt.reps, v.name, verify, [&] {
      d_c.fill_bytes(0xFF);  // NaN: a kernel that writes nothing fails the check
      d_c32.fill_bytes(0xFF);
    });
    if (!r.ok) status = 1;
    ms[i] = r.median_ms;
    verdicts[i] = r.verdict;
  }
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const double per_second = macs / (ms[i] * 1e-3);
    table.add_row({variants[i].name, variants[i].config, cudalab::fixed(ms[i], 3),
                   cudalab::fixed(per_second / 1e12, 1), cudalab::fixed(per_second / ceiling, 2),
                   cudalab::fixed(per_second / peak, 2) + "x", verdicts[i]});
  }
  table.print(std::cout);
  std::cout << "popc ceiling (cudalab::device_ceilings()): " << ceilings.describe()
            << "; CUDA-core popcount peak measured now: " << cudalab::fixed(peak / 1e12, 1)
            << " Tbit-MAC/s (" << cudalab::fixed(peak / ceiling, 2)
            << "x the ceiling); Tbit-MAC/s = n^3 / time (±1 multiply-adds, whatever the data "
               "type)\n";
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  cudalab::DemoLimits limits;
  limits.default_size = 4096;
  limits.max_size = 16384;
  limits.default_block = lab14::kBlockM;
  limits.block_is_2d = false;
  // mma.sync m16n8k256 .b1 exists from sm_80: on an older GPU the demo is skipped, not failed.
  limits.min_major = 8;
  limits.min_minor = 0;
  return cudalab::run_demo(
      argc, argv, "lab14 binary_mma: 1-bit tensor cores vs the CUDA cores and cuBLAS on ±1 data",
      limits, run);
}
