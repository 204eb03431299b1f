#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A test process that forges results changes no other test's verdict, no points, nothing the
CI job reads afterwards, and leaves nothing running (docs/threat-model.md).

The fixture (tests/tools/forgery_project/) is a two-lab project wired with
cmake/CudalabGrading.cmake like the course. Its lab01 grader is built once honest and once
with hostile.cpp: a static initializer that, in every lab01 test process, prints channel
records and a fake CTest verdict line for lab02's tests and its own (and ends its own failing
test's process with status 0 before the test runs), writes forged files into every folder
the old measurement channel and the batch runs used, appends to GITHUB_ENV, GITHUB_PATH,
GITHUB_OUTPUT and GITHUB_STEP_SUMMARY, writes into the source tree (lab01's declared points
too), and starts a daemon that keeps rewriting junit.xml and scores.json. The scoreboard runs ctest itself (--run) in both
builds; lab02's verdicts and the points of both labs must be the same, the job files
untouched and the daemon gone. As root, the same run with every grader under
CUDALAB_TEST_LAUNCHER (another user, as grade_submission.py does) also keeps the source tree
and lab02's grader executable unchanged; without that, grade_submission.py's integrity
check reports the changed executable.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import tempfile
import time
import unittest
from pathlib import Path

import toolfixtures as fx
from tools.release import grade_submission

ROOT = Path(os.environ.get("CUDALAB_SOURCE_DIR", Path(__file__).resolve().parents[2]))

FIXTURE = ROOT / "tests" / "tools" / "forgery_project"
JOB_FILES = ("GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY")


def have_tools() -> str | None:
    for tool in ("cmake", "ctest", "c++"):
        if shutil.which(tool) is None:
            return f"{tool} not found"
    return None


class Forgery(unittest.TestCase):
    tmp: Path

    @classmethod
    def setUpClass(cls):
        why = have_tools()
        if why:
            raise unittest.SkipTest(why)
        cls.tmp = Path(tempfile.mkdtemp(prefix="cudalab-forgery-"))
        cls.tmp.chmod(0o755)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def build(self, name: str, hostile: bool, launcher: list[str] | None = None) -> Path:
        src = self.tmp / f"{name}-src"
        shutil.copytree(FIXTURE, src)
        build = self.tmp / f"{name}-build"
        cmd = ["cmake", "-S", str(src), "-B", str(build), f"-DMODULE_DIR={ROOT / 'cmake'}",
               f"-DHOSTILE={'ON' if hostile else 'OFF'}"]
        if launcher:
            cmd.append("-DCUDALAB_TEST_LAUNCHER=" + ";".join(launcher))
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        subprocess.run(["cmake", "--build", str(build), "-j", "2"], check=True,
                       stdout=subprocess.DEVNULL)
        for p in (src, build):
            for d, _, _ in os.walk(p):
                os.chmod(d, 0o755)
        return build

    def grade(self, build: Path, extra_env: dict | None = None) -> tuple[dict, dict, Path]:
        """Runs the scoreboard with --run and job files set; returns (scores, job files)."""
        jobs = self.tmp / f"job-{build.name}"
        jobs.mkdir()
        env = dict(os.environ)
        for var in JOB_FILES:
            (jobs / var).write_text("")
            env[var] = str(jobs / var)
        pid_file = self.tmp / f"daemon-{build.name}.pid"
        env["FORGERY_PID_FILE"] = str(pid_file)
        env.update(extra_env or {})
        pid_file = Path(env["FORGERY_PID_FILE"])
        subprocess.run(fx.tool_command("tools.scoreboard") + [
            "--build-dir", str(build), "--run", "--quiet", "--no-declared", "--", "-j", "1"],
            env=fx.tool_env(env), check=True, stdout=subprocess.DEVNULL)
        scores = json.loads((build / "scores.json").read_text())
        job = {var: (jobs / var).read_text() for var in JOB_FILES}
        return scores, job, pid_file

    @staticmethod
    def verdicts(scores: dict, lab: str) -> dict:
        return {t["name"]: t["status"] for t in scores["tests"] if t["lab"] == lab}

    @staticmethod
    def points(scores: dict) -> dict:
        return {lab["lab"]: lab["points"] for lab in scores["labs"]}

    @staticmethod
    def objectives(scores: dict, lab: str) -> dict:
        return {name: o["points"] for x in scores["labs"] if x["lab"] == lab
                for group in x["techniques"].values()
                for name, o in group["objectives"].items()}

    def check_daemon_gone(self, pid_file: Path):
        self.assertTrue(pid_file.exists(), "the hostile test did not start its daemon")
        pid = int(pid_file.read_text())
        time.sleep(0.2)
        try:
            os.kill(pid, 0)
            alive = Path(f"/proc/{pid}").exists() and \
                "Z" not in Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            alive = False
        self.assertFalse(alive, f"the daemon {pid} outlived the run")

    def test_forged_records_change_nothing(self):
        honest, _, _ = self.grade(self.build("honest", hostile=False))
        build = self.build("hostile", hostile=True)
        hostile, job, pid_file = self.grade(build)
        # lab02 is judged exactly as in the honest run; so are the points of both labs.
        self.assertEqual(self.verdicts(honest, "lab02"), self.verdicts(hostile, "lab02"))
        self.assertEqual(self.verdicts(hostile, "lab02")["lab02.ModelCpu.Fails"], "failed")
        self.assertEqual(self.points(honest), self.points(hostile))
        # The points are those the labs declare (ModelCpu 60 over two tests, SpeedCpu 40),
        # although the hostile tests rewrote lab01's declaration while they ran.
        self.assertEqual(self.points(honest), {"lab01": 70.0, "lab02": 70.0})
        self.assertEqual(self.objectives(hostile, "lab01"), {"ModelCpu": 60, "SpeedCpu": 40})
        # The forged measurement is not lab02's; the forged records are listed as ignored.
        speeds = [m["value"] for m in hostile["measurements"]
                  if m["test"] == "lab02.SpeedCpu.Measured"]
        self.assertEqual(speeds, [2.5])
        # Its own lab gains nothing either: the forged records, the GoogleTest line and the
        # early exit with status 0 leave lab01.ModelCpu.Fails failed (the judge takes only the
        # authenticated result the grader sends after the test ran).
        self.assertEqual(self.verdicts(honest, "lab01"), self.verdicts(hostile, "lab01"))
        self.assertEqual(self.verdicts(hostile, "lab01")["lab01.ModelCpu.Fails"], "failed")
        # The job's files were out of reach; the daemon is gone and rewrote nothing after.
        self.assertEqual(job, {var: "" for var in JOB_FILES})
        self.check_daemon_gone(pid_file)
        time.sleep(1.5)
        self.assertNotIn("forged", json.loads((build / "scores.json").read_text()))

    def test_integrity_check_reports_a_changed_grader(self):
        build = self.build("tamper", hostile=True)
        before = grade_submission.snapshot(build, set())
        _, _, pid_file = self.grade(build, {"FORGERY_TAMPER": "1"})
        changes = grade_submission.changed(before, grade_submission.snapshot(build, set()))
        self.assertIn("changed: lab02_test", changes)
        self.check_daemon_gone(pid_file)

    @unittest.skipUnless(hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("setpriv"),
                         "needs root and setpriv (tests as another user)")
    def test_other_user_keeps_the_course_and_build_out_of_reach(self):
        nobody = pwd.getpwnam("nobody")
        scratch = self.tmp / "scratch"
        scratch.mkdir()
        os.chown(scratch, nobody.pw_uid, nobody.pw_gid)
        launcher = grade_submission.launcher(nobody, scratch)  # what grading runs tests under
        honest, _, _ = self.grade(self.build("honest-user", hostile=False, launcher=launcher))
        build = self.build("hostile-user", hostile=True, launcher=launcher)
        before = grade_submission.snapshot(build.parent / "hostile-user-src", set())
        grader = (build / "lab02_test").read_bytes()
        hostile, job, pid_file = self.grade(build, {"FORGERY_TAMPER": "1",
                                                    "FORGERY_PID_FILE": str(scratch / "pid")})
        self.assertEqual(self.verdicts(honest, "lab02"), self.verdicts(hostile, "lab02"))
        self.assertEqual(self.points(honest), self.points(hostile))
        self.assertEqual((build / "lab02_test").read_bytes(), grader)
        self.assertEqual(before, grade_submission.snapshot(build.parent / "hostile-user-src",
                                                           set()))
        self.assertEqual(job, {var: "" for var in JOB_FILES})
        self.check_daemon_gone(pid_file)


if __name__ == "__main__":
    unittest.main()
