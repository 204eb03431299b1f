// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file sass_rules.hpp
 * @brief The technique's identity in the machine code: rules on the opcodes of a kernel's SASS.
 *
 * A kernel whose name and results are right may still do its work another way (straight from
 * global memory instead of through shared tiles, plain loads instead of cp.async or bulk
 * copies, a bit loop instead of POPC). A `...SassCpu` test reads the SASS compiled into the
 * grader (cudalab::testing::sass_of_this_grader(), no GPU needed) and judges every function of
 * the kernel, for every architecture present, against rules: opcodes it must hold (at least
 * once, or at least N times) and opcodes it must not hold. Included by kit.cuh.
 *
 * An opcode counts for a rule's head when it is the head or the head followed by modifiers:
 * "LDS" counts LDS, LDS.U8 and LDS.128 but not LDSM; "BAR.SYNC" counts BAR.SYNC.DEFER_BLOCKING.
 */
#pragma once

#include <gtest/gtest.h>

#include <algorithm>

#include <cctype>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cudalab/launch_checks.hpp"
#include "cudalab/tools.hpp"

namespace cudalab::kit {

/// One rule on a kernel's SASS: how many of its opcodes must have one of @ref heads.
struct SassRule {
  std::vector<std::string> heads;   ///< opcode heads that count (any of them), e.g. {"LDS"}
  int at_least = 1;                 ///< the least count; 0 makes the rule a ban (none may appear)
  std::string lesson;               ///< what the rule stands for, e.g. "the tiles must go through
                                    ///< shared memory"
  std::vector<std::string> except;  ///< modifiers whose opcodes never count, e.g. {"U8"}

  /// This rule with opcodes that carry one of the modifiers @p uncounted left uncounted
  /// ({"U8", "S8"}: "LDS.U8" and "LDS.U.U8" do not count, "LDS" and "LDS.U.128" do).
  SassRule excluding(std::vector<std::string> uncounted) const {
    SassRule r = *this;
    r.except = std::move(uncounted);
    return r;
  }
};

/// The kernel must hold at least @p at_least opcodes with one of @p heads.
inline SassRule sass_requires(std::vector<std::string> heads, std::string lesson,
                              int at_least = 1) {
  return {std::move(heads), std::max(at_least, 1), std::move(lesson), {}};
}

/// The kernel must hold no opcode with one of @p heads.
inline SassRule sass_forbids(std::vector<std::string> heads, std::string lesson) {
  return {std::move(heads), 0, std::move(lesson), {}};
}

/// True when @p opcode is @p head or @p head followed by modifiers ("LDS.U8" for "LDS").
inline bool opcode_has_head(const std::string& opcode, const std::string& head) {
  return opcode.compare(0, head.size(), head) == 0 &&
         (opcode.size() == head.size() || opcode[head.size()] == '.');
}

/// True when one of the dot-separated modifiers of @p opcode is @p modifier ("U8" in "LDS.U.U8").
inline bool opcode_has_modifier(const std::string& opcode, const std::string& modifier) {
  for (std::size_t dot = opcode.find('.'); dot != std::string::npos;
       dot = opcode.find('.', dot + 1)) {
    const std::size_t end = opcode.find('.', dot + 1);
    if (opcode.compare(dot + 1, (end == std::string::npos ? opcode.size() : end) - dot - 1,
                       modifier) == 0) {
      return true;
    }
  }
  return false;
}

/// 90 for "sm_90" or "sm_90a"; 0 when @p arch names no sm_ architecture.
inline int sm_number(const std::string& arch) {
  if (arch.compare(0, 3, "sm_") != 0) return 0;
  int v = 0;
  for (std::size_t i = 3; i < arch.size() && std::isdigit(static_cast<unsigned char>(arch[i]));
       ++i) {
    v = 10 * v + (arch[i] - '0');
  }
  return v;
}

/// True when the SASS function @p function (mangled) is the kernel @p name: in its demangled
/// form, @p name stands as a whole identifier followed by its template arguments or parameters
/// ("tiled_kernel" does not match "static_tiled_kernel" nor "tiled_kernel_v2").
inline bool names_kernel(const std::string& function, const std::string& name) {
  const std::string text = cudalab::testing::demangle(function);
  const auto identifier = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  };
  for (std::size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    const std::size_t end = at + name.size();
    if ((at == 0 || !identifier(text[at - 1])) && end < text.size() &&
        (text[end] == '<' || text[end] == '(')) {
      return true;
    }
  }
  return false;
}

/// "FFMA x64, LDS x32, ...": the opcodes' first words by count (at most @p max_entries).
inline std::string opcode_histogram(const std::vector<std::string>& opcodes,
                                    std::size_t max_entries = 12) {
  std::map<std::string, int> counts;
  for (const std::string& op : opcodes) ++counts[op.substr(0, op.find('.'))];
  std::vector<std::pair<std::string, int>> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& x, const auto& y) { return x.second > y.second; });
  std::ostringstream os;
  for (std::size_t i = 0; i < sorted.size() && i < max_entries; ++i) {
    os << (i ? ", " : "") << sorted[i].first << " x" << sorted[i].second;
  }
  if (sorted.size() > max_entries) os << ", ... (" << sorted.size() - max_entries << " more)";
  return sorted.empty() ? std::string("no instructions") : os.str();
}

/// One message per rule that @p opcodes break ("" entries are not returned).
inline std::vector<std::string> sass_rule_failures(const std::vector<std::string>& opcodes,
                                                   const std::vector<SassRule>& rules) {
  std::vector<std::string> failures;
  for (const SassRule& rule : rules) {
    int count = 0;
    for (const std::string& op : opcodes) {
      count += std::any_of(rule.heads.begin(), rule.heads.end(),
                           [&](const std::string& h) { return opcode_has_head(op, h); }) &&
               std::none_of(rule.except.begin(), rule.except.end(),
                            [&](const std::string& m) { return opcode_has_modifier(op, m); });
    }
    std::string heads;
    for (const std::string& h : rule.heads) heads += (heads.empty() ? "" : " or ") + h;
    if (!rule.except.empty()) {
      std::string except;
      for (const std::string& m : rule.except) except += (except.empty() ? "" : ", ") + ("." + m);
      heads += " (not " + except + ")";
    }
    std::ostringstream os;
    if (rule.at_least == 0 && count > 0) {
      os << rule.lesson << ": no " << heads << " may appear, found " << count;
    } else if (rule.at_least > 0 && count < rule.at_least) {
      os << rule.lesson << ": needs " << (rule.at_least == 1 ? "a " : "")
         << (rule.at_least == 1 ? heads : std::to_string(rule.at_least) + " x " + heads)
         << ", found " << count;
    } else {
      continue;
    }
    failures.push_back(os.str());
  }
  return failures;
}

/**
 * @brief Judges every SASS function of @p kernel in this grader (each architecture from sm_@p
 * min_sm on; each template instance whose demangled name also contains @p instance) by @p rules.
 *
 * Skips when cuobjdump is missing or failed, or when no function of this grader is of sm_@p
 * min_sm or later; fails when the kernel is missing from a listing that has such functions.
 * Call it as the last statement of a test body (it may GTEST_SKIP()).
 * @param instance  a part of the demangled name that picks template instances, e.g. "<true>"
 *                  or "IntrinsicPopcount>"; "" for all of them
 */
inline void expect_sass(const cudalab::KernelInfo& kernel, const std::vector<SassRule>& rules,
                        const std::string& instance = "", int min_sm = 0) {
  const cudalab::testing::SassListing& sass = cudalab::testing::sass_of_this_grader();
  if (!sass.skip_reason.empty()) GTEST_SKIP() << sass.skip_reason;
  const std::string who =
      std::string(kernel.name) + (instance.empty() ? "" : " (" + instance + ")");
  int in_range = 0;
  int found = 0;
  for (const cudalab::testing::SassFunction& f : sass.functions) {
    if (sm_number(f.arch) < min_sm) continue;
    ++in_range;
    if (!names_kernel(f.name, kernel.name) ||
        cudalab::testing::demangle(f.name).find(instance) == std::string::npos) {
      continue;
    }
    ++found;
    for (const std::string& failure : sass_rule_failures(f.opcodes, rules)) {
      ADD_FAILURE() << who << " [" << f.arch << ", " << f.name << "]: " << failure
                    << ". Its opcodes: " << opcode_histogram(f.opcodes);
    }
  }
  if (found > 0) return;
  if (in_range == 0) {
    GTEST_SKIP() << "no sm_" << min_sm << " or later code in this grader (built for other "
                 << "architectures); the SASS of " << who << " is not checked";
  }
  ADD_FAILURE() << who << " is missing from this grader's SASS (" << in_range
                << " other functions found): is it never referenced?\n"
                << sass.excerpt;
}

}  // namespace cudalab::kit
