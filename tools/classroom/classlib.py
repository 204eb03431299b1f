# SPDX-License-Identifier: BSD-3-Clause
"""Shared pieces of the class tools (tools/classroom/*.py): the roster, repository names, and the
one function that talks to GitHub.

Every network call of the class tools goes through `call_gh(args)` of
tools/release/github_cli.py, which runs the `gh` CLI (authenticated with `gh auth login`, or
GH_TOKEN) and returns its standard output. The tools take it as a parameter, so tests hand
them a fake that answers from fixture files. Python 3 standard library only.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import re
from pathlib import Path
from typing import Callable

GhCall = Callable[[list[str]], bytes]
LOGIN = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,37}[A-Za-z0-9])?$")
NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


class UsageError(Exception):
    """Bad input: reported on one line, exit status 2."""


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
    """ORG/PREFIX-LOGIN, the student's (or team's) repository."""
    return f"{org}/{prefix}-{login}" if prefix else f"{org}/{login}"


PREFIX_HELP = ("repositories are ORG/PREFIX-LOGIN (ORG/PREFIX-TEAM for a team). Classroom 50 "
               "names them <classroom>-<assignment>-<login>: give --classroom and --assignment, "
               "or the whole PREFIX; create_repos.py made PREFIX-LOGIN (default cudalabs)")


def add_prefix_args(ap) -> None:
    """--prefix, or --classroom and --assignment (Classroom 50's <classroom>-<assignment>)."""
    ap.add_argument("--prefix", help=PREFIX_HELP)
    ap.add_argument("--classroom", help="Classroom 50 classroom (prefix <classroom>-<assignment>)")
    ap.add_argument("--assignment", help="Classroom 50 assignment slug")


def resolve_prefix(args) -> str:
    """The repository name prefix from --prefix or --classroom/--assignment; there is no
    default: a wrong one makes every student a 404."""
    if args.prefix is not None and (args.classroom or args.assignment):
        raise UsageError("give --prefix or --classroom and --assignment, not both")
    if args.prefix is not None:
        return check_name(args.prefix, "--prefix") if args.prefix else ""
    if args.classroom and args.assignment:
        return check_name(f"{args.classroom}-{args.assignment}", "--classroom/--assignment")
    raise UsageError("name the students' repositories: --classroom C --assignment A (Classroom "
                     "50 creates C-A-<login>) or --prefix P (repositories P-<login>, e.g. "
                     "--prefix cudalabs for create_repos.py's default)")


def not_found_message(repo: str, prefix: str) -> str:
    """What a 404 of a student's repository means, naming the repository."""
    return (f"{repo}: repository not found (HTTP 404). Is the prefix {prefix!r} right? Classroom "
            "50 names repositories <classroom>-<assignment>-<login>; the token needs read "
            "access to it; the student may not have accepted the assignment yet")


def units(students: list[dict]) -> list[dict]:
    """The repositories to read: one per team (roster column `team`: the team's name, as its
    repository's tail) with its members, else one per student: {name, members: [student]}."""
    out: dict[str, dict] = {}
    for s in students:
        team = (s.get("team") or "").strip()
        if team:
            check_name(team, f"team of {s['login']}")
            out.setdefault("team:" + team.lower(), {"name": team, "team": team,
                                                    "members": []})["members"].append(s)
        else:
            out["login:" + s["login"].lower()] = {"name": s["login"], "team": "",
                                                  "members": [s]}
    return list(out.values())


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


# ---------------------------------------------------------------------------
# Times, deadlines per lab, extensions
# ---------------------------------------------------------------------------
TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
_DURATION = re.compile(r"^(?:(\d+(?:\.\d+)?)d)?(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?$")


def parse_time(text: str) -> dt.datetime:
    """An ISO 8601 time (Z or an offset) as an aware UTC datetime."""
    value = dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    if value.tzinfo is None:
        raise ValueError(f"{text!r} has no time zone (add Z for UTC)")
    return value.astimezone(dt.timezone.utc)


def iso(value: dt.datetime) -> str:
    return value.astimezone(dt.timezone.utc).strftime(TIME_FORMAT)


def parse_duration(text: str) -> dt.timedelta:
    """`2d`, `36h`, `1d12h`, `90m`, `0` as a duration."""
    text = text.strip().lower().replace(" ", "")
    m = _DURATION.match(text)
    if text in ("", "0") or not m or not any(m.groups()):
        if text == "0":
            return dt.timedelta(0)
        raise ValueError(f"{text!r} is not a duration such as 2d, 36h, 1d12h or 90m")
    d, h, mins = (float(x) if x else 0.0 for x in m.groups())
    return dt.timedelta(days=d, hours=h, minutes=mins)


def format_duration(value: dt.timedelta) -> str:
    """A lateness as `1d 02:05:00` (days, then hours:minutes:seconds); "" for none."""
    secs = int(value.total_seconds())
    if secs <= 0:
        return ""
    days, rest = divmod(secs, 86400)
    hours, rest = divmod(rest, 3600)
    mins, secs = divmod(rest, 60)
    return (f"{days}d " if days else "") + f"{hours:02d}:{mins:02d}:{secs:02d}"


def _rows(path: Path, what: str, needed: tuple[str, ...]) -> list[tuple[int, dict]]:
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            rows = [r for r in csv.DictReader(f) if any((v or "").strip() for v in r.values())]
    except OSError as e:
        raise UsageError(f"cannot read the {what} {path}: {e.strerror}") from None
    if rows and any(k not in rows[0] for k in needed):
        raise UsageError(f"the {what} {path} needs the columns {', '.join(needed)}; it has "
                         f"{', '.join(rows[0])}")
    return list(enumerate(rows, start=2))


class Deadlines:
    """One deadline per lab (and a default for the others) and per-student extensions.

    Deadlines file: CSV `lab,deadline` (lab `labNN`, or `*` for every lab not listed;
    deadline ISO 8601 with a zone). Extensions file: CSV `login,lab,extra` (lab `labNN` or
    `*`; extra a duration such as 2d, 36h or 1d12h), added to that lab's deadline for that
    student; for a team, the longest extension of its members counts."""

    def __init__(self, labs: dict[str, dt.datetime] | None = None,
                 default: dt.datetime | None = None,
                 extensions: dict[str, dict[str, dt.timedelta]] | None = None):
        self.labs, self.default = dict(labs or {}), default
        self.extensions = extensions or {}

    @classmethod
    def load(cls, deadline: str | None, deadlines: Path | None,
             extensions: Path | None) -> "Deadlines":
        if bool(deadline) == bool(deadlines):
            raise UsageError("give one --deadline for every lab or a --deadlines file "
                             "(lab,deadline per line; * for the other labs)")
        labs, default = {}, parse_time(deadline) if deadline else None
        for n, r in _rows(deadlines, "deadlines file", ("lab", "deadline")) if deadlines else []:
            lab = (r["lab"] or "").strip()
            try:
                when = parse_time(r["deadline"] or "")
            except ValueError as e:
                raise UsageError(f"{deadlines}:{n}: {e}") from None
            if lab == "*":
                default = when
            elif re.fullmatch(r"lab\d\d", lab):
                labs[lab] = when
            else:
                raise UsageError(f"{deadlines}:{n}: lab {lab!r} is not labNN or *")
        ext: dict[str, dict[str, dt.timedelta]] = {}
        for n, r in _rows(extensions, "extensions file", ("login", "lab", "extra")) \
                if extensions else []:
            lab = (r["lab"] or "").strip() or "*"
            try:
                extra = parse_duration(r["extra"] or "")
            except ValueError as e:
                raise UsageError(f"{extensions}:{n}: {e}") from None
            if lab != "*" and not re.fullmatch(r"lab\d\d", lab):
                raise UsageError(f"{extensions}:{n}: lab {lab!r} is not labNN or *")
            ext.setdefault((r["login"] or "").strip().lower(), {})[lab] = extra
        return cls(labs, default, ext)

    def base(self, lab: str) -> dt.datetime | None:
        return self.labs.get(lab, self.default)

    def extension(self, logins: list[str], lab: str) -> dt.timedelta:
        best = dt.timedelta(0)
        for login in logins:
            e = self.extensions.get(login.lower(), {})
            best = max(best, e.get(lab, e.get("*", dt.timedelta(0))))
        return best

    def due(self, logins: list[str], lab: str) -> dt.datetime | None:
        """The deadline of @p lab for a student (or a team: its members' logins)."""
        base = self.base(lab)
        return None if base is None else base + self.extension(logins, lab)

    def all_due(self, logins: list[str], labs: list[str]) -> list[dt.datetime]:
        """Every distinct deadline that applies to these logins (the default included)."""
        out = {self.due(logins, lab) for lab in set(labs) | set(self.labs)}
        if self.default is not None:
            out.add(self.default + self.extension(logins, "*"))
        return sorted(d for d in out if d is not None)

    def to_json(self) -> dict:
        return {"default": iso(self.default) if self.default else None,
                "labs": {k: iso(v) for k, v in sorted(self.labs.items())},
                "extensions": {login: {lab: v.total_seconds() for lab, v in sorted(e.items())}
                               for login, e in sorted(self.extensions.items())}}

    @classmethod
    def from_json(cls, doc: dict) -> "Deadlines":
        return cls({k: parse_time(v) for k, v in (doc.get("labs") or {}).items()},
                   parse_time(doc["default"]) if doc.get("default") else None,
                   {login: {lab: dt.timedelta(seconds=v) for lab, v in e.items()}
                    for login, e in (doc.get("extensions") or {}).items()})
