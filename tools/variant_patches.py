#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Variant patches: the known-wrong and correct-alternative submissions of tests/labNN_topic/wrong/
and tests/labNN_topic/right/, each one unified diff against solutions/.

    python3 tools/variant_patches.py list                  every variant, its files and header
    python3 tools/variant_patches.py diff LAB FILE ...     the diff of edited copies of solution files
    python3 tools/variant_patches.py apply PATCH DIR       the patched files of PATCH into DIR
    python3 tools/variant_patches.py refresh [PATCH ...]   re-derive patches whose hunks moved
    python3 tools/variant_patches.py convert [--from DIR]  old variant folders -> patches

A variant is tests/labNN_topic/<kind>/<variant>.patch (kind: wrong or right):

    <what is broken / what the alternative is: one line, shown in the test output>
    filter: <gtest filter>          optional: the grader tests that judge it (default: all)
    timeout: <seconds>              optional
    slow: <reason>                  right only, optional: its ...Perf suites are left out
    cheat: <reason>                 wrong only, optional: it must edit outside TODO regions
    <free text: how it is caught, why it is correct>

    diff --git a/solutions/labNN_topic/file.cu b/solutions/labNN_topic/file.cu
    --- a/solutions/labNN_topic/file.cu
    +++ b/solutions/labNN_topic/file.cu
    @@ ... @@

The header is everything before the first line that starts with "diff " or "--- " (git apply
and patch skip it); cmake/CudalabWrong.cmake reads it the same way. To write a variant, edit a
copy of the solution file and diff it (see docs/adding-a-lab.md):

    cp solutions/lab05_bank_conflict/conflict_degree.cpp /tmp/   # then edit the copy
    python3 tools/variant_patches.py diff lab05_bank_conflict /tmp/conflict_degree.cpp

`diff` is `git diff --no-index solutions/<lab>/<file> <copy>` with both sides labelled
solutions/<lab>/<file>; prepend the header and save it as tests/<kind>/<lab>/<variant>.patch.

`apply` and `refresh` use `git apply` (as CMake does), run outside any repository.
Python 3 standard library and git only; instructor tool (not part of a student release).
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KINDS = ("wrong", "right")
SPEC_NAME = {"wrong": "WRONG.md", "right": "RIGHT.md"}
# The first line of the diff proper: what git apply, patch and CMake look for.
DIFF_START = re.compile(r"^(diff |--- )", re.M)
# A/b paths of the diff: a/solutions/labNN_topic/<file> (or /dev/null, never used here).
DIFF_PATH = re.compile(r"^(?:---|\+\+\+) (?:[ab]/)?(\S+)", re.M)
HUNK_OFFSET = re.compile(r"^Hunk #\d+ succeeded at \d+ \(offset (-?\d+) lines?\)", re.M)


class PatchError(Exception):
    """A patch that cannot be read or applied."""


@dataclass
class Variant:
    kind: str           # "wrong" or "right"
    lab: str            # labNN_topic
    name: str           # the variant
    path: Path          # tests/<lab>/<kind>/<name>.patch
    header: str = ""    # the text before the diff
    diff: str = ""      # the diff proper
    files: list[str] = field(default_factory=list)  # file names under solutions/<lab>/

    @property
    def what(self) -> str:
        """The first line: what is broken / what the alternative is."""
        first = self.header.splitlines()[0] if self.header.strip() else ""
        return first.strip().lstrip("#").strip()

    def spec(self, key: str) -> list[tuple[int, str]]:
        """(line number, value) of every `key: value` line of the header."""
        found = []
        for i, line in enumerate(self.header.splitlines(), start=1):
            m = re.match(rf"^\s*{key}:(.*)$", line)
            if m:
                found.append((i, m.group(1).strip()))
        return found


def read_variant(path: Path, root: Path = ROOT) -> Variant:
    """Splits tests/<lab>/<kind>/<name>.patch into header and diff; checks its paths."""
    rel = path.resolve().relative_to(root.resolve())
    if (len(rel.parts) != 4 or rel.parts[0] != "tests" or rel.parts[2] not in KINDS
            or not re.fullmatch(r"lab[0-9][0-9]_\w+", rel.parts[1])):
        raise PatchError(f"{rel}: not tests/labNN_topic/<wrong|right>/<variant>.patch")
    v = Variant(rel.parts[2], rel.parts[1], path.stem, path)
    text = path.read_text(encoding="utf-8", errors="surrogateescape")
    m = DIFF_START.search(text)
    if not m:
        raise PatchError(f"{rel}: no diff (no line starting with 'diff ' or '--- ')")
    v.header, v.diff = text[: m.start()], text[m.start():]
    prefix = f"solutions/{v.lab}/"
    for p in DIFF_PATH.findall(v.diff):
        if not p.startswith(prefix) or "/" in p[len(prefix):]:
            raise PatchError(f"{rel}: patches {p}; a variant patches files of {prefix} only "
                             f"(a/{prefix}<file> -> b/{prefix}<file>)")
        name = p[len(prefix):]
        if name not in v.files:
            v.files.append(name)
    if not v.files:
        raise PatchError(f"{rel}: the diff names no file")
    return v


def variants(root: Path = ROOT, kinds: tuple[str, ...] = KINDS) -> list[Path]:
    return sorted(p for k in kinds for p in (root / "tests").glob(f"lab[0-9][0-9]_*/{k}/*.patch"))


def git_apply(patch: Path | str, workdir: Path, strip: int = 3) -> str:
    """Applies a patch (path or text) in workdir with git apply -p<strip>, outside any
    repository (so that git applies it relative to workdir); returns git's verbose report."""
    env = dict(os.environ, GIT_CEILING_DIRECTORIES=str(workdir.resolve().parent))
    cmd = ["git", "apply", "--verbose", f"-p{strip}"]
    text = None
    if isinstance(patch, Path):
        cmd.append(str(patch.resolve()))
    else:
        text = patch
    try:
        r = subprocess.run(cmd, cwd=workdir, env=env, input=text, capture_output=True,
                           text=True, check=False)
    except OSError as e:
        raise PatchError(f"cannot run git: {e}") from None
    if r.returncode != 0:
        raise PatchError((r.stderr or r.stdout).strip())
    return r.stderr + r.stdout


def apply_variant(v: Variant, out: Path, root: Path = ROOT) -> list[int]:
    """Writes the patched files of v into out; returns the offsets of hunks that moved."""
    out.mkdir(parents=True, exist_ok=True)
    for f in v.files:
        src = root / "solutions" / v.lab / f
        if not src.is_file():
            raise PatchError(f"{v.path.name}: patches solutions/{v.lab}/{f}, which is missing")
        shutil.copyfile(src, out / f)
    report = git_apply(v.path, out)
    return [int(n) for n in HUNK_OFFSET.findall(report)]


def make_diff(lab: str, name: str, old: Path, new: Path) -> str:
    """git diff --no-index of two files, labelled a/ and b/ solutions/<lab>/<name>."""
    r = subprocess.run(["git", "diff", "--no-index", "--no-color", "--no-ext-diff", "-U3",
                        str(old), str(new)], capture_output=True, text=True, check=False,
                       encoding="utf-8", errors="surrogateescape")
    if r.returncode not in (0, 1):
        raise PatchError(f"git diff failed: {r.stderr.strip()}")
    label = f"solutions/{lab}/{name}"
    lines = r.stdout.splitlines(keepends=True)
    out = []
    for line in lines:
        if line.startswith("diff --git "):
            line = f"diff --git a/{label} b/{label}\n"
        elif line.startswith("--- "):
            line = f"--- a/{label}\n"
        elif line.startswith("+++ "):
            line = f"+++ b/{label}\n"
        out.append(line)
    return "".join(out)


# ---------------------------------------------------------------------------
# convert: tests/<kind>/<lab>/<variant>/{WRONG.md,RIGHT.md,<files>} -> <variant>.patch
# ---------------------------------------------------------------------------
def _strip_comments(lines: list[str]) -> str:
    """The code of lines without comments and whitespace (string literals kept)."""
    text = "".join(lines)
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        else:
            out.append(c)
            i += 1
    return re.sub(r"\s+", "", "".join(out))


def _solution_history(root: Path, sol: Path) -> set[str]:
    """Every line the solution file ever lost (its commits' removed lines, stripped)."""
    r = subprocess.run(["git", "-C", str(root), "log", "-p", "--format=", "--no-color",
                        "--", str(sol.relative_to(root))], capture_output=True, text=True,
                       check=False, encoding="utf-8", errors="surrogateescape")
    return {line[1:].strip() for line in r.stdout.splitlines()
            if line.startswith("-") and not line.startswith("---")}


def _read(path: Path) -> list[str]:
    return path.read_bytes().decode("utf-8", "surrogateescape").splitlines(keepends=True)


def _leading_comments(lines: list[str]) -> int:
    n = 0
    while n < len(lines) and lines[n].lstrip().startswith("//"):
        n += 1
    return n


def split_drift(sol: list[str], copy: list[str], history: set[str], stub: set[str]
                ) -> tuple[list[str], list[tuple[int, list[str], list[str]]]]:
    """The copy with its drift undone, and the drift (solution line, solution lines, copy
    lines). Drift: a change of comments or whitespace only; and, in front of a change of
    code, the solution's comment lines that the student sees too (the TODO text and HINTs of
    the stub) where the copy has other comments or none. Comment lines of the copy that the
    solution never had are the variant's own notes on its bug: kept."""
    target: list[str] = []
    drift = []

    def notes_of(lines: list[str], others: list[str]) -> list[str]:
        return [t for t in lines if t.lstrip().startswith("//")
                and t.strip() not in history and t not in others]

    sm = difflib.SequenceMatcher(None, sol, copy, autojunk=False)
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        was, now = sol[i1:i2], copy[j1:j2]
        if op == "equal":
            target += was
        elif _strip_comments(was) == _strip_comments(now):
            notes = notes_of(now, was)
            if notes and op == "insert":
                target += notes
                continue
            target += notes + was
            drift.append((i1 + 1, was, [t for t in now if t not in notes]))
        else:
            # A change of code: the solution's student-facing comments in front of it stay.
            ns = _leading_comments(was)
            while ns and was[ns - 1].strip() not in stub:
                ns -= 1
            if ns and all(t.strip() in stub for t in was[:ns]):
                nc = _leading_comments(now)
                notes = notes_of(now[:nc], was)
                target += was[:ns] + notes + now[nc:]
                dropped = [t for t in now[:nc] if t not in notes]
                if was[:ns] != dropped:
                    drift.append((i1 + 1, was[:ns], dropped))
            else:
                target += now
    return target, drift


def convert(root: Path, source: Path, dry_run: bool) -> int:
    """source/<kind>/<lab>/<variant>/ (the old layout) -> root/tests/<kind>/<lab>/<variant>.patch"""
    problems = 0
    for kind in KINDS:
        for vdir in sorted((source / kind).glob("lab[0-9][0-9]_*/*/")):
            lab, name = vdir.parent.name, vdir.name
            spec = vdir / SPEC_NAME[kind]
            rel = Path("tests", *vdir.relative_to(source).parts)
            if not spec.is_file():
                print(f"{rel}: no {spec.name}; not converted")
                problems += 1
                continue
            header = spec.read_text(encoding="utf-8", errors="surrogateescape")
            if DIFF_START.search(header):
                print(f"{rel}/{spec.name}: a line starts with 'diff ' or '--- '; not converted")
                problems += 1
                continue
            header = header.rstrip("\n") + "\n\n"
            diffs = []
            for copy in sorted(p for p in vdir.iterdir() if p.name != spec.name):
                sol = root / "solutions" / lab / copy.name
                if not sol.is_file():
                    print(f"{rel}/{copy.name}: no solutions/{lab}/{copy.name}; not converted")
                    problems += 1
                    continue
                stub = root / "labs" / lab / copy.name
                stub_lines = {t.strip() for t in _read(stub)} if stub.is_file() else set()
                target, drift = split_drift(_read(sol), _read(copy), _solution_history(root, sol),
                                            stub_lines)
                for line, was, now in drift:
                    print(f"{rel}/{copy.name}: drift dropped at solutions/{lab}/{copy.name}:"
                          f"{line}: -{len(was)} +{len(now)} line(s) of comments/whitespace")
                    for t in was:
                        print(f"    solution: {t.rstrip()}")
                    for t in now:
                        print(f"    copy:     {t.rstrip()}")
                with tempfile.TemporaryDirectory() as tmp:
                    fixed = Path(tmp) / copy.name
                    fixed.write_bytes("".join(target).encode("utf-8", "surrogateescape"))
                    d = make_diff(lab, copy.name, sol, fixed)
                if not d:
                    print(f"{rel}/{copy.name}: nothing but drift: the copy equals the solution")
                    problems += 1
                diffs.append(d)
            out = root / "tests" / lab / kind / f"{name}.patch"
            if not dry_run and diffs and all(diffs):
                out.write_bytes((header + "".join(diffs)).encode("utf-8", "surrogateescape"))
                # Round trip: the patch re-creates the drift-free copies.
                v = read_variant(out, root)
                with tempfile.TemporaryDirectory() as tmp:
                    apply_variant(v, Path(tmp), root)
    return 1 if problems else 0


# ---------------------------------------------------------------------------
# refresh: re-derive a patch whose hunks apply only at an offset
# ---------------------------------------------------------------------------
def refresh(root: Path, paths: list[Path]) -> int:
    status = 0
    for path in (p.resolve() for p in paths) if paths else variants(root):
        try:
            v = read_variant(path, root)
            with tempfile.TemporaryDirectory() as tmp:
                offsets = apply_variant(v, Path(tmp), root)
                if not offsets:
                    continue
                diff = "".join(make_diff(v.lab, f, root / "solutions" / v.lab / f, Path(tmp) / f)
                               for f in v.files)
        except PatchError as e:
            print(f"{path.relative_to(root)}: {e}\n  (fix the patch by hand: apply it to an "
                  f"older solution, edit, diff again)", file=sys.stderr)
            status = 1
            continue
        path.write_bytes((v.header + diff).encode("utf-8", "surrogateescape"))
        print(f"{path.relative_to(root)}: refreshed (hunks had moved by {offsets})")
    return status


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="variant_patches.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, default=ROOT, help="the cudalabs checkout")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="every variant, its files and first line")
    d = sub.add_parser("diff", help="print the diff of edited copies against the solution")
    d.add_argument("lab", help="labNN_topic")
    d.add_argument("copies", nargs="+", type=Path, help="edited copies, named as the solution files")
    a = sub.add_parser("apply", help="write the patched files of a variant into a folder")
    a.add_argument("patch", type=Path)
    a.add_argument("dir", type=Path)
    r = sub.add_parser("refresh", help="re-derive patches whose hunks apply at an offset")
    r.add_argument("patches", nargs="*", type=Path)
    c = sub.add_parser("convert", help="turn variant folders into patches (one-time)")
    c.add_argument("--dry-run", action="store_true", help="report the drift, write nothing")
    c.add_argument("--from", dest="source", type=Path,
                   help="the folder holding wrong/ and right/ in the old layout (default: tests/)")
    args = ap.parse_args(argv)
    root = args.root.resolve()
    try:
        if args.cmd == "list":
            for p in variants(root):
                v = read_variant(p, root)
                print(f"{v.kind}.{v.lab[:5]}.{v.name}: {', '.join(v.files)}: {v.what}")
        elif args.cmd == "diff":
            for copy in args.copies:
                sol = root / "solutions" / args.lab / copy.name
                if not sol.is_file():
                    raise PatchError(f"no solutions/{args.lab}/{copy.name} (name the copy as "
                                     f"the solution file it changes)")
                sys.stdout.write(make_diff(args.lab, copy.name, sol, copy))
        elif args.cmd == "apply":
            offsets = apply_variant(read_variant(args.patch, root), args.dir, root)
            if offsets:
                print(f"applied with hunks moved by {offsets}: run `refresh` on it")
        elif args.cmd == "refresh":
            return refresh(root, args.patches)
        elif args.cmd == "convert":
            return convert(root, (args.source or root / "tests").resolve(), args.dry_run)
    except PatchError as e:
        print(f"variant_patches: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
