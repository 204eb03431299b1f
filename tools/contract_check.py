# SPDX-License-Identifier: BSD-3-Clause
"""The contract table: every documented promise of a lab header, and the test that checks it.

    python3 -m tools.contract_check [--table tests/contracts.json] [--allow-recorded-gaps]
    python3 -m tools.contract_check --write      # add new promises to the table (tests
                                                 # suggested from the grader sources), drop
                                                 # promises the headers no longer make
    python3 -m tools.contract_check --list       # the promises, one a line

A promise is a sentence of a lab header's Doxygen comment (labs/labNN_topic/*.cuh) that a
submission could break; this tool extracts them by kind from each comment and the
declaration it documents:
  throws      every @throws clause (what a launcher rejects and how)
  param       every @param clause that states a constraint (a range, a sign, a multiple, an
              alignment, "at most", "positive", "(written, never read)")
  pre         every @pre clause
  stream      @param stream, and every sentence about enqueueing or (not) synchronizing
  allocation  every sentence about what is allocated
  exactness   every sentence that promises an exact result

tests/contracts.json holds one entry per promise: its header, the declaration, the kind, the
promise's text, and either "tests" (names Suite.Case or Suite.* of the lab's grader:
tests/labNN_topic/*.cu, e.g. grader.cu, and questions.cpp) or "untestable" (why no test can check it: the
header must then say so in the promise's comment, with the word "untestable"). An entry may
record a "gap" (no test checks it yet; the reason): such a promise fails the check unless
--allow-recorded-gaps is given, which lets the recorded gaps pass while any NEW promise
without a test still fails.

The check fails (exit 1) on: a promise with no entry; an entry naming a test that no grader
source of its lab defines (parsed: TEST, TEST_F, TEST_P, the kit's sanitizer macros); an
entry with neither tests nor "untestable" (nor an allowed gap); an "untestable" entry whose
header comment does not say "untestable"; an entry whose promise the header no longer makes.
Python 3 standard library only; CPU, no build tree (tools/ci_checks.sh runs it).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from .cxx_source import camel_case, per_technique_calls, strip_comments, table_names

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "tests" / "contracts.json"
KINDS = ("throws", "param", "pre", "stream", "allocation", "exactness")

_CONSTRAINT = re.compile(
    r"(>=|<=|>|<|\.\.|at most|at least|positive|non-negative|multiple of|aligned|alignment|"
    r"never read|written|not null|null|1\.\.|one of|must|\bonly\b)", re.I)
_STREAM = re.compile(r"(synchroniz|enqueue|\bstream\b.*(launch|captur|work)|does not wait)", re.I)
_ALLOC = re.compile(r"\balloc", re.I)
_EXACT = re.compile(r"\bexact(ly)?\b", re.I)
_DECL_NAME = re.compile(r"(?:\b(?:struct|class|enum class|enum)\s+(\w+))|(?:(\w+)\s*\()|(?:\b(\w+)\s*=)")
_TEST = re.compile(r"\bTEST(?:_F|_P)?\(\s*(\w+)\s*,\s*(\w+)\s*\)")
_SAN_TEST = re.compile(r"CUDALAB_SANITIZER_TEST\(\s*(\w+)\s*,\s*(\w+)\s*,")
_SAN_SUITE = re.compile(r"CUDALAB_SANITIZER_SUITE\(\s*(\w+)\s*,[^,]+,([^)]*)\)")
_SAN_NAMES = {
    "racecheck": "RacecheckFindsNoSharedMemoryHazard",
    "memcheck": "MemcheckFindsNoOutOfBoundsAccess",
    "synccheck": "SynccheckFindsNoInvalidBarrier",
}


def norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def lab_dirs() -> list[Path]:
    return sorted(p for p in (ROOT / "labs").glob("lab[0-9][0-9]_*") if p.is_dir())


def doc_blocks(text: str):
    """(comment text, the code line after it, line number) of every Doxygen comment."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        start = i
        body: list[str] = []
        if line.startswith("/**"):
            chunk = line[3:]
            while True:
                end = chunk.find("*/")
                if end >= 0:
                    body.append(chunk[:end])
                    break
                body.append(chunk)
                i += 1
                if i >= len(lines):
                    break
                chunk = lines[i].strip()
                if not chunk.startswith("*/"):
                    chunk = re.sub(r"^\*(?!/)", "", chunk, count=1)
            i += 1
        elif line.startswith("///"):
            while i < len(lines) and lines[i].strip().startswith("///"):
                body.append(lines[i].strip()[3:])
                i += 1
        else:
            # A trailing ///< member comment is a promise about that member too.
            m = re.search(r"///<(.*)$", lines[i])
            if m:
                yield m.group(1), lines[i][: m.start()], i + 1
            i += 1
            continue
        code = ""
        j = i
        while j < len(lines) and not re.search(r"[(;{=]", code):
            s = lines[j].strip()
            if s and not s.startswith("//"):
                code = (code + " " + s).strip()
            elif code:
                break
            j += 1
        yield "\n".join(body), code, start + 1


def decl_name(code: str) -> str:
    code = re.sub(r"\b(inline|constexpr|static|extern|template\s*<[^>]*>|__host__|__device__|"
                  r"const|unsigned|cudalab::\w+|std::\w+(?:<[^>]*>)?)\b", " ", code)
    for m in _DECL_NAME.finditer(code):
        name = next(g for g in m.groups() if g)
        if name not in ("if", "for", "while", "return", "sizeof", "static_assert", "operator"):
            return name
    return "(file)"


def clauses(doc: str):
    """(tag, text) of a comment: @throws/@param/@pre clauses and the free sentences."""
    doc = re.sub(r"@(brief|code|endcode|file)\b", "", doc)
    parts = re.split(r"(?=@(?:throws|param|pre|return|returns|note)\b)", doc)
    for part in parts:
        m = re.match(r"@(throws|param|pre|return|returns|note)\b(.*)", part, re.S)
        if m:
            yield m.group(1), norm(m.group(2))
        else:
            for sentence in re.split(r"(?<=[.;:])\s+(?=[A-Z(-])|\n\s*-\s+", part):
                if norm(sentence):
                    yield "text", norm(sentence)


def promises_of(header: Path):
    """Every promise of @p header: dicts with header, decl, kind, promise, comment, line."""
    text = header.read_text()
    rel = str(header.relative_to(ROOT))
    seen = set()
    for doc, code, line in doc_blocks(text):
        if "@file" in doc or not code:
            continue
        decl = decl_name(code)
        for tag, clause in clauses(doc):
            kinds = []
            if tag == "throws":
                kinds.append("throws")
            elif tag == "pre":
                kinds.append("pre")
            elif tag == "param":
                pname = clause.split(" ", 1)[0]
                if pname == "stream":
                    kinds.append("stream")
                elif _CONSTRAINT.search(clause.split(" ", 1)[-1] if " " in clause else ""):
                    kinds.append("param")
            if tag in ("text", "return", "returns", "note"):
                if _STREAM.search(clause):
                    kinds.append("stream")
                if _ALLOC.search(clause):
                    kinds.append("allocation")
                if _EXACT.search(clause):
                    kinds.append("exactness")
            for kind in kinds:
                key = (rel, decl, kind, clause)
                if key in seen:
                    continue
                seen.add(key)
                yield {"header": rel, "decl": decl, "kind": kind, "promise": clause,
                       "comment": doc, "line": line}


def defined_tests(lab: Path) -> tuple[set[str], dict[str, str]]:
    """Suite.Case of every test the lab's grader sources define, and each test's body."""
    tdir = ROOT / "tests" / lab.name
    names: set[str] = set()
    bodies: dict[str, str] = {}
    table = table_names(lab)
    sources = [strip_comments(p.read_text()) for p in sorted(tdir.iterdir())
               if p.suffix in {".cu", ".cuh", ".cpp", ".hpp"}]
    for src in sorted(tdir.glob("*.cu")) + sorted(tdir.glob("*.cpp")):
        text = src.read_text()
        marks = [(m.start(), f"{m.group(1)}.{m.group(2)}") for m in _TEST.finditer(text)]
        for i, (at, name) in enumerate(marks):
            names.add(name)
            end = marks[i + 1][0] if i + 1 < len(marks) else len(text)
            bodies[name] = text[at:end]
        # Tests registered once per technique of the lab's table (tests/common/technique_tests.hpp),
        # "{}" the entry's name in CamelCase.
        for _, pattern, _, techniques in per_technique_calls(strip_comments(text), table, sources):
            suite_case = pattern.split("/")[-1]  # a TEST_P's name: the suite without "Inst/"
            for t in techniques:
                names.add(suite_case.replace("{}", camel_case(t)))
        for m in _SAN_TEST.finditer(text):
            names.add(f"{m.group(1)}.{m.group(2)}")
        for m in _SAN_SUITE.finditer(text):
            for tool in (t.strip() for t in m.group(2).split(",")):
                if tool in _SAN_NAMES:
                    names.add(f"{m.group(1)}.{_SAN_NAMES[tool]}")
    return names, bodies


def test_exists(name: str, defined: set[str]) -> bool:
    suite, _, case = name.partition(".")
    if case == "*":
        return any(d.split(".", 1)[0] == suite for d in defined)
    return name in defined


def suggest(p: dict, bodies: dict[str, str], prefix: str) -> list[str]:
    """A first guess for --write (a person checks it): the tests whose own body calls the
    declaration as labNN::<decl> (for a @throws promise, with a THROW expectation or a catch),
    at most four. Helpers the tests share are not followed: a promise they alone check gets
    no guess and is recorded as a gap until someone names the test."""
    pattern = re.compile(rf"\b{re.escape(prefix)}::{re.escape(p['decl'])}\b")
    out = []
    for name, body in bodies.items():
        if not pattern.search(body):
            continue
        if p["kind"] == "throws" and not re.search(r"(EXPECT|ASSERT)_(ANY_)?THROW|catch\s*\(", body):
            continue
        out.append(name)
    return sorted(out)[:4]


def load_table(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return json.loads(path.read_text()).get("promises", [])


def key_of(e: dict) -> tuple:
    return (e["header"], e["decl"], e["kind"], e["promise"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--table", type=Path, default=TABLE)
    ap.add_argument("--write", action="store_true", help="add new promises, drop stale ones")
    ap.add_argument("--list", action="store_true", help="print the promises")
    ap.add_argument("--allow-recorded-gaps", action="store_true",
                    help="entries with a recorded \"gap\" pass (new promises without a test fail)")
    args = ap.parse_args(argv)

    found: list[dict] = []
    tests_of: dict[str, set[str]] = {}
    bodies_of: dict[str, dict[str, str]] = {}
    grader_of: dict[str, str] = {}
    for lab in lab_dirs():
        names, bodies = defined_tests(lab)
        grader = ROOT / "tests" / lab.name / "grader.cu"
        for header in sorted(lab.glob("*.cuh")):
            for p in promises_of(header):
                p["lab"] = lab.name
                found.append(p)
        tests_of[lab.name] = names
        bodies_of[lab.name] = bodies
        grader_of[lab.name] = grader.read_text() if grader.exists() else ""

    if args.list:
        for p in found:
            print(f"{p['header']}:{p['line']} {p['decl']} [{p['kind']}] {p['promise']}")
        return 0

    table = load_table(args.table)
    by_key = {key_of(e): e for e in table}
    if args.write:
        new_table = []
        added = 0
        for p in found:
            e = by_key.get(key_of(p))
            if e is None:
                prefix = "lab" + p["lab"][3:5]
                tests = suggest(p, bodies_of[p["lab"]], prefix)
                e = {"header": p["header"], "decl": p["decl"], "kind": p["kind"],
                     "promise": p["promise"], "tests": tests}
                if not tests:
                    e["gap"] = "no test found that checks it (recorded by --write; add one)"
                added += 1
            new_table.append(e)
        args.table.write_text(json.dumps({
            "schema": "cudalabs-contracts", "version": 1,
            "about": "Every documented promise of a lab header and the tests that check it; "
                     "checked by tools/contract_check.py (see its docstring).",
            "promises": new_table}, indent=1, ensure_ascii=False) + "\n")
        print(f"contract_check: {len(new_table)} promises written ({added} new, "
              f"{len(table) - (len(new_table) - added)} dropped) to {args.table}")
        return 0

    problems: list[str] = []
    gaps = 0
    found_keys = {key_of(p) for p in found}
    comments = {key_of(p): p["comment"] for p in found}
    lines = {key_of(p): p["line"] for p in found}
    for p in found:
        if key_of(p) not in by_key:
            problems.append(f"{p['header']}:{p['line']}: {p['decl']} [{p['kind']}] has no entry in "
                            f"the contract table: \"{p['promise']}\" (tools/contract_check.py "
                            "--write adds it; then name the test that checks it)")
    for e in table:
        k = key_of(e)
        where = f"{e['header']}:{lines.get(k, '?')}: {e['decl']} [{e['kind']}]"
        if k not in found_keys:
            problems.append(f"{where}: the header no longer makes this promise: \"{e['promise']}\" "
                            "(python3 -m tools.contract_check --write drops it)")
            continue
        lab_name = e["header"].split("/")[1]
        for t in e.get("tests", []):
            if not test_exists(t, tests_of.get(lab_name, set())):
                problems.append(f"{where}: names {t}, which tests/{lab_name}/ does not define")
        if e.get("untestable"):
            if "untestable" not in comments[k].lower():
                problems.append(f"{where}: marked untestable ({e['untestable']}) but the header "
                                "comment does not say so (write \"untestable: <why>\" there)")
        elif not e.get("tests"):
            if e.get("gap") and args.allow_recorded_gaps:
                gaps += 1
            else:
                problems.append(f"{where}: no test checks \"{e['promise']}\""
                                + (f" (recorded gap: {e['gap']})" if e.get("gap") else ""))
    n_tested = sum(1 for e in table if e.get("tests"))
    n_untestable = sum(1 for e in table if e.get("untestable"))
    print(f"contract_check: {len(found)} promises in {len(lab_dirs())} labs' headers; "
          f"{n_tested} with tests, {n_untestable} untestable (the header says why), "
          f"{gaps} recorded gaps allowed")
    if problems:
        for p in problems:
            print("  " + p)
        print(f"contract_check: FAILED ({len(problems)} problem(s))")
        return 1
    print("contract_check: every promise names a test that exists, or says why it cannot")
    return 0


if __name__ == "__main__":
    sys.exit(main())
