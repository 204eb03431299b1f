#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Handout check: every command, path, number, figure and question of the handouts holds.

    python3 tools/handout_check.py [--build-dir build/ci-student] [--no-run]
    python3 tools/handout_check.py --update-refs      # rewrite the marked numbers from the reference
    python3 tools/handout_check.py --list             # what the handouts mark and run

Reads every handout page (labs/labNN_topic/*.md: the README.md, then any further part of a lab
with more than one handout, e.g. PART2.md), README.md and docs/*.md and checks
(a fenced line's chained commands `a && b | c` one by one, continued lines joined, VAR=value
and sudo prefixes dropped):
  commands   shell commands in fenced blocks and `inline code` that start with ctest, cmake,
             compute-sanitizer, ncu, python3 or a build/ path: presets exist (of the right
             kind), ctest names its tree (--preset or --test-dir build/<preset>), -R and -L
             select at least one test (from `ctest --show-only` of --build-dir), executables
             under build/<preset>/ exist in the layout the presets produce, --gtest_filter
             patterns select a test of that grader, tools/ scripts exist. Safe ones run:
             demos with their arguments and no visible GPU (exit 0 or 77: the arguments parse),
             tools with --help. Without --build-dir (or when it does not exist) the parts that
             need a build tree are reported as not checked;
  paths      `inline code` naming a repository path (labs/, docs/, tools/, tests/, common/,
             cmake/) exists; nothing refers to the course's design notes or to a file
             outside the repository;
  numbers    a number right after a marker `<!-- ref <test> <measurement> -->` equals that
             measurement of the reference run (docs/reference/scores.json, else the
             measurements table of docs/reference-run.md; tools/figures.py reads the same; the
             scores file's measurements of tests that are not graded count too), to the
             precision it is printed with; `<!-- run2 <test> <measurement> -->` (run1..run3)
             checks a column of the three-run ratio table of docs/reference-run.md and
             `<!-- alone2 ... -->` (alone1..alone3) the third run's runs of lab 12 alone; a
             trailing `*100` scales the reference (a share printed as a percentage);
  unmarked   in a handout, a number that looks measured (one with a decimal point before a unit:
             ms, µs, GB/s, TB/s, GFLOP/s, TFLOP/s, TOPS, Tbit-op/s, Tbit-MAC/s, an attached × or
             x, or %; or a whole number before a rate or time unit) must carry a marker. Exempt:
             fenced and inline code, HTML comments, a number right after a comparison or a
             result sign (≥ ≤ >= <= < > = ≈ →, "needs", "at least", "at most": thresholds from
             the graders and arithmetic shown in the text), a number right after
             `<!-- demo -->` (one demo run's output, not in the scores file) and every number of
             a table whose line before is `<!-- demo table -->`. Fails for the labs in
             CLEAN_LABS (every lab); for any other it prints a count per lab (--unmarked
             lists them);
  budgets    a number right after a marker `<!-- budget <file> [<file> ...] -->` equals the lines
             of code (neither blank nor only a // comment) inside the TODO(labNN) regions of
             those files of the reference solution, solutions/<lab>/<file> (answers.txt:
             solutions/<lab>.answers.txt), after each region's TODO and HINT lines
             (tools/skeleton_check.py's regions); not checked without solutions/;
  figures    every handout page shows at least one figure; every chart's series (the lab's own
             kernels and baselines) has its measurement in the reference;
             every image link resolves from the page (GitHub's repository view) and names a
             file Doxygen finds by name (docs/figures/banks or docs/figures/perf, names
             unique); the committed figures are those tools/bank_figures.py and
             tools/figures.py draw now;
  questions  every handout page ends with a "Questions" section; the numbered questions of a
             lab's pages, page after page, are the q1..qN of labs/<lab>/answers.txt (a
             TODO(labNN) region) and of the reference answers solutions/<lab>.answers.txt,
             which differ from the stub only inside that region (tools/skeleton_check.py's
             rules); a page whose section numbers none links to the page of the lab that does.
Each problem is printed as `path:line: message`; exit status 1 when there is one, 0
otherwise, 2 on a usage error. Python 3 standard library only; instructor tool.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.dont_write_bytecode = True  # no __pycache__ in the checkout
sys.path.insert(0, str(ROOT / "tools"))
import bank_figures  # noqa: E402
import figures  # noqa: E402

COMMAND_WORDS = ("ctest", "cmake", "compute-sanitizer", "ncu", "python3", "build/", "./build/")
PATH_PREFIXES = ("labs/", "docs/", "tools/", "tests/", "common/", "cmake/")
IMAGE_DIRS = (ROOT / "docs" / "figures" / "banks", ROOT / "docs" / "figures" / "perf")
# A marker names where its number comes from: `ref` the reference scores file, `run1`..`run3`
# the three-run ratio table of docs/reference-run.md (the second run), `alone1`..`alone3` the
# third run's runs of lab 12 alone; an optional `*F` scales the reference (`*100`: a share
# printed as a percentage).
REF = re.compile(r"<!--\s*(ref|run[123]|alone[123])\s+(\S+)\s+(\"[^\"]+\"|\S+)"
                 r"(?:\s+\*(\d+(?:\.\d+)?))?\s*-->([\s*_]*)([-+]?\d+(?:\.\d+)?)")


# Handouts whose every measured-looking number is marked: an unmarked one fails the check.
CLEAN_LABS = {f"lab{n:02d}" for n in range(1, 100)}  # every lab, a new one included
RATE_UNITS = r"(?:ms|µs|us|ns|GB/s|TB/s|GFLOP/s|TFLOP/s|Tbit-op/s|Tbit-MAC/s|TOPS|GOPS)"
MEASURED = re.compile(r"(?<![\w.^/-])(\d+(?:\.\d+)?)(?:(\s?" + RATE_UNITS + r"(?![\w/]))"
                      r"|([×x])(?!\w)|(\s?%))")
EXEMPT_BEFORE = re.compile(r"(?:≥|≤|>=|<=|<|>|=|≈|→|\bneeds|\bat least|\bat most)[\s*_]*$")
DEMO = re.compile(r"<!--\s*demo\s*-->([\s*_]*)")
DEMO_TABLE = re.compile(r"^<!--\s*demo table\s*-->\s*$", re.M)
# A marker naming the solution files whose TODO regions' lines of code the number after it counts.
BUDGET = re.compile(r"<!--\s*budget\s+([^<>]*?)\s*-->([\s*_]*)(\d+)?")


@dataclass
class Command:
    path: Path
    line: int
    text: str


class Problems:
    def __init__(self) -> None:
        self.items: list[str] = []
        self.notes: list[str] = []

    def add(self, path: Path, line: int | None, msg: str) -> None:
        rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        self.items.append(f"{rel}:{line}: {msg}" if line else f"{rel}: {msg}")


def line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def lab_pages(lab_dir: Path) -> list[Path]:
    """The handout pages of one lab in reading order: README.md, then the others by name
    (a lab too large for one handout continues in PART2.md)."""
    readme = [lab_dir / "README.md"] if (lab_dir / "README.md").is_file() else []
    return readme + sorted(p for p in lab_dir.glob("*.md") if p.name != "README.md")


def lab_dirs() -> list[Path]:
    return sorted(p for p in (ROOT / "labs").glob("lab[0-9][0-9]_*") if p.is_dir())


def pages() -> list[Path]:
    """The handout pages, the README and every page under docs/."""
    labs = [page for d in lab_dirs() for page in lab_pages(d)]
    return labs + [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))


# Shell operators that separate commands on one line (outside quotes).
SEPARATORS = re.compile(r"""\s(?:&&|\|\||;|\|)\s(?=(?:[^'"]|'[^']*'|"[^"]*")*$)""")
# Words before the command itself: VAR=value assignments, sudo (with -E).
PREFIX = re.compile(r"^(?:(?:[A-Za-z_][A-Za-z0-9_]*=\S*|sudo(?:\s+-E)?)\s+)+")


def split_line(line: str) -> list[str]:
    """The commands of one shell line: chained parts, without env/sudo prefixes and comments."""
    line = re.sub(r"\s#\s.*$", "", line)  # a trailing comment
    parts = []
    for part in SEPARATORS.split(line):
        part = part.strip()
        body = PREFIX.sub("", part)
        if body:
            parts.append(part if body == part else body)
    return parts


# ---------------------------------------------------------------------------
# Presets and the build tree
# ---------------------------------------------------------------------------
def presets() -> dict[str, set[str]]:
    data = json.loads((ROOT / "CMakePresets.json").read_text())
    kinds = {}
    for kind in ("configurePresets", "buildPresets", "testPresets", "workflowPresets"):
        kinds[kind] = {p["name"] for p in data.get(kind, []) if not p.get("hidden")}
    return kinds


class BuildTree:
    """The test list of a configured tree and a mapping of build/<preset>/x onto it."""

    def __init__(self, build_dir: Path | None):
        self.dir = build_dir if build_dir and (build_dir / "CTestTestfile.cmake").is_file() else None
        self.tests: dict[str, list[str]] = {}
        if self.dir:
            out = subprocess.run(["ctest", "--test-dir", str(self.dir), "--show-only=json-v1"],
                                 capture_output=True, text=True, check=False)
            try:
                for t in json.loads(out.stdout).get("tests", []):
                    labels = []
                    for prop in t.get("properties", []):
                        if prop.get("name") == "LABELS":
                            labels = prop.get("value", [])
                    self.tests[t["name"]] = labels
            except json.JSONDecodeError:
                self.dir = None

    def map(self, path: str) -> Path | None:
        m = re.match(r"^(?:\./)?build/[^/]+/(.*)$", path)
        return self.dir / m.group(1) if self.dir and m else None


# ---------------------------------------------------------------------------
# Extraction
# ---------------------------------------------------------------------------
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)


def is_handout(path: Path) -> bool:
    """Handouts and the main page: inline commands and paths are checked too."""
    return path.parent.parent == ROOT / "labs" or path == ROOT / "docs" / "mainpage.md"


def extract(path: Path) -> tuple[list[Command], list[tuple[int, str]]]:
    """Commands (fenced, and inline in handouts) and inline code spans (line, text) of a page.
    The README and the other docs pages name build outputs and tools in prose: only their
    fenced commands are checked."""
    text = path.read_text(encoding="utf-8")
    commands: list[Command] = []
    for m in FENCE.finditer(text):
        base = line_of(text, m.start(1))
        lines = m.group(1).splitlines()
        i = 0
        while i < len(lines):
            first = i
            s = lines[i].strip()
            while s.endswith("\\") and i + 1 < len(lines):  # a continued line
                i += 1
                s = s[:-1].rstrip() + " " + lines[i].strip()
            i += 1
            if s.startswith("$ "):
                s = s[2:]
            for part in split_line(s):
                if part.startswith(COMMAND_WORDS):
                    commands.append(Command(path, base + first, part))
    if not is_handout(path):
        return commands, []
    prose = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    prose = re.sub(r"<!--.*?-->", lambda m: "\n" * m.group(0).count("\n"), prose, flags=re.S)
    spans = []
    for m in re.finditer(r"(?<!`)`([^`]+)`(?!`)", prose):
        span = " ".join(m.group(1).split())
        line = line_of(prose, m.start())
        spans.append((line, span))
        in_table = prose.splitlines()[line - 1].lstrip().startswith("|")
        body = re.sub(r"^(?:[A-Z_]+=\S*\s+)+", "", span)  # VAR=value prefixes
        if body.startswith(COMMAND_WORDS) and not in_table:  # table cells describe tests
            commands.append(Command(path, line_of(prose, m.start()), span))
    return commands, spans


# ---------------------------------------------------------------------------
# Checking commands
# ---------------------------------------------------------------------------
def check_command(cmd: Command, kinds: dict[str, set[str]], tree: BuildTree, run: bool,
                  p: Problems) -> None:
    try:
        words = shlex.split(cmd.text)
    except ValueError as e:
        p.add(cmd.path, cmd.line, f"cannot parse `{cmd.text}`: {e}")
        return
    while words and re.match(r"^[A-Z_]+=", words[0]):
        words = words[1:]
    if not words:
        return
    tool = words[0]
    if tool == "ctest":
        check_ctest(cmd, words[1:], kinds, tree, p)
    elif tool == "cmake":
        check_cmake(cmd, words[1:], kinds, p)
    elif tool in ("compute-sanitizer", "ncu"):
        check_tool_run(cmd, words[1:], kinds, tree, p)
    elif tool == "python3":
        check_python(cmd, words[1:], run, p)
    else:
        check_executable(cmd, words, kinds, tree, run, p)


def option_values(args: list[str], *names: str) -> list[str]:
    out = []
    for i, a in enumerate(args):
        for n in names:
            if a == n and i + 1 < len(args):
                out.append(args[i + 1])
            elif a.startswith(n + "="):
                out.append(a.split("=", 1)[1])
    return out


def build_path_preset(path: str) -> str | None:
    m = re.match(r"^(?:\./)?build/([^/]+)(?:/|$)", path)
    return m.group(1) if m else None


def check_ctest(cmd: Command, args: list[str], kinds, tree: BuildTree, p: Problems) -> None:
    presets_ = option_values(args, "--preset")
    dirs = option_values(args, "--test-dir")
    if not presets_ and not dirs:
        p.add(cmd.path, cmd.line, f"`{cmd.text}`: ctest needs --preset <name> or --test-dir "
                                  f"build/<preset> (run from the repository root)")
    for name in presets_:
        if name not in kinds["testPresets"]:
            p.add(cmd.path, cmd.line, f"`{cmd.text}`: no test preset '{name}' in CMakePresets.json")
    for d in dirs:
        preset = build_path_preset(d)
        if preset is None or d.rstrip("/") != f"build/{preset}" or \
                preset not in kinds["configurePresets"]:
            p.add(cmd.path, cmd.line, f"`{cmd.text}`: --test-dir {d} is not a preset's build tree "
                                      f"(build/<configure preset>, e.g. build/student)")
    if not tree.dir:
        p.notes.append(f"{cmd.path.relative_to(ROOT)}:{cmd.line}: -R/-L not checked (no build tree)")
        return
    names = list(tree.tests)
    for rx in option_values(args, "-R", "--tests-regex"):
        names = [n for n in names if re.search(rx, n)]
        if not names:
            p.add(cmd.path, cmd.line, f"`{cmd.text}`: -R '{rx}' selects no test of {tree.dir}")
            return
    for rx in option_values(args, "-L", "--label-regex"):
        names = [n for n in names if any(re.search(rx, lab) for lab in tree.tests[n])]
        if not names:
            p.add(cmd.path, cmd.line, f"`{cmd.text}`: -L '{rx}' leaves no test selected")
            return


def check_cmake(cmd: Command, args: list[str], kinds, p: Problems) -> None:
    if "--workflow" in args:
        kind = "workflowPresets"
    elif "--build" in args:
        kind = "buildPresets"
    else:
        kind = "configurePresets"
    for name in option_values(args, "--preset"):
        if name not in kinds[kind]:
            p.add(cmd.path, cmd.line, f"`{cmd.text}`: no {kind[:-7]} preset '{name}'")


def check_build_file(cmd: Command, path: str, kinds, tree: BuildTree, p: Problems) -> Path | None:
    preset = build_path_preset(path)
    if preset is None:
        p.add(cmd.path, cmd.line, f"`{cmd.text}`: {path} is not under build/<preset>/")
        return None
    if preset not in kinds["configurePresets"]:
        p.add(cmd.path, cmd.line, f"`{cmd.text}`: build/{preset} is not a preset's build tree")
        return None
    rel = path.split("/", 2)[2] if path.count("/") >= 2 else ""
    m = re.match(r"^labs/(lab\d\d_[a-z0-9_]+)/(lab\d\d_[a-z0-9_]+|lab\d\d_test)$", rel)
    if not m or not (ROOT / "labs" / m.group(1) / "CMakeLists.txt").is_file():
        p.add(cmd.path, cmd.line, f"`{cmd.text}`: {path}: no such program in the layout the "
                                  f"presets build (build/<preset>/labs/<lab>/<lab> or .../labNN_test)")
        return None
    if m.group(2) != m.group(1) and m.group(2) != f"{m.group(1)[:5]}_test":
        p.add(cmd.path, cmd.line, f"`{cmd.text}`: {path}: the programs of {m.group(1)} are "
                                  f"{m.group(1)} and {m.group(1)[:5]}_test")
        return None
    mapped = tree.map(path)
    if mapped is not None and not mapped.is_file():
        p.add(cmd.path, cmd.line, f"`{cmd.text}`: {path} is not built in {tree.dir}")
        return None
    return mapped


def check_tool_run(cmd: Command, args: list[str], kinds, tree: BuildTree, p: Problems) -> None:
    i = 0
    with_value = {"--tool", "--leak-check", "--print-limit", "--set", "--section", "--metrics",
                  "-k", "--kernel-name", "-c", "--launch-count", "-o", "--export"}
    while i < len(args) and args[i].startswith("-"):
        i += 1 if "=" in args[i] or args[i] not in with_value else 2
    if i >= len(args):
        p.add(cmd.path, cmd.line, f"`{cmd.text}`: no program to run")
        return
    program = args[i]
    mapped = check_build_file(cmd, program, kinds, tree, p)
    for pattern in option_values(args[i + 1:], "--gtest_filter"):
        if mapped is None or not mapped.name.endswith("_test"):
            continue
        out = subprocess.run([str(mapped), "--gtest_list_tests", f"--gtest_filter={pattern}"],
                             capture_output=True, text=True, check=False, timeout=120)
        listed = [ln for ln in out.stdout.splitlines() if ln.startswith("  ")]
        if not listed:
            p.add(cmd.path, cmd.line, f"`{cmd.text}`: --gtest_filter={pattern} selects no test "
                                      f"of {program}")


def check_python(cmd: Command, args: list[str], run: bool, p: Problems) -> None:
    if not args or not args[0].startswith("tools/"):
        return
    script = ROOT / args[0]
    if not script.is_file():
        p.add(cmd.path, cmd.line, f"`{cmd.text}`: {args[0]} does not exist")
        return
    if run:
        out = subprocess.run([sys.executable, str(script), "--help"], capture_output=True,
                             text=True, check=False, timeout=60, cwd=ROOT)
        if out.returncode != 0:
            p.add(cmd.path, cmd.line, f"`{cmd.text}`: {args[0]} --help exits {out.returncode}")
        else:
            known = set(re.findall(r"(--[a-z][a-z-]*)", out.stdout))
            for a in args[1:]:
                if a == "--":  # what follows goes to another program (e.g. ctest)
                    break
                flag = a.split("=", 1)[0]
                if flag.startswith("--") and flag not in known:
                    p.add(cmd.path, cmd.line, f"`{cmd.text}`: {args[0]} has no option {flag}")


def check_executable(cmd: Command, words: list[str], kinds, tree: BuildTree, run: bool,
                     p: Problems) -> None:
    mapped = check_build_file(cmd, words[0], kinds, tree, p)
    if mapped is None or not run or mapped.name.endswith("_test"):
        return
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    try:
        out = subprocess.run([str(mapped)] + words[1:], capture_output=True, text=True,
                             check=False, timeout=120, env=env)
    except subprocess.TimeoutExpired:
        p.add(cmd.path, cmd.line, f"`{cmd.text}`: did not finish in 120 s without a GPU")
        return
    if out.returncode not in (0, 77):
        msg = (out.stderr or out.stdout).strip().splitlines()[-1:] or [""]
        p.add(cmd.path, cmd.line, f"`{cmd.text}`: exits {out.returncode} without a GPU "
                                  f"(expected 0 or 77): {msg[0]}")


# ---------------------------------------------------------------------------
# Paths, references, figures, numbers, questions
# ---------------------------------------------------------------------------
def repo_file_names() -> set[str]:
    out = subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True,
                         check=False)
    names = {Path(f).name for f in out.stdout.splitlines()}
    if not names:  # not a git checkout (an exported tree)
        names = {f.name for f in ROOT.rglob("*") if f.is_file() and "build" not in f.parts}
    return names


FILE_NAME = re.compile(r"^[A-Za-z0-9_.-]+\.(cu|cuh|cpp|hpp|h|py|sh|md|txt|cmake|json|yml)$")


def check_paths(path: Path, spans: list[tuple[int, str]], p: Problems,
                names: set[str]) -> None:
    text = path.read_text(encoding="utf-8")
    for m in re.finditer(r"DESIGN\.md|\.\./shared|/work/|seeds/", text):
        p.add(path, line_of(text, m.start()), f"refers to '{m.group(0)}', which is not part of "
                                              f"the repository")
    for line, span in spans:
        if FILE_NAME.match(span) and span not in names and span not in ("scores.json",
                                                                         "junit.xml"):
            p.add(path, line, f"`{span}`: no file of that name in the repository")
            continue
        if " " in span or not span.startswith(PATH_PREFIXES):
            continue
        target = span.rstrip("/")
        if "<" in target or "*" in target:
            continue
        if not (ROOT / target).exists():
            p.add(path, line, f"`{span}` does not exist in the repository")


def check_images(path: Path, p: Problems) -> None:
    text = path.read_text(encoding="utf-8")
    names: dict[str, Path] = {}
    for d in IMAGE_DIRS:
        for f in d.glob("*"):
            if f.name in names:
                p.add(f, None, f"the same file name as {names[f.name]}: Doxygen finds figures by name")
            names[f.name] = f
    for m in re.finditer(r"!\[[^\]]*\]\(([^)\s]+)\)", text):
        link = m.group(1)
        line = line_of(text, m.start())
        target = (path.parent / link).resolve()
        if not target.is_file():
            p.add(path, line, f"image {link} does not resolve from this page")
        elif target.parent not in [d.resolve() for d in IMAGE_DIRS]:
            p.add(path, line, f"image {link} is not in docs/figures/banks or docs/figures/perf "
                              f"(Doxygen's IMAGE_PATH)")


def check_has_figure(path: Path, p: Problems) -> None:
    """A handout shows at least one figure that exists."""
    text = path.read_text(encoding="utf-8")
    if not any((path.parent / m.group(1)).resolve().is_file()
               for m in re.finditer(r"!\[[^\]]*\]\(([^)\s]+)\)", text)):
        p.add(path, None, "shows no figure: every handout shows at least one (a chart of "
                          "tools/figures.py or a diagram of tools/diagrams.py)")


def decimals(number: str) -> int:
    return len(number.split(".", 1)[1]) if "." in number else 0


def reference_runs(path: Path = ROOT / "docs" / "reference-run.md") -> dict[str, dict]:
    """The run columns of docs/reference-run.md: {"run1".."run3": {(test, measurement): value}}
    from the three-run ratio table, {"alone1".."alone3": {(test, "speedup"|"share"): value}}
    from the third run's table of lab 12 alone."""
    runs: dict[str, dict] = {k: {} for k in ("run1", "run2", "run3", "alone1", "alone2", "alone3")}
    if not path.is_file():
        return runs
    three = re.compile(r"^\| `([^`]+)` \| ([^|]+?) \| ([-\d.eE+]+) \| ([-\d.eE+]+) \| "
                       r"([-\d.eE+]+) \| [^|]* \| [^|]* \| [^|]* \|$")
    alone = re.compile(r"^\| `([^`]+)` \| ([-\d.eE+]+) \| ([-\d.eE+]+) / ([-\d.eE+]+) / "
                       r"([-\d.eE+]+) \| [^|]* \|$")
    for line in path.read_text(encoding="utf-8").splitlines():
        m = three.match(line.strip())
        if m:
            for i in range(3):
                runs[f"run{i + 1}"][(m[1], m[2].strip())] = float(m[3 + i])
            continue
        m = alone.match(line.strip())
        if m:
            name = "share" if "Profiler" in m[1] else "speedup"
            for i in range(3):
                runs[f"alone{i + 1}"][(m[1], name)] = float(m[3 + i])
    return runs


def check_refs(path: Path, ref: figures.Reference, update: bool, p: Problems,
               runs: dict[str, dict] | None = None) -> int:
    text = path.read_text(encoding="utf-8")
    count = 0
    runs = runs if runs is not None else reference_runs()

    def fix(m: re.Match) -> str:
        nonlocal count
        count += 1
        kind, test, name = m.group(1), m.group(2), m.group(3).strip('"')
        scale = float(m.group(4)) if m.group(4) else 1.0
        if kind == "ref":
            value = ref.get(test, name)
            source = ref.source.name
        else:
            value = runs.get(kind, {}).get((test, name))
            source = f"reference-run.md, {kind}"
        line = line_of(text, m.start())
        if value is None:
            p.add(path, line, f"marker names '{test}' / '{name}', which the reference "
                              f"({source}) does not have")
            return m.group(0)
        value *= scale
        printed = m.group(6)
        d = decimals(printed)
        # The run tables print four significant digits: allow their rounding too.
        slack = 0.0 if kind == "ref" else 5e-4 * abs(value)
        if abs(float(printed) - value) <= 0.5 * 10 ** -d + slack + 1e-9 * max(1.0, abs(value)):
            return m.group(0)
        if update and kind == "ref":
            new = f"{value:.{d}f}"
            return m.group(0)[: m.start(6) - m.start()] + new
        p.add(path, line, f"{printed} for {test} / {name}{' x' + m.group(4) if m.group(4) else ''}, "
                          f"but the reference ({source}) has {value:g}")
        return m.group(0)

    new_text = REF.sub(fix, text)
    if update and new_text != text:
        path.write_text(new_text, encoding="utf-8")
    return count


def add_given_measurements(ref: figures.Reference) -> None:
    """Adds the measurements of tests that are not graded (the scores file's top-level
    `measurements`, e.g. lab 14's cuBLAS baselines) to @p ref, so a handout can mark them too;
    a graded test's own entry is never replaced."""
    if ref.source.suffix != ".json":
        return
    data = json.loads(ref.source.read_text())
    for m in data.get("measurements", []):
        key = (m.get("test"), m.get("name"))
        if None not in key and isinstance(m.get("value"), (int, float)) and \
                key not in ref.measurements:
            ref.measurements[key] = (float(m["value"]), m.get("unit", ""))


def blank(text: str, pattern: re.Pattern) -> str:
    """The text with every match of @p pattern replaced by spaces (newlines kept)."""
    return pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def unmarked_numbers(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every number in a handout that looks measured and has no marker."""
    text = path.read_text(encoding="utf-8")
    covered: set[int] = {m.start(6) for m in REF.finditer(text)}
    covered |= {m.end() for m in DEMO.finditer(text)}
    demo_lines: set[int] = set()
    lines = text.splitlines()
    for m in DEMO_TABLE.finditer(text):
        i = line_of(text, m.start())  # the index of the line after the marker
        while i < len(lines) and not lines[i].lstrip().startswith("|"):
            i += 1
        while i < len(lines) and lines[i].lstrip().startswith("|"):
            demo_lines.add(i + 1)
            i += 1
    body = blank(text, FENCE)
    body = blank(body, re.compile(r"<!--.*?-->", re.S))
    body = blank(body, re.compile(r"(?<!`)`[^`\n]+`(?!`)"))
    out = []
    for m in MEASURED.finditer(body):
        if m.start() in covered:
            continue
        if "." not in m.group(1) and not m.group(2):
            continue  # a whole number with ×, x or %: a count or a rule more often than a measurement
        line = line_of(body, m.start())
        if line in demo_lines or EXEMPT_BEFORE.search(body[max(0, m.start() - 20):m.start()]):
            continue
        out.append((line, m.group(0).strip()))
    return out


def check_unmarked(path: Path, p: Problems, counts: dict[Path, list[tuple[int, str]]]) -> None:
    lab = path.parent.name[:5]
    found = unmarked_numbers(path)
    if lab in CLEAN_LABS:
        for line, number in found:
            p.add(path, line, f"'{number}' looks measured but has no marker (<!-- ref ... -->, "
                              f"<!-- run2 ... -->, or <!-- demo --> for the demo's output)")
    elif found:
        counts[path] = found


def code_lines_in_regions(path: Path, nn: str, p: Problems) -> int | None:
    """Lines of code (neither blank nor only a // comment) inside the TODO(labNN) regions of
    @p path, without each region's TODO and HINT lines and its END line."""
    import skeleton_check  # same folder; its TODO-region rules

    sp = skeleton_check.Problems(ROOT)
    segs = skeleton_check.segments(path, nn, sp)
    p.items.extend(sp.items)
    if segs is None:
        return None
    count = 0
    for seg in segs:
        if seg.kind == "todo":
            body = seg.lines[len(skeleton_check.region_header(seg)):-1]
            count += sum(1 for ln in body if ln.strip() and not ln.lstrip().startswith("//"))
    return count


def check_budgets(path: Path, p: Problems) -> int:
    """Each `<!-- budget FILE... -->N` of a handout page: N is the reference solution's lines of
    code in the TODO regions of those files. Returns the number of markers."""
    lab = path.parent.name
    text = path.read_text(encoding="utf-8")
    markers = list(BUDGET.finditer(text))
    for m in markers:
        line = line_of(text, m.start())
        if m.group(3) is None:
            p.add(path, line, "a budget marker with no number right after it")
            continue
        if not (ROOT / "solutions").is_dir():
            continue  # a student release: nothing to count
        total = 0
        for name in m.group(1).split():
            sol = (ROOT / "solutions" / f"{lab}.answers.txt" if name == "answers.txt"
                   else ROOT / "solutions" / lab / name)
            if not sol.is_file():
                p.add(path, line, f"budget: {sol.relative_to(ROOT)} does not exist")
                total = None
                break
            n = code_lines_in_regions(sol, lab[3:5], p)
            if n is None:
                total = None
                break
            total += n
        if total is not None and total != int(m.group(3)):
            p.add(path, line, f"budget {m.group(3)} for {m.group(1)}, but the reference solution "
                              f"has {total} lines of code in their TODO(lab{lab[3:5]}) regions")
    return len(markers)


def check_questions(lab_dir: Path, handouts: list[Path], p: Problems) -> None:
    """The Questions sections of one lab's handout pages against its answers.txt."""
    nn = lab_dir.name[3:5]
    numbered: list[str] = []
    pointers: list[tuple[Path, str]] = []  # (page, its section) of pages that number none
    holders: set[str] = set()
    missing = False
    for path in handouts:
        text = path.read_text(encoding="utf-8")
        m = re.search(r"^## Questions\n(.*?)(?=^## |\Z)", text, re.S | re.M)
        if not m:
            p.add(path, None, "no '## Questions' section")
            missing = True
            continue
        if m.end() != len(text):
            p.add(path, line_of(text, m.end()), "a section after '## Questions': every handout "
                                                "page ends with its questions")
        found = re.findall(r"^(\d+)\. ", m.group(1), re.M)
        numbered += found
        if found:
            holders.add(path.name)
        else:
            pointers.append((path, m.group(1)))
    if missing:
        return
    for path, section in pointers:
        links = set(re.findall(r"\]\(([^)#\s]+\.md)(?:#[^)]*)?\)", section))
        if not links & holders:
            p.add(path, None, "its '## Questions' section numbers no question and links to no "
                              "page of the lab that does")
    stub = lab_dir / "answers.txt"
    sol = ROOT / "solutions" / f"{lab_dir.name}.answers.txt"
    if not stub.is_file():
        p.add(stub, None, "missing: the handout's questions are answered here")
        return
    keys = re.findall(r"^(q\d+)\s*=", stub.read_text(), re.M)
    want = [f"q{n}" for n in numbered]
    if keys != want:
        where = f" (pages {', '.join(h.name for h in handouts)})" if len(handouts) > 1 else ""
        p.add(stub, None, f"answer lines {keys} do not match the handout's questions {want}{where}")
    if not (ROOT / "solutions").is_dir():
        return  # a student release
    if not sol.is_file():
        p.add(sol, None, "missing: the reference answers of the handout's questions")
        return
    import skeleton_check  # same folder; its TODO-region rules

    sp = skeleton_check.Problems(ROOT)
    skeleton_check.compare_files(stub, sol, nn, sp, "reference answers")
    for item in sp.items:
        p.items.append(item)
    stub_text = stub.read_text()
    if re.search(r"^q\d+[ \t]*=[ \t]*[^ \t\n/]", stub_text, re.M):
        p.add(stub, None, "the stub already holds an answer")
    if re.search(r"^q\d+[ \t]*=[ \t]*(//.*)?$", sol.read_text(), re.M):
        p.add(sol, None, "a question without a reference answer")


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="handout_check.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", type=Path,
                    help="a configured and built tree to check commands against (default: "
                         "build/ci-student, else build/student, when it exists)")
    ap.add_argument("--no-run", action="store_true", help="check, but run nothing")
    ap.add_argument("--update-refs", action="store_true",
                    help="rewrite every marked number from the reference run")
    ap.add_argument("--reference", type=Path, help="the reference scores (default: as figures.py)")
    ap.add_argument("--list", action="store_true", help="print the commands and markers found")
    ap.add_argument("--unmarked", action="store_true",
                    help="list the unmarked measured-looking numbers of the labs not yet clean")
    args = ap.parse_args(argv)

    build_dir = args.build_dir
    if build_dir is None:
        for cand in (ROOT / "build" / "ci-student", ROOT / "build" / "student"):
            if (cand / "CTestTestfile.cmake").is_file():
                build_dir = cand
                break
    elif not build_dir.is_absolute():
        build_dir = (Path.cwd() / build_dir).resolve()
    tree = BuildTree(build_dir)
    kinds = presets()
    ref = figures.load_reference(args.reference)
    add_given_measurements(ref)
    p = Problems()
    names = repo_file_names()
    n_commands = n_refs = n_budgets = 0
    unmarked: dict[Path, list[tuple[int, str]]] = {}
    for page in pages():
        commands, spans = extract(page)
        n_commands += len(commands)
        if args.list:
            for c in commands:
                print(f"{c.path.relative_to(ROOT)}:{c.line}: {c.text}")
        for c in commands:
            check_command(c, kinds, tree, not args.no_run, p)
        check_paths(page, spans, p, names)
        check_images(page, p)
        if is_handout(page):
            if page.parent.parent == ROOT / "labs":
                check_has_figure(page, p)
            n_refs += check_refs(page, ref, args.update_refs, p)
            if page.parent.parent == ROOT / "labs":
                check_unmarked(page, p, unmarked)
                n_budgets += check_budgets(page, p)
    for lab_dir in lab_dirs():
        if lab_pages(lab_dir):
            check_questions(lab_dir, lab_pages(lab_dir), p)
    if bank_figures.main(["--check"]) != 0:
        p.add(ROOT / "docs" / "figures" / "banks", None, "stale: python3 tools/bank_figures.py")
    for m in figures.missing_series(ref):
        p.add(ROOT / "tools" / "figures.py", None, f"chart {m}: the series has no measurement in "
                                                   f"{ref.source.name}")
    if figures.main(["--check"]) != 0:
        p.add(ROOT / "docs" / "figures" / "perf", None, "stale: python3 tools/figures.py")
    for page, found in sorted(unmarked.items()):
        print(f"note: {page.relative_to(ROOT)}: {len(found)} unmarked number(s) that look "
              f"measured (not yet in CLEAN_LABS)")
        if args.unmarked:
            for line, number in found:
                print(f"  {page.relative_to(ROOT)}:{line}: {number}")
    for note in p.notes[:5]:
        print(f"note: {note}")
    if len(p.notes) > 5:
        print(f"note: ... {len(p.notes) - 5} more not checked without a build tree")
    for item in p.items:
        print(item)
    where = f"against {tree.dir.relative_to(ROOT) if tree.dir.is_relative_to(ROOT) else tree.dir}" \
        if tree.dir else "without a build tree"
    summary = (f"{len(pages())} pages, {n_commands} commands ({where}), {n_refs} reference "
               f"numbers ({ref.source.name}), {n_budgets} budgets")
    if p.items:
        print(f"handout check FAILED: {len(p.items)} problem(s); {summary}")
        return 1
    print(f"handout check passed: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
