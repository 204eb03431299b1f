// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file technique_tests.hpp
 * @brief Tests registered once per technique of a lab's table (a `kTechniques` array in the
 * lab's header whose entries have a `name`), with ::testing::RegisterTest: the names, value
 * parameters and fixtures that TEST_F or TEST_P with INSTANTIATE_TEST_SUITE_P would give; and
 * an entry of such a table by its name (technique_named()).
 *
 * A lab's grader wraps register_for_each() as for_each_technique("Suite.{}Case", body, __FILE__,
 * __LINE__) over its own table: the instructors' contract check and tests/tools/test_bar_keys.py
 * read those calls (the literal name, "{}" the entry's name in CamelCase, then the body). A check
 * only some entries take is registered over the entries a list names (register_for_each_named()),
 * wrapped as for_each_technique(kList, "Suite.{}Case", body, ...) with the list an array
 * `const char* kList[] = {"name", ...}` of the grader's sources, which those tools read too.
 */
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

namespace cudalab::kit {

/// @p name in CamelCase, a technique's name in test names ("block_tiled" -> "BlockTiled").
inline std::string camel_case(const char* name) {
  std::string out;
  bool upper = true;
  for (const char* c = name; *c != '\0'; ++c) {
    if (*c == '_') {
      upper = true;
      continue;
    }
    out += upper && *c >= 'a' && *c <= 'z' ? char(*c - 'a' + 'A') : *c;
    upper = false;
  }
  return out;
}

/// The entry of @p table named @p name, or null where none is.
template <class Technique, std::size_t N>
const Technique* find_technique(const Technique (&table)[N], std::string_view name) {
  for (const Technique& t : table) {
    if (name == t.name) return &t;
  }
  return nullptr;
}

/// The entry of @p table named @p name (a failure, and the first entry, where none is);
/// @p table_name names the table in that message, e.g. "lab08::kTechniques".
template <class Technique, std::size_t N>
const Technique& technique_named(const Technique (&table)[N], std::string_view name,
                                 const char* table_name) {
  if (const Technique* t = find_technique(table, name)) return *t;
  ADD_FAILURE() << "no technique of " << table_name << " is named " << name;
  return table[0];
}

/// A test whose body is a function of its fixture (registered by ::testing::RegisterTest).
template <class Fixture>
class RegisteredTest final : public Fixture {
 public:
  explicit RegisteredTest(std::function<void(Fixture&)> body) : body_(std::move(body)) {}
  void TestBody() override { body_(*this); }

 private:
  std::function<void(Fixture&)> body_;
};

/// Registers test @p name ("Suite.Case", "{}" standing for camel_case(@p technique)), with
/// value parameter @p param (empty: none; else the case "<Case>/<param>"), running @p body in
/// a @p Fixture.
template <class Fixture>
void register_test(const std::string& name, const char* technique, const std::string& param,
                   const char* file, int line, std::function<void(Fixture&)> body) {
  std::string full = name;
  const std::size_t at = full.find("{}");
  if (at != std::string::npos) full.replace(at, 2, camel_case(technique));
  const std::size_t dot = full.find('.');
  const std::string suite = full.substr(0, dot);
  const std::string test = full.substr(dot + 1) + (param.empty() ? "" : "/" + param);
  ::testing::RegisterTest(suite.c_str(), test.c_str(), nullptr,
                          param.empty() ? nullptr : param.c_str(), file, line,
                          [body]() -> Fixture* { return new RegisteredTest<Fixture>(body); });
}

/// Registers test @p name ("Suite.Case", "{}" standing for the entry's camel_case() name) for
/// every entry of @p table, in table order; each runs @p body(fixture, entry) in a @p Fixture.
template <class Fixture, class Technique, std::size_t N>
void register_for_each(const Technique (&table)[N], const char* name,
                       void (*body)(Fixture&, const Technique&), const char* file, int line) {
  for (const Technique& t : table) {
    register_test<Fixture>(name, t.name, "", file, line, [body, &t](Fixture& f) { body(f, t); });
  }
}

/// register_for_each() once per value of @p params: the case "<Case>/<to_string(value)>" with
/// that text as its value parameter, as INSTANTIATE_TEST_SUITE_P(..., kit::shape_name) names
/// it; each runs @p body(fixture, entry, value).
template <class Fixture, class Technique, std::size_t N, class Param, std::size_t P>
void register_for_each(const Technique (&table)[N], const char* name,
                       void (*body)(Fixture&, const Technique&, const Param&),
                       const Param (&params)[P], const char* file, int line) {
  for (const Technique& t : table) {
    for (const Param& p : params) {
      register_test<Fixture>(name, t.name, to_string(p), file, line,
                             [body, &t, p](Fixture& f) { body(f, t, p); });
    }
  }
}

/// @p body(entry) for @p entry, the entry of its table named @p name; a failure where there is
/// none (a name in a list of register_for_each_named() that no entry has).
template <class Technique, class Body>
void with_entry(const Technique* entry, const char* name, const Body& body) {
  if (entry == nullptr) {
    ADD_FAILURE() << "no technique of the table is named " << name;
    return;
  }
  body(*entry);
}

/// register_for_each() over the entries of @p table that @p names names, in the order of
/// @p names: a check only some techniques take (e.g. those whose launchers take every shape).
/// A name no entry has registers a test that fails saying so.
template <class Fixture, class Technique, std::size_t N, std::size_t M>
void register_for_each_named(const Technique (&table)[N], const char* const (&names)[M],
                             const char* name, void (*body)(Fixture&, const Technique&),
                             const char* file, int line) {
  for (const char* technique : names) {
    const Technique* t = find_technique(table, technique);
    register_test<Fixture>(name, technique, "", file, line, [body, t, technique](Fixture& f) {
      with_entry(t, technique, [&](const Technique& e) { body(f, e); });
    });
  }
}

/// register_for_each_named() once per value of @p params, as register_for_each() with values.
template <class Fixture, class Technique, std::size_t N, std::size_t M, class Param, std::size_t P>
void register_for_each_named(const Technique (&table)[N], const char* const (&names)[M],
                             const char* name,
                             void (*body)(Fixture&, const Technique&, const Param&),
                             const Param (&params)[P], const char* file, int line) {
  for (const char* technique : names) {
    const Technique* t = find_technique(table, technique);
    for (const Param& p : params) {
      register_test<Fixture>(name, technique, to_string(p), file, line,
                             [body, t, technique, p](Fixture& f) {
                               with_entry(t, technique, [&](const Technique& e) { body(f, e, p); });
                             });
    }
  }
}

}  // namespace cudalab::kit
