# SPDX-License-Identifier: BSD-3-Clause
"""Fixture builders shared by the tests of the instructor tools (a helper, not a test module).

Everything here builds small files of the shapes the tools read (the scoreboard's
scores.json, a course tree with a fake grading driver, Classroom 50 result.json documents,
GitHub API answers) inside a temporary folder; nothing touches the network or a GPU.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import types
import unittest
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(os.environ.get("CUDALAB_SOURCE_DIR") or Path(__file__).resolve().parents[2])
RELEASE = ROOT / "tools" / "release"
CLASS = ROOT / "tools" / "classroom"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SVG = "{http://www.w3.org/2000/svg}"

H100 = "NVIDIA H100 80GB HBM3"
TOPICS = {"lab01": "hello_addone", "lab02": "naive_matmul", "lab13": "sgemm"}


def _test(lab: str, suite: str, case: str, category: str, weight: float, status: str,
          measurements: list | None = None) -> dict:
    return {"name": f"{lab}.{suite}.{case}", "lab": lab, "suite": suite, "case": case,
            "objective": suite, "technique": "lab", "labels": [lab, category],
            "category": category,
            "weight": weight, "status": status, "points": weight if status == "passed" else 0.0,
            "time_s": 0.5, "message": "" if status == "passed" else f"{case} {status}",
            "measurements": measurements or [], "speed": []}


def ratio(test: str, name: str, value: float, threshold: float, unit: str = "x") -> dict:
    """A thresholded measurement as the scoreboard records it."""
    return {"test": test, "name": name, "value": value, "unit": unit, "threshold": threshold,
            "bound": "min", "verdict": "pass" if value >= threshold else "fail",
            "unscaled_threshold": threshold, "speedup_scale": 1, "text": None, "tiers": [],
            "tier": None, "status": "passed" if value >= threshold else "failed"}


def make_scores(statuses: dict[str, list[str]] | None = None, built: dict | None = None,
                flags: dict | None = None, gpu: str = H100, sgemm_share: float = 0.8) -> dict:
    """A scores.json of three labs: lab01 (7 tests of 100/7 points: 3 cpu, 4 gpu), lab02
    (2 cpu + 2 gpu tests of 25), lab13 (one cpu test of 40, one perf test of 60 with the
    swizzled SGEMM's share of cuBLAS @p sgemm_share). @p statuses overrides the tests'
    statuses per lab (in that order), @p built marks graders not built (their tests are left
    out, as the scoreboard does), @p flags gives labs their intake flags."""
    statuses, built, flags = statuses or {}, built or {}, flags or {}
    plan = {
        "lab01": [("AddOneCpu", f"Case{i}", "cpu" if i < 3 else "gpu", 100 / 7) for i in range(7)],
        "lab02": [("GridCpu", "A", "cpu", 25.0), ("GridCpu", "B", "cpu", 25.0),
                  ("MatmulGpu", "A", "gpu", 25.0), ("MatmulPerf", "Speed", "perf", 25.0)],
        "lab13": [("OccupancyCpu", "Calculator", "cpu", 40.0),
                  ("SgemmPerf", "SwizzledShareOfCublas", "perf", 60.0)],
    }
    tests, labs = [], []
    for n, (lab, rows) in enumerate(plan.items(), start=1):
        st = statuses.get(lab, ["passed"] * len(rows))
        lab_tests = []
        for (suite, case, cat, w), s in zip(rows, st):
            ms = []
            if lab == "lab13" and suite == "SgemmPerf":
                ms = [ratio(f"{lab}.{suite}.{case}", "speedup", sgemm_share, 0.4)]
            lab_tests.append(_test(lab, suite, case, cat, w, s, ms))
        ok = built.get(lab, True)
        if ok:
            tests += lab_tests
        labs.append({
            "lab": lab, "number": int(lab[3:]), "topic": TOPICS[lab],
            "folder": f"labs/{lab}_{TOPICS[lab]}", "grader_built": ok,
            "tests": len(lab_tests) if ok else 0,
            "passed": sum(t["status"] == "passed" for t in lab_tests) if ok else 0,
            "points": round(sum(t["points"] for t in lab_tests), 2) if ok else 0.0,
            "max_points": 100.0,
            "measurements": [m for t in lab_tests for m in t["measurements"]] if ok else [],
            "flags": flags.get(lab, []), "graded_in_this_run": True,
        })
    return {"schema": "cudalabs-scores", "version": 2, "generated": "2026-12-01T10:00:00Z",
            "environment": {"gpu": {"available": gpu != "no GPU", "name": gpu}},
            "labs": labs, "tests": tests,
            "measurements": [m for t in tests for m in t["measurements"]]}


def make_lock(labs: dict) -> dict:
    """A tests/grading.json (cudalabs-declared v2) of @p labs: {lab: {technique: {objective:
    (points, gpu, tests)}}}."""
    return {"schema": "cudalabs-declared", "version": 2, "lab_points": 100, "labs": {
        lab: {"techniques": {
            tname: {"points": sum(o[0] for o in objs.values()), "why": f"why {tname}",
                    "objectives": {oname: {"points": pts, "gpu": gpu, "tests": tests}
                                   for oname, (pts, gpu, tests) in objs.items()}}
            for tname, objs in techniques.items()}}
        for lab, techniques in labs.items()}}


# lab02 of make_scores() by technique: the grid (50, on the CPU) and the matmul (50).
LAB02_TECHNIQUES = {"lab02": {
    "grid": {"GridCpu": (50, False, ["lab02.GridCpu.A", "lab02.GridCpu.B"])},
    "matmul": {"MatmulGpu": (20, True, ["lab02.MatmulGpu.A"]),
               "MatmulPerf": (30, True, ["lab02.MatmulPerf.Speed"])}}}


FAKE_DRIVER = '''#!/usr/bin/env python3
"""Fake grading driver (tests): copies $CUDALAB_FAKE_SCORES to --out/scores.json; labs not
in --labs are marked not graded in this run. Records its arguments in --out/driver.json."""
import argparse, json, os, sys
from pathlib import Path
ap = argparse.ArgumentParser()
for a in ("--submission", "--course", "--out", "--preset", "--labs", "--test-user"):
    ap.add_argument(a)
ap.add_argument("--step-summary", action="store_true")
a = ap.parse_args()
out = Path(a.out); out.mkdir(parents=True, exist_ok=True)
# Where it was loaded from and how: the course copy's, with the working directory off the path.
(out / "driver.json").write_text(json.dumps({**vars(a), "file": __file__,
                                             "pythonpath": os.environ.get("PYTHONPATH"),
                                             "safe_path": bool(sys.flags.safe_path)}))
if os.environ.get("CUDALAB_FAKE_FAIL"):
    sys.exit(2)
scores = json.loads(Path(os.environ["CUDALAB_FAKE_SCORES"]).read_text())
if a.labs:
    wanted = set(a.labs.split(","))
    for lab in scores["labs"]:
        lab["graded_in_this_run"] = lab["lab"] in wanted
    for t in scores["tests"]:
        if t["lab"] not in wanted:
            t["status"] = "not run"
(out / "scores.json").write_text(json.dumps(scores))
(out / "junit.xml").write_text("<testsuites/>")
if a.step_summary and os.environ.get("GITHUB_STEP_SUMMARY"):
    with open(os.environ["GITHUB_STEP_SUMMARY"], "a") as f:
        f.write("## cudalabs scoreboard (fake driver)\\n")
(out / "intake.json").write_text("{}")
sys.exit(int(os.environ.get("CUDALAB_FAKE_RC", "0")))
'''


def git(*args: str, cwd: Path) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@invalid"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True,
                          text=True).stdout.strip()


def make_course(root: Path, with_tools: bool = True) -> tuple[Path, str]:
    """A course tree (git repository, one commit) with labs lab01, lab02, lab13 (one SOURCES
    file each), the release tools of this repository (and tools/model.py) and the fake
    driver. Returns its path and commit."""
    course = root / "course"
    for lab, topic in TOPICS.items():
        d = course / "labs" / f"{lab}_{topic}"
        d.mkdir(parents=True)
        (d / "CMakeLists.txt").write_text(
            f"cudalab_add_lab(NAME {lab}_{topic} SOURCES {topic}.cu POINTS X=1)\n")
        (d / f"{topic}.cu").write_text(f"// stub of {lab}\n")
    rel = course / "tools" / "release"
    rel.mkdir(parents=True)
    # The package's __init__.py files: autograde runs the driver as tools.release.grade_submission.
    for package in ("tools", "tools/release"):
        (course / package / "__init__.py").write_text((ROOT / package / "__init__.py").read_text())
    if with_tools:
        for p in RELEASE.glob("*.py"):
            if p.name != "grade_submission.py":
                (rel / p.name).write_text(p.read_text())
        # The model they read the scores and the lock with.
        (course / "tools" / "model.py").write_text((ROOT / "tools" / "model.py").read_text())
    (rel / "grade_submission.py").write_text(FAKE_DRIVER)
    git("init", "-q", cwd=course)
    git("add", "-A", cwd=course)
    git("commit", "-q", "-m", "course", cwd=course)
    return course, git("rev-parse", "HEAD", cwd=course)


def temp_dir(case: unittest.TestCase, prefix: str) -> Path:
    """A fresh temporary folder, removed with all it holds when @p case ends."""
    tmp = Path(tempfile.mkdtemp(prefix=prefix))
    case.addCleanup(lambda: subprocess.run(["rm", "-rf", str(tmp)], check=False))
    return tmp


def course_case(case: unittest.TestCase, prefix: str) -> tuple[Path, Path, str, Path]:
    """temp_dir() with make_course() and make_submission() in it: (the folder, the course, its
    commit, the submission)."""
    tmp = temp_dir(case, prefix)
    course, ref = make_course(tmp)
    return tmp, course, ref, make_submission(tmp, course)


def make_submission(root: Path, course: Path, edits: dict[str, str] | None = None) -> Path:
    """A student checkout: the course's lab files, with @p edits (path -> text) applied."""
    sub = root / "submission"
    for p in (course / "labs").rglob("*"):
        if p.is_file():
            dst = sub / p.relative_to(course)
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_text(p.read_text())
    for rel, text in (edits or {}).items():
        (sub / rel).parent.mkdir(parents=True, exist_ok=True)
        (sub / rel).write_text(text)
    git("init", "-q", cwd=sub)
    git("add", "-A", cwd=sub)
    git("commit", "-q", "-m", "work", cwd=sub)
    return sub


def tool_command(module: str) -> list[str]:
    """The command line that runs the tool @p module (tools.scoreboard, ...) of this checkout
    as the docs write it, `python3 -m`, but with tool_env()'s PYTHONPATH and not the working
    directory (-P) on the module search path."""
    return [sys.executable, "-B", "-P", "-m", module]


def tool_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """@p env (default: this process's environment) with PYTHONPATH this checkout's root."""
    return {**(os.environ if env is None else env), "PYTHONPATH": str(ROOT)}


def load_file(path: Path) -> types.ModuleType:
    """The Python file @p path loaded as a module of its own name, without putting its folder
    on the module search path (the Classroom 50 autograder is a standalone script, not a module
    of the package tools)."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_json(path: Path, data) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1))
    return path


def svg_texts(svg: str, group: str = "") -> list[str]:
    """The text of @p svg's <text> elements in document order (the SVG must be well formed);
    with @p group only those inside a <g> whose id starts with it (tools/plot.py gives a bar's
    value label the id "value-<panel>-<bar>")."""
    tree = ET.fromstring(svg)
    roots = [g for g in tree.iter(SVG + "g") if g.get("id", "").startswith(group)] \
        if group else [tree]
    return ["".join(t.itertext()) for r in roots for t in r.iter(SVG + "text")]


def load_fixture(name: str):
    return json.loads((FIXTURES / name).read_text())


def make_result(labs: dict[str, tuple[int, int]], commit: str = "b" * 40, gpu: str = H100,
                share: float | None = None, flags: dict | None = None,
                reused: tuple[str, ...] = ()) -> dict:
    """A result.json as autograde.py writes it: @p labs maps lab -> (score, max-score);
    lab13 gets the swizzled SGEMM's share of cuBLAS @p share when given."""
    tests = []
    for lab, (score, most) in labs.items():
        ratios = []
        if lab == "lab13" and share is not None:
            ratios = [{"test": "lab13.SgemmPerf.SwizzledShareOfCublas", "name": "speedup",
                       "value": share, "unit": "x", "threshold": 0.4, "bound": "min",
                       "tier": None}]
        tests.append({"test-name": f"{lab} {TOPICS.get(lab, '')}".strip(),
                      "passed": score == most, "score": score, "max-score": most,
                      "message": "", "cudalabs": {
                          "lab": lab, "flags": (flags or {}).get(lab, []), "ratios": ratios,
                          "gpu": gpu, "course_ref": "c" * 40, "graded_commit": commit,
                          "graded_in_this_run": lab not in reused,
                          # The lab's points in the lock's shape (lab_points.lab_results()).
                          "points": {"lab": {"points": most, "earned": score, "objectives": {
                              "AllGpu": {"points": most, "earned": score, "tests": 1}}}}}})
    return {"schema": "classroom50/result/v1", "classroom": "gpu-fall", "assignment": "cudalabs",
            "assignment_type": "individual", "owner": "x", "submission": "submit/t-bbbbbbb",
            "commit": "c", "release": "r", "review": "c", "datetime": "2026-12-01T10:00:00Z",
            "score": sum(s for s, _ in labs.values()),
            "max-score": sum(m for _, m in labs.values()), "tests": tests}


class FakeGh:
    """Stands in for github_cli.call_gh: answers `gh api` calls from @p routes, a map from a
    substring of the API path to a list (a paginated list: one JSON per line) or bytes (a
    download). `gh repo create` of a name in @p existing fails as GitHub's would; every call
    is recorded in .calls."""

    def __init__(self, routes: dict | None = None, existing: tuple[str, ...] = (),
                 failing: tuple[str, ...] = ()):
        self.routes, self.existing, self.failing = routes or {}, existing, failing
        self.calls: list[list[str]] = []

    def __call__(self, args: list[str]) -> bytes:
        from tools.release import github_cli
        self.calls.append(list(args))
        if args[:2] == ["repo", "create"]:
            if args[2] in self.existing:
                raise github_cli.GhError(f"gh repo create {args[2]}: GraphQL: Name already "
                                         "exists on this account (createRepository)")
            return b""
        path = next((a for a in args if a.startswith("repos/")), "")
        if any(f in path for f in self.failing):
            raise github_cli.GhError(f"gh api {path}: HTTP 404: Not Found")
        for key in sorted(self.routes, key=len, reverse=True):
            if key in path:
                value = self.routes[key]
                if isinstance(value, bytes):
                    return value
                return "".join(json.dumps(v) + "\n" for v in value).encode()
        if "collaborators" in path:
            return b""
        return b""


def zip_bytes(files: dict[str, str]) -> bytes:
    """A zip archive (as GitHub serves an artifact) of @p files."""
    import io
    import zipfile
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
    return buf.getvalue()
