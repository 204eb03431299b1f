# SPDX-License-Identifier: BSD-3-Clause
"""Copies a student's lab sources into the instructor's copy of the course, and nothing else.

    python3 -m tools.release.take_submission --submission DIR [--course DIR] [--summary FILE]

Grading (.github/workflows/grade.yml of a student release) checks out two trees: the
student's repository (--submission) and the course release at a tag or commit the
instructor fixed (--course, default: the tree this script belongs to). The files a student
writes are the SOURCES files of each lab's cudalab_add_lab() call, read from the course's
own labs/labNN_topic/CMakeLists.txt, and the lab's answers file (answers.txt, the handout's
questions) where the course has one. Exactly those are copied from the submission into the
course tree; the graders, thresholds, CMake files, presets and common library stay the
instructor's, so editing them in the student repository changes no grade.

A SOURCES file that is missing in the submission keeps the course's stub (its tests fail).
A symbolic link, a non-regular file or a file over 1 MiB is refused (the stub stays) and
reported. Other files the student changed are listed as ignored. --summary appends a
Markdown report (e.g. $GITHUB_STEP_SUMMARY). Python 3 standard library only.

Every taken file is then scanned for host-side constructs that have no place in a lab
(tools/release/scan_submission.py: file I/O, process control, environment access, code
before main, fake verdict strings, ...): each prints `needs review: <file>:<line>:
<construct>`, goes into the summary, and --intake-json writes them per lab for the
scoreboard (scores.json `labs[].flags`).

Exit status: 0 when the copy was made (refused files are reported, not errors); 2 when the
course tree has no labs or an argument is wrong.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import stat
import sys
from pathlib import Path

from . import scan_submission  # (the intake scan)
from .course_files import student_files  # (each lab's SOURCES and answers.txt)

MAX_BYTES = 1 << 20
# Trees whose differences are not worth listing as "ignored".
SKIP_DIRS = {".git", "build", "out", ".cache"}


def refuse_reason(path: Path, root: Path) -> str | None:
    """Why @p path (inside the submission @p root) cannot be taken, or None."""
    st = path.lstat()
    if stat.S_ISLNK(st.st_mode):
        return "is a symbolic link"
    if root not in path.resolve().parents:
        return "lies outside the submission (through a linked folder)"
    if not stat.S_ISREG(st.st_mode):
        return "is not a regular file"
    if st.st_size > MAX_BYTES:
        return f"has {st.st_size} bytes (more than {MAX_BYTES})"
    return None


def ignored_changes(submission: Path, course: Path, taken: set[str], limit: int = 200) -> list[str]:
    """Files of the submission that differ from the course tree and are not taken."""
    out = []
    for dirpath, dirnames, filenames in os.walk(submission):
        rel_dir = Path(dirpath).relative_to(submission)
        dirnames[:] = sorted(d for d in dirnames if not (rel_dir == Path(".") and d in SKIP_DIRS))
        for name in sorted(filenames):
            rel = (rel_dir / name).as_posix()
            if rel in taken:
                continue
            mine, theirs = submission / rel, course / rel
            try:
                same = theirs.is_file() and not mine.is_symlink() and \
                    filecmp.cmp(mine, theirs, shallow=False)
            except OSError:
                same = False
            if not same:
                out.append(rel)
                if len(out) >= limit:
                    return out
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--submission", type=Path, required=True,
                    help="checkout of the student's repository")
    ap.add_argument("--course", type=Path, default=Path(__file__).resolve().parents[2],
                    help="the instructor's course tree the files are copied into "
                         "(default: the tree of this script)")
    ap.add_argument("--summary", type=Path, help="append a Markdown report to this file")
    ap.add_argument("--intake-json", type=Path,
                    help="write the intake scan's flags per lab here (for the scoreboard)")
    args = ap.parse_args(argv)
    sub, course = args.submission.resolve(), args.course.resolve()
    if not sub.is_dir():
        print(f"take_submission: {sub} is not a folder", file=sys.stderr)
        return 2
    files = student_files(course)
    if not files:
        print(f"take_submission: {course} has no labs/labNN_*/CMakeLists.txt with SOURCES",
              file=sys.stderr)
        return 2

    # The includes each lab may use, from the course's own files (before any is replaced).
    allowed = {}
    for rel in files:
        lab = scan_submission.lab_of(rel)
        if lab and lab[0] not in allowed:
            allowed[lab[0]] = scan_submission.expected_includes(course, lab[1])

    taken, kept, refused = [], [], []
    for rel in files:
        src, dst = sub / rel, course / rel
        if not src.exists() and not src.is_symlink():
            kept.append(rel)
            continue
        why = refuse_reason(src, sub)
        if why:
            refused.append((rel, why))
            continue
        dst.write_bytes(src.read_bytes())
        taken.append(rel)
    ignored = ignored_changes(sub, course, set(files))

    print(f"take_submission: {len(taken)} of {len(files)} lab file(s) (sources, answers) taken from "
          f"{sub}")
    for rel in kept:
        print(f"  not in the submission (the course's stub is graded): {rel}")
    for rel, why in refused:
        print(f"  REFUSED (the course's stub is graded): {rel} {why}")
        if os.environ.get("GITHUB_ACTIONS") == "true":
            print(f"::warning title=not graded::{rel} {why}; the stub is graded instead")
    if ignored:
        print(f"  {len(ignored)} other changed file(s) are ignored (graders, CMake, presets, "
              f"workflows come from the course release), e.g.:")
        for rel in ignored[:20]:
            print(f"    {rel}")

    if args.summary:
        md = ["### Files graded", "",
              f"{len(taken)} of {len(files)} lab files (sources and answers) taken from the "
              "submission; "
              "everything else (graders, thresholds, CMake, workflow) comes from the course "
              "release.", ""]
        md += [f"- not in the submission, stub graded: `{r}`" for r in kept]
        md += [f"- **refused**, stub graded: `{r}` {w}" for r, w in refused]
        if ignored:
            md.append(f"- ignored changes outside the lab sources: {len(ignored)} file(s), "
                      "e.g. " + ", ".join(f"`{r}`" for r in ignored[:10]))
        with open(args.summary, "a", encoding="utf-8") as f:
            f.write("\n".join(md) + "\n\n")

    # The intake scan of what was taken (the course's own stubs need none).
    found: dict[str, list] = {}
    for rel in taken:
        lab = scan_submission.lab_of(rel)
        if lab is None or not rel.endswith((".cu", ".cpp", ".cuh", ".hpp", ".h")):
            continue
        found.setdefault(lab[0], [])
        found[lab[0]] += scan_submission.scan_text(
            (course / rel).read_text(errors="replace"), rel, allowed.get(lab[0]))
    scan_submission.report(found, args.summary, args.intake_json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
