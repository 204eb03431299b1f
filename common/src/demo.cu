// SPDX-License-Identifier: BSD-3-Clause
#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "cudalab/bench.cuh"
#include "cudalab/check.cuh"
#include "cudalab/demo.hpp"
#include "cudalab/device.cuh"
#include "cudalab/gpu_lock.hpp"
#include "cudalab/verdict.hpp"

namespace cudalab {

namespace {

int parse_int(const std::string& flag, const char* text, int lo, int hi) {
  if (text == nullptr) throw UsageError(flag + " needs a value");
  errno = 0;
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || errno == ERANGE) {
    throw UsageError(flag + " expects an integer, got '" + text + "'");
  }
  if (v < lo || v > hi) {
    throw UsageError(flag + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                     "], got " + text);
  }
  return static_cast<int>(v);
}

}  // namespace

std::string demo_usage(const std::string& program, const DemoLimits& l) {
  std::ostringstream os;
  os << "usage: " << program << " [--size N] [--block B] [--reps R] [--check]\n"
     << "  --size N   problem side, " << l.min_size << ".." << l.max_size << " (default "
     << l.default_size << ")\n"
     << "  --block B  "
     << (l.block_is_2d ? "block edge (B x B threads), 1..32" : "threads per block, 1..1024")
     << " (default " << l.default_block << ")\n"
     << "  --reps R   timed repetitions, 1.." << l.max_reps << " (default " << l.default_reps
     << ")\n"
     << "  --check    verify every variant against the host reference (exit 1 on mismatch)\n";
  return os.str();
}

DemoOptions parse_demo_args(int argc, const char* const* argv, const DemoLimits& l, bool* help) {
  DemoOptions o{l.default_size, l.default_block, l.default_reps, false};
  if (help) *help = false;
  const int max_block = l.block_is_2d ? 32 : 1024;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    const char* value = nullptr;
    if (const auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = argv[i] + eq + 1;
      arg = arg.substr(0, eq);
    }
    auto next = [&]() -> const char* {
      if (value) return value;
      return i + 1 < argc ? argv[++i] : nullptr;
    };
    if (arg == "--size") {
      o.size = parse_int(arg, next(), l.min_size, l.max_size);
    } else if (arg == "--block") {
      o.block = parse_int(arg, next(), 1, max_block);
    } else if (arg == "--reps") {
      o.reps = parse_int(arg, next(), 1, l.max_reps);
    } else if (arg == "--check" && !value) {
      o.check = true;
    } else if ((arg == "--help" || arg == "-h") && !value) {
      if (help) *help = true;
    } else {
      throw UsageError("unknown option '" + std::string(argv[i]) + "' (try --help)");
    }
  }
  return o;
}

namespace {

int run_demo_body(int argc, const char* const* argv, const std::string& title,
                  const DemoLimits& limits, const std::function<int(const DemoOptions&)>& body);

/// Under the judge (a CTest run, cudalab/verdict.hpp), the demo's verdict goes on the verdict
/// channel: "passed" only when the run, checks included, returned 0. Returns @p rc.
int report_demo(int rc) {
  if (verdict::connected()) {
    const char* test = std::getenv("CUDALAB_TEST_NAME");
    std::string name = test == nullptr ? "" : test;
    for (char& c : name) {
      if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) c = '_';
    }
    const char* status = rc == 0 ? "passed" : rc == 77 ? "skipped" : "failed";
    // A "test" record first, as every grader's test sends: the scoreboard reads the run's
    // CUDALAB_SPEEDUP_SCALE from it (a demo is judged by its checks, not its speed).
    std::string scale = "null";
    try {
      char text[40];
      std::snprintf(text, sizeof text, "%.10g", speedup_scale());  // as the graders write it
      scale = text;
    } catch (const std::exception&) {
      // an invalid value: recorded as null, as the graders do
    }
    verdict::send("{\"type\": \"test\", \"test\": \"" + name + "\", \"speedup_scale\": " + scale +
                  "}");
    verdict::send("{\"type\": \"result\", \"test\": \"" + name + "\", \"status\": \"" + status +
                  "\", \"exit_code\": " + std::to_string(rc) + "}");
  }
  return rc;
}

}  // namespace

int run_demo(int argc, const char* const* argv, const std::string& title, const DemoLimits& limits,
             const std::function<int(const DemoOptions&)>& body) {
  try {
    verdict::open_channel();  // before the lab's code runs
    init_gpu_lock_from_environment();
    use_gpu(GpuUse::kShared,
            kWaitAsLongAsTheTest);  // a demo test shares the GPU like a correctness test
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << std::endl;
    return 2;
  }
  return report_demo(run_demo_body(argc, argv, title, limits, body));
}

namespace {

int run_demo_body(int argc, const char* const* argv, const std::string& title,
                  const DemoLimits& limits, const std::function<int(const DemoOptions&)>& body) {
  const std::string program = argc > 0 ? argv[0] : "demo";
  DemoOptions options;
  try {
    bool help = false;
    options = parse_demo_args(argc, argv, limits, &help);
    if (help) {
      std::cout << title << "\n" << demo_usage(program, limits);
      return 0;
    }
  } catch (const UsageError& e) {
    std::cerr << "error: " << e.what() << std::endl;
    return 2;
  }
  if (const std::string reason = gpu_unavailable_reason(limits.min_major, limits.min_minor);
      !reason.empty()) {
    std::cerr << program << ": skipped: " << reason << std::endl;
    return 77;
  }
  try {
    std::cout << title << "\n"
              << "device: " << describe(query_device()) << "\n\n";
    return body(options);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << std::endl;
    return 1;
  }
}

}  // namespace

void Table::add_row(std::vector<std::string> cells) {
  if (cells.size() != header_.size()) throw std::invalid_argument("Table: wrong number of cells");
  rows_.push_back(std::move(cells));
}

void Table::print(std::ostream& os) const {
  std::vector<std::size_t> width(header_.size());
  for (std::size_t c = 0; c < header_.size(); ++c) {
    width[c] = header_[c].size();
    for (const auto& r : rows_) width[c] = std::max(width[c], r[c].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    for (std::size_t c = 0; c < cells.size(); ++c) {
      os << (c ? "  " : "") << (c ? std::right : std::left) << std::setw(int(width[c])) << cells[c];
    }
    os << '\n';
  };
  line(header_);
  std::size_t total = 0;
  for (auto w : width) total += w + 2;
  os << std::string(total > 2 ? total - 2 : 0, '-') << '\n';
  for (const auto& r : rows_) line(r);
}

VariantResult check_variant(const OutputCheck& check, const std::string& label, std::ostream& err) {
  VariantResult result;
  if (!check) return result;
  const MatrixCompare cmp = check();
  result.ok = cmp.ok;
  result.verdict = cmp.ok ? "ok" : "WRONG";
  if (!cmp.ok) err << label << ": " << cmp.message << "\n";
  return result;
}

VariantResult run_variant(const GpuWork& work, int reps, const std::string& label,
                          const OutputCheck& check, const std::function<void()>& prepare) {
  VariantResult result;
  if (prepare || check) {
    if (prepare) prepare();
    work(nullptr);
    result = check_variant(check, label, std::cerr);
  }
  BenchOptions bo;
  bo.reps = reps;
  result.median_ms = benchmark(work, bo).median_ms;
  return result;
}

std::string fixed(double value, int digits) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(digits) << value;
  return os.str();
}

}  // namespace cudalab
