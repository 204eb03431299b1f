# SPDX-License-Identifier: BSD-3-Clause
"""Where a test run's time goes: one Markdown table per run, by lab and phase.

After a ctest run in a build tree, reads each test's time (ctest's --output-junit file, else
Testing/Temporary/LastTest.log, else the averages in Testing/Temporary/CTestCostData.txt)
and each test's labels (`ctest --show-only=json-v1`, listed from a copy of the tree's
CTestTestfile.cmake files so that the tree's Testing/ logs stay as the run left them), and
prints one table: per lab, the seconds its tests took in each phase, by the labels
cmake/CudalabGrading.cmake gives them:

  CPU correctness   label cpu                (...Cpu suites, demo argument checks)
  GPU correctness   label gpu, none below    (...Gpu suites, their batch runs, demo runs)
  sanitizer         label sanitizer          (...Sanitizer suites)
  profiler          label profiler           (...Profiler suites: run alone)
  perf              label perf               (...Perf suites: run alone)
  variants          wrong.*, right.*, attack.* (instructor mode, -DCUDALAB_WRONG=ON)

with the wall times of the workflow's steps (configure, build, test) when a timings file of
tools/time_workflow.sh is given. The seconds are each test's own time; tests run in parallel
(the test preset's jobs), so a column's sum is work, not wall time: the test step's wall time
is in the second table.

  python3 -m tools.phase_times table --build-dir build/solution --junit build/solution/junit.xml \
      [--timings steps.tsv] [--output phase-times.md] [--update-doc docs/reference-run.md]
  python3 -m tools.phase_times steps --source-dir . --preset solution   (for time_workflow.sh)
  python3 -m tools.phase_times list --build-dir build/ci                (the tests as JSON)

Python 3 standard library only; no GPU, no network.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

PHASES = ["CPU correctness", "GPU correctness", "sanitizer", "profiler", "perf", "variants"]
VARIANT_MODES = ("wrong", "right", "attack")
NOT_MEASURED = "not yet measured"


class PhaseError(Exception):
    pass


# ---------------------------------------------------------------------------
# The tests of a build tree
# ---------------------------------------------------------------------------
def ctest_list(build_dir: Path, ctest: str = "ctest") -> dict:
    """`ctest --show-only=json-v1` of build_dir, run on a copy of its CTestTestfile.cmake files.

    ctest rewrites <dir>/Testing/Temporary/LastTest.log even when it only lists tests, which
    would erase the log of a run in progress (a test that lists its own tree) or of the run
    being measured. The copies keep the relative layout (subdirs()); the files they include
    are read from the tree itself.
    """
    build_dir = Path(build_dir).resolve()
    if not (build_dir / "CTestTestfile.cmake").is_file():
        raise PhaseError(f"{build_dir} has no CTestTestfile.cmake (not a configured build tree)")
    with tempfile.TemporaryDirectory(prefix="cudalab-list-") as tmp:
        for root, dirs, files in os.walk(build_dir):
            rel = Path(root).relative_to(build_dir)
            if rel == Path("."):
                dirs[:] = [d for d in dirs if d not in ("Testing", "cudalab_batch")]
            if "CTestTestfile.cmake" in files:
                dest = Path(tmp) / rel
                dest.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(Path(root) / "CTestTestfile.cmake", dest / "CTestTestfile.cmake")
        try:
            proc = subprocess.run([ctest, "--show-only=json-v1"], cwd=tmp, capture_output=True,
                                  text=True, check=False, timeout=300)
        except OSError as e:
            raise PhaseError(f"cannot run {ctest}: {e}") from None
        if proc.returncode != 0:
            raise PhaseError(f"{ctest} --show-only=json-v1 failed for {build_dir}: "
                             f"{proc.stderr.strip()[:2000]}")
        try:
            return json.loads(proc.stdout)
        except json.JSONDecodeError as e:
            raise PhaseError(f"{ctest} --show-only=json-v1 printed no JSON: {e}") from None


def test_labels(data: dict) -> dict[str, list[str]]:
    """{test name: labels} of a `ctest --show-only=json-v1` document."""
    out = {}
    for t in data.get("tests", []):
        labels = []
        for p in t.get("properties", []) or []:
            if p.get("name") == "LABELS":
                labels = list(p.get("value") or [])
        out[t["name"]] = labels
    return out


def test_properties(data: dict) -> dict[str, dict]:
    out = {}
    for t in data.get("tests", []):
        out[t["name"]] = {p.get("name"): p.get("value") for p in t.get("properties", []) or []}
    return out


def phase_of(name: str, labels: list[str]) -> str:
    if name.split(".", 1)[0] in VARIANT_MODES:
        return "variants"
    for label, phase in (("profiler", "profiler"), ("sanitizer", "sanitizer"), ("perf", "perf"),
                         ("gpu", "GPU correctness"), ("cpu", "CPU correctness")):
        if label in labels:
            return phase
    return "GPU correctness" if name.endswith(".@batch") else "CPU correctness"


def group_of(name: str, labels: list[str]) -> str:
    for label in labels:
        if re.fullmatch(r"lab\d\d", label):
            return label
    parts = name.split(".")
    if parts[0] in VARIANT_MODES and len(parts) > 1 and re.fullmatch(r"lab\d\d", parts[1]):
        return parts[1]
    if re.fullmatch(r"lab\d\d", parts[0]):
        return parts[0]
    return parts[0] if parts[0] in ("common", "cudalab") else "other"


# ---------------------------------------------------------------------------
# Test times of a run
# ---------------------------------------------------------------------------
def read_junit(path: Path) -> dict[str, tuple[float, str]]:
    """{test name: (seconds, status)} from ctest's --output-junit file (status: passed, failed,
    skipped, not run)."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        raise PhaseError(f"cannot read the JUnit file {path}: {e}") from None
    out = {}
    for case in root.iter("testcase"):
        name = case.get("name", "")
        try:
            secs = float(case.get("time") or 0.0)
        except ValueError:
            secs = 0.0
        status = case.get("status", "run")
        if status == "fail" or case.find("failure") is not None or case.find("error") is not None:
            state = "failed"
        elif case.find("skipped") is not None:
            state = "skipped"
        elif status in ("notrun", "disabled"):
            state = "not run"
        else:
            state = "passed"
        out[name] = (secs, state)
    return out


def read_last_test_log(path: Path) -> dict[str, tuple[float, str]]:
    """{test name: (seconds, status)} from Testing/Temporary/LastTest.log."""
    try:
        text = path.read_text(errors="replace")
    except OSError as e:
        raise PhaseError(f"cannot read {path}: {e}") from None
    out = {}
    current = None
    secs = 0.0
    for line in text.splitlines():
        m = re.match(r"^\d+/\d+ Test: (.+)$", line)
        if m:
            current, secs = m.group(1), 0.0
            continue
        if current is None:
            continue
        m = re.match(r"^Test time =\s*([0-9.]+) sec", line)
        if m:
            secs = float(m.group(1))
            continue
        if line.startswith("Test Passed"):
            out[current] = (secs, "passed")
            current = None
        elif line.startswith("Test Failed") or line.startswith("Test Timeout"):
            out[current] = (secs, "failed")
            current = None
        elif line.startswith("Test Skipped") or "Skipped" in line and line.startswith("Test "):
            out[current] = (secs, "skipped")
            current = None
    return out


def read_cost_data(path: Path) -> dict[str, tuple[float, str]]:
    """{test name: (average seconds, "passed")} from Testing/Temporary/CTestCostData.txt: the
    averages CTest keeps of the tests that ran (an estimate, not one run)."""
    out = {}
    try:
        lines = path.read_text().splitlines()
    except OSError as e:
        raise PhaseError(f"cannot read {path}: {e}") from None
    for line in lines:
        if line.strip() == "---":
            break
        parts = line.rsplit(" ", 2)
        if len(parts) == 3:
            try:
                out[parts[0]] = (float(parts[2]), "passed")
            except ValueError:
                continue
    return out


def read_timings(path: Path) -> tuple[dict[str, float], dict[str, str]]:
    """The step wall times tools/time_workflow.sh recorded: lines `step <name> <start> <end> <rc>`
    (seconds since the epoch, `date +%s.%N`) and `meta <key> <value...>`."""
    steps: dict[str, float] = {}
    meta: dict[str, str] = {}
    for line in Path(path).read_text().splitlines():
        parts = line.split()
        if len(parts) >= 5 and parts[0] == "step":
            steps[parts[1]] = float(parts[3]) - float(parts[2])
            if parts[4] != "0":
                meta.setdefault("failed_steps", "")
                failed = f"{meta['failed_steps']} {parts[1]} (exit {parts[4]})"
                meta["failed_steps"] = failed.strip()
        elif len(parts) >= 2 and parts[0] == "meta":
            meta[parts[1]] = " ".join(parts[2:])
    return steps, meta


# ---------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------
def summarize(times: dict[str, tuple[float, str]], labels: dict[str, list[str]]) -> dict:
    rows: dict[str, dict[str, list]] = {}
    states: dict[str, int] = {}
    unlisted = 0
    for name, (secs, state) in times.items():
        if name not in labels:
            unlisted += 1
        lab = labels.get(name, [])
        row = rows.setdefault(group_of(name, lab), {})
        cell = row.setdefault(phase_of(name, lab), [0.0, 0])
        cell[0] += secs
        cell[1] += 1
        states[state] = states.get(state, 0) + 1
    not_run = sorted(set(labels) - set(times))
    return {"rows": rows, "states": states, "not_run": not_run, "unlisted": unlisted}


def _fmt(secs: float) -> str:
    return f"{secs:.1f}"


def _row_order(key: str) -> tuple:
    m = re.fullmatch(r"lab(\d\d)", key)
    if m:
        return (0, int(m.group(1)), key)
    return (1, {"common": 0, "cudalab": 1}.get(key, 2), key)


ROW_NAMES = {"common": "common library", "cudalab": "rules, channel, tools", "other": "other"}


def render(summary: dict | None, steps: dict[str, float], meta: dict[str, str],
           title: str | None = None) -> str:
    out = []
    if title:
        out.append(f"**{title}**")
        out.append("")
    facts = []
    for key, label in (("gpu", "GPU"), ("cores", "CPU cores"), ("date", "date"),
                       ("preset", "preset"), ("jobs", "ctest jobs"), ("commit", "commit"),
                       ("cuda", "CUDA"), ("source", "times from")):
        if meta.get(key):
            facts.append(f"{label}: {meta[key]}")
    if facts:
        out.append("; ".join(facts) + ".")
        out.append("")
    if summary is None:
        phases = PHASES[:-1]
        out.append("| lab | tests | " + " | ".join(phases) + " | total |")
        out.append("|---|---:|" + "---:|" * (len(phases) + 1))
        out.append(f"| every lab | {NOT_MEASURED} | " + " | ".join(NOT_MEASURED for _ in phases)
                   + f" | {NOT_MEASURED} |")
    else:
        rows = summary["rows"]
        phases = [p for p in PHASES if p != "variants" or any(p in r for r in rows.values())]
        out.append("Seconds of the tests' own times (tests in parentheses), by the labels each "
                   "test has; tests run in parallel, so the test step's wall time is below.")
        out.append("")
        out.append("| lab | tests | " + " | ".join(phases) + " | total s |")
        out.append("|---|---:|" + "---:|" * (len(phases) + 1))
        totals = {p: [0.0, 0] for p in phases}
        for key in sorted(rows, key=_row_order):
            row = rows[key]
            n = sum(c[1] for c in row.values())
            cells = []
            for p in phases:
                c = row.get(p)
                if c:
                    totals[p][0] += c[0]
                    totals[p][1] += c[1]
                cells.append(f"{_fmt(c[0])} ({c[1]})" if c else "–")
            total = sum(c[0] for c in row.values())
            out.append(f"| {ROW_NAMES.get(key, key)} | {n} | " + " | ".join(cells)
                       + f" | {_fmt(total)} |")
        n_all = sum(t[1] for t in totals.values())
        s_all = sum(t[0] for t in totals.values())
        out.append(f"| **all** | **{n_all}** | "
                   + " | ".join(f"**{_fmt(t[0])}** ({t[1]})" for t in totals.values())
                   + f" | **{_fmt(s_all)}** |")
        states = summary["states"]
        notes = ", ".join(f"{v} {k}" for k, v in sorted(states.items()))
        extra = ""
        if summary["not_run"]:
            extra = (f"; {len(summary['not_run'])} listed tests have no time here (not run, or "
                     "no average kept)")
        alone = sum(totals[p][0] for p in ("perf", "profiler") if p in totals)
        out.append("")
        out.append(f"Tests: {notes}{extra}. Perf and profiler tests run alone on a GPU "
                   f"(RUN_SERIAL, or one per GPU with CUDALAB_PERF_PER_GPU): {_fmt(alone)} s of "
                   "the test step cannot overlap with each other on one GPU.")
    out.append("")
    out.append("| step | wall time |")
    out.append("|---|---:|")
    total = 0.0
    have_all = True
    for step in ("configure", "build", "test"):
        if step in steps:
            total += steps[step]
            out.append(f"| {step} | {_fmt(steps[step])} s |")
        else:
            have_all = False
            out.append(f"| {step} | {NOT_MEASURED} |")
    out.append(f"| **workflow** | **{_fmt(total)} s** |" if have_all and steps
               else f"| **workflow** | {NOT_MEASURED} |")
    if summary is not None and "test" in steps and steps["test"] > 0:
        work = sum(c[0] for r in summary["rows"].values() for c in r.values())
        out.append("")
        out.append(f"The test step ran {_fmt(work)} s of tests in {_fmt(steps['test'])} s "
                   f"({work / steps['test']:.1f} at a time on average).")
    if meta.get("failed_steps"):
        out.append("")
        out.append(f"Steps that failed: {meta['failed_steps']}.")
    if meta.get("build_dir_existed") == "yes":
        out.append("")
        out.append("The build tree existed before this run: configure and build were incremental.")
    return "\n".join(out) + "\n"


def update_doc(doc: Path, key: str, table: str) -> None:
    """Replaces the text between `<!-- phase-times:KEY:begin -->` and
    `<!-- phase-times:KEY:end -->`."""
    text = doc.read_text()
    begin, end = f"<!-- phase-times:{key}:begin -->", f"<!-- phase-times:{key}:end -->"
    i, j = text.find(begin), text.find(end)
    if i < 0 or j < i:
        raise PhaseError(f"{doc} has no section {begin} ... {end}")
    text = text[: i + len(begin)] + "\n" + table + text[j:]
    doc.write_text(text)


# ---------------------------------------------------------------------------
# Workflow presets (for tools/time_workflow.sh)
# ---------------------------------------------------------------------------
def read_presets(source_dir: Path) -> dict:
    path = source_dir / "CMakePresets.json"
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise PhaseError(f"cannot read {path}: {e}") from None


def resolve_configure(presets: dict, name: str) -> dict:
    """A configure preset with what it inherits (binaryDir, cacheVariables)."""
    table = {p["name"]: p for p in presets.get("configurePresets", [])}
    if name not in table:
        raise PhaseError(f"no configure preset {name!r}")
    p = table[name]
    merged: dict = {"cacheVariables": {}}
    for parent in reversed(p.get("inherits", []) if isinstance(p.get("inherits"), list)
                           else [p["inherits"]] if p.get("inherits") else []):
        base = resolve_configure(presets, parent)
        merged["cacheVariables"].update(base["cacheVariables"])
        for k, v in base.items():
            if k != "cacheVariables":
                merged[k] = v
    for k, v in p.items():
        if k == "cacheVariables":
            merged["cacheVariables"].update(v)
        elif k not in ("inherits", "hidden"):
            merged[k] = v
    merged["name"] = name
    return merged


def resolve_test(presets: dict, name: str) -> dict:
    """A test preset with what it inherits (filter, execution, output; merged key by key)."""
    table = {p["name"]: p for p in presets.get("testPresets", [])}
    if name not in table:
        raise PhaseError(f"no test preset {name!r}")
    p = table[name]
    merged: dict = {}
    parents = p.get("inherits", [])
    for parent in reversed(parents if isinstance(parents, list) else [parents]):
        base = resolve_test(presets, parent)
        for k, v in base.items():
            merged[k] = dict(v) if isinstance(v, dict) else v
    for k, v in p.items():
        if isinstance(v, dict) and isinstance(merged.get(k), dict):
            merged[k].update(v)
        elif k not in ("inherits", "hidden"):
            merged[k] = v
    merged["name"] = name
    return merged


def workflow_steps(source_dir: Path, preset: str) -> list[tuple[str, str]]:
    presets = read_presets(source_dir)
    table = {p["name"]: p for p in presets.get("workflowPresets", [])}
    if preset not in table:
        raise PhaseError(f"no workflow preset {preset!r} in {source_dir / 'CMakePresets.json'} "
                         f"(there are: {', '.join(sorted(table))})")
    return [(s["type"], s["name"]) for s in table[preset]["steps"]]


def binary_dir(source_dir: Path, configure_preset: str) -> Path:
    p = resolve_configure(read_presets(source_dir), configure_preset)
    raw = p.get("binaryDir")
    if not raw:
        raise PhaseError(f"configure preset {configure_preset!r} sets no binaryDir")
    path = raw.replace("${sourceDir}", str(source_dir)).replace("${presetName}", configure_preset)
    path = path.replace("${sourceParentDir}", str(source_dir.parent))
    if "${" in path:
        raise PhaseError(f"binaryDir {raw!r} uses a macro this tool does not expand")
    return Path(path)


# ---------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("table", help="the Markdown table of a run")
    t.add_argument("--build-dir", type=Path, required=True)
    times_from = t.add_mutually_exclusive_group()
    times_from.add_argument("--junit", type=Path, help="ctest --output-junit file (default: "
                            "<build>/junit.xml if it exists, else Testing/Temporary/LastTest.log)")
    times_from.add_argument("--last-test-log", type=Path)
    times_from.add_argument("--cost-data", type=Path, help="Testing/Temporary/CTestCostData.txt: "
                            "averages over earlier runs (an estimate)")
    t.add_argument("--tests-json", type=Path, help="saved ctest --show-only=json-v1 output "
                   "(default: listed now from the build tree)")
    t.add_argument("--timings", type=Path, help="step times written by tools/time_workflow.sh")
    t.add_argument("--ctest", default="ctest")
    t.add_argument("--title")
    for key in ("gpu", "cores", "date", "preset", "jobs", "commit", "cuda"):
        t.add_argument(f"--{key}", help=f"{key} to state (overrides the timings file)")
    t.add_argument("--output", type=Path, help="write the table here (default: stdout)")
    t.add_argument("--update-doc", type=Path, help="also put it into this Markdown file")
    t.add_argument("--key", help="section key in --update-doc (default: the preset)")
    t.add_argument("--not-measured", action="store_true",
                   help="print the placeholder table (no run read)")
    s = sub.add_parser("steps", help="a workflow preset's steps, and its build tree")
    s.add_argument("--source-dir", type=Path, required=True)
    s.add_argument("--preset", required=True)
    li = sub.add_parser("list", help="ctest --show-only=json-v1 without touching Testing/")
    li.add_argument("--build-dir", type=Path, required=True)
    li.add_argument("--ctest", default="ctest")
    args = ap.parse_args(argv)

    try:
        if args.cmd == "steps":
            src = args.source_dir.resolve()
            workflow = workflow_steps(src, args.preset)
            for kind, name in workflow:
                print(kind, name)
            configure = next((n for k, n in workflow if k == "configure"), None)
            if configure:
                print("binary", binary_dir(src, configure))
            test = next((n for k, n in workflow if k == "test"), None)
            if test:
                jobs = resolve_test(read_presets(src), test).get("execution", {}).get("jobs")
                if jobs:
                    print("jobs", jobs)
            return 0
        if args.cmd == "list":
            json.dump(ctest_list(args.build_dir, args.ctest), sys.stdout, indent=1)
            print()
            return 0

        steps: dict[str, float] = {}
        meta: dict[str, str] = {}
        if args.timings:
            steps, meta = read_timings(args.timings)
        for key in ("gpu", "cores", "date", "preset", "jobs", "commit", "cuda"):
            if getattr(args, key):
                meta[key] = getattr(args, key)
        summary = None
        if args.not_measured:
            for key in ("gpu", "cores", "date"):
                meta.setdefault(key, NOT_MEASURED)
        else:
            meta.setdefault("date", datetime.date.today().isoformat())
        if not args.not_measured:
            build = args.build_dir
            if args.junit:
                times, source = read_junit(args.junit), "JUnit"
            elif args.last_test_log:
                times, source = read_last_test_log(args.last_test_log), "LastTest.log"
            elif args.cost_data:
                times, source = read_cost_data(args.cost_data), \
                    "CTestCostData.txt (averages of earlier runs)"
            elif (build / "junit.xml").is_file():
                times, source = read_junit(build / "junit.xml"), "JUnit"
            else:
                times = read_last_test_log(build / "Testing" / "Temporary" / "LastTest.log")
                source = "LastTest.log"
            meta.setdefault("source", source)
            if args.tests_json:
                data = json.loads(args.tests_json.read_text())
            else:
                data = ctest_list(build, args.ctest)
            summary = summarize(times, test_labels(data))
            if not times:
                raise PhaseError("no test times found (did the tests run?)")
        table = render(summary, steps, meta, args.title)
        if args.output:
            args.output.write_text(table)
        else:
            sys.stdout.write(table)
        if args.update_doc:
            update_doc(args.update_doc, args.key or meta.get("preset") or "run", table)
        return 0
    except PhaseError as e:
        print(f"phase_times: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
