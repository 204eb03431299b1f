// SPDX-License-Identifier: BSD-3-Clause
#include "cudalab/tools.hpp"

#include <cxxabi.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <memory>
#include <regex>
#include <sstream>
#include <utility>
#include <vector>

#include "cudalab/gpu_lock.hpp"
#include "cudalab/remote.hpp"

namespace cudalab::testing {

std::string demangle(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : mangled;
}

namespace {

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') {
      q += "'\\''";
    } else {
      q += c;
    }
  }
  return q + "'";
}

std::string self_executable() {
  std::array<char, 4096> buf{};
  const ssize_t n = readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  return n > 0 ? std::string(buf.data(), std::size_t(n)) : std::string();
}

bool is_executable(const std::string& path) {
  return access(path.c_str(), X_OK) == 0;
}

// Runs a shell command, returns its exit code and captures stdout+stderr.
int run_command(const std::string& command, std::string& output) {
  output.clear();
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return -1;
  std::array<char, 4096> buf{};
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) output.append(buf.data(), n);
  const int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status)
                           : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

std::string inner_command(const std::string& filter) {
  return shell_quote(self_executable()) + " " + shell_quote("--gtest_filter=" + filter) +
         " --gtest_color=no";
}

// Reasons a tool may refuse this machine, recognised in its output.
std::string refusal_reason(const std::string& tool, const std::string& out) {
  if (out.find("ERR_NVGPUCTRPERM") != std::string::npos) {
    return tool +
           " may not read the GPU performance counters here (ERR_NVGPUCTRPERM). "
           "Fix: run as root, or load the driver with NVreg_RestrictProfilingToAdminUsers=0 "
           "(see README.md, Troubleshooting)";
  }
  if (out.find("Device not supported") != std::string::npos ||
      out.find("LibraryNotLoaded") != std::string::npos ||
      out.find("Failed to initialize the profiler") != std::string::npos ||
      out.find("Unable to initialize") != std::string::npos) {
    return tool + " cannot use this GPU or driver: " + excerpt(out, 4);
  }
  return "";
}

ToolRun start(const std::string& name, const std::string& env_var) {
  ToolRun r;
  if (running_under_tool()) {
    r.skip_reason = "already running under a tool";
    return r;
  }
  std::string path;
  if (const char* e = std::getenv(env_var.c_str()); e && *e) path = e;
  if (path.empty()) path = find_tool(name);
  if (path.empty() || !is_executable(path)) {
    r.skip_reason = name + " not found (put it on PATH or set " + env_var + ")";
    return r;
  }
  if (self_executable().empty()) {
    r.skip_reason = "cannot locate this executable (/proc/self/exe)";
    return r;
  }
  r.available = true;
  r.command = shell_quote(path);
  return r;
}

}  // namespace

bool running_under_tool() {
  const char* e = std::getenv("CUDALAB_UNDER_TOOL");
  return e != nullptr && *e != '\0';
}

std::string find_tool(const std::string& name) {
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    for (std::string d; std::getline(ss, d, ':');) {
      if (!d.empty()) dirs.push_back(d);
    }
  }
#ifdef CUDALAB_CUDA_BIN_DIR
  dirs.push_back(CUDALAB_CUDA_BIN_DIR);
#endif
  dirs.push_back("/usr/local/cuda/bin");
  dirs.push_back("/usr/local/cuda/compute-sanitizer");
  dirs.push_back("/opt/nvidia/nsight-compute");
  for (const auto& d : dirs) {
    const std::string p = d + "/" + name;
    if (is_executable(p)) return p;
  }
  return "";
}

int tests_ran(const std::string& output) {
  static const std::regex ran(R"(\[==========\] (\d+) tests? from \d+ test (suites?|cases?) ran)");
  std::smatch m;
  if (std::regex_search(output, m, ran)) return std::stoi(m[1]);
  return -1;
}

std::string excerpt(const std::string& output, std::size_t max_lines) {
  std::vector<std::string> lines;
  std::stringstream ss(output);
  for (std::string l; std::getline(ss, l);) lines.push_back(l);
  if (lines.size() <= max_lines) return output;
  std::string out;
  const std::size_t head = max_lines / 2;
  for (std::size_t i = 0; i < head; ++i) out += lines[i] + "\n";
  out += "  ... (" + std::to_string(lines.size() - max_lines) + " lines omitted) ...\n";
  for (std::size_t i = lines.size() - (max_lines - head); i < lines.size(); ++i)
    out += lines[i] + "\n";
  return out;
}

ToolRun run_sanitizer(const std::string& tool, const std::string& gtest_filter) {
  ToolRun r = start("compute-sanitizer", "CUDALAB_COMPUTE_SANITIZER");
  if (!r.available) return r;
  // memcheck sees an access only outside every allocation; --padding leaves 512 unallocated
  // bytes after each one, so a read just past an operand whose size is a multiple of the
  // allocation granularity cannot land unseen in the next operand.
  const std::string padding = tool == "memcheck" ? " --padding 512" : "";
  // application-only: every kernel a test runs is launched by the grader itself (a judged lab's
  // candidate process only captures its launcher's work, cudalab/remote.hpp).
  r.command = "CUDALAB_UNDER_TOOL=1 " + r.command + " --tool " + shell_quote(tool) + padding +
              " --error-exitcode 86 --print-limit 20 --target-processes application-only " +
              inner_command(gtest_filter);
  r.exit_code = run_command(r.command, r.output);
  if (const std::string why = refusal_reason("compute-sanitizer", r.output); !why.empty()) {
    r.available = false;
    r.skip_reason = why;
  }
  return r;
}

NcuRun run_ncu(const std::vector<std::string>& metrics, const std::string& kernel_regex,
               const std::string& gtest_filter) {
  NcuRun r;
  static_cast<ToolRun&>(r) = start("ncu", "CUDALAB_NCU");
  if (!r.available) return r;
  std::string joined;
  for (const auto& m : metrics) joined += (joined.empty() ? "" : ",") + m;
  const std::string ncu = r.command;
  // The profiled grader runs under this process's hold of the GPU alone and takes no lock.
  r.command = "CUDALAB_UNDER_TOOL=1 CUDALAB_GPU_LOCK_DIR= " + ncu +
              " --clock-control none --target-processes application-only --csv --page raw "
              "--metrics " +
              shell_quote(joined) + " --kernel-name " + shell_quote("regex:" + kernel_regex) + " " +
              inner_command(gtest_filter);
  {
    const AloneOnGpu alone;  // the counters count this grader's kernels only
    r.exit_code = run_command(r.command, r.output);
  }
  if (const std::string why = refusal_reason("ncu", r.output); !why.empty()) {
    r.available = false;
    r.skip_reason = why;
    return r;
  }
  // CSV: a header row starting with "ID", a units row, then one row per launch.
  std::stringstream ss(r.output);
  std::vector<std::string> header;
  auto split = [](const std::string& line) {
    std::vector<std::string> cells;
    std::string cell;
    bool quoted = false;
    for (char c : line) {
      if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        cells.push_back(cell);
        cell.clear();
      } else {
        cell += c;
      }
    }
    cells.push_back(cell);
    return cells;
  };
  for (std::string line; std::getline(ss, line);) {
    if (line.rfind("\"ID\"", 0) == 0) {
      header = split(line);
      continue;
    }
    if (header.empty() || line.empty() || line[0] != '"') continue;
    const auto cells = split(line);
    if (cells.size() != header.size() || cells[0].empty() ||
        !std::isdigit(static_cast<unsigned char>(cells[0][0]))) {
      continue;  // the units row, or something else
    }
    KernelMetrics k;
    for (std::size_t i = 0; i < header.size(); ++i) {
      if (header[i] == "Kernel Name") k.name = cells[i];
      for (const auto& m : metrics) {
        if (header[i] == m) {
          std::string v;
          for (char c : cells[i]) {
            if (c != ',') v += c;
          }
          k.values[m] = std::strtod(v.c_str(), nullptr);
        }
      }
    }
    r.kernels.push_back(std::move(k));
  }
  return r;
}

void expect_tool_clean(const ToolRun& run, const std::string& what) {
  const int n = tests_ran(run.output);
  // The tool's own verdict, e.g. "========= ERROR SUMMARY: 0 errors" (memcheck, synccheck)
  // or "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)".
  static const std::regex summary_line(R"(========= [A-Z]+ SUMMARY: [^\n]*)");
  std::smatch m;
  const bool has_summary = std::regex_search(run.output, m, summary_line);
  std::printf("[ TOOL     ] %s: %d test(s) ran under the tool, exit code %d, %s\n", what.c_str(), n,
              run.exit_code, has_summary ? m.str().c_str() : "no SUMMARY line");
  EXPECT_TRUE(has_summary) << what << ": the tool printed no SUMMARY line, so it checked nothing:\n"
                           << excerpt(run.output);
  EXPECT_GT(n, 0) << what << " ran no test (check the gtest filter): " << run.command << "\n"
                  << excerpt(run.output);
  EXPECT_EQ(run.exit_code, 0) << what << " reported errors (exit code " << run.exit_code << "):\n"
                              << excerpt(run.output);
}

namespace {

/// `cuobjdump <option>` of this executable into @p out; an empty string, or why not.
std::string cuobjdump_this_grader(const std::string& option, std::string& out) {
  const std::string tool = find_tool("cuobjdump");
  if (tool.empty()) {
    return "cuobjdump not found (CUDA toolkit bin/ not on PATH); the compiled code is not checked";
  }
  const std::string exe = self_executable();
  if (exe.empty()) return "cannot locate this executable (/proc/self/exe)";
  // This executable, then the device code the build extracted from a judged lab's objects
  // (cudalab/remote.hpp), whose kernels the grader loads and runs: listed concurrently (one
  // cuobjdump takes 0.4 s even for a small file, 6.5 s for a grader on an H200 machine), in
  // this order.
  std::vector<std::string> files{exe};
  for (const std::string& file : remote::device_code_files()) files.push_back(file);
  std::vector<std::future<std::pair<int, std::string>>> runs;
  for (const std::string& file : files) {
    runs.push_back(std::async(std::launch::async, [&tool, &option, file] {
      std::string listing;
      const int code =
          run_command(shell_quote(tool) + " " + option + " " + shell_quote(file), listing);
      return std::make_pair(code, std::move(listing));
    }));
  }
  out.clear();
  std::string problem;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    auto [code, listing] = runs[i].get();
    if (code != 0 && problem.empty()) {
      problem = "cuobjdump " + option + (i == 0 ? "" : " " + files[i]) + " failed (exit " +
                std::to_string(code) + "): " + excerpt(listing, 6);
    }
    out += listing;
  }
  return problem;
}

}  // namespace

const SassListing& sass_of_this_grader() {
  static const SassListing listing = [] {
    SassListing s;
    std::string out;
    s.skip_reason = cuobjdump_this_grader("-sass", out);
    if (!s.skip_reason.empty()) return s;
    static const std::regex arch_line(R"(arch\s*=\s*(sm_[0-9]+[a-z]?))");
    static const std::regex function_line(R"(Function\s*:\s*(\S+))");
    // `/*0700*/   @!P0 BMMA.168256.AND.POPC R12, ... ;` -> BMMA.168256.AND.POPC, "R12, ..."
    static const std::regex instruction(
        R"(/\*[0-9a-f]+\*/\s+(?:@!?U?P[0-9T]+\s+)?([A-Z][A-Z0-9_.]*)\s*([^;]*))");
    std::string arch;
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
      std::smatch m;
      if (std::regex_search(line, m, arch_line)) {
        arch = m[1];
      } else if (std::regex_search(line, m, function_line)) {
        s.functions.push_back(SassFunction{arch, m[1], {}, {}});
      } else if (!s.functions.empty() && std::regex_search(line, m, instruction)) {
        std::string operands = m[2];
        operands.erase(operands.find_last_not_of(" \t") + 1);
        s.functions.back().opcodes.push_back(m[1]);
        s.functions.back().operands.push_back(operands);
      }
    }
    s.excerpt = excerpt(out, 20);
    return s;
  }();
  return listing;
}

const LaunchBoundsListing& launch_bounds_of_this_grader() {
  static const LaunchBoundsListing listing = [] {
    LaunchBoundsListing l;
    std::string out;
    l.skip_reason = cuobjdump_this_grader("-elf", out);
    if (!l.skip_reason.empty()) return l;
    // A kernel's attributes follow its section's name on a line of its own:
    //   .nv.info._Z...kernel...
    //     Attribute:  EIATTR_MAX_THREADS
    //     Value:      0x100 0x1 0x1
    static const std::regex section(R"(^\.nv\.info\.(\S+)\s*$)");
    static const std::regex value(
        R"(Value:\s*(0x[0-9a-fA-F]+)\s+(0x[0-9a-fA-F]+)\s+(0x[0-9a-fA-F]+))");
    std::string kernel;
    bool max_threads_next = false;
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
      std::smatch m;
      if (std::regex_search(line, m, section)) {
        kernel = m[1];
        l.kernels.emplace(kernel, 0);
        max_threads_next = false;
      } else if (line.rfind(".section", 0) == 0) {
        kernel.clear();
      } else if (!kernel.empty() && line.find("EIATTR_MAX_THREADS") != std::string::npos) {
        max_threads_next = true;
      } else if (max_threads_next && std::regex_search(line, m, value)) {
        int threads = 1;
        for (int i = 1; i <= 3; ++i) threads *= static_cast<int>(std::stoul(m[i], nullptr, 16));
        l.kernels[kernel] = threads;
        max_threads_next = false;
      }
    }
    l.excerpt = excerpt(out, 20);
    return l;
  }();
  return listing;
}

}  // namespace cudalab::testing
