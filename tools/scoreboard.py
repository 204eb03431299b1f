#!/usr/bin/env python3
"""cudalabs scoreboard: per-lab scores from CTest's JUnit output.

    python3 tools/scoreboard.py [--build-dir build/student] [--run] [-- <ctest args>]

Reads <build-dir>/junit.xml (written by the test presets, or by --run, which runs ctest
once with --output-junit), and prints a per-lab table: graded tests passed / failed /
skipped, points, the key measurements (speedup vs threshold, bank-conflict degree, ...)
and the GPU, compute capability, SM clock, driver, runtime and toolkit versions. It also
writes <build-dir>/scores.json (schema: docs/scores-schema.md) and <build-dir>/scores.md
(Markdown; --step-summary appends it to $GITHUB_STEP_SUMMARY). Tests are never re-run to
build the table. Python 3 standard library only.

Exit status: 0 on success (failed tests are scores, not errors); 1 with --strict when a
test could not run at all or no lab test was found; 2 on a usage or input error.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter, OrderedDict
from pathlib import Path

SCHEMA_NAME = "cudalabs-scores"
SCHEMA_VERSION = 1
WEIGHTS = {"perf": 2}  # every other graded test: 1 point
DEFAULT_WEIGHT = 1
CATEGORIES = ("cpu", "gpu", "perf", "sanitizer", "profiler")

_LAB_TEST = re.compile(r"^(lab\d\d)\.(.+)$")
_WRONG_TEST = re.compile(r"^wrong\.(lab\d\d)\.(.+)$")
_MEASURE = re.compile(
    r"^\[ MEASURE  \] (?P<name>.+?) = (?P<value>\S+) ?(?P<unit>.*?)"
    r"(?: \(threshold (?P<threshold>\S+)\))?\s*$")
_SPEED = re.compile(r"^\[ SPEED    \] (?P<text>.+?)\s*$")
_GPU = re.compile(r"^\[ CUDALAB  \] GPU: (?P<desc>.+?)\s*$", re.M)
_NO_GPU = re.compile(r"^\[ CUDALAB  \] GPU tests will be skipped: (?P<reason>.+?)\s*$", re.M)
_DESCRIBE = re.compile(
    r"^(?P<name>.+?) \(sm_(?P<cc>\d+), (?P<sms>\d+) SMs, (?P<mhz>\d+) MHz, "
    r"(?P<smem>\d+) KB smem/block opt-in, driver (?P<driver>[\d.]+), "
    r"runtime (?P<runtime>[\d.]+)\)$")


class ScoreError(Exception):
    """An input or usage problem: reported on one line, exit status 2."""


# ---------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------
def _number(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        return float(text)
    except ValueError:
        return None


def _skip_reason(out: str, message: str) -> str:
    """The reason a test was skipped, from GoogleTest's or the demo's output."""
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if line.endswith(": Skipped") and i + 1 < len(lines) and lines[i + 1].strip() \
                and not lines[i + 1].startswith("["):
            return lines[i + 1].strip()
    m = re.search(r"skipped: (.+)", out)
    if m:
        return m.group(1).strip()
    m = _NO_GPU.search(out)
    if m:
        return m.group("reason")
    return message or "skipped"


def _failure_text(out: str, message: str) -> str:
    """The first GoogleTest failure (up to 3 lines), else CTest's failure message."""
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if line.endswith(": Failure") or re.search(r"\.(cu|cpp|cuh|hpp):\d+: Failure", line):
            body = []
            for x in lines[i + 1:i + 4]:
                if not x.strip() or x.startswith("[") or x.startswith("Google Test trace"):
                    break
                body.append(x.strip())
            if body:
                return " ".join(body)[:400]
    for line in lines:
        if line.startswith(("REJECTED", "ACCEPTED", "CMake Error", "error:", "C++ exception")):
            return line.strip()[:400]
    return message or "failed"


def read_junit(path: Path) -> list[dict]:
    """Every <testcase> of a CTest JUnit file as a dict: name, status, time_s, output, message.

    status: passed | failed | skipped | error (could not run: missing executable, ...).
    """
    try:
        root = ET.parse(path).getroot()
    except FileNotFoundError:
        raise ScoreError(f"{path} not found: run the tests first (ctest --preset <name>, or "
                         f"this tool with --run)") from None
    except ET.ParseError as e:
        raise ScoreError(f"{path} is not valid JUnit XML: {e}") from None
    cases = []
    for tc in root.iter("testcase"):
        name = tc.get("name") or tc.get("classname") or "?"
        out = "".join((x.text or "") for x in tc.findall("system-out"))
        out += "".join((x.text or "") for x in tc.findall("system-err"))
        failure = tc.find("failure")
        if failure is None:
            failure = tc.find("error")
        skipped = tc.find("skipped")
        status_attr = (tc.get("status") or "").lower()
        if failure is not None:
            status, message = "failed", _failure_text(out, failure.get("message", ""))
        elif skipped is not None:
            status, message = "skipped", _skip_reason(out, skipped.get("message", ""))
        elif status_attr in ("run", "passed", ""):
            status, message = "passed", ""
        elif status_attr in ("notrun", "disabled"):
            status, message = "error", "not run (" + (out.strip().splitlines() or ["missing executable?"])[-1][:200] + ")"
        else:
            status, message = "failed", _failure_text(out, status_attr)
        cases.append({"name": name, "status": status, "time_s": _number(tc.get("time")) or 0.0,
                      "output": out, "message": message})
    return cases


def ctest_labels(build_dir: Path) -> dict[str, list[str]] | None:
    """Labels of every test from `ctest --show-only=json-v1`, or None when unavailable."""
    try:
        proc = subprocess.run(["ctest", "--test-dir", str(build_dir), "--show-only=json-v1"],
                              capture_output=True, text=True, timeout=300, check=False)
        data = json.loads(proc.stdout)
    except (OSError, ValueError, subprocess.SubprocessError):
        return None
    labels = {}
    for t in data.get("tests", []):
        for p in t.get("properties", []):
            if p.get("name") == "LABELS":
                labels[t["name"]] = sorted(p.get("value") or [])
        labels.setdefault(t["name"], [])
    return labels


def labels_from_name(name: str) -> list[str]:
    """The labels cudalab_add_lab() gives a test, from its name (when ctest is not at hand)."""
    m = _LAB_TEST.match(name)
    if not m:
        return []
    lab, rest = m.groups()
    suite = rest.split(".", 1)[0]
    base = suite.split("/")[-1]
    labels = {lab}
    if base.endswith("Perf"):
        labels |= {"gpu", "perf"}
    elif base.endswith("Sanitizer"):
        labels |= {"gpu", "sanitizer"}
    elif base.endswith("Profiler"):
        labels |= {"gpu", "profiler"}
    elif base.endswith("Gpu"):
        labels.add("gpu")
    elif base.endswith("Cpu"):
        labels.add("cpu")
    if suite.startswith("Given"):
        labels.add("given")
    return sorted(labels)


def read_cache(build_dir: Path) -> dict[str, str]:
    """A few CMakeCache.txt entries (toolkit version, implementation, architectures)."""
    wanted = {"CMAKE_CUDA_COMPILER_VERSION", "CUDALAB_IMPL", "CMAKE_CUDA_ARCHITECTURES",
              "CMAKE_HOME_DIRECTORY", "CMAKE_BUILD_TYPE"}
    found = {}
    try:
        text = (build_dir / "CMakeCache.txt").read_text(errors="replace")
    except OSError:
        return found
    for line in text.splitlines():
        m = re.match(r"^([A-Za-z_0-9]+):[A-Z]+=(.*)$", line)
        if m and m.group(1) in wanted:
            found[m.group(1)] = m.group(2)
        m = re.match(r"^FIND_PACKAGE_MESSAGE_DETAILS_CUDAToolkit:INTERNAL=.*\[v([0-9.]+)", line)
        if m:
            found.setdefault("CMAKE_CUDA_COMPILER_VERSION", m.group(1))
    # The compiler's version is recorded by project() in CMakeFiles/<cmake>/.
    for f in sorted(build_dir.glob("CMakeFiles/*/CMakeCUDACompiler.cmake")):
        m = re.search(r'set\(CMAKE_CUDA_COMPILER_VERSION "([^"]+)"\)', f.read_text(errors="replace"))
        if m:
            found["CMAKE_CUDA_COMPILER_VERSION"] = m.group(1)
    return found


def lab_topics(build_dir: Path, cache: dict[str, str]) -> dict[str, str]:
    """lab01 -> hello_addone, from the labs/ folders of the build or source tree."""
    topics = {}
    bases = [build_dir / "labs"]
    if cache.get("CMAKE_HOME_DIRECTORY"):
        bases.append(Path(cache["CMAKE_HOME_DIRECTORY"]) / "labs")
    bases.append(Path(__file__).resolve().parent.parent / "labs")  # this checkout
    for base in bases:
        if base.is_dir():
            for d in base.iterdir():
                m = re.match(r"^(lab\d\d)_(.+)$", d.name)
                if m and d.is_dir():
                    topics.setdefault(m.group(1), m.group(2))
    return topics


# ---------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------
def parse_gpu(description: str) -> dict:
    gpu = {"available": True, "description": description, "name": description,
           "compute_capability": None, "sm_count": None, "sm_clock_mhz": None,
           "smem_per_block_optin_kb": None, "driver": None, "runtime": None}
    m = _DESCRIBE.match(description)
    if m:
        cc = m.group("cc")
        gpu.update(name=m.group("name"), compute_capability=f"{cc[:-1]}.{cc[-1]}",
                   sm_count=int(m.group("sms")), sm_clock_mhz=int(m.group("mhz")),
                   smem_per_block_optin_kb=int(m.group("smem")), driver=m.group("driver"),
                   runtime=m.group("runtime"))
    return gpu


def environment(cases: list[dict], cache: dict[str, str]) -> dict:
    gpus = Counter()
    reasons = Counter()
    for c in cases:
        for m in _GPU.finditer(c["output"]):
            gpus[m.group("desc")] += 1
        for m in _NO_GPU.finditer(c["output"]):
            reasons[m.group("reason")] += 1
    if gpus:
        gpu = parse_gpu(gpus.most_common(1)[0][0])
    else:
        gpu = {"available": False,
               "reason": reasons.most_common(1)[0][0] if reasons else "no test reported a GPU"}
    return {
        "gpu": gpu,
        "gpus_seen": sorted(gpus),
        "cuda_toolkit": cache.get("CMAKE_CUDA_COMPILER_VERSION"),
        "cuda_architectures": cache.get("CMAKE_CUDA_ARCHITECTURES"),
        "implementation": cache.get("CUDALAB_IMPL"),
        "build_type": cache.get("CMAKE_BUILD_TYPE"),
    }


def measurements(test: str, output: str) -> list[dict]:
    found = []
    for line in output.splitlines():
        m = _MEASURE.match(line)
        if m:
            value = _number(m.group("value"))
            found.append({"test": test, "name": m.group("name"),
                          "value": value if value is not None else m.group("value"),
                          "unit": m.group("unit").strip(),
                          "threshold": _number(m.group("threshold"))})
    return found


def category(labels: list[str]) -> str:
    for c in ("profiler", "sanitizer", "perf", "gpu", "cpu"):
        if c in labels:
            return c
    return "other"


def score(cases: list[dict], labels: dict[str, list[str]] | None, cache: dict[str, str],
          topics: dict[str, str], source: dict) -> dict:
    tests, wrong = [], []
    given = Counter()
    for c in cases:
        name = c["name"]
        w = _WRONG_TEST.match(name)
        if w:
            verdict = {"passed": "rejected", "skipped": "not judged", "failed": "accepted",
                       "error": "error"}[c["status"]]
            msg = c["message"]
            for line in c["output"].splitlines():
                if line.startswith("REJECTED") or "CUDALAB-WRONG: SKIPPED" in line:
                    msg = line.replace("CUDALAB-WRONG: SKIPPED: ", "")
            wrong.append({"name": name, "lab": w.group(1), "variant": w.group(2),
                          "verdict": verdict, "message": msg})
            continue
        m = _LAB_TEST.match(name)
        test_labels = (labels or {}).get(name) or labels_from_name(name)
        if not m:
            if "given" in test_labels or name.startswith("common."):
                given[c["status"]] += 1
            continue
        lab, rest = m.groups()
        if "given" in test_labels:
            given[c["status"]] += 1
            continue
        suite, _, case = rest.partition(".")
        cat = category(test_labels)
        weight = WEIGHTS.get(cat, DEFAULT_WEIGHT)
        tests.append({
            "name": name, "lab": lab, "suite": suite, "case": case, "labels": test_labels,
            "category": cat, "weight": weight, "status": c["status"],
            "points": weight if c["status"] == "passed" else 0,
            "time_s": round(c["time_s"], 3), "message": c["message"],
            "measurements": measurements(name, c["output"]),
            "speed": [s.group("text") for s in map(_SPEED.match, c["output"].splitlines()) if s],
        })

    labs = OrderedDict()
    for t in sorted(tests, key=lambda t: t["lab"]):
        lab = labs.setdefault(t["lab"], {
            "lab": t["lab"], "number": int(t["lab"][3:]), "topic": topics.get(t["lab"]),
            "tests": 0, "passed": 0, "failed": 0, "skipped": 0, "error": 0,
            "points": 0, "max_points": 0, "max_points_here": 0,
            "by_category": {}, "measurements": [], "failures": []})
        lab["tests"] += 1
        lab[t["status"]] += 1
        lab["points"] += t["points"]
        lab["max_points"] += t["weight"]
        if t["status"] != "skipped":
            lab["max_points_here"] += t["weight"]
        cat = lab["by_category"].setdefault(t["category"], {"tests": 0, "passed": 0})
        cat["tests"] += 1
        cat["passed"] += t["status"] == "passed"
        for meas in t["measurements"]:
            lab["measurements"].append(dict(meas, status=t["status"]))
        if t["status"] in ("failed", "error"):
            lab["failures"].append({"test": t["name"], "message": t["message"]})
    keys = ("tests", "passed", "failed", "skipped", "error", "points", "max_points",
            "max_points_here")
    totals = {k: sum(lab[k] for lab in labs.values()) for k in keys}
    return {
        "schema": SCHEMA_NAME,
        "version": SCHEMA_VERSION,
        "generated": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "source": source,
        "environment": environment(cases, cache),
        "weights": {"default": DEFAULT_WEIGHT, **WEIGHTS},
        "totals": totals,
        "labs": list(labs.values()),
        "given": {k: given.get(k, 0) for k in ("passed", "failed", "skipped", "error")},
        "wrong": wrong,
        "tests": tests,
    }


# ---------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------
def _fmt(x) -> str:
    if isinstance(x, float):
        return f"{x:.4g}"
    return "-" if x is None else str(x)


def measurement_text(m: dict) -> str:
    text = f"{m['name']} {_fmt(m['value'])}{m['unit'] if m['unit'] in ('x', '%') else (' ' + m['unit'] if m['unit'] else '')}"
    if m["threshold"] is not None:
        text += f" (threshold {_fmt(m['threshold'])})"
    return text


def gpu_line(env: dict) -> str:
    gpu = env["gpu"]
    tk = env.get("cuda_toolkit") or "unknown"
    if not gpu["available"]:
        return (f"GPU: none. GPU tests were skipped ({gpu['reason']}); only the CPU-graded "
                f"parts are scored. CUDA toolkit {tk}.")
    if gpu.get("compute_capability"):
        text = (f"GPU: {gpu['name']}, compute capability {gpu['compute_capability']}, "
                f"{gpu['sm_count']} SMs at {gpu['sm_clock_mhz']} MHz, driver {gpu['driver']}, "
                f"runtime {gpu['runtime']}, CUDA toolkit {tk}")
    else:
        text = f"GPU: {gpu['description']}, CUDA toolkit {tk}"
    if len(env.get("gpus_seen", [])) > 1:
        text += f" ({len(env['gpus_seen'])} different GPUs ran tests)"
    return text


def _rows(report: dict) -> tuple[list[str], list[list[str]]]:
    head = ["lab", "topic", "passed", "failed", "skipped", "points", "key measurements"]
    rows = []
    for lab in report["labs"]:
        meas = "; ".join(measurement_text(m) for m in lab["measurements"][:3])
        if len(lab["measurements"]) > 3:
            meas += f"; +{len(lab['measurements']) - 3} more"
        rows.append([lab["lab"], lab["topic"] or "", f"{lab['passed']}/{lab['tests']}",
                     str(lab["failed"] + lab["error"]), str(lab["skipped"]),
                     f"{lab['points']}/{lab['max_points']}", meas or "-"])
    t = report["totals"]
    rows.append(["total", "", f"{t['passed']}/{t['tests']}", str(t["failed"] + t["error"]),
                 str(t["skipped"]), f"{t['points']}/{t['max_points']}", ""])
    return head, rows


def render_text(report: dict) -> str:
    env = report["environment"]
    head, rows = _rows(report)
    widths = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
    line = lambda r: "  ".join(c.ljust(w) if i in (0, 1, 6) else c.rjust(w)
                               for i, (c, w) in enumerate(zip(r, widths))).rstrip()
    impl = env.get("implementation") or "?"
    out = [f"cudalabs scoreboard ({impl} build, {report['generated']})", gpu_line(env), "",
           line(head), line(["-" * w for w in widths])]
    out += [line(r) for r in rows[:-1]]
    out += [line(["-" * w for w in widths]), line(rows[-1])]
    t = report["totals"]
    if t["skipped"]:
        out.append(f"{t['skipped']} graded test(s) skipped; points possible here: "
                   f"{t['max_points_here']} of {t['max_points']}.")
    meas = [(lab["lab"], m) for lab in report["labs"] for m in lab["measurements"]]
    if meas:
        out += ["", "measurements:"]
        for lab, m in meas:
            out.append(f"  {lab}  {m['test'].split('.', 1)[1]}: {measurement_text(m)}  [{m['status']}]")
    fails = [f for lab in report["labs"] for f in lab["failures"]]
    if fails:
        out += ["", "failed:"]
        out += [f"  {f['test']}: {f['message']}" for f in fails]
    if report["wrong"]:
        v = Counter(w["verdict"] for w in report["wrong"])
        out += ["", "known-wrong submissions: " + ", ".join(f"{n} {k}" for k, n in sorted(v.items()))]
        out += [f"  {w['name']}: {w['verdict'].upper()}" for w in report["wrong"]
                if w["verdict"] in ("accepted", "error")]
    g = report["given"]
    if sum(g.values()):
        out += ["", f"given (not graded): {g['passed']} passed, {g['failed'] + g['error']} failed, "
                    f"{g['skipped']} skipped"]
    return "\n".join(out) + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(report: dict) -> str:
    env = report["environment"]
    head, rows = _rows(report)
    rows[-1] = [f"**{c}**" if c else "" for c in rows[-1]]
    out = [f"## cudalabs scoreboard ({env.get('implementation') or '?'} build)", "",
           _md(gpu_line(env)), "",
           "| " + " | ".join(head) + " |",
           "|" + "|".join(["---", "---", "--:", "--:", "--:", "--:", "---"]) + "|"]
    out += ["| " + " | ".join(_md(c) for c in r) + " |" for r in rows]
    meas = [(lab["lab"], m) for lab in report["labs"] for m in lab["measurements"]]
    if meas:
        out += ["", "### Measurements", "", "| lab | test | measurement | value | threshold | result |",
                "|---|---|---|--:|--:|---|"]
        for lab, m in meas:
            out.append(f"| {lab} | `{_md(m['test'].split('.', 1)[1])}` | {_md(m['name'])} | "
                       f"{_fmt(m['value'])} {_md(m['unit'])} | {_fmt(m['threshold'])} | {m['status']} |")
    fails = [f for lab in report["labs"] for f in lab["failures"]]
    if fails:
        out += ["", "<details><summary>Failed tests (" + str(len(fails)) + ")</summary>", ""]
        out += [f"- `{_md(f['test'])}`: {_md(f['message'])}" for f in fails]
        out += ["", "</details>"]
    if report["wrong"]:
        v = Counter(w["verdict"] for w in report["wrong"])
        out += ["", "Known-wrong submissions: " + ", ".join(f"{n} {k}" for k, n in sorted(v.items()))]
        out += [f"- **{w['verdict'].upper()}** `{w['name']}`" for w in report["wrong"]
                if w["verdict"] in ("accepted", "error")]
    out += ["", f"_Points: 1 per graded test, perf tests {WEIGHTS['perf']}; generated "
                f"{report['generated']}; schema {SCHEMA_NAME} v{SCHEMA_VERSION}._"]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------
def run_ctest(build_dir: Path, junit: Path, extra: list[str]) -> int:
    cmd = ["ctest", "--test-dir", str(build_dir), "--output-junit", str(junit.resolve())] + extra
    print("scoreboard: " + " ".join(cmd), flush=True)
    try:
        return subprocess.run(cmd, check=False).returncode
    except OSError as e:
        raise ScoreError(f"cannot run ctest: {e}") from None


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser(
        prog="scoreboard.py", description="Per-lab scores from CTest's JUnit output.",
        epilog="Arguments after -- go to ctest (with --run), e.g. -- -L cpu -j 4.")
    ap.add_argument("--build-dir", type=Path, default=Path("build/student"),
                    help="the build tree (default: build/student)")
    ap.add_argument("--junit", type=Path, help="JUnit file (default: <build-dir>/junit.xml)")
    ap.add_argument("--run", action="store_true",
                    help="run ctest once (writing the JUnit file) before scoring")
    ap.add_argument("--json", type=Path, help="scores JSON (default: <build-dir>/scores.json)")
    ap.add_argument("--markdown", type=Path, help="Markdown (default: <build-dir>/scores.md)")
    ap.add_argument("--step-summary", action="store_true",
                    help="also append the Markdown to $GITHUB_STEP_SUMMARY")
    ap.add_argument("--no-ctest-labels", action="store_true",
                    help="derive labels from test names instead of asking ctest")
    ap.add_argument("--strict", action="store_true",
                    help="exit 1 if a test could not run or no lab test was found")
    ap.add_argument("--quiet", action="store_true", help="do not print the table")
    args = ap.parse_args(argv)
    if extra and not args.run:
        ap.error("arguments after -- are for ctest and need --run")

    build = args.build_dir
    junit = args.junit or build / "junit.xml"
    if args.run:
        if not (build / "CTestTestfile.cmake").exists():
            raise ScoreError(f"{build} is not a configured build tree (no CTestTestfile.cmake)")
        rc = run_ctest(build, junit, extra)
        if rc not in (0, 8):  # 8: some tests failed, which the scoreboard reports
            print(f"scoreboard: ctest exited with {rc}", file=sys.stderr)
    cases = read_junit(junit)
    labels = None
    if not args.no_ctest_labels and (build / "CTestTestfile.cmake").exists():
        labels = ctest_labels(build)
    cache = read_cache(build)
    report = score(cases, labels, cache, lab_topics(build, cache),
                   {"junit": str(junit), "build_dir": str(build),
                    "labels_from": "ctest" if labels is not None else "test names"})

    if not args.quiet:
        sys.stdout.write(render_text(report))
    md = render_markdown(report)
    json_path = args.json or build / "scores.json"
    md_path = args.markdown or build / "scores.md"
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

    if args.strict:
        problems = [t["name"] for t in report["tests"] if t["status"] == "error"]
        if problems:
            print("scoreboard: could not run: " + ", ".join(problems), file=sys.stderr)
            return 1
        if not report["labs"]:
            print("scoreboard: no graded lab test in " + str(junit), file=sys.stderr)
            return 1
    return 0


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
