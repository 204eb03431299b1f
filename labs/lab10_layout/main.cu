// SPDX-License-Identifier: BSD-3-Clause
// Lab 10 demo: the same particles in three layouts. Times the x-only count through strides 1
// (SoA), 3 (AoS3), 4 (AoS4) and 32, the all-fields kernel over SoA and AoS4, and the AoS -> SoA
// conversion (naive and tiled) for records of 3 and 32 floats; each row shows the sectors per
// request your model predicts for the pattern and the bandwidth the kernel reached.
#include <cmath>
#include <cstdint>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "cudalab/bench.cuh"
#include "cudalab/check.cuh"
#include "cudalab/demo.hpp"
#include "cudalab/device_buffer.cuh"
#include "layout.cuh"

namespace {

/// A small integer in [-8, 8] for value @p k (a cheap hash: the demo fills hundreds of MB).
float small_int(std::uint64_t k) {
  k = (k + 0x9E3779B97F4A7C15ull) * 0xBF58476D1CE4E5B9ull;
  k ^= k >> 31;
  return static_cast<float>(static_cast<int>((k >> 40) % 17) - 8);
}

/// The model's sectors per request for @p stride_bytes and @p access_bytes ("?" if the model
/// throws, e.g. while it is still a stub).
std::string model_sectors(std::uint64_t stride_bytes, int access_bytes) {
  try {
    return std::to_string(
        lab10::sectors_touched(lab10::strided_request(stride_bytes, access_bytes)));
  } catch (const std::exception&) {
    return "?";
  }
}

int run(const cudalab::DemoOptions& opt) {
  const int n = opt.size;  // particles
  if (opt.block != lab10::kPointThreads) {
    std::cout << "note: the block size is fixed (kPointThreads = " << lab10::kPointThreads
              << "); --block " << opt.block << " is ignored\n";
  }
  const std::size_t count = static_cast<std::size_t>(n);
  constexpr int kStride = 32;  // the strided read: one float per 128-byte line

  // Particle i: (x, y, z, m) = small_int(4i + 0..3), mass made non-negative.
  std::vector<float> h_x(count), h_y(count), h_z(count), h_m(count), h_aos4(4 * count),
      h_aos3(3 * count);
  for (std::size_t i = 0; i < count; ++i) {
    const float v[4] = {small_int(4 * i), small_int(4 * i + 1), small_int(4 * i + 2),
                        std::fabs(small_int(4 * i + 3))};
    h_x[i] = v[0];
    h_y[i] = v[1];
    h_z[i] = v[2];
    h_m[i] = v[3];
    for (int f = 0; f < 4; ++f) h_aos4[4 * i + f] = v[f];
    for (int f = 0; f < 3; ++f) h_aos3[3 * i + f] = v[f];
  }

  cudalab::DeviceBuffer<float> d_x(count), d_y(count), d_z(count), d_m(count), d_out(count);
  cudalab::DeviceBuffer<float> d_aos4(4 * count), d_aos3(3 * count), d_strided(count * kStride);
  d_x.upload(h_x);
  d_y.upload(h_y);
  d_z.upload(h_z);
  d_m.upload(h_m);
  d_aos4.upload(h_aos4);
  d_aos3.upload(h_aos3);
  // x[i] at float i * kStride of the strided array (a 2-D copy: rows of one float), 0 between.
  d_strided.fill_bytes(0);
  CUDA_CHECK(cudaMemcpy2D(d_strided.data(), kStride * sizeof(float), h_x.data(), sizeof(float),
                          sizeof(float), count, cudaMemcpyHostToDevice));
  cudalab::DeviceBuffer<unsigned int> d_count(1);
  const lab10::PointsSoA soa{d_x.data(), d_y.data(), d_z.data(), d_m.data()};
  const auto* p4 = reinterpret_cast<const float4*>(d_aos4.data());
  const float3 c{1.0f, -2.0f, 0.5f};
  const float x0 = 0.5f;  // count x < 0.5

  unsigned long long want_count = 0;
  for (const float x : h_x) want_count += x < x0 ? 1 : 0;
  const cudalab::OutputCheck check_count = [&] {
    cudalab::MatrixCompare r;
    const unsigned int got = d_count.to_host()[0];
    if (got != want_count) {
      r.ok = false;
      r.message = "count " + std::to_string(got) + ", expected " + std::to_string(want_count);
    }
    return r;
  };
  // The distances on at most 4096 sampled particles (and the last one).
  const cudalab::OutputCheck check_distance = [&] {
    const std::vector<float> got = d_out.to_host();
    std::vector<float> want, have;
    const std::size_t step = count > 4096 ? count / 4096 : 1;
    for (std::size_t i = 0; i < count; i += step) {
      const float dx = h_x[i] - c.x, dy = h_y[i] - c.y, dz = h_z[i] - c.z;
      want.push_back(h_m[i] * (dx * dx + dy * dy + dz * dz));
      have.push_back(got[i]);
    }
    return cudalab::compare_matrices(want, have, 1, static_cast<int>(want.size()), 0.0);
  };

  // Conversion inputs: records of 3 (the AoS3 particles) and of 32 floats (n / 8 records).
  const int wide_n = std::max(1, n / 8);
  constexpr int kWide = 32;
  std::vector<float> h_wide(static_cast<std::size_t>(wide_n) * kWide);
  for (std::size_t e = 0; e < h_wide.size(); ++e) h_wide[e] = small_int(e + 12345);
  cudalab::DeviceBuffer<float> d_wide(h_wide.size()), d_soa(std::max(h_wide.size(), 3 * count));
  d_wide.upload(h_wide);
  const auto check_soa = [&](const std::vector<float>& aos, int records, int fields) {
    return cudalab::OutputCheck([&, records, fields] {
      const std::vector<float> got = d_soa.to_host();
      std::vector<float> want, have;
      const int step = records > 4096 ? records / 4096 : 1;
      for (int i = 0; i < records; i += step) {
        for (int f = 0; f < fields; ++f) {
          want.push_back(aos[static_cast<std::size_t>(i) * fields + f]);
          have.push_back(got[static_cast<std::size_t>(f) * records + i]);
        }
      }
      return cudalab::compare_matrices(want, have, 1, static_cast<int>(want.size()), 0.0);
    });
  };

  struct Variant {
    std::string name;
    std::string layout;
    std::string sectors;  // model sectors per request of the main load
    double bytes;         // bytes the work must move at least
    cudalab::GpuWork work;
    cudalab::OutputCheck check;
    std::function<void()> poison;
    bool starts_group;
  };
  const double fb = sizeof(float);
  const auto poison_count = [&] { d_count.fill_bytes(0xFF); };
  const auto poison_out = [&] { d_out.fill_bytes(0xFF); };
  const auto poison_soa = [&] { d_soa.fill_bytes(0xFF); };
  std::vector<Variant> variants = {
      {"x only: SoA x", "stride 1", model_sectors(4, 4), fb * n,
       [&](cudaStream_t s) { lab10::count_below(d_x.data(), 1, n, x0, d_count.data(), s); },
       check_count, poison_count, true},
      {"x only: AoS3 p.x", "stride 3", model_sectors(12, 4), fb * n,
       [&](cudaStream_t s) { lab10::count_below(d_aos3.data(), 3, n, x0, d_count.data(), s); },
       check_count, poison_count, false},
      {"x only: AoS4 p.x", "stride 4", model_sectors(16, 4), fb * n,
       [&](cudaStream_t s) { lab10::count_below(d_aos4.data(), 4, n, x0, d_count.data(), s); },
       check_count, poison_count, false},
      {"x only: strided read", "stride 32", model_sectors(4 * kStride, 4), fb * n,
       [&](cudaStream_t s) {
         lab10::count_below(d_strided.data(), kStride, n, x0, d_count.data(), s);
       },
       check_count, poison_count, false},
      {"all fields: SoA", "4 arrays", model_sectors(4, 4), 5 * fb * n,
       [&](cudaStream_t s) { lab10::weighted_distance_soa(soa, c, d_out.data(), n, s); },
       check_distance, poison_out, true},
      {"all fields: AoS4", "float4", model_sectors(16, 16), 5 * fb * n,
       [&](cudaStream_t s) { lab10::weighted_distance_aos4(p4, c, d_out.data(), n, s); },
       check_distance, poison_out, false},
  };
  // The conversions of the technique table, in its order, for records of 3 floats (the AoS3
  // particles) and of kWide floats.
  struct Records {
    const float* d_aos;
    const std::vector<float>* h_aos;
    int n;
    int fields;
  };
  for (const Records& r :
       {Records{d_aos3.data(), &h_aos3, n, 3}, Records{d_wide.data(), &h_wide, wide_n, kWide}}) {
    for (const lab10::Technique& t : lab10::kTechniques) {
      variants.push_back(
          {"AoS->SoA " + std::to_string(r.fields) + " fields: " + t.title,
           t.given ? std::string("given")
                   : "pitch " + std::to_string(lab10::record_pitch(r.fields)),
           model_sectors(4 * std::uint64_t(t.lane_stride(r.fields)), 4), 2.0 * r.fields * fb * r.n,
           [&d_soa, r, &t](cudaStream_t s) { t.launcher(r.d_aos, d_soa.data(), r.n, r.fields, s); },
           check_soa(*r.h_aos, r.n, r.fields), poison_soa, &t == &lab10::kTechniques[0]});
    }
  }

  cudalab::Table table({"variant", "layout", "model sectors/req", "ms", "useful GB/s",
                        "vs first of group", "check"});
  double group_ms = 0.0;
  int status = 0;
  for (const Variant& v : variants) {
    const auto r =
        cudalab::run_variant(v.work, opt.reps, v.name, opt.check ? v.check : nullptr, v.poison);
    if (!r.ok) status = 1;
    if (v.starts_group) group_ms = r.median_ms;
    table.add_row({v.name, v.layout, v.sectors, cudalab::fixed(r.median_ms, 4),
                   cudalab::fixed(v.bytes / (r.median_ms * 1e6), 0),
                   cudalab::fixed(group_ms / r.median_ms, 2) + "x", r.verdict});
  }
  table.print(std::cout);
  std::cout << n << " particles (" << wide_n << " records of " << kWide
            << " floats); useful GB/s = bytes the kernel must read and write / time\n";
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  cudalab::DemoLimits limits;
  limits.default_size = 1 << 24;
  limits.max_size = 1 << 26;
  limits.default_block = lab10::kPointThreads;
  limits.block_is_2d = false;
  return cudalab::run_demo(argc, argv,
                           "lab10 layout: sectors per request, SoA vs AoS, strided reads, "
                           "AoS -> SoA conversion",
                           limits, run);
}
