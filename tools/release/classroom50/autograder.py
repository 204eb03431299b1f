#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Classroom 50 autograder of cudalabs: grades a push on the course's GPU runner.

Install: copy this file, and a `cudalab.json` beside it, into the classroom50 config
repository as `<classroom>/autograders/<assignment>/` (docs/instructors.md, "Classroom 50").
Classroom 50's runner (runner.py, called by autograde-runner.yaml) downloads that folder,
runs `python3 autograder.py` with the student's checkout as the working directory, and reads
`./result.json` (schema classroom50/result/v1) and `./release-body.md` afterwards; a
non-zero exit is recorded as an infrastructure error. The grade job has 15 minutes.

What it does:
  1. finds the course release: `course_dir` of cudalab.json (a checkout the runner image
     carries, ideally with a prebuilt build), else a clone of `course_repo` into
     $RUNNER_TEMP; either way it must be at `course_ref`, the pinned commit (a tag can move);
  2. runs that release's autograde (`python3 -P -m tools.release.autograde` with PYTHONPATH
     the course release alone: never the checkout's own tools/) on the checkout (the driver
     takes only the lab files, scans, builds, runs the tests isolated, scores) and lets it
     write result.json, one entry per lab, in whole points, with the intake flags;
  3. leaves the student's feedback in the checkout's cudalab-feedback/ (`assets`):
     scores.json, junit.xml and feedback.md (each failed test's name and one-line message
     per lab); list them in the assignment's release_assets and Classroom 50 attaches them
     to the submission's release (release-body.md already names the failed tests), and
     the scoreboard goes to the job summary (--step-summary);
  4. passes --previous when `previous` (default $RUNNER_TEMP/cudalab-previous/result.json,
     written by the optional step of the instructor's autograde-runner.yaml that runs the
     course's tools.release.previous_result --source releases, as docs/instructors.md gives
     it) exists, so that only labs whose files changed are graded; a pushed submit/* tag
     grades everything.

cudalab.json (every key optional but one of course_dir / course_repo, and course_ref):
  {"course_dir": "/opt/cudalabs-course", "course_repo": "ORG/cudalabs-student",
   "course_ref": "<40-hex commit>", "preset": "student", "test_user": "cudalab-test",
   "previous": "$RUNNER_TEMP/cudalab-previous/result.json", "assets": "cudalab-feedback",
   "labs": ""}
`labs` (e.g. "lab07" or "lab07,lab09"): grade only these labs, one result.json entry each,
for an assignment that is one lab (or a rehearsal); empty, every lab of the course.
CUDALAB_COURSE_DIR and CUDALAB_COURSE_REF in the environment override the file.

Exit status: that of autograde.py (0 graded, 1 could not grade), or 1 when the course is
missing or at another commit. Python 3 standard library only.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CONFIG = HERE / "cudalab.json"
DEFAULTS = {"course_dir": "/opt/cudalabs-course", "course_repo": "", "course_ref": "",
            "preset": "student", "test_user": "",
            "previous": "$RUNNER_TEMP/cudalab-previous/result.json",
            "assets": "cudalab-feedback", "labs": ""}


class SetupError(Exception):
    """The course release is missing or not at the pinned commit."""


def load_config(path: Path, env: dict) -> dict:
    """cudalab.json merged over the defaults, with the environment's overrides."""
    cfg: dict[str, Any] = dict(DEFAULTS)  # cudalab.json may give "labs" as a list
    if path.is_file():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as e:
            raise SetupError(f"{path} is not valid JSON: {e}") from None
        unknown = sorted(set(data) - set(DEFAULTS))
        if unknown:
            raise SetupError(f"{path}: unknown key(s) {unknown}; known: {sorted(DEFAULTS)}")
        cfg.update(data)
    cfg["course_dir"] = env.get("CUDALAB_COURSE_DIR") or cfg["course_dir"]
    cfg["course_ref"] = env.get("CUDALAB_COURSE_REF") or cfg["course_ref"]
    if not re.fullmatch(r"[0-9a-f]{40}", cfg["course_ref"] or ""):
        raise SetupError("course_ref (cudalab.json or CUDALAB_COURSE_REF) must be the pinned "
                         f"40-hex commit of the course release, got {cfg['course_ref']!r}")
    cfg["previous"] = expand(cfg["previous"], env)
    labs = cfg["labs"]
    labs = ",".join(labs) if isinstance(labs, list) else str(labs or "")
    if labs and not re.fullmatch(r"lab\d\d(,lab\d\d)*", labs):
        raise SetupError(f"labs must name labs as labNN, comma-separated, got {cfg['labs']!r}")
    cfg["labs"] = labs
    return cfg


def expand(text: str, env: dict) -> str:
    """$NAME and ${NAME} replaced from @p env (unset: empty)."""
    return re.sub(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?", lambda m: env.get(m.group(1), ""), text)


def git(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-c", "safe.directory=*", *args], cwd=cwd, capture_output=True,
                          text=True, check=False, timeout=600)


def course_tree(cfg: dict, env: dict) -> Path:
    """The course release at course_ref: the runner's copy, else a fresh clone."""
    ref = cfg["course_ref"]
    local = Path(cfg["course_dir"]) if cfg["course_dir"] else None
    if local is not None and (local / "labs").is_dir():
        head = git("rev-parse", "HEAD", cwd=local).stdout.strip()
        if head != ref:
            raise SetupError(f"the course at {local} is at {head or 'no git commit'}, not at the "
                             f"pinned {ref}: rebuild the runner image or update course_ref")
        return local
    if not cfg["course_repo"]:
        raise SetupError(f"no course release: {local} has no labs/ and cudalab.json names no "
                         "course_repo")
    dest = Path(env.get("RUNNER_TEMP") or "/tmp") / "cudalab-course"
    url = f"{env.get('GITHUB_SERVER_URL', 'https://github.com')}/{cfg['course_repo']}.git"
    if not dest.is_dir():
        for cmd in (("clone", "--quiet", "--no-checkout", url, str(dest)),
                    ("-C", str(dest), "checkout", "--quiet", "--detach", ref)):
            out = git(*cmd)
            if out.returncode != 0:
                raise SetupError(f"git {' '.join(cmd[:2])} of {url} failed: "
                                 f"{out.stderr.strip()[:300]}")
    return course_tree({**cfg, "course_dir": str(dest), "course_repo": ""}, env)


def command(course: Path, cfg: dict, env: dict) -> list[str]:
    """The command line of the course release's tools.release.autograde, run with grade_env():
    -P keeps the working directory, the student's checkout with its own tools/ folder, off
    the module search path."""
    out = Path(env.get("RUNNER_TEMP") or "/tmp") / "cudalab-grade"
    cmd = [sys.executable, "-P", "-m", "tools.release.autograde", "--submission", ".",
           "--course", str(course), "--course-ref", cfg["course_ref"], "--out", str(out),
           "--preset", cfg["preset"], "--result", "result.json"]
    if cfg["test_user"]:
        cmd += ["--test-user", cfg["test_user"]]
    if cfg["labs"]:
        cmd += ["--labs", cfg["labs"]]
    if cfg["previous"] and Path(cfg["previous"]).is_file():
        cmd += ["--previous", cfg["previous"]]
    if cfg["assets"]:
        # Relative to the checkout: the assignment's release_assets name these files.
        cmd += ["--assets", cfg["assets"]]
    if env.get("GITHUB_STEP_SUMMARY"):
        # The scoreboard (every lab, the failed tests with their messages) to the job summary;
        # the runner itself mirrors release-body.md there, so it is not written twice.
        cmd.append("--step-summary")
    return cmd


def grade_env(course: Path, env: dict) -> dict:
    """@p env with PYTHONPATH the course release alone: the judge's code is the course's, in
    autograde and in every process it starts."""
    return {**env, "PYTHONPATH": str(course)}


def main() -> int:
    if len(sys.argv) > 1:
        print(__doc__)
        return 0 if sys.argv[1] in ("-h", "--help") else 2
    env = dict(os.environ)
    try:
        cfg = load_config(CONFIG, env)
        course = course_tree(cfg, env)
    except SetupError as e:
        print(f"::error title=cudalabs autograder::{e}")
        return 1
    cmd = command(course, cfg, env)
    print("autograder: " + " ".join(cmd), flush=True)
    return subprocess.run(cmd, check=False, env=grade_env(course, env)).returncode


if __name__ == "__main__":
    sys.exit(main())
