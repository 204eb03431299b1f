# SPDX-License-Identifier: BSD-3-Clause
"""Puts the SPDX license line first in every source file git tracks (after a #! line).

    python3 -m tools.spdx_headers            # add it where missing
    python3 -m tools.spdx_headers --check    # exit 1 when a file lacks it (nothing written)

The line is `// SPDX-License-Identifier: BSD-3-Clause` in C++, CUDA and JavaScript files
and `# SPDX-License-Identifier: BSD-3-Clause` in Python, shell, CMake and YAML files (the
license is LICENSE). Left alone: tests/labNN_topic/{wrong,right}/ (variant patches), data and
Markdown files, answers.txt, and — when writing — files with uncommitted changes (their
owners' work in progress; run again after they commit) and files a variant patch of
tests/labNN_topic/{wrong,right} changes from its first line (the patch would no longer apply:
refresh it, then run again), a stub and its solution twin together (tools/skeleton_check.py
wants them identical outside TODO regions).

Exit status: 0; 1 with --check when a file lacks the line. Python 3 standard library.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LICENSE_ID = "SPDX-License-Identifier: BSD-3-Clause"
SLASH = {".cu", ".cuh", ".cpp", ".hpp", ".h", ".cc", ".cjs", ".js"}
HASH = {".py", ".sh", ".cmake", ".yml", ".yaml"}
SKIP_PARTS = ("wrong", "right")  # tests/labNN_topic/{wrong,right}/


def comment_for(rel: str, first_line: str) -> str | None:
    """The SPDX line for @p rel, or None when it is not a source file of ours."""
    parts = rel.split("/")
    if len(parts) > 3 and parts[0] == "tests" and parts[2] in SKIP_PARTS:
        return None
    name = Path(rel).name
    suffix = Path(rel).suffix
    if suffix in SLASH:
        return f"// {LICENSE_ID}"
    if suffix in HASH or name == "CMakeLists.txt":
        return f"# {LICENSE_ID}"
    if first_line.startswith("#!") and ("sh" in first_line or "python" in first_line):
        return f"# {LICENSE_ID}"
    return None


def with_header(text: str, line: str) -> str | None:
    """@p text with @p line first (after a #! line), or None when it already has it."""
    lines = text.splitlines(keepends=True)
    start = 1 if lines and lines[0].startswith("#!") else 0
    if len(lines) > start and LICENSE_ID in lines[start]:
        return None
    return "".join(lines[:start] + [line + "\n"] + lines[start:])


def git_lines(*args: str) -> list[str]:
    out = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True,
                         check=True).stdout
    return [x for x in out.split("\0") if x]


def patched_from_line_one() -> set[str]:
    """Files a variant patch (tests/labNN_topic/{wrong,right}) changes from their first line."""
    held = set()
    for patch in sorted((ROOT / "tests").glob("*/*/*.patch")):
        target = None
        for line in patch.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("+++ "):
                target = line[4:].split("\t")[0].removeprefix("b/")
            elif line.startswith("@@ -1,") and target:
                held.add(target)
    return held


def twin(rel: str) -> str | None:
    """solutions/X for labs/X and the reverse."""
    for a, b in (("labs/", "solutions/"), ("solutions/", "labs/")):
        if rel.startswith(a):
            return b + rel[len(a):]
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split(
        "\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="only report files without the line")
    args = ap.parse_args(argv)
    tracked = git_lines("ls-files", "-z")
    dirty = set(git_lines("diff", "--name-only", "-z", "HEAD")) | patched_from_line_one()
    missing, written, held = [], [], []
    for rel in tracked:
        path = ROOT / rel
        if not path.is_file() or path.is_symlink():
            continue
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        line = comment_for(rel, text.split("\n", 1)[0])
        new = with_header(text, line) if line else None
        if new is None:
            continue
        missing.append(rel)
        if args.check:
            continue
        if rel in dirty or (twin(rel) or "") in dirty:
            held.append(rel)
            continue
        path.write_text(new, encoding="utf-8", errors="surrogateescape")
        written.append(rel)
    if args.check:
        for rel in missing:
            print(f"spdx_headers: {rel}: no `{LICENSE_ID}` line")
        print(f"spdx_headers: {len(missing)} source file(s) without the SPDX line")
        return 1 if missing else 0
    for rel in held:
        print(f"spdx_headers: {rel}: has uncommitted changes or a variant patch from line 1 "
              "(or its twin has); left for later")
    print(f"spdx_headers: added the SPDX line to {len(written)} file(s); {len(held)} left")
    return 0


if __name__ == "__main__":
    sys.exit(main())
