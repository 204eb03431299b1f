# SPDX-License-Identifier: BSD-3-Clause
"""cudalabs scoreboard: per-lab scores from the grading manifest and CTest's record of a run.

    python3 -m tools.scoreboard [--build-dir build/student] [--run] [-- <ctest args>]

What it reads:
  * the grading manifest (tools/grading_manifest.py): every test CTest lists for the build
    tree with its labels and whether it is graded, and each lab's techniques and objectives with
    the points its tests/labNN_topic/objectives.json declares; when the source tree has
    tests/grading.json (or --declared names one), exactly the tests and points declared there
    are graded;
  * CTest's record of ONE run: with --run, ctest's own console (it runs `ctest -V` through a
    pipe that no test can write: every verdict line is CTest's, and every line a test prints
    comes prefixed with that test's number); otherwise <build-dir>/junit.xml. Each test's
    measurement records ("[ CUDALAB-RECORD ] {...}" lines, cudalab/testing.hpp) count only
    from that test's own captured output and only when they name it; a batch run's report
    counts for the tests of its suite. Everything else is ignored and listed.
Nothing a test writes into a file or folder changes a verdict, a measurement or the points.
Tests this run did not run are "not run" unless --keep-previous asks to keep their result
from the previous scores.json (merging partial runs at home).
It prints a per-lab table (points, key measurements, GPU, CUDALAB_SPEEDUP_SCALE) and writes
<build-dir>/scores.json and <build-dir>/scores.md (Markdown; --step-summary appends it to
$GITHUB_STEP_SUMMARY). Python 3 standard library.

Exit status: 0 on success (failed tests are scores, not errors); 1 with --strict when a
grader was not built, a test could not run or no lab test has a result, or when an
--expect-measurement is missing;
2 on a usage or input error.

The code (next to this file): ctest_record.py reads CTest's JUnit file and console,
measurement_channel.py the tests' records, ctest_run.py runs ctest for --run (without the
job's variables; leftover processes ended), scoring.py gives the points per lab and
score_render.py the table and the Markdown; this file is the command line.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import sys
from pathlib import Path

# The scoreboard's code, all of it loaded before any test runs.
from .ctest_record import ScoreError, read_junit_run
from .ctest_run import run_ctest_stream
from .model import TestResult, measurements_of
from .score_render import render_markdown, render_text
from .scoring import (MANIFEST, apply_declared, declared_from_manifest, iso,
                     load_manifest, read_cache, score)


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------
def check_expected(report: dict, expected: list[str]) -> list[str]:
    """The --expect-measurement TEST:NAME entries that scores.json does not hold."""
    have = {(m.test, m.name) for m in measurements_of(report["measurements"], "measurements")
            if m.value is not None}
    missing = []
    for spec in expected:
        test, _, name = spec.rpartition(":")
        if (test, name) not in have:
            missing.append(spec)
    return missing


def _load_json(path: Path, what: str) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ScoreError(f"cannot read {what} {path}: {e}") from None
    except ValueError as e:
        raise ScoreError(f"{what} {path} is not valid JSON: {e}") from None


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser(
        prog="python3 -m tools.scoreboard",
        description="Per-lab scores from the build tree's manifest and CTest's record of one run "
                    "(verdicts, and each test's own output with its measurement records).",
        epilog="Arguments after -- go to ctest (with --run), e.g. -- -L cpu -j 4.")
    ap.add_argument("--build-dir", type=Path, default=Path("build/student"),
                    help="the build tree (default: build/student)")
    ap.add_argument("--junit", type=Path, help="JUnit file (default: <build-dir>/junit.xml)")
    ap.add_argument("--run", action="store_true",
                    help="run ctest once and score what its console reports (verdicts and each "
                         "test's output), with the CI job's variables removed and every process "
                         "the tests leave behind ended before scoring")
    ap.add_argument("--log", type=Path,
                    help="with --run: keep ctest's console here (default: <build-dir>/ctest-run.log)")
    ap.add_argument("--keep-previous", action="store_true",
                    help="tests this run did not run keep their result from the previous "
                         "scores.json (merging partial runs at home; never for grading)")
    ap.add_argument("--declared", type=Path,
                    help="grade exactly these tests with these points (tests/grading.json of the "
                         "course; default: the source tree's, when it has one)")
    ap.add_argument("--no-declared", action="store_true",
                    help="grade the tests the build lists, with its points")
    ap.add_argument("--write-declared", type=Path, metavar="FILE",
                    help="write the build's graded tests and points as a declared file and exit")
    ap.add_argument("--intake", type=Path,
                    help="the intake scan's flags (python3 -m tools.release.scan_submission --json)")
    ap.add_argument("--json", type=Path, help="scores JSON (default: <build-dir>/scores.json)")
    ap.add_argument("--markdown", type=Path, help="Markdown (default: <build-dir>/scores.md)")
    ap.add_argument("--step-summary", action="store_true",
                    help="also append the Markdown to $GITHUB_STEP_SUMMARY")
    ap.add_argument("--strict", action="store_true",
                    help="exit 1 if a grader was not built, a test could not run, or no lab "
                         "test has a result")
    ap.add_argument("--expect-measurement", action="append", default=[], metavar="TEST:NAME",
                    help="exit 1 unless scores.json holds this measurement (repeatable)")
    ap.add_argument("--quiet", action="store_true", help="do not print the table")
    args = ap.parse_args(argv)
    if extra and not args.run:
        ap.error("arguments after -- are for ctest and need --run")

    build = args.build_dir
    junit = args.junit or build / "junit.xml"
    json_path = args.json or build / "scores.json"
    md_path = args.markdown or build / "scores.md"
    # Everything the score rests on is read before any test runs.
    manifest = load_manifest(build)
    if args.write_declared:
        if manifest.problems:
            raise ScoreError("the labs' declarations do not fit their graders:\n  " +
                             "\n  ".join(manifest.problems))
        lock = declared_from_manifest(manifest)
        args.write_declared.write_text(json.dumps(lock.to_json(), indent=1) + "\n")
        print(f"scoreboard: declared tests and points written to {args.write_declared}")
        return 0
    notes: list[str] = list(manifest.problems)
    declared_path = args.declared
    if declared_path is None and not args.no_declared:
        candidate = Path(manifest.source_dir) / "tests" / "grading.json"
        declared_path = candidate if candidate.is_file() else None
    if declared_path is not None and not args.no_declared:
        notes += apply_declared(manifest, _load_json(declared_path, "declared tests"))
    intake = _load_json(args.intake, "intake scan") if args.intake else None
    previous = None
    if args.keep_previous and json_path.is_file():
        previous = _load_json(json_path, "previous scores")
    cache = read_cache(build)

    if args.run:
        if not (build / "CTestTestfile.cmake").exists():
            raise ScoreError(f"{build} is not a configured build tree (no CTestTestfile.cmake)")
        started = _dt.datetime.now().timestamp()
        rc, cases, ended = run_ctest_stream(build, junit, extra, args.log or build / "ctest-run.log")
        run = {"start": started, "end": _dt.datetime.now().timestamp()}
        if rc not in (0, 8):  # 8: some tests failed, which the scoreboard reports
            print(f"scoreboard: ctest exited with {rc}", file=sys.stderr)
        if ended:
            notes.append(f"{ended} process(es) the tests left running were ended before scoring")
        source_kind = "ctest console"
    elif junit.exists() or args.junit:
        cases, run = read_junit_run(junit)
        source_kind = "junit"
    else:
        raise ScoreError(f"{junit} not found: run the tests first (ctest --preset <name>, or "
                         f"this tool with --run)")
    report = score(manifest, cases, run, cache,
                   {"kind": source_kind, "junit": str(junit), "build_dir": str(build),
                    "manifest": str(build / MANIFEST),
                    "declared": str(declared_path) if declared_path else None,
                    "run_start": iso(run["start"]) if run else None,
                    "keep_previous": args.keep_previous},
                   previous=previous, intake=intake, notes=notes)

    if not args.quiet:
        sys.stdout.write(render_text(report))
    md = render_markdown(report)
    try:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(report, indent=2) + "\n")
        md_path.parent.mkdir(parents=True, exist_ok=True)
        md_path.write_text(md)
        if args.step_summary:
            summary = os.environ.get("GITHUB_STEP_SUMMARY")
            if summary:
                with open(summary, "a", encoding="utf-8") as f:
                    f.write(md)
            else:
                print("scoreboard: --step-summary: GITHUB_STEP_SUMMARY is not set", file=sys.stderr)
    except OSError as e:
        raise ScoreError(f"cannot write the scores: {e}") from None
    if not args.quiet:
        print(f"scores: {json_path}  markdown: {md_path}")

    status = 0
    missing = check_expected(report, args.expect_measurement)
    if missing:
        print("scoreboard: missing measurement(s) in " + str(json_path) + ": " +
              ", ".join(missing), file=sys.stderr)
        status = 1
    if args.strict:
        problems = [t.name for t in map(TestResult.from_json, report["tests"])
                    if t.status == "error"]
        if problems:
            print("scoreboard: could not run: " + ", ".join(problems), file=sys.stderr)
            status = 1
        if report["run"]["graders_not_built"]:
            print("scoreboard: graders not built: " + ", ".join(report["run"]["graders_not_built"]),
                  file=sys.stderr)
            status = 1
        if not report["totals"]["with_result"]:
            print("scoreboard: no graded lab test has a result in " + str(build), file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    try:
        sys.exit(main())
    except ScoreError as e:
        print(f"scoreboard: {e}", file=sys.stderr)
        sys.exit(2)
    except BrokenPipeError:  # e.g. piped into head
        sys.exit(0)
    except KeyboardInterrupt:
        sys.exit(130)
