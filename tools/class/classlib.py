# SPDX-License-Identifier: BSD-3-Clause
"""Shared pieces of the class tools (tools/class/*.py): the roster, repository names, and the
one function that talks to GitHub.

Every network call of the class tools goes through `call_gh(args)`, which runs the `gh` CLI
(authenticated with `gh auth login`, or GH_TOKEN) and returns its standard output. The tools
take it as a parameter, so tests hand them a fake that answers from fixture files. Python 3
standard library only.
"""

from __future__ import annotations

import csv
import json
import re
import subprocess
from pathlib import Path
from typing import Callable

GhCall = Callable[[list[str]], bytes]
LOGIN = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,37}[A-Za-z0-9])?$")
NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


class UsageError(Exception):
    """Bad input: reported on one line, exit status 2."""


class GhError(Exception):
    """gh failed: reported with its message."""


def call_gh(args: list[str]) -> bytes:
    """Runs `gh ARGS` and returns its stdout; raises GhError with gh's message on failure."""
    try:
        proc = subprocess.run(["gh", *args], capture_output=True, check=False, timeout=300)
    except FileNotFoundError:
        raise GhError("the GitHub CLI `gh` is not installed (https://cli.github.com)") from None
    except subprocess.TimeoutExpired:
        raise GhError(f"gh {' '.join(args[:3])} timed out") from None
    if proc.returncode != 0:
        msg = proc.stderr.decode(errors="replace").strip().splitlines()
        raise GhError(f"gh {' '.join(args[:3])}: {msg[-1] if msg else f'exit {proc.returncode}'}")
    return proc.stdout


def api_items(call: GhCall, path: str, items: str = ".[]") -> list[dict]:
    """Every item of a paginated GitHub REST list (`gh api --paginate`, one JSON per line)."""
    out = call(["api", "--paginate", "-H", "Accept: application/vnd.github+json", path,
                "--jq", f"{items} | @json"])
    return [json.loads(line) for line in out.decode().splitlines() if line.strip()]


def read_roster(path: Path) -> list[dict]:
    """The roster CSV: a header with `login` (GitHub user name; `github` or `username` also
    accepted) and any other columns; one student per row, logins checked and unique."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        raise UsageError(f"cannot read the roster {path}: {e.strerror}") from None
    if not rows:
        raise UsageError(f"the roster {path} has no students")
    key = next((k for k in ("login", "github", "username") if k in rows[0]), None)
    if key is None:
        raise UsageError(f"the roster {path} needs a column `login` (GitHub user name); it has "
                         f"{', '.join(rows[0])}")
    students, seen = [], set()
    for n, row in enumerate(rows, start=2):
        login = (row.get(key) or "").strip()
        if not LOGIN.match(login):
            raise UsageError(f"{path}:{n}: {login!r} is not a GitHub user name")
        if login.lower() in seen:
            raise UsageError(f"{path}:{n}: {login} is listed twice")
        seen.add(login.lower())
        students.append({**row, "login": login})
    return students


def repo_of(org: str, prefix: str, login: str) -> str:
    """ORG/PREFIX-LOGIN, the student's repository."""
    return f"{org}/{prefix}-{login}" if prefix else f"{org}/{login}"


def check_name(value: str, what: str) -> str:
    """@p value if it is a valid organization / repository name part, else UsageError."""
    if not NAME.match(value or ""):
        raise UsageError(f"{what} {value!r} may hold only letters, digits, '.', '_' and '-'")
    return value


def read_json(path: Path, what: str):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise UsageError(f"{what} {path} is not readable JSON: {e}") from None
