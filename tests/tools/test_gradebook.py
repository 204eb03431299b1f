#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Tests of tools/classroom/gradebook.py on a fixture collected.json (no network)."""

from __future__ import annotations

import contextlib
import datetime as dt
import csv
import io
import tempfile
import unittest
from pathlib import Path

import toolfixtures as fx

from tools.classroom import gradebook

FLAG = {"file": "labs/lab13_sgemm/sgemm.cu", "line": 7, "construct": "asm", "text": "asm(...)"}


def collected() -> dict:
    return {"deadline": "2026-12-14T23:59:00Z", "source": "releases", "students": [
        {"student": "bob", "repo": "o/cudalabs-bob", "commit": "2" * 40, "late": True,
         "push_time": "2026-12-15T01:00:00Z", "result_from": "run 9",
         "result": fx.make_result({"lab01": (100, 100), "lab13": (40, 100)}, "2" * 40,
                                  flags={"lab13": [FLAG, FLAG]}, reused=("lab01",))},
        {"student": "alice", "repo": "o/cudalabs-alice", "commit": "b" * 40, "late": False,
         "push_time": "2026-12-14T23:58:00Z", "result_from": "submit/x-bbbbbbb",
         "result": fx.make_result({"lab01": (90, 100), "lab02": (100, 100), "lab13": (100, 100)},
                                  gpu="NVIDIA H200")},
        {"student": "carol", "repo": "o/cudalabs-carol", "result": None},
    ]}


class Gradebook(unittest.TestCase):
    def rows(self) -> list[dict]:
        return list(csv.DictReader(io.StringIO(gradebook.gradebook(collected()))))

    def test_one_row_per_student_with_points_total_and_columns(self):
        rows = self.rows()
        self.assertEqual([r["login"] for r in rows], ["alice", "bob", "carol"])
        self.assertEqual(list(rows[0])[:6], ["login", "lab01", "lab02", "lab13", "total",
                                             "max_total"])
        alice, bob, carol = rows
        self.assertEqual((alice["lab01"], alice["lab02"], alice["total"], alice["max_total"]),
                         ("90", "100", "290", "300"))
        self.assertEqual((alice["late"], alice["gpu"], alice["graded_commit"]),
                         ("no", "NVIDIA H200", "b" * 40))
        self.assertEqual(bob["lab02"], "")  # bob's result has no lab02
        self.assertEqual(carol["total"], "")

    def test_points_by_technique_ride_along_and_change_nothing(self):
        # result.json entries carry cudalabs.points (technique -> objective, the lock's
        # shape); the gradebook counts each entry's score, with or without them.
        data = collected()
        for student in data["students"]:
            for e in (student["result"] or {}).get("tests", []):
                points = e["cudalabs"]["points"]
                self.assertEqual(sum(g["earned"] for g in points.values()), e["score"])
                del e["cudalabs"]["points"]
        self.assertEqual(list(csv.DictReader(io.StringIO(gradebook.gradebook(data)))),
                         self.rows())

    def test_flags_late_and_reused_labs(self):
        bob = self.rows()[1]
        self.assertEqual(bob["lab13_flags"], "2")
        self.assertEqual(bob["lab01_flags"], "0")
        self.assertEqual(bob["flags"], "lab13: labs/lab13_sgemm/sgemm.cu:7 asm; "
                                       "lab13: labs/lab13_sgemm/sgemm.cu:7 asm")
        self.assertEqual((bob["late"], bob["reused_labs"]), ("yes", "lab01"))
        # Late by one hour: a duration per lab, and by default late work earns nothing.
        self.assertEqual((bob["lab01_late"], bob["lab01"], bob["lab01_penalty"]),
                         ("01:01:00", "0", "100%"))

    def test_late_policy_penalty_per_started_day_with_a_cap(self):
        policy = gradebook.Policy(10, 25)
        text = gradebook.gradebook(collected(), policy=policy)
        bob = list(csv.DictReader(io.StringIO(text)))[1]
        self.assertEqual((bob["lab01"], bob["lab13"], bob["lab01_penalty"]), ("90", "36", "10%"))
        self.assertEqual(policy.deduction(dt.timedelta(days=2, seconds=1)), 25)  # capped
        self.assertEqual(policy.deduction(dt.timedelta(0)), 0)

    def test_roster_columns_kept_and_lms_exports(self):
        with tempfile.TemporaryDirectory() as tmp:
            roster = Path(tmp) / "roster.csv"
            roster.write_text("login,name,id,email\nalice,Alice A.,S1,alice@uni.example\n"
                              "bob,Bob B.,S2,bob@uni.example\ncarol,Carol C.,S3,c@uni.example\n")
            src = fx.write_json(Path(tmp) / "collected.json", collected())
            out, canvas, moodle = (Path(tmp) / n for n in ("g.csv", "canvas.csv", "moodle.csv"))
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(gradebook.main([
                    "--collected", str(src), "--roster", str(roster), "-o", str(out),
                    "--canvas", str(canvas), "--moodle", str(moodle)]), 0)
            rows = list(csv.DictReader(io.StringIO(out.read_text())))
            self.assertEqual(list(rows[0])[:4], ["login", "name", "id", "email"])
            self.assertEqual((rows[0]["name"], rows[0]["id"], rows[0]["email"]),
                             ("Alice A.", "S1", "alice@uni.example"))
            c = list(csv.reader(io.StringIO(canvas.read_text())))
            self.assertEqual(c[0], ["Student", "ID", "SIS User ID", "SIS Login ID", "Section",
                                    "cudalabs lab01", "cudalabs lab02", "cudalabs lab13",
                                    "cudalabs total"])
            self.assertEqual(c[1][0], "Points Possible")
            self.assertEqual(c[2][:3] + c[2][5:], ["Alice A.", "", "S1", "90", "100", "100",
                                                   "290"])
            m = list(csv.reader(io.StringIO(moodle.read_text())))
            self.assertEqual(m[0][:3], ["ID number", "Email address", "Full name"])
            self.assertEqual(m[1][:2] + m[1][-1:], ["S1", "alice@uni.example", "290"])

    def test_command_line_writes_the_file_and_rejects_bad_input(self):
        with tempfile.TemporaryDirectory() as tmp:
            src = fx.write_json(Path(tmp) / "collected.json", collected())
            out = Path(tmp) / "gradebook.csv"
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(gradebook.main(["--collected", str(src), "-o", str(out)]), 0)
            self.assertTrue(out.read_text().startswith("login,lab01,lab02,lab13,total"))
            bad = fx.write_json(Path(tmp) / "bad.json", {"nothing": 1})
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                self.assertEqual(gradebook.main(["--collected", str(bad)]), 2)
            self.assertIn("no students list", err.getvalue())


if __name__ == "__main__":
    unittest.main()
