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

/// The positive number @p text of a bar line (@p what names the field for the message).
double number_field(const std::string& file, int line, const std::string& text,
                    const std::string& what) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !std::isfinite(v) || v <= 0) {
    bad_line(file, line, what + " '" + text + "' is not a positive number");
  }
  return v;
}

}  // namespace

double Calibration::bar(const std::string& test, const std::string& measurement) const {
  const auto it = bars.find({test, measurement});
  return it == bars.end() ? std::nan("") : it->second.value;
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
    found = value.value;
    ++matches;
  }
  return matches == 1 ? found : std::nan("");
}

Calibration parse_calibration(std::istream& in, const std::string& file) {
  Calibration c;
  c.file = file;
  std::string line;
  int number = 0;
  std::pair<std::string, std::string> last_bar;  // the bar a note line may follow
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> f = split_tabs(line);
    if (f[0] == "bar") {
      if (f.size() < 6) bad_line(file, number, "a bar needs test, measurement, bound, bar, rule");
      if (f[3] != "min" && f[3] != "max") bad_line(file, number, "bound must be min or max");
      if (f[5] != "measured" && f[5] != "fixed") {
        bad_line(file, number, "rule must be measured or fixed");
      }
      CalibratedBar b;
      b.value = number_field(file, number, f[4], "the bar");
      b.upper = f[3] == "max";
      b.fixed = f[5] == "fixed";
      for (std::size_t i = 6; i < f.size(); ++i) {
        b.runs.push_back(number_field(file, number, f[i], "a run"));
      }
      if (!c.bars.emplace(std::make_pair(f[1], f[2]), b).second) {
        bad_line(file, number, "a second bar for " + f[1] + " " + f[2]);
      }
      last_bar = {f[1], f[2]};
    } else if (f[0] == "note") {
      if (f.size() != 4 || f[3].empty()) {
        bad_line(file, number, "a note needs test, measurement and its text");
      }
      if (last_bar != std::make_pair(f[1], f[2])) {
        bad_line(file, number, "a note must follow the bar line of " + f[1] + " " + f[2]);
      }
      std::string& note = c.bars.at(last_bar).note;
      if (!note.empty()) bad_line(file, number, "a second note for " + f[1] + " " + f[2]);
      note = f[3];
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

const Calibration* reference_calibration(const std::vector<Calibration>& all) {
  for (const Calibration& c : all) {
    if (c.reference) return &c;
  }
  return nullptr;
}

BarChoice choose_bar(const std::vector<Calibration>& all, const std::string& gpu,
                     const std::function<double(const Calibration&)>& bar_of) {
  BarChoice choice;
  const Calibration* own = nullptr;
  for (const Calibration& c : all) {
    if (c.gpu == gpu) own = &c;
  }
  if (own != nullptr) {
    choice.bar = bar_of(*own);
    if (!std::isnan(choice.bar)) {
      choice.from = own;
      return choice;
    }
  }
  const Calibration* reference = reference_calibration(all);
  if (reference == nullptr || reference == own) return choice;
  choice.bar = bar_of(*reference);
  if (std::isnan(choice.bar)) return choice;
  choice.from = reference;
  choice.note = own == nullptr
                    ? "no calibration for " + gpu + ": using the reference bars of " +
                          reference->gpu + " (" + reference->file +
                          "); a course calibrates a GPU model from three runs of "
                          "its reference solutions"
                    : "no bar for this test in " + own->file + ": using the reference bar of " +
                          reference->gpu + " (" + reference->file + ")";
  return choice;
}

std::string calibration_dir() {
#ifdef CUDALAB_CALIBRATION_DIR
  return CUDALAB_CALIBRATION_DIR;
#else
  return "tests/calibration";
#endif
}

}  // namespace cudalab
