#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The regrade (tools/release/regrade.py) and the grading driver's guards
(tools/release/grade_submission.py), without a GPU or a network: the commit graded is the
last one pushed at or before the deadline by GitHub's push times, whatever the commit dates
say; the tamper check lists non-lab files that differ from the template by content (also for
a repository whose history is unrelated to the template's); the sandboxes drop the network,
make the root read-only and limit CPUs, memory and processes; the job's command files are put
back when a test appended to them."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import types
import unittest
from pathlib import Path
from unittest import mock

ROOT = Path(os.environ.get("CUDALAB_SOURCE_DIR", Path(__file__).resolve().parents[2]))
import toolfixtures as fx
from tools.release import grade_submission  # noqa: E402
from tools.release import github_cli, regrade

UTC = dt.timezone.utc


def git(cwd: Path, *args: str, date: str | None = None) -> str:
    env = dict(os.environ, GIT_AUTHOR_NAME="s", GIT_AUTHOR_EMAIL="s@example.com",
               GIT_COMMITTER_NAME="s", GIT_COMMITTER_EMAIL="s@example.com")
    if date:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, text=True,
                          stdout=subprocess.PIPE).stdout.strip()


class Regrade(unittest.TestCase):
    def setUp(self):
        self.tmp = fx.temp_dir(self, "cudalab-regrade-test-")

    def test_last_push_before_the_deadline_counts_not_commit_dates(self):
        repo = self.tmp / "student"
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        shas = []
        # The second commit claims an early date but was pushed after the deadline.
        for i, date in enumerate(("2026-12-01T10:00:00Z", "2026-11-01T10:00:00Z")):
            (repo / "f.txt").write_text(str(i))
            git(repo, "add", "f.txt")
            git(repo, "commit", "-q", "-m", str(i), date=date)
            shas.append(git(repo, "rev-parse", "HEAD"))
        activity = [
            {"activity_type": "push", "after": shas[0], "ref": "refs/heads/main",
             "timestamp": "2026-12-01T10:05:00Z"},
            {"activity_type": "push", "after": shas[1], "ref": "refs/heads/main",
             "timestamp": "2026-12-15T08:00:00Z"},
        ]

        def fake_gh(args):
            self.assertIn("repos/org/cudalabs-s/activity?per_page=100&ref=refs/heads/main",
                          args)
            return "\n".join(json.dumps(a) for a in activity).encode()

        with mock.patch.object(github_cli, "call_gh", fake_gh):
            sha, pushed, how = regrade.commit_at_deadline(
                "org/cudalabs-s", repo, "main",
                dt.datetime(2026, 12, 14, 23, 59, tzinfo=UTC))
        self.assertEqual(sha, shas[0])
        self.assertEqual(pushed, "2026-12-01T10:05:00Z")
        self.assertIn("before the deadline", how)
        with self.assertRaises(regrade.RegradeError):
            regrade.commit_at_deadline(None, repo, "main",
                                       dt.datetime(2026, 12, 14, tzinfo=UTC))

    def test_whole_points_come_from_the_course_lock(self):
        # The course's tests/grading.json gives the points (lab02: grid 50 on the CPU, matmul
        # 50), as result.json counts them; the scores' own weights (25 each) do not.
        course = self.tmp / "course"
        (course / "tests").mkdir(parents=True)
        fx.write_json(course / "tests" / "grading.json", fx.make_lock(fx.LAB02_TECHNIQUES))
        scores = fx.make_scores(statuses={"lab02": ["passed", "passed", "failed", "passed"]})
        got = regrade.whole_points(scores, course, "student")
        self.assertEqual(got["lab02"], {"score": 80, "max-score": 100})
        self.assertEqual(regrade.whole_points(scores, course, "ci-student")["lab02"],
                         {"score": 50, "max-score": 50})

    def test_tamper_check_compares_by_content(self):
        template = self.tmp / "template"
        sub = self.tmp / "submission"
        lab = "labs/lab05_bank_conflict"
        for tree in (template, sub):
            (tree / "labs").mkdir(parents=True)
            shutil.copytree(ROOT / lab, tree / lab)
            (tree / "tests").mkdir()
            (tree / "tests" / "grader.cu").write_text("// the grader\n")
        (sub / lab / "conflict_degree.cpp").write_text("// the student's own work\n")
        (sub / "tests" / "grader.cu").write_text("// edited to pass\n")
        (sub / lab / "CMakeLists.txt").write_text("# edited\n")
        changed = regrade.tamper_report(sub, template)
        self.assertIn("tests/grader.cu", changed)
        self.assertIn(f"{lab}/CMakeLists.txt", changed)
        self.assertNotIn(f"{lab}/conflict_degree.cpp", changed)

    def test_sandboxes_isolate(self):
        args = types.SimpleNamespace(preset="student", cpus=8, memory="32g", pids=4096,
                                     gpu="1", image="cudalab-runner", labs="")
        course, sub, out = Path("/c"), Path("/s"), Path("/o")
        docker = regrade.sandbox_command("docker", args, course, sub, out)
        for flag in ("--network", "none", "--read-only", "--pids-limit", "4096", "--cpus",
                     "--memory", "32g", "--gpus", "device=1", "no-new-privileges",
                     "/c:/course:ro", "/s:/submission:ro"):
            self.assertIn(flag, docker)
        self.assertEqual(docker[docker.index("--cap-drop") + 1], "ALL")
        self.assertNotIn("SYS_ADMIN", docker)
        unshare = regrade.sandbox_command("unshare", args, course, sub, out)
        self.assertEqual(unshare[:2], ["unshare", "--net"])
        script = unshare[-1]
        self.assertIn("mount -o remount,bind,ro /", script)
        self.assertIn("prlimit --nproc=4096", script)
        # The course copy's driver, the course copy alone on the module search path.
        self.assertIn("'python3' '-P' '-m' 'tools.release.grade_submission'", script)
        self.assertIn("PYTHONPATH='/c'", script)
        self.assertIn("PYTHONPATH=/course", docker)
        image = docker.index(args.image)
        self.assertEqual(docker[image + 1:image + 4], ["-P", "-m", "tools.release.grade_submission"])

    def test_grading_pins_the_scale_and_draws_a_fresh_seed(self):
        env = {"CUDALAB_SPEEDUP_SCALE": "0.25", "CUDALAB_SEED": "42", "PATH": "/bin"}
        grade_submission.pin_environment(env)
        self.assertEqual(env, {"CUDALAB_SPEEDUP_SCALE": "1", "PATH": "/bin"})

    def test_job_files_are_restored(self):
        env_file = self.tmp / "github_env"
        env_file.write_text("A=1\n")
        old = os.environ.get("GITHUB_ENV")
        os.environ["GITHUB_ENV"] = str(env_file)
        try:
            saved = grade_submission.job_files()
            with open(env_file, "a") as f:
                f.write("NODE_OPTIONS=--require /tmp/evil.js\n")
            self.assertEqual(grade_submission.restore_job_files(saved), [str(env_file)])
            self.assertEqual(env_file.read_text(), "A=1\n")
        finally:
            if old is None:
                del os.environ["GITHUB_ENV"]
            else:
                os.environ["GITHUB_ENV"] = old


if __name__ == "__main__":
    unittest.main()
