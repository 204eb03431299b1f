# SPDX-License-Identifier: BSD-3-Clause
"""How a grading tool starts another tool of the course copy: `python3 -P -m tools.<module>`
with PYTHONPATH set to the course copy's root and to nothing else.

`python3 -m` would put the working directory first on the module search path, and a grading
tool's working directory may be the student's checkout, whose own tools/ folder (the student
release ships tools/release/*.py and some tools/*.py) the student controls: `-P` keeps it
out, and PYTHONPATH names the course copy, so the code that judges is the course's. Its
children (ctest, the tests) inherit the same PYTHONPATH. The Classroom 50 autograder
(classroom50/autograder.py, standalone) does the same by itself.

Library only (no command line); Python 3 standard library.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path


def module_command(module: str, python: str | None = None) -> list[str]:
    """The command line that runs @p module (e.g. tools.release.grade_submission) without the
    working directory on the module search path; add its arguments after it."""
    return [python or sys.executable, "-P", "-m", module]


def module_file(course: Path, module: str) -> Path:
    """The file of @p module in the course copy @p course."""
    return course.joinpath(*module.split(".")).with_suffix(".py")


def course_env(course: Path, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """@p env (default: this process's environment) with PYTHONPATH the course copy only."""
    out = dict(os.environ if env is None else env)
    out["PYTHONPATH"] = str(course)
    return out
