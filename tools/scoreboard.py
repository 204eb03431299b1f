#!/usr/bin/env python3
"""cudalabs scoreboard: per-lab scores from the build tree's manifest and test results.

    python3 tools/scoreboard.py [--build-dir build/student] [--run] [-- <ctest args>]

What it reads, all machine-readable (docs/scores-schema.md):
  * <build-dir>/cudalab_manifest.json and cudalab_manifest.d/*.json, written by CMake
    (cmake/CudalabGrading.cmake): every test with its labels, whether it is graded, and
    each lab's objectives with their points;
  * <build-dir>/junit.xml (written by the test presets, or by --run, which runs ctest once
    with --output-junit): CTest's verdict of each test of the last run, timeouts included;
  * <build-dir>/cudalab_measure/*.jsonl, written by the tests themselves (the measurement
    channel, cudalab/testing.hpp): each test's start, GPU, CUDALAB_SPEEDUP_SCALE,
    measurements and result, which survive later runs of other tests.
For each test the latest result wins, so a filtered run (ctest -R lab07) updates lab 07 and
keeps what earlier runs said about the others; the table says how many tests have a result.
It prints a per-lab table (points, key measurements, GPU, CUDALAB_SPEEDUP_SCALE) and writes
<build-dir>/scores.json and <build-dir>/scores.md (Markdown; --step-summary appends it to
$GITHUB_STEP_SUMMARY). Tests are never re-run to build the table. Python 3 standard library.

Exit status: 0 on success (failed tests are scores, not errors); 1 with --strict when a
grader was not built, a test could not run or no lab test has a result, or when an
--expect-measurement is missing;
2 on a usage or input error.
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
SCHEMA_VERSION = 2
MANIFEST = "cudalab_manifest.json"
CATEGORIES = ("profiler", "sanitizer", "perf", "gpu", "cpu")
SAME_RUN_SLACK_S = 5.0  # a channel file this close to the JUnit run belongs to it

# Tests of the known-wrong and correct-alternative submissions (cmake/CudalabWrong.cmake).
_VARIANT_TEST = re.compile(r"^(wrong|right)\.(lab\d\d)\.(.+)$")


class ScoreError(Exception):
    """An input or usage problem: reported on one line, exit status 2."""


# ---------------------------------------------------------------------------
# The manifest (cmake/CudalabGrading.cmake)
# ---------------------------------------------------------------------------
def load_manifest(build_dir: Path) -> dict:
    """The build tree's manifest with every grader's part merged in.

    Returns {"labs": {lab: info}, "graders": [...], "tests": {name: test},
    "objectives": {lab: {objective: {"points", "tests"}}}, "missing": [grader targets not
    built], "raw": the configure-time manifest}."""
    path = build_dir / MANIFEST
    try:
        raw = json.loads(path.read_text())
    except FileNotFoundError:
        raise ScoreError(f"{path} not found: configure and build the tree with this version "
                         f"of the repository (cmake --preset <name>; cmake --build ...)") from None
    except ValueError as e:
        raise ScoreError(f"{path} is not valid JSON: {e}") from None
    labs = OrderedDict((lab["lab"], lab) for lab in raw.get("labs", []))
    tests = OrderedDict((t["name"], t) for t in raw.get("tests", []))
    objectives: dict[str, dict] = {}
    missing = []
    for g in raw.get("graders", []):
        part_path = build_dir / g["tests_file"]
        try:
            part = json.loads(part_path.read_text())
        except (OSError, ValueError):
            missing.append(g["target"])
            continue
        for t in part.get("tests", []):
            tests[t["name"]] = t
        if part.get("objectives"):
            objectives[part["lab"]] = {o["name"]: {"points": o["points"], "tests": o["tests"]}
                                       for o in part["objectives"]}
    return {"labs": labs, "graders": raw.get("graders", []), "tests": tests,
            "objectives": objectives, "missing": missing, "raw": raw,
            "lab_points": raw.get("rules", {}).get("lab_points", 100)}


def test_points(manifest: dict, test: dict) -> float:
    """What a graded test is worth: its objective's points over the objective's tests."""
    obj = manifest["objectives"].get(test.get("lab"), {}).get(test.get("objective"))
    if not obj or not obj["tests"]:
        return 0.0
    return obj["points"] / obj["tests"]


# ---------------------------------------------------------------------------
# CTest's JUnit file
# ---------------------------------------------------------------------------
def _number(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        return float(text)
    except ValueError:
        return None


def read_junit(path: Path) -> list[dict]:
    """Every <testcase> of a CTest JUnit file: name, status, time_s, output, message.

    status: passed | failed | skipped | error (could not run: missing executable, ...). The
    message is CTest's own (e.g. "Timeout"), not the test's output."""
    return read_junit_run(path)[0]


def read_junit_run(path: Path) -> tuple[list[dict], dict]:
    """read_junit() and the run's window {"start", "end"} (seconds since the epoch)."""
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
            status, message = "failed", failure.get("message") or "failed"
        elif skipped is not None:
            status, message = "skipped", skipped.get("message") or "skipped"
        elif status_attr in ("run", "passed", ""):
            status, message = "passed", ""
        elif status_attr in ("notrun", "disabled"):
            status, message = "error", "not run (missing executable?)"
        else:
            status, message = "failed", status_attr
        cases.append({"name": name, "status": status, "time_s": _number(tc.get("time")) or 0.0,
                      "output": out, "message": message})
    # CTest writes the run's start in local time without a zone; the file is written at its end.
    suite = root if root.tag == "testsuite" else root.find("testsuite")
    end = path.stat().st_mtime
    duration = _number(suite.get("time")) if suite is not None else None
    start = end - (duration or 0.0)
    if suite is not None and suite.get("timestamp"):
        try:
            start = min(start, _dt.datetime.strptime(suite.get("timestamp"),
                                                     "%Y-%m-%dT%H:%M:%S").timestamp())
        except ValueError:
            pass
    return cases, {"start": start, "end": end}


# ---------------------------------------------------------------------------
# The measurement channel (cudalab/testing.hpp)
# ---------------------------------------------------------------------------
def read_channel(measure_dir: Path) -> dict[str, dict]:
    """Per test name: {"start": unix time, "test": record, "device": record or None,
    "measurements": [records], "result": record or None}. Unreadable lines are skipped."""
    found: dict[str, dict] = {}
    if not measure_dir.is_dir():
        return found
    for f in sorted(measure_dir.glob("*.jsonl")):
        entry = None
        try:
            lines = f.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        for line in lines:
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            kind = rec.get("type")
            if kind == "test":
                entry = {"start": rec.get("unix_time") or 0.0, "test": rec, "device": None,
                         "measurements": [], "result": None}
                found[rec.get("test", f.stem)] = entry
            elif entry is None:
                continue
            elif kind == "device":
                entry["device"] = rec
            elif kind == "measurement":
                entry["measurements"].append(rec)
            elif kind == "result":
                entry["result"] = rec
    return found


def _iso(t: float | None) -> str | None:
    if not t:
        return None
    return _dt.datetime.fromtimestamp(t, _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def merge_result(junit_case: dict | None, run: dict | None, chan: dict | None,
                 junit_only: bool) -> dict | None:
    """The latest result of one test from CTest's JUnit case and the test's channel file.

    Returns {status, message, time_s, source, time, channel (the channel entry of that run or
    None)} or None when neither says anything."""
    in_run = None
    if chan is not None and run is not None:
        if chan["start"] < run["start"] - SAME_RUN_SLACK_S:
            in_run = "older"
        elif chan["start"] > run["end"] + SAME_RUN_SLACK_S:
            in_run = "newer"
        else:
            in_run = "same"
    if junit_case is not None and in_run != "newer":
        same = chan if in_run == "same" else None
        message = junit_case["message"]
        if same and same["result"] and junit_case["status"] in ("failed", "skipped") \
                and same["result"].get("message"):
            message = _channel_message(same["result"])
        return {"status": junit_case["status"], "message": message,
                "time_s": junit_case["time_s"], "source": "junit",
                "time": _iso(run["start"] if run else None), "channel": same}
    if chan is None or junit_only:
        return None
    res = chan["result"]
    if res is None:
        status, message = "failed", "no result recorded: the test crashed or timed out"
        time_s = 0.0
    else:
        status = res.get("status") if res.get("status") in ("passed", "failed", "skipped") \
            else "failed"
        message = _channel_message(res) if status != "passed" else ""
        time_s = (res.get("elapsed_ms") or 0) / 1000.0
    return {"status": status, "message": message, "time_s": time_s, "source": "channel",
            "time": _iso(chan["start"]), "channel": chan}


def _channel_message(res: dict) -> str:
    text = " ".join((res.get("message") or "").split())[:400]
    if res.get("file") and res.get("status") == "failed":
        return f"{Path(res['file']).name}:{res.get('line')}: {text}"
    return text


def channel_measurements(test: str, chan: dict | None, status: str) -> list[dict]:
    if not chan:
        return []
    scale = chan["test"].get("speedup_scale")
    out = []
    for m in chan["measurements"]:
        out.append({"test": test, "name": m.get("name"), "value": m.get("value"),
                    "unit": m.get("unit") or "", "threshold": m.get("threshold"),
                    "bound": m.get("bound"), "verdict": m.get("verdict"),
                    "unscaled_threshold": m.get("unscaled_threshold"),
                    "speedup_scale": m.get("speedup_scale", scale), "text": m.get("text"),
                    "tiers": m.get("tiers") or [], "tier": m.get("tier"), "status": status})
    return out


# ---------------------------------------------------------------------------
# The build tree's cache
# ---------------------------------------------------------------------------
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


# ---------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------
def category(labels: list[str]) -> str:
    for c in CATEGORIES:
        if c in labels:
            return c
    return "other"


def _device_fields(rec: dict) -> dict:
    keys = ("name", "compute_capability", "sm_count", "sm_clock_mhz", "memory_clock_mhz",
            "smem_per_block_optin_kb", "driver", "runtime", "description")
    return {"available": True, **{k: rec.get(k) for k in keys}}


def environment(used: list[dict], cache: dict[str, str]) -> dict:
    """The GPU, CUDALAB_SPEEDUP_SCALE and toolkit of the results that were scored."""
    gpus, reasons, scales = Counter(), Counter(), Counter()
    device_of = {}
    for chan in used:
        dev = chan.get("device")
        if dev and dev.get("available"):
            desc = dev.get("description") or dev.get("name") or "?"
            gpus[desc] += 1
            device_of[desc] = dev
        elif dev:
            reasons[dev.get("reason") or "?"] += 1
        scales[json.dumps(chan["test"].get("speedup_scale"))] += 1
    if gpus:
        gpu = _device_fields(device_of[gpus.most_common(1)[0][0]])
    else:
        gpu = {"available": False,
               "reason": reasons.most_common(1)[0][0] if reasons else "no test reported a GPU"}
    seen = [json.loads(s) for s in sorted(scales)]
    return {
        "gpu": gpu,
        "gpus_seen": sorted(gpus),
        "speedup_scale": seen[0] if len(seen) == 1 else None,
        "speedup_scales_seen": seen,
        "cuda_toolkit": cache.get("CMAKE_CUDA_COMPILER_VERSION"),
        "cuda_architectures": cache.get("CMAKE_CUDA_ARCHITECTURES"),
        "implementation": cache.get("CUDALAB_IMPL"),
        "build_type": cache.get("CMAKE_BUILD_TYPE"),
    }


def _variant_verdict(kind: str, status: str) -> str:
    if kind == "wrong":
        return {"passed": "rejected", "skipped": "not judged", "failed": "accepted",
                "error": "error"}[status]
    return {"passed": "accepted", "skipped": "not judged", "failed": "rejected",
            "error": "error"}[status]


def _variant_message(out: str, message: str) -> str:
    for line in out.splitlines():  # the driver's verdict line (tests/wrong/expect_rejection.cmake)
        if line.startswith(("REJECTED", "ACCEPTED")) or "CUDALAB-WRONG: SKIPPED" in line:
            return line.replace("CUDALAB-WRONG: SKIPPED: ", "")[:400]
    return message


def score(manifest: dict, cases: list[dict], run: dict | None, channel: dict[str, dict],
          cache: dict[str, str], source: dict, junit_only: bool = False) -> dict:
    by_name = {c["name"]: c for c in cases}
    tests, variants, all_measurements, used = [], {"wrong": [], "right": []}, [], []
    given = Counter()
    for c in cases:
        v = _VARIANT_TEST.match(c["name"])
        if v:
            variants[v.group(1)].append({
                "name": c["name"], "lab": v.group(2), "variant": v.group(3),
                "verdict": _variant_verdict(v.group(1), c["status"]),
                "message": _variant_message(c["output"], c["message"])})

    for name, t in manifest["tests"].items():
        r = merge_result(by_name.get(name), run, channel.get(name), junit_only)
        status = r["status"] if r else "not run"
        if r and r["channel"]:
            used.append(r["channel"])
        meas = channel_measurements(name, r["channel"] if r else None, status)
        for m in meas:
            all_measurements.append(dict(m, lab=t.get("lab"), graded=bool(t.get("graded"))))
        if not t.get("graded"):
            if r:
                given[status] += 1
            continue
        weight = test_points(manifest, t)
        tests.append({
            "name": name, "lab": t["lab"], "suite": t["suite"], "case": t["case"],
            "labels": t["labels"], "category": category(t["labels"]),
            "objective": t.get("objective"), "weight": round(weight, 4), "status": status,
            "points": round(weight, 4) if status == "passed" else 0,
            "time_s": round(r["time_s"], 3) if r else None,
            "message": r["message"] if r else "",
            "result_source": r["source"] if r else None, "result_time": r["time"] if r else None,
            "speedup_scale": (r["channel"]["test"].get("speedup_scale")
                              if r and r["channel"] else None),
            "measurements": meas,
            "speed": [m["text"] for m in meas if m.get("text")],
        })

    labs = OrderedDict()
    for lab_id, info in manifest["labs"].items():
        grader = info.get("grader")
        labs[lab_id] = {
            "lab": lab_id, "number": info.get("number"), "topic": info.get("topic"),
            "folder": info.get("folder"), "grader_built": grader not in manifest["missing"],
            "tests": 0, "with_result": 0, "passed": 0, "failed": 0, "skipped": 0, "error": 0,
            "not_run": 0, "points": 0.0, "max_points": 0.0, "max_points_here": 0.0,
            "objectives": [], "by_category": {}, "measurements": [], "failures": [],
            "speedup_scales": []}
    for t in tests:
        lab = labs.setdefault(t["lab"], {
            "lab": t["lab"], "number": int(t["lab"][3:]), "topic": None, "folder": None,
            "grader_built": True, "tests": 0, "with_result": 0, "passed": 0, "failed": 0,
            "skipped": 0, "error": 0, "not_run": 0, "points": 0.0, "max_points": 0.0,
            "max_points_here": 0.0, "objectives": [], "by_category": {}, "measurements": [],
            "failures": [], "speedup_scales": []})
        lab["tests"] += 1
        lab[t["status"].replace(" ", "_")] += 1
        lab["with_result"] += t["status"] != "not run"
        lab["points"] += t["points"]
        if t["status"] != "skipped":
            lab["max_points_here"] += t["weight"]
        cat = lab["by_category"].setdefault(t["category"], {"tests": 0, "passed": 0})
        cat["tests"] += 1
        cat["passed"] += t["status"] == "passed"
        lab["measurements"] += t["measurements"]
        if t["status"] in ("failed", "error"):
            lab["failures"].append({"test": t["name"], "message": t["message"]})
        if t["speedup_scale"] is not None and t["speedup_scale"] not in lab["speedup_scales"]:
            lab["speedup_scales"].append(t["speedup_scale"])
    for lab_id, lab in labs.items():
        objs = manifest["objectives"].get(lab_id, {})
        for oname, o in sorted(objs.items()):
            mine = [t for t in tests if t["lab"] == lab_id and t["objective"] == oname]
            lab["objectives"].append({
                "name": oname, "points": o["points"], "tests": o["tests"],
                "passed": sum(t["status"] == "passed" for t in mine),
                "earned": round(sum(t["points"] for t in mine), 2)})
        lab["max_points"] = float(sum(o["points"] for o in objs.values())) if objs else \
            (float(manifest["lab_points"]) if not lab["grader_built"] else 0.0)
        for k in ("points", "max_points", "max_points_here"):
            lab[k] = round(lab[k], 2)
    labs = OrderedDict((k, v) for k, v in labs.items() if v["tests"] or not v["grader_built"])

    keys = ("tests", "with_result", "passed", "failed", "skipped", "error", "not_run",
            "points", "max_points", "max_points_here")
    totals = {k: round(sum(lab[k] for lab in labs.values()), 2) for k in keys}
    from_junit = sum(t["result_source"] == "junit" for t in tests)
    times = sorted(t["result_time"] for t in tests if t["result_time"])
    run_info = {
        "graded_tests": totals["tests"], "with_result": totals["with_result"],
        "not_run": totals["not_run"], "from_junit": from_junit,
        "from_channel": totals["with_result"] - from_junit,
        "partial": totals["with_result"] < totals["tests"],
        "oldest_result": times[0] if times else None, "newest_result": times[-1] if times else None,
        "graders_not_built": manifest["missing"]}
    return {
        "schema": SCHEMA_NAME,
        "version": SCHEMA_VERSION,
        "generated": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "source": source,
        "environment": environment(used, cache),
        "points": {"lab_points": manifest["lab_points"],
                   "rule": "each lab's points are split over its objectives (graded suites); "
                           "within an objective every test counts the same"},
        "run": run_info,
        "totals": totals,
        "labs": list(labs.values()),
        "given": {k: given.get(k, 0) for k in ("passed", "failed", "skipped", "error")},
        "wrong": variants["wrong"],
        "right": variants["right"],
        "tests": tests,
        "measurements": all_measurements,
    }


# ---------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------
def _fmt(x) -> str:
    if isinstance(x, float):
        return f"{x:.4g}"
    return "-" if x is None else str(x)


def _pts(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".") if isinstance(x, (int, float)) else str(x)


def measurement_text(m: dict) -> str:
    unit = m["unit"] if m["unit"] in ("x", "%") else (" " + m["unit"] if m["unit"] else "")
    text = f"{m['name']} {_fmt(m['value'])}{unit}"
    if m["threshold"] is not None:
        sign = {"min": ">= ", "max": "<= "}.get(m.get("bound") or "", "threshold ")
        text += f" ({sign}{_fmt(m['threshold'])})"
    if m.get("tiers"):
        text += f", tier {tier_text(m)}"
    return text


def tier_text(m: dict) -> str:
    """The tier a measurement reached and the tiers it had: 'good (good >= 75, excellent >= 85)'."""
    levels = ", ".join(f"{t.get('name')} >= {_fmt(t.get('at_least'))}" for t in m.get("tiers") or [])
    return f"{m.get('tier') or 'none'} ({levels})"


def gpu_line(env: dict) -> str:
    gpu = env["gpu"]
    tk = env.get("cuda_toolkit") or "unknown"
    if not gpu["available"]:
        return (f"GPU: none. GPU tests were skipped ({gpu['reason']}); only the CPU-graded "
                f"parts are scored. CUDA toolkit {tk}.")
    text = (f"GPU: {gpu['name']}, compute capability {gpu['compute_capability']}, "
            f"{gpu['sm_count']} SMs at {gpu['sm_clock_mhz']} MHz, driver {gpu['driver']}, "
            f"runtime {gpu['runtime']}, CUDA toolkit {tk}")
    if len(env.get("gpus_seen", [])) > 1:
        text += f" ({len(env['gpus_seen'])} different GPUs ran tests)"
    return text


def scale_line(env: dict) -> str:
    seen = env.get("speedup_scales_seen") or []
    if not seen:
        return "CUDALAB_SPEEDUP_SCALE: no test reported it"
    if len(seen) == 1:
        s = seen[0]
        return "CUDALAB_SPEEDUP_SCALE " + ("invalid" if s is None else _fmt(float(s))) + \
            (" (the default: thresholds as written)" if s == 1 else
             " (every speed threshold was scaled by it)")
    return "CUDALAB_SPEEDUP_SCALE differed between results: " + \
        ", ".join("invalid" if s is None else _fmt(float(s)) for s in seen)


def run_line(report: dict) -> str:
    r = report["run"]
    if not r["partial"] and r["from_channel"] == 0:
        return f"complete run: all {r['graded_tests']} graded tests have a result from it."
    parts = []
    if r["partial"]:
        parts.append(f"partial run: {r['with_result']} of {r['graded_tests']} graded tests have "
                     f"a result ({r['not_run']} never run)")
    else:
        parts.append(f"all {r['graded_tests']} graded tests have a result")
    if r["from_channel"]:
        parts.append(f"{r['from_junit']} from the JUnit file, {r['from_channel']} kept from "
                     f"other runs (latest result per test, {r['oldest_result']} to "
                     f"{r['newest_result']})")
    if r["graders_not_built"]:
        parts.append("not built: " + ", ".join(r["graders_not_built"]))
    return "; ".join(parts) + "."


def _rows(report: dict) -> tuple[list[str], list[list[str]]]:
    head = ["lab", "topic", "passed", "failed", "skipped", "not run", "points",
            "key measurements"]
    rows = []
    for lab in report["labs"]:
        meas = "; ".join(measurement_text(m) for m in lab["measurements"][:3])
        if len(lab["measurements"]) > 3:
            meas += f"; +{len(lab['measurements']) - 3} more"
        if not lab["grader_built"]:
            meas = "grader not built" + ("; " + meas if meas else "")
        rows.append([lab["lab"], lab["topic"] or "", f"{lab['passed']}/{lab['tests']}",
                     str(lab["failed"] + lab["error"]), str(lab["skipped"]), str(lab["not_run"]),
                     f"{_pts(lab['points'])}/{_pts(lab['max_points'])}", meas or "-"])
    t = report["totals"]
    rows.append(["total", "", f"{t['passed']}/{t['tests']}", str(t["failed"] + t["error"]),
                 str(t["skipped"]), str(t["not_run"]),
                 f"{_pts(t['points'])}/{_pts(t['max_points'])}", ""])
    return head, rows


def render_text(report: dict) -> str:
    env = report["environment"]
    head, rows = _rows(report)
    widths = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
    line = lambda r: "  ".join(c.ljust(w) if i in (0, 1, 7) else c.rjust(w)  # noqa: E731
                               for i, (c, w) in enumerate(zip(r, widths))).rstrip()
    impl = env.get("implementation") or "?"
    out = [f"cudalabs scoreboard ({impl} build, {report['generated']})", gpu_line(env),
           scale_line(env), run_line(report), "",
           line(head), line(["-" * w for w in widths])]
    out += [line(r) for r in rows[:-1]]
    out += [line(["-" * w for w in widths]), line(rows[-1])]
    t = report["totals"]
    if t["skipped"]:
        out.append(f"{t['skipped']} graded test(s) skipped; points possible here: "
                   f"{_pts(t['max_points_here'])} of {_pts(t['max_points'])}.")
    meas = [(lab["lab"], m) for lab in report["labs"] for m in lab["measurements"]]
    if meas:
        out += ["", "measurements:"]
        for lab, m in meas:
            out.append(f"  {lab}  {m['test'].split('.', 1)[1]}: {measurement_text(m)}  "
                       f"[{m['status']}]")
    fails = [f for lab in report["labs"] for f in lab["failures"]]
    if fails:
        out += ["", "failed:"]
        out += [f"  {f['test']}: {f['message']}" for f in fails]
    for kind, bad in (("wrong", ("accepted", "error")), ("right", ("rejected", "error"))):
        if report[kind]:
            v = Counter(w["verdict"] for w in report[kind])
            title = "known-wrong submissions" if kind == "wrong" else "correct alternatives"
            out += ["", f"{title}: " + ", ".join(f"{n} {k}" for k, n in sorted(v.items()))]
            out += [f"  {w['name']}: {w['verdict'].upper()}" for w in report[kind]
                    if w["verdict"] in bad]
    g = report["given"]
    if sum(g.values()):
        out += ["", f"given (not graded): {g['passed']} passed, {g['failed'] + g['error']} failed, "
                    f"{g['skipped']} skipped"]
    return "\n".join(out) + "\n"


def _md(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render_markdown(report: dict) -> str:
    env = report["environment"]
    head, rows = _rows(report)
    rows[-1] = [f"**{c}**" if c else "" for c in rows[-1]]
    out = [f"## cudalabs scoreboard ({env.get('implementation') or '?'} build)", "",
           _md(gpu_line(env)), "", _md(scale_line(env)), "", _md(run_line(report)), "",
           "| " + " | ".join(head) + " |",
           "|" + "|".join(["---", "---", "--:", "--:", "--:", "--:", "--:", "---"]) + "|"]
    out += ["| " + " | ".join(_md(c) for c in r) + " |" for r in rows]
    meas = [(lab["lab"], m) for lab in report["labs"] for m in lab["measurements"]]
    if meas:
        out += ["", "### Measurements", "",
                "| lab | test | measurement | value | threshold | scale | result | tier |",
                "|---|---|---|--:|--:|--:|---|---|"]
        for lab, m in meas:
            bound = {"min": ">= ", "max": "<= "}.get(m.get("bound") or "", "")
            thr = f"{bound}{_fmt(m['threshold'])}" if m["threshold"] is not None else "-"
            out.append(f"| {lab} | `{_md(m['test'].split('.', 1)[1])}` | {_md(m['name'])} | "
                       f"{_fmt(m['value'])} {_md(m['unit'])} | {_md(thr)} | "
                       f"{_fmt(m.get('speedup_scale'))} | {m['status']} | "
                       f"{_md(tier_text(m)) if m.get('tiers') else '-'} |")
    fails = [f for lab in report["labs"] for f in lab["failures"]]
    if fails:
        out += ["", "<details><summary>Failed tests (" + str(len(fails)) + ")</summary>", ""]
        out += [f"- `{_md(f['test'])}`: {_md(f['message'])}" for f in fails]
        out += ["", "</details>"]
    for kind, bad in (("wrong", ("accepted", "error")), ("right", ("rejected", "error"))):
        if report[kind]:
            v = Counter(w["verdict"] for w in report[kind])
            title = "Known-wrong submissions" if kind == "wrong" else "Correct alternatives"
            out += ["", f"{title}: " + ", ".join(f"{n} {k}" for k, n in sorted(v.items()))]
            out += [f"- **{w['verdict'].upper()}** `{w['name']}`" for w in report[kind]
                    if w["verdict"] in bad]
    out += ["", f"_Points: each lab is worth {report['points']['lab_points']}, split over its "
                f"objectives (docs/scores-schema.md); generated {report['generated']}; schema "
                f"{SCHEMA_NAME} v{SCHEMA_VERSION}._"]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------
def run_ctest(build_dir: Path, junit: Path, extra: list[str]) -> int:
    cmd = ["ctest", "--test-dir", str(build_dir), "--output-junit", str(junit.resolve()),
           "--test-output-size-passed", "1048576", "--test-output-size-failed", "1048576"] + extra
    print("scoreboard: " + " ".join(cmd), flush=True)
    try:
        return subprocess.run(cmd, check=False).returncode
    except OSError as e:
        raise ScoreError(f"cannot run ctest: {e}") from None


def check_expected(report: dict, expected: list[str]) -> list[str]:
    """The --expect-measurement TEST:NAME entries that scores.json does not hold."""
    have = {(m["test"], m["name"]) for m in report["measurements"] if m.get("value") is not None}
    missing = []
    for spec in expected:
        test, _, name = spec.rpartition(":")
        if (test, name) not in have:
            missing.append(spec)
    return missing


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser(
        prog="scoreboard.py",
        description="Per-lab scores from the build tree's manifest, CTest's JUnit file and the "
                    "tests' measurement files.",
        epilog="Arguments after -- go to ctest (with --run), e.g. -- -L cpu -j 4.")
    ap.add_argument("--build-dir", type=Path, default=Path("build/student"),
                    help="the build tree (default: build/student)")
    ap.add_argument("--junit", type=Path, help="JUnit file (default: <build-dir>/junit.xml)")
    ap.add_argument("--run", action="store_true",
                    help="run ctest once (writing the JUnit file) before scoring")
    ap.add_argument("--junit-only", action="store_true",
                    help="score only the tests in the JUnit file (no results of other runs)")
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
    if args.run:
        if not (build / "CTestTestfile.cmake").exists():
            raise ScoreError(f"{build} is not a configured build tree (no CTestTestfile.cmake)")
        rc = run_ctest(build, junit, extra)
        if rc not in (0, 8):  # 8: some tests failed, which the scoreboard reports
            print(f"scoreboard: ctest exited with {rc}", file=sys.stderr)
    manifest = load_manifest(build)
    if junit.exists() or args.junit or args.junit_only:
        cases, run = read_junit_run(junit)
    else:
        cases, run = [], None  # no JUnit (ctest without a preset): the channel files only
    measure_dir = build / manifest["raw"].get("measure_dir", "cudalab_measure")
    channel = read_channel(measure_dir)
    cache = read_cache(build)
    report = score(manifest, cases, run, channel, cache,
                   {"junit": str(junit) if run else None, "build_dir": str(build),
                    "manifest": str(build / MANIFEST), "measure_dir": str(measure_dir),
                    "junit_run_start": _iso(run["start"]) if run else None,
                    "junit_only": args.junit_only},
                   junit_only=args.junit_only)

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

    status = 0
    missing = check_expected(report, args.expect_measurement)
    if missing:
        print("scoreboard: missing measurement(s) in " + str(json_path) + ": " +
              ", ".join(missing), file=sys.stderr)
        status = 1
    if args.strict:
        problems = [t["name"] for t in report["tests"] if t["status"] == "error"]
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
