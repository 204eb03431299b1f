// SPDX-License-Identifier: BSD-3-Clause
// Lab 04 demo: naive vs the tiled matmuls of lab04::kTechniques (static tiles, dynamic tiles with
// the default and the largest plan) on a size x size problem, with the launch configuration and
// shared memory of each variant.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "cudalab/bench.cuh"
#include "cudalab/demo.hpp"
#include "cudalab/device_buffer.cuh"
#include "cudalab/matrix.hpp"
#include "shared_memory.cuh"

namespace {

struct Variant {
  std::string name;
  std::string config;
  cudalab::GpuWork work;
};

int run(const cudalab::DemoOptions& opt) {
  const int n = opt.size;
  const std::size_t count = std::size_t(n) * n;
  // Small integers: every variant's result is exact, so all must agree bit for bit.
  const auto h_a = cudalab::random_matrix(n, n, cudalab::Fill::SmallInt, 1);
  const auto h_b = cudalab::random_matrix(n, n, cudalab::Fill::SmallInt, 2);
  cudalab::DeviceBuffer<float> d_a(count), d_b(count), d_c(count);
  d_a.upload(h_a);
  d_b.upload(h_b);

  const lab04::SmemLimits limits = lab04::current_smem_limits();
  const lab04::DynamicTilePlan plan_default =
      lab04::plan_dynamic_tile(limits, lab04::kDefaultDynamicBudget, n);
  const lab04::DynamicTilePlan plan_max = lab04::plan_dynamic_tile(limits, SIZE_MAX, n);
  const auto dyn_config = [](const lab04::DynamicTilePlan& p) {
    return std::to_string(p.tile) + "x" + std::to_string(p.tile) + ", depth " +
           std::to_string(p.depth) + ", " + std::to_string(p.smem_bytes / 1024) + " KB" +
           (p.needs_optin ? " (opt-in)" : "");
  };
  const float* a = d_a.data();
  const float* b = d_b.data();
  float* c = d_c.data();
  const std::string block = std::to_string(opt.block);
  std::vector<Variant> variants = {
      {"naive", block + "x" + block + ", no smem",
       [=](cudaStream_t s) { lab04::matmul_naive(a, b, c, n, n, n, s, opt.block); }},
  };
  // The tiled matmuls of the technique table: a technique that follows the plan once per plan
  // (the default budget's, then the largest), the static tiles once (their launcher ignores it).
  struct PlanRow {
    const char* suffix;  // after the technique's title
    lab04::DynamicTilePlan plan;
  };
  const PlanRow plan_rows[] = {{"", plan_default}, {" max", plan_max}};
  const std::string static_config =
      std::to_string(lab04::kStaticTile) + "x" + std::to_string(lab04::kStaticTile) + ", " +
      std::to_string(2 * lab04::kStaticTile * lab04::kStaticTile * 4 / 1024) + " KB";
  for (const lab04::Technique& x : lab04::kTechniques) {
    const std::size_t rows = x.follows_plan ? std::size(plan_rows) : 1;
    for (std::size_t i = 0; i < rows; ++i) {
      const PlanRow& r = plan_rows[i];
      variants.push_back({x.title + std::string(r.suffix),
                          x.follows_plan ? dyn_config(r.plan) : static_config,
                          [=, launch = x.launcher, plan = r.plan](cudaStream_t s) {
                            launch(a, b, c, n, n, n, plan, s);
                          }});
    }
  }

  // The rows of C checked against the host: all of a small C, else 8 at each end (a row of
  // C needs only its row of A, so the host multiplies those rows alone: bounded at 8192).
  const int head = n <= 512 ? n : 8;
  const auto rows_of_a = [&](int first) {
    return std::vector<float>(h_a.begin() + std::ptrdiff_t(first) * n,
                              h_a.begin() + std::ptrdiff_t(first + head) * n);
  };
  std::vector<float> want_head, want_tail;
  if (opt.check) {
    want_head = cudalab::reference_matmul(rows_of_a(0), h_b, head, n, n);
    want_tail = cudalab::reference_matmul(rows_of_a(n - head), h_b, head, n, n);
  }
  cudalab::Table table({"variant", "launch", "ms", "TFLOP/s", "speedup", "check"});
  double naive_ms = 0.0;
  int status = 0;
  const cudalab::OutputCheck check = [&] {
    const std::vector<float> got = d_c.to_host();
    const std::vector<float> got_head(got.begin(), got.begin() + std::ptrdiff_t(head) * n);
    const std::vector<float> got_tail(got.end() - std::ptrdiff_t(head) * n, got.end());
    const cudalab::MatrixCompare first =
        cudalab::compare_matrices(want_head, got_head, head, n, 0.0);
    if (!first.ok) return first;
    return cudalab::compare_matrices(want_tail, got_tail, head, n, 0.0);
  };
  const std::function<void()> poison = [&] { d_c.fill_bytes(0xFF); };
  for (const Variant& v : variants) {
    // Without --check the variant is only timed (no prepare, no check: no extra run).
    const auto r = cudalab::run_variant(v.work, opt.reps, v.name, opt.check ? check : nullptr,
                                        opt.check ? poison : nullptr);
    if (!r.ok) status = 1;
    if (naive_ms == 0.0) naive_ms = r.median_ms;
    const double tflops = 2.0 * n * n * double(n) / (r.median_ms * 1e9);
    table.add_row({v.name, v.config, cudalab::fixed(r.median_ms, 3), cudalab::fixed(tflops, 2),
                   cudalab::fixed(naive_ms / r.median_ms, 2) + "x", r.verdict});
  }
  table.print(std::cout);
  std::cout << "shared memory per block: " << limits.per_block_default / 1024 << " KB default, "
            << limits.per_block_optin / 1024 << " KB with opt-in\n";
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  cudalab::DemoLimits limits;
  limits.default_size = 2048;
  limits.max_size = 8192;
  limits.default_block = lab04::kNaiveBlock;
  return cudalab::run_demo(argc, argv, "lab04 shared_memory: tiled matmul, static vs dynamic",
                           limits, run);
}
