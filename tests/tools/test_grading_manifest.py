#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tools/grading_manifest.py: the manifest from CTest's list, CMake's record and the labs'
declarations (tests/labNN_topic/objectives.json). Each check builds a source tree with one
declaration in a temporary folder and a CTest list as `ctest --show-only=json-v1` prints it;
the CMake side is checked by cudalab.GivenGradingCpu.* (tests/cmake/check_grading.cmake)."""

from __future__ import annotations

import copy
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
from tools.model import (LabRecord, Lock, Manifest, ManifestObjective, ModelError,
                         TechniqueDeclared)

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
GOOD: dict[str, dict] = {
    "techniques": {
        "swizzled_tile": {"points": 85, "why": "The lesson's kernel and its speed.",
                          "objectives": {"TileGpu": 40, "TileSanitizer": 20, "TilePerf": 25}},
        "lab": {"points": 15, "why": "The demo.", "objectives": {"DemoGpu": 15}}},
    "helpers": {"SmallShapesGpu": "what TileSanitizer re-runs"}}
# lab07's header: its technique table (two float4 layouts).
HEADER = """inline constexpr Technique kTechniques[] = {
    {"plain", "float4, plain", vec4_transpose<PlainVec4>, vec4_kernel<PlainVec4>},
    {"interleaved", "float4, interleaved", vec4_transpose<InterleavedVec4>,
     vec4_kernel<InterleavedVec4>},
};
"""


def declaration(helpers: bool = True, **groups) -> dict:
    """GOOD with some techniques replaced (a technique given as None is left out)."""
    techniques = copy.deepcopy(GOOD["techniques"])
    for name, group in groups.items():
        if group is None:
            techniques.pop(name)
        else:
            techniques[name] = group
    out: dict = {"techniques": techniques}
    if helpers:
        out["helpers"] = dict(GOOD["helpers"])
    return out


def tile(points: object = 85, **objectives) -> dict:
    """GOOD's swizzled_tile technique with @p points and some objectives' points changed."""
    group = copy.deepcopy(GOOD["techniques"]["swizzled_tile"])
    group["points"] = points
    group["objectives"].update(objectives)
    return group


class GradingManifest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.src = Path(self.tmp.name)
        (self.src / "tests" / "lab07_swizzle").mkdir(parents=True)
        self.record: dict = {
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

    def manifest(self, declaration, tests=None) -> Manifest:
        path = self.src / "tests" / "lab07_swizzle" / "objectives.json"
        path.write_text(declaration if isinstance(declaration, str) else json.dumps(declaration))
        return gm.build_manifest(self.record, TESTS if tests is None else tests)

    def test_declared_points_and_tests(self):
        m = self.manifest(GOOD)
        self.assertEqual(m.problems, [])
        self.assertEqual(m.objectives["lab07"], {
            "DemoGpu": ManifestObjective(15, 1, "lab"),
            "TileGpu": ManifestObjective(40, 3, "swizzled_tile"),
            "TilePerf": ManifestObjective(25, 1, "swizzled_tile"),
            "TileSanitizer": ManifestObjective(20, 1, "swizzled_tile")})
        self.assertEqual(m.techniques["lab07"], {
            "swizzled_tile": TechniqueDeclared(85, "The lesson's kernel and its speed."),
            "lab": TechniqueDeclared(15, "The demo.")})
        t = m.tests["lab07.Shapes/TileGpu.Exact/33x65"]
        self.assertEqual((t.suite, t.case, t.objective, t.graded, t.gpu, t.timeout,
                          t.registered),
                         ("Shapes/TileGpu", "Exact/33x65", "TileGpu", True, True, 60, "gtest"))
        self.assertEqual(m.tests["lab07.DemoGpu.RunsAndVerifies"].registered, "cmake")
        # Batch runs, the known-wrong variants and NOT_BUILT placeholders are no tests here.
        self.assertNotIn("lab07.Shapes/TileGpu.@batch", m.tests)
        self.assertNotIn("wrong.lab07.no_swizzle", m.tests)
        self.assertFalse(m.tests["common.GivenMathCpu.Adds"].graded)
        self.assertFalse(m.tests["lab07.GivenEdgesGpu.Works"].graded)

    def test_the_manifest_round_trips_and_a_malformed_one_is_refused_in_one_line(self):
        m = self.manifest(GOOD)
        text = json.dumps(m.to_json(), indent=1)
        doc = json.loads(text)
        self.assertEqual((doc["schema"], doc["version"]), ("cudalabs-manifest", 3))
        self.assertEqual([t["name"] for t in doc["tests"]], list(m.tests))
        back = Manifest.from_json(doc)
        self.assertEqual(back, m)
        self.assertEqual(json.dumps(back.to_json(), indent=1), text)
        with self.assertRaises(ModelError) as e:
            Manifest.from_json(dict(doc, version=2))
        self.assertEqual(str(e.exception), "the manifest is not a cudalabs-manifest file of "
                                           "version 3")
        doc["tests"][1]["graded"] = "yes"
        with self.assertRaises(ModelError) as e:
            Manifest.from_json(doc)
        self.assertEqual(str(e.exception), "the manifest: tests[1] has graded 'yes', not true "
                                           "or false")
        doc["tests"][1]["graded"] = True
        doc["objectives"]["lab07"]["TileGpu"]["points"] = 40.5
        with self.assertRaises(ModelError) as e:
            Manifest.from_json(doc)
        self.assertEqual(str(e.exception), "the manifest: objectives of lab07 TileGpu has "
                                           "points 40.5, not an integer")

    def test_cmakes_record_is_written_back_as_it_came(self):
        # Keys CMake may add later stay, in their places; keys a record lacks stay out (the
        # fixture's rules have no timeout, its graders no executable).
        self.record["labs"][0] = {"zeta": [1], **self.record["labs"][0], "alpha": {"x": 1}}
        self.record["graders"][0]["later"] = "kept"
        self.record["rules"] = dict(RULES, later=True)
        m = self.manifest(GOOD)
        self.assertEqual(m.problems, [])
        self.assertEqual(m.labs["lab07"].extra, {"zeta": [1], "alpha": {"x": 1}})
        self.assertEqual((m.rules.endings[1].ending, m.rules.endings[1].labels), ("Gpu", ["gpu"]))
        doc = m.to_json()
        for got, want in ((doc["labs"], self.record["labs"]),
                          (doc["graders"], self.record["graders"]),
                          (doc["rules"], dict(RULES, later=True, lab_points=100))):
            self.assertEqual(json.dumps(got), json.dumps(want))  # the keys' order too
        text = json.dumps(doc, indent=1)
        self.assertEqual(json.dumps(Manifest.from_json(json.loads(text)).to_json(), indent=1),
                         text)
        # A record that lacks what the tools read is refused in one line.
        del self.record["graders"][1]["prefix"]
        with self.assertRaises(ModelError) as e:
            self.manifest(GOOD)
        self.assertEqual(str(e.exception), "cudalab_labs.json: graders[1] has no 'prefix'")

    def test_the_lock_groups_objectives_by_technique(self):
        m = self.manifest(GOOD)
        declared = scoring.declared_from_manifest(m).to_json()
        self.assertEqual((declared["schema"], declared["version"]), ("cudalabs-declared", 2))
        groups = declared["labs"]["lab07"]["techniques"]
        self.assertEqual(list(groups), ["swizzled_tile", "lab"])  # as declared
        self.assertEqual(groups["lab"], {"points": 15, "why": "The demo.", "objectives": {
            "DemoGpu": {"points": 15, "gpu": True,
                        "tests": ["lab07.DemoGpu.RunsAndVerifies"]}}})
        self.assertEqual(groups["swizzled_tile"]["objectives"]["TileGpu"]["tests"], [
            "lab07.Shapes/TileGpu.Exact/1x1", "lab07.Shapes/TileGpu.Exact/33x65",
            "lab07.TileGpu/0.Typed"])
        # Graded with the lock, the build's objectives are the lock's: nothing differs.
        self.assertEqual(scoring.apply_declared(copy.deepcopy(m), declared), [])
        applied = copy.deepcopy(m)
        scoring.apply_declared(applied, declared)
        self.assertEqual(applied.objectives, m.objectives)
        self.assertEqual(applied.techniques, m.techniques)
        # A lock of the version before techniques is refused in one line.
        with self.assertRaises(ctest_record.ScoreError) as e:
            scoring.apply_declared(copy.deepcopy(m), dict(declared, version=1))
        self.assertIn("version 1", str(e.exception))
        self.assertNotIn("\n", str(e.exception))

    def test_scores_carry_points_in_the_lock_shape(self):
        m = self.manifest(GOOD)
        cases = [{"name": n, "status": "passed", "time_s": 0.1, "output": "", "message": ""}
                 for n, t in m.tests.items() if t.graded]
        cases[0]["status"] = "failed"  # lab07.Shapes/TileGpu.Exact/1x1: 40/3 lost
        report = scoring.score(m, cases, None, {}, {"kind": "junit"})
        lab = next(x for x in report["labs"] if x["lab"] == "lab07")
        groups = lab["techniques"]
        self.assertEqual(list(groups), ["swizzled_tile", "lab"])
        self.assertEqual(groups["lab"], {"points": 15, "why": "The demo.", "earned": 15.0,
                                         "objectives": {"DemoGpu": {
                                             "points": 15, "passed": 1, "earned": 15.0,
                                             "tests": ["lab07.DemoGpu.RunsAndVerifies"]}}})
        tile_gpu = groups["swizzled_tile"]["objectives"]["TileGpu"]
        self.assertEqual((tile_gpu["points"], tile_gpu["passed"], len(tile_gpu["tests"])),
                         (40, 2, 3))
        self.assertAlmostEqual(groups["swizzled_tile"]["earned"], 85 - 40 / 3, places=2)
        test = next(t for t in report["tests"] if t["name"] == "lab07.TilePerf.Faster")
        self.assertEqual((test["technique"], test["objective"]), ("swizzled_tile", "TilePerf"))

    def test_a_helper_suite_earns_nothing(self):
        m = self.manifest(GOOD)
        t = m.tests["lab07.SmallShapesGpu.Exact"]
        self.assertEqual((t.graded, t.helper, t.objective), (False, True, None))
        self.assertNotIn("SmallShapesGpu", m.objectives["lab07"])
        self.assertEqual(scoring.test_points(m, t), 0.0)
        self.assertEqual(sum(o.points for o in m.objectives["lab07"].values()), 100)
        # Written into tests/grading.json: the graded tests only.
        declared = scoring.declared_from_manifest(m).to_json()
        names = [n for g in declared["labs"]["lab07"]["techniques"].values()
                 for o in g["objectives"].values() for n in o["tests"]]
        self.assertNotIn("lab07.SmallShapesGpu.Exact", names)
        self.assertEqual(len(names), 6)

    def test_an_undeclared_suite_is_a_problem(self):
        m = self.manifest(declaration(helpers=False))  # SmallShapesGpu neither
        self.assertEqual(len(m.problems), 1, m.problems)
        p = m.problems[0]
        for text in ("lab07", "SmallShapesGpu", "tests/lab07_swizzle/objectives.json",
                     "does not declare it"):
            self.assertIn(text, p)
        self.assertEqual(m.objectives["lab07"]["SmallShapesGpu"], ManifestObjective(0, 1, None))

    def test_a_declared_suite_the_grader_lacks_is_a_problem(self):
        decl = declaration(swizzled_tile=tile(TileGpu=30, GoneGpu=10))
        decl["helpers"]["SmallGoneGpu"] = "nothing"
        problems = self.manifest(decl).problems
        self.assertEqual(len(problems), 2, problems)
        self.assertIn("declares the objective GoneGpu, which the grader does not list",
                      problems[0])
        self.assertIn("declares the helper suite SmallGoneGpu", problems[1])

    def test_a_technique_whose_objectives_do_not_add_up_to_its_points_is_a_problem(self):
        problems = self.manifest(declaration(swizzled_tile=tile(TileGpu=41))).problems
        self.assertEqual(problems, ["lab07: tests/lab07_swizzle/objectives.json: technique "
                                    "swizzled_tile: its objectives' points add up to 86, not "
                                    "its points 85"])

    def test_points_must_add_up_to_100_and_be_integers(self):
        problems = self.manifest(declaration(swizzled_tile=tile(86, TileGpu=41))).problems
        self.assertEqual(problems, ["lab07: tests/lab07_swizzle/objectives.json: the "
                                    "techniques' points add up to 101, not 100"])
        problems = self.manifest(declaration(swizzled_tile=tile(TileGpu=39.5))).problems
        self.assertTrue(any("objective TileGpu has points 39.5" in p for p in problems),
                        problems)
        problems = self.manifest(declaration(swizzled_tile=tile("85"))).problems
        self.assertTrue(any("technique swizzled_tile has points '85'" in p for p in problems),
                        problems)
        decl = declaration()
        decl["helpers"] = {"TileGpu": "both"}
        problems = self.manifest(decl).problems
        self.assertTrue(any("both an objective and a helper" in p for p in problems), problems)

    def test_an_objective_in_two_techniques_is_a_problem(self):
        lab = {"points": 15, "why": "The demo.", "objectives": {"DemoGpu": 15, "TileGpu": 0}}
        problems = self.manifest(declaration(lab=lab)).problems
        self.assertEqual(problems, ["lab07: tests/lab07_swizzle/objectives.json: objective "
                                    "TileGpu is in the techniques swizzled_tile and lab: an "
                                    "objective grades one"])

    def test_a_technique_says_why(self):
        group = tile()
        del group["why"]
        problems = self.manifest(declaration(swizzled_tile=group)).problems
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("technique swizzled_tile does not say why", problems[0])

    def test_a_technique_the_lab_lacks_is_a_problem(self):
        folder = self.src / "labs" / "lab07_swizzle"
        folder.mkdir(parents=True)
        (folder / "swizzle.cuh").write_text(HEADER)
        self.record["labs"][0]["sources"] = ["swizzled_tile.cu", "vec4_transpose.cu"]
        lab = LabRecord.from_json(self.record["labs"][0])
        self.assertEqual(gm.technique_names(self.src, lab), [
            "interleaved", "lab", "plain", "speed", "swizzled_tile", "vec4_transpose"])
        # A SOURCES stem, a table name and a shared key are techniques of the lab.
        inter = {"points": 15, "why": "The float4 layout.", "objectives": {"DemoGpu": 15}}
        self.assertEqual(self.manifest(declaration(lab=None, interleaved=inter)).problems,
                         [])
        self.assertEqual(self.manifest(GOOD).problems, [])
        problems = self.manifest(declaration(lab=None, swizzle=inter)).problems
        self.assertEqual(len(problems), 1, problems)
        for text in ("lab07", "technique swizzle is not one of the lab's", "interleaved",
                     "swizzled_tile", "vec4_transpose"):
            self.assertIn(text, problems[0])

    def test_a_missing_or_broken_declaration_is_a_problem(self):
        m = self.manifest("{\"techniques\": ")
        self.assertTrue(any("is not valid JSON" in p for p in m.problems), m.problems)
        m = self.manifest({"objectives": {"TileGpu": 100}})  # the form before techniques
        self.assertTrue(any("has no \"techniques\" object" in p for p in m.problems),
                        m.problems)
        (self.src / "tests" / "lab07_swizzle" / "objectives.json").unlink()
        m = gm.build_manifest(self.record, TESTS)
        self.assertTrue(any("no declaration" in p for p in m.problems), m.problems)

    def test_a_lab_whose_grader_is_not_built_keeps_its_points(self):
        tests = [ctest_test("lab07.NOT_BUILT.lab07_test", ["lab07"], gtest=False),
                 ctest_test("lab07.DemoGpu.RunsAndVerifies", ["lab07", "gpu"], gtest=False)]
        m = self.manifest(GOOD, tests)
        self.assertEqual(m.missing, ["lab07_test"])
        self.assertEqual(m.problems, [])  # nothing to compare the declaration with
        self.assertEqual(m.objectives["lab07"]["TileGpu"],
                         ManifestObjective(40, 0, "swizzled_tile"))

    def test_the_scoreboard_refuses_to_write_declared_tests_from_a_bad_declaration(self):
        build = self.src / "build"
        build.mkdir()
        (build / gm.RECORD).write_text(json.dumps(self.record))
        self.manifest(declaration(helpers=False))
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


class CpuPointsTable(unittest.TestCase):
    """docs/instructors.md states each lab's points without a GPU: they must be the lock's."""

    def test_the_instructors_table_is_the_locks(self):
        lock = Lock.from_json(json.loads((ROOT / "tests" / "grading.json").read_text()))
        want = {lab[3:]: 0 for lab in lock.labs}
        for lab, _, _, objective in lock.objectives():
            want[lab[3:]] += 0 if objective.gpu else objective.points
        doc = (ROOT / "docs" / "instructors.md").read_text()
        begin, end = "<!-- cpu-points:begin -->", "<!-- cpu-points:end -->"
        self.assertIn(begin, doc, "docs/instructors.md lost its CPU points table")
        rows = [line.strip().strip("|").split("|")
                for line in doc.split(begin, 1)[1].split(end, 1)[0].strip().splitlines()]
        got = dict(zip((c.strip() for c in rows[0][1:]), (c.strip() for c in rows[2][1:])))
        self.assertEqual({k: str(v) for k, v in sorted(want.items())}, got,
                         "docs/instructors.md's CPU points (lab: points) differ from "
                         "tests/grading.json's CPU-graded objectives")


if __name__ == "__main__":
    unittest.main()
