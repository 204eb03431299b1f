#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""cudalabs scoreboard: per-lab scores from the grading manifest and CTest's record of a run.

    python3 tools/scoreboard.py [--build-dir build/student] [--run] [-- <ctest args>]

What it reads:
  * the grading manifest (tools/grading_manifest.py): every test CTest lists for the build
    tree with its labels and whether it is graded, and each lab's objectives with the points
    its tests/labNN_topic/objectives.json declares; when the source tree has tests/grading.json
    (or --declared names one), exactly the tests and points declared there are graded;
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
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import re
import sys
from collections import Counter, OrderedDict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import grading_manifest  # noqa: E402  (same folder: the manifest from CTest and the declarations)
from ctest_record import ScoreError, read_junit_run  # noqa: E402
from ctest_run import run_ctest_stream  # noqa: E402
from measurement_channel import (VARIANT_TEST, attribute, calibration_summary,  # noqa: E402
                                 channel_bars, channel_measurements)

SCHEMA_NAME = "cudalabs-scores"
SCHEMA_VERSION = 3
MANIFEST = grading_manifest.RECORD
CATEGORIES = ("profiler", "sanitizer", "perf", "gpu", "cpu")

# ---------------------------------------------------------------------------
# The manifest (tools/grading_manifest.py)
# ---------------------------------------------------------------------------
def load_manifest(build_dir: Path) -> dict:
    """The build tree's grading manifest (grading_manifest.build_manifest()): {"labs": {lab:
    info}, "graders": [...], "tests": {name: test}, "objectives": {lab: {objective: {"points",
    "tests"}}}, "missing": [grader targets not built], "problems": [declarations that do not
    fit the graders], "rules", "source_dir", "lab_points", ...}."""
    try:
        return grading_manifest.load_manifest(Path(build_dir))
    except grading_manifest.ManifestError as e:
        raise ScoreError(str(e)) from None


def test_points(manifest: dict, test: dict) -> float:
    """What a graded test is worth: its objective's points over the objective's tests."""
    obj = manifest["objectives"].get(test.get("lab"), {}).get(test.get("objective"))
    if not obj or not obj["tests"]:
        return 0.0
    return obj["points"] / obj["tests"]


# ---------------------------------------------------------------------------
# Declared tests and points (tests/grading.json): what a lab is graded on
# ---------------------------------------------------------------------------
DECLARED_SCHEMA = "cudalabs-declared"


def declared_from_manifest(manifest: dict) -> dict:
    """The graded tests of a build and each lab's objectives, for tests/grading.json."""
    labs: dict[str, dict] = {}
    for name, t in manifest["tests"].items():
        if not t.get("graded"):
            continue
        lab = labs.setdefault(t["lab"], {"objectives": {}})
        obj = lab["objectives"].setdefault(t["objective"], {"points": 0, "tests": []})
        obj["tests"].append(name)
    for lab_id, lab in labs.items():
        for oname, o in lab["objectives"].items():
            o["points"] = manifest["objectives"].get(lab_id, {}).get(oname, {}).get("points", 0)
            o["tests"].sort()
        lab["objectives"] = {k: lab["objectives"][k] for k in sorted(lab["objectives"])}
    return {"schema": DECLARED_SCHEMA, "version": 1, "lab_points": manifest["lab_points"],
            "labs": {k: labs[k] for k in sorted(labs)}}


def apply_declared(manifest: dict, declared: dict) -> list[str]:
    """Grades exactly the declared tests with the declared points: a test of the build that
    is not declared earns nothing, a declared test the build lacks is scored as not run.
    Returns what differed, one line each."""
    if declared.get("schema") != DECLARED_SCHEMA:
        raise ScoreError(f"the declared tests are not a {DECLARED_SCHEMA} file")
    notes = []
    wanted = {}
    for lab_id, lab in declared.get("labs", {}).items():
        for oname, o in lab.get("objectives", {}).items():
            for name in o.get("tests", []):
                wanted[name] = (lab_id, oname)
    for name, t in manifest["tests"].items():
        if t.get("graded") and name not in wanted:
            notes.append(f"{name} is in the build but not declared: not graded")
            t["graded"] = False
    unbuilt: Counter[str] = Counter()  # declared tests of labs whose grader was not built
    for name, (lab_id, oname) in wanted.items():
        t = manifest["tests"].get(name)
        if t is None:
            if f"{lab_id}_test" in manifest["missing"]:
                unbuilt[lab_id] += 1
            else:
                notes.append(f"{name} is declared but not in the build: scored as not run")
            # The objective is the suite's base name: its ending gives the labels (the rules
            # the manifest records).
            suite, _, case = name[len(lab_id) + 1:].rpartition(".")
            labels: list[str] = next((r["labels"] for r in manifest["rules"].get("endings", [])
                                      if oname.endswith(r["ending"])), [])
            manifest["tests"][name] = {"name": name, "lab": lab_id, "suite": suite,
                                       "case": case, "labels": [lab_id] + labels,
                                       "graded": True, "objective": oname}
        else:
            t["graded"] = True
            t["lab"], t["objective"] = lab_id, oname
    notes += [f"{lab_id}: its grader was not built; its {n} declared tests are scored as not run"
              for lab_id, n in sorted(unbuilt.items())]
    objectives = {}
    for lab_id, lab in declared.get("labs", {}).items():
        objectives[lab_id] = {o: {"points": v.get("points", 0), "tests": len(v.get("tests", []))}
                              for o, v in lab.get("objectives", {}).items()}
        built = manifest["objectives"].get(lab_id)
        if built is not None and objectives[lab_id] != built:
            notes.append(f"{lab_id}: the build's objectives differ from the declared ones; the "
                         f"declared ones count")
    manifest["objectives"] = objectives
    manifest["lab_points"] = declared.get("lab_points", manifest["lab_points"])
    return notes


def _iso(t: float | None) -> str | None:
    if not t:
        return None
    return _dt.datetime.fromtimestamp(t, _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# ---------------------------------------------------------------------------
# The build tree's cache
# ---------------------------------------------------------------------------
def read_cache(build_dir: Path) -> dict[str, str]:
    """A few CMakeCache.txt entries (toolkit version, implementation, architectures)."""
    wanted = {"CMAKE_CUDA_COMPILER_VERSION", "CUDALAB_IMPL", "CMAKE_CUDA_ARCHITECTURES",
              "CMAKE_HOME_DIRECTORY", "CMAKE_BUILD_TYPE"}
    found: dict[str, str] = {}
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
# Parts this GPU cannot run: skipped for its compute capability (or for a build without code
# of the architecture a SASS check reads). Their points are shown as optional, never moved.
# ---------------------------------------------------------------------------
# cudalab::gpu_unavailable_reason(major, minor) (common/src/device.cu), which
# CUDALAB_REQUIRE_CC(major, minor) gives as the skip reason on an older GPU:
#   "NVIDIA A100-SXM4-80GB has compute capability 8.0, this test needs 9.0"
_CC_TOO_OLD = re.compile(r"has compute capability (\d+)\.(\d+), this test needs (\d+)\.(\d+)")
# Lab 14's persistent_unavailable_reason() on a GPU below 9.0 (after CUDALAB_REQUIRE_CC(8, 0)):
#   "... are sm_90a features (compute capability 9.0: H100, H200); this GPU is 8.0"
_CC_FEATURE = re.compile(r"\(compute capability (\d+)\.(\d+)[^)]*\); this GPU is (\d+)\.(\d+)")
# cudalab::kit::expect_sass() and lab 14's tensor-core SASS check when the build holds no code
# of the architectures they read (CMAKE_CUDA_ARCHITECTURES=native on an older GPU), and lab 14's
# launcher when the build holds no sm_90a code:
#   "no sm_90 or later code in this grader (built for other architectures); ..."
#   "no sm_80 .. sm_90 code in this grader (built for other architectures); ..."
#   "binary_mma_persistent: this build holds no sm_90a code (...)"
_ARCH_NOT_BUILT = re.compile(r"no sm_(\d+)(?: or later| \.\. sm_\d+)? code in this grader "
                             r"\(built for other architectures\)|this build holds no sm_(\d+)a code")


def unavailable_on_gpu(status: str, message: str) -> dict | None:
    """{"kind", "needs", "reason"} when a skipped test's reason says this GPU's compute
    capability is too old for it ("gpu") or the build holds no code of the architecture it
    needs ("build", which follows the GPU with CMAKE_CUDA_ARCHITECTURES=native); else None.
    needs: the compute capability, "9.0"."""
    if status != "skipped" or not message:
        return None
    m = _CC_TOO_OLD.search(message)
    if m:  # the GPU's, then the test's compute capability
        return {"kind": "gpu", "needs": f"{m.group(3)}.{m.group(4)}", "reason": message}
    m = _CC_FEATURE.search(message)
    if m:  # the feature's, then the GPU's
        return {"kind": "gpu", "needs": f"{m.group(1)}.{m.group(2)}", "reason": message}
    m = _ARCH_NOT_BUILT.search(message)
    if m:
        sm = int(m.group(1) or m.group(2))  # sm_90 -> 9.0, sm_100 -> 10.0
        return {"kind": "build", "needs": f"{sm // 10}.{sm % 10}", "reason": message}
    return None


def _cc_key(cc: str) -> tuple[int, ...]:
    return tuple(int(x) for x in cc.split(".") if x.isdigit())


def unavailable_objectives(objectives: dict, mine: dict[str, list[dict]]) -> list[dict]:
    """The objectives of one lab all of whose tests were skipped as unavailable on this GPU:
    {objective, points, tests, needs (the highest compute capability named), kind ("gpu" when
    any test named the GPU, else "build"), reason (one test's message)}."""
    out = []
    for oname, o in sorted(objectives.items()):
        tests = mine.get(oname) or []
        marks = [t["unavailable"] for t in tests if t.get("unavailable")]
        if not tests or len(marks) != len(tests):  # some test was not skipped as unavailable
            continue
        needs = max((m["needs"] for m in marks), key=_cc_key)
        kind = "gpu" if any(m["kind"] == "gpu" for m in marks) else "build"
        out.append({"objective": oname, "points": o["points"], "tests": len(tests),
                    "needs": needs, "kind": kind,
                    "reason": next(m["reason"] for m in marks if m["kind"] == kind)})
    return out


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
    gpus: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    scales: Counter[str] = Counter()
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
        "calibration": calibration_summary(used),
    }


def _variant_verdict(kind: str, status: str) -> str:
    if kind == "wrong":
        return {"passed": "rejected", "skipped": "not judged", "failed": "accepted",
                "error": "error"}[status]
    return {"passed": "accepted", "skipped": "not judged", "failed": "rejected",
            "error": "error"}[status]


def _variant_message(out: str, message: str) -> str:
    for line in out.splitlines():  # the driver's verdict line (cmake/CudalabExpectVerdict.cmake)
        if line.startswith(("REJECTED", "ACCEPTED")) or "CUDALAB-WRONG: SKIPPED" in line:
            return line.replace("CUDALAB-WRONG: SKIPPED: ", "")[:400]
    return message


def score(manifest: dict, cases: list[dict], run: dict | None, cache: dict[str, str],
          source: dict, previous: dict | None = None, intake: dict | None = None,
          notes: list[str] | None = None) -> dict:
    """The report of one run. @p previous: an earlier scores.json whose results stand in for
    tests this run did not run (only when asked for); @p intake: the intake scan's flags."""
    known = set(manifest["tests"])
    results, anomalies = attribute(cases, known)
    anomalies = list(notes or []) + anomalies
    prev_tests = {t["name"]: t for t in (previous or {}).get("tests", [])}
    tests: list[dict] = []
    variants: dict[str, list[dict]] = {"wrong": [], "right": []}
    all_measurements: list[dict] = []
    used: list[dict] = []
    given: Counter[str] = Counter()
    for c in cases:
        v = VARIANT_TEST.match(c["name"])
        if v:
            variants[v.group(1)].append({
                "name": c["name"], "lab": v.group(2), "variant": v.group(3),
                "verdict": _variant_verdict(v.group(1), c["status"]),
                "message": _variant_message(c["output"], c["message"])})

    run_time = _iso(run["start"]) if run else None
    for name, t in manifest["tests"].items():
        r = results.get(name)
        status = r["status"] if r else "not run"
        if r and r["channel"]:
            used.append(r["channel"])
        meas = channel_measurements(name, r["channel"] if r else None, status)
        if not t.get("graded"):
            for m in meas:
                all_measurements.append(dict(m, lab=t.get("lab"), graded=False))
            if r:
                given[status] += 1
            continue
        weight = test_points(manifest, t)
        entry = {
            "name": name, "lab": t["lab"], "suite": t["suite"], "case": t["case"],
            "labels": t["labels"], "category": category(t["labels"]),
            "objective": t.get("objective"), "weight": round(weight, 4), "status": status,
            "points": round(weight, 4) if status == "passed" else 0,
            "time_s": round(r["time_s"], 3) if r else None,
            "message": r["message"] if r else "",
            "result_source": r["source"] if r else None, "result_time": run_time if r else None,
            "speedup_scale": (r["channel"]["test"].get("speedup_scale")
                              if r and r["channel"] else None),
            "measurements": meas,
            "bars": channel_bars(r["channel"] if r else None),
            "speed": [m["text"] for m in meas if m.get("text")],
        }
        old = prev_tests.get(name)
        if r is None and old and old.get("status") not in (None, "not run"):
            # Kept from an earlier run, as asked (--keep-previous): same weight as now.
            entry.update({k: old.get(k) for k in ("status", "time_s", "message", "result_time",
                                                  "speedup_scale", "measurements", "bars",
                                                  "speed")})
            entry["points"] = round(weight, 4) if entry["status"] == "passed" else 0
            entry["result_source"] = "previous"
            meas = entry["measurements"] or []
        entry["unavailable"] = unavailable_on_gpu(entry["status"], entry["message"] or "")
        for m in meas:
            all_measurements.append(dict(m, lab=t.get("lab"), graded=True))
        tests.append(entry)

    labs = OrderedDict()
    for lab_id, info in manifest["labs"].items():
        grader = info.get("grader")
        labs[lab_id] = {
            "lab": lab_id, "number": info.get("number"), "topic": info.get("topic"),
            "folder": info.get("folder"), "grader_built": grader not in manifest["missing"],
            "tests": 0, "with_result": 0, "passed": 0, "failed": 0, "skipped": 0, "error": 0,
            "not_run": 0, "points": 0.0, "max_points": 0.0, "max_points_here": 0.0,
            "points_available": 0.0, "unavailable": [], "objectives": [], "by_category": {},
            "measurements": [], "failures": [], "speedup_scales": [], "flags": []}
    for t in tests:
        lab = labs.setdefault(t["lab"], {
            "lab": t["lab"], "number": int(t["lab"][3:]), "topic": None, "folder": None,
            "grader_built": True, "tests": 0, "with_result": 0, "passed": 0, "failed": 0,
            "skipped": 0, "error": 0, "not_run": 0, "points": 0.0, "max_points": 0.0,
            "max_points_here": 0.0, "points_available": 0.0, "unavailable": [], "objectives": [],
            "by_category": {}, "measurements": [], "failures": [], "speedup_scales": [],
            "flags": []})
        lab["tests"] += 1
        lab[t["status"].replace(" ", "_")] += 1
        lab["with_result"] += t["status"] != "not run"
        lab["points"] += t["points"]
        if t["status"] != "skipped":
            lab["max_points_here"] += t["weight"]
        if t["unavailable"]:
            lab["points_available"] -= t["weight"]  # max_points is added below
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
        lab["points_available"] += lab["max_points"]
        by_objective: dict[str, list[dict]] = {}
        for t in tests:
            if t["lab"] == lab_id:
                by_objective.setdefault(t["objective"], []).append(t)
        lab["unavailable"] = unavailable_objectives(objs, by_objective)
        for k in ("points", "max_points", "max_points_here", "points_available"):
            lab[k] = round(lab[k], 2)
    labs = OrderedDict((k, v) for k, v in labs.items() if v["tests"] or not v["grader_built"])
    for lab_id, flags in ((intake or {}).get("labs") or {}).items():
        if lab_id in labs:
            labs[lab_id]["flags"] = flags
    for lab in labs.values():
        lab["needs_review"] = bool(lab["flags"])

    keys = ("tests", "with_result", "passed", "failed", "skipped", "error", "not_run",
            "points", "max_points", "max_points_here", "points_available")
    totals = {k: round(sum(lab[k] for lab in labs.values()), 2) for k in keys}
    from_previous = sum(t["result_source"] == "previous" for t in tests)
    times = sorted(t["result_time"] for t in tests if t["result_time"])
    run_info = {
        "graded_tests": totals["tests"], "with_result": totals["with_result"],
        "not_run": totals["not_run"], "from_this_run": totals["with_result"] - from_previous,
        "from_previous": from_previous,
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
                   "rule": "each lab's points go to the objectives (graded suites) its "
                           "tests/labNN_topic/objectives.json declares, helper suites earn none; "
                           "within an objective every test counts the same"},
        "run": run_info,
        "totals": totals,
        "labs": list(labs.values()),
        "given": {k: given.get(k, 0) for k in ("passed", "failed", "skipped", "error")},
        "anomalies": anomalies,
        "intake": {"scanned": intake is not None,
                   "needs_review": sorted(k for k, v in labs.items() if v["needs_review"])},
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


def calibration_line(env: dict) -> str:
    cal = env.get("calibration") or {}
    if not cal.get("bars"):
        return "speed bars: none judged"
    src = cal.get("by_source") or {}
    where = ", ".join(cal.get("files") or []) or "no calibration file"
    text = (f"speed bars: {cal['bars']} judged; {src.get('calibration', 0)} calibrated for this "
            f"GPU, {src.get('reference', 0)} from the reference GPU's calibration, "
            f"{src.get('grader', 0)} the graders' own ({where})")
    for note in cal.get("notes") or []:
        text += f"\nnote: {note}"
    return text


def run_line(report: dict) -> str:
    r = report["run"]
    if not r["partial"] and r["from_previous"] == 0:
        return f"complete run: all {r['graded_tests']} graded tests have a result from it."
    parts = []
    if r["partial"]:
        parts.append(f"partial run: {r['with_result']} of {r['graded_tests']} graded tests have "
                     f"a result ({r['not_run']} never run)")
    else:
        parts.append(f"all {r['graded_tests']} graded tests have a result")
    if r["from_previous"]:
        parts.append(f"{r['from_this_run']} from this run, {r['from_previous']} kept from "
                     f"earlier runs as asked (--keep-previous; {r['oldest_result']} to "
                     f"{r['newest_result']})")
    if r["graders_not_built"]:
        parts.append("not built: " + ", ".join(r["graders_not_built"]))
    return "; ".join(parts) + "."


def unavailable_lines(report: dict) -> list[str]:
    """One line per lab with parts this GPU cannot run (labs[].unavailable): their points are
    optional/unavailable on this GPU; empty when there are none."""
    out = []
    for lab in report["labs"]:
        parts = lab.get("unavailable") or []
        if not parts:
            continue
        needs = sorted({u["needs"] for u in parts}, key=_cc_key)
        where = "this GPU" if any(u["kind"] == "gpu" for u in parts) else "this build"
        out.append(f"{lab['lab']}: {_pts(sum(u['points'] for u in parts))} points "
                   f"optional/unavailable on this GPU (need compute capability "
                   f"{' / '.join(needs)}; {where} lacks it): "
                   + ", ".join(f"{u['objective']} {_pts(u['points'])}" for u in parts)
                   + f"; {_pts(lab['points_available'])} of {_pts(lab['max_points'])} "
                     f"available here")
    return out


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
           scale_line(env), calibration_line(env), run_line(report), "",
           line(head), line(["-" * w for w in widths])]
    out += [line(r) for r in rows[:-1]]
    out += [line(["-" * w for w in widths]), line(rows[-1])]
    t = report["totals"]
    if t["skipped"]:
        out.append(f"{t['skipped']} graded test(s) skipped; points possible here: "
                   f"{_pts(t['max_points_here'])} of {_pts(t['max_points'])}.")
    gone = unavailable_lines(report)
    if gone:
        out += ["", f"unavailable on this GPU (optional, not moved): points available on this "
                    f"GPU {_pts(t['points_available'])} of {_pts(t['max_points'])}"]
        out += [f"  {g}" for g in gone]
        for lab in report["labs"]:
            if lab.get("unavailable"):
                out.append(f"  {lab['lab']} why: {lab['unavailable'][0]['reason']}")
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
        out += ["", f"not graded (given code, helper suites): {g['passed']} passed, "
                    f"{g['failed'] + g['error']} failed, {g['skipped']} skipped"]
    flags = [(lab["lab"], f) for lab in report["labs"] for f in lab.get("flags", [])]
    if flags:
        out += ["", "needs review (intake scan of the lab files):"]
        out += [f"  needs review: {f['file']}:{f['line']}: {f['construct']}" for _, f in flags]
    if report.get("anomalies"):
        out += ["", f"ignored ({len(report['anomalies'])}): input that no test of this run may "
                    f"give"]
        out += [f"  {a}" for a in report["anomalies"][:50]]
    return "\n".join(out) + "\n"


def _md(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render_markdown(report: dict) -> str:
    env = report["environment"]
    head, rows = _rows(report)
    rows[-1] = [f"**{c}**" if c else "" for c in rows[-1]]
    out = [f"## cudalabs scoreboard ({env.get('implementation') or '?'} build)", "",
           _md(gpu_line(env)), "", _md(scale_line(env)), "", _md(calibration_line(env)), "",
           _md(run_line(report)), "",
           "| " + " | ".join(head) + " |",
           "|" + "|".join(["---", "---", "--:", "--:", "--:", "--:", "--:", "---"]) + "|"]
    out += ["| " + " | ".join(_md(c) for c in r) + " |" for r in rows]
    gone = [(lab, u) for lab in report["labs"] for u in lab.get("unavailable") or []]
    if gone:
        t = report["totals"]
        out += ["", "### Unavailable on this GPU", "",
                f"These parts need a newer GPU (or a build with its architecture) than this "
                f"run had: their points are optional/unavailable on this GPU, not moved. "
                f"Points available on this GPU: {_pts(t['points_available'])} of "
                f"{_pts(t['max_points'])}.", "",
                "| lab | objective | points | needs compute capability | why |",
                "|---|---|--:|--:|---|"]
        for lab, u in gone:
            out.append(f"| {lab['lab']} | `{_md(u['objective'])}` | {_pts(u['points'])} "
                       f"(optional/unavailable on this GPU) | {u['needs']} | "
                       f"{_md(u['reason'])} |")
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
    flags = [f for lab in report["labs"] for f in lab.get("flags", [])]
    if flags:
        out += ["", f"### Needs review ({len(flags)})", ""]
        out += [f"- needs review: `{_md(f['file'])}:{f['line']}`: {_md(f['construct'])}"
                for f in flags]
    if report.get("anomalies"):
        out += ["", f"<details><summary>Ignored input ({len(report['anomalies'])})</summary>", ""]
        out += [f"- {_md(a)}" for a in report["anomalies"][:200]]
        out += ["", "</details>"]
    out += ["", f"_Points: each lab is worth {report['points']['lab_points']}, split over the "
                f"objectives it declares (docs/scores-schema.md); generated "
                f"{report['generated']}; schema {SCHEMA_NAME} v{SCHEMA_VERSION}._"]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------
def check_expected(report: dict, expected: list[str]) -> list[str]:
    """The --expect-measurement TEST:NAME entries that scores.json does not hold."""
    have = {(m["test"], m["name"]) for m in report["measurements"] if m.get("value") is not None}
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
        prog="scoreboard.py",
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
                    help="the intake scan's flags (tools/release/scan_submission.py --json)")
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
        if manifest["problems"]:
            raise ScoreError("the labs' declarations do not fit their graders:\n  " +
                             "\n  ".join(manifest["problems"]))
        args.write_declared.write_text(json.dumps(declared_from_manifest(manifest), indent=1) + "\n")
        print(f"scoreboard: declared tests and points written to {args.write_declared}")
        return 0
    notes: list[str] = list(manifest["problems"])
    declared_path = args.declared
    if declared_path is None and not args.no_declared:
        candidate = Path(manifest["source_dir"]) / "tests" / "grading.json"
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
                    "run_start": _iso(run["start"]) if run else None,
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
