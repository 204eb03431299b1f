# SPDX-License-Identifier: BSD-3-Clause
"""Points per lab from the scoreboard's scores.json files, shared by every way a grade is
reported (tools/release/autograde.py for Classroom 50 and plain GitHub, the instructor's
regrade), and the points manifest they read.

Points are the scoreboard's (docs/scores-schema.md: 100 per lab, split by objective; each
test's `weight`), in whole points: within a lab, the tests' weights are rounded so that they
add up to the rounded total (largest remainders first), so that a lab passed in full shows
exactly its maximum. What counts toward a lab's maximum: every graded test when the course
grades on a GPU (a GPU test that did not run earns 0), else only the tests that can run
without a GPU (category `cpu`). A test that no run judged (`not run`) is an error with 0
points. A lab whose grader did not compile keeps its maximum: the scoreboard's 100 when
grading on a GPU, else its CPU share from the points manifest (tools/release/points.json).

As a command it writes that manifest (every graded test with its lab, category and weight)
from the scores of one complete run, e.g. of the untouched stubs (the student release export's
--verify does):

    python3 -m tools.release.lab_points --scores build/ci-student/scores.json \
        -o tools/release/points.json

Exit status 0; 2 on a usage or input error. Python 3 standard library.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

STATUS = {"passed": "pass", "failed": "fail", "error": "error", "skipped": "fail",
          "not run": "error"}
JUDGED = {"passed", "failed", "error"}  # a verdict; "skipped" and "not run" are not
MAX_MESSAGE = 500


class InputError(Exception):
    """A missing or malformed input file (exit status 2)."""


def load_scores(path: Path) -> tuple[list[dict], list[dict]] | None:
    """The graded tests and the labs of one scores.json, or None when it does not exist."""
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise InputError(f"{path}: not readable as JSON: {e}") from None
    if data.get("schema") != "cudalabs-scores":
        raise InputError(f"{path}: not a cudalabs scores.json (schema {data.get('schema')!r})")
    return list(data.get("tests", [])), list(data.get("labs", []))


def merge(runs: list[list[dict]]) -> dict[str, dict]:
    """Per test name, the first run's verdict (else the first skip, else "not run")."""
    merged: dict[str, dict] = {}
    for tests in runs:
        for t in tests:
            have = merged.get(t["name"])
            if have is None or (have["status"] not in JUDGED and t["status"] in JUDGED) or \
                    (have["status"] == "not run" and t["status"] == "skipped"):
                merged[t["name"]] = t
    return merged


def lab_results(tests: dict[str, dict], manifest: dict | None, gpu_grading: bool,
                lab_info: dict[str, dict] | None = None) -> dict:
    """Classroom results per lab: {lab: {"version", "status", "max_score", "tests"}}.

    @p lab_info: the scoreboard's labs[] entries by lab (grader_built, max_points)."""
    expected = {}
    for t in (manifest or {}).get("tests", []):
        expected[t["name"]] = t
    names = sorted(set(tests) | set(expected))
    labs: dict[str, dict] = {}
    for name in names:
        t = tests.get(name)
        info = t or expected[name]
        counted = gpu_grading or info.get("category") == "cpu"
        if not counted:
            continue
        lab = labs.setdefault(info["lab"], {"version": 1, "status": "pass", "tests": []})
        weight = float(info.get("weight", 1))
        if t is None or t["status"] == "not run":
            status, message = "error", (f"not run: {info['lab']} did not compile or its tests "
                                        "could not start (see the build step's log)")
        else:
            status = STATUS.get(t["status"], "error")
            message = t.get("message") or ""
            if t["status"] == "skipped":
                message = "skipped: " + (message or "no GPU here")
        lab["tests"].append({
            "weight": weight,
            # Messages are capped: every lab's results travel in one environment variable.
            "name": name, "status": status, "score": 0, "message": message[:MAX_MESSAGE],
            "test_code": f"ctest --preset student -R '^{name}$'", "filename": "", "line_no": 0,
            "duration": int(round(float((t or {}).get("time_s") or 0) * 1000)),
        })
    # A lab whose grader did not compile in any run has no test list: it keeps its maximum.
    for lab_id, li in sorted((lab_info or {}).items()):
        if lab_id in labs or li.get("grader_built", True):
            continue
        most = int(round(float(li.get("max_points") or 0))) if gpu_grading else 0
        labs[lab_id] = {"version": 1, "status": "error", "max_score": most, "tests": [{
            "name": f"{lab_id} (grader)", "status": "error", "score": 0, "filename": "",
            "line_no": 0, "test_code": "cmake --build --preset student",
            "message": f"{lab_id} did not compile: none of its tests could run (see the build "
                       "step's log)"}]}
    for lab in labs.values():
        whole = whole_points([t.pop("weight", 0.0) for t in lab["tests"]])
        if "max_score" not in lab or not lab["max_score"]:
            lab["max_score"] = sum(whole)
        for t, w in zip(lab["tests"], whole):
            t["score"] = w if t["status"] == "pass" else 0
        statuses = {t["status"] for t in lab["tests"]}
        lab["status"] = "fail" if "fail" in statuses else "error" if "error" in statuses \
            else "pass"
    return dict(sorted(labs.items()))


def whole_points(weights: list[float]) -> list[int]:
    """Whole points for @p weights that add up to round(sum): floors, then one more point
    for the largest remainders (the earlier test first on a tie)."""
    floors = [int(w) for w in weights]
    left = int(round(sum(weights))) - sum(floors)
    order = sorted(range(len(weights)), key=lambda i: (-(weights[i] - floors[i]), i))
    for i in order[:max(left, 0)]:
        floors[i] += 1
    return floors


def manifest(tests: list[dict]) -> dict:
    """The points manifest of one complete run's graded @p tests."""
    return {
        "schema": "cudalabs-points", "version": 1,
        "about": "every graded test of the course with its points (written by "
                 "tools/release/lab_points.py)",
        "tests": [{"name": t["name"], "lab": t["lab"], "category": t["category"],
                   "weight": t["weight"]} for t in sorted(tests, key=lambda t: t["name"])],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Writes the points manifest from the scores of "
                                             "one complete run.")
    ap.add_argument("--scores", type=Path, required=True, help="the run's scores.json")
    ap.add_argument("-o", "--output", type=Path, required=True,
                    help="the manifest to write (tools/release/points.json)")
    args = ap.parse_args(argv)
    try:
        loaded = load_scores(args.scores)
        if loaded is None:
            raise InputError(f"{args.scores} not found")
        tests = loaded[0]
        args.output.write_text(json.dumps(manifest(tests), indent=1) + "\n", encoding="utf-8")
    except (InputError, OSError, KeyError) as e:
        print(f"lab_points: {e}", file=sys.stderr)
        return 2
    labs = sorted({t["lab"] for t in tests})
    print(f"lab_points: {len(tests)} graded tests of {len(labs)} labs -> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
