# SPDX-License-Identifier: BSD-3-Clause
"""Stub audit: every graded test of every lab must FAIL on the untouched student stubs.

    python3 -m tools.stub_audit [--cpu-only] [--lab NN ...] [--build-dir DIR]

Configures the student tree with the ci-student preset (CUDALAB_IMPL=student, warnings as
errors; binary dir build/ci-student unless --build-dir), builds it, runs the graded tests
(every test not labelled `given`; with --cpu-only only those labelled `cpu`) once with
ctest --output-junit, and checks each result:
  failed   expected: the stub is graded as not done
  passed   an OFFENDER: the grader gives points for work that was not done (named)
  skipped  not audited here (no GPU, or a tool such as ncu is missing); listed; an error
           with --require-all
A lab without any graded test in the run is reported too. Exit status: 0 when no graded
test passes on the stubs, 1 when one does (or with --require-all, one was skipped),
2 when the tree does not configure or build, or on a usage error.
Python 3 standard library only; instructor tool (not part of a student release).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

from .ctest_record import ScoreError, read_junit  # the JUnit reader
from .scoring import load_manifest, read_cache  # (the manifest, the build's cache)

ROOT = Path(__file__).resolve().parent.parent


class AuditError(Exception):
    """Configure/build/usage problem: exit status 2."""


def run(cmd: list[str], what: str) -> None:
    print("stub_audit: " + " ".join(cmd), flush=True)
    try:
        rc = subprocess.run(cmd, cwd=ROOT, check=False).returncode
    except OSError as e:
        raise AuditError(f"{what}: cannot run {cmd[0]}: {e}") from None
    if rc != 0:
        raise AuditError(f"{what} failed (exit {rc}); the stubs must configure and build")


def lab_dirs(numbers: list[str]) -> list[str]:
    dirs = []
    for nn in numbers:
        found = sorted(p.name for p in (ROOT / "labs").glob(f"lab{nn}_*") if p.is_dir())
        if not found:
            raise AuditError(f"no labs/lab{nn}_* folder")
        dirs.append(found[0])
    return dirs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tools.stub_audit", description=__doc__.split("\n\n")[0])
    ap.add_argument("--cpu-only", action="store_true",
                    help="audit only the tests labelled cpu (CI without a GPU)")
    ap.add_argument("--lab", action="append", default=[], metavar="NN",
                    help="audit only this lab (repeatable), e.g. --lab 01")
    ap.add_argument("--preset", default="ci-student",
                    help="configure preset of the student tree (default: ci-student)")
    ap.add_argument("--build-dir", type=Path,
                    help="binary dir (default: the preset's, build/ci-student)")
    ap.add_argument("--no-configure", action="store_true", help="reuse the configured tree")
    ap.add_argument("--no-build", action="store_true", help="reuse the built tree")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="parallel build and test jobs")
    ap.add_argument("--require-all", action="store_true",
                    help="a skipped graded test is an error too (on a complete GPU runner)")
    ap.add_argument("--resource-spec-file", type=Path,
                    help="CTest resource spec of the GPUs (tools/gpu_resources.py) for ctest -j")
    ap.add_argument("-v", "--verbose", action="store_true", help="list the skipped tests")
    args = ap.parse_args(argv)

    numbers = []
    for nn in args.lab:
        if not re.fullmatch(r"\d{1,2}", nn):
            ap.error(f"--lab takes a lab number such as 01, got '{nn}'")
        numbers.append(f"{int(nn):02d}")
    build = (args.build_dir or ROOT / "build" / args.preset).resolve()

    if not args.no_configure:
        run(["cmake", "--preset", args.preset, "-B", str(build), "-DCUDALAB_IMPL=student",
             "-DCUDALAB_WRONG=OFF"], "configure")
    if not args.no_build:
        cmd = ["cmake", "--build", str(build), "-j", str(args.jobs)]
        if numbers:
            cmd += ["--target"]
            for d in lab_dirs(numbers):
                cmd += [f"lab{d[3:5]}_test", d]
        run(cmd, "build")

    impl = read_cache(build).get("CUDALAB_IMPL")
    if impl != "student":
        raise AuditError(f"{build} builds CUDALAB_IMPL={impl}, not the student stubs")
    junit = build / "stub-audit-junit.xml"
    junit.unlink(missing_ok=True)
    ctest = ["ctest", "--test-dir", str(build), "--output-junit", str(junit), "-LE", "given",
             "-j", str(args.jobs), "--no-tests=error"]
    ctest += ["-L", "cpu"] if args.cpu_only else []
    if args.resource_spec_file:
        ctest += ["--resource-spec-file", str(args.resource_spec_file.resolve())]
    ctest += ["-R", "^(" + "|".join(f"lab{n}" for n in numbers) + r")\."] if numbers else \
        ["-R", r"^lab[0-9][0-9]\."]
    print("stub_audit: " + " ".join(ctest), flush=True)
    try:
        rc = subprocess.run(ctest, cwd=ROOT, check=False, capture_output=True, text=True).returncode
    except OSError as e:
        raise AuditError(f"cannot run ctest: {e}") from None
    if not junit.exists():
        raise AuditError(f"ctest (exit {rc}) wrote no {junit}: did the tree build?")
    try:
        cases = read_junit(junit)
        # Which tests are graded, and of which lab: the grading manifest (CTest and the labs'
        # declarations, tools/grading_manifest.py).
        manifest = load_manifest(build)
    except ScoreError as e:
        raise AuditError(str(e)) from None
    audited = {f"lab{n}" for n in numbers} if numbers else set(manifest.labs)
    not_built = [g.target for g in manifest.graders
                 if g.target in manifest.missing and g.lab in audited]
    if not_built:
        raise AuditError("graders not built (no test list): " + ", ".join(not_built))

    failed, offenders, skipped = [], [], []
    per_lab: dict[str, list[int]] = {}
    for c in cases:
        test = manifest.tests.get(c["name"])
        if test is None or not test.graded:
            continue
        counts = per_lab.setdefault(test.lab, [0, 0, 0])
        if c["status"] in ("failed", "error"):
            failed.append(c)
            counts[0] += 1
        elif c["status"] == "passed":
            offenders.append(c)
            counts[1] += 1
        else:
            skipped.append(c)
            counts[2] += 1

    scope = "CPU-graded" if args.cpu_only else "graded"
    print(f"\nstub audit ({scope} tests of the student stubs, {build}):")
    for lab in sorted(per_lab):
        f, p, s = per_lab[lab]
        print(f"  {lab}: {f} failed as they should, {p} passed, {s} skipped")
    wanted = numbers or sorted(lab[3:5] for lab in manifest.labs)
    for nn in wanted:
        if f"lab{nn}" not in per_lab:
            print(f"  lab{nn}: no {scope} test ran")
    if skipped:
        reasons = sorted({c["message"] for c in skipped})
        print(f"not audited here ({len(skipped)} skipped): " + "; ".join(reasons[:3]))
        if args.verbose:
            for c in skipped:
                print(f"  skipped: {c['name']}")
    if offenders:
        print(f"\nstub audit FAILED: {len(offenders)} graded test(s) PASS on the untouched stub "
              f"(they give points for work not done):")
        for c in offenders:
            print(f"  PASSES ON STUB: {c['name']}")
        return 1
    if args.require_all and skipped:
        print(f"\nstub audit FAILED: {len(skipped)} graded test(s) were skipped (--require-all)")
        return 1
    if not failed:
        print("\nstub audit FAILED: no graded test ran")
        return 1
    print(f"\nstub audit passed: all {len(failed)} {scope} test(s) that ran fail on the stubs"
          + (f" ({len(skipped)} skipped)" if skipped else ""))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except AuditError as e:
        print(f"stub_audit: {e}", file=sys.stderr)
        sys.exit(2)
