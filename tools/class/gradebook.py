#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Writes the class's gradebook CSV from collect.py's collected.json.

    python3 tools/class/gradebook.py --collected DIR/collected.json [-o gradebook.csv]

One row per student: student, the points of every lab (labNN), total, max_total, the number
of intake flags per lab (labNN_flags; the scan of the issue "Grades that cannot be forged",
read them in result.json's entries or the job log), flags (every flag, `lab: file:line
construct`), late, reused_labs (labs carried over from an earlier push, not graded on the
collected commit), graded_commit, gpu, calibration (the speed bars' calibration file, as the
result's entries name it), push_time, result_from, error. A student without a
result has empty points. Labs are the union of every result's labs, in order. Points are the
result.json's whole points.

Exit status: 0; 2 bad input. Python 3 standard library.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from classlib import UsageError, read_json  # noqa: E402


def lab_entries(result: dict | None) -> dict[str, dict]:
    """lab -> its result.json entry (entries without cudalabs data keep their test name)."""
    out = {}
    for e in (result or {}).get("tests", []):
        lab = (e.get("cudalabs") or {}).get("lab") or e.get("test-name", "?").split()[0]
        out[lab] = e
    return out


def row(student: dict, labs: list[str]) -> dict:
    entries = lab_entries(student.get("result"))
    first = next(iter(entries.values()), {}).get("cudalabs", {}) if entries else {}
    out = {"student": student["student"]}
    flags_text = []
    for lab in labs:
        e = entries.get(lab)
        out[lab] = "" if e is None else e.get("score", "")
        flags = (e or {}).get("cudalabs", {}).get("flags") or []
        out[f"{lab}_flags"] = len(flags) if e is not None else ""
        flags_text += [f"{lab}: {f.get('file')}:{f.get('line')} {f.get('construct')}"
                       for f in flags]
    result = student.get("result")
    reused = [lab for lab, e in entries.items()
              if (e.get("cudalabs") or {}).get("graded_in_this_run") is False]
    out.update({
        "total": "" if result is None else result.get("score", ""),
        "max_total": "" if result is None else result.get("max-score", ""),
        "flags": "; ".join(flags_text),
        "late": "" if student.get("late") is None else ("yes" if student["late"] else "no"),
        "reused_labs": " ".join(reused),
        "graded_commit": student.get("commit") or "",
        "gpu": first.get("gpu", ""),
        "calibration": first.get("calibration", ""),
        "push_time": student.get("push_time") or "",
        "result_from": student.get("result_from") or "",
        "error": student.get("error", ""),
    })
    return out


def gradebook(collected: dict) -> str:
    """The CSV text."""
    students = collected.get("students")
    if not isinstance(students, list):
        raise UsageError("collected.json has no students list (write it with collect.py)")
    labs = sorted({lab for s in students for lab in lab_entries(s.get("result"))})
    columns = (["student"] + labs + ["total", "max_total"] + [f"{lab}_flags" for lab in labs]
               + ["flags", "late", "reused_labs", "graded_commit", "gpu", "calibration",
                  "push_time", "result_from", "error"])
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
    w.writeheader()
    for s in sorted(students, key=lambda s: s["student"].lower()):
        w.writerow(row(s, labs))
    return buf.getvalue()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split(
        "\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--collected", type=Path, required=True, help="collect.py's collected.json")
    ap.add_argument("-o", "--output", type=Path, help="the CSV file (default: standard output)")
    args = ap.parse_args(argv)
    try:
        text = gradebook(read_json(args.collected, "collected results"))
    except UsageError as e:
        print(f"gradebook: {e}", file=sys.stderr)
        return 2
    if args.output:
        args.output.write_text(text, encoding="utf-8")
        print(f"gradebook: {text.count(chr(10)) - 1} students -> {args.output}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
