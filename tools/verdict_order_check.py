# SPDX-License-Identifier: BSD-3-Clause
"""Order-independent verdicts: a test's verdict may not depend on which tests ran before it.

    python3 -m tools.verdict_order_check [--build-dir build/ci] [--labs lab04,lab08]
                                         [--set solution|wrong|both] [--cpu-only]
                                         [--shuffles 2] [--seed 481516] [--kinds Cpu,Gpu]
                                         [--no-alone] [--timeout 600] [-j N]

A CUDA function attribute (a kernel's dynamic shared-memory limit, its carve-out preference,
its cache configuration), a device limit or a launcher's static state outlives the test that
set it: in one grader process (a batch run of a suite, a known-wrong variant's filter) a later
test can pass only because an earlier one prepared the state it judges. This check runs every
selected grader three ways and compares the verdicts, test by test:

  declared  one process, the tests in the grader's order (as a batch run or a variant's
            filter runs them);
  shuffled  one process per seed, --gtest_shuffle --gtest_random_seed=<seed + i>;
  alone     one process per test (--gtest_filter=<Suite.Case>), as a debugger or a rerun
            of one test would run it.

What it runs (from `ctest --show-only=json-v1` of the build tree):
  --set solution  each lab's grader (labNN_test) over its registered tests;
  --set wrong     each known-wrong variant's grader (wrong.labNN.<variant>, a
                  -DCUDALAB_WRONG=ON tree) over its filter: besides the per-test verdicts, the
                  variant's verdict (rejected when any test failed) must be the same in
                  every order, so a variant rejected only in the declared order is reported;
  --set both      both (the default).
Only tests of the suite kinds --kinds (by suite-name ending; default Cpu,Gpu: the perf,
sanitizer and profiler tests time or wrap whole processes) are compared; --cpu-only keeps the
Cpu suites alone (CI without a GPU: the GPU tests would only be Skipped). Every run uses one
input seed (CUDALAB_SEED, --seed), so the inputs never differ between the runs compared.

A test's verdict is passed, failed or skipped, as the judge decides it: every run goes through
cudalab_verdict --batch, as CTest runs a suite; a test the judge got no result for is
"crashed" (a failure). Exit status: 0 when every
test has one verdict in every run (and every variant one verdict), 1 otherwise (each
difference printed: the test, its verdict in each run, the run's order), 2 on usage errors
(no build tree, nothing selected).

Runs on the GPU machine for the full check (tools/gpu_validate.sh can call it); without a GPU,
`--cpu-only` still compares every CPU test. Python 3 standard library only.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .grading_manifest import ManifestError, read_record, read_rules, suite_ending
from .measurement_channel import BATCH_MARKER, json_lines
from .model import SuiteRules

ROOT = Path(__file__).resolve().parent.parent
_LAB_TEST = re.compile(r"^(lab\d\d)\.(.+)$")
_WRONG_TEST = re.compile(r"^wrong\.(lab\d\d)\.(.+)$")


@dataclass
class Target:
    """One grader executable and the tests of it to compare."""

    name: str  # "lab04 (solution)" or "wrong.lab04.optin_threshold_64kb"
    exe: str
    gtest_filter: str  # what the declared run selects
    judge: str  # cudalab_verdict, which decides every verdict
    variant: bool = False
    tests: list[str] = field(default_factory=list)  # Suite.Case, filled by list_tests()


def ctest_json(build_dir: Path) -> dict:
    try:
        out = subprocess.run(
            ["ctest", "--test-dir", str(build_dir), "--show-only=json-v1"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise SystemExit(f"verdict_order_check: cannot list the tests of {build_dir}: {e}") from e
    return json.loads(out)


def targets_from_ctest(data: dict, labs: set[str] | None, want_set: str) -> list[Target]:
    """Solution graders (grouped from labNN.* tests) and known-wrong variants."""
    graders: dict[str, Target] = {}
    variants: list[Target] = []
    for t in data.get("tests", []):
        name = t.get("name", "")
        cmd = t.get("command") or []
        m = _LAB_TEST.match(name)
        if m and want_set in ("solution", "both") and not name.endswith(".@batch"):
            lab = m.group(1)
            if labs and lab not in labs:
                continue
            # cudalab_verdict --test <name> [...] -- [launcher...] <grader> --gtest_filter=...
            at = next((i for i, a in enumerate(cmd) if a.startswith("--gtest_filter=")), -1)
            if at < 2 or "--" not in cmd:
                continue
            judge, exe, flt = cmd[0], cmd[at - 1], cmd[at].split("=", 1)[1]
            if not Path(exe).name.startswith(lab):
                continue
            tgt = graders.setdefault(exe, Target(f"{lab} ({Path(exe).name})", exe, "", judge))
            tgt.tests.append(flt)
            continue
        m = _WRONG_TEST.match(name)
        if m and want_set in ("wrong", "both"):
            lab = m.group(1)
            if labs and lab not in labs:
                continue
            args = {a[2:].split("=", 1)[0]: a.split("=", 1)[1] for a in cmd if a.startswith("-D") and "=" in a}
            if "GRADER" in args and "FILTER" in args and "JUDGE" in args:
                variants.append(Target(name, args["GRADER"], args["FILTER"], args["JUDGE"],
                                       variant=True))
    for tgt in graders.values():
        tgt.gtest_filter = ":".join(tgt.tests)
    return list(graders.values()) + variants


def list_tests(exe: str, gtest_filter: str) -> list[str]:
    """Suite.Case of every test the filter selects, in the grader's order."""
    out = subprocess.run(
        [exe, "--gtest_list_tests", f"--gtest_filter={gtest_filter}"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    tests, suite = [], ""
    for line in out.splitlines():
        line = re.sub(r"\s+#.*$", "", line)
        if not line.strip():
            continue
        if not line.startswith(" "):
            suite = line.strip().rstrip(".")
        else:
            tests.append(f"{suite}.{line.strip()}")
    return tests


def run_grader(tgt: Target, tests: list[str], extra: list[str], env: dict, timeout: int) \
        -> dict[str, str]:
    """Runs @p tests in one process under the judge (cudalab_verdict --batch, as CTest runs a
    suite); the judge's verdict per test: passed, failed, skipped, or crashed (none came)."""
    prefix = "order."
    verdicts = {t: "crashed" for t in tests}
    with tempfile.TemporaryDirectory(prefix="verdict-order-") as tmp:
        run_env = dict(env, CUDALAB_TEST_PREFIX=prefix, CUDALAB_BATCH_DIR=tmp,
                       CUDALAB_BATCH_TEST_TIMEOUT=str(timeout))
        cmd = [tgt.judge, "--batch", tmp, "--prefix", prefix, "--timeout", str(timeout), "--",
               tgt.exe, f"--gtest_filter={':'.join(tests)}", "--gtest_color=no", *extra]
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, env=run_env,
                                 timeout=timeout + 30, check=False).stdout
        except subprocess.TimeoutExpired:
            return verdicts
    for rec in json_lines(out, BATCH_MARKER):  # only the judge's own lines carry its marker
        key = rec["test"][len(prefix):]
        if key in verdicts and rec.get("status") in ("passed", "failed", "skipped"):
            verdicts[key] = rec["status"]
    return verdicts


def check_target(tgt: Target, kinds: set[str], rules: SuiteRules, shuffles: int, seed: int,
                 alone: bool, env: dict,
                 timeout: int) -> tuple[list[str], dict[str, dict[str, str]]]:
    """The differences found for one target, and every run's verdicts (@p rules: the build's
    suite-ending rules, grading_manifest.read_rules())."""
    listed = list_tests(tgt.exe, tgt.gtest_filter)
    tests = [t for t in listed if suite_ending(rules, t.rsplit(".", 1)[0]) in kinds]
    runs: dict[str, dict[str, str]] = {}
    if not tests:
        return [], runs
    runs["declared"] = run_grader(tgt, tests, [], env, timeout)
    for i in range(shuffles):
        runs[f"shuffled (seed {seed + i})"] = run_grader(
            tgt, tests, ["--gtest_shuffle", f"--gtest_random_seed={seed + i}"], env, timeout)
    if alone:
        runs["alone"] = {}
        for t in tests:
            runs["alone"].update(run_grader(tgt, [t], [], env, timeout))
    problems = []
    for t in tests:
        seen = {run: v[t] for run, v in runs.items()}
        if len(set(seen.values())) > 1:
            problems.append(f"{tgt.name}: {t}: " + ", ".join(f"{r}: {v}" for r, v in seen.items()))
    if tgt.variant:
        rejected = {run: any(v in ("failed", "crashed") for v in verdicts.values())
                    for run, verdicts in runs.items()}
        if len(set(rejected.values())) > 1:
            problems.append(f"{tgt.name}: the variant is " + ", ".join(
                f"{'rejected' if r else 'accepted'} {run}" for run, r in rejected.items()))
    return problems, runs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", default="build/ci", type=Path)
    ap.add_argument("--labs", default="", help="comma-separated, e.g. lab04,lab08 (default: all)")
    ap.add_argument("--set", dest="which", choices=("solution", "wrong", "both"), default="both")
    ap.add_argument("--cpu-only", action="store_true", help="compare the Cpu suites only")
    ap.add_argument("--kinds", default="Cpu,Gpu", help="suite endings compared (default Cpu,Gpu)")
    ap.add_argument("--shuffles", type=int, default=2, help="shuffled orders per target")
    ap.add_argument("--seed", type=int, default=481516, help="CUDALAB_SEED and the first shuffle seed")
    ap.add_argument("--no-alone", action="store_true", help="skip the one-test-per-process runs")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per grader process")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="targets checked at once")
    ap.add_argument("--json", type=Path, help="write every run's verdicts here")
    args = ap.parse_args(argv)

    build_dir = args.build_dir if args.build_dir.is_absolute() else ROOT / args.build_dir
    if not (build_dir / "CTestTestfile.cmake").exists():
        print(f"verdict_order_check: {build_dir} is not a configured build tree", file=sys.stderr)
        return 2
    try:
        rules = read_rules(read_record(build_dir))
    except ManifestError as e:
        print(f"verdict_order_check: {e}", file=sys.stderr)
        return 2
    kinds = {"Cpu"} if args.cpu_only else {k.strip() for k in args.kinds.split(",") if k.strip()}
    labs = {l.strip() for l in args.labs.split(",") if l.strip()} or None
    targets = [t for t in targets_from_ctest(ctest_json(build_dir), labs, args.which)
               if Path(t.exe).exists()]
    kinds_found = {("wrong" if t.variant else "solution") for t in targets}
    wanted = {"solution", "wrong"} if args.which == "both" else {args.which}
    if kinds_found != wanted:
        missing = ", ".join(sorted(wanted - kinds_found))
        print(f"verdict_order_check: no built grader of the {missing} set found in {build_dir} "
              "(build the graders first; the known-wrong set needs -DCUDALAB_WRONG=ON)",
              file=sys.stderr)
        return 2
    env = dict(os.environ, CUDALAB_SEED=str(args.seed))
    env.pop("CUDALAB_BATCH_RESULT", None)
    env.pop("CUDALAB_BATCH_DIR", None)

    problems: list[str] = []
    report: dict[str, dict] = {}
    compared = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(check_target, t, kinds, rules, args.shuffles, args.seed, not args.no_alone,
                               env, args.timeout): t for t in targets}
        for fut in concurrent.futures.as_completed(futures):
            tgt = futures[fut]
            found, runs = fut.result()
            n = len(next(iter(runs.values()))) if runs else 0
            compared += n
            status = "same verdicts" if not found else f"{len(found)} difference(s)"
            print(f"{tgt.name}: {n} test(s), {len(runs)} run(s): {status}", flush=True)
            problems.extend(found)
            report[tgt.name] = runs
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    print(f"\nverdict_order_check: {len(targets)} grader(s), {compared} test(s) compared "
          f"(kinds {','.join(sorted(kinds))}; declared, {args.shuffles} shuffled"
          f"{', alone' if not args.no_alone else ''})")
    if problems:
        print("verdicts that depend on the order or on the company of other tests:")
        for p in sorted(problems):
            print("  " + p)
        return 1
    print("every verdict is the same in every order and alone")
    return 0


if __name__ == "__main__":
    sys.exit(main())
