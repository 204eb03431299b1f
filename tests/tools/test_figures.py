#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Tests of the labs' figure data (tests/labNN_topic/figures.json) that tools/figures.py draws
from: every lab has its course-map box; every test a figures.json names is a test the course
declares (tests/grading.json), so a renamed test cannot silently drop a series; every series
goes to a panel of the layout, every panel gets a series and every chart a title; tools/ names
no lab's test; a figures.json that names an unknown panel or kind fails loudly. The charts
themselves are compared with the committed SVGs by `tools/figures.py --check` (run by the
handout check). Python 3 standard library only; no build tree, no GPU."""

from __future__ import annotations

import json
import re
import shutil
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
from tools import figures  # noqa: E402

# A test name as the graders spell it: labNN.<Suite>.<Case>.
TEST_NAME = re.compile(r"\blab\d\d\.[A-Z]\w*")


def declared_tests() -> set[str]:
    """Every test name of tests/grading.json (graded objectives and helper suites)."""
    names: set[str] = set()

    def walk(x: object) -> None:
        if isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                if isinstance(v, str):
                    names.add(v)
                else:
                    walk(v)

    walk(json.loads((ROOT / "tests" / "grading.json").read_text())["labs"])
    return names


class LabFigures(unittest.TestCase):
    def setUp(self):
        self.labs = figures.load_labs()

    def test_every_lab_has_its_box_on_the_course_map(self):
        folders = sorted(p.name for p in (ROOT / "tests").glob("lab[0-9][0-9]_*") if p.is_dir())
        self.assertEqual([lab.folder for lab in self.labs], folders,
                         f"every lab folder has its {figures.FIGURES_FILE}")
        boxes = figures.course(self.labs)
        self.assertEqual([b[0] for b in boxes], [f[3:5] for f in folders])
        self.assertEqual([b[1] for b in boxes], [f[6:] for f in folders])
        self.assertTrue(all(b[2] for b in boxes), "each box says what its lab teaches")

    def test_every_named_test_is_declared(self):
        declared = declared_tests()
        self.assertGreater(len(declared), 500, "tests/grading.json lists the course's tests")
        named = [(lab.folder, t, m) for lab in self.labs for t, m in figures.named_tests(lab)]
        self.assertGreaterEqual(len(named), 40, "the labs' series were not found: stale check")
        missing = [f"tests/{f}/{figures.FIGURES_FILE}: {t} ({m})" for f, t, m in named
                   if t not in declared]
        self.assertEqual(missing, [], "tests a figures.json names that tests/grading.json lacks "
                                      "(renamed? the series would be dropped)")

    def test_a_series_reads_its_own_labs_tests(self):
        for lab in self.labs:
            for test, _ in figures.named_tests(lab):
                self.assertTrue(test.startswith(lab.lab + "."), f"{lab.folder}: {test}")

    def test_every_panel_gets_a_series_and_every_chart_a_title(self):
        ref = figures.load_reference()
        charts = figures.spec(ref, self.labs)
        self.assertEqual(list(charts), list(figures.LAYOUT))
        for chart, (title, panels) in charts.items():
            self.assertTrue(title.startswith(f"Lab {chart[3:]}: "), title)
            for p in panels:
                self.assertTrue(p.bars, f"{chart} ({p.title}): no series")
        self.assertEqual(figures.missing_series(ref), [])

    def test_the_board_ratio_is_a_headline_ratio(self):
        self.assertEqual(sum(bool(lab.course.get("board")) for lab in self.labs), 1)
        test, name = figures.board_ratio(self.labs)
        self.assertIn(test, declared_tests())
        self.assertTrue(name)

    def test_tools_name_no_labs_test(self):
        for path in [ROOT / "tools" / "figures.py", ROOT / "tools" / "class" / "charts.py"]:
            if path.is_file():
                self.assertEqual(TEST_NAME.findall(path.read_text()), [], path.name)


class Refusals(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="cudalab-figures-"))
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        for path in sorted((ROOT / "tests").glob(f"lab0[4-7]_*/{figures.FIGURES_FILE}")):
            (self.tmp / path.parent.name).mkdir()
            shutil.copy(path, self.tmp / path.parent.name / path.name)

    def edit(self, folder_glob: str, change) -> None:
        path = next(self.tmp.glob(f"{folder_glob}/{figures.FIGURES_FILE}"))
        data = json.loads(path.read_text())
        change(data)
        path.write_text(json.dumps(data))

    def test_copies_load(self):
        self.assertEqual([lab.lab for lab in figures.load_labs(self.tmp)],
                         ["lab04", "lab05", "lab06", "lab07"])

    def test_a_series_for_an_unknown_panel_is_refused(self):
        self.edit("lab06_*", lambda d: d["series"][0].update(panel="bandwidth"))
        with self.assertRaisesRegex(ValueError, "lab06_padding/figures.json.*no panel 'bandwidth'"):
            figures.load_labs(self.tmp)

    def test_a_series_of_an_unknown_kind_or_conversion_is_refused(self):
        self.edit("lab05_*", lambda d: d["series"][0].update(kind="mine"))
        with self.assertRaisesRegex(ValueError, "kind must be one of"):
            figures.load_labs(self.tmp)
        self.edit("lab05_*", lambda d: d["series"][0].update(kind="variant", convert="gflops"))
        with self.assertRaisesRegex(ValueError, "unknown conversion 'gflops'"):
            figures.load_labs(self.tmp)

    def test_a_renamed_measurement_is_a_missing_series(self):
        self.edit("lab07_*", lambda d: d["series"][1].update(measurement="xor transpose"))
        labs = figures.load_labs(self.tmp)
        ref = figures.load_reference()
        missing = [b.label for _, panels in figures.spec(ref, labs).values()
                   for p in panels for b in p.bars if b.value is None]
        self.assertIn("XOR-swizzled", missing)

    def test_bars_of_other_labs_follow_the_charts_own_later_labs_first(self):
        _, panels = figures.spec(figures.load_reference(), figures.load_labs(self.tmp))["lab07"]
        self.assertEqual([b.label for b in panels[1].bars],
                         ["baseline: conflicting", "XOR-swizzled", "lab 06: padded",
                          "lab 04: static tiles, row access"])


if __name__ == "__main__":
    unittest.main()
