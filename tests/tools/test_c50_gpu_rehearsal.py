#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tools/classroom/c50_gpu_rehearsal.sh on the CPU: its whole path (the loopback Pages site, the
bundle, the course's autograder.py -> autograde.py -> a fake grading driver, result.json,
the schema check, the release assets) with tests/tools/classroom50_flow.py standing in for
Classroom 50's runner.py (which this repository does not hold; on a GPU machine the script
runs the real one). It passes on a graded lab and fails on each defect it is there to catch."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
import toolfixtures as fx  # noqa: E402

ROOT = fx.ROOT
SCRIPT = ROOT / "tools" / "classroom" / "c50_gpu_rehearsal.sh"
STANDIN = HERE / "classroom50_flow.py"
# A schema written for this test in the shape of a v1 result (not Classroom 50's file).
SCHEMA: dict = {
    "type": "object", "additionalProperties": False,
    "required": ["schema", "classroom", "assignment", "assignment_type", "owner", "submission",
                 "commit", "release", "review", "datetime", "score", "max-score", "tests"],
    "properties": {
        "schema": {"const": "classroom50/result/v1"},
        **{k: {"type": "string", "minLength": 1}
           for k in ("classroom", "assignment", "owner", "commit", "release", "review")},
        "assignment_type": {"enum": ["individual", "group", "team"]},
        "submission": {"type": "string", "pattern": "^submit/"},
        "datetime": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$"},
        "graded_at": {"type": "string"},
        "score": {"type": "integer", "minimum": 0},
        "max-score": {"type": "integer", "minimum": 0},
        "tests": {"type": "array", "items": {"$ref": "#/$defs/test"}},
        "submitted_by": {"type": "object"},
    },
    "$defs": {"test": {"type": "object", "required": ["test-name", "passed", "score",
                                                        "max-score"]}},
}


class GpuRehearsalOnTheCpu(unittest.TestCase):
    def setUp(self):
        self.tmp = fx.temp_dir(self, "cudalab-c50r-")
        self.course, _ = fx.make_course(self.tmp)
        # The instructor checkout: the reference solution of lab02 and the autograder.
        self.solutions = self.tmp / "instructor"
        sol = self.solutions / "solutions" / "lab02_naive_matmul"
        sol.mkdir(parents=True)
        (sol / "naive_matmul.cu").write_text("// reference solution of lab02\n")
        (sol / "answers.txt").write_text("q1 = 42\n")
        ag = self.solutions / "tools" / "release" / "classroom50"
        ag.mkdir(parents=True)
        shutil.copy(ROOT / "tools/release/classroom50/autograder.py", ag / "autograder.py")
        self.schema = fx.write_json(self.tmp / "result-v1.schema.json", SCHEMA)

    def rehearse(self, statuses: dict | None = None, *extra: str,
                 scores: dict | None = None) -> subprocess.CompletedProcess:
        fake = fx.write_json(self.tmp / "fake-scores.json", scores or fx.make_scores(statuses))
        env = {"PATH": os.environ["PATH"], "HOME": str(self.tmp),
               "CUDALAB_FAKE_SCORES": str(fake)}
        shutil.rmtree(self.tmp / "out", ignore_errors=True)
        return subprocess.run(
            ["bash", str(SCRIPT), "--runner-py", str(STANDIN), "--solution-tree",
             str(self.solutions), "--student-tree", str(self.course), "--lab", "lab02",
             "--out", str(self.tmp / "out"), "--schema", str(self.schema), *extra],
            env=env, capture_output=True, text=True, timeout=300, check=False)

    def test_a_graded_lab_passes_and_everything_is_kept(self):
        run = self.rehearse(None, "--expect", "full")
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("c50_gpu_rehearsal: PASS (lab02, expect full, status success)", run.stdout)
        self.assertIn("is valid against", run.stdout)
        doc = json.loads((self.tmp / "out/c50/result.json").read_text())
        self.assertEqual([t["cudalabs"]["lab"] for t in doc["tests"]], ["lab02"])
        self.assertEqual(doc["owner"], "student")
        driver = json.loads((self.tmp / "out/c50/runner-temp/cudalab-grade/driver.json")
                            .read_text())
        self.assertEqual(driver["labs"], "lab02")
        # The submission's lab02 files are the reference solution's; other labs untouched.
        sub = self.tmp / "out" / "submission" / "labs"
        self.assertIn("reference solution", (sub / "lab02_naive_matmul/naive_matmul.cu")
                      .read_text())
        self.assertEqual((sub / "lab02_naive_matmul/answers.txt").read_text(), "q1 = 42\n")
        self.assertEqual((sub / "lab01_hello_addone/hello_addone.cu").read_text(),
                         "// stub of lab01\n")

    def test_gpu_tests_skipped_pass_when_only_graded_is_expected(self):
        run = self.rehearse({"lab02": ["passed", "passed", "skipped", "skipped"]},
                            "--expect", "graded")
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("status failure", run.stdout)
        run = self.rehearse({"lab02": ["passed", "passed", "skipped", "skipped"]},
                            "--expect", "full")
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertIn("FAIL: the reference solutions earned 50 of 100 points", run.stdout)

    def test_a_test_that_could_not_run_fails(self):
        run = self.rehearse({"lab02": ["passed", "passed", "error", "passed"]}, "--expect",
                            "graded")
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertIn("could not run", run.stdout)

    def test_a_result_the_schema_rejects_fails(self):
        bad = dict(SCHEMA, properties={**SCHEMA["properties"],
                                       "assignment_type": {"enum": ["group"]}})
        fx.write_json(self.schema, bad)
        run = self.rehearse(None, "--expect", "graded")
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertIn("does not pass", run.stdout)

    def test_a_grade_the_runner_reports_as_an_error_fails(self):
        run = subprocess.run(
            ["bash", str(SCRIPT), "--runner-py", str(STANDIN), "--solution-tree",
             str(self.solutions), "--student-tree", str(self.course), "--lab", "lab02",
             "--out", str(self.tmp / "out")],
            env={"PATH": os.environ["PATH"], "HOME": str(self.tmp), "CUDALAB_FAKE_FAIL": "1",
                 "CUDALAB_FAKE_SCORES": "/nonexistent"},
            capture_output=True, text=True, timeout=300, check=False)
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertIn("status output is 'error'", run.stdout)

    def test_usage_errors(self):
        cases: list[tuple[list[str], str]] = [
            ([], "--runner-py"),
            (["--runner-py", str(STANDIN)], "--solution-tree"),
            (["--runner-py", str(STANDIN), "--solution-tree", str(self.solutions),
              "--student-tree", str(self.course), "--lab", "lab09", "--out",
              str(self.tmp / "o")], "no lab09")]
        for args, text in cases:
            run = subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True,
                                 check=False)
            self.assertEqual(run.returncode, 2, run.stderr)
            self.assertIn(text, run.stderr)


if __name__ == "__main__":
    unittest.main()
