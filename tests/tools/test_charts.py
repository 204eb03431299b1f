#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Tests of tools/classroom/charts.py: per-lab distributions and the opt-in, anonymised speed
board per GPU model, drawn (matplotlib) from a fixture collected.json (no network); every
label and value is SVG text, two runs draw the same bytes."""

from __future__ import annotations

import contextlib
import io
import re
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import toolfixtures as fx

from tools.classroom import charts

SHARES = {"alice": 0.93, "bob": 0.35, "carol": 0.61, "dave": 0.88}


def collected() -> dict:
    students: list[dict] = [
        {"student": s, "result": fx.make_result({"lab13": (100, 100)}, share=v)}
        for s, v in SHARES.items()]
    students.append({"student": "erin", "result": fx.make_result(
        {"lab13": (100, 100)}, share=0.97, gpu="NVIDIA H200")})
    students.append({"student": "frank", "result": None})
    return {"students": students}


class Charts(unittest.TestCase):
    def draw(self, *extra: str, consent: str | None = None) -> tuple[int, dict[str, str]]:
        with tempfile.TemporaryDirectory() as tmp:
            src = fx.write_json(Path(tmp) / "collected.json", collected())
            argv = ["--collected", str(src), "--out", str(Path(tmp) / "svg"), *extra]
            if consent is not None:
                (Path(tmp) / "consent.txt").write_text(consent)
                argv += ["--consent", str(Path(tmp) / "consent.txt")]
            with contextlib.redirect_stdout(io.StringIO()), \
                    contextlib.redirect_stderr(io.StringIO()):
                rc = charts.main(argv)
            files = {p.name: p.read_text() for p in (Path(tmp) / "svg").glob("*.svg")} \
                if rc == 0 else {}
        for text in files.values():
            fx.svg_texts(text)  # well-formed SVG
        return rc, files

    def test_distribution_per_lab_per_gpu_without_names(self):
        rc, files = self.draw()
        self.assertEqual(rc, 0)
        # no board unless asked
        self.assertEqual(sorted(files), ["completion.svg", "dist_lab13.svg", "points.svg"])
        svg = files["dist_lab13.svg"]
        self.assertIn("on NVIDIA H100 80GB HBM3: 4 students, median 0.745, pass bar 0.4", svg)
        # Counts are whole numbers and every bin is drawn, the empty ones too.
        values = fx.svg_texts(svg, "value-")
        self.assertTrue(values and all(re.fullmatch(r"\d+", v) for v in values), values)
        self.assertIn("0", values)
        self.assertEqual(values.count("0") + sum(int(v) > 0 for v in values), len(values))
        points = files["points.svg"]
        self.assertEqual(len(fx.svg_texts(points, "value-")), 11)  # 11 bins of lab13, every one
        # Every bar's label is text: the bins of the points, the rows of the completion.
        self.assertLessEqual({"0–9 %", "90–99 %", "100 %"}, set(fx.svg_texts(points)))
        self.assertLessEqual({"completed (full points)", "partly", "no points", "no result"},
                             set(fx.svg_texts(files["completion.svg"])))
        for name in list(SHARES) + ["erin"]:
            self.assertNotIn(name, points + files["completion.svg"])
        self.assertIn("on NVIDIA H200: 1 students", svg)
        for name in list(SHARES) + ["erin"]:
            self.assertNotIn(name, svg)

    def test_board_is_opt_in_per_gpu_and_anonymised_by_rank(self):
        _, files = self.draw("--board")
        self.assertIn("board_nvidia-h100-80gb-hbm3.svg", files)
        self.assertIn("board_nvidia-h200.svg", files)
        board = files["board_nvidia-h100-80gb-hbm3.svg"]
        for name in SHARES:
            self.assertNotIn(name, board)
        # student 1 is the fastest (93 %), student 4 the slowest (35 %), below the 40 % bar
        texts = fx.svg_texts(board)
        self.assertLess(texts.index("student 1"), texts.index("student 4"))
        self.assertEqual(fx.svg_texts(board, "value-"), ["93.0", "88.0", "61.0", "35.0"])
        self.assertIn("pass bar 40.0 % of cuBLAS", texts)

    def test_names_only_with_names_and_consent(self):
        _, files = self.draw("--board", "--names")
        self.assertIn(">alice<", files["board_nvidia-h100-80gb-hbm3.svg"])
        # No consent list, no claim of consent.
        self.assertNotIn("consent.", files["board_nvidia-h100-80gb-hbm3.svg"])
        self.assertNotIn("with consent", files["board_nvidia-h100-80gb-hbm3.svg"])
        _, files = self.draw("--board")
        self.assertNotIn("consent", files["board_nvidia-h100-80gb-hbm3.svg"])
        _, files = self.draw("--board", "--names", consent="Carol\n")
        board = files["board_nvidia-h100-80gb-hbm3.svg"]
        self.assertIn("Names shown with consent", board)
        self.assertIn(">carol<", board)
        self.assertNotIn("alice", board)
        self.assertIn(">student 1<", board)

    def test_deterministic_and_usage_errors(self):
        self.assertEqual(self.draw("--board")[1], self.draw("--board")[1])
        self.assertEqual(self.draw(consent="alice")[0], 2)  # --consent without --names

    def test_without_matplotlib_one_line_and_exit_2(self):
        err = io.StringIO()
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.dict(sys.modules, {"matplotlib": None}), \
                contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            src = fx.write_json(Path(tmp) / "collected.json", collected())
            rc = charts.main(["--collected", str(src), "--out", str(Path(tmp) / "svg")])
            self.assertFalse((Path(tmp) / "svg").exists())
        self.assertEqual(rc, 2)
        self.assertEqual(err.getvalue(), "charts: needs matplotlib (Debian: apt-get install "
                                         "python3-matplotlib)\n")


if __name__ == "__main__":
    unittest.main()
