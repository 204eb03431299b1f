# SPDX-License-Identifier: BSD-3-Clause
"""Points per lab from the scoreboard's scores.json files, shared by every way a grade is
reported (tools/release/autograde.py for Classroom 50 and plain GitHub, the instructor's
regrade).

Points are the lock's (tests/grading.json of the course release: each lab's 100 points over
its techniques, each technique's over its objectives, each objective's over its tests; the
scoreboard's `weight` of each test is the same split), in whole points: within an objective,
the tests' weights are rounded so that they add up to its points (largest remainders first),
so that an objective, a technique and a lab passed in full show exactly their points. What
counts toward a lab's maximum: every graded test when the course grades on a GPU (a GPU test
that did not run earns 0), else only the objectives the lock marks as needing no GPU. A test
that no run judged (`not run`) is an error with 0 points. A lab whose grader did not compile
keeps its maximum: the scoreboard's 100 when grading on a GPU, else its CPU share of the lock.

Library only (no command line); Python 3 standard library.
"""

from __future__ import annotations

from ..model import LabScore, Lock, LockedTest, TestResult

STATUS = {"passed": "pass", "failed": "fail", "error": "error", "skipped": "fail",
          "not run": "error"}
JUDGED = {"passed", "failed", "error"}  # a verdict; "skipped" and "not run" are not
MAX_MESSAGE = 500


def merge(runs: list[list[dict]]) -> dict[str, TestResult]:
    """Per test name, the first run's verdict (else the first skip, else "not run"), from
    scores.json tests[] entries."""
    merged: dict[str, TestResult] = {}
    for tests in runs:
        for t in map(TestResult.from_json, tests):
            have = merged.get(t.name)
            if have is None or (have.status not in JUDGED and t.status in JUDGED) or \
                    (have.status == "not run" and t.status == "skipped"):
                merged[t.name] = t
    return merged


def lab_results(tests: dict[str, TestResult], lock: Lock | None, gpu_grading: bool,
                lab_info: dict[str, LabScore] | None = None) -> dict:
    """Classroom results per lab: {lab: {"version", "status", "max_score", "tests",
    "points"}}; "points": the lab's whole points in the lock's shape, {technique: {"points",
    "earned", "objectives": {objective: {"points", "earned", "tests" (how many)}}}}, of what
    counts here (every objective when grading on a GPU, else those that need none).

    @p tests: the scored tests by name (merge()); @p lock: the course's tests/grading.json,
    whose tests count even where no run scored them; @p lab_info: the scoreboard's labs[]
    entries by lab (grader_built, max_points)."""
    expected = lock.tests() if lock else {}
    names = sorted(set(tests) | set(expected))
    labs: dict[str, dict] = {}
    groups: dict[tuple[str, str, str], list[tuple[dict, float]]] = {}
    for name in names:
        t = tests.get(name)
        info: LockedTest | TestResult | None = expected.get(name) or t
        assert info is not None  # a name of one of them
        needs_gpu = info.gpu if isinstance(info, LockedTest) else info.needs_gpu
        if not (gpu_grading or not needs_gpu):
            continue
        lab = labs.setdefault(info.lab, {"version": 1, "status": "pass", "tests": []})
        if t is None or t.status == "not run":
            status, message = "error", (f"not run: {info.lab} did not compile or its tests "
                                        "could not start (see the build step's log)")
        else:
            status = STATUS.get(t.status, "error")
            message = t.message or ""
            if t.status == "skipped":
                message = "skipped: " + (message or "no GPU here")
        entry = {
            # Messages are capped: every lab's results travel in one environment variable.
            "name": name, "status": status, "score": 0, "message": message[:MAX_MESSAGE],
            "test_code": f"ctest --preset student -R '^{name}$'", "filename": "", "line_no": 0,
            "duration": int(round(float((t.time_s if t else None) or 0) * 1000)),
        }
        lab["tests"].append(entry)
        key = (info.lab, str(info.technique or "undeclared"), str(info.objective or "undeclared"))
        groups.setdefault(key, []).append((entry, float(info.weight)))
    for (lab_id, tname, oname), members in sorted(groups.items()):
        whole = whole_points([w for _, w in members])
        for (entry, _), w in zip(members, whole):
            entry["weight"] = w
            entry["score"] = w if entry["status"] == "pass" else 0
        group = labs[lab_id].setdefault("points", {}).setdefault(
            tname, {"points": 0, "earned": 0, "objectives": {}})
        obj = {"points": sum(whole), "earned": sum(e["score"] for e, _ in members),
               "tests": len(members)}
        group["objectives"][oname] = obj
        group["points"] += obj["points"]
        group["earned"] += obj["earned"]
    # A lab whose grader did not compile in any run has no test list: it keeps its maximum.
    for lab_id, li in sorted((lab_info or {}).items()):
        if lab_id in labs or li.grader_built:
            continue
        most = int(round(float(li.max_points or 0))) if gpu_grading else 0
        labs[lab_id] = {"version": 1, "status": "error", "max_score": most, "points": {},
                        "tests": [{
            "name": f"{lab_id} (grader)", "status": "error", "score": 0, "filename": "",
            "line_no": 0, "test_code": "cmake --build --preset student",
            "message": f"{lab_id} did not compile: none of its tests could run (see the build "
                       "step's log)"}]}
    for lab in labs.values():
        whole = [t.pop("weight", 0) for t in lab["tests"]]
        if "max_score" not in lab or not lab["max_score"]:
            lab["max_score"] = sum(whole)
        statuses = {t["status"] for t in lab["tests"]}
        lab["status"] = "fail" if "fail" in statuses else "error" if "error" in statuses \
            else "pass"
    return dict(sorted(labs.items()))


def whole_points(weights: list[float]) -> list[int]:
    """Whole points for @p weights that add up to round(sum): floors, then one more point
    for the largest remainders (the earlier test first on a tie)."""
    floors = [int(w) for w in weights]
    left = int(round(sum(weights))) - sum(floors)
    order = sorted(range(len(weights)), key=lambda i: (-(weights[i] - floors[i]), i))
    for i in order[:max(left, 0)]:
        floors[i] += 1
    return floors
