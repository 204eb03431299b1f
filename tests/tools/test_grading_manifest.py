#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tools/grading_manifest.py: the manifest from CTest's list, CMake's record and the labs'
declarations (tests/labNN_topic/objectives.json). Each check builds a source tree with one
declaration in a temporary folder and a CTest list as `ctest --show-only=json-v1` prints it;
the CMake side is checked by cudalab.GivenGradingCpu.* (tests/cmake/check_grading.cmake)."""

from __future__ import annotations

import json
import os
import tempfile
import unittest
from pathlib import Path

ROOT = Path(os.environ.get("CUDALAB_SOURCE_DIR", Path(__file__).resolve().parents[2]))
from tools import grading_manifest as gm  # noqa: E402
from tools import ctest_record
from tools import scoreboard
from tools import scoring

RULES = {"given_prefix": "Given", "endings": [
    {"ending": "Cpu", "labels": ["cpu"]}, {"ending": "Gpu", "labels": ["gpu"]},
    {"ending": "Perf", "labels": ["gpu", "perf"]},
    {"ending": "Sanitizer", "labels": ["gpu", "sanitizer"]}]}


def ctest_test(name: str, labels: list[str], gtest: bool = True) -> dict:
    cmd = ["/b/lab07_test", "--gtest_filter=" + name.split(".", 1)[1]] if gtest else ["demo"]
    props = {"LABELS": sorted(labels), "TIMEOUT": 60.0}
    if "gpu" in labels:
        props["RESOURCE_GROUPS"] = [{"requirements": [{".type": "gpus", "slots": 1}]}]
    return {"name": name, "command": cmd, "properties": props}


# lab07's grader: a parameterized suite, a helper, a sanitizer, a given suite, a batch run,
# and the demo run registered directly.
TESTS = [
    ctest_test("lab07.Shapes/TileGpu.Exact/1x1", ["lab07", "gpu"]),
    ctest_test("lab07.Shapes/TileGpu.Exact/33x65", ["lab07", "gpu"]),
    ctest_test("lab07.TileGpu/0.Typed", ["lab07", "gpu"]),
    ctest_test("lab07.SmallShapesGpu.Exact", ["lab07", "gpu"]),
    ctest_test("lab07.TileSanitizer.Racecheck", ["lab07", "gpu", "sanitizer"]),
    ctest_test("lab07.TilePerf.Faster", ["lab07", "gpu", "perf"]),
    ctest_test("lab07.GivenEdgesGpu.Works", ["lab07", "gpu", "given"]),
    ctest_test("lab07.Shapes/TileGpu.@batch", ["lab07", "gpu", "batch"], gtest=False),
    ctest_test("lab07.DemoGpu.RunsAndVerifies", ["lab07", "gpu"], gtest=False),
    ctest_test("lab07.GivenDemoCpu.RejectsBadArguments", ["lab07", "cpu", "given"],
               gtest=False),
    ctest_test("common.GivenMathCpu.Adds", ["common", "cpu", "given"]),
    ctest_test("wrong.lab07.no_swizzle", ["lab07", "wrong"], gtest=False),
]
GOOD: dict[str, dict] = {"objectives": {"TileGpu": 40, "TileSanitizer": 20, "TilePerf": 25,
                                        "DemoGpu": 15},
                         "helpers": {"SmallShapesGpu": "what TileSanitizer re-runs"}}


class GradingManifest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.src = Path(self.tmp.name)
        (self.src / "tests" / "lab07_swizzle").mkdir(parents=True)
        self.record = {
            "source_dir": str(self.src), "build_dir": "/b", "implementation": "solution",
            "rules": RULES,
            "labs": [{"lab": "lab07", "number": 7, "topic": "swizzle",
                      "folder": "labs/lab07_swizzle", "grading_folder": "tests/lab07_swizzle",
                      "grader": "lab07_test"}],
            "graders": [{"target": "lab07_test", "lab": "lab07", "prefix": "lab07.",
                         "graded": True},
                        {"target": "common_test", "lab": "common", "prefix": "common.",
                         "graded": False}]}

    def tearDown(self):
        self.tmp.cleanup()

    def manifest(self, declaration, tests=None) -> dict:
        path = self.src / "tests" / "lab07_swizzle" / "objectives.json"
        path.write_text(declaration if isinstance(declaration, str) else json.dumps(declaration))
        return gm.build_manifest(self.record, TESTS if tests is None else tests)

    def test_declared_points_and_tests(self):
        m = self.manifest(GOOD)
        self.assertEqual(m["problems"], [])
        self.assertEqual(m["objectives"]["lab07"], {
            "DemoGpu": {"points": 15, "tests": 1}, "TileGpu": {"points": 40, "tests": 3},
            "TilePerf": {"points": 25, "tests": 1}, "TileSanitizer": {"points": 20, "tests": 1}})
        t = m["tests"]["lab07.Shapes/TileGpu.Exact/33x65"]
        self.assertEqual((t["suite"], t["case"], t["objective"], t["graded"], t["gpu"],
                          t["timeout"], t["registered"]),
                         ("Shapes/TileGpu", "Exact/33x65", "TileGpu", True, True, 60, "gtest"))
        self.assertEqual(m["tests"]["lab07.DemoGpu.RunsAndVerifies"]["registered"], "cmake")
        # Batch runs, the known-wrong variants and NOT_BUILT placeholders are no tests here.
        self.assertNotIn("lab07.Shapes/TileGpu.@batch", m["tests"])
        self.assertNotIn("wrong.lab07.no_swizzle", m["tests"])
        self.assertFalse(m["tests"]["common.GivenMathCpu.Adds"]["graded"])
        self.assertFalse(m["tests"]["lab07.GivenEdgesGpu.Works"]["graded"])

    def test_a_helper_suite_earns_nothing(self):
        m = self.manifest(GOOD)
        t = m["tests"]["lab07.SmallShapesGpu.Exact"]
        self.assertEqual((t["graded"], t["helper"], t["objective"]), (False, True, None))
        self.assertNotIn("SmallShapesGpu", m["objectives"]["lab07"])
        self.assertEqual(scoring.test_points(m, t), 0.0)
        self.assertEqual(sum(o["points"] for o in m["objectives"]["lab07"].values()), 100)
        # Written into tests/grading.json: the graded tests only.
        declared = scoring.declared_from_manifest(m)
        names = [n for o in declared["labs"]["lab07"]["objectives"].values() for n in o["tests"]]
        self.assertNotIn("lab07.SmallShapesGpu.Exact", names)
        self.assertEqual(len(names), 6)

    def test_an_undeclared_suite_is_a_problem(self):
        decl = {"objectives": GOOD["objectives"]}  # SmallShapesGpu neither objective nor helper
        m = self.manifest(decl)
        self.assertEqual(len(m["problems"]), 1, m["problems"])
        p = m["problems"][0]
        for text in ("lab07", "SmallShapesGpu", "tests/lab07_swizzle/objectives.json",
                     "does not declare it"):
            self.assertIn(text, p)
        self.assertEqual(m["objectives"]["lab07"]["SmallShapesGpu"], {"points": 0, "tests": 1})

    def test_a_declared_suite_the_grader_lacks_is_a_problem(self):
        decl = {"objectives": dict(GOOD["objectives"], TileGpu=30, GoneGpu=10),
                "helpers": dict(GOOD["helpers"], SmallGoneGpu="nothing")}
        problems = self.manifest(decl)["problems"]
        self.assertEqual(len(problems), 2, problems)
        self.assertIn("declares the objective GoneGpu, which the grader does not list",
                      problems[0])
        self.assertIn("declares the helper suite SmallGoneGpu", problems[1])

    def test_points_must_add_up_to_100_and_be_integers(self):
        problems = self.manifest({"objectives": dict(GOOD["objectives"], TileGpu=41),
                                  "helpers": GOOD["helpers"]})["problems"]
        self.assertEqual(problems, ["lab07: tests/lab07_swizzle/objectives.json: the objectives' "
                                    "points add up to 101, not 100"])
        halves = dict(GOOD["objectives"], TileGpu=39.5, DemoGpu=15.5)
        problems = self.manifest({"objectives": halves, "helpers": GOOD["helpers"]})["problems"]
        self.assertTrue(any("TileGpu has points 39.5" in p for p in problems), problems)
        problems = self.manifest({"objectives": GOOD["objectives"],
                                  "helpers": {"TileGpu": "both"}})["problems"]
        self.assertTrue(any("both an objective and a helper" in p for p in problems), problems)

    def test_a_missing_or_broken_declaration_is_a_problem(self):
        m = self.manifest("{\"objectives\": ")
        self.assertTrue(any("is not valid JSON" in p for p in m["problems"]), m["problems"])
        (self.src / "tests" / "lab07_swizzle" / "objectives.json").unlink()
        m = gm.build_manifest(self.record, TESTS)
        self.assertTrue(any("no declaration" in p for p in m["problems"]), m["problems"])

    def test_a_lab_whose_grader_is_not_built_keeps_its_points(self):
        tests = [ctest_test("lab07.NOT_BUILT.lab07_test", ["lab07"], gtest=False),
                 ctest_test("lab07.DemoGpu.RunsAndVerifies", ["lab07", "gpu"], gtest=False)]
        m = self.manifest(GOOD, tests)
        self.assertEqual(m["missing"], ["lab07_test"])
        self.assertEqual(m["problems"], [])  # nothing to compare the declaration with
        self.assertEqual(m["objectives"]["lab07"]["TileGpu"], {"points": 40, "tests": 0})

    def test_the_scoreboard_refuses_to_write_declared_tests_from_a_bad_declaration(self):
        build = self.src / "build"
        build.mkdir()
        (build / gm.RECORD).write_text(json.dumps(self.record))
        self.manifest({"objectives": GOOD["objectives"]})
        real = gm.ctest_tests
        gm.ctest_tests = lambda build_dir, ctest="ctest": TESTS
        try:
            with self.assertRaises(ctest_record.ScoreError) as e:
                scoreboard.main(["--build-dir", str(build), "--write-declared",
                                 str(self.src / "grading.json")])
        finally:
            gm.ctest_tests = real
        self.assertIn("SmallShapesGpu", str(e.exception))
        self.assertFalse((self.src / "grading.json").exists())


if __name__ == "__main__":
    unittest.main()
