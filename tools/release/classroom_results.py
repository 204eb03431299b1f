#!/usr/bin/env python3
"""Points per lab for GitHub Classroom, from the scoreboard's scores.json files.

    python3 tools/release/classroom_results.py report --scores GPU.json --scores CPU.json \\
        [--points tools/release/points.json] [--gpu-grading] \\
        [--github-env FILE] [--github-output FILE] [--summary FILE] [--print]
    python3 tools/release/classroom_results.py points --scores build/ci-student/scores.json \\
        -o tools/release/points.json

`report` merges the scores of one grading run (the GPU job's first, then the no-GPU job's;
for each test the first file that judged it wins, a skip never overrides a verdict) and
writes one result per lab in the form GitHub Classroom's autograding actions exchange
(classroom-resources/autograding-grading-reporter reads, for each runner id listed in its
`runners` input, the environment variable `<ID>_RESULTS`: base64 of
`{"version": 1, "status", "max_score", "tests": [{"name", "status", "score", "message",
...}]}`). The runner ids are the labs (`lab01`, ...). --github-env appends the
`LABNN_RESULTS=...` lines to $GITHUB_ENV, --github-output appends `runners=lab01,...` to
$GITHUB_OUTPUT. Points are the scoreboard's: 1 per graded test, 2 per perf test.

What counts toward a lab's maximum: every graded test with --gpu-grading (the course grades
on a GPU runner; a GPU test that did not run earns 0), else only the tests that can run
without a GPU (category `cpu`). A test the points manifest lists but no run reports (its lab
did not compile) counts as an error with 0 points, so a broken lab cannot shrink the
maximum. `points` writes that manifest (every graded test with its lab, category and weight)
from the scores of a complete run, e.g. of the untouched stubs
(tools/export_student_release.sh --verify writes it into the release).

Exit status: 0; 2 on a usage or input error. Python 3 standard library only.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
from pathlib import Path

STATUS = {"passed": "pass", "failed": "fail", "error": "error", "skipped": "fail"}
MAX_MESSAGE = 500


class InputError(Exception):
    """A missing or malformed input file (exit status 2)."""


def load_scores(path: Path) -> list[dict] | None:
    """The graded tests of one scores.json, or None when the file does not exist."""
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise InputError(f"{path}: not readable as JSON: {e}") from None
    if data.get("schema") != "cudalabs-scores":
        raise InputError(f"{path}: not a cudalabs scores.json (schema {data.get('schema')!r})")
    return list(data.get("tests", []))


def merge(runs: list[list[dict]]) -> dict[str, dict]:
    """Per test name, the first run's verdict that is not a skip (else the first skip)."""
    merged: dict[str, dict] = {}
    for tests in runs:
        for t in tests:
            have = merged.get(t["name"])
            if have is None or (have["status"] == "skipped" and t["status"] != "skipped"):
                merged[t["name"]] = t
    return merged


def lab_results(tests: dict[str, dict], manifest: dict | None, gpu_grading: bool) -> dict:
    """Classroom results per lab: {lab: {"version", "status", "max_score", "tests"}}."""
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
        lab = labs.setdefault(info["lab"], {"version": 1, "status": "pass", "max_score": 0,
                                            "tests": []})
        weight = int(info.get("weight", 1))
        lab["max_score"] += weight
        if t is None:
            status, message = "error", (f"not run: {info['lab']} did not compile or its tests "
                                        "could not start (see the build step's log)")
        else:
            status = STATUS.get(t["status"], "error")
            message = t.get("message") or ""
            if t["status"] == "skipped":
                message = "skipped: " + (message or "no GPU here")
        score = weight if status == "pass" else 0
        lab["tests"].append({
            # Messages are capped: every lab's results travel in one environment variable.
            "name": name, "status": status, "score": score, "message": message[:MAX_MESSAGE],
            "test_code": f"ctest --preset student -R '^{name}$'", "filename": "", "line_no": 0,
            "duration": int(round(float((t or {}).get("time_s") or 0) * 1000)),
        })
    for lab in labs.values():
        statuses = {t["status"] for t in lab["tests"]}
        lab["status"] = "fail" if "fail" in statuses else "error" if "error" in statuses \
            else "pass"
    return dict(sorted(labs.items()))


def encode(result: dict) -> str:
    return base64.b64encode(json.dumps(result, separators=(",", ":")).encode()).decode()


def markdown(labs: dict, sources: list[str], gpu_grading: bool) -> str:
    total = sum(t["score"] for lab in labs.values() for t in lab["tests"])
    most = sum(lab["max_score"] for lab in labs.values())
    out = ["### GitHub Classroom points", "",
           f"**{total} / {most}** points ({'GPU and CPU tests' if gpu_grading else 'tests that need no GPU'}"
           f"; from {', '.join(sources) or 'no run'}).", "",
           "| lab | points | passed | failed | errors |", "|---|---:|---:|---:|---:|"]
    for name, lab in labs.items():
        c = {s: sum(t["status"] == s for t in lab["tests"]) for s in ("pass", "fail", "error")}
        score = sum(t["score"] for t in lab["tests"])
        out.append(f"| {name} | {score} / {lab['max_score']} | {c['pass']} | {c['fail']} | "
                   f"{c['error']} |")
    return "\n".join(out) + "\n\n"


def cmd_report(args) -> int:
    runs, sources = [], []
    for p in args.scores:
        tests = load_scores(p)
        if tests is None:
            print(f"classroom_results: {p} not found (that grading job produced no scores)")
            continue
        runs.append(tests)
        sources.append(str(p))
    manifest = None
    if args.points:
        if args.points.is_file():
            manifest = json.loads(args.points.read_text(encoding="utf-8"))
        else:
            print(f"classroom_results: no points manifest {args.points}: the maximum counts "
                  "only the tests that ran")
    labs = lab_results(merge(runs), manifest, args.gpu_grading)
    if not labs:
        # Nothing ran and nothing is known: one runner says so (Classroom shows the error).
        labs = {"build": {"version": 1, "status": "error", "max_score": 0, "tests": [{
            "name": "build", "status": "error", "score": 0, "filename": "", "line_no": 0,
            "message": "no test ran: the course did not configure or build (see the logs)",
            "test_code": "cmake --workflow --preset student"}]}}
    lines = [f"{name.upper()}_RESULTS={encode(r)}" for name, r in labs.items()]
    if args.github_env:
        with open(args.github_env, "a", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    if args.github_output:
        with open(args.github_output, "a", encoding="utf-8") as f:
            f.write(f"runners={','.join(labs)}\n")
    md = markdown(labs, sources, args.gpu_grading)
    if args.summary:
        with open(args.summary, "a", encoding="utf-8") as f:
            f.write(md)
    if args.print:
        print(json.dumps(labs, indent=1))
    else:
        print(md, end="")
    return 0


def cmd_points(args) -> int:
    tests = load_scores(args.scores[0])
    if tests is None:
        raise InputError(f"{args.scores[0]} not found")
    manifest = {
        "schema": "cudalabs-points", "version": 1,
        "about": "every graded test of the course with its points (written by "
                 "tools/release/classroom_results.py points)",
        "tests": [{"name": t["name"], "lab": t["lab"], "category": t["category"],
                   "weight": t["weight"]} for t in sorted(tests, key=lambda t: t["name"])],
    }
    args.output.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    labs = sorted({t["lab"] for t in tests})
    print(f"classroom_results: {len(tests)} graded tests of {len(labs)} labs -> {args.output}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    rep = sub.add_parser("report", help="Classroom results per lab from scores.json files")
    rep.add_argument("--scores", type=Path, action="append", required=True,
                     help="a scores.json; repeat, most trusted first (GPU run, then no-GPU run)")
    rep.add_argument("--points", type=Path, help="points manifest (tools/release/points.json)")
    rep.add_argument("--gpu-grading", action="store_true",
                     help="the course grades on a GPU: GPU tests count toward the maximum")
    rep.add_argument("--github-env", help="append LABNN_RESULTS=<base64> lines to this file")
    rep.add_argument("--github-output", help="append runners=<ids> to this file")
    rep.add_argument("--summary", help="append the Markdown table to this file")
    rep.add_argument("--print", action="store_true", help="print the decoded results as JSON")
    pts = sub.add_parser("points", help="write the points manifest from a complete run")
    pts.add_argument("--scores", type=Path, action="append", required=True)
    pts.add_argument("-o", "--output", type=Path, required=True)
    args = ap.parse_args(argv)
    try:
        return cmd_report(args) if args.command == "report" else cmd_points(args)
    except (InputError, OSError, ValueError, KeyError) as e:
        print(f"classroom_results: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
