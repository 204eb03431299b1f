# SPDX-License-Identifier: BSD-3-Clause
"""Grades one submission and writes a Classroom 50 result.json (one entry per lab).

    python3 -m tools.release.autograde --submission DIR [--course DIR] --out DIR
        [--preset student|ci-student] [--result FILE] [--previous FILE] [--full]
        [--labs lab07,lab09] [--test-user USER] [--summary FILE] [--driver FILE]

The grading itself is tools/release/grade_submission.py (the driver): it takes only the lab
files of --submission into a copy of --course (the course release at its pinned commit),
scans them (intake flags), builds, runs the tests isolated and writes scores.json,
junit.xml and intake.json into --out. This script turns that scores.json into
`result.json` in the format Classroom 50 reads (schema `classroom50/result/v1`, verified
against foundation50/classroom50 schemas/result-v1.schema.json and the runner's
validate_result): integer `score` and `max-score`, and one `tests[]` entry per lab with
`test-name`, `passed`, integer `score` and `max-score`, plus `message` (tests passed, intake
flags, reuse) and `cudalabs` (the lab's counts, flags, key speed ratios, GPU, course ref,
graded commit, and `points`: the lab's whole points and those earned per technique and
objective, in the shape of the course's lock, tests/grading.json). Points are whole numbers,
a lab passed in full shows exactly its maximum (tools/release/lab_points.py). The top level holds only the keys the v1 schema
allows (it forbids others); Classroom 50's runner stamps `owner`, `assignment_type`,
`datetime` and `graded_at` itself.

Identity fields come from the environment: Classroom 50's runner (CLASSROOM, ASSIGNMENT,
SUBMISSION_TAG, COMMIT_URL, RELEASE_URL, REVIEW_URL, OWNER), else GitHub Actions
(GITHUB_REPOSITORY, GITHUB_SHA, GITHUB_RUN_ID, ...: the plain-GitHub path, which names its
result like a submission, submit/<UTC time>-<short sha>, without creating a tag), else a
local run. It also writes release-body.md next to --result (Classroom 50 uses it as the
body of the submission's release) and, with --summary, the same Markdown to that file.

One-lab pushes (tools/release/reuse.py): each lab's entry carries its reuse key (sha256 of
the lab's student files, the course commit, the GPU model and the preset). With --previous
(the result.json of the last graded push) only the labs whose key changed are graded; the
others are copied from it (graded_in_this_run: false, "reused: files unchanged since
<commit>"). When no key changed the driver does not run at all. --full, or a pushed submit/*
tag (GITHUB_REF), grades every lab.

Exit status: 0 when result.json was written (failing tests are scores); 1 when grading
could not run (no course, the driver failed: Classroom 50 then records an error); 2 on a
usage error. The driver's exit status 3 (graded, but a file of the course copy or the build
changed during the tests) still writes result.json, every entry marked NEEDS REVIEW. Python 3 standard library only.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # TypeGuard is Python 3.10+; the annotation is only read by mypy
    from typing import TypeGuard

from . import reuse
from .course_python import course_env, module_command, module_file
from ..model import LabResult, LabScore, Lock, ModelError, TestResult
from .lab_points import lab_results

HERE = Path(__file__).resolve().parent

RESULT_SCHEMA = "classroom50/result/v1"
# The top-level keys classroom50/result/v1 allows (its schema sets additionalProperties: false).
TOP_KEYS = ("schema", "classroom", "assignment", "assignment_type", "owner", "submission",
            "commit", "release", "review", "datetime", "graded_at", "score", "max-score",
            "tests", "submitted_by")
REQUIRED_STRINGS = ("classroom", "assignment", "owner", "submission", "commit", "release",
                    "review", "datetime")
# Every assignment_type Classroom 50's runner stamps (runner.py assignment_type_for_mode: the
# manifest's mode "group" or "team" verbatim, anything else "individual").
ASSIGNMENT_TYPES = ("individual", "group", "team")
# Failed tests listed per lab in result.json (cudalabs.failures) and the release body.
MAX_FAILURES_PER_LAB = 20
MAX_FAILURE_MESSAGE = 240
# The files autograde.py leaves in --assets for the student: Classroom 50 attaches them to the
# submission's release when the assignment lists them in release_assets; the plain-GitHub
# workflow uploads them in the artifact cudalab-grade.
ASSET_FILES = ("scores.json", "junit.xml", "feedback.md")
TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
MAX_MESSAGE = 600
MAX_FLAGS_IN_MESSAGE = 3


class GradingError(Exception):
    """Grading could not run (exit status 1)."""


# ---------------------------------------------------------------------------
# result.json: the v1 rules
# ---------------------------------------------------------------------------
def _is_count(v) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def validate_result(doc) -> list[str]:
    """The v1 rules of a result.json, as Classroom 50's runner and schema state them (identity
    matching against the repository aside): [] when @p doc satisfies them."""
    if not isinstance(doc, dict):
        return ["result.json is not a JSON object"]
    errors = []
    if doc.get("schema") != RESULT_SCHEMA:
        errors.append(f"schema is {doc.get('schema')!r}, want {RESULT_SCHEMA!r}")
    extra = sorted(set(doc) - set(TOP_KEYS))
    if extra:
        errors.append(f"keys the v1 schema does not allow at the top level: {extra}")
    for key in REQUIRED_STRINGS:
        if not isinstance(doc.get(key), str) or not doc.get(key):
            errors.append(f"{key!r} must be a non-empty string")
    if isinstance(doc.get("submission"), str) and not doc["submission"].startswith("submit/"):
        errors.append("'submission' must start with 'submit/'")
    if doc.get("assignment_type", "individual") not in ASSIGNMENT_TYPES:
        errors.append(f"'assignment_type' must be one of {', '.join(ASSIGNMENT_TYPES)}")
    score, most = doc.get("score"), doc.get("max-score")
    if not _is_count(score) or not _is_count(most):
        errors.append("'score' and 'max-score' must be non-negative integers")
    elif score > most:
        errors.append(f"score ({score}) > max-score ({most})")
    tests = doc.get("tests")
    if not isinstance(tests, list):
        return errors + ["'tests' is not a list"]
    for i, t in enumerate(tests):
        if not isinstance(t, dict):
            errors.append(f"tests[{i}] is not an object")
            continue
        if not isinstance(t.get("test-name"), str) or not t["test-name"]:
            errors.append(f"tests[{i}].test-name must be a non-empty string")
        if not isinstance(t.get("passed"), bool):
            errors.append(f"tests[{i}].passed must be a boolean")
        if not _is_count(t.get("score")) or not _is_count(t.get("max-score")):
            errors.append(f"tests[{i}].score and max-score must be non-negative integers")
        elif t["score"] > t["max-score"]:
            errors.append(f"tests[{i}].score ({t['score']}) > max-score ({t['max-score']})")
    if isinstance(tests, list) and _is_count(score) and all(
            isinstance(t, dict) and _is_count(t.get("score")) for t in tests):
        if score != sum(t["score"] for t in tests):
            errors.append("'score' is not the sum of the tests' scores")
    return errors


# ---------------------------------------------------------------------------
# The run: identity, course, GPU
# ---------------------------------------------------------------------------
def now_utc() -> str:
    return dt.datetime.now(dt.timezone.utc).strftime(TIME_FORMAT)


def git_head(folder: Path) -> str | None:
    """The commit checked out in @p folder, or None when it is not a git checkout."""
    try:
        out = subprocess.run(["git", "-c", "safe.directory=*", "-C", str(folder), "rev-parse",
                              "HEAD"], capture_output=True, text=True, check=False, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    sha = out.stdout.strip()
    return sha if out.returncode == 0 and re.fullmatch(r"[0-9a-f]{40}", sha) else None


def gpu_model() -> str:
    """The name of the first GPU nvidia-smi lists, or "no GPU"."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return "no GPU"
    try:
        out = subprocess.run([smi, "--query-gpu=name", "--format=csv,noheader"],
                             capture_output=True, text=True, check=False, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return "no GPU"
    names = [line.strip() for line in out.stdout.splitlines() if line.strip()]
    return names[0] if out.returncode == 0 and names else "no GPU"


def identity(env: dict, sha: str, when: str) -> dict:
    """The identity fields of result.json for this run (Classroom 50, GitHub Actions or local)."""
    if env.get("CLASSROOM") and env.get("SUBMISSION_TAG"):
        commit = env.get("COMMIT_URL") or f"commit {sha}"
        return {"classroom": env["CLASSROOM"], "assignment": env.get("ASSIGNMENT", ""),
                "assignment_type": assignment_type(env.get("ASSIGNMENT_TYPE")),
                "owner": env.get("OWNER") or env.get("USERNAME") or env.get("GITHUB_ACTOR")
                or "unknown",
                "submission": env["SUBMISSION_TAG"], "commit": commit,
                "release": env.get("RELEASE_URL") or commit,
                "review": env.get("REVIEW_URL") or commit}
    stamp = when.replace(":", "-")
    if env.get("GITHUB_REPOSITORY"):
        server = env.get("GITHUB_SERVER_URL", "https://github.com")
        repo = env["GITHUB_REPOSITORY"]
        commit = f"{server}/{repo}/commit/{sha}"
        run = f"{server}/{repo}/actions/runs/{env.get('GITHUB_RUN_ID', '')}".rstrip("/")
        ref = env.get("GITHUB_REF", "")
        tag = ref[len("refs/tags/"):] if ref.startswith("refs/tags/submit/") else ""
        return {"classroom": env.get("GITHUB_REPOSITORY_OWNER") or repo.split("/")[0],
                "assignment": env.get("CUDALAB_ASSIGNMENT") or "cudalabs",
                "assignment_type": "individual",
                "owner": env.get("GITHUB_ACTOR") or repo.split("/")[-1],
                "submission": tag or f"submit/{stamp}-{sha[:7]}", "commit": commit,
                "release": run, "review": commit}
    return {"classroom": "local", "assignment": "cudalabs", "assignment_type": "individual",
            "owner": env.get("USER") or "local", "submission": f"submit/{stamp}-{sha[:7]}",
            "commit": f"commit {sha}", "release": "local run", "review": f"commit {sha}"}


def assignment_type(value: str | None) -> str:
    """ASSIGNMENT_TYPE as Classroom 50's runner maps its mode: "group" and "team" verbatim,
    anything else "individual" (the runner stamps the field again after the autograder)."""
    value = (value or "").strip().lower()
    return value if value in ASSIGNMENT_TYPES else "individual"


def is_submit_tag(env: dict) -> bool:
    """A pushed submit/* tag asks for a full grade (Classroom 50 sets SUBMISSION_TAG for every
    submission, so only the pushed ref counts)."""
    return env.get("GITHUB_REF", "").startswith("refs/tags/submit/")


def load_previous(path: Path | None) -> dict | None:
    """The previous result.json, or None (with a note) when it is missing or breaks the v1
    rules: then every lab is graded."""
    if path is None:
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        print(f"autograde: previous result {path} not used ({e}); grading every lab")
        return None
    errors = validate_result(doc)
    if errors:
        print(f"autograde: previous result {path} not used ({errors[0]}); grading every lab")
        return None
    return doc


# ---------------------------------------------------------------------------
# scores.json -> lab entries
# ---------------------------------------------------------------------------
def key_ratios(lab: LabScore) -> list[dict]:
    """The lab's thresholded speed ratios (unit x or %) and tiered measurements, compact."""
    out = []
    for m in lab.measurements:
        if m.threshold is None and not m.tiers:
            continue
        if m.unit not in ("x", "%") and not m.tiers:
            continue
        out.append({"test": m.test, "name": m.name, "value": m.value, "unit": m.unit,
                    "threshold": m.threshold, "bound": m.bound, "tier": m.tier,
                    "bar_source": m.bar_source})
    return out


def calibration_text(scores: dict) -> str:
    """Where this run's speed bars came from (scores.json environment.calibration), one line."""
    cal = (scores.get("environment") or {}).get("calibration") or {}
    if not cal.get("bars"):
        return "no speed bar judged"
    files = ", ".join(cal.get("files") or []) or "no calibration file"
    src = cal.get("by_source") or {}
    text = files
    if src.get("reference"):
        text += " (the reference GPU's: no calibration for this GPU)"
    if src.get("none"):
        text += f" ({src['none']} bar(s) in no calibration file: those tests failed)"
    return text


def flag_text(flags: list[dict]) -> str:
    """One line naming the first intake flags: `file:line construct`."""
    parts = [f"{f.get('file', '?')}:{f.get('line', '?')} {f.get('construct', '?')}"
             for f in flags[:MAX_FLAGS_IN_MESSAGE]]
    more = len(flags) - MAX_FLAGS_IN_MESSAGE
    return "; ".join(parts) + (f" and {more} more" if more > 0 else "")


def graded_labs(scores: dict, wanted: set[str] | None) -> list[LabScore]:
    """The labs[] entries of scores.json that this run graded."""
    labs = []
    for i, raw in enumerate(scores.get("labs", [])):
        lab = LabScore.from_json(raw, f"scores.json labs[{i}]")
        if lab.graded_in_this_run is False:
            continue
        if wanted is not None and lab.lab not in wanted:
            continue
        labs.append(lab)
    return labs


def lab_entries(scores: dict, labs: list[LabScore], gpu_grading: bool, lock: Lock | None,
                context: dict) -> list[dict]:
    """One result.json test entry per lab of @p labs (graded_labs()), in whole points; @p lock:
    the course's tests/grading.json (the points of every lab, technique and objective)."""
    names = {lab.lab for lab in labs}
    tests = {t.name: t for t in map(TestResult.from_json, scores.get("tests", []))
             if t.lab in names}
    points = lab_results(tests, lock.only(names) if lock else None, gpu_grading,
                         {lab.lab: lab for lab in labs})
    entries = []
    for lab in labs:
        res = points.get(lab.lab, {"max_score": 0, "status": "pass", "tests": []})
        entries.append(entry_for(lab, res, context))
    return entries


def entry_for(lab: LabScore, res: dict, context: dict) -> dict:
    """The result.json entry of one lab from its lab_points result @p res."""
    score = sum(t["score"] for t in res["tests"])
    most = int(res["max_score"])
    counts = {s: sum(t["status"] == s for t in res["tests"]) for s in ("pass", "fail", "error")}
    flags = [f.to_json() for f in lab.flags]
    name = f"{lab.lab} {lab.topic}".strip()
    if flags:
        name += f" [{len(flags)} intake flag{'s' if len(flags) != 1 else ''}]"
    message = f"{counts['pass']} of {len(res['tests'])} tests passed"
    if not lab.grader_built:
        message = f"{lab.lab} did not compile: none of its tests could run"
    elif counts["error"]:
        message += f", {counts['error']} could not run"
    if flags:
        message += f"; intake flags: {flag_text(flags)}"
    if context.get("needs_review"):
        message += ("; NEEDS REVIEW: a file of the course copy or the build changed during the "
                    "tests")
    failures = [{"test": t["name"], "message": one_line(t.get("message") or t["status"])}
                for t in res["tests"] if t["status"] != "pass"]
    return LabResult(
        name, res["status"] == "pass" and score == most, int(score), most,
        message[:MAX_MESSAGE], {
            "lab": lab.lab, "topic": lab.topic,
            "tests": len(res["tests"]), "passed": counts["pass"], "failed": counts["fail"],
            "errors": counts["error"], "grader_built": lab.grader_built,
            "flags": flags, "ratios": key_ratios(lab), "graded_in_this_run": True,
            "failures": failures[:MAX_FAILURES_PER_LAB],
            "failures_not_listed": max(0, len(failures) - MAX_FAILURES_PER_LAB),
            # The whole points in the lock's shape: technique -> objective -> points, earned.
            "points": res.get("points") or {},
            # Parts this GPU cannot run (the scoreboard's labs[].unavailable): optional here.
            "unavailable": [{"technique": u.technique, "objective": u.objective,
                             "points": u.points, "needs": u.needs} for u in lab.unavailable],
            **context,
        }).to_json()


def one_line(text: str) -> str:
    """A test's message on one line, at most MAX_FAILURE_MESSAGE characters."""
    text = " ".join(str(text).split())
    return text if len(text) <= MAX_FAILURE_MESSAGE else text[:MAX_FAILURE_MESSAGE - 1] + "…"


def _md(text: str) -> str:
    """@p text safe inside a Markdown table cell or list item (no table break, no HTML)."""
    return (str(text).replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;")
            .replace("`", "'"))


def unavailable_text(c: dict) -> str:
    """'12 points need compute capability 9.0 (PersistentMmaGpu 3, ...)' for a lab's parts this
    GPU cannot run (cudalabs.unavailable), or ''."""
    parts = c.get("unavailable") or []
    if not parts:
        return ""
    needs = " / ".join(sorted({str(u.get("needs")) for u in parts}))
    total = sum(float(u.get("points") or 0) for u in parts)
    return (f"{total:g} points need compute capability {needs} (" +
            ", ".join(f"{u.get('objective')} {float(u.get('points') or 0):g}" for u in parts) +
            ")")


def result_entries(doc: dict) -> list[LabResult]:
    """The lab entries of a result.json document."""
    return [LabResult.from_json(e, f"result.json tests[{i}]") for i, e in enumerate(doc["tests"])]


def failure_lines(doc: dict) -> list[str]:
    """Markdown: per lab that lost points, each failed test's name and its one-line message."""
    out = []
    for e in result_entries(doc):
        c = e.cudalabs
        fails = c.get("failures") or []
        if not fails:
            continue
        more = int(c.get("failures_not_listed") or 0)
        when = "" if c.get("graded_in_this_run", True) else \
            f" (reused from {str(c.get('graded_commit') or '?')[:7]})"
        out += ["", f"#### {_md(c.get('lab', e.name))} {_md(c.get('topic') or '')}: "
                    f"{len(fails) + more} test(s) not passed{when}", ""]
        out += [f"- `{f['test']}`: {_md(f.get('message') or '')}" for f in fails]
        if more:
            out.append(f"- and {more} more (scores.json lists every test)")
        out.append(f"- run them: `ctest --preset student -R '^{c.get('lab', 'labNN')}\\.' "
                   "--output-on-failure`")
    return out


def compose(ident: dict, entries: list[dict], when: str) -> dict:
    """The result.json document."""
    doc = {"schema": RESULT_SCHEMA, **ident, "datetime": when, "graded_at": when,
           "score": sum(e["score"] for e in entries),
           "max-score": sum(e["max-score"] for e in entries), "tests": entries}
    return {k: doc[k] for k in TOP_KEYS if k in doc}


def release_body(doc: dict) -> str:
    """Markdown for the submission's release and the job summary."""
    lines = [f"### cudalabs: {doc['score']} / {doc['max-score']} points", "",
             "| lab | points | passed | graded | intake flags |", "|---|---:|---|---|---|"]
    entries = result_entries(doc)
    for e in entries:
        c = e.cudalabs
        graded = "this run" if c.get("graded_in_this_run", True) else \
            f"reused from {str(c.get('graded_commit') or '?')[:7]}"
        flags = flag_text(e.flags) if e.flags else ""
        lines.append(f"| {c.get('lab', e.name)} | {e.score} / {e.max_score} | "
                     f"{'yes' if e.passed else 'no'} | {graded} | "
                     f"{flags.replace('|', '/')} |")
    first = entries[0].cudalabs if entries else {}
    lines += ["", f"GPU: {first.get('gpu', '?')}; course release {first.get('course_ref', '?')}."]
    gone = [(e.cudalabs, unavailable_text(e.cudalabs)) for e in entries]
    gone = [(c, text) for c, text in gone if text]
    if gone:
        lines += ["", "### Unavailable on this GPU (optional)", "",
                  "These parts need a newer GPU than the one that graded this push; their points "
                  "are optional/unavailable on this GPU (they count as not passed here):", ""]
        lines += [f"- {_md(c.get('lab', '?'))}: {_md(text)}" for c, text in gone]
    fails = failure_lines(doc)
    if fails:
        lines += ["", "### What did not pass"] + fails
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# The driver
# ---------------------------------------------------------------------------
def run_driver(driver: str, args, out: Path, labs: list[str] | None) -> bool:
    """Runs the grading driver (the module @p driver of the course copy, never one the
    working directory holds: course_python) into @p out; raises GradingError when it did not
    grade. Returns whether the run needs review (exit status 3: it graded, but a file of the
    course copy or the build changed during the tests)."""
    if not module_file(args.course, driver).is_file():
        raise GradingError(f"no grading driver {module_file(args.course, driver)} (is --course "
                           "the course release?)")
    cmd = module_command(driver) + ["--submission", str(args.submission), "--course",
                                    str(args.course), "--out", str(out), "--preset", args.preset]
    if labs is not None:
        cmd += ["--labs", ",".join(labs)]
    if args.test_user:
        cmd += ["--test-user", args.test_user]
    if args.step_summary:
        cmd.append("--step-summary")
    print("autograde: " + " ".join(cmd), flush=True)
    try:
        rc = subprocess.run(cmd, check=False, timeout=args.timeout,
                            env=course_env(args.course)).returncode
    except subprocess.TimeoutExpired:
        raise GradingError(f"grading did not finish in {args.timeout} s") from None
    if rc not in (0, 3):
        raise GradingError(f"the grading driver exited with {rc}")
    if not (out / "scores.json").is_file():
        raise GradingError(f"the grading driver wrote no {out / 'scores.json'}")
    return rc == 3


def load_json(path: Path, what: str) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise GradingError(f"{what} {path} is not readable JSON: {e}") from None


def read_lock(course: Path) -> Lock | None:
    """The course's points lock, tests/grading.json, or None when it has none."""
    path = course / "tests" / "grading.json"
    if not path.is_file():
        return None
    try:
        return Lock.from_json(load_json(path, "points lock"), f"the points lock {path}")
    except ModelError as e:
        raise GradingError(str(e)) from None


def course_labs(course: Path) -> list[str]:
    """lab01, lab02, ... of the course tree."""
    return sorted(p.name[:5] for p in (course / "labs").glob("lab[0-9][0-9]_*") if p.is_dir())


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------
def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog=__doc__.split("\n\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--submission", type=Path, default=Path("."),
                    help="checkout of the student's repository (default: the current folder)")
    ap.add_argument("--course", type=Path, default=HERE.parents[1],
                    help="the course release at its pinned commit (default: this script's tree)")
    ap.add_argument("--out", type=Path, required=True,
                    help="folder for the driver's scores.json, junit.xml, intake.json (created)")
    ap.add_argument("--preset", choices=("student", "ci-student"), default="student",
                    help="student: grade on this GPU, every graded test counts (default); "
                         "ci-student: no GPU, only the tests that need none count")
    ap.add_argument("--result", type=Path, default=Path("result.json"),
                    help="where to write result.json (default: ./result.json, where Classroom 50 "
                         "reads it); release-body.md goes next to it")
    ap.add_argument("--previous", type=Path,
                    help="result.json of the last graded push: labs whose reuse key is "
                         "unchanged are copied from it instead of graded")
    ap.add_argument("--full", action="store_true",
                    help="grade every lab, reuse nothing (also for a pushed submit/* tag)")
    ap.add_argument("--labs", help="grade only these labs (comma-separated, e.g. lab07,lab09)")
    ap.add_argument("--test-user", help="run the tests as this user (passed to the driver)")
    ap.add_argument("--course-ref", help="the course commit (default: git HEAD of --course)")
    ap.add_argument("--gpu-model", help="the GPU model for the reuse key (default: nvidia-smi)")
    ap.add_argument("--summary", type=Path, help="append the Markdown table to this file")
    ap.add_argument("--step-summary", action="store_true",
                    help="have the driver append the scoreboard (scores.md: every lab, the "
                         "failed tests, the GPU) to $GITHUB_STEP_SUMMARY")
    ap.add_argument("--assets", type=Path,
                    help="folder (emptied first) for the student's copies of scores.json, "
                         "junit.xml and feedback.md (the failed tests per lab): Classroom 50 "
                         "attaches them to the release when the assignment's release_assets "
                         "lists them")
    ap.add_argument("--driver", default="tools.release.grade_submission",
                    help="grading driver, a module of the course copy run with the course copy "
                         "alone on its module search path (default: %(default)s)")
    ap.add_argument("--timeout", type=int, default=13 * 60,
                    help="seconds the driver may take (default 780: Classroom 50's grade job "
                         "stops after 15 minutes)")
    args = ap.parse_args(argv)
    args.submission, args.course = args.submission.resolve(), args.course.resolve()
    args.out = args.out.resolve()
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    env = dict(os.environ)
    try:
        if not args.submission.is_dir():
            raise GradingError(f"no submission folder {args.submission}")
        all_labs = course_labs(args.course)
        if not all_labs:
            raise GradingError(f"{args.course} has no labs/labNN_* (is it the course release?)")
        if args.labs:
            unknown = sorted(set(args.labs.split(",")) - set(all_labs))
            if unknown:
                print(f"autograde: unknown lab(s) {', '.join(unknown)}; the course has "
                      f"{', '.join(all_labs)}", file=sys.stderr)
                return 2
        doc = grade(args, env, all_labs)
    except GradingError as e:
        print(f"autograde: {e}", file=sys.stderr)
        return 1
    errors = validate_result(doc)
    if errors:
        print("autograde: internal error, result.json breaks the v1 rules: " + "; ".join(errors),
              file=sys.stderr)
        return 1
    write_outputs(args, doc)
    return 0


def grade(args, env: dict, all_labs: list[str]) -> dict:
    """Grades what needs grading and returns the result.json document."""
    sha = git_head(args.submission) or env.get("GITHUB_SHA") or "0" * 40
    when = now_utc()
    context = {"gpu": args.gpu_model or gpu_model(),
               "course_ref": args.course_ref or git_head(args.course) or "unknown",
               "graded_commit": sha}
    selected = args.labs.split(",") if args.labs else all_labs
    lab_keys = {lab: key for lab, key in reuse.keys(args.submission, args.course,
                                                    context["course_ref"], context["gpu"],
                                                    args.preset).items() if lab in selected}
    full = args.full or is_submit_tag(env)
    to_grade, carried = reuse.plan(lab_keys, None if full else load_previous(args.previous),
                                   full)
    print(f"autograde: grading {', '.join(to_grade) or 'nothing'}"
          + (f"; reusing {', '.join(sorted(carried))} (files unchanged)" if carried else "")
          + (" (full grade)" if full else ""), flush=True)
    entries = list(carried.values())
    if to_grade:
        entries += grade_labs(args, to_grade, None if to_grade == all_labs else to_grade,
                              context)
    for e in entries:
        lab = e["cudalabs"]["lab"]
        if lab in lab_keys and e["cudalabs"].get("graded_in_this_run", True):
            e["cudalabs"]["reuse_key"] = lab_keys[lab]
    entries.sort(key=lambda e: e["cudalabs"]["lab"])
    return compose(identity(env, sha, when), entries, when)


def grade_labs(args, wanted: list[str], driver_labs: list[str] | None, context: dict) -> list[dict]:
    """Runs the driver for @p wanted and returns their entries."""
    args.out.mkdir(parents=True, exist_ok=True)
    review = run_driver(args.driver, args, args.out, driver_labs)
    scores = load_json(args.out / "scores.json", "scores")
    context = {**context, "needs_review": True} if review else context
    context = {**context, "calibration": calibration_text(scores)}
    lock = read_lock(args.course)
    labs = graded_labs(scores, set(wanted))
    return lab_entries(scores, labs, args.preset == "student", lock, context)


def write_assets(folder: Path, out: Path, body: str) -> None:
    """scores.json and junit.xml of this run (when it graded) and feedback.md into @p folder,
    which is emptied first: nothing the submission put there is passed on."""
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        folder.unlink()
    elif folder.is_dir():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for name in ASSET_FILES:
        if name != "feedback.md" and (out / name).is_file():
            shutil.copyfile(out / name, folder / name)
    (folder / "feedback.md").write_text(body, encoding="utf-8")


def write_outputs(args, doc: dict) -> None:
    """result.json, release-body.md beside it, the summary; prints the table."""
    args.result.parent.mkdir(parents=True, exist_ok=True)
    args.result.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    body = release_body(doc)
    if args.assets:
        write_assets(args.assets, args.out, body)
    (args.result.parent / "release-body.md").write_text(body, encoding="utf-8")
    if args.summary:
        with open(args.summary, "a", encoding="utf-8") as f:
            f.write(body + "\n")
    print(body, end="")
    print(f"autograde: {doc['score']} / {doc['max-score']} points -> {args.result}")


if __name__ == "__main__":
    sys.exit(main())
