// SPDX-License-Identifier: BSD-3-Clause
// Reading an answers file and judging its answers (see answers.hpp).
#include "answers.hpp"

#include <cctype>
#include <cmath>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

namespace cudalab::questions {

namespace {

std::string trim(const std::string& s) {
  std::size_t b = 0;
  std::size_t e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b])) != 0) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1])) != 0) --e;
  return s.substr(b, e - b);
}

std::string where(const AnswerSheet& s, const std::string& key) {
  return "(line '" + key + " = ...' of " + s.path() + ")";
}

/// The answer of @p key, or a failure that says why there is none.
std::optional<std::string> answer_or_failure(const AnswerSheet& s, const std::string& key,
                                             const std::string& what,
                                             ::testing::AssertionResult& failure) {
  if (!s.error().empty()) {
    failure = ::testing::AssertionFailure() << s.error();
    return std::nullopt;
  }
  const auto text = s.raw(key);
  if (!text) {
    failure = ::testing::AssertionFailure()
              << key << " (" << what << "): no line '" << key << " = ...' in " << s.path();
    return std::nullopt;
  }
  if (text->empty()) {
    failure = ::testing::AssertionFailure()
              << key << " (" << what << "): not answered yet; write "
              << "the answer after '" << key << " =' " << where(s, key);
    return std::nullopt;
  }
  return text;
}

}  // namespace

AnswerSheet AnswerSheet::load(const std::string& path) {
  AnswerSheet s;
  s.path_ = path;
  std::ifstream in(path);
  if (!in) {
    s.error_ = "cannot read the answers file " + path;
    return s;
  }
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t comment = line.find("//");
    if (comment != std::string::npos) line.erase(comment);
    const std::size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = trim(line.substr(0, eq));
    if (key.empty()) continue;
    s.answers_[key] = trim(line.substr(eq + 1));
  }
  return s;
}

std::optional<std::string> AnswerSheet::raw(const std::string& key) const {
  const auto it = answers_.find(key);
  if (it == answers_.end()) return std::nullopt;
  return it->second;
}

const AnswerSheet& sheet() {
  static const AnswerSheet s = AnswerSheet::load(answers_file());
  return s;
}

std::optional<double> first_number(const std::string& text) {
  static const std::regex number(R"([-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?)");
  std::smatch m;
  if (!std::regex_search(text, m, number)) return std::nullopt;
  return std::stod(m.str());
}

::testing::AssertionResult number_is(const AnswerSheet& s, const std::string& key, double expected,
                                     double rel_tol, const std::string& what) {
  ::testing::AssertionResult failure = ::testing::AssertionSuccess();
  const auto text = answer_or_failure(s, key, what, failure);
  if (!text) return failure;
  const auto value = first_number(*text);
  if (!value) {
    return ::testing::AssertionFailure() << key << " (" << what << "): expected a number, got '"
                                         << *text << "' " << where(s, key);
  }
  const double tol = std::max(rel_tol * std::fabs(expected), 1e-9);
  if (std::fabs(*value - expected) <= tol) return ::testing::AssertionSuccess();
  std::ostringstream os;
  os << key << " (" << what << "): " << *value << " is not it; expected ";
  if (rel_tol > 0) {
    os << "a number within " << rel_tol * 100 << " % of the right one";
  } else {
    os << "the exact number";
  }
  os << " " << where(s, key);
  return ::testing::AssertionFailure() << os.str();
}

::testing::AssertionResult choice_is(const AnswerSheet& s, const std::string& key, char expected,
                                     const std::string& what) {
  ::testing::AssertionResult failure = ::testing::AssertionSuccess();
  const auto text = answer_or_failure(s, key, what, failure);
  if (!text) return failure;
  std::string letters;
  for (const char c : *text) {
    if (std::isalpha(static_cast<unsigned char>(c)) != 0) {
      letters += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  if (letters.size() != 1) {
    return ::testing::AssertionFailure() << key << " (" << what << "): expected one letter, got '"
                                         << *text << "' " << where(s, key);
  }
  if (letters[0] == std::tolower(static_cast<unsigned char>(expected))) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << key << " (" << what << "): (" << letters
                                       << ") is not the right choice " << where(s, key);
}

int conflict_degree(const std::vector<long long>& byte_address, int width, int* wavefronts) {
  const int lanes = width == 16 ? 8 : (width == 8 ? 16 : 32);
  const int words_per_lane = width / 4;
  int degree = 0;
  int total = 0;
  for (std::size_t first = 0; first < byte_address.size(); first += std::size_t(lanes)) {
    std::vector<std::set<long long>> per_bank(32);
    for (std::size_t lane = first; lane < byte_address.size() && lane < first + lanes; ++lane) {
      for (int w = 0; w < words_per_lane; ++w) {
        const long long word = byte_address[lane] / 4 + w;
        per_bank[static_cast<std::size_t>(word % 32)].insert(word);
      }
    }
    std::size_t phase = 0;
    for (const auto& bank : per_bank) phase = std::max(phase, bank.size());
    degree = std::max(degree, static_cast<int>(phase));
    total += static_cast<int>(phase);
  }
  if (wavefronts != nullptr) *wavefronts = total;
  return degree;
}

int degree_of_words(const std::vector<long long>& words) {
  std::vector<long long> bytes;
  bytes.reserve(words.size());
  for (const long long w : words) bytes.push_back(4 * w);
  return conflict_degree(bytes, 4);
}

}  // namespace cudalab::questions
