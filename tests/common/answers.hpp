// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file answers.hpp
 * @brief The answers a student writes to a handout's "Questions", and their checks.
 *
 * Each lab's `answers.txt` holds lines `q1 = <answer>`; `//` starts a comment. An answer is
 * a number (the first number on the line counts, so `2-way`, `3.8x` and `8320 B` read as
 * 2, 3.8 and 8320) or one letter for a choice (`b`, `(b)` or `B`). The graders
 * (tests/labNN_topic/questions.cpp) compare each answer with the right one, computed
 * from the course's models where it can be, and never print the right answer: a failure
 * says what kind of answer was expected, what was written and where.
 */
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cudalab::questions {

/// The answers of one lab, read from its answers file.
class AnswerSheet {
 public:
  /// Reads @p path; a missing file gives an empty sheet that remembers why.
  static AnswerSheet load(const std::string& path);

  /// The text after `key =` (comment and blanks removed); empty optional when the key is
  /// absent, an empty string when it is there without an answer.
  std::optional<std::string> raw(const std::string& key) const;
  /// The file the sheet was read from.
  const std::string& path() const { return path_; }
  /// Why the file could not be read (empty when it was read).
  const std::string& error() const { return error_; }

 private:
  std::string path_;
  std::string error_;
  std::map<std::string, std::string> answers_;
};

/// The path of this grader's answers file: defined per lab by cudalab_add_lab(), in a file
/// it generates (cmake/CudalabLab.cmake).
const char* answers_file();

/// The answers file of this grader (answers_file()), read once.
const AnswerSheet& sheet();

/// The first number in @p text, if any.
std::optional<double> first_number(const std::string& text);

/**
 * @brief Passes when answer @p key is a number within @p rel_tol (relative; 0: exact, up
 * to rounding of 1e-9) of @p expected.
 * @param what what the question asks, for the failure message
 */
::testing::AssertionResult number_is(const AnswerSheet& s, const std::string& key, double expected,
                                     double rel_tol, const std::string& what);

/// Passes when answer @p key is the letter @p expected (case-insensitive).
::testing::AssertionResult choice_is(const AnswerSheet& s, const std::string& key, char expected,
                                     const std::string& what);

/**
 * @brief The bank model of labs 05-09: the conflict degree of one warp's request, lane i at
 * byte @p byte_address[i], @p width bytes each (4, 8 or 16: phases of 32, 16 or 8 lanes).
 * @param wavefronts if not null, receives the sum of the phases' degrees
 */
int conflict_degree(const std::vector<long long>& byte_address, int width,
                    int* wavefronts = nullptr);

/// The conflict degree of 4-byte loads of the words @p words (one per lane).
int degree_of_words(const std::vector<long long>& words);

}  // namespace cudalab::questions
