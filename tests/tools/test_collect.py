#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Tests of tools/classroom/collect.py: the latest graded result before the deadline by push time
(repository activity), from Classroom 50 releases or workflow artifacts; fake gh, fixtures."""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
import unittest
from pathlib import Path

import toolfixtures as fx

from tools.classroom import collect

DEADLINE = "2026-12-14T23:59:00Z"
B = "b" * 40


def releases_gh() -> fx.FakeGh:
    return fx.FakeGh({
        "cudalabs-alice/activity": fx.load_fixture("activity_alice.json"),
        "cudalabs-alice/releases?": fx.load_fixture("releases_alice.json"),
        "releases/assets/101": json.dumps(fx.make_result({"lab01": (50, 100)}, "a" * 40)).encode(),
        "releases/assets/102": json.dumps(fx.make_result({"lab01": (90, 100)}, B)).encode(),
        "releases/assets/103": json.dumps(fx.make_result({"lab01": (100, 100)}, "e" * 40)).encode(),
        "releases/assets/104": json.dumps(fx.make_result({"lab01": (100, 100)}, "c" * 40)).encode(),
        "cudalabs-bob/activity": [], "cudalabs-bob/releases?": [],
        "cudalabs-carol/activity": [], "cudalabs-carol/releases?": [],
    })


class Collect(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="cudalab-collect-"))
        self.addCleanup(lambda: __import__("shutil").rmtree(self.tmp, ignore_errors=True))

    def run_collect(self, source: str, gh: fx.FakeGh, deadline: str = DEADLINE, *extra: str):
        out, err = io.StringIO(), io.StringIO()
        argv = ["--roster", str(fx.FIXTURES / "roster.csv"), "--org", "gpu-fall", "--prefix",
                "cudalabs", "--deadline", deadline, "--source", source, "--out", str(self.tmp),
                *extra]
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = collect.main(argv, call=gh)
        doc = json.loads((self.tmp / "collected.json").read_text()) if rc in (0, 1) else None
        return rc, doc, out.getvalue() + err.getvalue()

    def test_latest_push_before_the_deadline_wins_not_the_release_time(self):
        gh = releases_gh()
        rc, doc, log = self.run_collect("releases", gh)
        self.assertEqual(rc, 0)
        alice = doc["students"][0]
        # b was pushed at 23:58 (graded and released at 00:03, after the deadline): it counts;
        # c was pushed at 00:10, too late; the release by alice herself is ignored.
        self.assertEqual(alice["commit"], B)
        self.assertEqual(alice["push_time"], "2026-12-14T23:58:00Z")
        self.assertEqual(alice["push_time_source"], "activity")
        self.assertIs(alice["late"], False)
        self.assertEqual(alice["result"]["score"], 90)
        self.assertIn("not made by the grading workflow (author alice)", log)
        self.assertIn(["api", "-H", "Accept: application/octet-stream",
                       "repos/gpu-fall/cudalabs-alice/releases/assets/102"], gh.calls)
        self.assertIn(["api", "--paginate", "-H", "Accept: application/vnd.github+json",
                       "repos/gpu-fall/cudalabs-alice/activity?per_page=100&ref=refs/heads/main",
                       "--jq", ".[] | @json"], gh.calls)

    def test_commit_dates_do_not_matter_only_push_times(self):
        # An earlier deadline: only a (pushed Dec 10) was on time.
        _, doc, _ = self.run_collect("releases", releases_gh(), "2026-12-12T00:00:00Z")
        self.assertEqual(doc["students"][0]["commit"], "a" * 40)
        self.assertEqual(doc["students"][0]["result"]["score"], 50)

    def test_nothing_on_time_takes_the_latest_and_marks_it_late(self):
        _, doc, _ = self.run_collect("releases", releases_gh(), "2026-12-01T00:00:00Z")
        alice = doc["students"][0]
        self.assertEqual((alice["commit"], alice["late"]), ("c" * 40, True))

    def test_students_without_results_are_listed(self):
        _, doc, log = self.run_collect("releases", releases_gh())
        carol = next(s for s in doc["students"] if s["student"] == "carol")
        self.assertIsNone(carol["result"])
        self.assertIn("gpu-fall/cudalabs-carol: no graded result", log)

    def test_workflow_artifacts_of_the_plain_github_path(self):
        art = lambda i, sha, when, expired=False: {  # noqa: E731
            "id": i, "name": "cudalab-grade", "expired": expired, "created_at": when,
            "workflow_run": {"id": 500 + i, "head_sha": sha, "head_branch": "main"}}
        gh = fx.FakeGh({
            "cudalabs-bob/activity": [
                {"after": "1" * 40, "timestamp": "2026-12-13T09:00:00Z", "activity_type": "push"},
                {"after": "2" * 40, "timestamp": "2026-12-14T23:00:00Z", "activity_type": "force_push"}],
            "cudalabs-bob/actions/artifacts?": [
                art(1, "1" * 40, "2026-12-13T09:05:00Z"), art(2, "2" * 40, "2026-12-14T23:05:00Z"),
                art(3, "3" * 40, "2026-12-14T22:00:00Z", expired=True)],
            "artifacts/1/zip": fx.zip_bytes({"result.json": json.dumps(fx.make_result({"lab13": (40, 100)}, "1" * 40))}),
            "artifacts/2/zip": fx.zip_bytes({"result.json": json.dumps(fx.make_result({"lab13": (100, 100)}, "2" * 40)),
                                              "scores.json": "{}"}),
            "cudalabs-alice/": [], "cudalabs-carol/": []})
        rc, doc, _ = self.run_collect("artifacts", gh)
        self.assertEqual(rc, 0)
        bob = next(s for s in doc["students"] if s["student"] == "bob")
        self.assertEqual((bob["commit"], bob["late"], bob["result"]["score"]), ("2" * 40, False, 100))
        self.assertEqual(bob["result_from"], "run 502")

    def test_push_time_unknown_falls_back_to_the_result_time_and_says_so(self):
        gh = fx.FakeGh({
            "cudalabs-bob/actions/artifacts?": [{"id": 7, "name": "cudalab-grade", "expired": False,
                                                 "created_at": "2026-12-15T01:00:00Z",
                                                 "workflow_run": {"id": 9, "head_sha": "7" * 40}}],
            "artifacts/7/zip": fx.zip_bytes({"result.json": json.dumps(fx.make_result({"lab01": (1, 100)}))}),
            "cudalabs-alice/": [], "cudalabs-carol/": [], "cudalabs-bob/activity": []})
        _, doc, log = self.run_collect("artifacts", gh)
        bob = next(s for s in doc["students"] if s["student"] == "bob")
        # Only the default branch counts: a commit no push left on it is not collected.
        self.assertIsNone(bob["result"])
        self.assertIn("was not pushed to main; ignored", log)
        _, doc, _ = self.run_collect("artifacts", gh, DEADLINE, "--all-branches")
        bob = next(s for s in doc["students"] if s["student"] == "bob")
        self.assertEqual(bob["push_time_source"], "result created (push time unknown)")
        self.assertIs(bob["late"], True)

    def test_unreadable_repository_is_a_failure_the_rest_is_written(self):
        gh = releases_gh()
        gh.failing = ("cudalabs-bob",)
        rc, doc, log = self.run_collect("releases", gh)
        self.assertEqual(rc, 1)
        self.assertIn("FAILED bob", log)
        self.assertEqual(doc["students"][0]["result"]["score"], 90)

    def test_no_prefix_is_a_usage_error_and_a_404_names_the_repository(self):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = collect.main(["--roster", str(fx.FIXTURES / "roster.csv"), "--org", "gpu-fall",
                               "--deadline", DEADLINE, "--source", "releases", "--out",
                               str(self.tmp)], call=releases_gh())
        self.assertEqual(rc, 2)
        self.assertIn("--classroom C --assignment A", err.getvalue())
        gh = releases_gh()
        gh.failing = ("cudalabs-bob",)
        _, _, log = self.run_collect("releases", gh)
        self.assertIn("gpu-fall/cudalabs-bob: repository not found (HTTP 404)", log)
        self.assertIn("<classroom>-<assignment>-<login>", log)

    def test_bad_deadline_is_a_usage_error(self):
        rc, _, log = self.run_collect("releases", releases_gh(), "2026-12-14 23:59")
        self.assertEqual(rc, 2)
        self.assertIn("no time zone", log)


if __name__ == "__main__":
    unittest.main()
