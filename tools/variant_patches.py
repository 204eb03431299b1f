# SPDX-License-Identifier: BSD-3-Clause
"""Variant patches: the known-wrong and correct-alternative submissions of tests/labNN_topic/wrong/
and tests/labNN_topic/right/, each one unified diff against solutions/.

    python3 -m tools.variant_patches list                  every variant, its files and header
    python3 -m tools.variant_patches diff LAB FILE ...     the diff of edited copies of solution files
    python3 -m tools.variant_patches apply PATCH DIR       the patched files of PATCH into DIR
    python3 -m tools.variant_patches refresh [PATCH ...]   re-derive patches whose hunks moved

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
    python3 -m tools.variant_patches diff lab05_bank_conflict /tmp/conflict_degree.cpp

`diff` is `git diff --no-index solutions/<lab>/<file> <copy>` with both sides labelled
solutions/<lab>/<file>; prepend the header and save it as tests/<kind>/<lab>/<variant>.patch.

`apply` and `refresh` use `git apply` (as CMake does), run outside any repository.
Python 3 standard library and git only; instructor tool (not part of a student release).
"""

from __future__ import annotations

import argparse
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
    ap = argparse.ArgumentParser(prog="python3 -m tools.variant_patches", description=__doc__.split("\n\n")[0])
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
    except PatchError as e:
        print(f"variant_patches: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
