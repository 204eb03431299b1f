// SPDX-License-Identifier: BSD-3-Clause
// Lab 05 demo: bank diagrams of the lab's access patterns with your model's verdict,
// the measured degree of each pattern, and the two microbenchmarks (lab05::kTechniques).
#include <array>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "bank_conflict.cuh"
#include "cudalab/bank_diagram.hpp"
#include "cudalab/bank_model.hpp"
#include "cudalab/conflict_meter.cuh"
#include "cudalab/demo.hpp"

namespace {

namespace bank = cudalab::bank;

struct Pattern {
  std::string name;
  bank::WarpRequest request;
  bool draw;  ///< print its diagram
};

std::vector<Pattern> lab_patterns() {
  std::vector<Pattern> p;
  for (const int s : {1, 2, 4, 8, 16, 32, 33}) {
    p.push_back({"stride " + std::to_string(s), bank::from_word_indices(bank::strided_words(s)),
                 s == 1 || s == 2 || s == 32 || s == 33});
  }
  p.push_back({"broadcast", bank::from_word_indices(bank::broadcast_words(0)), true});
  p.push_back({"float2 stride 1", bank::from_element_indices(bank::strided_words(1), 8), true});
  p.push_back({"float4 stride 2", bank::from_element_indices(bank::strided_words(2), 16), false});
  return p;
}

/// The student's model, or "throws" when it does.
std::string your_degree(const bank::WarpRequest& r) {
  try {
    return std::to_string(lab05::conflict_degree(r));
  } catch (const std::exception& e) {
    return std::string("throws: ") + e.what();
  }
}

int run(const cudalab::DemoOptions& opt) {
  int status = 0;
  const auto patterns = lab_patterns();
  for (const Pattern& p : patterns) {
    if (!p.draw) continue;
    std::cout << bank::render_bank_diagram(p.request, p.name)
              << "your model: " << your_degree(p.request) << "\n\n";
  }

  // Every pattern: both models, and the meter for 4-byte patterns.
  cudalab::Table table(
      {"pattern", "bytes", "your model", "reference", "cycles/access", "measured"});
  for (const Pattern& p : patterns) {
    const int reference = bank::conflict_degree(p.request);
    const std::string yours = your_degree(p.request);
    std::string cycles = "-", measured = "-";
    if (p.request.access_bytes == 4) {  // the meter measures 4-byte patterns
      std::array<std::int64_t, 32> words{};
      for (std::size_t i = 0; i < words.size(); ++i) {
        words[i] = static_cast<std::int64_t>(p.request.byte_address[i] / 4);
      }
      const bank::MeterReading m = bank::measure_word_pattern(words);
      cycles = cudalab::fixed(m.cycles_per_access, 2);
      measured = cudalab::fixed(m.degree, 2);
    }
    if (opt.check && yours != std::to_string(reference)) {
      std::cerr << p.name << ": your model says " << yours << ", the reference " << reference
                << "\n";
      status = 1;
    }
    table.add_row({p.name, std::to_string(p.request.access_bytes), yours, std::to_string(reference),
                   cycles, measured});
  }
  table.print(std::cout);

  // The microbenchmarks: opt.size dependent loads per lane, best of opt.reps launches.
  std::cout << "\n";
  cudalab::Table bench({"microbenchmark", "steps", "cycles/access", "measured degree", "chain"});
  const bank::MeterCalibration cal = bank::calibrate_meter();
  std::vector<double> cycles;
  for (const lab05::Technique& t : lab05::kTechniques) {  // conflict-free, then 32-way
    const auto r = lab05::run_microbench(t.which, opt.size, opt.reps);
    const bool ok = r.final_word == lab05::expected_final_words(t.which, opt.size);
    if (opt.check && !ok) status = 1;
    cycles.push_back(r.cycles_per_access);
    bench.add_row({t.kernel().name, std::to_string(opt.size),
                   cudalab::fixed(r.cycles_per_access, 2),
                   cudalab::fixed(bank::degree_from_cycles(r.cycles_per_access, cal), 2),
                   ok ? "ok" : "WRONG"});
  }
  bench.print(std::cout);
  std::cout << "32-way / conflict-free: " << cudalab::fixed(cycles[1] / cycles[0], 2) << "x\n";
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  cudalab::DemoLimits limits;
  limits.default_size = 4096;  // dependent loads per microbenchmark run
  limits.max_size = 1 << 20;
  limits.default_reps = 5;  // launches; the fastest counts
  limits.max_reps = 100;
  return cudalab::run_demo(argc, argv, "lab05 bank_conflict: the model and the measurement", limits,
                           run);
}
