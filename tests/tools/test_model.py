#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tools/model.py, the typed model of the lock (tests/grading.json), a test's result with its
measurements, bars and skip reason, and a lab's score (scores.json tests[] and labs[]): each
round-trips to the same bytes, and a document of the wrong shape is refused in one line naming
where (and the field)."""

from __future__ import annotations

import copy
import json
import os
import unittest
from pathlib import Path
from typing import Any

import test_unavailable_parts as up

from tools import scoring
from tools.measurement_channel import channel_bars, channel_measurements, channel_of
from tools.model import (Bar, CategoryCount, Failure, Flag, LabResult, LabScore, Lock,
                         Measurement, ModelError, Objective, SkipReason, TestResult, Tier)
from tools.release import autograde

ROOT = Path(os.environ.get("CUDALAB_SOURCE_DIR", Path(__file__).resolve().parents[2]))
LOCK = ROOT / "tests" / "grading.json"


def report() -> dict:
    """A scores.json (version 4) of lab 14 on an A100: passes, skips, unavailable parts."""
    declared = up.declared_lab14()
    manifest = up.manifest_of(declared)
    return scoring.score(copy.deepcopy(manifest), up.a100_run(manifest), None, {},
                         {"kind": "junit"})


class LockModel(unittest.TestCase):
    def setUp(self):
        self.text = LOCK.read_text(encoding="utf-8")
        self.doc = json.loads(self.text)

    def test_the_course_lock_round_trips_byte_for_byte(self):
        lock = Lock.from_json(self.doc)
        self.assertEqual(json.dumps(lock.to_json(), indent=1) + "\n", self.text)

    def test_tests_and_weights_come_from_the_objectives(self):
        lock = Lock.from_json(self.doc)
        tests = lock.tests()
        lab, tname, oname, o = next(lock.objectives())
        t = tests[o.tests[0]]
        self.assertEqual((t.lab, t.technique, t.objective, t.gpu), (lab, tname, oname, o.gpu))
        self.assertAlmostEqual(t.weight, o.points / len(o.tests))
        for lab_id, lab_points in lock.labs.items():
            self.assertEqual(sum(g.points for g in lab_points.techniques.values()), 100, lab_id)
        self.assertEqual(list(lock.only({"lab02", "lab99"}).labs), ["lab02"])

    def test_an_objective_to_json(self):
        self.assertEqual(Objective(5, True, ("a", "b")).to_json(),
                         {"points": 5, "gpu": True, "tests": ["a", "b"]})

    def rejected(self, doc: object) -> str:
        with self.assertRaises(ModelError) as e:
            Lock.from_json(doc)
        message = str(e.exception)
        self.assertNotIn("\n", message)
        return message

    def test_a_lock_of_another_shape_is_refused_in_one_line(self):
        self.assertIn("not a cudalabs-declared file", self.rejected({"schema": "x"}))
        self.assertIn("version 1 of cudalabs-declared, not 2",
                      self.rejected(dict(self.doc, version=1)))
        self.assertIn("is not an object", self.rejected([]))
        bad = copy.deepcopy(self.doc)
        obj = bad["labs"]["lab01"]["techniques"]["lab"]["objectives"]["DemoGpu"]
        obj["points"] = -1
        self.assertIn("lab01: technique lab: objective DemoGpu has points -1",
                      self.rejected(bad))
        obj["points"], obj["gpu"] = 5, "yes"
        self.assertIn("DemoGpu has gpu 'yes'", self.rejected(bad))
        obj["gpu"], obj["tests"] = True, "lab01.DemoGpu.RunsAndVerifies"
        self.assertIn("DemoGpu has no \"tests\" list", self.rejected(bad))
        del bad["labs"]["lab01"]["techniques"]["lab"]["why"]
        self.assertIn("lab01: technique lab has no \"why\"", self.rejected(bad))
        bad["labs"]["lab01"] = {"objectives": {}}
        self.assertIn("lab01: its \"techniques\" is not an object", self.rejected(bad))


class ScoresModel(unittest.TestCase):
    def setUp(self):
        self.report = report()

    def test_tests_and_labs_round_trip_byte_for_byte(self):
        self.assertTrue(self.report["tests"] and self.report["labs"])
        for t in self.report["tests"]:
            self.assertEqual(json.dumps(TestResult.from_json(t).to_json(), indent=2),
                             json.dumps(t, indent=2))
        for lab in self.report["labs"]:
            back = LabScore.from_json(lab)
            self.assertEqual(json.dumps(back.to_json(), indent=2), json.dumps(lab, indent=2))
            self.assertTrue(back.unavailable)
            self.assertEqual(back.unavailable[0].needs, "9.0")
            self.assertEqual(set(back.techniques), set(up.declared_lab14()["labs"]["lab14"]
                                                       ["techniques"]))

    def test_the_drivers_graded_in_this_run_is_kept_only_when_there(self):
        lab = dict(self.report["labs"][0], graded_in_this_run=False)
        self.assertEqual(LabScore.from_json(lab).to_json(), lab)
        self.assertNotIn("graded_in_this_run", LabScore.from_json(self.report["labs"][0])
                         .to_json())

    def test_a_partial_test_keeps_the_defaults(self):
        t = TestResult.from_json({"name": "lab01.ACpu.B", "lab": "lab01", "status": "passed",
                                  "category": "cpu"})
        self.assertEqual((t.weight, t.message, t.time_s, t.needs_gpu), (0.0, "", None, False))

    def test_a_test_or_lab_of_another_shape_is_refused_in_one_line(self):
        for doc, where in (({"name": "x", "lab": "lab01"}, "'status'"), ([], "not an object")):
            with self.assertRaises(ModelError) as e:
                TestResult.from_json(doc, "scores.json tests[0]")
            self.assertIn(where, str(e.exception))
            self.assertNotIn("\n", str(e.exception))
        with self.assertRaises(ModelError) as e:
            LabScore.from_json({"lab": "lab14", "techniques": []}, "scores.json lab14")
        self.assertEqual(str(e.exception), "scores.json lab14: its \"techniques\" is not an object")


def channel() -> dict:
    """A test's channel with a tiered, calibrated speed measurement and a count."""
    test = "lab13.SgemmPerf.SwizzledShareOfCublas"
    return channel_of([
        {"type": "test", "test": test, "unix_time": 1.0, "speedup_scale": 1},
        {"type": "measurement", "test": test, "name": "share", "value": 0.8, "unit": "%",
         "threshold": 0.4, "bound": "min", "verdict": "pass", "unscaled_threshold": 0.4,
         "text": "0.80 of cuBLAS", "tiers": [{"name": "good", "at_least": 0.75}],
         "tier": "good"},
        {"type": "measurement", "test": test, "name": "conflict_degree", "value": 1},
        {"type": "bar", "test": test, "name": "share", "bound": "min", "bar": 0.4,
         "reference": 0.4, "source": "calibration", "calibration": "tests/calibration/x.tsv",
         "calibration_gpu": "NVIDIA H100 80GB HBM3", "note": "not in scores.json"}])


class RecordModel(unittest.TestCase):
    """The records of a test's entry: its measurements, bars and why it cannot run here."""

    def setUp(self):
        chan = channel()
        self.test = chan["test"]["test"]
        self.measurements = channel_measurements(self.test, chan, "passed")
        self.bars = channel_bars(chan)

    def test_measurements_bars_and_skip_reasons_round_trip(self):
        m = self.measurements[0]
        self.assertEqual((m.bar_source, m.calibration, m.speedup_scale, m.tier),
                         ("calibration", "tests/calibration/x.tsv", 1, "good"))
        self.assertEqual((self.measurements[1].unit, self.measurements[1].tiers), ("", []))
        for m in self.measurements:
            doc = m.to_json()
            self.assertNotIn("lab", doc)
            self.assertEqual(Measurement.from_json(json.loads(json.dumps(doc))), m)
        top = Measurement.from_json(dict(m.to_json(), lab="lab13", graded=True))
        self.assertEqual(list(top.to_json())[-2:], ["lab", "graded"])
        self.assertEqual([Bar.from_json(b.to_json()) for b in self.bars], self.bars)
        self.assertNotIn("note", self.bars[0].to_json())
        reason = SkipReason("gpu", "9.0", "needs 9.0")
        self.assertEqual(SkipReason.from_json(reason.to_json()), reason)
        entry = TestResult(self.test, "lab13", measurements=self.measurements, bars=self.bars,
                           unavailable=reason)
        text = json.dumps(entry.to_json(), indent=2)
        back = TestResult.from_json(json.loads(text))
        self.assertEqual(back, entry)
        self.assertEqual(json.dumps(back.to_json(), indent=2), text)

    def refused(self, raw: object, where: str, cls: Any = Measurement) -> str:
        with self.assertRaises(ModelError) as e:
            cls.from_json(raw, where)
        self.assertNotIn("\n", str(e.exception))
        return str(e.exception)

    def test_a_malformed_record_is_refused_in_one_line_naming_the_field(self):
        doc = self.measurements[0].to_json()
        self.assertEqual(self.refused(dict(doc, value="fast"), "tests[3]: measurements[0]"),
                         "tests[3]: measurements[0] has value 'fast', not a number or null")
        self.assertIn("has threshold True, not a number",
                      self.refused(dict(doc, threshold=True), "m"))
        self.assertIn("has tiers {}, not a list", self.refused(dict(doc, tiers={}), "m"))
        del doc["value"]
        self.assertEqual(self.refused(doc, "m"), "m has no 'value'")
        bar = dict(self.bars[0].to_json(), bar="0.4")
        self.assertEqual(self.refused(bar, "b", Bar), "b has bar '0.4', not a number or null")
        self.assertEqual(self.refused({"kind": "gpu", "needs": 9.0, "reason": ""}, "u",
                                      SkipReason), "u has needs 9.0, not a string")
        test = TestResult(self.test, "lab13", measurements=self.measurements).to_json()
        bad = copy.deepcopy(test)
        bad["measurements"][1]["unit"] = None
        self.assertEqual(self.refused(bad, "scores.json tests[3]", TestResult),
                         "scores.json tests[3]: measurements[1] has unit None, not a string")
        self.assertEqual(self.refused(dict(test, bars={}), "t", TestResult),
                         "t: bars is not a list")
        self.assertEqual(self.refused(dict(test, speedup_scale="1"), "t", TestResult),
                         "t has speedup_scale '1', not a number or null")
        self.assertEqual(self.refused(dict(doc, value=1, tiers=[{"name": "good"}]), "m"),
                         "m: tiers[0] has no 'at_least'")

    def test_a_labs_tiers_failures_flags_and_categories_are_typed(self):
        self.assertEqual(self.measurements[0].tiers, [Tier("good", 0.75)])
        lab = LabScore("lab13", by_category={"perf": CategoryCount(2, 1)},
                       measurements=self.measurements,
                       failures=[Failure("lab13.SgemmPerf.X", "0.5 < 0.6")],
                       flags=[Flag("labs/lab13_sgemm/sgemm.cu", 7, "asm", "asm(...)")])
        doc = lab.to_json()
        self.assertEqual((doc["by_category"], doc["failures"], doc["flags"]),
                         ({"perf": {"tests": 2, "passed": 1}},
                          [{"test": "lab13.SgemmPerf.X", "message": "0.5 < 0.6"}],
                          [{"file": "labs/lab13_sgemm/sgemm.cu", "line": 7, "construct": "asm",
                            "text": "asm(...)"}]))
        self.assertEqual(doc["measurements"][0]["tiers"], [{"name": "good", "at_least": 0.75}])
        self.assertEqual(LabScore.from_json(json.loads(json.dumps(doc))), lab)
        self.assertEqual(self.refused(dict(doc, flags=[{"file": "a.cu", "line": "7",
                                                        "construct": "asm", "text": ""}]),
                                      "lab13", LabScore),
                         "lab13: flags[0] has line '7', not an integer")
        self.assertEqual(self.refused(dict(doc, failures=[{"test": "x"}]), "lab13", LabScore),
                         "lab13: failures[0] has no 'message'")


class ResultModel(unittest.TestCase):
    def test_a_result_json_entry_round_trips_and_reads_leniently(self):
        scores = report()
        entries = autograde.lab_entries(scores, autograde.graded_labs(scores, None), True,
                                        Lock.from_json(up.declared_lab14()), {})
        back = LabResult.from_json(entries[0])
        self.assertEqual(json.dumps(back.to_json()), json.dumps(entries[0]))
        self.assertEqual((back.lab, back.unavailable[0]["needs"]), ("lab14", "9.0"))
        old = LabResult.from_json({"test-name": "lab02 naive_matmul", "score": 3})
        self.assertEqual((old.lab, old.score, old.max_score, old.flags), ("lab02", 3, 0, []))
        with self.assertRaises(ModelError) as e:
            LabResult.from_json({"test-name": "lab02", "cudalabs": "x"}, "result.json tests[0]")
        self.assertEqual(str(e.exception), "result.json tests[0]: its \"cudalabs\" is not an "
                                           "object")


if __name__ == "__main__":
    unittest.main()
