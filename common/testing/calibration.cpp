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

/// The value @p value_of gives for the one key of @p records whose test ends with
/// "." + @p gtest_name and whose measurement is @p measurement; NaN unless exactly one has one.
template <typename Records, typename ValueOf>
double unique_by_gtest_name(const Records& records, const std::string& gtest_name,
                            const std::string& measurement, ValueOf value_of) {
  double found = std::nan("");
  int matches = 0;
  const std::string suffix = "." + gtest_name;
  for (const auto& [key, value] : records) {
    const std::string& test = key.first;
    if (key.second != measurement || test.size() <= suffix.size()) continue;
    if (test.compare(test.size() - suffix.size(), std::string::npos, suffix) != 0) continue;
    const double v = value_of(value);
    if (std::isnan(v)) continue;
    found = v;
    ++matches;
  }
  return matches == 1 ? found : std::nan("");
}

/// The value of the tier @p name among @p tiers; NaN when there is none.
double tier_named(const std::vector<CalibratedTier>& tiers, const std::string& name) {
  for (const CalibratedTier& t : tiers) {
    if (t.name == name) return t.value;
  }
  return std::nan("");
}

}  // namespace

double Calibration::bar(const std::string& test, const std::string& measurement) const {
  const auto it = bars.find({test, measurement});
  return it == bars.end() ? std::nan("") : it->second.value;
}

double Calibration::bar_by_gtest_name(const std::string& gtest_name,
                                      const std::string& measurement) const {
  return unique_by_gtest_name(bars, gtest_name, measurement,
                              [](const CalibratedBar& b) { return b.value; });
}

double Calibration::tier(const std::string& test, const std::string& measurement,
                         const std::string& name) const {
  const auto it = tiers.find({test, measurement});
  return it == tiers.end() ? std::nan("") : tier_named(it->second, name);
}

double Calibration::tier_by_gtest_name(const std::string& gtest_name,
                                       const std::string& measurement,
                                       const std::string& name) const {
  return unique_by_gtest_name(
      tiers, gtest_name, measurement,
      [&name](const std::vector<CalibratedTier>& t) { return tier_named(t, name); });
}

Calibration parse_calibration(std::istream& in, const std::string& file) {
  Calibration c;
  c.file = file;
  std::string line;
  int number = 0;
  // The bar or tier a note line may follow: its key and where its note goes.
  std::pair<std::string, std::string> last_key;
  std::string* last_note = nullptr;
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
      const auto [it, added] = c.bars.emplace(std::make_pair(f[1], f[2]), b);
      if (!added) bad_line(file, number, "a second bar for " + f[1] + " " + f[2]);
      last_key = it->first;
      last_note = &it->second.note;
    } else if (f[0] == "tier") {
      if (f.size() != 6 || f[3].empty()) {
        bad_line(file, number, "a tier needs test, measurement, tier name, value, rule");
      }
      if (f[5] != "measured" && f[5] != "fixed") {
        bad_line(file, number, "rule must be measured or fixed");
      }
      CalibratedTier t;
      t.name = f[3];
      t.value = number_field(file, number, f[4], "the tier");
      t.fixed = f[5] == "fixed";
      std::vector<CalibratedTier>& tiers = c.tiers[{f[1], f[2]}];
      if (!std::isnan(tier_named(tiers, t.name))) {
        bad_line(file, number, "a second tier " + t.name + " for " + f[1] + " " + f[2]);
      }
      tiers.push_back(t);
      last_key = {f[1], f[2]};
      last_note = &tiers.back().note;
    } else if (f[0] == "note") {
      if (f.size() != 4 || f[3].empty()) {
        bad_line(file, number, "a note needs test, measurement and its text");
      }
      if (last_note == nullptr || last_key != std::make_pair(f[1], f[2])) {
        bad_line(file, number, "a note must follow the bar or tier line of " + f[1] + " " + f[2]);
      }
      if (!last_note->empty()) bad_line(file, number, "a second note for " + f[1] + " " + f[2]);
      *last_note = f[3];
    } else if (f.size() != 2) {
      bad_line(file, number, "expected '<key><TAB><value>', a bar or a tier line");
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

TierChoice choose_tiers(
    const std::vector<Calibration>& all, const std::string& gpu,
    const std::vector<std::string>& names,
    const std::function<double(const Calibration&, const std::string&)>& tier_of) {
  TierChoice choice;
  for (const std::string& name : names) {
    const BarChoice found =
        choose_bar(all, gpu, [&](const Calibration& c) { return tier_of(c, name); });
    if (found.from == nullptr) {
      choice.missing.push_back(name);
    } else {
      choice.tiers.emplace_back(name, found.bar);
    }
  }
  std::stable_sort(choice.tiers.begin(), choice.tiers.end(),
                   [](const auto& a, const auto& b) { return a.second < b.second; });
  return choice;
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
