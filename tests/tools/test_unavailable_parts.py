#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tools/scoreboard.py on a GPU older than a lab's advanced part: lab 14 graded as declared in
tests/grading.json, from a synthetic run on an A100 (compute capability 8.0) where the
persistent wgmma part is skipped with the reasons the graders give there
(cudalab::gpu_unavailable_reason(), lab 14's persistent_unavailable_reason(), the SASS checks of
a build without sm_90 code). The part's objectives are listed as unavailable on this GPU, their
points shown as optional (points_available), and nothing else changes: the earned points are
computed as before, a skip for another reason (no compute-sanitizer) is not "unavailable". The
release body (tools/release/autograde.py) and the gradebook's `unavailable` column name them."""

from __future__ import annotations

import copy
import datetime as dt
import json
import os
import unittest
from pathlib import Path

ROOT = Path(os.environ.get("CUDALAB_SOURCE_DIR", Path(__file__).resolve().parents[2]))
from tools.release import autograde  # noqa: E402
from tools.classroom import gradebook
from tools import measurement_channel
from tools import score_render
from tools import scoring
from tools.model import LabRecord, LabResult, Lock, Manifest, SuiteRules

RULES = {"given_prefix": "Given", "endings": [
    {"ending": "Cpu", "labels": ["cpu"]}, {"ending": "Gpu", "labels": ["gpu"]},
    {"ending": "Perf", "labels": ["gpu", "perf"]},
    {"ending": "Sanitizer", "labels": ["gpu", "sanitizer"]},
    {"ending": "Profiler", "labels": ["gpu", "profiler"]}]}
A100 = "NVIDIA A100-SXM4-80GB"
# What the graders print as the skip reason on an A100 with CMAKE_CUDA_ARCHITECTURES=native (80).
CC_SKIP = f"{A100} has compute capability 8.0, this test needs 9.0"  # CUDALAB_REQUIRE_CC(9, 0)
FEATURE_SKIP = ("binary_mma_persistent: wgmma, setmaxnreg and tensor TMA are sm_90a features "
                "(compute capability 9.0: H100, H200); this GPU is 8.0")
SASS_SKIP = ("no sm_90 or later code in this grader (built for other architectures); the SASS "
             "of binary_mma_persistent_kernel (<false>) is not checked")
TOOL_SKIP = "compute-sanitizer not found (put it on PATH or set CUDALAB_COMPUTE_SANITIZER)"


def declared_lab14() -> dict:
    doc = json.loads((ROOT / "tests" / "grading.json").read_text(encoding="utf-8"))
    return {**doc, "labs": {"lab14": doc["labs"]["lab14"]}}


def manifest_of(declared: dict) -> Manifest:
    """A build's manifest that lists lab 14's grader; the declared tests fill it."""
    manifest = Manifest(labs={"lab14": LabRecord("lab14", 14, "binary_mma",
                                                 "labs/lab14_binary_mma", grader="lab14_test")},
                        lab_points=declared["lab_points"], rules=SuiteRules.from_json(RULES))
    scoring.apply_declared(manifest, declared)
    return manifest


def record(**fields) -> str:
    return measurement_channel.RECORD_MARKER + json.dumps(fields)


def case(name: str, status: str, message: str = "") -> dict:
    """One test as CTest's JUnit file gives it, with the channel's records in its output."""
    out = [record(type="test", test=name, gtest=name.split(".", 1)[1], speedup_scale=1),
           record(type="device", test=name, available=True, name=A100, compute_capability="8.0",
                  description=f"{A100} (sm_80, 108 SMs)")]
    out.append(record(type="result", test=name, status=status, message=message))
    return {"name": name, "status": status, "time_s": 0.1, "output": "\n".join(out),
            "message": "skipped" if status == "skipped" else ""}


def a100_run(manifest: Manifest) -> list[dict]:
    """Everything passes except the persistent part (unavailable below 9.0) and one sanitizer
    test skipped because the tool is missing."""
    cases = []
    for name, t in manifest.tests.items():
        obj = str(t.objective)
        if obj.endswith("SassCpu") and obj.startswith("Persistent"):
            cases.append(case(name, "skipped", SASS_SKIP))
        elif obj == "PersistentPerf":
            cases.append(case(name, "skipped", FEATURE_SKIP))
        elif obj.startswith("Persistent"):
            cases.append(case(name, "skipped", CC_SKIP))
        elif obj == "NaiveMmaSanitizer":
            cases.append(case(name, "skipped", TOOL_SKIP))
        else:
            cases.append(case(name, "passed"))
    return cases


class UnavailableParts(unittest.TestCase):
    def setUp(self):
        self.declared = declared_lab14()
        techniques = self.declared["labs"]["lab14"]["techniques"]
        self.objectives = {k: v for group in techniques.values()
                           for k, v in group["objectives"].items()}
        self.persistent = {k: v["points"]
                           for k, v in techniques["persistent"]["objectives"].items()}
        self.manifest = manifest_of(self.declared)
        self.report = scoring.score(copy.deepcopy(self.manifest), a100_run(self.manifest),
                                    None, {}, {"kind": "junit"})
        self.lab = self.report["labs"][0]

    def test_the_declared_persistent_part_is_what_needs_sm_90(self):
        # The fixture follows tests/grading.json: lab 14's advanced part has five objectives.
        self.assertEqual(sorted(self.persistent), [
            "PersistentMmaGpu", "PersistentMmaSanitizer", "PersistentPerf",
            "PersistentProfiler", "PersistentSassCpu"])

    def test_unavailable_objectives_with_their_points_and_compute_capability(self):
        gone = {u["objective"]: u for u in self.lab["unavailable"]}
        self.assertEqual({k: u["points"] for k, u in gone.items()}, self.persistent)
        self.assertTrue(all(u["needs"] == "9.0" for u in gone.values()), gone)
        self.assertEqual(gone["PersistentMmaGpu"]["kind"], "gpu")
        self.assertEqual(gone["PersistentMmaGpu"]["reason"], CC_SKIP)
        self.assertEqual(gone["PersistentPerf"]["kind"], "gpu")
        self.assertEqual(gone["PersistentSassCpu"]["kind"], "build")
        self.assertEqual(gone["PersistentMmaGpu"]["tests"],
                         len(self.objectives["PersistentMmaGpu"]["tests"]))
        # A skip for a missing tool is not a part this GPU lacks.
        self.assertNotIn("NaiveMmaSanitizer", gone)
        # Each names its technique: the advanced part is lab 14's persistent technique.
        self.assertEqual({u["technique"] for u in gone.values()}, {"persistent"})

    def test_points_available_leave_out_only_the_unavailable_parts(self):
        optional = sum(self.persistent.values())
        sanitizer = self.objectives["NaiveMmaSanitizer"]["points"]
        lab = self.lab
        self.assertEqual(lab["max_points"], 100)
        self.assertEqual(lab["points_available"], 100 - optional)
        self.assertEqual(lab["max_points_here"], 100 - optional - sanitizer)
        # Points are computed as before: skipped tests earn nothing, nothing is moved.
        self.assertEqual(lab["points"], 100 - optional - sanitizer)
        self.assertEqual(self.report["totals"]["points_available"], 100 - optional)
        tests = {t["name"]: t for t in self.report["tests"]}
        persistent = [t for t in tests.values() if t["objective"] == "PersistentMmaGpu"]
        self.assertTrue(persistent and all(t["unavailable"] == {
            "kind": "gpu", "needs": "9.0", "reason": CC_SKIP} for t in persistent))
        self.assertTrue(all(t["unavailable"] is None for t in tests.values()
                            if t["objective"] == "NaiveMmaSanitizer"))
        json.dumps(self.report)  # scores.json holds it as it is

    def test_text_and_markdown_show_the_points_as_optional(self):
        text = score_render.render_text(self.report)
        self.assertIn("unavailable on this GPU", text)
        self.assertIn("12 points optional/unavailable on this GPU (need compute capability 9.0",
                      text)
        self.assertIn("PersistentMmaGpu 3", text)
        self.assertIn("88 of 100 available here", text)
        self.assertIn(CC_SKIP, text)
        md = score_render.render_markdown(self.report)
        self.assertIn("### Unavailable on this GPU", md)
        self.assertIn("| lab14 | `PersistentMmaGpu` | 3 (optional/unavailable on this GPU) | 9.0 |",
                      md)
        self.assertIn("Points available on this GPU: 88 of 100.", md)

    def test_a_gpu_that_runs_everything_has_nothing_unavailable(self):
        cases = [case(n, "passed") for n in self.manifest.tests]
        report = scoring.score(copy.deepcopy(self.manifest), cases, None, {}, {"kind": "junit"})
        lab = report["labs"][0]
        self.assertEqual((lab["unavailable"], lab["points_available"], lab["points"]),
                         ([], 100, 100))
        self.assertNotIn("unavailable", score_render.render_text(report))
        self.assertNotIn("Unavailable on this GPU", score_render.render_markdown(report))

    def test_an_objective_only_partly_skipped_is_not_unavailable(self):
        cases = a100_run(self.manifest)
        first = next(c for c in cases if ".Shapes/PersistentMmaGpu." in c["name"])
        cases[cases.index(first)] = case(first["name"], "failed", "wrong")
        report = scoring.score(copy.deepcopy(self.manifest), cases, None, {}, {"kind": "junit"})
        gone = {u["objective"] for u in report["labs"][0]["unavailable"]}
        self.assertNotIn("PersistentMmaGpu", gone)
        self.assertIn("PersistentPerf", gone)
        # Its skipped tests still leave points_available (the failed one stays possible).
        weight = self.persistent["PersistentMmaGpu"] / len(
            self.objectives["PersistentMmaGpu"]["tests"])
        self.assertAlmostEqual(report["labs"][0]["points_available"], 88 + weight, places=2)

    def test_the_release_and_the_gradebook_name_the_unavailable_parts(self):
        entries = autograde.lab_entries(self.report, autograde.graded_labs(self.report, None), True,
                                        Lock.from_json(self.declared), {})
        doc = {"score": sum(e["score"] for e in entries),
               "max-score": sum(e["max-score"] for e in entries), "tests": entries}
        self.assertEqual(entries[0]["cudalabs"]["unavailable"][0],
                         {"technique": "persistent", "objective": "PersistentMmaGpu",
                          "points": 3, "needs": "9.0"})
        # The points in the lock's shape: the persistent part earns nothing here, the naive
        # technique all but its skipped sanitizer test.
        points = entries[0]["cudalabs"]["points"]
        self.assertEqual(points["persistent"]["points"], sum(self.persistent.values()))
        self.assertEqual(points["persistent"]["earned"], 0)
        self.assertEqual(points["naive"]["points"] - points["naive"]["earned"],
                         self.objectives["NaiveMmaSanitizer"]["points"])
        self.assertEqual(sum(g["earned"] for g in points.values()), entries[0]["score"])
        body = autograde.release_body(doc)
        self.assertIn("### Unavailable on this GPU (optional)", body)
        self.assertIn("- lab14: 12 points need compute capability 9.0 (PersistentMmaGpu 3, "
                      "PersistentMmaSanitizer 2, PersistentPerf 3, PersistentProfiler 2, "
                      "PersistentSassCpu 2)", body)
        grade = {"points": entries[0]["score"], "max": entries[0]["max-score"],
                 "late": dt.timedelta(0), "penalty": 0.0, "source": "published",
                 "entry": LabResult.from_json(entries[0]), "sub": {"commit": "abc", "push_time": "2026-01-01T00:00:00Z"}}
        row = gradebook.row({"student": {"student": "ana"}, "grades": {"lab14": grade}},
                            ["lab14"], {"login": "ana"})
        self.assertTrue(row["unavailable"].startswith(
            "lab14 PersistentMmaGpu (3 pts, needs 9.0); lab14 PersistentMmaSanitizer (2 pts"),
            row["unavailable"])
        # A GPU that runs everything: nothing in the release or the gradebook.
        full = scoring.score(copy.deepcopy(self.manifest),
                             [case(n, "passed") for n in self.manifest.tests], None, {},
                             {"kind": "junit"})
        entries = autograde.lab_entries(full, autograde.graded_labs(full, None), True, None, {})
        self.assertEqual(entries[0]["cudalabs"]["unavailable"], [])
        self.assertNotIn("Unavailable", autograde.release_body(
            {"score": 100, "max-score": 100, "tests": entries}))

    def test_the_skip_messages_are_the_ones_the_sources_write(self):
        # common/src/device.cu and the SASS checks: if their wording changes, so must the
        # scoreboard's patterns.
        device = (ROOT / "common" / "src" / "device.cu").read_text(encoding="utf-8")
        self.assertIn('" has compute capability "', device)
        self.assertIn('", this test needs "', device)
        sass = (ROOT / "tests" / "common" / "sass_rules.hpp").read_text(encoding="utf-8")
        self.assertIn('"no sm_" << min_sm << " or later code in this grader (built for other "',
                      sass)
        lab13 = (ROOT / "tests" / "lab13_sgemm" / "sgemm_grading.cuh").read_text(encoding="utf-8")
        self.assertIn('"no sm_80 or later code in this grader (built for other architectures); '
                      'cp.async "', lab13)
        mark = scoring.unavailable_on_gpu(
            "skipped", "no sm_80 or later code in this grader (built for other architectures); "
            "cp.async (LDGSTS) exists from sm_80, so the SASS of the pipelined kernels is not "
            "checked")
        self.assertEqual(mark.needs if mark else None, "8.0")
        for msg in (CC_SKIP, FEATURE_SKIP, SASS_SKIP,
                    "no sm_80 .. sm_90 code in this grader (built for other architectures); the "
                    "SASS is not checked",
                    "binary_mma_persistent: this build holds no sm_90a code (the advanced part "
                    "needs CMAKE_CUDA_ARCHITECTURES to include 90, e.g. 90 or native on an H100 "
                    "or H200)"):
            self.assertIsNotNone(scoring.unavailable_on_gpu("skipped", msg), msg)
        self.assertIsNone(scoring.unavailable_on_gpu("failed", CC_SKIP))
        self.assertIsNone(scoring.unavailable_on_gpu("skipped", "no CUDA GPU visible"))
        self.assertIsNone(scoring.unavailable_on_gpu("skipped", TOOL_SKIP))


if __name__ == "__main__":
    unittest.main()
