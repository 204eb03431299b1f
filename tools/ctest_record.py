# SPDX-License-Identifier: BSD-3-Clause
"""CTest's record of one run: every test's verdict, time and captured output, read from
CTest's JUnit file (`ctest --output-junit`) or from the console of `ctest -V`, where every
line a test prints comes prefixed with the test's number and the verdict lines are CTest's
own. Read by the scoreboard (tools/scoreboard.py), which scores them, and by the tools that
run ctest and read its console.

Library only (no command line); Python 3 standard library.
"""

from __future__ import annotations

import datetime as _dt
import re
import xml.etree.ElementTree as ET
from pathlib import Path


class ScoreError(Exception):
    """An input or usage problem of the scoreboard and the tools it serves (a missing or
    broken file, a tree that is not configured): reported on one line, exit status 2."""


# ---------------------------------------------------------------------------
# CTest's JUnit file
# ---------------------------------------------------------------------------
def _number(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        return float(text)
    except ValueError:
        return None


def read_junit(path: Path) -> list[dict]:
    """Every <testcase> of a CTest JUnit file: name, status, time_s, output, message.

    status: passed | failed | skipped | error (could not run: missing executable, ...). The
    message is CTest's own (e.g. "Timeout"), not the test's output."""
    return read_junit_run(path)[0]


def read_junit_run(path: Path) -> tuple[list[dict], dict]:
    """read_junit() and the run's window {"start", "end"} (seconds since the epoch)."""
    try:
        root = ET.parse(path).getroot()
    except FileNotFoundError:
        raise ScoreError(f"{path} not found: run the tests first (ctest --preset <name>, or "
                         f"this tool with --run)") from None
    except ET.ParseError as e:
        raise ScoreError(f"{path} is not valid JUnit XML: {e}") from None
    cases = []
    for tc in root.iter("testcase"):
        name = tc.get("name") or tc.get("classname") or "?"
        out = "".join((x.text or "") for x in tc.findall("system-out"))
        out += "".join((x.text or "") for x in tc.findall("system-err"))
        failure = tc.find("failure")
        if failure is None:
            failure = tc.find("error")
        skipped = tc.find("skipped")
        status_attr = (tc.get("status") or "").lower()
        if failure is not None:
            status, message = "failed", failure.get("message") or "failed"
        elif skipped is not None:
            status, message = "skipped", skipped.get("message") or "skipped"
        elif status_attr in ("run", "passed", ""):
            status, message = "passed", ""
        elif status_attr in ("notrun", "disabled"):
            status, message = "error", "not run (missing executable?)"
        else:
            status, message = "failed", status_attr
        cases.append({"name": name, "status": status, "time_s": _number(tc.get("time")) or 0.0,
                      "output": out, "message": message})
    # CTest writes the run's start in local time without a zone; the file is written at its end.
    suite = root if root.tag == "testsuite" else root.find("testsuite")
    end = path.stat().st_mtime
    duration = _number(suite.get("time")) if suite is not None else None
    start = end - (duration or 0.0)
    stamp = suite.get("timestamp") if suite is not None else None
    if stamp:
        try:
            start = min(start, _dt.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S").timestamp())
        except ValueError:
            pass
    return cases, {"start": start, "end": end}


# ---------------------------------------------------------------------------
# The console of `ctest -V`
# ---------------------------------------------------------------------------
_START = re.compile(r"^\s*Start\s+(\d+): (\S+)$")
_END = re.compile(r"^\s*\d+/\d+ Test\s+#(\d+): (\S+) \.*\s*(\**)\s*(.*?)\s+[\d.]+ sec\s*$")
_OUT = re.compile(r"^(\d+): (.*)$")


def read_stream(text: str) -> list[dict]:
    """Every test of a `ctest -V` console log: name, status, time_s, output, message.

    CTest prefixes each line a test prints with the test's number ("12: ..."), so a test can
    only add lines to its own output; the verdict lines ("3/40 Test #12: name ... Passed")
    are CTest's own and start without a prefix."""
    names: dict[str, str] = {}
    outputs: dict[str, list[str]] = {}
    cases = []
    for line in text.splitlines():
        m = _START.match(line)
        if m:
            names[m.group(1)] = m.group(2)
            outputs[m.group(1)] = []
            continue
        m = _END.match(line)
        if m and names.get(m.group(1)) == m.group(2):
            word = m.group(4).strip()
            if word.startswith("Passed"):
                status, message = "passed", ""
            elif word.startswith("Skipped"):
                status, message = "skipped", "skipped"
            elif word.startswith("Not Run"):
                status, message = "error", "not run (missing executable?)"
            else:
                status, message = "failed", word or "failed"
            t = re.search(r"([\d.]+) sec\s*$", line)
            cases.append({"name": m.group(2), "status": status,
                          "time_s": float(t.group(1)) if t else 0.0,
                          "output": "\n".join(outputs.get(m.group(1), [])), "message": message})
            continue
        m = _OUT.match(line)
        if m and m.group(1) in outputs:
            outputs[m.group(1)].append(m.group(2))
    return cases
