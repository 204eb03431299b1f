#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Tests of tools/classroom/create_repos.py on a fixture roster with a fake gh (no network)."""

from __future__ import annotations

import contextlib
import io
import tempfile
import unittest
from pathlib import Path

import toolfixtures as fx

from tools.classroom import create_repos

ROSTER = fx.FIXTURES / "roster.csv"
BASE = ["--roster", str(ROSTER), "--org", "gpu-fall", "--template", "gpu-fall/cudalabs-student"]


def run(argv, gh=None):
    out, err = io.StringIO(), io.StringIO()
    gh = gh or fx.FakeGh()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = create_repos.main(argv, call=gh)
    return rc, out.getvalue(), err.getvalue(), gh


class CreateRepos(unittest.TestCase):
    def test_creates_private_repositories_from_the_template_and_adds_each_student(self):
        rc, _, _, gh = run(BASE)
        self.assertEqual(rc, 0)
        self.assertEqual(gh.calls[0], ["repo", "create", "gpu-fall/cudalabs-alice", "--template",
                                       "gpu-fall/cudalabs-student", "--private"])
        self.assertEqual(gh.calls[1], ["api", "-X", "PUT",
                                       "repos/gpu-fall/cudalabs-alice/collaborators/alice",
                                       "-f", "permission=push"])
        self.assertEqual(len(gh.calls), 6)

    def test_dry_run_prints_the_commands_and_calls_nothing(self):
        rc, out, _, gh = run(BASE + ["--dry-run", "--prefix", "gpu26"])
        self.assertEqual(rc, 0)
        self.assertEqual(gh.calls, [])
        self.assertIn("gh repo create gpu-fall/gpu26-bob --template gpu-fall/cudalabs-student "
                      "--private", out)
        self.assertIn("gh api -X PUT repos/gpu-fall/gpu26-carol/collaborators/carol -f "
                      "permission=push", out)

    def test_existing_repository_is_kept_and_the_student_still_added(self):
        rc, out, _, gh = run(BASE, fx.FakeGh(existing=("gpu-fall/cudalabs-bob",)))
        self.assertEqual(rc, 0)
        self.assertIn("cudalabs-bob exists, kept", out)
        self.assertIn(["api", "-X", "PUT", "repos/gpu-fall/cudalabs-bob/collaborators/bob", "-f",
                       "permission=push"], gh.calls)

    def test_a_failure_is_reported_and_the_others_go_on(self):
        rc, _, err, gh = run(BASE, fx.FakeGh(failing=("cudalabs-alice/collaborators",)))
        self.assertEqual(rc, 1)
        self.assertIn("FAILED alice", err)
        self.assertIn(["repo", "create", "gpu-fall/cudalabs-carol", "--template",
                       "gpu-fall/cudalabs-student", "--private"], gh.calls)

    def test_bad_input_is_one_line_and_exit_2(self):
        with tempfile.TemporaryDirectory() as tmp:
            bad = Path(tmp) / "r.csv"
            bad.write_text("login\nalice\n-bad-\n")
            rc, _, err, gh = run(["--roster", str(bad)] + BASE[2:])
            self.assertEqual((rc, gh.calls), (2, []))
            self.assertIn("r.csv:3: '-bad-' is not a GitHub user name", err)
            bad.write_text("name\nAlice\n")
            self.assertIn("needs a column `login`", run(["--roster", str(bad)] + BASE[2:])[2])
        rc, _, err, _ = run(BASE[:4] + ["--template", "no-slash"])
        self.assertEqual(rc, 2)
        with contextlib.redirect_stderr(io.StringIO()), self.assertRaises(SystemExit):
            create_repos.main(BASE + ["--permission", "admin"], call=fx.FakeGh())


if __name__ == "__main__":
    unittest.main()
