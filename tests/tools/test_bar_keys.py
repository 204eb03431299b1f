#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every speed bar and tier a grader can ask for has a row in the reference GPU's calibration file.

A grader names its bars and holds no number (cudalab::testing::speed_bar()): the key is the
test's CTest name and the measurement ("speedup" from expect_speedup(), "share" from
expect_share(), the literal of a speed_bar() call; "name#2" for the second of one name in a
test), and a key that no calibration file has fails the test on the GPU. This check reads the
graders' sources (tests/labNN_*/*.cu, *.cuh, *.cpp, *.hpp and the shared tests/common/*.hpp,
*.cuh), follows the calls of each TEST/TEST_F body, and of each body a lab registers for every
technique of its table (`for_each_technique("Suite.{}Case", body, ...)`: one test per entry of
`kTechniques` in the lab's header, "{}" the entry's name in CamelCase; `for_each_technique(kList,
"Suite.{}Case", body, ...)`: one per entry the grader's array kList names), into the helpers
defined there, and compares the keys with tests/calibration/nvidia-h200.tsv both ways: every
key asked for has a row, every row is asked for. A speed_bar() name built at run time
(`what + "_suffix"`) matches the rows of that test ending in the suffix. The same holds for
the tiers a grader names (cudalab::testing::speed_tiers("measurement", {"good", ...}): `tier`
rows, each above its bar), and no C++ source of the library or the graders holds a tier's
number. Python 3 standard library only; no build tree, no GPU.
"""

from __future__ import annotations

import re
import unittest
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
from tools import reference_ratios  # noqa: E402  (read_calibration)
from tools.cxx_source import body_at, camel_case, per_technique_calls, strip_comments, table_names

REFERENCE = ROOT / "tests" / "calibration" / "nvidia-h200.tsv"
# The library's judges and the bar each names (cudalab/testing.hpp, cudalab/grading.hpp).
LIBRARY = {"expect_speedup": "speedup", "expect_share": "share"}
CALL = re.compile(r"(::)?\b(\w+)\s*\(")
# A definition: a return type (one token, maybe qualified or a template), the name, the
# parameters, the body; a call statement starts with the name and does not match.
DEFINITION = re.compile(r"^[ \t]*(?:template\s*<[^>]*>\s*)?(?:(?:inline|static|virtual)\s+)*"
                        r"(?!return\b|else\b)[\w:]+(?:<[^;{}()]*>)?[\s*&]+"
                        r"(\w+)\s*\(((?:[^;{}]|\{\})*)\)\s*(?:const\s*)?(?:override\s*)?\{", re.M)
TEST = re.compile(r"^TEST(?:_F)?\((\w+),\s*(\w+)\)\s*\{", re.M)
SOURCES = {".cu", ".cuh", ".cpp", ".hpp"}
# speed_tiers("measurement", {"name", ...}): the literals a grader names its tiers by.
TIERS_CALL = re.compile(r'\s*"([^"]+)"\s*,\s*\{((?:\s*"[^"]+"\s*,?)+)\}\s*\)')
# A tier's number in C++: a constant named after a tier, or a tier name paired with a number.
TIER_CONSTANT = re.compile(r'Tier(Good|Excellent)|\bk\w*Tier\w*\b[^;]*=[^;]*\b\d+\.\d|'
                           r'"(good|excellent)"\s*,\s*[-+.\d]')

Defs = dict[str, list[tuple[int, str]]]


def helpers(text: str, base: int = -1) -> Defs:
    """Function (and member function) name -> [(position, body)] of the definitions in @p text
    (positions from @p base; -1: a shared header's, before every test)."""
    out: Defs = {}
    for m in DEFINITION.finditer(text):
        if m.group(1) in {"if", "for", "while", "switch", "catch", "return"}:
            continue
        out.setdefault(m.group(1), []).append(
            (base if base < 0 else m.start(), body_at(text, m.end() - 1)))
    return out


def pick(defs: Defs, name: str, at: int) -> str:
    """The definition of @p name a test at @p at calls: the last one before it (two fixtures'
    members of one name each precede their own tests), else the first."""
    before = [body for pos, body in defs[name] if pos < at]
    return before[-1] if before else defs[name][0][1]


def calls(body: str, defs: Defs, at: int,
          seen: frozenset[str] = frozenset()) -> Iterator[tuple[str, bool, str]]:
    """(name, the library's, the text after the call's parenthesis) of each call @p body (of a
    test at @p at) makes, in order, following unqualified calls into @p defs; a call is the
    library's (cudalab::testing's) when qualified or not defined in the lab."""
    for m in CALL.finditer(body):
        qualified, name = m.group(1), m.group(2)
        library = bool(qualified) or name not in defs
        yield name, library, body[m.end():]
        if name in defs and name not in seen and not (name in LIBRARY and library) \
                and name not in {"speed_bar", "speed_tiers"}:
            yield from calls(pick(defs, name, at), defs, at, seen | {name})


def bars_of(body: str, defs: Defs, at: int) -> list[str]:
    """The bar names @p body (of a test at @p at) asks for, in order (a speed_bar() name built
    at run time as `*suffix`)."""
    out: list[str] = []
    for name, library, rest in calls(body, defs, at):
        if name == "speed_bar":
            arg = rest.lstrip()
            lit = re.match(r'"([^"]+)"\s*,', arg)
            suffix = re.match(r'\w+\s*\+\s*"([^"]+)"', arg)
            out.append(lit.group(1) if lit else "*" + suffix.group(1) if suffix else "*")
        elif name in LIBRARY and library:
            out.append(LIBRARY[name])  # cudalab::testing's, not a lab's helper of that name
    return out


def tiers_of(body: str, defs: Defs, at: int) -> list[tuple[str, str]]:
    """The (measurement, tier name) pairs @p body asks speed_tiers() for; a call whose
    arguments are not a literal measurement and a braced list of literal names gives
    ("?", the call's text), which no row matches."""
    out: list[tuple[str, str]] = []
    for name, _, rest in calls(body, defs, at):
        if name != "speed_tiers":
            continue
        m = TIERS_CALL.match(rest)
        if m is None:
            out.append(("?", "speed_tiers(" + rest[:60]))
            continue
        out += [(m.group(1), tier) for tier in re.findall(r'"([^"]+)"', m.group(2))]
    return out


Test = tuple[list[str], str, int, Defs, str]


def graders_tests() -> Iterator[Test]:
    """(CTest test names, body, position, the definitions it sees, source file name) of each
    grader test: each TEST/TEST_F, then each body registered for every technique of the lab's
    table (one test name per technique)."""
    shared = ""
    for path in sorted((ROOT / "tests" / "common").glob("*.h*")) + \
            sorted((ROOT / "tests" / "common").glob("*.cuh")):
        shared += strip_comments(path.read_text()) + "\n"
    shared_defs = helpers(shared)
    for lab in sorted((ROOT / "tests").glob("lab[0-9][0-9]_*")):
        texts = {p: strip_comments(p.read_text())
                 for p in sorted(lab.iterdir()) if p.suffix in SOURCES}
        number = lab.name[:5]
        table = table_names(ROOT / "labs" / lab.name)
        for path, text in texts.items():
            defs = {k: list(v) for k, v in shared_defs.items()}
            for other, other_text in texts.items():  # helpers of the lab's other files first
                for k, v in helpers(other_text, 0 if other == path else -1).items():
                    defs.setdefault(k, []).extend(v)
            # (test names, body, position): each TEST/TEST_F, then each body registered for
            # every technique of the lab's table, or of a list of them (one test name each).
            tests = [([f"{m.group(1)}.{m.group(2)}"], body_at(text, m.end() - 1), m.start())
                     for m in TEST.finditer(text)]
            for at, name, body, techniques in per_technique_calls(text, table,
                                                                  list(texts.values())):
                if body in defs:
                    tests.append(([name.replace("{}", camel_case(t)) for t in techniques],
                                  pick(defs, body, at), at))
            for names, body, at in tests:
                yield [f"{number}.{test}" for test in names], body, at, defs, path.name


def asked_keys() -> dict[tuple[str, str], str]:
    """(CTest test name, bar key) -> the source file, for every bar a grader's test asks for."""
    out: dict[tuple[str, str], str] = {}
    for names, body, at, defs, source in graders_tests():
        count: dict[str, int] = {}
        for name in bars_of(body, defs, at):
            count[name] = count.get(name, 0) + 1
            key = name if count[name] == 1 else f"{name}#{count[name]}"
            for test in names:
                out[(test, key)] = source
    return out


def asked_tiers() -> dict[tuple[tuple[str, ...], str, str], str]:
    """(CTest test names, measurement, tier name) -> the source file, for every tier a grader's
    test asks for. A body registered for every technique of a lab's table may name tiers for
    some techniques only (lab 13 shows stage 5's): the names are the tests of the body."""
    out: dict[tuple[tuple[str, ...], str, str], str] = {}
    for names, body, at, defs, source in graders_tests():
        for measurement, tier in tiers_of(body, defs, at):
            out[(tuple(names), measurement, tier)] = source
    return out


def tier_constants() -> list[str]:
    """The lines of the library's and the graders' C++ sources (common/, tests/labNN_*/, the
    graders' shared headers in tests/common/) that hold a tier's number."""
    out = []
    paths = sorted((ROOT / "common").rglob("*"))
    for lab in sorted((ROOT / "tests").glob("lab[0-9][0-9]_*")):
        paths += sorted(lab.rglob("*"))
    paths += [p for p in sorted((ROOT / "tests" / "common").iterdir()) if "_test" not in p.stem]
    for path in paths:
        if path.suffix not in SOURCES or not path.is_file():
            continue
        text = strip_comments(path.read_text())
        for number, line in enumerate(text.splitlines(), start=1):
            if TIER_CONSTANT.search(line):
                out.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    return out


class BarKeys(unittest.TestCase):
    def test_every_tier_a_grader_names_has_a_row(self):
        cal = reference_ratios.read_calibration(REFERENCE)
        rows = {(test, measurement, t["name"])
                for (test, measurement), tiers in cal["tiers"].items() for t in tiers}
        asked = asked_tiers()
        self.assertGreaterEqual(len(asked), 6,
                                "the graders' tiers were not found: the check is stale")
        missing, matched = [], set()
        for (tests, measurement, name), source in sorted(asked.items()):
            hits = {(t, measurement, name) for t in tests} & rows
            if not hits:  # of a per-technique body: a row for one of its tests at least
                missing.append(f"{' or '.join(tests)} {measurement} {name} ({source})")
            matched |= hits
        self.assertEqual(missing, [], f"tiers the graders name without a row in {REFERENCE.name}")
        unasked = sorted(" ".join(k) for k in rows - matched)
        self.assertEqual(unasked, [], f"tier rows of {REFERENCE.name} that no grader names")
        for (test, measurement), tiers in cal["tiers"].items():
            bar = cal["bars"].get((test, measurement))
            for t in tiers:
                if bar is not None:  # a level above the pass bar
                    self.assertGreater(t["value"], bar["bar"], f"{test} {measurement} {t['name']}")

    def test_no_tier_number_in_the_cpp_sources(self):
        self.assertEqual(tier_constants(), [],
                         "a tier's number lives in tests/calibration/*.tsv, not in C++")

    def test_every_asked_bar_has_a_row_and_every_row_is_asked_for(self):
        rows = set(reference_ratios.read_calibration(REFERENCE)["bars"])
        asked = asked_keys()
        self.assertGreater(len(asked), 40, "the graders' bars were not found: the check is stale")
        matched = set()
        missing = []
        for (test, key), source in sorted(asked.items()):
            if key.startswith("*"):
                hits = {r for r in rows if r[0] == test and r[1].endswith(key[1:])}
            else:
                hits = {(test, key)} & rows
            if not hits:
                missing.append(f"{test} {key} ({source})")
            matched |= hits
        self.assertEqual(missing, [], f"bars the graders ask for without a row in {REFERENCE.name}")
        unasked = sorted(f"{t} {k}" for t, k in rows - matched)
        self.assertEqual(unasked, [], f"rows of {REFERENCE.name} that no grader asks for")


if __name__ == "__main__":
    unittest.main()
