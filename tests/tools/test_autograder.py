#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Tests of the Classroom 50 autograder: tools/release/autograde.py (scores.json ->
result.json, one entry per lab in whole points) and tools/release/classroom50/autograder.py
(the entrypoint Classroom 50's runner executes). A fake grading driver stands in for
grade_submission.py; every result.json is checked against the classroom50/result/v1 rules."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import unittest
from unittest import mock

import toolfixtures as fx

from tools.model import LabScore, Lock
from tools.release import autograde
from tools.release import lab_points

AUTOGRADER = fx.RELEASE / "classroom50" / "autograder.py"
C50_ENV = {"CLASSROOM": "gpu-fall", "ASSIGNMENT": "cudalabs", "SUBMISSION_TAG":
           "submit/2026-12-01T10-00-00Z-abcdef1", "COMMIT_URL": "https://github.com/o/r/commit/x",
           "RELEASE_URL": "https://github.com/o/r/releases/tag/submit%2Fx",
           "REVIEW_URL": "https://github.com/o/r/compare/a...b", "OWNER": "alice",
           "ASSIGNMENT_TYPE": "individual"}


class AutogradeCase(unittest.TestCase):
    """Runs autograde.main() on a fixture course with the fake driver."""

    def setUp(self):
        self.tmp, self.course, self.ref, self.sub = fx.course_case(self, "cudalab-autograde-")

    def grade(self, scores: dict, *extra: str, env: dict | None = None) -> tuple[int, dict | None]:
        path = fx.write_json(self.tmp / "fake-scores.json", scores)
        result = self.tmp / "out" / "result.json"
        env = {**(env or C50_ENV), "CUDALAB_FAKE_SCORES": str(path)}
        argv = ["--submission", str(self.sub), "--course", str(self.course), "--out",
                str(self.tmp / "grade"), "--result", str(result), "--gpu-model", fx.H100, *extra]
        with mock.patch.dict(os.environ, env, clear=True), \
                contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):
            rc = autograde.main(argv)
        doc = json.loads(result.read_text()) if result.is_file() else None
        return rc, doc

    def graded(self, scores: dict, *extra: str, env: dict | None = None) -> tuple[int, dict]:
        """grade(), where the run must have written a result.json."""
        rc, doc = self.grade(scores, *extra, env=env)
        if doc is None:
            self.fail(f"autograde.py wrote no result.json (exit status {rc})")
        return rc, doc

    def entries(self, doc: dict) -> dict:
        return {e["cudalabs"]["lab"]: e for e in doc["tests"]}

    def assertValid(self, doc: dict):
        self.assertEqual(autograde.validate_result(doc), [])
        for e in doc["tests"]:
            self.assertIsInstance(e["score"], int)
            self.assertIsInstance(e["max-score"], int)


class ResultJson(AutogradeCase):
    def test_passing_submission_every_lab_at_its_maximum(self):
        rc, doc = self.graded(fx.make_scores())
        self.assertEqual(rc, 0)
        self.assertValid(doc)
        labs = self.entries(doc)
        self.assertEqual(sorted(labs), ["lab01", "lab02", "lab13"])
        for e in labs.values():
            self.assertTrue(e["passed"])
            self.assertEqual(e["score"], 100)  # 7 tests of 100/7 still add up to exactly 100
            self.assertEqual(e["max-score"], 100)
        self.assertEqual((doc["score"], doc["max-score"]), (300, 300))
        self.assertEqual(doc["schema"], "classroom50/result/v1")
        self.assertEqual(doc["submission"], C50_ENV["SUBMISSION_TAG"])
        self.assertEqual(doc["classroom"], "gpu-fall")
        self.assertEqual(doc["commit"], C50_ENV["COMMIT_URL"])

    def test_failing_submission_whole_points_below_the_maximum(self):
        rc, doc = self.graded(fx.make_scores(statuses={
            "lab01": ["passed", "failed", "passed", "passed", "failed", "skipped", "passed"],
            "lab13": ["passed", "failed"]}))
        self.assertEqual(rc, 0)
        self.assertValid(doc)
        labs = self.entries(doc)
        self.assertFalse(labs["lab01"]["passed"])
        # whole points of 7 x 14.2857: 15, 15, 14, 14, 14, 14, 14; passed: 0, 2, 3, 6
        self.assertEqual(labs["lab01"]["score"], 15 + 14 + 14 + 14)
        self.assertEqual(labs["lab01"]["max-score"], 100)
        self.assertEqual((labs["lab13"]["score"], labs["lab13"]["passed"]), (40, False))
        self.assertTrue(labs["lab02"]["passed"])
        self.assertIn("4 of 7 tests passed", labs["lab01"]["message"])
        self.assertEqual(doc["score"], sum(e["score"] for e in doc["tests"]))

    def test_every_classroom50_assignment_type_is_accepted(self):
        # Classroom 50's runner stamps "individual", "group" or "team" (runner.py,
        # assignment_type_for_mode); a team submission must grade, not exit 1 after the grade.
        for kind in ("individual", "group", "team"):
            with self.subTest(kind):
                rc, doc = self.graded(fx.make_scores(),
                                      env={**C50_ENV, "ASSIGNMENT_TYPE": kind})
                self.assertEqual(rc, 0)
                self.assertEqual(doc["assignment_type"], kind)
                self.assertEqual(autograde.validate_result(doc), [])

    def test_failed_tests_named_with_their_message_in_the_release_body_and_assets(self):
        scores = fx.make_scores(statuses={"lab02": ["passed", "failed", "passed", "passed"]})
        scores["tests"][8]["message"] = ("3 of 4225 elements wrong in a 65x65 result;\n"
                                         "first at index 64")
        assets = self.tmp / "assets"
        rc, doc = self.graded(scores, "--assets", str(assets), "--step-summary")
        self.assertEqual(rc, 0)
        lab02 = self.entries(doc)["lab02"]["cudalabs"]
        self.assertEqual(lab02["failures"], [{
            "test": "lab02.GridCpu.B",
            "message": "3 of 4225 elements wrong in a 65x65 result; first at index 64"}])
        body = (self.tmp / "out" / "release-body.md").read_text()
        self.assertIn("`lab02.GridCpu.B`: 3 of 4225 elements wrong in a 65x65 result; first at "
                      "index 64", body)
        self.assertEqual(sorted(p.name for p in assets.iterdir()),
                         ["feedback.md", "junit.xml", "scores.json"])
        self.assertEqual((assets / "feedback.md").read_text(), body)
        driver = json.loads((self.tmp / "grade" / "driver.json").read_text())
        self.assertTrue(driver["step_summary"])

    def test_partly_compiling_submission_keeps_the_lab_maximum(self):
        rc, doc = self.graded(fx.make_scores(built={"lab02": False}))
        self.assertEqual(rc, 0)
        self.assertValid(doc)
        lab02 = self.entries(doc)["lab02"]
        self.assertEqual((lab02["score"], lab02["max-score"], lab02["passed"]), (0, 100, False))
        self.assertIn("did not compile", lab02["message"])
        self.assertFalse(lab02["cudalabs"]["grader_built"])
        self.assertEqual(doc["max-score"], 300)

    def test_intake_flags_in_the_lab_entry(self):
        flags = [{"file": "labs/lab13_sgemm/sgemm.cu", "line": 12, "construct": "asm",
                  "text": "asm volatile(...)"}]
        _, doc = self.graded(fx.make_scores(flags={"lab13": flags}))
        lab13 = self.entries(doc)["lab13"]
        self.assertIn("[1 intake flag]", lab13["test-name"])
        self.assertIn("labs/lab13_sgemm/sgemm.cu:12 asm", lab13["message"])
        self.assertEqual(lab13["cudalabs"]["flags"], flags)
        self.assertNotIn("intake", self.entries(doc)["lab01"]["test-name"])

    def test_key_ratios_gpu_and_commit_recorded(self):
        _, doc = self.graded(fx.make_scores(sgemm_share=0.91))
        c = self.entries(doc)["lab13"]["cudalabs"]
        self.assertEqual([(r["name"], r["value"]) for r in c["ratios"]], [("speedup", 0.91)])
        self.assertEqual(c["gpu"], fx.H100)
        self.assertEqual(c["course_ref"], self.ref)
        self.assertEqual(c["graded_commit"], fx.git("rev-parse", "HEAD", cwd=self.sub))

    def test_without_a_gpu_only_cpu_tests_count(self):
        _, doc = self.graded(fx.make_scores(), "--preset", "ci-student")
        labs = self.entries(doc)
        self.assertEqual(labs["lab02"]["max-score"], 50)
        self.assertEqual(labs["lab13"]["max-score"], 40)
        self.assertEqual(labs["lab01"]["max-score"], 43)  # round(3 x 100/7), in whole points
        self.assertValid(doc)

    def test_points_in_the_shape_of_the_course_lock(self):
        fx.write_json(self.course / "tests" / "grading.json", fx.make_lock(fx.LAB02_TECHNIQUES))
        _, doc = self.graded(fx.make_scores(statuses={"lab02": ["passed", "failed", "passed",
                                                                 "failed"]}))
        self.assertValid(doc)
        lab02 = self.entries(doc)["lab02"]
        points = lab02["cudalabs"]["points"]
        self.assertEqual({k: (g["points"], g["earned"]) for k, g in points.items()},
                         {"grid": (50, 25), "matmul": (50, 20)})
        self.assertEqual(points["matmul"]["objectives"]["MatmulPerf"],
                         {"points": 30, "earned": 0, "tests": 1})
        self.assertEqual(lab02["score"], 45)
        # A lab the lock does not list keeps the scoreboard's weights, by the scores'
        # techniques.
        self.assertEqual(self.entries(doc)["lab13"]["cudalabs"]["points"]["lab"]["points"], 100)

    def test_plain_github_identity(self):
        env = {"GITHUB_REPOSITORY": "gpu-fall/cudalabs-alice", "GITHUB_RUN_ID": "77",
               "GITHUB_ACTOR": "alice", "GITHUB_SERVER_URL": "https://github.com",
               "GITHUB_REF": "refs/heads/main"}
        _, doc = self.graded(fx.make_scores(), env=env)
        self.assertValid(doc)
        self.assertTrue(doc["submission"].startswith("submit/"))
        self.assertEqual(doc["release"], "https://github.com/gpu-fall/cudalabs-alice/actions/runs/77")
        self.assertEqual(doc["owner"], "alice")

    def test_top_level_holds_only_v1_keys_and_a_release_body(self):
        _, doc = self.graded(fx.make_scores())
        self.assertLessEqual(set(doc), set(autograde.TOP_KEYS))
        body = (self.tmp / "out" / "release-body.md").read_text()
        self.assertIn("300 / 300", body)
        self.assertIn("| lab13 | 100 / 100 | yes | this run |", body)

    def test_driver_failure_is_an_error_and_writes_nothing(self):
        rc, doc = self.grade(fx.make_scores(), env={**C50_ENV, "CUDALAB_FAKE_FAIL": "1"})
        self.assertEqual(rc, 1)
        self.assertIsNone(doc)

    def test_run_that_needs_review_is_graded_and_marked(self):
        rc, doc = self.graded(fx.make_scores(), env={**C50_ENV, "CUDALAB_FAKE_RC": "3"})
        self.assertEqual(rc, 0)
        self.assertValid(doc)
        for e in doc["tests"]:
            self.assertIn("NEEDS REVIEW", e["message"])
            self.assertTrue(e["cudalabs"]["needs_review"])

    def test_unknown_lab_is_a_usage_error(self):
        rc, _ = self.grade(fx.make_scores(), "--labs", "lab99")
        self.assertEqual(rc, 2)


class PointsLock(unittest.TestCase):
    """tools/release/lab_points.py: whole points in the lock's shape (tests/grading.json)."""

    def results(self, statuses: list[str] | None = None, gpu: bool = True,
                built: bool = True) -> dict:
        scores = fx.make_scores(statuses={"lab02": statuses} if statuses else None,
                                built={"lab02": built})
        tests = lab_points.merge([[t for t in scores["tests"] if t["lab"] == "lab02"]])
        return lab_points.lab_results(tests, Lock.from_json(fx.make_lock(fx.LAB02_TECHNIQUES)),
                                      gpu, {"lab02": LabScore("lab02", grader_built=built,
                                                              max_points=100)})

    def test_points_by_technique_and_objective(self):
        lab02 = self.results(["passed", "failed", "passed", "passed"])["lab02"]
        self.assertEqual(lab02["points"], {
            "grid": {"points": 50, "earned": 25,
                     "objectives": {"GridCpu": {"points": 50, "earned": 25, "tests": 2}}},
            "matmul": {"points": 50, "earned": 50, "objectives": {
                "MatmulGpu": {"points": 20, "earned": 20, "tests": 1},
                "MatmulPerf": {"points": 30, "earned": 30, "tests": 1}}}})
        # The lock's points, not the scores' weights (25 each), decide.
        self.assertEqual((lab02["max_score"], sum(t["score"] for t in lab02["tests"])),
                         (100, 75))

    def test_without_a_gpu_only_the_objectives_the_lock_runs_on_the_cpu(self):
        lab02 = self.results(gpu=False)["lab02"]
        self.assertEqual(lab02["max_score"], 50)
        self.assertEqual(list(lab02["points"]), ["grid"])

    def test_a_lab_that_does_not_compile_keeps_the_lock_as_its_maximum(self):
        lab02 = self.results(built=False)["lab02"]
        self.assertEqual((lab02["max_score"], lab02["status"]), (100, "error"))
        self.assertEqual({t["status"] for t in lab02["tests"]}, {"error"})
        self.assertEqual(self.results(built=False, gpu=False)["lab02"]["max_score"], 50)

    def test_each_objective_rounds_to_exactly_its_points(self):
        # Rounded over the whole lab, the largest remainders (A's 0.67s) would give A 6 of
        # its 5 points and B 9 of its 10; rounded per objective each keeps its own.
        names = {"A": [f"lab09.AGpu.C{i}" for i in range(3)],
                 "B": [f"lab09.BGpu.C{i}" for i in range(7)]}
        got = lab_points.lab_results({}, Lock.from_json(fx.make_lock({"lab09": {"t": {
            "AGpu": (5, True, names["A"]), "BGpu": (10, True, names["B"])}}})), True)
        objs = got["lab09"]["points"]["t"]["objectives"]
        self.assertEqual((objs["AGpu"]["points"], objs["BGpu"]["points"]), (5, 10))
        self.assertEqual(got["lab09"]["max_score"], 15)


class Validator(unittest.TestCase):
    def good(self) -> dict:
        return {"schema": "classroom50/result/v1", "classroom": "c", "assignment": "a",
                "owner": "o", "submission": "submit/x", "commit": "c", "release": "r",
                "review": "r", "datetime": "2026-12-01T10:00:00Z", "score": 1, "max-score": 2,
                "tests": [{"test-name": "t", "passed": False, "score": 1, "max-score": 2}]}

    def test_rules(self):
        self.assertEqual(autograde.validate_result(self.good()), [])
        cases: dict[str, dict] = {
            "extra top-level key": {"cudalabs": {}},
            "float score": {"score": 1.0},
            "score above the maximum": {"score": 3},
            "submission not a submit tag": {"submission": "main"},
            "wrong schema": {"schema": "classroom50/result/v2"},
            "passed not a bool": {"tests": [{"test-name": "t", "passed": 1, "score": 1,
                                             "max-score": 2}]},
            "test above its maximum": {"tests": [{"test-name": "t", "passed": True, "score": 3,
                                                  "max-score": 2}], "max-score": 3, "score": 3},
            "empty test name": {"tests": [{"test-name": "", "passed": True, "score": 1,
                                           "max-score": 2}]},
            "sum mismatch": {"score": 0},
        }
        for what, change in cases.items():
            with self.subTest(what):
                self.assertNotEqual(autograde.validate_result({**self.good(), **change}), [])


class Classroom50Entrypoint(unittest.TestCase):
    """The file Classroom 50's runner executes: in the student's checkout, with cudalab.json."""

    def setUp(self):
        self.tmp, self.course, self.ref, self.sub = fx.course_case(self, "cudalab-c50-")
        self.bundle = self.tmp / "bundle"
        self.bundle.mkdir()
        (self.bundle / "autograder.py").write_text(AUTOGRADER.read_text())
        self.scores = fx.write_json(self.tmp / "fake-scores.json", fx.make_scores())

    def run_autograder(self, config: dict, **env) -> subprocess.CompletedProcess:
        fx.write_json(self.bundle / "cudalab.json", config)
        full_env = {"PATH": os.environ["PATH"], "RUNNER_TEMP": str(self.tmp / "runner"),
                    "CUDALAB_FAKE_SCORES": str(self.scores), **C50_ENV, **env}
        return subprocess.run([sys.executable, str(self.bundle / "autograder.py")], cwd=self.sub,
                              env=full_env, capture_output=True, text=True, check=False)

    def test_writes_result_json_in_the_checkout(self):
        out = self.run_autograder({"course_dir": str(self.course), "course_ref": self.ref})
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        doc = json.loads((self.sub / "result.json").read_text())
        self.assertEqual(autograde.validate_result(doc), [])
        self.assertEqual(doc["max-score"], 300)
        self.assertTrue((self.sub / "release-body.md").is_file())
        driver = json.loads((self.tmp / "runner" / "cudalab-grade" / "driver.json").read_text())
        self.assertEqual(driver["preset"], "student")

    def test_course_at_another_commit_is_refused(self):
        out = self.run_autograder({"course_dir": str(self.course), "course_ref": "1" * 40})
        self.assertEqual(out.returncode, 1)
        self.assertIn("not at the pinned", out.stdout)
        self.assertFalse((self.sub / "result.json").exists())

    def test_course_cloned_when_the_runner_has_none(self):
        out = self.run_autograder({"course_dir": str(self.tmp / "absent"),
                                   "course_repo": "org/course", "course_ref": self.ref},
                                  GITHUB_SERVER_URL=f"file://{self.tmp}/x/..")
        # file://<tmp>/x/../org/course.git does not exist: a clear setup error, no result
        self.assertEqual(out.returncode, 1)
        self.assertIn("clone", out.stdout)

    def test_bad_config_is_an_error(self):
        out = self.run_autograder({"course_dir": str(self.course), "course_ref": "main"})
        self.assertEqual(out.returncode, 1)
        self.assertIn("40-hex", out.stdout)
        out = self.run_autograder({"course_ref": self.ref, "coures_dir": "x"})
        self.assertIn("unknown key", out.stdout)

    def test_labs_grade_one_lab(self):
        out = self.run_autograder({"course_dir": str(self.course), "course_ref": self.ref,
                                   "labs": "lab02"})
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        doc = json.loads((self.sub / "result.json").read_text())
        self.assertEqual([e["cudalabs"]["lab"] for e in doc["tests"]], ["lab02"])
        self.assertIn("--labs lab02", out.stdout)
        out = self.run_autograder({"course_dir": str(self.course), "course_ref": self.ref,
                                   "labs": "7"})
        self.assertEqual(out.returncode, 1)
        self.assertIn("labNN", out.stdout)

    def test_previous_result_passed_on_when_present(self):
        prev = fx.write_json(self.tmp / "runner" / "cudalab-previous" / "result.json", {})
        autograder = fx.load_file(AUTOGRADER)  # standalone: not a module of the package
        env = {"RUNNER_TEMP": str(self.tmp / "runner")}
        fx.write_json(self.bundle / "cudalab.json", {"course_ref": self.ref})
        cmd = autograder.command(self.course, autograder.load_config(
            self.bundle / "cudalab.json", env), env)
        self.assertEqual(cmd[cmd.index("--previous") + 1], str(prev))
        prev.unlink()
        self.assertNotIn("--previous", autograder.command(self.course, autograder.load_config(
            self.bundle / "cudalab.json", env), env))


if __name__ == "__main__":
    unittest.main()
