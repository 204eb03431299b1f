#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Tests of tools/handout_check.py's sitting limit (lab_parts): a lab's parts, one page or
declared with `<!-- part FILE[:i,j] -->` markers, each asking for at most 150 student lines
(the reference solution's lines of code in its TODO regions), every region in exactly one part.
Fixture labs in a temporary folder; the repository's own labs are checked last."""

from __future__ import annotations

import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import toolfixtures as fx  # noqa: E402

sys.path.insert(0, str(fx.ROOT / "tools"))
import handout_check as hc  # noqa: E402


def region(nn: str, lines: int, budget: int | None = None) -> str:
    """A TODO(labNN) region whose reference body has @p lines lines of code (and a blank line
    and a comment, not counted); the header says `Roughly <budget> lines` when given."""
    hint = f" Roughly {budget} lines." if budget is not None else ""
    body = "".join(f"  x{i} = {i};\n" for i in range(lines))
    return (f"  // TODO(lab{nn}): do it.{hint}\n  // HINT: think.\n"
            f"{body}\n  // a comment\n  // END TODO(lab{nn})\n")


def stub_region(nn: str, budget: int | None = None) -> str:
    hint = f" Roughly {budget} lines." if budget is not None else ""
    return f"  // TODO(lab{nn}): do it.{hint}\n  // HINT: think.\n  // END TODO(lab{nn})\n"


class Lab:
    """A lab under <tmp>/labs/lab99_fixture with its stubs and <tmp>/solutions/lab99_fixture."""

    def __init__(self, tmp: str, files: dict[str, list[int]], pages: dict[str, str],
                 budgets: dict[str, list[int]] | None = None) -> None:
        self.dir = Path(tmp) / "labs" / "lab99_fixture"
        self.solutions = Path(tmp) / "solutions"
        sol = self.solutions / self.dir.name
        self.dir.mkdir(parents=True)
        sol.mkdir(parents=True)
        for name, counts in files.items():
            given = (budgets or {}).get(name)
            b: list[int | None] = [*given] if given is not None else [None] * len(counts)
            (self.dir / name).write_text(
                "void f() {\n" + "".join(stub_region("99", x) for x in b) + "}\n")
            (sol / name).write_text(
                "void f() {\n" + "".join(region("99", n, x) for n, x in zip(counts, b)) + "}\n")
        (self.dir / "answers.txt").write_text("# TODO(lab99): answer\nq1 = 0\n# END TODO(lab99)\n")
        for name, text in pages.items():
            (self.dir / name).write_text(text)

    def parts(self, solutions: Path | None = None) -> tuple[list[hc.Part], list[str]]:
        p = hc.Problems()
        parts = hc.lab_parts(self.dir, p, solutions=solutions or self.solutions)
        return parts, p.items


SITTINGS = """# Lab 99

| sitting | page | what you write | reference lines |
|---|---|---|--:|
| 1 | this page | the first kernel | <!-- part a.cu -->{one} |
| 2 | [part 2](PART2.md) | the second kernel's loop | <!-- part b.cu:1,3 -->{two} |
| 3 | [part 2](PART2.md) | the rest | <!-- part b.cu:2 -->{three} |
"""


class LabParts(unittest.TestCase):
    def test_one_page_lab_within_the_limit_is_one_part(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            lab = Lab(tmp, {"a.cu": [70, 30], "b.cu": [50]}, {"README.md": "# Lab 99\n"})
            parts, problems = lab.parts()
            self.assertEqual(problems, [])
            self.assertEqual([(x.page.name, x.count) for x in parts], [("README.md", 150)])
            self.assertEqual(parts[0].regions, [("a.cu", 1), ("a.cu", 2), ("b.cu", 1)])

    def test_one_page_lab_over_the_limit_fails_naming_page_count_and_limit(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            lab = Lab(tmp, {"a.cu": [70, 31], "b.cu": [50]}, {"README.md": "# Lab 99\n"})
            parts, problems = lab.parts()
            self.assertEqual([x.count for x in parts], [151])
            self.assertEqual(len(problems), 1, problems)
            self.assertIn("README.md", problems[0])
            self.assertIn("151 student lines", problems[0])
            self.assertIn("limit of 150", problems[0])

    def test_sittings_table_passes_and_names_the_linked_pages(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            readme = SITTINGS.format(one=120, two=140, three=12)
            lab = Lab(tmp, {"a.cu": [100, 20], "b.cu": [130, 12, 10]},
                      {"README.md": readme, "PART2.md": "# Part 2\n"})
            parts, problems = lab.parts()
            self.assertEqual(problems, [])
            self.assertEqual([(x.page.name, x.count) for x in parts],
                             [("README.md", 120), ("PART2.md", 140), ("PART2.md", 12)])

    def test_sitting_over_the_limit_fails_with_its_page(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            readme = SITTINGS.format(one=120, two=161, three=12)
            lab = Lab(tmp, {"a.cu": [100, 20], "b.cu": [150, 12, 11]},
                      {"README.md": readme, "PART2.md": "# Part 2\n"})
            _, problems = lab.parts()
            self.assertEqual(len(problems), 1, problems)
            self.assertRegex(problems[0], r"README\.md:6: part .*PART2\.md asks for 161 student "
                                          r"lines, over the limit of 150")

    def test_a_stated_number_must_be_the_count(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            readme = SITTINGS.format(one=119, two=140, three=12)
            lab = Lab(tmp, {"a.cu": [100, 20], "b.cu": [130, 12, 10]},
                      {"README.md": readme, "PART2.md": "# Part 2\n"})
            _, problems = lab.parts()
            self.assertEqual(len(problems), 1, problems)
            self.assertIn("119 after the marker", problems[0])
            self.assertIn("120 student lines", problems[0])

    def test_every_region_in_exactly_one_part(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            readme = ("<!-- part a.cu b.cu:1 -->\n<!-- part b.cu:1 -->\n"
                      "<!-- part answers.txt c.cu b.cu:4 -->\n")
            lab = Lab(tmp, {"a.cu": [5], "b.cu": [5, 5, 5]}, {"README.md": readme})
            _, problems = lab.parts()
            text = "\n".join(problems)
            self.assertIn("region 1 of b.cu is in two parts", text)
            self.assertIn("'answers.txt' is not a source file", text)
            self.assertIn("'c.cu' is not a source file", text)
            self.assertIn("no region 4", text)
            self.assertIn("region 2 of b.cu is in no part", text)
            self.assertIn("region 3 of b.cu is in no part", text)
            self.assertEqual(len(problems), 6, problems)

    def test_a_lab_of_several_pages_must_declare_its_parts(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            lab = Lab(tmp, {"a.cu": [5]}, {"README.md": "# Lab\n", "PART2.md": "# Part 2\n"})
            parts, problems = lab.parts()
            self.assertEqual(parts, [])
            self.assertEqual(len(problems), 1, problems)
            self.assertIn("no '<!-- part", problems[0])

    def test_without_solutions_the_stub_budgets_count(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            lab = Lab(tmp, {"a.cu": [100, 60]}, {"README.md": "# Lab 99\n"},
                      budgets={"a.cu": [95, 62]})
            parts, problems = lab.parts(solutions=Path(tmp) / "none")
            self.assertEqual([x.count for x in parts], [157])
            self.assertEqual(len(problems), 1, problems)
            self.assertIn("157 student lines", problems[0])


class RegionBudgets(unittest.TestCase):
    def test_a_budget_may_count_some_regions_of_a_file(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            lab = Lab(tmp, {"a.cu": [7, 11, 13]}, {"README.md": "# Lab 99\n"})
            sol = lab.solutions / lab.dir.name / "a.cu"
            p = hc.Problems()
            self.assertEqual(hc.code_lines_in_regions(sol, "99", p), 31)
            self.assertEqual(hc.code_lines_in_regions(sol, "99", p, [1, 3]), 20)
            with self.assertRaisesRegex(ValueError, "3 TODO.lab99. region.s., no region 4"):
                hc.code_lines_in_regions(sol, "99", p, [4])
            self.assertEqual(p.items, [])


@unittest.skipUnless((hc.ROOT / "solutions").is_dir(), "no solutions/ (a student release)")
class RepositoryLabs(unittest.TestCase):
    def test_every_part_of_every_lab_is_within_the_limit(self) -> None:
        p = hc.Problems()
        n = sum(len(hc.lab_parts(d, p)) for d in hc.lab_dirs())
        self.assertEqual(p.items, [])
        self.assertGreaterEqual(n, len(hc.lab_dirs()))


if __name__ == "__main__":
    unittest.main()
