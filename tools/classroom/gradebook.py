# SPDX-License-Identifier: BSD-3-Clause
"""Writes the class's gradebook from collect.py's collected.json and the regrade, with the late
policy applied, and exports for Canvas and Moodle.

    python3 -m tools.classroom.gradebook --collected DIR/collected.json [--roster students.csv]
        [--regrade REGRADE_DIR] [--late-penalty 10] [--late-cap 50] [-o gradebook.csv]
        [--canvas canvas.csv] [--moodle moodle.csv] [--lms-name cudalabs]

Per lab and student: the lab's deadline (collected.json keeps the deadlines and extensions
collect.py was given: one per lab, plus the student's extension; for a team, its members'
longest) decides which graded push counts:
  on time  the last push at or before the deadline; its points come from the regrade
           (python3 -m tools.release.regrade --deadlines, the grade that counts) when it graded that
           student at that deadline, else from the result the student's workflow published;
  late     the latest push after the deadline, from the published result, charged
           --late-penalty percent per started day late, at most --late-cap percent (default:
           late work earns nothing, --late-penalty 100); it counts when it earns more than
           the on-time push.
Columns: the roster's own columns (login, name, ID, e-mail, ...: every column kept), the
points of every lab (labNN) after the penalty, total, max_total, then per lab labNN_late
(how late the counted push was, as `1d 02:05:00`; empty when on time), labNN_penalty (the
percent deducted), labNN_source (regrade, published, or published-late) and labNN_flags (intake
flags), and late (any lab late), source (regrade when every lab came from it, published,
or mixed), flags (every flag, `lab: file:line construct`), unavailable (the parts the grading
GPU could not run, their points optional: `lab14 PersistentMmaGpu (3 pts, needs 9.0); ...`, from
the counted result's cudalabs.unavailable), reused_labs, graded_commit, gpu,
calibration, push_time, result_from, error. A student without any result has empty points.

--canvas FILE: Canvas's gradebook import (Student, ID, SIS User ID, SIS Login ID, Section,
then one column per lab and the total; a "Points Possible" row first): ID from the roster's
`canvas_id`, SIS User ID from `id` (or `student_id`, `sis_id`), SIS Login ID from `email`
(or `sis_login`). --moodle FILE: Moodle's grade import from CSV (ID number, Email address,
then one column per lab and the total); map "Email address" or "ID number" to the user when
importing. Points are whole numbers.

Only the default branch counts unless collect.py was run with --all-branches.
Exit status: 0; 2 bad input. Python 3 standard library.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import io
import math
import sys
from pathlib import Path

from ..model import LabResult
from .classlib import (Deadlines, UsageError, format_duration, parse_time,
                      read_json, read_roster)

ID_KEYS = ("id", "student_id", "sis_id", "sis_user_id")
EMAIL_KEYS = ("email", "e-mail", "mail", "sis_login")
NAME_KEYS = ("name", "full_name")


def lab_entries(result: dict | None) -> dict[str, LabResult]:
    """lab -> its result.json entry (entries without cudalabs data keep their test name)."""
    out = {}
    for i, raw in enumerate((result or {}).get("tests", [])):
        e = LabResult.from_json(raw, f"result.json tests[{i}]")
        out[e.lab] = e
    return out


def submissions(student: dict) -> list[dict]:
    """The student's graded pushes, oldest first (an older collected.json has one)."""
    subs = student.get("submissions")
    if subs is None and student.get("result") is not None:
        subs = [{k: student.get(k) for k in ("commit", "push_time", "push_time_source",
                                             "result_from", "result")}]
    return sorted(subs or [], key=lambda s: s.get("push_time") or "")


def read_regrade(folder: Path | None) -> dict[tuple[str, str], dict]:
    """(login, deadline) -> {labs: {lab: {score, max-score}}, commit, ...} from regrade.json."""
    if folder is None:
        return {}
    path = folder / "regrade.json" if folder.is_dir() else folder
    doc = read_json(path, "regrade results")
    out = {}
    for e in doc.get("submissions") or []:
        for login in e.get("members") or [e.get("name")]:
            out[(login.lower(), e.get("deadline") or "")] = e
    return out


class Policy:
    """Late work: @p penalty percent per started day, at most @p cap percent."""

    def __init__(self, penalty: float, cap: float):
        if penalty < 0 or cap < 0 or cap > 100:
            raise UsageError("--late-penalty must be >= 0 and --late-cap within 0..100")
        self.penalty, self.cap = penalty, cap

    def deduction(self, late: dt.timedelta) -> float:
        days = math.ceil(late.total_seconds() / 86400) if late.total_seconds() > 0 else 0
        return min(self.cap, self.penalty * days)

    def apply(self, points: int, late: dt.timedelta) -> int:
        return int(math.floor(points * (100 - self.deduction(late)) / 100 + 1e-9))


def lab_grade(student: dict, lab: str, due: dt.datetime | None, regrade: dict,
              policy: Policy) -> dict | None:
    """The counted result of one lab: {points, max, late, penalty, source, entry, sub}."""
    subs = [s for s in submissions(student) if lab in lab_entries(s.get("result"))]
    if not subs:
        return None
    on_time: dict | None
    late: dict | None
    if due is None:
        on_time, late = subs[-1], None
    else:
        before = [s for s in subs if parse_time(s["push_time"]) <= due]
        after = [s for s in subs if parse_time(s["push_time"]) > due]
        on_time, late = (before[-1] if before else None), (after[-1] if after else None)
    best: dict | None = None
    if on_time is not None:
        entry = lab_entries(on_time["result"])[lab]
        points, most, source = entry.score, entry.max_score, "published"
        regrade_commit = None
        rg = regrade.get((student["student"].lower(), iso_or_empty(due)))
        if rg and lab in (rg.get("labs") or {}):
            points, most = int(rg["labs"][lab]["score"]), int(rg["labs"][lab]["max-score"])
            source, regrade_commit = "regrade", rg.get("commit")
        best = {"points": points, "max": most, "late": dt.timedelta(0), "penalty": 0.0,
                "source": source, "entry": entry, "sub": on_time,
                "regrade_commit": regrade_commit}
    if late is not None:
        assert due is not None  # a submission is late only against a deadline
        entry = lab_entries(late["result"])[lab]
        behind = parse_time(late["push_time"]) - due
        charged = policy.apply(entry.score, behind)
        if best is None or charged > best["points"]:
            best = {"points": charged, "max": entry.max_score, "late": behind,
                    "penalty": policy.deduction(behind), "source": "published-late",
                    "entry": entry, "sub": late, "regrade_commit": None}
    return best


def iso_or_empty(value: dt.datetime | None) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ") if value else ""


def team_logins(student: dict, students: list[dict]) -> list[str]:
    if not student.get("team"):
        return [student["student"]]
    return [s["student"] for s in students if s.get("team") == student["team"]]


def grade_student(student: dict, labs: list[str], deadlines: Deadlines, regrade: dict,
                  policy: Policy, students: list[dict]) -> dict:
    """Per-lab grades and the row's other fields."""
    logins = team_logins(student, students)
    grades = {lab: lab_grade(student, lab, deadlines.due(logins, lab), regrade, policy)
              for lab in labs}
    return {"student": student, "grades": grades}


def row(g: dict, labs: list[str], roster_row: dict) -> dict:
    student, grades = g["student"], g["grades"]
    out = dict(roster_row)
    out.setdefault("login", student["student"])
    flags_text, sources, reused, late_any = [], set(), [], False
    unavailable: list[str] = []
    counted = [x for x in grades.values() if x is not None]
    for lab in labs:
        x = grades[lab]
        out[lab] = "" if x is None else x["points"]
        out[f"{lab}_late"] = "" if x is None else format_duration(x["late"])
        out[f"{lab}_penalty"] = "" if x is None or not x["penalty"] else f"{x['penalty']:g}%"
        out[f"{lab}_source"] = "" if x is None else x["source"]
        entry: LabResult | None = x["entry"] if x else None
        flags = entry.flags if entry else []
        out[f"{lab}_flags"] = len(flags) if x is not None else ""
        flags_text += [f"{lab}: {f.get('file')}:{f.get('line')} {f.get('construct')}"
                       for f in flags]
        for u in entry.unavailable if entry else []:
            unavailable.append(f"{lab} {u.get('objective')} "
                               f"({float(u.get('points') or 0):g} pts, needs {u.get('needs')})")
        if x is not None:
            sources.add("regrade" if x["source"] == "regrade" else "published")
            late_any = late_any or x["late"] > dt.timedelta(0)
            if entry and entry.cudalabs.get("graded_in_this_run") is False and \
                    x["source"] != "regrade":
                reused.append(lab)
    newest = max(counted, key=lambda x: x["sub"].get("push_time") or "") if counted else None
    first = next(iter(counted), None)
    fc = first["entry"].cudalabs if first else {}
    out.update({
        "total": "" if not counted else sum(x["points"] for x in counted),
        "max_total": "" if not counted else sum(x["max"] for x in counted),
        "flags": "; ".join(flags_text),
        "unavailable": "; ".join(unavailable),
        "late": "" if not counted else ("yes" if late_any else "no"),
        "source": "" if not sources else sources.pop() if len(sources) == 1 else "mixed",
        "reused_labs": " ".join(reused),
        "graded_commit": "" if newest is None else (newest["sub"].get("commit") or ""),
        "gpu": fc.get("gpu", ""),
        "calibration": fc.get("calibration", ""),
        "push_time": "" if newest is None else (newest["sub"].get("push_time") or ""),
        "result_from": "" if newest is None else (newest["sub"].get("result_from") or ""),
        "error": student.get("error", ""),
    })
    return out


def build(collected: dict, roster: list[dict] | None, regrade: dict,
          policy: Policy) -> tuple[list[str], list[str], list[dict], list[dict]]:
    """(columns, labs, rows, grades) of the gradebook."""
    students = collected.get("students")
    if not isinstance(students, list):
        raise UsageError("collected.json has no students list (write it with collect.py)")
    if collected.get("deadlines"):
        deadlines = Deadlines.from_json(collected["deadlines"])
    elif collected.get("deadline"):
        deadlines = Deadlines({}, parse_time(collected["deadline"]))
    else:
        deadlines = Deadlines()
    labs = sorted({lab for s in students for sub in submissions(s)
                   for lab in lab_entries(sub.get("result"))})
    by_login = {s["student"].lower(): s for s in students}
    roster_rows = roster or [{"login": s["student"]} for s in students]
    roster_cols = list(roster_rows[0].keys()) if roster_rows else ["login"]
    if "login" in roster_cols:
        roster_cols.remove("login")
    roster_cols = ["login"] + roster_cols
    columns = (roster_cols + labs + ["total", "max_total"]
               + [f"{lab}_{k}" for lab in labs for k in ("late", "penalty", "source", "flags")]
               + ["late", "source", "flags", "unavailable", "reused_labs", "graded_commit", "gpu",
                  "calibration", "push_time", "result_from", "error"])
    rows, grades = [], []
    for r in sorted(roster_rows, key=lambda r: r["login"].lower()):
        s = by_login.get(r["login"].lower(), {"student": r["login"], "error": "not collected"})
        g = grade_student(s, labs, deadlines, regrade, policy, students)
        grades.append(g)
        rows.append(row(g, labs, {c: r.get(c, "") for c in roster_cols}))
    return columns, labs, rows, grades


def csv_text(columns: list[str], rows: list[dict]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n", extrasaction="ignore")
    w.writeheader()
    for r in rows:
        w.writerow(r)
    return buf.getvalue()


def pick(r: dict, keys: tuple[str, ...]) -> str:
    low = {k.lower(): v for k, v in r.items()}
    return next((str(low[k]) for k in keys if low.get(k)), "")


def canvas_csv(labs: list[str], rows: list[dict], name: str, max_points: dict) -> str:
    """Canvas gradebook import: identity columns, one column per lab and the total."""
    items = [f"{name} {lab}" for lab in labs] + [f"{name} total"]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *items])
    w.writerow(["Points Possible", "", "", "", "", *[max_points.get(lab, "") for lab in labs],
                sum(v for v in max_points.values() if isinstance(v, int))])
    for r in rows:
        w.writerow([pick(r, NAME_KEYS) or r["login"], pick(r, ("canvas_id",)),
                    pick(r, ID_KEYS), pick(r, EMAIL_KEYS) or r["login"], pick(r, ("section",)),
                    *[r.get(lab, "") for lab in labs], r.get("total", "")])
    return buf.getvalue()


def moodle_csv(labs: list[str], rows: list[dict], name: str) -> str:
    """Moodle grade import from CSV: ID number and e-mail to map users, then the grades."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["ID number", "Email address", "Full name",
                *[f"{name} {lab}" for lab in labs], f"{name} total"])
    for r in rows:
        w.writerow([pick(r, ID_KEYS), pick(r, EMAIL_KEYS), pick(r, NAME_KEYS) or r["login"],
                    *[r.get(lab, "") for lab in labs], r.get("total", "")])
    return buf.getvalue()


def gradebook(collected: dict, roster: list[dict] | None = None, regrade: dict | None = None,
              policy: Policy | None = None) -> str:
    """The gradebook CSV text."""
    columns, _, rows, _ = build(collected, roster, regrade or {}, policy or Policy(100, 100))
    return csv_text(columns, rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split(
        "\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--collected", type=Path, required=True, help="collect.py's collected.json")
    ap.add_argument("--roster", type=Path, help="the roster CSV: its columns are kept")
    ap.add_argument("--regrade", type=Path,
                    help="regrade.py's --out folder (regrade.json): its points count")
    ap.add_argument("--late-penalty", type=float, default=100.0,
                    help="percent deducted per started day late (default 100: late work "
                         "earns nothing)")
    ap.add_argument("--late-cap", type=float, default=100.0,
                    help="at most this percent is deducted (default 100)")
    ap.add_argument("-o", "--output", type=Path, help="the CSV file (default: standard output)")
    ap.add_argument("--canvas", type=Path, help="also write Canvas's gradebook import CSV")
    ap.add_argument("--moodle", type=Path, help="also write Moodle's grade import CSV")
    ap.add_argument("--lms-name", default="cudalabs",
                    help="grade item names in the exports: '<name> labNN', '<name> total'")
    args = ap.parse_args(argv)
    try:
        policy = Policy(args.late_penalty, args.late_cap)
        roster = read_roster(args.roster) if args.roster else None
        regrade = read_regrade(args.regrade)
        columns, labs, rows, grades = build(read_json(args.collected, "collected results"),
                                            roster, regrade, policy)
    except UsageError as e:
        print(f"gradebook: {e}", file=sys.stderr)
        return 2
    text = csv_text(columns, rows)
    max_points: dict[str, int] = {}
    for g in grades:
        for lab, x in g["grades"].items():
            if x is not None:
                max_points[lab] = max(max_points.get(lab, 0), x["max"])
    if args.canvas:
        args.canvas.write_text(canvas_csv(labs, rows, args.lms_name, max_points),
                               encoding="utf-8")
    if args.moodle:
        args.moodle.write_text(moodle_csv(labs, rows, args.lms_name), encoding="utf-8")
    if args.output:
        args.output.write_text(text, encoding="utf-8")
        print(f"gradebook: {len(rows)} students -> {args.output}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
