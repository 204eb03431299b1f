# SPDX-License-Identifier: BSD-3-Clause
"""Reuse keys: which labs of a push need grading, and which keep their last result.

A lab's reuse key is the sha256 of
  - its student files in the submission, exactly as the intake takes them (the SOURCES of
    the lab's cudalab_add_lab() call and answers.txt, tools/release/take_submission.py): each
    file's path and contents, or that it is missing, or why it is refused (a symbolic link,
    over 1 MiB, ...), so that the stub grade of a refused file is not confused with a result;
  - the course release's commit (new tests or thresholds regrade everything);
  - the GPU model (speed ratios are measured on the GPU that grades) and the preset (which
    tests count: every graded test on a GPU, only the CPU tests without one);
  - a version string of this scheme.
tools/release/autograde.py stores each lab's key in its result.json entry
(cudalabs.reuse_key). Given the previous result.json, a lab whose key is unchanged is copied
from it (marked graded_in_this_run: false, with the commit that was graded) and every other
lab is graded. A changed file changes its lab's key, so a result can never be carried into a
changed file; the keys of the other labs do not move.

What this trusts: the previous result.json. The workflows fetch it from the grading
workflow's own output (a submit/* release made by github-actions[bot], or the artifact
cudalab-grade of the student's branch), but a student with write access to the repository
can publish a forged one, exactly as they can forge any result there: the grade that counts
is the instructor's full regrade (regrade.sh in the instructor repository), which never reuses anything.

Library only; Python 3 standard library.
"""

from __future__ import annotations

import copy
import hashlib
from pathlib import Path

from . import take_submission
from .course_files import student_files

KEY_VERSION = "cudalabs-reuse-1"


def lab_of(path: str) -> str:
    """lab04 for labs/lab04_shared_memory/tiled.cu."""
    return path.split("/")[1][:5]


def lab_files(course: Path) -> dict[str, list[str]]:
    """lab -> the student files of that lab (paths relative to the course root), as the
    intake takes them."""
    files: dict[str, list[str]] = {}
    for rel in student_files(course):
        files.setdefault(lab_of(rel), []).append(rel)
    return files


def file_state(submission: Path, rel: str) -> bytes:
    """What the intake would take of @p rel: its contents, or why it would not."""
    path = submission / rel
    if not path.exists() and not path.is_symlink():
        return b"missing"
    why = take_submission.refuse_reason(path, submission.resolve())
    if why:
        return b"refused: " + why.encode()
    return b"file: " + path.read_bytes()


def lab_key(submission: Path, files: list[str], lab: str, course_ref: str, gpu: str,
            preset: str) -> str:
    """The reuse key of one lab (hex sha256)."""
    h = hashlib.sha256()
    for part in (KEY_VERSION, lab, course_ref, gpu, preset):
        h.update(part.encode() + b"\0")
    for rel in sorted(files):
        state = file_state(submission, rel)
        h.update(rel.encode() + b"\0" + str(len(state)).encode() + b"\0" + state)
    return h.hexdigest()


def keys(submission: Path, course: Path, course_ref: str, gpu: str, preset: str) -> dict[str, str]:
    """lab -> its reuse key, for every lab of the course."""
    sub = submission.resolve()
    return {lab: lab_key(sub, files, lab, course_ref, gpu, preset)
            for lab, files in sorted(lab_files(course).items())}


def previous_entries(previous: dict | None) -> dict[str, dict]:
    """lab -> the entry of a previous result.json that carries a reuse key."""
    out = {}
    for e in (previous or {}).get("tests") or []:
        c = e.get("cudalabs") if isinstance(e, dict) else None
        if isinstance(c, dict) and c.get("lab") and c.get("reuse_key"):
            out[c["lab"]] = e
    return out


def plan(current: dict[str, str], previous: dict | None, full: bool) -> tuple[list[str], dict[str, dict]]:
    """(labs to grade, {lab: entry to carry}) for the labs of @p current."""
    if full:
        return sorted(current), {}
    before = previous_entries(previous)
    carried = {lab: carry(before[lab]) for lab, key in current.items()
               if lab in before and before[lab]["cudalabs"]["reuse_key"] == key}
    return sorted(set(current) - set(carried)), carried


def carry(entry: dict) -> dict:
    """A previous entry as a reused one: not graded in this run, saying from which commit."""
    e = copy.deepcopy(entry)
    c = e["cudalabs"]
    if c.get("graded_in_this_run", True):
        c["graded_in_this_run"] = False
    commit = str(c.get("graded_commit") or "?")
    note = f"reused: files unchanged since {commit[:7]}"
    if not str(e.get("message", "")).startswith("reused:"):
        e["message"] = f"{note}; {e.get('message', '')}".rstrip("; ")
    return e
