#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A class rehearsal, on the CPU: a fake GitHub (tests/tools/fake_gh.py as `gh`), Classroom
50's grade job (tests/tools/classroom50_flow.py: its stamping, schema checks, release
assets and releases, as its runner does them), the runner image's course (the Dockerfile's
own step, run on a local repository), and a class of five students in four repositories:

  alice  on time; a later push to a side branch grades 0; her workflow publishes a forged
         lab13 result (the regrade must win)
  bob    lab13 late by 1 day 2 hours (late policy: 10 % per started day, at most 30 %)
  carol  accepted but never pushed (missing)
  red    a team (dave, erin; Classroom 50 mode "team"), lab13 after the deadline but inside
         erin's one-day extension

through create (create_repos.py) -> push -> grade (autograder.py -> autograde.py -> a fake
grading driver that scores the lab files) -> collect (collect.py) -> regrade (regrade.py, the
sandbox replaced by a direct call of the fake driver) -> gradebook (gradebook.py, Canvas and
Moodle exports) -> charts (charts.py). Each test names the defect of issue 41 it guards.
"""

from __future__ import annotations

import contextlib
import csv
import datetime as dt
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

HERE = Path(__file__).resolve().parent
import classroom50_flow as c50  # noqa: E402
import toolfixtures as fx

ROOT = fx.ROOT
UTC = dt.timezone.utc
ORG, CLASSROOM, ASSIGNMENT = "gpu-fall", "gpu-fall", "cudalabs"
PREFIX = f"{CLASSROOM}-{ASSIGNMENT}"
TEMPLATE = f"{ORG}/cudalabs-student"
RELEASE_ASSETS = ["cudalab-feedback/scores.json", "cudalab-feedback/junit.xml",
                  "cudalab-feedback/feedback.md"]
ROSTER = ("login,name,id,email,team\n"
          "alice,Alice Archer,S001,alice@uni.example,\n"
          "bob,Bob Baker,S002,bob@uni.example,\n"
          "carol,Carol Chen,S003,carol@uni.example,\n"
          "dave,Dave Diaz,S004,dave@uni.example,red\n"
          "erin,Erin Eze,S005,erin@uni.example,red\n")
DEADLINES = ("lab,deadline\nlab01,2026-12-01T23:59:00Z\nlab02,2026-12-08T23:59:00Z\n"
             "*,2026-12-15T23:59:00Z\n")
EXTENSIONS = "login,lab,extra\nerin,lab13,1d\n"
FAIL_MESSAGE = ("3 of 4225 elements wrong in a 65x65 result; first at index 64 (row 0, col 64): "
                "expected 12, got nan")

# The grading driver of the rehearsal: scores each lab from its file (SOLVED: every test
# passes; PARTIAL: the first passes, the others fail with FAIL_MESSAGE; else every test fails).
DRIVER = r'''#!/usr/bin/env python3
"""Fake grading driver of the class rehearsal (tests/tools/test_class_rehearsal.py)."""
import argparse, json, os, sys
from pathlib import Path
import importlib.util
# Run by autograde as the course's tools.release.grade_submission, with the course copy alone
# on the module search path: the fixtures are loaded from their file.
spec = importlib.util.spec_from_file_location(
    "toolfixtures", Path(os.environ["CUDALAB_FIXTURES_DIR"]) / "toolfixtures.py")
fx = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fx)
ap = argparse.ArgumentParser()
for a in ("--submission", "--course", "--out", "--preset", "--labs", "--test-user", "--jobs"):
    ap.add_argument(a)
ap.add_argument("--step-summary", action="store_true")
a = ap.parse_args()
out = Path(a.out); out.mkdir(parents=True, exist_ok=True)
counts = {"lab01": 7, "lab02": 4, "lab13": 2}
statuses, messages = {}, {}
for lab, topic in fx.TOPICS.items():
    f = Path(a.submission) / "labs" / f"{lab}_{topic}" / f"{topic}.cu"
    text = f.read_text() if f.is_file() else ""
    n = counts[lab]
    if "SOLVED" in text:
        statuses[lab] = ["passed"] * n
    elif "PARTIAL" in text:
        statuses[lab] = ["passed"] + ["failed"] * (n - 1)
    else:
        statuses[lab] = ["failed"] * n
scores = fx.make_scores(statuses=statuses)
for t in scores["tests"]:
    if t["status"] == "failed":
        t["message"] = os.environ["REHEARSAL_FAIL_MESSAGE"] if "PARTIAL" in (
            Path(a.submission) / "labs" / f"{t['lab']}_{fx.TOPICS[t['lab']]}" /
            f"{fx.TOPICS[t['lab']]}.cu").read_text() else "stub: the TODO region is empty"
wanted = set(a.labs.split(",")) if a.labs else set(counts)
for lab in scores["labs"]:
    lab["graded_in_this_run"] = lab["lab"] in wanted
for t in scores["tests"]:
    if t["lab"] not in wanted:
        t["status"] = "not run"
scores["totals"] = {"points": sum(t["points"] for t in scores["tests"]),
                    "max_points": 100.0 * len(scores["labs"])}
scores["intake"] = {"needs_review": []}
(out / "scores.json").write_text(json.dumps(scores))
(out / "junit.xml").write_text("<testsuites>" + "".join(
    f'<testcase name="{t["name"]}">' + (f'<failure message="{t["message"]}"/>'
                                        if t["status"] == "failed" else "") + "</testcase>"
    for t in scores["tests"]) + "</testsuites>")
(out / "intake.json").write_text("{}")
(out / "scores.md").write_text("## cudalabs scoreboard\n")
if a.step_summary and os.environ.get("GITHUB_STEP_SUMMARY"):
    with open(os.environ["GITHUB_STEP_SUMMARY"], "a") as f:
        f.write("## cudalabs scoreboard\n")
with open(os.environ["REHEARSAL_DRIVER_LOG"], "a") as f:
    f.write(json.dumps({"labs": sorted(wanted), "submission": a.submission}) + "\n")
'''


def t(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def git(*args: str, cwd: Path, when: dt.datetime | None = None) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "s", "GIT_AUTHOR_EMAIL": "s@invalid",
           "GIT_COMMITTER_NAME": "s", "GIT_COMMITTER_EMAIL": "s@invalid"}
    if when is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = when.isoformat()
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True,
                          text=True).stdout.strip()


def dockerfile_course_step() -> str:
    """The shell of the runner image's step that bakes the course into /opt/cudalabs-course."""
    text = (ROOT / "tools" / "runner" / "Dockerfile").read_text()
    m = re.search(r"RUN --mount=type=secret,id=course_token,required=false \\\n(.*?)\n\n", text,
                  re.S)
    if m is None:
        raise AssertionError("tools/runner/Dockerfile has no step that bakes the course release "
                             "into the image (ARG COURSE_REPO, COURSE_REF)")
    return m.group(1).replace("\\\n", "\n")


class Rehearsal(unittest.TestCase):
    """The whole class, run once; each test checks one part of it."""

    # What setUpClass builds and runs, kept for the checks below.
    tmp: Path
    state: Path
    env: dict[str, str]
    course_ref: str
    baked: Path
    bake_log: str
    bundle: Path
    jobs: dict[str, list[dict]]
    created: subprocess.CompletedProcess[str]
    out: Path
    no_prefix: subprocess.CompletedProcess[str]
    wrong_prefix: subprocess.CompletedProcess[str]
    collected_run: subprocess.CompletedProcess[str]
    collected: dict
    regraded: Path
    regrade_rc: int
    regrade_log: str
    book_run: subprocess.CompletedProcess[str]
    book: dict[str, dict[str, str]]
    published: dict[str, dict[str, str]]
    chart_dir: Path
    chart_run: subprocess.CompletedProcess[str]
    consent_dir: Path

    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="cudalab-rehearsal-"))
        cls.state = cls.tmp / "github"
        cls.state.mkdir()
        bin_dir = cls.tmp / "bin"
        bin_dir.mkdir()
        (bin_dir / "gh").write_text(f'#!/bin/sh\nexec "{sys.executable}" "{HERE / "fake_gh.py"}" '
                                    '"$@"\n')
        (bin_dir / "gh").chmod(0o755)
        cls.env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}",
                   "FAKE_GH_STATE": str(cls.state), "CUDALAB_FIXTURES_DIR": str(HERE),
                   "REHEARSAL_FAIL_MESSAGE": FAIL_MESSAGE,
                   "REHEARSAL_DRIVER_LOG": str(cls.tmp / "driver.log")}
        for k in ("GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_ACTIONS"):
            cls.env.pop(k, None)
        (cls.tmp / "roster.csv").write_text(ROSTER)
        (cls.tmp / "deadlines.csv").write_text(DEADLINES)
        (cls.tmp / "extensions.csv").write_text(EXTENSIONS)
        cls.make_course()
        cls.run_class()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    # -- the course: release, template repository, runner image --------------------------
    @classmethod
    def make_course(cls):
        course, _ = fx.make_course(cls.tmp)
        (course / "tools" / "release" / "grade_submission.py").write_text(DRIVER)
        (course / "tools" / "release" / "classroom50").mkdir()
        shutil.copy(ROOT / "tools" / "release" / "classroom50" / "autograder.py",
                    course / "tools" / "release" / "classroom50" / "autograder.py")
        git("add", "-A", cwd=course)
        git("commit", "-q", "--amend", "-m", "course release", cwd=course)
        cls.course_ref = git("rev-parse", "HEAD", cwd=course)
        template = cls.state / "git" / f"{TEMPLATE}.git"
        template.parent.mkdir(parents=True)
        git("clone", "-q", "--bare", str(course), str(template), cwd=cls.tmp)
        (cls.state / "state.json").write_text(json.dumps({"repos": {TEMPLATE: {
            "default_branch": "main", "collaborators": [], "activity": [], "releases": [],
            "artifacts": []}}, "next_id": 100}))
        # The runner image's course, baked by the Dockerfile's own step from the template.
        cls.baked = cls.tmp / "image" / "opt" / "cudalabs-course"
        script = dockerfile_course_step().replace("/opt/cudalabs-course", str(cls.baked)) \
            .replace("/run/secrets/course_token", str(cls.tmp / "no-token")) \
            .replace("git config --system", "true")
        bake = subprocess.run(["sh", "-c", script], env={
            **cls.env, "COURSE_REPO": TEMPLATE, "COURSE_REF": cls.course_ref,
            "COURSE_SERVER": f"file://{cls.state / 'git'}"}, capture_output=True, text=True)
        cls.bake_log = bake.stdout + bake.stderr
        # The Classroom 50 bundle: the course's autograder.py and cudalab.json.
        cls.bundle = cls.tmp / "bundle" / ASSIGNMENT
        cls.bundle.mkdir(parents=True)
        shutil.copy(cls.baked / "tools/release/classroom50/autograder.py"
                    if cls.baked.is_dir() else
                    ROOT / "tools/release/classroom50/autograder.py", cls.bundle)
        fx.write_json(cls.bundle / "cudalab.json",
                      {"course_dir": str(cls.baked), "course_ref": cls.course_ref})

    # -- the class -------------------------------------------------------------------------
    @classmethod
    def tool(cls, module: str, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(fx.tool_command(module) + list(args), env=fx.tool_env(cls.env),
                              capture_output=True, text=True, check=False)

    @classmethod
    def push(cls, name: str, files: dict[str, str], when: dt.datetime, branch: str = "main",
             mode: str = "individual") -> dict:
        """One push of a repository's lab files, and Classroom 50's grade job for it."""
        repo = f"{ORG}/{PREFIX}-{name}"
        work = cls.tmp / "work" / name
        if not work.is_dir():
            git("clone", "-q", str(cls.state / "git" / f"{repo}.git"), str(work), cwd=cls.tmp)
        git("checkout", "-q", "-B", branch, cwd=work)
        for lab, text in files.items():
            topic = fx.TOPICS[lab]
            (work / "labs" / f"{lab}_{topic}" / f"{topic}.cu").write_text(f"// {text}\n")
        git("commit", "-q", "-a", "--allow-empty", "-m", f"work {when}", cwd=work, when=when)
        sha = git("rev-parse", "HEAD", cwd=work)
        git("push", "-q", "origin", f"HEAD:refs/heads/{branch}", cwd=work)
        c50.record_push(cls.state, repo, sha, branch, when)
        checkout = cls.tmp / "runs" / f"{name}-{sha[:7]}"
        git("clone", "-q", str(cls.state / "git" / f"{repo}.git"), str(checkout), cwd=cls.tmp)
        git("checkout", "-q", sha, cwd=checkout)
        job = c50.grade_job(checkout, cls.bundle, classroom=CLASSROOM, assignment=ASSIGNMENT,
                            repository=repo, sha=sha, pushed=when, mode=mode, actor=name,
                            release_assets=RELEASE_ASSETS,
                            runner_temp=cls.tmp / "runner" / f"{name}-{sha[:7]}", env=cls.env)
        if job["status"] != "error":
            c50.publish(cls.state, repo, job, when + dt.timedelta(minutes=5))
        cls.jobs.setdefault(name, []).append({**job, "sha": sha, "branch": branch})
        return job

    @classmethod
    def run_class(cls):
        cls.jobs = {}
        cls.created = cls.tool("tools.classroom.create_repos", "--roster",
                               str(cls.tmp / "roster.csv"), "--org", ORG, "--template", TEMPLATE,
                               "--prefix", PREFIX)
        S, P, X = "SOLVED", "PARTIAL", "stub"
        cls.push("alice", {"lab01": S, "lab02": S, "lab13": P}, t("2026-11-30T10:00:00Z"))
        cls.push("alice", {"lab01": X, "lab02": X, "lab13": X}, t("2026-12-10T10:00:00Z"),
                 branch="wip")
        cls.push("bob", {"lab01": S}, t("2026-12-01T20:00:00Z"))
        cls.push("bob", {"lab01": S, "lab13": S}, t("2026-12-17T02:00:00Z"))
        cls.push("red", {"lab01": S}, t("2026-11-29T09:00:00Z"), mode="team")
        cls.push("red", {"lab01": S, "lab02": S}, t("2026-12-08T12:00:00Z"), mode="team")
        cls.push("red", {"lab01": S, "lab02": S, "lab13": S}, t("2026-12-16T11:59:00Z"),
                 mode="team")
        cls.forge_alice()
        # collect, with the prefix Classroom 50 uses
        cls.out = cls.tmp / "results"
        common = ["--roster", str(cls.tmp / "roster.csv"), "--org", ORG, "--deadlines",
                  str(cls.tmp / "deadlines.csv"), "--extensions", str(cls.tmp / "extensions.csv"),
                  "--source", "releases"]
        cls.no_prefix = cls.tool("tools.classroom.collect", *common, "--out", str(cls.tmp / "x"))
        cls.wrong_prefix = cls.tool("tools.classroom.collect", *common, "--prefix", "cudalabs",
                                    "--out", str(cls.tmp / "y"))
        cls.collected_run = cls.tool("tools.classroom.collect", *common, "--classroom",
                                     CLASSROOM, "--assignment", ASSIGNMENT, "--out", str(cls.out))
        cls.collected = json.loads((cls.out / "collected.json").read_text()) \
            if (cls.out / "collected.json").is_file() else {"students": []}
        cls.regrade()
        cls.gradebooks()
        cls.charts()

    @classmethod
    def forge_alice(cls):
        """alice's edited workflow publishes a result.json claiming lab13 in full."""
        state = json.loads((cls.state / "state.json").read_text())
        rel = next(r for r in state["repos"][f"{ORG}/{PREFIX}-alice"]["releases"]
                   if r["tag_name"] == cls.jobs["alice"][0]["tag"])
        asset = cls.state / "assets" / str(rel["assets"][0]["id"])
        doc = json.loads(asset.read_text())
        for e in doc["tests"]:
            if e["cudalabs"]["lab"] == "lab13":
                e["score"], e["passed"] = e["max-score"], True
        doc["score"] = sum(e["score"] for e in doc["tests"])
        asset.write_text(json.dumps(doc))

    @classmethod
    def regrade(cls):
        """regrade.py as the instructor runs it; the sandbox replaced by the fake driver."""
        from tools.release import regrade  # noqa: PLC0415

        def direct(kind, args, course, sub, out, labs=None):
            cmd = ["env", f"PYTHONPATH={course}", sys.executable, "-P", "-m",
                   "tools.release.grade_submission", "--course", str(course), "--submission",
                   str(sub), "--out", str(out / "grade"), "--preset", args.preset]
            labs = args.labs if labs is None else labs
            return cmd + (["--labs", labs] if labs else [])

        cls.regraded = cls.tmp / "regrade"
        log = io.StringIO()
        with mock.patch.dict(os.environ, cls.env, clear=True), \
                mock.patch.object(regrade, "pick_sandbox", lambda choice: "docker"), \
                mock.patch.object(regrade, "sandbox_command", direct), \
                contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
            cls.regrade_rc = regrade.main([
                "--class", str(cls.tmp / "roster.csv"), "--org", ORG, "--classroom", CLASSROOM,
                "--assignment", ASSIGNMENT, "--course", str(cls.baked), "--deadlines",
                str(cls.tmp / "deadlines.csv"), "--extensions", str(cls.tmp / "extensions.csv"),
                "--out", str(cls.regraded)])
        cls.regrade_log = log.getvalue()

    @classmethod
    def gradebooks(cls):
        cls.book_run = cls.tool(
            "tools.classroom.gradebook", "--collected", str(cls.out / "collected.json"),
            "--roster", str(cls.tmp / "roster.csv"), "--regrade", str(cls.regraded),
            "--late-penalty", "10", "--late-cap", "30", "-o", str(cls.tmp / "gradebook.csv"),
            "--canvas", str(cls.tmp / "canvas.csv"), "--moodle", str(cls.tmp / "moodle.csv"))
        cls.book = {r["login"]: r for r in csv.DictReader(io.StringIO(
            (cls.tmp / "gradebook.csv").read_text()))} if cls.book_run.returncode == 0 else {}
        published = cls.tool(
            "tools.classroom.gradebook", "--collected", str(cls.out / "collected.json"),
            "--roster", str(cls.tmp / "roster.csv"), "--late-penalty", "10", "--late-cap", "30")
        cls.published = {r["login"]: r for r in csv.DictReader(io.StringIO(published.stdout))}

    @classmethod
    def charts(cls):
        cls.chart_dir = cls.tmp / "charts"
        cls.chart_run = cls.tool("tools.classroom.charts", "--collected",
                                 str(cls.out / "collected.json"), "--gradebook",
                                 str(cls.tmp / "gradebook.csv"), "--out", str(cls.chart_dir),
                                 "--board", "--names")
        (cls.tmp / "consent.txt").write_text("bob\n")
        cls.consent_dir = cls.tmp / "charts-consent"
        cls.tool("tools.classroom.charts", "--collected", str(cls.out / "collected.json"),
                 "--out", str(cls.consent_dir), "--board", "--names", "--consent",
                 str(cls.tmp / "consent.txt"))

    # -- the checks ------------------------------------------------------------------------
    def test_course_baked_into_the_runner_image_at_the_pinned_ref(self):
        # defect: "The runner image does not contain the course"
        self.assertEqual(git("rev-parse", "HEAD", cwd=self.baked), self.course_ref,
                         self.bake_log)
        driver = [json.loads(line) for line in (self.tmp / "driver.log").read_text().splitlines()]
        self.assertTrue(driver)
        self.assertIn(f"-P -m tools.release.autograde --submission . --course {self.baked} ",
                      self.jobs["alice"][0]["log"])

    def test_repositories_created_with_classroom50_names_one_per_team(self):
        self.assertEqual(self.created.returncode, 0, self.created.stderr)
        state = json.loads((self.state / "state.json").read_text())
        self.assertEqual(sorted(state["repos"]), sorted(
            [TEMPLATE] + [f"{ORG}/{PREFIX}-{n}" for n in ("alice", "bob", "carol", "red")]))
        self.assertEqual(state["repos"][f"{ORG}/{PREFIX}-red"]["collaborators"],
                         ["dave", "erin"])

    def test_team_assignment_graded_and_published(self):
        # defect: autograde.py accepted only "individual" or "group"
        for job in self.jobs["red"]:
            self.assertNotEqual(job["status"], "error", job["error"] or job["log"][-2000:])
            self.assertEqual((job["result"]["assignment_type"], job["result"]["owner"]),
                             ("team", "red"))
        self.assertEqual(self.book["dave"]["total"], "300")
        self.assertEqual(self.book["erin"]["total"], "300")

    def test_feedback_names_failed_tests_and_ships_scores_and_junit(self):
        # defect: "which test failed, and why, only in the Actions log"; "--step-summary never
        # passed"
        job = self.jobs["alice"][0]
        self.assertIn(f"`lab13.SgemmPerf.SwizzledShareOfCublas`: {FAIL_MESSAGE}", job["body"])
        self.assertEqual(sorted(job["assets"]), ["feedback.md", "junit.xml", "scores.json"])
        self.assertEqual(json.loads(job["assets"]["scores.json"])["schema"], "cudalabs-scores")
        self.assertIn(b"lab13.SgemmPerf.SwizzledShareOfCublas", job["assets"]["junit.xml"])
        self.assertIn("## cudalabs scoreboard", job["summary"])
        state = json.loads((self.state / "state.json").read_text())
        rel = state["repos"][f"{ORG}/{PREFIX}-alice"]["releases"][0]
        self.assertEqual([a["name"] for a in rel["assets"]],
                         ["result.json", "feedback.md", "junit.xml", "scores.json"])

    def test_prefix_is_required_and_a_404_names_the_repository(self):
        # defect: the prefix defaulted to "cudalabs": every student a 404, unnamed
        self.assertEqual(self.no_prefix.returncode, 2)
        self.assertIn("--classroom C --assignment A", self.no_prefix.stderr)
        self.assertEqual(self.wrong_prefix.returncode, 1)
        self.assertIn(f"{ORG}/cudalabs-alice: repository not found (HTTP 404)",
                      self.wrong_prefix.stderr)
        self.assertEqual(self.collected_run.returncode, 0, self.collected_run.stderr)

    def test_only_the_default_branch_counts(self):
        # defect: collect.py read every branch (a 0-point side-branch result replaced main's)
        wip = next(j["tag"] for j in self.jobs["alice"] if j["branch"] == "wip")
        alice = next(s for s in self.collected["students"] if s["student"] == "alice")
        self.assertNotIn(wip, [s["result_from"] for s in alice["submissions"]])
        self.assertIn("not pushed to main", self.collected_run.stdout)
        self.assertEqual(self.published["alice"]["lab13"], "100")  # what alice published

    def test_gradebook_keeps_roster_columns_and_charges_lateness_per_lab(self):
        # defects: no roster name/ID/e-mail; lateness yes/no against one deadline; no late
        # policy or extension
        self.assertEqual(self.book_run.returncode, 0, self.book_run.stderr)
        bob = self.book["bob"]
        self.assertEqual((bob["name"], bob["id"], bob["email"]),
                         ("Bob Baker", "S002", "bob@uni.example"))
        self.assertEqual((bob["lab13"], bob["lab13_late"], bob["lab13_penalty"]),
                         ("80", "1d 02:01:00", "20%"))
        self.assertEqual((bob["lab01"], bob["lab01_late"]), ("100", ""))
        erin = self.book["erin"]  # the team's lab13 inside erin's one-day extension
        self.assertEqual((erin["lab13"], erin["lab13_late"], erin["lab13_penalty"]),
                         ("100", "", ""))
        carol = self.book["carol"]
        self.assertEqual((carol["name"], carol["total"], carol["lab01"]), ("Carol Chen", "", ""))

    def test_the_regrade_counts_and_says_so(self):
        # defect: the gradebook read what students published, not the regrade
        self.assertEqual(self.regrade_rc, 0, self.regrade_log)
        alice = self.book["alice"]
        self.assertEqual((alice["lab13"], alice["lab13_source"]), ("40", "regrade"))
        self.assertEqual((alice["lab01"], alice["lab01_source"]), ("100", "regrade"))
        self.assertEqual(alice["total"], "240")
        self.assertEqual(self.book["bob"]["lab13_source"], "published-late")

    def test_lms_exports(self):
        canvas = list(csv.reader(io.StringIO((self.tmp / "canvas.csv").read_text())))
        self.assertEqual(canvas[0][:5], ["Student", "ID", "SIS User ID", "SIS Login ID",
                                         "Section"])
        self.assertEqual(canvas[1][0], "Points Possible")
        alice = next(r for r in canvas if r[0] == "Alice Archer")
        self.assertEqual((alice[2], alice[3], alice[-1]), ("S001", "alice@uni.example", "240"))
        moodle = list(csv.reader(io.StringIO((self.tmp / "moodle.csv").read_text())))
        self.assertEqual(moodle[0][:2], ["ID number", "Email address"])
        self.assertIn(["S002", "bob@uni.example", "Bob Baker", "100", "0", "80", "180"], moodle)

    def test_charts_whole_counts_every_bin_and_consent_only_when_given(self):
        # defects: counts printed as "1.00", empty bins dropped, consent claimed without it
        self.assertEqual(self.chart_run.returncode, 0, self.chart_run.stderr)
        points = (self.chart_dir / "points.svg").read_text()
        values = fx.svg_texts(points, "value-")
        self.assertEqual(len(values), 11 * 3)
        self.assertTrue(all(re.fullmatch(r"\d+", v) for v in values), values)
        self.assertIn("0", values)
        self.assertTrue((self.chart_dir / "completion.svg").is_file())
        board = next(self.chart_dir.glob("board_*.svg")).read_text()
        self.assertNotIn("with consent", board)
        consent_board = next(self.consent_dir.glob("board_*.svg")).read_text()
        self.assertIn("Names shown with consent", consent_board)
        self.assertNotIn(">alice<", consent_board)


class RunnerNetwork(unittest.TestCase):
    """The runner's egress proxy lets Classroom 50's grade job fetch what it fetches."""

    def test_pages_host_of_the_organization_is_allowed_and_nothing_more(self):
        # defect: squid.conf let only GitHub's API, raw and package hosts through, so every
        # Classroom 50 grade failed at "Grade details" (runner.py from <org>.github.io)
        with tempfile.TemporaryDirectory() as tmp_dir:
            tmp = Path(tmp_dir)
            (tmp / "bin").mkdir()
            (tmp / "bin" / "docker").write_text(
                f'#!/bin/sh\necho "$*" >>"{tmp}/docker.log"\nexit 0\n')
            # gh api prints the --jq of GitHub's answer: the encoded configuration
            (tmp / "bin" / "gh").write_text(
                f'#!/bin/sh\nprintf "%s\\n" "$GH_TOKEN" "$@" >"{tmp}/gh.log"\necho x\n')
            for f in ("docker", "gh"):
                (tmp / "bin" / f).chmod(0o755)
            (tmp / "token").write_text("t")
            env = {k: v for k, v in os.environ.items() if k != "GITHUB_API_URL"}  # github.com
            out = subprocess.run(
                ["bash", str(ROOT / "tools/runner/cudalab-runner.sh"), "--org", "GPU-Fall",
                 "--once"], env={**env, "PATH": f"{tmp / 'bin'}:{os.environ['PATH']}",
                                 "CUDALAB_RUNNER_TOKEN_FILE": str(tmp / "token"),
                                 "CUDALAB_RUNNER_STATE_DIR": str(tmp),
                                 "CUDALAB_RUNNER_NAME": "rehearsal"},
                capture_output=True, text=True, timeout=60)
            self.assertEqual(out.returncode, 0, out.stderr)
            acl = (tmp / "egress-pages.acl").read_text().split()
            log = (tmp / "docker.log").read_text()
            self.assertIn(f"{tmp}/egress-pages.acl:/etc/squid/cudalab-pages.acl:ro", log)
            # the token reaches gh in its environment, never on its command line
            token, *gh_args = (tmp / "gh.log").read_text().splitlines()
            self.assertEqual(token, "t")
            self.assertNotIn("t", gh_args)
            self.assertEqual(gh_args[:4], [
                "api", "--method", "POST",
                "https://api.github.com/orgs/GPU-Fall/actions/runners/generate-jitconfig"])
            self.assertEqual([a for a in gh_args if a.startswith("labels[]=")],
                             [f"labels[]={x}" for x in ("self-hosted", "linux", "x64", "gpu")])
        conf = (ROOT / "tools/runner/egress/squid.conf").read_text()
        allowed = squid_allows(conf, {"/etc/squid/cudalab-pages.acl": acl})
        self.assertTrue(allowed("gpu-fall.github.io"))   # runner.py and the bundle
        self.assertTrue(allowed("api.github.com"))       # statuses, releases
        self.assertFalse(allowed("attacker.github.io"))
        self.assertFalse(allowed("example.com"))


def squid_allows(conf: str, files: dict[str, list[str]]):
    """Whether squid.conf's http_access rules let CONNECT to a host through (dstdomain ACLs,
    values inline or from a quoted file; first matching rule wins)."""
    acls: dict[str, list[str]] = {}
    rules = []
    for line in conf.splitlines():
        words = line.split("#", 1)[0].split()
        if words[:1] == ["acl"] and len(words) >= 4 and words[2] == "dstdomain":
            values = []
            for w in words[3:]:
                values += files[w.strip('"')] if w.startswith('"') else [w]
            acls[words[1]] = values
        elif words[:1] == ["http_access"]:
            rules.append((words[1], words[2:]))

    def matches(host: str, name: str) -> bool:
        if name == "CONNECT":
            return True
        if name.startswith("!"):
            return not matches(host, name[1:])
        if name == "SSL_ports":
            return True
        return any(host == d.lstrip(".") or (d.startswith(".") and host.endswith(d))
                   for d in acls.get(name, []))

    def allowed(host: str) -> bool:
        for verdict, names in rules:
            if all(matches(host, n) for n in names):
                return verdict == "allow"
        return False
    return allowed


class GradingWorkflow(unittest.TestCase):
    def test_reusable_workflow_names_the_variables_the_caller_passes(self):
        # defect: grade-reusable.yml told instructors to set CUDALAB_REPO/CUDALAB_COMMIT
        caller = (ROOT / "tools/release/grade.yml").read_text()
        reusable = (ROOT / "tools/release/grade-reusable.yml").read_text()
        passed = set(re.findall(r"vars\.(CUDALAB_[A-Z_]+)", caller))
        named = set(re.findall(r"organization variables? ([^:]*?)[;:]", reusable)[0].split()) \
            if re.search(r"organization variables? ", reusable) else set()
        named = set(re.findall(r"CUDALAB_[A-Z_]+", " ".join(named)))
        self.assertEqual(passed, {"CUDALAB_COURSE_REPO", "CUDALAB_COURSE_REF"})
        self.assertEqual(named, passed)


if __name__ == "__main__":
    unittest.main()
