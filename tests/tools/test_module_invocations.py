# SPDX-License-Identifier: BSD-3-Clause
"""The tools run as modules of the package tools, and a student's checkout never decides which
code grades it.

`python3 -m tools.<name>` puts the working directory first on the module search path, and a
student repository has a tools/ folder of its own (the release ships tools/release/*.py and
some tools/*.py): wherever a grading tool runs while a student's checkout is present, the
command must keep the working directory off the path (`-P`) and name the course copy in
PYTHONPATH. Checked two ways: by reading every workflow, script, CMake file and page for tool
invocations (no `python3 tools/<name>.py` script form is left; every module invocation of a grading
context has `-P` and a PYTHONPATH that is the course copy), and by running the Classroom 50
autograder, the plain-GitHub workflow's grading step (as written in grade-reusable.yml) and
the regrade's script with a hostile tools/ package in the checkout and in the working
directory: the course's driver grades, and the student's modules never run."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import unittest
from pathlib import Path

import toolfixtures as fx

ROOT = fx.ROOT
# Text files that may hold a command.
SUFFIXES = {".md", ".sh", ".yml", ".yaml", ".cmake", ".txt", ".py", ".service", ".in"}
NAMES = {"run", "Dockerfile", "entrypoint.sh"}
# A tool run as a script: python3 [flags] [path/]tools/<name>.py, the CMake forms of it, or
# sys.executable and a tools file in Python. (A tools/<name>.py executed directly cannot run: no
# module of the package is executable; test_no_module_is_an_executable_script.) The Classroom
# 50 autograder is the one standalone script (copied out of the repository, run as
# `python3 autograder.py`).
SCRIPT_FORMS = (
    re.compile(r"\bpython3?(?:\s+-[A-Za-z]+)*\s+[\"']?[^\s\"']*(?<!tests/)\btools/[\w/]+\.py\b"),
    re.compile(r"\$\{(?:Python3_EXECUTABLE|PYTHON)\}\"?(?:\s+-[A-Za-z]+)*\s+\"?[^\s\"]*"
               r"\btools/[\w/]+\.py\b"),
    re.compile(r"sys\.executable,\s*(?:str\()?[^\]\n]*\btools\b[^\]\n]*\.py\b"),
)
STANDALONE = "classroom50/autograder.py"
# A module invocation: python3 [flags] -m tools.<name>.
MODULE = re.compile(r"\bpython3?((?:\s+-[A-Za-z]+)*)\s+-m\s+tools\.[\w.]+")
PYTHONPATH = re.compile(r"\bPYTHONPATH=(\"[^\"]*\"|'[^']*'|\S*)")
# Where grading tools run while a student's checkout is present, or could be the working
# directory: the grading workflows, the runner, the regrade, the Classroom 50 scripts, and
# the workflow steps the instructors' page tells them to add (its yaml blocks).
GRADING = ("tools/release/grade-reusable.yml", "tools/release/grade.yml",
           "tools/release/regrade.sh", "tools/classroom/c50_gpu_rehearsal.sh",
           "tools/classroom/c50_local_run.sh", "tools/runner/")
GRADING_PYTHON = ("tools/release/autograde.py", "tools/release/grade_submission.py",
                  "tools/release/regrade.py", "tools/release/take_submission.py",
                  "tools/release/classroom50/autograder.py", "tools/release/course_python.py")


def tracked() -> list[str]:
    out = subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True,
                         check=False)
    if out.returncode == 0 and out.stdout:
        return out.stdout.splitlines()
    return [p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*")
            if p.is_file() and "build" not in p.relative_to(ROOT).parts[:1]]


# This file and the link check's tests write the forms they look for as fixtures.
FIXTURE_FILES = {"tests/tools/test_module_invocations.py", "tests/tools/test_check_links.py"}


def text_files() -> dict[str, str]:
    files = {}
    for rel in tracked():
        p = ROOT / rel
        if rel in FIXTURE_FILES or not (p.suffix in SUFFIXES or p.name in NAMES):
            continue
        try:
            files[rel] = p.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
    return files


def yaml_blocks(text: str) -> str:
    """The lines of a Markdown page's ```yaml fenced blocks (others blanked: numbers stay)."""
    out, inside = [], False
    for line in text.splitlines():
        fence = line.strip().startswith("```")
        if fence:
            inside = not inside and line.strip() in ("```yaml", "```yml")
        out.append(line if inside and not fence else "")
    return "\n".join(out)


def grading_problems(rel: str, text: str) -> list[str]:
    """Module invocations of @p text that could import the working directory's or the
    student's tools: no -P, or no PYTHONPATH naming the course copy on the same line."""
    problems = []
    for n, line in enumerate(text.splitlines(), 1):
        for m in MODULE.finditer(line):
            flags = m.group(1).split()
            path = PYTHONPATH.findall(line[:m.start()])
            value = path[-1].strip("\"'") if path else ""
            if "-P" not in flags:
                problems.append(f"{rel}:{n}: no -P: the working directory is on the path")
            if not value or value in (".", "$PWD", "${PWD}") or "submission" in value:
                problems.append(f"{rel}:{n}: PYTHONPATH is not the course copy ({value!r})")
    return problems


def run_block(text: str, step: str) -> str:
    """The run: command of the workflow step named @p step (a folded `>-` block joined)."""
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if re.match(rf"\s*- name: {re.escape(step)}$", ln))
    for i in range(start + 1, len(lines)):
        m = re.match(r"(\s*)run: >-\s*$", lines[i])
        if m:
            body = []
            for ln in lines[i + 1:]:
                if ln.strip() and len(ln) - len(ln.lstrip()) <= len(m.group(1)):
                    break
                body.append(ln.strip())
            return " ".join(b for b in body if b)
    raise AssertionError(f"step {step!r} has no run: >- block")


class Invocations(unittest.TestCase):
    """Every command that names a tool, as written in the repository."""

    files: dict[str, str]

    @classmethod
    def setUpClass(cls):
        cls.files = text_files()

    def test_the_scan_finds_the_forms_it_forbids(self):
        py = "python3"  # (the forms, which `git grep` must not find as commands)
        for bad in (f"{py} tools/scoreboard.py --build-dir B", f"{py} -B ./tools/scoreboard.py",
                    f'{py} "$root/tools/ci/check_links.py" --quiet',
                    'COMMAND "${Python3_EXECUTABLE}" -B "${TOOLS_DIR}/tools/grading_manifest.py"',
                    'subprocess.run([sys.executable, str(course / "tools/release/autograde.py")'):
            with self.subTest(bad):
                self.assertTrue(any(f.search(bad) for f in SCRIPT_FORMS))
        for good in ("python3 -m tools.scoreboard --build-dir B", "tools/scoring.py holds it",
                     "python3 tests/tools/classroom50_flow.py",
                     "PYTHONPATH=$root python3 -P -m tools.ci.check_links --quiet"):
            with self.subTest(good):
                self.assertFalse(any(f.search(good) for f in SCRIPT_FORMS))

    def test_no_tool_runs_as_a_script(self):
        found = []
        for rel, text in self.files.items():
            for n, line in enumerate(text.splitlines(), 1):
                if any(f.search(line) for f in SCRIPT_FORMS) and STANDALONE not in line:
                    found.append(f"{rel}:{n}: {line.strip()}")
        self.assertEqual(found, [], "run the tools as modules: python3 -m tools.<name>")

    def test_no_module_is_an_executable_script(self):
        modules = [rel for rel in tracked() if rel.startswith("tools/") and rel.endswith(".py")
                   and not rel.endswith(STANDALONE)]
        self.assertGreater(len(modules), 40)
        for rel in modules:
            with self.subTest(rel):
                self.assertFalse(os.access(ROOT / rel, os.X_OK))
                self.assertFalse((ROOT / rel).read_text().startswith("#!"))

    def test_grading_contexts_keep_the_checkout_off_the_path(self):
        problems, seen = [], 0
        for rel, text in self.files.items():
            if rel.startswith(GRADING):
                scanned = text
            elif rel.startswith("docs/") and rel.endswith(".md"):
                scanned = yaml_blocks(text)
            else:
                continue
            seen += len(MODULE.findall(scanned))
            problems += grading_problems(rel, scanned)
        self.assertEqual(problems, [])
        self.assertGreaterEqual(seen, 4)  # grade-reusable.yml's two, regrade.sh, the page's

    def test_the_rule_rejects_a_bare_module_invocation(self):
        self.assertEqual(len(grading_problems("w.yml", "python3 -m tools.release.autograde")), 2)
        self.assertEqual(len(grading_problems(
            "w.yml", 'PYTHONPATH="$PWD" python3 -P -m tools.release.autograde')), 1)
        self.assertEqual(len(grading_problems(
            "w.yml", "PYTHONPATH=submission python3 -P -m tools.release.autograde")), 1)
        self.assertEqual(grading_problems(
            "w.yml", 'PYTHONPATH="$PWD/course" python3 -P -m tools.release.autograde'), [])

    def test_grading_tools_start_tools_without_the_working_directory(self):
        for rel in GRADING_PYTHON:
            text = (ROOT / rel).read_text()
            for n, line in enumerate(text.splitlines(), 1):
                if '"-m"' in line:
                    with self.subTest(f"{rel}:{n}"):
                        self.assertIn('"-P", "-m"', line)


HOSTILE = '''import os, pathlib
pathlib.Path({marker!r}).write_text(__file__)  # the student's code, run as the judge
print("student tools ran")
'''


class HostileCheckout(unittest.TestCase):
    """A submission and a working directory with a tools/ package of the student's: every
    module the grading runs exists there, and writes a marker if it runs."""

    def setUp(self):
        self.tmp, self.course, self.ref, self.sub = fx.course_case(self, "cudalab-modules-")
        self.marker = self.tmp / "PWNED"
        self.scores = fx.write_json(self.tmp / "fake-scores.json", fx.make_scores())
        for where in (self.sub, self.tmp):
            self.plant(where)

    def plant(self, where: Path) -> None:
        code = HOSTILE.format(marker=str(self.marker))
        for rel in ("tools/__init__.py", "tools/release/__init__.py",
                    "tools/release/autograde.py", "tools/release/grade_submission.py",
                    "tools/release/previous_result.py", "tools/release/regrade.py",
                    "tools/gpu_resources.py"):
            (where / rel).parent.mkdir(parents=True, exist_ok=True)
            (where / rel).write_text(code)

    def env(self, **extra: str) -> dict[str, str]:
        return {"PATH": os.environ["PATH"], "RUNNER_TEMP": str(self.tmp / "runner"),
                "CUDALAB_FAKE_SCORES": str(self.scores), "GITHUB_REPOSITORY": "o/r",
                "PYTHONPATH": str(self.sub), **extra}  # an inherited PYTHONPATH is replaced

    def assertCourseGraded(self, out: subprocess.CompletedProcess, grade: Path):
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertFalse(self.marker.exists(), "the student's tools ran: " +
                         (self.marker.read_text() if self.marker.exists() else ""))
        driver = json.loads((grade / "driver.json").read_text())
        self.assertEqual(driver["pythonpath"], str(self.course))
        self.assertTrue(driver["safe_path"])
        self.assertEqual(Path(driver["file"]).resolve(),
                         (self.course / "tools/release/grade_submission.py").resolve())

    def test_classroom50_autograder_in_the_checkout(self):
        bundle = self.tmp / "bundle"
        bundle.mkdir()
        (bundle / "autograder.py").write_text((fx.RELEASE / STANDALONE).read_text())
        fx.write_json(bundle / "cudalab.json", {"course_dir": str(self.course),
                                                "course_ref": self.ref})
        out = subprocess.run([sys.executable, str(bundle / "autograder.py")], cwd=self.sub,
                             env=self.env(), capture_output=True, text=True, check=False)
        self.assertCourseGraded(out, self.tmp / "runner" / "cudalab-grade")
        self.assertTrue((self.sub / "result.json").is_file())

    def test_the_reusable_workflows_grading_step_as_written(self):
        command = run_block((ROOT / "tools/release/grade-reusable.yml").read_text(),
                            "grade (only the lab files of the submission are used)")
        self.assertIn("-m tools.release.autograde", command)
        summary = self.tmp / "step-summary.md"
        out = subprocess.run(["bash", "-c", command], cwd=self.tmp, capture_output=True,
                             text=True, check=False,
                             env=self.env(COURSE_REF=self.ref, GITHUB_STEP_SUMMARY=str(summary),
                                          GITHUB_REF="refs/heads/main"))
        self.assertCourseGraded(out, self.tmp / "runner" / "grade")
        self.assertTrue((self.tmp / "runner" / "grade" / "result.json").is_file())

    def test_the_regrade_script_from_a_checkout(self):
        out = subprocess.run(["bash", str(ROOT / "tools/release/regrade.sh"), "--help"],
                             cwd=self.sub, env=self.env(), capture_output=True, text=True,
                             check=False)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertIn("--sandbox", out.stdout)
        self.assertFalse(self.marker.exists())


if __name__ == "__main__":
    unittest.main()
