// SPDX-License-Identifier: BSD-3-Clause
#include "cudalab/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace cudalab {
namespace {

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, '\t')) out.push_back(field);
  return out;
}

[[noreturn]] void bad_line(const std::string& file, int line, const std::string& why) {
  throw std::runtime_error("calibration file " + file + ":" + std::to_string(line) + ": " + why);
}

}  // namespace

double Calibration::bar(const std::string& test, const std::string& measurement) const {
  const auto it = bars.find({test, measurement});
  return it == bars.end() ? std::nan("") : it->second;
}

double Calibration::bar_by_gtest_name(const std::string& gtest_name,
                                      const std::string& measurement) const {
  double found = std::nan("");
  int matches = 0;
  const std::string suffix = "." + gtest_name;
  for (const auto& [key, value] : bars) {
    const std::string& test = key.first;
    if (key.second != measurement || test.size() <= suffix.size()) continue;
    if (test.compare(test.size() - suffix.size(), std::string::npos, suffix) != 0) continue;
    found = value;
    ++matches;
  }
  return matches == 1 ? found : std::nan("");
}

Calibration parse_calibration(std::istream& in, const std::string& file) {
  Calibration c;
  c.file = file;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> f = split_tabs(line);
    if (f[0] == "bar") {
      if (f.size() < 6) bad_line(file, number, "a bar needs test, measurement, bound, bar, rule");
      if (f[3] != "min" && f[3] != "max") bad_line(file, number, "bound must be min or max");
      char* end = nullptr;
      const double v = std::strtod(f[4].c_str(), &end);
      if (end == f[4].c_str() || *end != '\0' || !std::isfinite(v) || v <= 0) {
        bad_line(file, number, "the bar '" + f[4] + "' is not a positive number");
      }
      if (!c.bars.emplace(std::make_pair(f[1], f[2]), v).second) {
        bad_line(file, number, "a second bar for " + f[1] + " " + f[2]);
      }
    } else if (f.size() != 2) {
      bad_line(file, number, "expected '<key><TAB><value>' or a bar line");
    } else if (f[0] == "gpu") {
      c.gpu = f[1];
    } else if (f[0] == "reference") {
      if (f[1] != "yes" && f[1] != "no") bad_line(file, number, "reference must be yes or no");
      c.reference = f[1] == "yes";
    } else {
      c.facts[f[0]] = f[1];
    }
  }
  if (c.gpu.empty()) bad_line(file, number, "no 'gpu' line");
  return c;
}

std::vector<Calibration> load_calibrations(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return {};
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ".tsv") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<Calibration> out;
  for (const fs::path& p : files) {
    std::ifstream in(p);
    if (!in) throw std::runtime_error("cannot read calibration file " + p.string());
    out.push_back(parse_calibration(in, p.string()));
  }
  return out;
}

const Calibration* choose_calibration(const std::vector<Calibration>& all, const std::string& gpu,
                                      std::string* note) {
  const Calibration* reference = nullptr;
  for (const Calibration& c : all) {
    if (c.gpu == gpu) {
      if (note != nullptr) note->clear();
      return &c;
    }
    if (c.reference && reference == nullptr) reference = &c;
  }
  if (reference != nullptr) {
    if (note != nullptr) {
      *note = "no calibration for " + gpu + ": using the reference bars of " + reference->gpu +
              " (" + reference->file +
              "); a course calibrates a GPU model from three runs of its reference solutions";
    }
    return reference;
  }
  if (note != nullptr) {
    *note = "no calibration for " + gpu +
            " and no reference calibration: using the graders' "
            "own bars";
  }
  return nullptr;
}

std::string calibration_dir() {
#ifdef CUDALAB_CALIBRATION_DIR
  return CUDALAB_CALIBRATION_DIR;
#else
  return "tests/calibration";
#endif
}

}  // namespace cudalab
