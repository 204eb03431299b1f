# SPDX-License-Identifier: BSD-3-Clause
"""Handout check: every command, path, number, figure and question of the handouts holds.

    python3 -m tools.handout_check [--build-dir build/ci-student] [--no-run]
    python3 -m tools.handout_check --update-refs      # rewrite the marked numbers from the reference
    python3 -m tools.handout_check --list             # what the handouts mark and run

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
             those files of the reference solution, solutions/<lab>/<file> (answers.txt
             included), after each region's TODO and HINT lines
             (tools/skeleton_check.py's regions); `<file>:<i>,<j>` counts only the file's
             i-th, j-th ... region (in file order, from 1); not checked without solutions/;
  figures    every handout page shows at least one figure; every chart's series (the lab's own
             kernels and baselines) has its measurement in the reference;
             every image link resolves from the page (GitHub's repository view) and names a
             file Doxygen finds by name (docs/figures/banks or docs/figures/perf, names
             unique); the committed figures are current: tools/bank_figures.py's and the
             diagrams and course map of tools/figures.py byte for byte, its charts by the
             digest of their data (python3 -m tools.figures --check, no matplotlib needed);
  questions  every handout page ends with a "Questions" section; the numbered questions of a
             lab's pages, page after page, are the q1..qN of labs/<lab>/answers.txt (a
             TODO(labNN) region) and of the reference answers solutions/<lab>/answers.txt,
             which differ from the stub only inside that region (tools/skeleton_check.py's
             rules); a page whose section numbers none links to the page of the lab that does;
  answers    nothing to copy: no graded answer (solutions/<lab>/answers.txt) is stated in the
             unfolded text of the lab's pages (outside <details> and HTML comments) or in a
             comment of its stub sources: a long answer (three digits or more, or a decimal:
             the number itself, or a decimal within the grader's tolerance) is found by itself,
             a short one (a letter, one or two digits) by the phrases of ANSWER_CUES, which
             every such question of AUDITED_LABS must have (a phrase inside a question, a
             sentence that ends with '?', asks and does not count);
  measured   predict before the numbers: every measured number of a lab page (ref/run/alone
             and demo markers, demo tables, the throughput charts docs/figures/perf/labNN.svg)
             sits in a folded `<details><summary>What we measured ...` section (one left
             under a Predict prompt is reported as answering it), each such section has a
             prediction of its own (a `Predict` heading or a paragraph opening with **Predict**)
             after the section before it, and no unfolded prose states a measured ratio in
             words ("about twelve times faster", "a tenth of it"; questions and thresholds
             exempt);
  work out   every lab's README.md has a `## What you work out` section of at least two
             bullets: what the student derives in the lab, no answers;
  grading    one page for grading mechanics: docs/grading.md exists, every lab page links to
             it, its mechanics (the reference GPU's bars, tests/calibration/) are stated there
             only, and no unfolded prose paragraph of 30 words or more is repeated on two lab pages;
  lds128     every `<!-- lds128 table -->` table of a handout (LDS.128 wavefronts by lane
             pattern) equals the measured one of docs/reference-run.md;
  stub budgets every `roughly N lines` in a TODO region's header of a stub is the reference
             solution's lines of code in that region within 10 % (1 line for the smallest);
  parts      sittings of at most PART_LIMIT (150) student lines: a part of a lab asks for the
             lines of code of the reference solution in its TODO(labNN) regions (the budgets'
             count; without solutions/, the stub's `roughly N lines`; answers.txt not counted:
             one line per question, not code). A one-page lab is one part, every region of its
             sources. A lab declares its parts with markers `<!-- part <file>[:<i>,<j>...] ...
             -->` on any of its pages: each marker is one part, the TODO(labNN) regions of those
             stub files (all of a file's regions, or its i-th, j-th ... in file order, from 1);
             its page is the lab page a link on the marker's line points to (a row of a table
             of sittings: `| 3 | [part 2](PART2.md) | ... | <!-- part pipeline.cu:2,3 -->138 |`),
             else the page that holds it; a number right after the marker on its line must be
             the part's count. With markers, every region of the lab's sources is in exactly
             one part; a lab of more than one page must have them. A part over the limit fails
             with its page, its count and the limit (--list prints every part's count).
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

from . import bank_figures
from . import figures
from .model import measurements_of  # scores.json's measurements

ROOT = Path(__file__).resolve().parent.parent
sys.dont_write_bytecode = True  # no __pycache__ in the checkout

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


def rel(path: Path) -> Path:
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


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
    if args and args[0].startswith("tools/"):
        p.add(cmd.path, cmd.line, f"`{cmd.text}`: the tools run as modules: python3 -m "
                                  + args[0].removesuffix(".py").replace("/", "."))
        return
    while args and args[0] in ("-B", "-P", "-s"):
        args = args[1:]
    if len(args) < 2 or args[0] != "-m" or not args[1].startswith("tools."):
        return
    module, args = args[1], args[1:]
    script = ROOT.joinpath(*module.split(".")).with_suffix(".py")
    if not script.is_file():
        p.add(cmd.path, cmd.line, f"`{cmd.text}`: {module} ({script.relative_to(ROOT)}) does "
                                  "not exist")
        return
    if run:
        # A subcommand (`phase_times table --opt`) has its own options: ask its help.
        sub = args[1:2] if len(args) > 1 and re.fullmatch(r"[a-z][a-z-]*", args[1]) else []
        out = subprocess.run([sys.executable, "-P", "-m", module, *sub, "--help"],
                             capture_output=True, text=True, check=False, timeout=60, cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
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
    for m in re.finditer(r"(?i)\bseed articles?\b|\bseed \d{3}\b|\bseed's\b", text):
        p.add(path, line_of(text, m.start()), f"'{m.group(0)}': course-design jargon no student "
                                              f"can look up; say what is meant")
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
    table = runs if runs is not None else reference_runs()

    def fix(m: re.Match) -> str:
        nonlocal count
        count += 1
        kind, test, name = m.group(1), m.group(2), m.group(3).strip('"')
        scale = float(m.group(4)) if m.group(4) else 1.0
        if kind == "ref":
            value = ref.get(test, name)
            source = ref.source.name
        else:
            value = table.get(kind, {}).get((test, name))
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
    for m in measurements_of(data.get("measurements", []), f"{ref.source}: measurements"):
        if m.name is not None and m.value is not None and (m.test, m.name) not in ref.measurements:
            ref.measurements[(m.test, m.name)] = (float(m.value), m.unit)


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


def code_lines_in_regions(path: Path, nn: str, p: Problems,
                          which: list[int] | None = None) -> int | None:
    """Lines of code (neither blank nor only a // comment) inside the TODO(labNN) regions of
    @p path (only its regions @p which, counted from 1, when given), without each region's TODO
    and HINT lines and its END line. ValueError for a region the file lacks."""
    from . import skeleton_check  # its TODO-region rules

    sp = skeleton_check.Problems(ROOT)
    segs = skeleton_check.segments(path, nn, sp)
    p.items.extend(sp.items)
    if segs is None:
        return None
    todos = [seg for seg in segs if seg.kind == "todo"]
    for i in which or []:
        if not 1 <= i <= len(todos):
            raise ValueError(f"{path.name} has {len(todos)} TODO(lab{nn}) region(s), no region {i}")
    return sum(code_lines(todos[i - 1]) for i in which) if which else \
        sum(code_lines(seg) for seg in todos)


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
        total, counted = 0, True
        for word in m.group(1).split():
            name, _, picked = word.partition(":")
            sol = ROOT / "solutions" / lab / name
            if not sol.is_file():
                p.add(path, line, f"budget: {sol.relative_to(ROOT)} does not exist")
                counted = False
                break
            if picked and not re.fullmatch(r"\d+(?:,\d+)*", picked):
                p.add(path, line, f"budget: '{word}' is not FILE or FILE:i,j")
                counted = False
                break
            which = [int(i) for i in picked.split(",")] if picked else None
            try:
                n = code_lines_in_regions(sol, lab[3:5], p, which)
            except ValueError as e:
                p.add(path, line, f"budget: {e}")
                n = None
            if n is None:
                counted = False
                break
            total += n
        if counted and total != int(m.group(3)):
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
    sol = ROOT / "solutions" / lab_dir.name / "answers.txt"
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
    from . import skeleton_check  # its TODO-region rules

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
# Nothing to copy: graded answers, folded measurements, one page for grading mechanics
# ---------------------------------------------------------------------------
def folded_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, summary) of every outermost <details> block of @p text."""
    out = []
    depth = 0
    start = 0
    summary = ""
    for m in re.finditer(r"<details\b[^>]*>|</details>", text):
        if m.group(0).startswith("<details"):
            if depth == 0:
                start = m.start()
                s = re.match(r"\s*<summary>(.*?)</summary>", text[m.end():], re.S)
                summary = " ".join(s.group(1).split()) if s else ""
            depth += 1
        elif depth > 0:
            depth -= 1
            if depth == 0:
                out.append((start, m.end(), summary))
    if depth > 0:
        out.append((start, len(text), summary))
    return out


def unfolded(text: str) -> str:
    """@p text with every <details> block and HTML comment blanked (newlines kept): what a
    student reads without opening anything."""
    chars = list(text)
    for a, b, _ in folded_spans(text):
        for i in range(a, b):
            if chars[i] != "\n":
                chars[i] = " "
    return blank("".join(chars), re.compile(r"<!--.*?-->", re.S))


NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 8: "eight",
                16: "sixteen", 20: "twenty", 32: "thirty-two", 40: "forty"}
# A graded answer that is a short number (one or two digits) or a letter is everywhere in a
# handout's text; these are the ways the text would state it. `{a}` stands for the answer (its
# digits, or its word: 8 or eight). Every graded question of an AUDITED_LABS lab whose answer is
# short has an entry; a longer number (three digits or more, or a decimal) is found by itself.
ANSWER_CUES: dict[tuple[str, str], list[str]] = {
    ("lab01", "q3"): [r"256\s*[×x]\s*1\b`?[^.?]{0,80}?\b(?:along|on)\s*(?:a|one)\s*row",
                      r"1\s*[×x]\s*256\b`?[^.?]{0,80}?\b(?:along|on|down)\s*a\s*column",
                      r"block\.x`?\s*=\s*256[^.?]{0,80}?\brow\b"],
    ("lab02", "q1"): [r"(?:column\s*16|misaligned|unaligned|not aligned|straddl\w*)[^.?]{0,150}?\b{a}\s*"
                      r"(?:different\s*)?(?:128-byte\s*)?(?:cache\s*)?lines\b",
                      r"\b{a}\s*(?:different\s*)?(?:128-byte\s*)?(?:cache\s*)?lines\b[^.?]{0,150}?"
                      r"(?:misaligned|unaligned|not aligned|straddl\w*)"],
    ("lab02", "q2"): [r"\b{a}\s*(?:different\s*)?address(?:es)?\s*of\s*A\b", r"read\w*\s*the\s*same\s*`?A\[",
                      r"share\w*\s*(?:one|the same)\s*`?A`?\s*(?:value|element|word|address)",
                      r"\bA\[i\s*\*\s*K\s*\+\s*p\]`?\s*\(one value"],
    ("lab02", "q3"): [r"\b256\s*threads?\s*(?:per block\s*)?(?:beat|are faster|is faster|wins?)",
                      r"<<<\s*2048\s*,\s*256\s*>>>`?[^.?]{0,60}?\bfaster",
                      r"\b32\s*threads?\s*(?:per block\s*)?(?:is|are|runs?)\s*slower"],
    ("lab02", "q4"): [r"\b(?:eleven|twelve|thirteen)\s*times\b", r"\b1[0-4]\s*times\s*(?:faster|slower)"],
    ("lab03", "q3"): [r"pitch\s*/\s*sizeof\(float\)`?\s*(?:is\s*)?(?:always|exactly|an exact|a whole)",
                      r"always\s*a\s*whole\s*number\s*of\s*(?:elements|floats)",
                      r"pitch\s*/\s*sizeof\(float\)`?[^.?]{0,60}?—\s*correct"],
    ("lab03", "q4"): [r"(?:L1\s*and\s*L2|the\s*caches?)\s*absorb", r"aligning\s*the\s*rows\s*buys\s*nothing",
                      r"pitched[^.?]{0,80}?(?:costs?|within|loses)\s*(?:about\s*|only\s*)?[1-5]\s*%"],
    ("lab04", "q1"): [r"(?<![\d.])8\s*KB\b"],
    ("lab04", "q3"): [r"\b{a}\s*(?:such\s*|512-thread\s*)?blocks?\s*(?:fit|per SM|on (?:an|the) SM)",
                      r"65\s?536\s*/\s*\(?\s*(?:32\s*[×x*·]\s*512|512\s*[×x*·]\s*32|16\s?384)"],
    ("lab05", "q1"): [r"(?:stride\s*(?:of\s*)?6|\b6\s*[·*]\s*i)\b[^.?]{0,100}?\b{a}[- ]way",
                      r"gcd\(\s*6\s*,\s*32\s*\)"],
    ("lab05", "q2"): [r"(?:8-byte|float2)[^.?]{0,80}?(?:stride|elements?)\s*16\b[^.?]{0,100}?\b{a}[- ]way",
                      r"(?:element\s*16\s*[·*]\s*i|byte\s*128\s*[·*]\s*i)[^.?]{0,100}?\b{a}[- ]way",
                      r"gcd\(\s*(?:s|16)\s*,\s*16\s*\)"],
    ("lab05", "q3"): [r"(?:16-byte|float4)[^.?]{0,80}?(?:stride|elements?)\s*4\b[^.?|]{0,100}?\b{a}[- ]way",
                      r"element\s*4\s*[·*]\s*i[^.?]{0,100}?\b{a}[- ]way", r"gcd\(\s*(?:s|4)\s*,\s*8\s*\)"],
    ("lab05", "q4"): [r"\b{a}\s*wavefronts\b",
                      r"(?:float4|16-byte)[^.?]{0,80}?(?:element|stride)\s*4\b[^.?]{0,100}?\b{a}\s*passes"],
    ("lab07", "q1"): [r"s\[x\]\[y\s*\^\s*x\][^.?]{0,150}?(?:conflict-free|\b{a}[- ]way|degree\s*(?:of\s*)?{a}\b)",
                      r"XOR\s*(?:has\s*to\s*go|goes)\s*on\s*the\s*column[^.?]{0,40}?(?:conflict-free|as\s*in\s*this"
                      r"\s*lab)"],
    ("lab07", "q2"): [r"y\s*>>\s*3[^.?]{0,150}?\b{a}[- ]way", r"\b{a}[- ]way[^.?]{0,100}?y\s*>>\s*3"],
    ("lab07", "q3"): [r"(?:3\s*\^\s*40|40\s*\^\s*3)\s*=\s*{a}\b", r"row\s*40[^.?]{0,100}?(?:column|col)\s*{a}\b"],
    ("lab07", "q4"): [r"\(x\s*\+\s*y\)\s*%\s*32`?[^.?]{0,150}?(?:conflict-free|\b{a}[- ]way|degree\s*(?:of\s*)?{a}\b)",
                      r"rotation[^.?]{0,150}?(?:conflict-free|lab\s*06's\s*padding)"],
    ("lab08", "q1"): [r"K\s*=\s*100\b[^.?]{0,100}?\b{a}\b", r"\b{a}\s*padding\s*bits", r"128\s*[-−]\s*100\s*=\s*{a}"],
    ("lab08", "q2"): [r"(?<![\w-])[−-]\s?16\b(?!-)", r"2\s*[·*×]\s*\(\s*70\s*[-−]\s*28\s*\)"],
    ("lab08", "q3"): [r"packed[^.?]{0,40}?\b2\s*Mi?B\b", r"\b2\s*Mi?B\b[^.?]{0,40}?packed"],
    ("lab08", "q4"): [r"\b{a}\s*(?:separate\s*|different\s*)?(?:memory\s*)?(?:transactions|(?:cache\s*|128-byte\s*)?"
                      r"lines)\s*(?:per\s*warp|instead\s*of\s*one)",
                      r"W\s*words\s*apart[^.?]{0,100}?\b{a}\s*(?:separate\s*|different\s*)?(?:memory\s*)?"
                      r"(?:transactions|lines)"],
    ("lab09", "q1"): [r"tiy\s*\*\s*17\s*\+\s*tix[^.?]{0,150}?(?:\b{a}[- ]way|conflict-free)",
                      r"swapped\s*and\s*padded[^.?]{0,150}?(?:\b{a}[- ]way|conflict-free)"],
    ("lab09", "q2"): [r"(?:pitch|rows?)\s*(?:of\s*)?18\b[^.?]{0,150}?(?:\b{a}[- ]way|conflict-free)",
                      r"\b18\s*words[^.?]{0,150}?(?:\b{a}[- ]way|conflict-free)"],
    ("lab09", "q3"): [r"(?:int\s*table|word\s*per\s*entry|256\s*words)[^.?]{0,150}?\b{a}[- ]way",
                      r"\b{a}\s*(?:words\s*)?per\s*bank\b"],
    ("lab09", "q4"): [r"\b13[1-6]\s*Tbit"],
    ("lab06", "q1"): [r"(?:pitch|p)\s*(?:of\s*|=\s*)?40\b[^.]{0,150}?\b{a}[- ]way",
                      r"gcd\(\s*40\s*,\s*32\s*\)\s*=\s*{a}\b", r"\b40\s*:\s*{a}[- ]way"],
    ("lab06", "q3"): [r"slower than (?:the )?lab\s*04", r"lab 04's[^.]*\b(?:faster|beats|wins)",
                      r"faster than (?:this lab's |the )?padded"],
    ("lab10", "q1"): [r"\b{a} sectors\b"],
    ("lab10", "q2"): [r"\b{a}\s*(?:×|x|times)\s*(?:as many|the)\s*bytes",
                      r"\b{a}\s*bytes\s*(?:fetched\s*|read\s*|moved\s*)?(?:for|per)\s*(?:each\s*)?"
                      r"(?:useful\s*)?byte"],
    ("lab10", "q3"): [r"(?:pitch|K)\s*(?:=\s*|of\s*)?8\b[^.]{0,150}?\b{a}[- ]way",
                      r"\b8 floats\b[^.]{0,150}?\b{a}[- ]way"],
    ("lab10", "q4"): [r"AoS3[^.]{0,150}?\b{a}\s*(?:×|x\b|times)", r"\b{a}\s*(?:×|x\b|times)[^.]{0,150}?AoS3",
                      r"12\s*/\s*4\s*=\s*{a}\b"],
    ("lab11", "q2"): [r"\b{a}\s*(?:different\s*|distinct\s*)?(?:head lengths|heads)"],
    ("lab11", "q3"): [r"\b{a}\s*wavefronts\b[^.]{0,150}?column", r"column[^.]{0,150}?\b{a}\s*wavefronts\b"],
    ("lab12", "q1"): [r"(?:two stages|stages?)[^.|]{0,80}?\b16\s*Ki?B\b",
                      r"\b16\s*Ki?B\b[^.|]{0,80}?stages"],
    ("lab12", "q2"): [r"\b{a}\s*(?:real\s*)?columns\b[^.]{0,150}?(?:A|last tile)",
                      r"1000\s*-\s*992", r"last tile[^.]{0,150}?\b{a}\s*columns"],
    ("lab12", "q4"): [r"33\s*registers[^.]{0,150}?\b{a}\s*blocks?\b", r"\b{a}\s*blocks?\b[^.]{0,150}?33\s*registers",
                      r"40,?960\b"],
    ("lab13", "q2"): [r"215\s*registers[^.]{0,150}?\b{a}\s*blocks?\b", r"\b{a}\s*blocks?\s*of\s*256"
                      r"\s*threads[^.]{0,150}?(?:fit|per SM)"],
    ("lab13", "q4"): [r"block\s*21\b[^.]{0,150}?\bcolumn\s*{a}\b", r"block\s*21\b[^.]{0,150}?=\s*{a}\b"],
    ("lab14", "q1"): [r"300[^.]{0,150}?140[^.]{0,150}?170[^.]{0,150}?90[^.]{0,150}?=\s*{a}\b"],
    ("lab14", "q4"): [r"(?:without the swizzle|unswizzled|no swizzle)[^.]{0,150}?\b{a}[- ]way",
                      r"\b{a}[- ]way[^.]{0,150}?(?:without the swizzle|unswizzled|no swizzle)",
                      r"\b{a}[- ]way\b[^.]{0,150}?ldmatrix", r"ldmatrix[^.]{0,150}?\b{a}[- ]way"],
}
# Labs whose every graded answer is checked (short ones through ANSWER_CUES); for the others
# only the long answers are, and the short ones without cues are counted in a note.
AUDITED_LABS = {f"lab{n:02d}" for n in range(1, 15)}  # every lab of the course


def graded_answers(lab: str) -> list[tuple[str, str, float]]:
    """(key, answer, relative tolerance) of each question of @p lab: the reference answers of
    solutions/<lab>/answers.txt, the tolerance of the grader's number_is() (0 when it is not a
    literal)."""
    sol = ROOT / "solutions" / lab / "answers.txt"
    if not sol.is_file():
        return []
    tol: dict[str, float] = {}
    grader = ROOT / "tests" / lab / "questions.cpp"
    if grader.is_file():
        for m in re.finditer(r'number_is\(\s*sheet\(\),\s*"(q\d+)",(?:[^;]*?),\s*(\d+(?:\.\d+)?)'
                             r'\s*,\s*"', grader.read_text(), re.S):
            tol[m.group(1)] = float(m.group(2))
    out = []
    for m in re.finditer(r"^(q\d+)[ \t]*=[ \t]*([^\s/]+)", sol.read_text(), re.M):
        out.append((m.group(1), m.group(2), tol.get(m.group(1), 0.0)))
    return out


def is_short(answer: str) -> bool:
    digits = answer.lstrip("-")
    return not re.fullmatch(r"\d+(?:\.\d+)?", digits) or (len(digits) <= 2 and "." not in digits)


# A number as a handout may print it: 8320, 8 320, 8,320 (thin or no-break spaces too), 3.8.
NUMBER_TOKEN = re.compile(r"(?<![\w.^])[-−]?\d{1,3}(?:[ ,\u2009\u202f\u00a0]\d{3})+(?![\w.]\d)"
                          r"|(?<![\w.^])[-−]?\d+(?:\.\d+)?(?![\w])")


SENTENCE_END = re.compile(r"\?|[.!](?=\s|$)")


def in_question(text: str, pos: int) -> bool:
    """Whether the sentence around @p pos ends with a question mark: a question (a Predict
    prompt, the graded question itself) asks for its answer, it does not state it."""
    m = SENTENCE_END.search(text, pos)
    return bool(m and m.group(0) == "?")


def answer_hits(text: str, answer: str, tol: float, cues: list[str] | None) -> list[int]:
    """Offsets in @p text where @p answer is stated."""
    hits = []
    if cues:
        alts = [re.escape(answer)]
        if answer.isdigit() and int(answer) in NUMBER_WORDS:
            alts.append(NUMBER_WORDS[int(answer)])
        a = "(?:" + "|".join(alts) + ")"
        for cue in cues:
            hits += [m.start() for m in re.finditer(cue.replace("{a}", a), text, re.I)
                     if not in_question(text, m.start())]
    if not is_short(answer):
        want = float(answer)
        slack = max(tol * abs(want), 0.5 * 10 ** -decimals(answer))
        for m in NUMBER_TOKEN.finditer(text):
            tok = re.sub(r"[ ,\u2009\u202f\u00a0]", "", m.group(0)).replace("−", "-")
            try:
                value = float(tok)
            except ValueError:
                continue
            # the number itself, or a decimal printed within the grader's tolerance (a measured
            # ratio) or the answer's rounding
            if value == want or ("." in tok and abs(value - want) <= slack + 1e-12):
                hits.append(m.start())
    return sorted(set(hits))


def check_answers_in_sight(lab_dir: Path, handouts: list[Path], p: Problems,
                           notes: dict[str, list[str]]) -> int:
    """Fails when a graded answer of the lab is stated in the unfolded text of its handout pages
    or in a comment of its stub sources. Returns the number of answers stated."""
    lab = lab_dir.name[:5]
    found = 0
    sources = [s for s in sorted(lab_dir.iterdir())
               if s.suffix in (".cu", ".cuh", ".cpp", ".hpp", ".h") and s.is_file()
               and s.name != "main.cu"]  # the demo's driver: sizes and options, no lesson
    for key, answer, tol in graded_answers(lab_dir.name):
        cues = ANSWER_CUES.get((lab, key))
        if is_short(answer) and cues is None:
            if lab in AUDITED_LABS:
                p.add(ROOT / "tools" / "handout_check.py", None,
                      f"{lab} {key}: the answer '{answer}' is too short to find by itself; give "
                      f"ANSWER_CUES[('{lab}', '{key}')] the phrases that would state it")
            else:
                notes.setdefault(lab, []).append(key)
            continue
        for page in handouts:
            text = page.read_text(encoding="utf-8")
            plain = unfolded(text)
            # the question itself may hold numbers; its answer line never
            for pos in answer_hits(plain, answer, tol, cues):
                found += 1
                p.add(page, line_of(plain, pos), f"{key}'s graded answer ({answer}) is stated in "
                                                 f"unfolded text: fold it (<details>) or let the "
                                                 f"student work it out")
        for src in sources:
            text = src.read_text(encoding="utf-8", errors="replace")
            comments = "\n".join(re.sub(r"^.*?(//|/\*|\*)", "", ln) if re.search(r"//|/\*|^\s*\*", ln)
                                 else "" for ln in text.splitlines())
            for pos in answer_hits(comments, answer, tol, cues):
                found += 1
                p.add(src, line_of(comments, pos), f"{key}'s graded answer ({answer}) is stated "
                                                   f"in a comment of a file the student gets")
    return found


MEASURED_SUMMARY = "What we measured"
MEASURED_CHART = re.compile(r"!\[[^\]]*\]\([^)\s]*figures/perf/lab\d\d\.svg\)")
PREDICT = re.compile(r"^(?:#+\s*Predict\b|\*\*Predict\b)", re.M)
HEADING = re.compile(r"^#+\s", re.M)
# A measured ratio a handout states in words or without a unit sign, which the unmarked check
# cannot see: "about twelve times faster", "12 times slower", "reaches about a tenth of it".
RATIO_WORDS = (r"(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fifteen|"
               r"twenty|thirty|forty|fifty|a hundred|\d+(?:\.\d+)?)")
MEASURED_IN_WORDS = re.compile(r"\b" + RATIO_WORDS + r"(?:\s+times|-fold)\s+(?:faster|slower|as fast)\b"
                               r"|\b(?:about|roughly|nearly|only|just)\s+(?:a|one)\s+"
                               r"(?:tenth|third|quarter|fifth)\s+of\b", re.I)


def check_measured_folded(path: Path, p: Problems) -> int:
    """Predict before the numbers: every measured number of a lab page (a ref/run/alone or demo
    marker, a demo table, a throughput chart of tools/figures.py) is inside a folded
    `<details><summary>What we measured ...` section; each such section has a prediction prompt
    (a `Predict` heading or a paragraph opening with **Predict**) of its own before it, after
    the section before it (a page with two measured parts predicts twice); and no measured
    ratio is stated in words in unfolded prose ("about twelve times faster", "a tenth of it":
    outside code, HTML comments and questions, not after a comparison sign: a threshold).
    A measured item left unfolded under a Predict prompt is reported as answering it.
    Returns the number of measured items found."""
    text = path.read_text(encoding="utf-8")
    spans = [(a, b) for a, b, s in folded_spans(text) if s.startswith(MEASURED_SUMMARY)]
    plain = unfolded(text)
    predicts = [m.start() for m in PREDICT.finditer(plain)]
    headings = [m.start() for m in HEADING.finditer(FENCE.sub(lambda m: " " * len(m.group(0)),
                                                              plain))]
    items = [(m.start(), "marked number") for m in REF.finditer(text)]
    items += [(m.start(), "demo number") for m in DEMO.finditer(text)]
    items += [(m.start(), "demo table") for m in DEMO_TABLE.finditer(text)]
    items += [(m.start(), "throughput chart") for m in MEASURED_CHART.finditer(text)]
    for pos, what in sorted(items):
        if any(a <= pos < b for a, b in spans):
            continue
        # the Predict prompt whose section (up to the next heading) holds the item, if any
        before = [q for q in predicts if q < pos]
        answers = bool(before) and not any(before[-1] < h <= pos for h in headings
                                     if not PREDICT.match(plain, h))
        where = " under the Predict prompt above it: it answers the prediction" if answers else ""
        p.add(path, line_of(text, pos), f"a {what} outside a folded '{MEASURED_SUMMARY}' "
                                        f"section{where}: the numbers come after the prediction, "
                                        f"folded (<details><summary>{MEASURED_SUMMARY} ...)")
    for i, (a, _) in enumerate(sorted(spans)):
        after = sorted(spans)[i - 1][1] if i else 0
        if not any(after <= q < a for q in predicts):
            msg = (f"no prediction before the first '{MEASURED_SUMMARY}' section" if not i else
                   f"no prediction of its own before this '{MEASURED_SUMMARY}' section (none "
                   f"since the one that ends on line {line_of(text, after)})")
            p.add(path, line_of(text, a), f"{msg} (a '## Predict' heading or a paragraph opening "
                                          f"with **Predict**)")
    prose = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), plain)
    for m in MEASURED_IN_WORDS.finditer(prose):
        if in_question(prose, m.start()) or EXEMPT_BEFORE.search(prose[:m.start()]):
            continue
        p.add(path, line_of(prose, m.start()), f"a measured ratio in words ('{m.group(0)}') in "
                                               f"unfolded text: it belongs in the folded "
                                               f"'{MEASURED_SUMMARY}' section, after the prediction")
    return len(items)


WORK_OUT = "## What you work out"
WORK_OUT_MIN = 2
BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\S", re.M)


def check_work_out(readme: Path, p: Problems) -> int:
    """Every lab's README has a section headed exactly `## What you work out` that names, in
    at least WORK_OUT_MIN list items, what the student derives in the lab (no answers). Returns
    the number of items."""
    text = readme.read_text(encoding="utf-8")
    m = re.search(r"^" + re.escape(WORK_OUT) + r"[ \t]*$", text, re.M)
    if not m:
        p.add(readme, None, f"no '{WORK_OUT}' section (what the student derives in this lab, "
                            f"at least {WORK_OUT_MIN} bullets, no answers)")
        return 0
    end = HEADING.search(text, m.end())
    body = unfolded(text[m.end():end.start() if end else len(text)])
    n = len(BULLET.findall(FENCE.sub("", body)))
    if n < WORK_OUT_MIN:
        p.add(readme, line_of(text, m.start()), f"'{WORK_OUT}' lists {n} item(s): name at least "
                                                f"{WORK_OUT_MIN} things the student derives, as "
                                                f"bullets")
    return n


LDS_TABLE = re.compile(r"^<!--\s*lds128 table\s*-->\s*\n((?:\|.*\n?)+)", re.M)


def lds128_rows(text: str) -> list[tuple[str, str, str]] | None:
    """(pattern, distinct, wavefronts) of the first `<!-- lds128 table -->` table of @p text."""
    m = LDS_TABLE.search(text)
    if not m:
        return None
    rows = []
    for line in m.group(1).splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3:
            pattern = re.sub(r"\s*\(.*\)$", "", cells[0]).strip()
            rows.append((pattern, cells[-2], cells[-1]))
    return rows


def check_lds128(pages_: list[Path], p: Problems) -> int:
    """Every handout's `<!-- lds128 table -->` (the wavefronts Nsight Compute counts for
    LDS.128 by lane pattern) equals the measured table of docs/reference-run.md."""
    ref_page = ROOT / "docs" / "reference-run.md"
    ref = lds128_rows(ref_page.read_text(encoding="utf-8")) if ref_page.is_file() else None
    n = 0
    for path in pages_:
        rows = lds128_rows(path.read_text(encoding="utf-8"))
        if rows is None or path == ref_page:
            continue
        n += 1
        if ref is None:
            p.add(ref_page, None, f"no '<!-- lds128 table -->' measurement, which "
                                  f"{path.relative_to(ROOT)} quotes")
        elif rows != ref:
            p.add(path, None, f"the LDS.128 wavefront table differs from the measurement in "
                              f"docs/reference-run.md: {rows} against {ref}")
    return n


GRADING_PAGE = ROOT / "docs" / "grading.md"
# Sentences of the grading mechanics that live on docs/grading.md only.
GRADING_ONLY = re.compile(r"bars? shown (?:are|is) (?:those|that) of the reference GPU"
                          r"|with its own file in `tests/calibration/`", re.I)


def paragraphs(text: str) -> list[tuple[int, str]]:
    """(offset, words) of every prose paragraph of @p text (no code, comments or tables)."""
    body = blank(text, FENCE)
    body = blank(body, re.compile(r"<!--.*?-->", re.S))
    out = []
    for m in re.finditer(r"(?:^[ \t]*[^\s|#<].*\n?)+", body, re.M):
        words = " ".join(m.group(0).split())
        out.append((m.start(), words))
    return out


def check_grading_page(lab_pages_: list[Path], p: Problems) -> None:
    """One page for grading mechanics: docs/grading.md exists, every lab page links to it, its
    mechanics are stated there only, and no prose paragraph of 30 words or more is repeated
    on two handout pages (a repeated one belongs on a shared page)."""
    if not GRADING_PAGE.is_file():
        p.add(GRADING_PAGE, None, "missing: the one page on how the labs are graded")
        return
    seen: dict[str, tuple[Path, int]] = {}
    for path in lab_pages_:
        text = path.read_text(encoding="utf-8")
        if not re.search(r"\]\((?:\.\./)+docs/grading\.md(?:#[^)]*)?\)", text):
            p.add(path, None, "no link to docs/grading.md (how the labs are graded)")
        for m in GRADING_ONLY.finditer(unfolded(text)):
            p.add(path, line_of(text, m.start()), "grading mechanics repeated: they are stated on "
                                                  "docs/grading.md, link there")
        for pos, words in paragraphs(unfolded(text)):
            if len(words.split()) < 30 or "docs/grading.md" in words:
                continue  # short, or the pointer to the grading page itself
            key = re.sub(r"[\d.,×%]+", "#", words.lower())
            if key in seen and seen[key][0] != path:
                other, line = seen[key]
                p.add(path, line_of(text, pos), f"the same paragraph as "
                                                f"{other.relative_to(ROOT)}:{line}: put it on one "
                                                f"page and link to it")
            else:
                seen.setdefault(key, (path, line_of(text, pos)))


STUB_BUDGET = re.compile(r"\broughly\s+(\d+)(?:\s*[-–]\s*(\d+))?\s+lines?\b", re.I)


def check_stub_budgets(lab_dir: Path, p: Problems) -> int:
    """Every `roughly N lines` of a TODO region's header (the TODO and HINT comment lines,
    the same in the stub and in the solution) is the reference solution's lines of code in
    that region, within 10 % (1 line for the smallest regions). Returns the number checked."""
    from . import skeleton_check  # its TODO-region rules

    nn = lab_dir.name[3:5]
    sol_dir = ROOT / "solutions" / lab_dir.name
    if not sol_dir.is_dir():
        return 0
    n = 0
    for sol in sorted(sol_dir.iterdir()):
        stub = lab_dir / sol.name
        if not stub.is_file():
            continue
        sp = skeleton_check.Problems(ROOT)
        segs = skeleton_check.segments(sol, nn, sp)
        stub_segs = skeleton_check.segments(stub, nn, sp)
        if segs is None or stub_segs is None:
            continue
        stub_starts = [s.start for s in stub_segs if s.kind == "todo"]
        for i, seg in enumerate(s for s in segs if s.kind == "todo"):
            header = skeleton_check.region_header(seg)
            words = " ".join(ln.strip().lstrip("/").strip() for ln in header)
            m = STUB_BUDGET.search(words)
            if not m:
                continue
            n += 1
            body = seg.lines[len(header):-1]
            count = sum(1 for ln in body if ln.strip() and not ln.lstrip().startswith("//"))
            lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
            slack = max(0.1 * count, 1.0)
            if not (lo - slack <= count <= hi + slack):
                where = stub_starts[i] if i < len(stub_starts) else None
                p.add(stub, where, f"'{m.group(0)}' in the TODO(lab{nn}) region, but the "
                                       f"reference solution has {count} lines of code there "
                                       f"(within 10 %: {count * 0.9:.0f} to {count * 1.1:.0f})")
    return n


# A sitting's limit: no part of a lab asks for more student lines than this.
PART_LIMIT = 150
# A part of a lab: the TODO regions it asks for (FILE: all of its regions; FILE:2,3 its 2nd and
# 3rd), and optionally, right after the marker on the same line, their count.
PART = re.compile(r"<!--\s*part\s+([^<>]*?)\s*-->([ \t*_]*)(\d+)?")
PART_SELECTOR = re.compile(r"^([\w.+-]+)(?::(\d+(?:,\d+)*))?$")
LAB_PAGE_LINK = re.compile(r"\]\(([\w.-]+\.md)(?:#[^)]*)?\)")
SOURCE_SUFFIXES = (".cu", ".cuh", ".cpp", ".hpp", ".h")


def code_lines(seg) -> int:
    """Lines of code (neither blank nor only a // comment) of a TODO region, without its TODO
    and HINT lines and its END line (tools/skeleton_check.py's segments)."""
    from . import skeleton_check  # its TODO-region rules

    body = seg.lines[len(skeleton_check.region_header(seg)):-1]
    return sum(1 for ln in body if ln.strip() and not ln.lstrip().startswith("//"))


def region_lines(lab_dir: Path, solutions: Path | None = None
                 ) -> dict[str, list[tuple[int, int | None, bool]]]:
    """Per stub source of the lab with TODO(labNN) regions: (stub line, student lines, counted
    in the reference solution) of each region in file order. Student lines: the reference
    solution's lines of code in the region (solutions/<lab>/<file>), else the upper
    `roughly N lines` of the region's header, else None (not known)."""
    from . import skeleton_check  # its TODO-region rules

    nn = lab_dir.name[3:5]
    sol_dir = (solutions if solutions is not None else ROOT / "solutions") / lab_dir.name
    out: dict[str, list[tuple[int, int | None, bool]]] = {}
    for stub in sorted(lab_dir.iterdir()):
        if stub.suffix not in SOURCE_SUFFIXES or not stub.is_file():
            continue
        sp = skeleton_check.Problems(ROOT)
        segs = skeleton_check.segments(stub, nn, sp)
        todos = [s for s in segs or [] if s.kind == "todo"]
        if not todos:
            continue
        sol = sol_dir / stub.name
        sol_segs = skeleton_check.segments(sol, nn, sp) if sol.is_file() else None
        sol_todos = [s for s in sol_segs or [] if s.kind == "todo"]
        counts: list[tuple[int, int | None, bool]] = []
        exact = len(sol_todos) == len(todos)
        for i, seg in enumerate(todos):
            if exact:
                n: int | None = code_lines(sol_todos[i])
            else:
                words = " ".join(ln.strip().lstrip("/").strip()
                                 for ln in skeleton_check.region_header(seg))
                m = STUB_BUDGET.search(words)
                n = int(m.group(2) or m.group(1)) if m else None
            counts.append((seg.start, n, exact))
        out[stub.name] = counts
    return out


@dataclass
class Part:
    page: Path                 # the handout page of the part
    where: Path                # the page and line that declare it (the marker)
    line: int | None
    regions: list[tuple[str, int]]  # (stub file, region index from 1)
    stated: int | None         # the number right after the marker
    count: int = 0


def lab_parts(lab_dir: Path, p: Problems, solutions: Path | None = None,
              limit: int = PART_LIMIT) -> list[Part]:
    """The parts of one lab with their student lines; problems for a malformed or missing
    marker, a region in no part or in two, a count that differs from the marker's number, and
    a part over @p limit lines."""
    nn = lab_dir.name[3:5]
    pages_ = lab_pages(lab_dir)
    regions = region_lines(lab_dir, solutions)
    parts: list[Part] = []
    for page in pages_:
        text = page.read_text(encoding="utf-8")
        for m in PART.finditer(text):
            line = line_of(text, m.start())
            row = text.splitlines()[line - 1]
            target = page
            for link in LAB_PAGE_LINK.findall(row):
                if (lab_dir / link) in pages_:
                    target = lab_dir / link
                    break
            part = Part(target, page, line, [],
                        int(m.group(3)) if m.group(3) is not None else None)
            for word in m.group(1).split():
                sel = PART_SELECTOR.match(word)
                if not sel or sel.group(1) not in regions:
                    p.add(page, line, f"part marker: '{word}' is not a source file of "
                                      f"{lab_dir.name} with TODO(lab{nn}) regions (FILE or "
                                      f"FILE:i,j, regions counted from 1; answers.txt is not "
                                      f"counted)")
                    continue
                name, n_regions = sel.group(1), len(regions[sel.group(1)])
                picked = ([int(i) for i in sel.group(2).split(",")] if sel.group(2)
                          else list(range(1, n_regions + 1)))
                for i in picked:
                    if not 1 <= i <= n_regions:
                        p.add(page, line, f"part marker: {name} has {n_regions} TODO(lab{nn}) "
                                          f"region(s), no region {i}")
                    else:
                        part.regions.append((name, i))
            parts.append(part)
    if not parts:
        if len(pages_) > 1:
            p.add(pages_[0], None, f"{lab_dir.name} has {len(pages_)} handout pages but no "
                                   f"'<!-- part FILE[:i,j] -->' marker: say which TODO(lab{nn}) "
                                   f"regions each page (or sitting) asks for")
            return []
        if not pages_:
            return []
        parts = [Part(pages_[0], pages_[0], None,
                      [(name, i + 1) for name, rs in regions.items() for i in range(len(rs))],
                      None)]
    owner: dict[tuple[str, int], Part] = {}
    for part in parts:
        exact = True  # every region counted in the reference solution
        for key in part.regions:
            if key in owner:
                first = owner[key]
                p.add(part.where, part.line, f"region {key[1]} of {key[0]} is in two parts (the "
                                             f"other at {rel(first.where)}:{first.line})"
                      if first is not part else f"region {key[1]} of {key[0]} named twice")
                continue
            owner[key] = part
            _, n, counted = regions[key[0]][key[1] - 1]
            exact = exact and counted
            if n is None:
                p.notes.append(f"{lab_dir.name}: region {key[1]} of {key[0]} has no reference "
                               f"solution and no 'roughly N lines': not counted")
            else:
                part.count += n
        page_rel = rel(part.page)
        if part.stated is not None and exact and part.stated != part.count:
            p.add(part.where, part.line, f"part {page_rel}: {part.stated} after the marker, but "
                                         f"its regions ask for {part.count} student lines")
        if part.count > limit:
            p.add(part.where, part.line, f"part {page_rel} asks for {part.count} student lines, "
                                         f"over the limit of {limit} per part: split it into "
                                         f"sittings ('<!-- part FILE[:i,j] -->' markers)")
    for name, rs in regions.items():
        for i, (start, _, _) in enumerate(rs, start=1):
            if (name, i) not in owner:
                p.add(lab_dir / name, start, f"TODO(lab{nn}) region {i} of {name} is in no part: "
                                             f"name it in a '<!-- part {name}:{i} -->' marker "
                                             f"of a page of {lab_dir.name}")
    return parts


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tools.handout_check", description=__doc__.split("\n\n")[0])
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
    answer_notes: dict[str, list[str]] = {}
    n_stated = n_stub_budgets = n_measured = n_parts = n_work_out = 0
    for lab_dir in lab_dirs():
        if lab_pages(lab_dir):
            check_questions(lab_dir, lab_pages(lab_dir), p)
            n_stated += check_answers_in_sight(lab_dir, lab_pages(lab_dir), p, answer_notes)
            for page in lab_pages(lab_dir):
                n_measured += check_measured_folded(page, p)
            n_work_out += check_work_out(lab_dir / "README.md", p) > 0
        n_stub_budgets += check_stub_budgets(lab_dir, p)
        parts = lab_parts(lab_dir, p)
        n_parts += len(parts)
        if args.list:
            for part in parts:
                regions = " ".join(f"{name}:{i}" for name, i in part.regions)
                print(f"{rel(part.where)}:{part.line or 1}: part {rel(part.page)}: "
                      f"{part.count} student lines ({regions})")
    check_grading_page([pg for d in lab_dirs() for pg in lab_pages(d)], p)
    n_lds = check_lds128(pages(), p)
    for lab, keys in sorted(answer_notes.items()):
        print(f"note: {lab}: short answers of {', '.join(keys)} not searched (no ANSWER_CUES; "
              f"not in AUDITED_LABS)")
    if bank_figures.main(["--check"]) != 0:
        p.add(ROOT / "docs" / "figures" / "banks", None, "stale: python3 -m tools.bank_figures")
    for m in figures.missing_series(ref):
        p.add(ROOT / "tests", None, f"chart {m}: the series (a lab's figures.json) has no "
                                    f"measurement in {ref.source.name}")
    if figures.main(["--check"]) != 0:
        p.add(ROOT / "docs" / "figures" / "perf", None, "stale: python3 -m tools.figures")
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
               f"numbers ({ref.source.name}), {n_budgets} budgets; {n_stated} graded answers in "
               f"sight, {n_measured} measured items, {n_work_out} 'What you work out' sections, "
               f"{n_stub_budgets} stub budgets, {n_parts} "
               f"parts within {PART_LIMIT} student lines, {n_lds} LDS.128 tables")
    if p.items:
        print(f"handout check FAILED: {len(p.items)} problem(s); {summary}")
        return 1
    print(f"handout check passed: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
