# SPDX-License-Identifier: BSD-3-Clause
"""Scoring one run: the points of every graded test from the grading manifest
(tools/grading_manifest.py) and the declared tests and points (tests/grading.json), each
test's verdict and measurements from CTest's record of the run and the measurement channel,
the parts this GPU cannot run, and the environment the results came from. score() returns
the report, scores.json (docs/scores-schema.md).

Library only (no command line); Python 3 standard library.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from collections import Counter, OrderedDict
from dataclasses import replace
from pathlib import Path

from . import grading_manifest  # the manifest from CTest and the labs' declarations
from .ctest_record import ScoreError
from .measurement_channel import (VARIANT_TEST, attribute, calibration_summary, channel_bars,
                                 channel_measurements)
from .model import (CategoryCount, DeviceRecord, Failure, Flag, LabPoints, LabScore, Lock,
                    Manifest, ManifestObjective, ManifestTest, Measurement, ModelError,
                    Objective, ObjectiveScore, SkipReason, TechniqueDeclared,
                    TechniquePoints, TechniqueScore, TestResult, Unavailable, flags_of)

SCHEMA_NAME = "cudalabs-scores"
SCHEMA_VERSION = 4
MANIFEST = grading_manifest.RECORD
CATEGORIES = ("profiler", "sanitizer", "perf", "gpu", "cpu")


# ---------------------------------------------------------------------------
# The manifest (tools/grading_manifest.py)
# ---------------------------------------------------------------------------
def load_manifest(build_dir: Path) -> Manifest:
    """The build tree's grading manifest (grading_manifest.build_manifest(), tools/model.py)."""
    try:
        return grading_manifest.load_manifest(Path(build_dir))
    except grading_manifest.ManifestError as e:
        raise ScoreError(str(e)) from None


def test_points(manifest: Manifest, test: ManifestTest) -> float:
    """What a graded test is worth: its objective's points over the objective's tests."""
    obj = manifest.objective_of(test)
    if not obj or not obj.tests:
        return 0.0
    return obj.points / obj.tests


# ---------------------------------------------------------------------------
# Declared tests and points (tests/grading.json, the lock: tools/model.py): what a lab is
# graded on
# ---------------------------------------------------------------------------
def declared_from_manifest(manifest: Manifest) -> Lock:
    """tests/grading.json, the lock: each lab's techniques (points, why) and their objectives
    (points, whether they need a GPU, the graded tests of the build)."""
    labs: dict[str, LabPoints] = {}
    for lab_id in sorted({t.lab for t in manifest.tests.values() if t.graded}):
        objs = manifest.objectives.get(lab_id, {})
        techs = manifest.techniques.get(lab_id, {})
        names = list(techs) + sorted({o.technique or "" for o in objs.values()} - set(techs))
        members: dict[str, dict[str, list[ManifestTest]]] = {n: {} for n in names}
        for name, t in sorted(manifest.tests.items()):
            if t.graded and t.lab == lab_id:
                o = objs.get(t.objective or "")
                technique = (o.technique or "") if o else ""
                members[technique].setdefault(t.objective or "", []).append(t)
        labs[lab_id] = LabPoints({tname: TechniquePoints(
            techs[tname].points if tname in techs else 0,
            techs[tname].why if tname in techs else "",
            {oname: Objective(objs[oname].points if oname in objs else 0,
                              any(t.gpu for t in tests), tuple(t.name for t in tests))
             for oname, tests in sorted(members[tname].items())})
            for tname in names})
    return Lock(labs, manifest.lab_points)


def read_lock(declared: dict) -> Lock:
    """The lock of a tests/grading.json document, which must be of this version."""
    try:
        return Lock.from_json(declared)
    except ModelError as e:
        raise ScoreError(str(e)) from None


def apply_declared(manifest: Manifest, declared: dict | Lock) -> list[str]:
    """Grades exactly the declared tests with the declared points: a test of the build that
    is not declared earns nothing, a declared test the build lacks is scored as not run.
    Returns what differed, one line each."""
    lock = declared if isinstance(declared, Lock) else read_lock(declared)
    notes = []
    wanted = {name: (t.lab, t.objective) for name, t in lock.tests().items()}
    for name, t in manifest.tests.items():
        if t.graded and name not in wanted:
            notes.append(f"{name} is in the build but not declared: not graded")
            t.graded = False
    unbuilt: Counter[str] = Counter()  # declared tests of labs whose grader was not built
    for name, (lab_id, oname) in wanted.items():
        test = manifest.tests.get(name)
        if test is None:
            if f"{lab_id}_test" in manifest.missing:
                unbuilt[lab_id] += 1
            else:
                notes.append(f"{name} is declared but not in the build: scored as not run")
            # The objective is the suite's base name: its ending gives the labels (the rules
            # the manifest records).
            suite, _, case = name[len(lab_id) + 1:].rpartition(".")
            labels: list[str] = next((r.labels for r in manifest.rules.endings
                                      if oname.endswith(r.ending)), [])
            manifest.tests[name] = ManifestTest(name, lab_id, suite, case, [lab_id] + labels,
                                                graded=True, objective=oname)
        else:
            test.graded = True
            test.lab, test.objective = lab_id, oname
    notes += [f"{lab_id}: its grader was not built; its {n} declared tests are scored as not run"
              for lab_id, n in sorted(unbuilt.items())]
    objectives: dict[str, dict[str, ManifestObjective]] = {}
    for lab_id, tname, oname, o in lock.objectives():
        objectives.setdefault(lab_id, {})[oname] = ManifestObjective(o.points, len(o.tests),
                                                                     tname)
    for lab_id, objs in objectives.items():
        built = manifest.objectives.get(lab_id)
        if built is not None and objs != built:
            notes.append(f"{lab_id}: the build's objectives differ from the declared ones; the "
                         f"declared ones count")
    manifest.objectives = objectives
    manifest.techniques = {
        lab_id: {tname: TechniqueDeclared(g.points, g.why) for tname, g in lab.techniques.items()}
        for lab_id, lab in lock.labs.items()}
    manifest.lab_points = lock.lab_points
    return notes


def iso(t: float | None) -> str | None:
    """A time (seconds since the epoch) as scores.json gives it: UTC to the second, None for
    none."""
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


def unavailable_on_gpu(status: str, message: str) -> SkipReason | None:
    """(kind, needs, reason) when a skipped test's reason says this GPU's compute
    capability is too old for it ("gpu") or the build holds no code of the architecture it
    needs ("build", which follows the GPU with CMAKE_CUDA_ARCHITECTURES=native); else None.
    needs: the compute capability, "9.0"."""
    if status != "skipped" or not message:
        return None
    m = _CC_TOO_OLD.search(message)
    if m:  # the GPU's, then the test's compute capability
        return SkipReason("gpu", f"{m.group(3)}.{m.group(4)}", message)
    m = _CC_FEATURE.search(message)
    if m:  # the feature's, then the GPU's
        return SkipReason("gpu", f"{m.group(1)}.{m.group(2)}", message)
    m = _ARCH_NOT_BUILT.search(message)
    if m:
        sm = int(m.group(1) or m.group(2))  # sm_90 -> 9.0, sm_100 -> 10.0
        return SkipReason("build", f"{sm // 10}.{sm % 10}", message)
    return None


def cc_key(cc: str) -> tuple[int, ...]:
    """A compute capability ("9.0", "10.0") as a key that sorts them in order."""
    return tuple(int(x) for x in cc.split(".") if x.isdigit())


def unavailable_objectives(objectives: dict[str, ManifestObjective],
                           mine: dict[str, list[TestResult]]) -> list[Unavailable]:
    """The objectives of one lab all of whose tests were skipped as unavailable on this GPU:
    {objective, technique, points, tests, needs (the highest compute capability named), kind
    ("gpu" when any test named the GPU, else "build"), reason (one test's message)}."""
    out = []
    for oname, o in sorted(objectives.items()):
        tests = mine.get(oname) or []
        marks = [t.unavailable for t in tests if t.unavailable]
        if not tests or len(marks) != len(tests):  # some test was not skipped as unavailable
            continue
        needs = max((m.needs for m in marks), key=cc_key)
        kind = "gpu" if any(m.kind == "gpu" for m in marks) else "build"
        out.append(Unavailable(oname, o.technique, o.points, len(tests), needs, kind,
                               next(m.reason for m in marks if m.kind == kind)))
    return out


def technique_points(techniques: dict[str, TechniqueDeclared],
                     objectives: dict[str, ManifestObjective],
                     tests: list[TestResult]) -> dict[str, TechniqueScore]:
    """A lab's points in the lock's shape (tests/grading.json): {technique: TechniqueScore
    (points, why, earned, objectives: {objective: ObjectiveScore (points, tests (names),
    passed, earned)})}, from its declared @p techniques and @p objectives and its scored
    @p tests."""
    out = {name: TechniqueScore(g.points, g.why, 0.0) for name, g in techniques.items()}
    for oname, o in sorted(objectives.items()):
        group = out.setdefault(o.technique or "undeclared", TechniqueScore(0, "", 0.0))
        mine = [t for t in tests if t.objective == oname]
        earned = round(sum(t.points for t in mine), 2)
        group.objectives[oname] = ObjectiveScore(
            o.points, sorted(t.name for t in mine),
            sum(t.status == "passed" for t in mine), earned)
        group.earned = round(group.earned + earned, 2)
    return out


# ---------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------
def category(labels: list[str]) -> str:
    for c in CATEGORIES:
        if c in labels:
            return c
    return "other"


def _device_fields(rec: DeviceRecord) -> dict:
    keys = ("name", "compute_capability", "sm_count", "sm_clock_mhz", "memory_clock_mhz",
            "smem_per_block_optin_kb", "driver", "runtime", "description")
    return {"available": True, **{k: getattr(rec, k) for k in keys}}


def environment(used: list[dict], cache: dict[str, str]) -> dict:
    """The GPU, CUDALAB_SPEEDUP_SCALE and toolkit of the results that were scored."""
    gpus: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    scales: Counter[str] = Counter()
    device_of = {}
    for chan in used:
        dev: DeviceRecord | None = chan.get("device")
        if dev is not None and dev.available:
            desc = dev.description or dev.name or "?"
            gpus[desc] += 1
            device_of[desc] = dev
        elif dev is not None:
            reasons[dev.reason or "?"] += 1
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


def _previous(old: dict) -> TestResult:
    """A test's entry of the previous scores.json (--keep-previous)."""
    try:
        return TestResult.from_json(old, f"the previous scores' {old.get('name')}")
    except ModelError as e:
        raise ScoreError(str(e)) from None


def _intake_flags(lab_id: str, raw: object) -> list[Flag]:
    """The intake scan's flags of a lab (--intake)."""
    try:
        return flags_of(raw, f"the intake scan's flags of {lab_id}")
    except ModelError as e:
        raise ScoreError(str(e)) from None


def score(manifest: Manifest, cases: list[dict], run: dict | None, cache: dict[str, str],
          source: dict, previous: dict | None = None, intake: dict | None = None,
          notes: list[str] | None = None) -> dict:
    """The report of one run. @p previous: an earlier scores.json whose results stand in for
    tests this run did not run (only when asked for); @p intake: the intake scan's flags."""
    known = set(manifest.tests)
    results, anomalies = attribute(cases, known)
    anomalies = list(notes or []) + anomalies
    prev_tests = {t["name"]: t for t in (previous or {}).get("tests", [])}
    tests: list[TestResult] = []
    variants: dict[str, list[dict]] = {"wrong": [], "right": []}
    all_measurements: list[Measurement] = []
    used: list[dict] = []
    given: Counter[str] = Counter()
    for c in cases:
        v = VARIANT_TEST.match(c["name"])
        if v:
            variants[v.group(1)].append({
                "name": c["name"], "lab": v.group(2), "variant": v.group(3),
                "verdict": _variant_verdict(v.group(1), c["status"]),
                "message": _variant_message(c["output"], c["message"])})

    run_time = iso(run["start"]) if run else None
    for name, spec in manifest.tests.items():
        r = results.get(name)
        status = r["status"] if r else "not run"
        if r and r["channel"]:
            used.append(r["channel"])
        meas = channel_measurements(name, r["channel"] if r else None, status)
        if not spec.graded:
            for m in meas:
                all_measurements.append(replace(m, lab=spec.lab, graded=False))
            if r:
                given[status] += 1
            continue
        weight = round(test_points(manifest, spec), 4)
        objective = manifest.objective_of(spec)
        entry = TestResult(
            name, spec.lab, spec.suite, spec.case, spec.labels, category(spec.labels),
            spec.objective, objective.technique if objective else None, weight, status,
            weight if status == "passed" else 0,
            round(r["time_s"], 3) if r else None, r["message"] if r else "",
            r["source"] if r else None, run_time if r else None,
            r["channel"]["test"].get("speedup_scale") if r and r["channel"] else None,
            meas, channel_bars(r["channel"] if r else None),
            [m.text for m in meas if m.text])
        old = prev_tests.get(name)
        if r is None and old and old.get("status") not in (None, "not run"):
            # Kept from an earlier run, as asked (--keep-previous): same weight as now.
            kept = _previous(old)
            for k in ("status", "time_s", "message", "result_time", "speedup_scale",
                      "measurements", "bars", "speed"):
                setattr(entry, k, getattr(kept, k))
            entry.points = weight if entry.status == "passed" else 0
            entry.result_source = "previous"
            meas = entry.measurements or []
        entry.unavailable = unavailable_on_gpu(entry.status, entry.message or "")
        for m in meas:
            all_measurements.append(replace(m, lab=spec.lab, graded=True))
        tests.append(entry)

    labs: OrderedDict[str, LabScore] = OrderedDict()
    for lab_id, info in manifest.labs.items():
        labs[lab_id] = LabScore(lab_id, info.number, info.topic, info.folder,
                                grader_built=info.grader not in manifest.missing)
    for t in tests:
        lab = labs.setdefault(t.lab, LabScore(t.lab, int(t.lab[3:])))
        lab.tests += 1
        counter = t.status.replace(" ", "_")
        setattr(lab, counter, getattr(lab, counter) + 1)
        lab.with_result += t.status != "not run"
        lab.points += t.points
        if t.status != "skipped":
            lab.max_points_here += t.weight
        if t.unavailable:
            lab.points_available -= t.weight  # max_points is added below
        cat = lab.by_category.setdefault(t.category, CategoryCount())
        cat.tests += 1
        cat.passed += t.status == "passed"
        lab.measurements += t.measurements
        if t.status in ("failed", "error"):
            lab.failures.append(Failure(t.name, t.message))
        if t.speedup_scale is not None and t.speedup_scale not in lab.speedup_scales:
            lab.speedup_scales.append(t.speedup_scale)
    for lab_id, lab in labs.items():
        objs = manifest.objectives.get(lab_id, {})
        mine = [t for t in tests if t.lab == lab_id]
        lab.techniques = technique_points(manifest.techniques.get(lab_id, {}), objs, mine)
        lab.max_points = float(sum(o.points for o in objs.values())) if objs else \
            (float(manifest.lab_points) if not lab.grader_built else 0.0)
        lab.points_available += lab.max_points
        by_objective: dict[str, list[TestResult]] = {}
        for t in mine:
            by_objective.setdefault(str(t.objective), []).append(t)
        lab.unavailable = unavailable_objectives(objs, by_objective)
        lab.points, lab.max_points = round(lab.points, 2), round(lab.max_points, 2)
        lab.max_points_here = round(lab.max_points_here, 2)
        lab.points_available = round(lab.points_available, 2)
    labs = OrderedDict((k, v) for k, v in labs.items() if v.tests or not v.grader_built)
    for lab_id, flags in ((intake or {}).get("labs") or {}).items():
        if lab_id in labs:
            labs[lab_id].flags = _intake_flags(lab_id, flags)
    for lab in labs.values():
        lab.needs_review = bool(lab.flags)
    lab_docs = [lab.to_json() for lab in labs.values()]

    keys = ("tests", "with_result", "passed", "failed", "skipped", "error", "not_run",
            "points", "max_points", "max_points_here", "points_available")
    totals = {k: round(sum(lab[k] for lab in lab_docs), 2) for k in keys}
    from_previous = sum(t.result_source == "previous" for t in tests)
    times = sorted(t.result_time for t in tests if t.result_time)
    run_info = {
        "graded_tests": totals["tests"], "with_result": totals["with_result"],
        "not_run": totals["not_run"], "from_this_run": totals["with_result"] - from_previous,
        "from_previous": from_previous,
        "partial": totals["with_result"] < totals["tests"],
        "oldest_result": times[0] if times else None, "newest_result": times[-1] if times else None,
        "graders_not_built": manifest.missing}
    return {
        "schema": SCHEMA_NAME,
        "version": SCHEMA_VERSION,
        "generated": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "source": source,
        "environment": environment(used, cache),
        "points": {"lab_points": manifest.lab_points,
                   "rule": "each lab's points go to the techniques its "
                           "tests/labNN_topic/objectives.json declares and, within each, to its "
                           "objectives (graded suites), as tests/grading.json locks them; helper "
                           "suites earn none; within an objective every test counts the same"},
        "run": run_info,
        "totals": totals,
        "labs": lab_docs,
        "given": {k: given.get(k, 0) for k in ("passed", "failed", "skipped", "error")},
        "anomalies": anomalies,
        "intake": {"scanned": intake is not None,
                   "needs_review": sorted(k for k, v in labs.items() if v.needs_review)},
        "wrong": variants["wrong"],
        "right": variants["right"],
        "tests": [t.to_json() for t in tests],
        "measurements": [m.to_json() for m in all_measurements],
    }

