#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Tests of one-lab pushes: tools/release/reuse.py (the per-lab reuse key and the plan),
autograde.py's use of it (only changed labs are graded, the others carried, a stale result
never reaches a changed file, a submit/* tag grades everything) and
tools/release/previous_result.py (the last result, from releases or artifacts: its choice on
fake API answers, and what it asks `gh api` for, with the fake gh of fake_gh.py on PATH)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

HERE = Path(__file__).resolve().parent
import toolfixtures as fx  # noqa: E402

from tools.release import autograde, github_cli
from tools.release import previous_result
from tools.release import reuse

SGEMM = "labs/lab13_sgemm/sgemm.cu"
HELLO = "labs/lab01_hello_addone/hello_addone.cu"


class Keys(unittest.TestCase):
    def setUp(self):
        self.tmp, self.course, self.ref, self.sub = fx.course_case(self, "cudalab-reuse-")

    def keys(self, ref: str | None = None, gpu: str = fx.H100, preset: str = "student"):
        return reuse.keys(self.sub, self.course, ref or self.ref, gpu, preset)

    def test_one_key_per_lab_stable_when_nothing_changes(self):
        k = self.keys()
        self.assertEqual(sorted(k), ["lab01", "lab02", "lab13"])
        self.assertEqual(k, self.keys())
        self.assertEqual(len(set(k.values())), 3)

    def test_a_lab_file_changes_only_its_lab_key(self):
        before = self.keys()
        (self.sub / SGEMM).write_text("// my sgemm\n")
        after = self.keys()
        self.assertNotEqual(before["lab13"], after["lab13"])
        self.assertEqual({k: v for k, v in before.items() if k != "lab13"},
                         {k: v for k, v in after.items() if k != "lab13"})

    def test_files_the_intake_ignores_change_nothing(self):
        before = self.keys()
        (self.sub / "labs/lab13_sgemm/notes.md").write_text("scratch\n")
        (self.sub / "README.md").write_text("mine\n")
        (self.sub / "labs/lab13_sgemm/CMakeLists.txt").write_text("# edited\n")
        self.assertEqual(before, self.keys())

    def test_course_ref_gpu_model_and_preset_change_every_key(self):
        base = self.keys()
        for other in (self.keys(ref="1" * 40), self.keys(gpu="NVIDIA H200"),
                      self.keys(preset="ci-student")):
            self.assertTrue(all(base[lab] != other[lab] for lab in base))

    def test_missing_empty_and_refused_files_differ(self):
        (self.sub / SGEMM).write_text("")
        empty = self.keys()["lab13"]
        (self.sub / SGEMM).unlink()
        missing = self.keys()["lab13"]
        (self.sub / SGEMM).symlink_to(self.sub / HELLO)
        refused = self.keys()["lab13"]
        self.assertEqual(len({empty, missing, refused}), 3)

    def test_plan_carries_only_labs_whose_key_matches(self):
        k = self.keys()
        prev = fx.make_result({"lab01": (90, 100), "lab13": (100, 100)})
        for e in prev["tests"]:
            e["cudalabs"]["reuse_key"] = k[e["cudalabs"]["lab"]] if e["cudalabs"]["lab"] == \
                "lab01" else "stale"
        to_grade, carried = reuse.plan(k, prev, full=False)
        self.assertEqual((to_grade, sorted(carried)), (["lab02", "lab13"], ["lab01"]))
        self.assertFalse(carried["lab01"]["cudalabs"]["graded_in_this_run"])
        self.assertTrue(carried["lab01"]["message"].startswith("reused: files unchanged since "
                                                               "bbbbbbb"))
        self.assertEqual(reuse.plan(k, prev, full=True), (["lab01", "lab02", "lab13"], {}))
        self.assertEqual(reuse.plan(k, None, full=False)[0], ["lab01", "lab02", "lab13"])


class Autograde(unittest.TestCase):
    """autograde.py with --previous: the fake driver records which labs it was asked for."""

    def setUp(self):
        self.tmp, self.course, self.ref, self.sub = fx.course_case(self, "cudalab-reuse-ag-")
        self.scores = fx.write_json(self.tmp / "scores.json", fx.make_scores())
        self.n = 0

    def grade(self, previous: dict | None = None, *extra: str, env: dict | None = None):
        self.n += 1
        out = self.tmp / f"grade{self.n}"
        result = self.tmp / f"result{self.n}.json"
        argv = ["--submission", str(self.sub), "--course", str(self.course), "--out", str(out),
                "--result", str(result), "--gpu-model", fx.H100, *extra]
        if previous is not None:
            argv += ["--previous", str(fx.write_json(self.tmp / f"prev{self.n}.json", previous))]
        with mock.patch.dict(os.environ, {"CUDALAB_FAKE_SCORES": str(self.scores), **(env or {})},
                             clear=True), contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(autograde.main(argv), 0)
        driver = out / "driver.json"
        asked = json.loads(driver.read_text())["labs"] if driver.is_file() else "not run"
        return json.loads(result.read_text()), asked

    def test_first_push_grades_everything_and_records_keys(self):
        doc, asked = self.grade()
        self.assertIsNone(asked)  # every lab: no --labs
        self.assertTrue(all(len(e["cudalabs"]["reuse_key"]) == 64 for e in doc["tests"]))

    def test_one_lab_push_grades_that_lab_only(self):
        first, _ = self.grade()
        (self.sub / SGEMM).write_text("// faster\n")
        second, asked = self.grade(first)
        self.assertEqual(asked, "lab13")
        self.assertEqual(autograde.validate_result(second), [])
        by = {e["cudalabs"]["lab"]: e for e in second["tests"]}
        self.assertFalse(by["lab01"]["cudalabs"]["graded_in_this_run"])
        self.assertTrue(by["lab13"]["cudalabs"]["graded_in_this_run"])
        self.assertEqual(second["max-score"], 300)
        self.assertNotEqual(by["lab13"]["cudalabs"]["reuse_key"],
                            {e["cudalabs"]["lab"]: e for e in first["tests"]}["lab13"]
                            ["cudalabs"]["reuse_key"])

    def test_nothing_changed_runs_no_driver(self):
        first, _ = self.grade()
        again, asked = self.grade(first)
        self.assertEqual(asked, "not run")
        self.assertEqual(again["score"], first["score"])
        self.assertTrue(all(not e["cudalabs"]["graded_in_this_run"] for e in again["tests"]))

    def test_a_stale_result_cannot_be_carried_into_a_changed_file(self):
        first, _ = self.grade()
        # A forged previous result claims lab13 at full points with the old key...
        (self.sub / SGEMM).write_text("// wrong now\n")
        self.scores.write_text(json.dumps(fx.make_scores(statuses={"lab13": ["failed", "failed"]})))
        doc, asked = self.grade(first)
        lab13 = {e["cudalabs"]["lab"]: e for e in doc["tests"]}["lab13"]
        # ...but the file changed, so lab13 is graded again and its failures count.
        self.assertEqual(asked, "lab13")
        self.assertEqual((lab13["score"], lab13["cudalabs"]["graded_in_this_run"]), (0, True))

    def test_submit_tag_full_and_a_broken_previous_grade_everything(self):
        first, _ = self.grade()
        for previous, extra, env in ((first, ("--full",), None),
                                     (first, (), {"GITHUB_REF": "refs/tags/submit/final"}),
                                     ({"schema": "nonsense"}, (), None)):
            _, asked = self.grade(previous, *extra, env=env)
            self.assertIsNone(asked)

    def test_other_gpu_model_or_course_regrades(self):
        first, _ = self.grade()
        self.assertIsNone(self.grade(first, "--gpu-model", "NVIDIA H200")[1])
        self.assertIsNone(self.grade(first, "--course-ref", "1" * 40)[1])
        self.assertEqual(self.grade(first)[1], "not run")


class PreviousResult(unittest.TestCase):
    def fetch(self, source: str, answers: dict[str, bytes], branch: str = "main"):
        calls: list[tuple[str, str]] = []

        def get(path: str, accept: str) -> bytes:
            calls.append((path, accept))
            for key, value in answers.items():
                if key in path:
                    return value
            raise github_cli.GhError(f"gh api {path}: HTTP 404: Not Found")

        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "prev" / "result.json"
            with contextlib.redirect_stdout(io.StringIO()):
                rc = previous_result.main(["--source", source, "--out", str(out), "--repo",
                                           "o/r", "--branch", branch], get=get)
            data = json.loads(out.read_text()) if out.is_file() else None
        return rc, data, calls

    def test_newest_release_by_the_grading_workflow(self):
        rel = lambda i, who, when: {"id": i, "tag_name": f"submit/{i}", "draft": False,  # noqa: E731
                                    "author": {"login": who}, "published_at": when,
                                    "assets": [{"id": 100 + i, "name": "result.json"}]}
        rc, data, calls = self.fetch("releases", {
            "/releases?": json.dumps([rel(1, "github-actions[bot]", "2026-12-01T00:00:00Z"),
                                      rel(2, "alice", "2026-12-03T00:00:00Z"),
                                      rel(3, "github-actions[bot]", "2026-12-02T00:00:00Z")]).encode(),
            "/releases/assets/103": b'{"from": 3}'})
        self.assertEqual((rc, data), (0, {"from": 3}))
        self.assertEqual(calls[-1], ("repos/o/r/releases/assets/103", "application/octet-stream"))

    def test_newest_artifact_of_the_branch(self):
        art = lambda i, branch, when, expired=False: {  # noqa: E731
            "id": i, "name": "cudalab-grade", "expired": expired, "created_at": when,
            "workflow_run": {"id": i, "head_branch": branch}}
        rc, data, _ = self.fetch("artifacts", {
            "artifacts?name=cudalab-grade": json.dumps({"artifacts": [
                art(1, "main", "2026-12-01T00:00:00Z"), art(2, "other", "2026-12-05T00:00:00Z"),
                art(3, "main", "2026-12-06T00:00:00Z", expired=True)]}).encode(),
            "artifacts/1/zip": fx.zip_bytes({"result.json": '{"from": 1}'})})
        self.assertEqual((rc, data), (0, {"from": 1}))

    def test_none_and_errors_write_nothing(self):
        self.assertEqual(self.fetch("artifacts", {"artifacts?": b'{"artifacts": []}'})[:2], (0, None))
        self.assertEqual(self.fetch("releases", {})[:2], (1, None))


class PreviousResultThroughGh(unittest.TestCase):
    """previous_result.py as the workflow step runs it, with `gh` on PATH (fake_gh.py): the
    downloads it asks gh for, the token kept off gh's command line, and a missing gh or an
    unreadable API leaving every lab graded."""

    def setUp(self):
        self.tmp = fx.temp_dir(self, "cudalab-previous-")
        self.state = self.tmp / "github"
        self.bin = self.tmp / "bin"
        self.bin.mkdir()
        (self.bin / "gh").write_text(f'#!/bin/sh\nexec "{sys.executable}" "{HERE / "fake_gh.py"}" '
                                     '"$@"\n')
        (self.bin / "gh").chmod(0o755)
        self.out = self.tmp / "prev" / "result.json"

    def github(self, releases: list[dict] | None = None,
               artifacts: list[dict] | None = None) -> None:
        fx.write_json(self.state / "state.json", {"repos": {"o/r": {
            "default_branch": "main", "collaborators": [], "activity": [],
            "releases": releases or [], "artifacts": artifacts or []}}, "next_id": 1})

    def step(self, source: str, repo: str = "o/r",
             path: str | None = None) -> subprocess.CompletedProcess[str]:
        env = {"PATH": path if path is not None else f"{self.bin}:{os.environ['PATH']}",
               "FAKE_GH_STATE": str(self.state), "GH_TOKEN": "job-token",
               "GITHUB_REPOSITORY": repo, "GITHUB_REF_NAME": "main"}
        return subprocess.run(fx.tool_command("tools.release.previous_result") + [
                              "--source", source, "--out", str(self.out)], env=fx.tool_env(env),
                              capture_output=True, text=True, timeout=120, check=False)

    def calls(self) -> list[list[str]]:
        log = self.state / "calls.log"
        return [json.loads(line) for line in log.read_text().splitlines()]

    def test_release_asset_as_octet_stream_and_no_token_on_the_command_line(self):
        self.github(releases=[{"id": 1, "tag_name": "submit/1", "draft": False,
                               "author": {"login": "github-actions[bot]"},
                               "published_at": "2026-12-01T00:00:00Z",
                               "assets": [{"id": 7, "name": "result.json"}]}])
        (self.state / "assets").mkdir()
        (self.state / "assets" / "7").write_text('{"from": "release"}')
        run = self.step("releases")
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(json.loads(self.out.read_text()), {"from": "release"})
        calls = self.calls()
        self.assertEqual(calls[-1][-1], "repos/o/r/releases/assets/7")
        self.assertIn("Accept: application/octet-stream", calls[-1])
        self.assertFalse([c for c in calls if any("job-token" in a for a in c)], calls)

    def test_artifact_zip_of_the_branch(self):
        def run_of(i: int, branch: str) -> dict:
            return {"id": i, "name": "cudalab-grade", "expired": False,
                    "created_at": f"2026-12-0{i}T00:00:00Z",
                    "workflow_run": {"id": 90 + i, "head_branch": branch}}

        self.github(artifacts=[run_of(1, "main"), run_of(2, "wip")])
        (self.state / "artifacts").mkdir()
        (self.state / "artifacts" / "1.zip").write_bytes(
            fx.zip_bytes({"result.json": '{"from": "artifact"}'}))
        run = self.step("artifacts")
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(json.loads(self.out.read_text()), {"from": "artifact"})
        self.assertEqual(self.calls()[-1][-1], "repos/o/r/actions/artifacts/1/zip")

    def test_unknown_repository_or_no_gh_writes_nothing(self):
        self.github()
        run = self.step("releases", repo="o/gone")
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertIn("gh api repos/o/gone/releases?per_page=30: HTTP 404", run.stdout)
        empty = self.tmp / "empty"
        empty.mkdir()
        run = self.step("artifacts", path=str(empty))
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertIn("cannot run the GitHub CLI `gh`", run.stdout)
        self.assertFalse(self.out.exists())


if __name__ == "__main__":
    unittest.main()
