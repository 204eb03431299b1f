#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Tests of the labs' figure data (tests/labNN_topic/figures.json) that tools/figures.py draws
from: every lab has its course-map box; every test a figures.json names is a test the course
declares (tests/grading.json), so a renamed test cannot silently drop a series; every series
goes to a panel of the layout, every panel gets a series and every chart a title; tools/ names
no lab's test; a figures.json that names an unknown panel or kind fails loudly. The charts
(drawn with matplotlib): two runs draw the same bytes, every label and value is SVG text, each
carries the digest of its data; `--check` needs no matplotlib, passes on the committed
figures and names the one chart whose value changed; drawing without matplotlib is one line
and exit status 2. No build tree, no GPU."""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import toolfixtures as fx

ROOT = Path(__file__).resolve().parents[2]
from tools import figures, plot  # noqa: E402

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
        for path in [ROOT / "tools" / "figures.py", ROOT / "tools" / "plot.py",
                     ROOT / "tools" / "classroom" / "charts.py"]:
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


def run(*argv: str, matplotlib: bool = True) -> tuple[int, str, str]:
    """figures.main(@p argv) in this process: (exit status, stdout, stderr); without
    @p matplotlib as if it were not installed."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.ExitStack() as stack:
        if not matplotlib:
            stack.enter_context(mock.patch.dict(sys.modules, {"matplotlib": None}))
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(err))
        rc = figures.main(list(argv))
    return rc, out.getvalue(), err.getvalue()


class Charts(unittest.TestCase):
    """The charts as tools/plot.py draws them, and the digest check."""

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="cudalab-charts-"))
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)

    def test_the_committed_figures_check_without_matplotlib(self):
        rc, out, err = run("--check", matplotlib=False)
        self.assertEqual(rc, 0, out + err)
        self.assertIn("figures up to date", out)

    def test_drawing_without_matplotlib_is_one_line_and_exit_2(self):
        rc, out, err = run("--out", str(self.tmp / "svg"), matplotlib=False)
        self.assertEqual((rc, out), (2, ""))
        self.assertEqual(err, "figures: needs matplotlib (Debian: apt-get install "
                              "python3-matplotlib)\n")
        self.assertFalse((self.tmp / "svg").exists())

    def test_two_runs_draw_the_same_bytes(self):
        # One run in this process, one in a fresh interpreter (as the command line runs it).
        self.assertEqual(run("--out", str(self.tmp / "a"))[0], 0)
        subprocess.run(fx.tool_command("tools.figures") + ["--out", str(self.tmp / "b")],
                       env=fx.tool_env(), check=True, capture_output=True)
        a = {p.name: p.read_bytes() for p in sorted((self.tmp / "a").iterdir())}
        b = {p.name: p.read_bytes() for p in sorted((self.tmp / "b").iterdir())}
        self.assertEqual(sorted(a), sorted(b))
        self.assertGreaterEqual(len(a), 16)
        for name in a:
            self.assertEqual(a[name], b[name], name)

    def test_every_label_and_value_is_text_and_the_digest_is_the_datas(self):
        drawn, notes = figures.charts(figures.load_reference())
        self.assertEqual((sorted(drawn), notes), ([f"{lab}.svg" for lab in figures.LAYOUT], []))
        for name, chart in drawn.items():
            svg = plot.render(chart)
            texts = fx.svg_texts(svg)
            self.assertEqual(plot.digest_in(svg), plot.digest(chart), name)
            self.assertIn(chart.title, texts, name)
            values: list[str] = []
            for p in chart.panels:
                self.assertIn(p.title, texts, name)
                for b in p.bars:
                    self.assertIn(b.label, texts, f"{name}: series {b.label}")
                    values.append(plot.fmt(b.value or 0.0))
                for ln in p.lines:
                    self.assertIn(f"{ln.label} {plot.fmt(ln.value or 0.0)} {p.unit}", texts,
                                  f"{name}: line {ln.label}")
            self.assertEqual(fx.svg_texts(svg, "value-"), values, name)
            self.assertTrue(any("SMs at" in t for t in texts), f"{name}: the GPU caption")

    def test_a_changed_value_makes_check_name_its_chart(self):
        scores = self.tmp / "scores.json"
        data = json.loads(figures.REFERENCE_JSON.read_text(encoding="utf-8"))
        scores.write_text(json.dumps(data), encoding="utf-8")
        svg = self.tmp / "svg"
        self.assertEqual(run("--scores", str(scores), "--out", str(svg))[0], 0)
        self.assertEqual(run("--scores", str(scores), "--out", str(svg), "--check",
                             matplotlib=False)[0], 0)
        test = next(t for t in data["tests"]
                    if t["name"] == "lab07.SwizzledPerf.TransposeBeatsTheConflictingTranspose")
        m = next(m for m in test["measurements"] if m["name"] == "swizzled transpose")
        m["value"] *= 1.01
        scores.write_text(json.dumps(data), encoding="utf-8")
        rc, out, _ = run("--scores", str(scores), "--out", str(svg), "--check",
                         matplotlib=False)
        self.assertEqual(rc, 1, out)
        named = re.findall(r"(\w+\.svg): (?:stale|missing|differs|carries)", out)
        self.assertEqual(named, ["lab07.svg"], out)
        (svg / "lab03.svg").unlink()
        (svg / "lab04.svg").write_text((svg / "lab05.svg").read_text())
        rc, out, _ = run("--scores", str(scores), "--out", str(svg), "--check",
                         matplotlib=False)
        self.assertEqual(re.findall(r"(\w+\.svg): (?:stale|missing)", out),
                         ["lab03.svg", "lab04.svg", "lab07.svg"], out)


if __name__ == "__main__":
    unittest.main()
