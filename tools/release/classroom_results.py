#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
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
$GITHUB_OUTPUT. Points are the scoreboard's (docs/scores-schema.md: 100 per lab, split by
objective; each test's `weight`), in whole points: within a lab, the tests' weights are
rounded so that they add up to the rounded total (largest remainders first), so that a lab
passed in full shows exactly its maximum.

What counts toward a lab's maximum: every graded test with --gpu-grading (the course grades
on a GPU runner; a GPU test that did not run earns 0), else only the tests that can run
without a GPU (category `cpu`). A test that no run judged (`not run`) is an error with 0
points. A lab whose grader did not compile keeps its maximum: the scoreboard's 100 with
--gpu-grading, else its CPU share from the points manifest. `points` writes that manifest
(every graded test with its lab, category and weight) from the scores of a complete run,
e.g. of the untouched stubs (the student release export's --verify writes it into
the release).

Exit status: 0; 2 on a usage or input error. Python 3 standard library only.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
from pathlib import Path

from lab_points import InputError, lab_results, load_scores, merge


def encode(result: dict) -> str:
    return base64.b64encode(json.dumps(result, separators=(",", ":")).encode()).decode()


def markdown(labs: dict, sources: list[str], gpu_grading: bool) -> str:
    total = round(sum(t["score"] for lab in labs.values() for t in lab["tests"]), 2)
    most = round(sum(lab["max_score"] for lab in labs.values()), 2)
    out = ["### GitHub Classroom points", "",
           f"**{total} / {most}** points ({'GPU and CPU tests' if gpu_grading else 'tests that need no GPU'}"
           f"; from {', '.join(sources) or 'no run'}).", "",
           "| lab | points | passed | failed | errors |", "|---|---:|---:|---:|---:|"]
    for name, lab in labs.items():
        c = {s: sum(t["status"] == s for t in lab["tests"]) for s in ("pass", "fail", "error")}
        score = round(sum(t["score"] for t in lab["tests"]), 2)
        out.append(f"| {name} | {score} / {lab['max_score']} | {c['pass']} | {c['fail']} | "
                   f"{c['error']} |")
    return "\n".join(out) + "\n\n"


def cmd_report(args) -> int:
    runs: list[list[dict]] = []
    sources: list[str] = []
    lab_info: dict[str, dict] = {}
    for p in args.scores:
        loaded = load_scores(p)
        if loaded is None:
            print(f"classroom_results: {p} not found (that grading job produced no scores)")
            continue
        tests, labs_of_run = loaded
        runs.append(tests)
        sources.append(str(p))
        for li in labs_of_run:
            have = lab_info.get(li["lab"])
            # A lab counts as built when any run built its grader.
            if have is None or (not have.get("grader_built", True) and li.get("grader_built")):
                lab_info[li["lab"]] = li
    manifest = None
    if args.points:
        if args.points.is_file():
            manifest = json.loads(args.points.read_text(encoding="utf-8"))
        else:
            print(f"classroom_results: no points manifest {args.points}: the maximum counts "
                  "only the tests that ran")
    labs = lab_results(merge(runs), manifest, args.gpu_grading, lab_info)
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
    loaded = load_scores(args.scores[0])
    if loaded is None:
        raise InputError(f"{args.scores[0]} not found")
    tests = loaded[0]
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
