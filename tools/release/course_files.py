# SPDX-License-Identifier: BSD-3-Clause
"""The files of a course a student writes: each lab's SOURCES (read from the course's own
labs/labNN_topic/CMakeLists.txt, its cudalab_add_lab() call) and the lab's answers file where
the course has one. Shared by the intake (tools/release/take_submission.py copies exactly
these), the intake scan (tools/release/scan_submission.py scans them), the reuse keys
(tools/release/reuse.py) and the instructor's regrade.

Library only (no command line); Python 3 standard library.
"""

from __future__ import annotations

import re
from pathlib import Path

# Any all-capitals token of cudalab_add_lab() is a keyword (SOURCES, GIVEN, POINTS, ...).
KEYWORD = re.compile(r"[A-Z][A-Z0-9_]*")
# Student-written files of a lab besides its SOURCES, taken when the course's lab has them.
LAB_FILES = ("answers.txt",)


def lab_sources(cmakelists: Path) -> list[str]:
    """The SOURCES arguments of the cudalab_add_lab() call in @p cmakelists."""
    text = re.sub(r"#[^\n]*", "", cmakelists.read_text(errors="replace"))
    m = re.search(r"cudalab_add_lab\s*\((.*?)\)", text, re.S)
    if not m:
        return []
    key, sources = None, []
    for token in re.findall(r'"[^"]*"|[^\s"]+', m.group(1)):
        token = token.strip('"')
        if KEYWORD.fullmatch(token):
            key = token
        elif key == "SOURCES":
            sources.append(token)
    return sources


def student_files(course: Path) -> list[str]:
    """Every student-written file of the course, relative to its root (labs/labNN_x/f):
    the SOURCES of each lab and its LAB_FILES."""
    files = []
    for lab in sorted((course / "labs").glob("lab[0-9][0-9]_*")):
        cm = lab / "CMakeLists.txt"
        if lab.is_dir() and cm.is_file():
            files += [f"labs/{lab.name}/{f}" for f in lab_sources(cm)]
            files += [f"labs/{lab.name}/{f}" for f in LAB_FILES if (lab / f).is_file()]
    return files
