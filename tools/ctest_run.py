# SPDX-License-Identifier: BSD-3-Clause
"""Running ctest as a graded run does: the tests never see the CI job's variables (its
workflow-command files and tokens), every verdict and every test's output come from ctest's
own console (a pipe no test can write, tools/ctest_record.py reads it), and every process the
tests leave behind is ended before anything is scored (this process becomes their
subreaper). Used by the scoreboard's --run and by the grading of a submission
(tools/release/grade_submission.py).

Library only (no command line); Python 3 standard library; the subreaper is Linux only.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from .ctest_record import ScoreError, read_stream

# Variables of the CI job a test must not see: the files of GitHub's workflow commands, and
# the job's tokens and service addresses.
JOB_FILES = ("GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_STATE")
JOB_VARIABLES = JOB_FILES + ("GITHUB_TOKEN", "GH_TOKEN", "ACTIONS_RUNTIME_TOKEN",
                             "ACTIONS_RUNTIME_URL", "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
                             "ACTIONS_ID_TOKEN_REQUEST_URL", "ACTIONS_CACHE_URL",
                             "ACTIONS_RESULTS_URL")


def test_environment(env: dict[str, str] | None = None) -> dict[str, str]:
    """@p env (default: this process's) without the CI job's files and tokens."""
    env = dict(os.environ if env is None else env)
    for k in JOB_VARIABLES:
        env.pop(k, None)
    return env


# ---------------------------------------------------------------------------
# Processes the tests leave behind
# ---------------------------------------------------------------------------
def make_subreaper() -> bool:
    """Orphaned descendants (a test's daemon, even one that called setsid) become children of
    this process, which can then end them. Linux only; False elsewhere."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


def _children() -> list[int]:
    me = str(os.getpid())
    kids = []
    for d in Path("/proc").glob("[0-9]*"):
        try:
            fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == me:
            kids.append(int(d.name))
    return kids


def end_leftovers() -> int:
    """Stops, then kills, every process left behind by the run; returns how many."""
    import signal
    count = 0
    for _ in range(100):
        kids = _children()
        if not kids:
            break
        for pid in kids:
            for sig in (signal.SIGSTOP, signal.SIGKILL):
                try:
                    os.kill(pid, sig)
                except OSError:
                    pass
        for pid in kids:
            try:
                os.waitpid(pid, 0)
            except OSError:
                pass
        count += len(kids)
    return count


# ---------------------------------------------------------------------------
# A graded run: ctest started here, verdicts read from its own console stream
# ---------------------------------------------------------------------------
def run_ctest_stream(build_dir: Path, junit: Path, extra: list[str], log: Path | None) \
        -> tuple[int, list[dict], int]:
    """Runs ctest verbosely without the job's variables, reads every verdict and every test's
    output from its console (a pipe no test can write), then ends whatever the tests left
    running. Returns (ctest's exit code, the cases, leftover processes ended)."""
    subreaper = make_subreaper()
    cmd = ["ctest", "--test-dir", str(build_dir), "-V", "--output-junit", str(junit.resolve()),
           "--test-output-size-passed", "1048576", "--test-output-size-failed", "1048576"] + extra
    print("scoreboard: " + " ".join(cmd), flush=True)
    try:
        proc = subprocess.run(cmd, check=False, env=test_environment(), stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    except OSError as e:
        raise ScoreError(f"cannot run ctest: {e}") from None
    ended = end_leftovers() if subreaper else 0
    text = proc.stdout.decode("utf-8", errors="replace")
    if log is not None:
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(text, encoding="utf-8")
    summary = [ln for ln in text.splitlines() if re.match(r"^\d+% tests passed", ln)]
    if summary:
        print("scoreboard: ctest: " + summary[-1], flush=True)
    return proc.returncode, read_stream(text), ended
