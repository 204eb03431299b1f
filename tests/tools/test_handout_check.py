#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Tests of tools/handout_check.py's sitting limit (lab_parts): a lab's parts, one page or
declared with `<!-- part FILE[:i,j] -->` markers, each asking for at most 150 student lines
(the reference solution's lines of code in its TODO regions), every region in exactly one part;
and of its checks that nothing is there to copy and that the handouts agree with the sources:
graded answers out of sight (check_answers_in_sight), measured numbers folded after a
prediction, each measured section after a prediction of its own and no measured ratio in words
(check_measured_folded), a `## What you work out` section in every lab README (check_work_out),
one page for grading mechanics (check_grading_page), the LDS.128 tables as measured
(check_lds128), the stubs' `Roughly N lines` (check_stub_budgets).
Fixture labs in a temporary folder (the checks that read the tree from handout_check.ROOT get
the folder as ROOT); the repository's own labs are checked last."""

from __future__ import annotations

import tempfile
import unittest
from pathlib import Path
from typing import Any, Callable
from unittest import mock


from tools import handout_check as hc


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
                 budgets: dict[str, list[int | None]] | None = None) -> None:
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


def as_root(tmp: str) -> Any:
    """handout_check with @p tmp as its ROOT (and docs/grading.md there): the checks that find
    solutions/, tests/ or docs/ from ROOT read the fixture tree."""
    root = Path(tmp)
    return mock.patch.multiple(hc, ROOT=root, GRADING_PAGE=root / "docs" / "grading.md")


ANSWERS = "// TODO(lab99): answer\nq1 = 8320\nq2 = 3.8\nq3 = b\n// END TODO(lab99)\n"
GRADER = ('  EXPECT_TRUE(number_is(sheet(), "q1", pitch * 4, 0.0, "bytes"));\n'
          '  EXPECT_TRUE(number_is(sheet(), "q2", ratio, 0.05, "speed-up"));\n')


class AnswersInSight(unittest.TestCase):
    def check(self, pages: dict[str, str], sources: dict[str, str] | None = None
              ) -> tuple[int, list[str], dict[str, list[str]]]:
        with tempfile.TemporaryDirectory() as tmp, as_root(tmp):
            lab = Lab(tmp, {"a.cu": [5]}, pages)
            (lab.solutions / lab.dir.name / "answers.txt").write_text(ANSWERS)
            (Path(tmp) / "tests" / lab.dir.name).mkdir(parents=True)
            (Path(tmp) / "tests" / lab.dir.name / "questions.cpp").write_text(GRADER)
            for name, text in (sources or {}).items():
                (lab.dir / name).write_text(text)
            p = hc.Problems()
            notes: dict[str, list[str]] = {}
            n = hc.check_answers_in_sight(lab.dir, [lab.dir / x for x in pages], p, notes)
            return n, p.items, notes

    def test_graded_answers_read_from_the_solution_and_the_grader(self) -> None:
        with tempfile.TemporaryDirectory() as tmp, as_root(tmp):
            (Path(tmp) / "solutions" / "lab99_x").mkdir(parents=True)
            (Path(tmp) / "solutions" / "lab99_x" / "answers.txt").write_text(ANSWERS)
            (Path(tmp) / "tests" / "lab99_x").mkdir(parents=True)
            (Path(tmp) / "tests" / "lab99_x" / "questions.cpp").write_text(GRADER)
            self.assertEqual(hc.graded_answers("lab99_x"),
                             [("q1", "8320", 0.0), ("q2", "3.8", 0.05), ("q3", "b", 0.0)])
            self.assertEqual(hc.graded_answers("lab98_none"), [])

    def test_a_handout_without_the_answers_passes(self) -> None:
        n, problems, notes = self.check({"README.md": "# Lab 99\n\nq1: how many bytes is a "
                                                      "padded row? q2: the speed-up?\n"})
        self.assertEqual((n, problems), (0, []))
        self.assertEqual(notes, {"lab99": ["q3"]})  # a letter, no cues: counted, not searched

    def test_an_answer_in_unfolded_text_fails(self) -> None:
        n, problems, _ = self.check({"README.md": "# Lab 99\n\nA padded row is 8 320 bytes.\n"})
        self.assertEqual(n, 1)
        self.assertEqual(problems, ["labs/lab99_fixture/README.md:3: q1's graded answer (8320) "
                                    "is stated in unfolded text: fold it (<details>) or let the "
                                    "student work it out"])

    def test_a_decimal_within_the_graders_tolerance_is_the_answer(self) -> None:
        n, problems, _ = self.check({"README.md": "# Lab 99\n\nIt runs 3.7× faster.\n"})
        self.assertEqual(n, 1)
        self.assertIn("q2's graded answer (3.8) is stated in unfolded text", problems[0])
        n, problems, _ = self.check({"README.md": "# Lab 99\n\nIt runs 3.5× faster.\n"})
        self.assertEqual((n, problems), (0, []))

    def test_an_answer_folded_or_in_a_comment_passes(self) -> None:
        page = ("# Lab 99\n\n<details><summary>Answer</summary>\n\nA padded row is 8320 bytes."
                "\n</details>\n\n<!-- q1 = 8320\n  q2 = 3.8 -->\n")
        n, problems, _ = self.check({"README.md": page})
        self.assertEqual((n, problems), (0, []))

    def test_every_handout_page_is_read(self) -> None:
        n, problems, _ = self.check({"README.md": "# Lab 99\n",
                                     "PART2.md": "# Part 2\n\n\nRows of 8,320 bytes.\n"})
        self.assertEqual(n, 1)
        self.assertRegex(problems[0], r"^labs/lab99_fixture/PART2\.md:4: q1's graded answer")

    def test_an_answer_in_a_stub_comment_fails_but_not_in_code_or_main(self) -> None:
        stub = "// Rows of 8320 bytes are padded.\nint x = 8320;\n"
        n, problems, _ = self.check({"README.md": "# Lab 99\n"},
                                    {"pad.cu": stub, "main.cu": "// 8320 bytes\n"})
        self.assertEqual(n, 1)
        self.assertEqual(problems, ["labs/lab99_fixture/pad.cu:1: q1's graded answer (8320) is "
                                    "stated in a comment of a file the student gets"])
        n, problems, _ = self.check({"README.md": "# Lab 99\n"}, {"pad.cu": "int x = 8320;\n"})
        self.assertEqual((n, problems), (0, []))

    def test_a_short_answer_is_found_through_its_cues(self) -> None:
        cues = {("lab99", "q3"): [r"\bchoice \(?{a}\)?"]}
        with mock.patch.dict(hc.ANSWER_CUES, cues):
            n, problems, notes = self.check({"README.md": "# Lab 99\n\nThe right one is "
                                                          "choice (b).\n"})
        self.assertEqual(n, 1)
        self.assertIn("q3's graded answer (b) is stated in unfolded text", problems[0])
        self.assertEqual(notes, {})

    def test_a_cue_inside_a_question_does_not_count(self) -> None:
        cues = {("lab99", "q3"): [r"\bchoice \(?{a}\)?"]}
        with mock.patch.dict(hc.ANSWER_CUES, cues):
            n, problems, _ = self.check({"README.md": "# Lab 99\n\n- Is it choice (b), or "
                                                      "choice (c)?\n\n3. Which: choice (a) or "
                                                      "choice (b)?\n"})
        self.assertEqual((n, problems), (0, []))
        self.assertTrue(hc.in_question("Is 3.5 ms the time? Yes.", 3))
        self.assertFalse(hc.in_question("It took 3.5 ms. Why?", 3))

    def test_an_audited_lab_needs_cues_for_its_short_answers(self) -> None:
        with mock.patch.object(hc, "AUDITED_LABS", {"lab99"}):
            _, problems, notes = self.check({"README.md": "# Lab 99\n"})
        self.assertEqual(notes, {})
        self.assertEqual(problems, ["tools/handout_check.py: lab99 q3: the answer 'b' is too "
                                    "short to find by itself; give ANSWER_CUES[('lab99', 'q3')] "
                                    "the phrases that would state it"])


MEASURED = ("<details><summary>What we measured on the reference GPU</summary>\n\n"
            "The kernel takes <!-- demo -->**12.5 ms**.\n\n</details>\n")


def check_page(check: Callable[[Path, hc.Problems], int], text: str) -> tuple[int, list[str]]:
    """What @p check counts on a page README.md of @p text and its problems (paths relative)."""
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "README.md"
        page.write_text(text)
        p = hc.Problems()
        n = check(page, p)
        return n, [x.replace(tmp + "/", "") for x in p.items]


class MeasuredFolded(unittest.TestCase):
    def check(self, text: str) -> tuple[int, list[str]]:
        return check_page(hc.check_measured_folded, text)

    def test_predict_then_the_folded_numbers_passes(self) -> None:
        for predict in ("## Predict\n\nWhich is faster?\n", "**Predict**: which is faster?\n"):
            self.assertEqual(self.check(f"# Lab 99\n\n{predict}\n{MEASURED}"), (1, []))

    def test_a_measured_number_outside_the_folded_section_fails(self) -> None:
        n, problems = self.check("# Lab 99\n\nIt took <!-- demo -->12.5 ms.\n\n## Predict\n\n"
                                 "Which is faster?\n\n" + MEASURED)
        self.assertEqual(n, 2)
        self.assertEqual(problems, ["README.md:3: a demo number outside a folded 'What we "
                                    "measured' section: the numbers come after the prediction, "
                                    "folded (<details><summary>What we measured ...)"])

    def test_a_number_under_a_predict_prompt_answers_it(self) -> None:
        for number in ("It took <!-- demo -->12.5 ms.",
                       "It ran <!-- ref lab99.Perf.Fast speedup -->**3.8×** faster."):
            n, problems = self.check("# Lab 99\n\n## Predict\n\nWhich is faster?\n\n"
                                     f"{number}\n\n" + MEASURED)
            self.assertEqual(n, 2)
            self.assertEqual(len(problems), 1, problems)
            self.assertRegex(problems[0], r"^README\.md:7: a (demo|marked) number outside a "
                                          r"folded 'What we measured' section under the Predict "
                                          r"prompt above it: it answers the prediction")
        # after the Predict section's end (a heading), the plain message
        _, problems = self.check("# Lab 99\n\n**Predict**: which is faster?\n\n## Notes\n\n"
                                 "It took <!-- demo -->12.5 ms.\n\n" + MEASURED)
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("README.md:7: a demo number outside a folded 'What we measured' section: "
                      "the numbers", problems[0])

    def test_every_kind_of_measured_item_must_be_folded(self) -> None:
        text = ("# Lab 99\n\n<!-- ref lab99.Perf speedup -->3.8×\n\n<!-- demo table -->\n"
                "| a | b |\n|---|---|\n\n![chart](../../docs/figures/perf/lab99.svg)\n\n"
                "<details><summary>Other numbers</summary>\n\n<!-- demo -->5 ms\n</details>\n")
        n, problems = self.check(text)
        self.assertEqual(n, 4)
        self.assertEqual([x.split(" outside")[0] for x in problems],
                         ["README.md:3: a marked number", "README.md:5: a demo table",
                          "README.md:9: a throughput chart", "README.md:13: a demo number"])

    def test_a_folded_section_without_a_predict_before_it_fails(self) -> None:
        n, problems = self.check(f"# Lab 99\n\n{MEASURED}\n## Predict\n\nToo late.\n")
        self.assertEqual(n, 1)
        self.assertEqual(problems, ["README.md:3: no prediction before the first 'What we "
                                    "measured' section (a '## Predict' heading or a paragraph "
                                    "opening with **Predict**)"])

    def test_every_measured_section_needs_a_prediction_of_its_own(self) -> None:
        two = f"# Lab 99\n\n## Predict\n\nWhich is faster?\n\n{MEASURED}\n## Advanced\n\n"
        n, problems = self.check(two + "**Predict**: and now?\n\n" + MEASURED)
        self.assertEqual((n, problems), (2, []))
        n, problems = self.check(two + "More text.\n\n" + MEASURED)
        self.assertEqual(n, 2)
        self.assertEqual(problems, ["README.md:17: no prediction of its own before this 'What we "
                                    "measured' section (none since the one that ends on line 11) "
                                    "(a '## Predict' heading or a paragraph opening with "
                                    "**Predict**)"])

    def test_a_measured_ratio_in_words_fails(self) -> None:
        page = "# Lab 99\n\n## Background\n\n{}\n\n## Predict\n\nWhich is faster?\n\n" + MEASURED
        for said in ("On this GPU the first is about twelve times faster.",
                     "It runs 12 times slower than the copy.",
                     "A warp down a column reaches about a tenth of it."):
            _, problems = self.check(page.format(said))
            self.assertEqual(len(problems), 1, (said, problems))
            self.assertRegex(problems[0], r"^README\.md:5: a measured ratio in words \('[^']+'\) "
                                          r"in unfolded text: it belongs in the folded 'What we "
                                          r"measured' section, after the prediction$")
        for fine in ("Will the chase run 32 times slower?",  # a question
                     "The grader needs at least ten times faster.",  # a threshold
                     "```\n// twelve times faster\n```",  # code
                     "<!-- twelve times faster -->",  # a comment
                     "<details><summary>Hint</summary>\n\nTwelve times faster.\n</details>"):
            self.assertEqual(self.check(page.format(fine)), (1, []), fine)

    def test_a_predict_in_a_comment_or_fold_does_not_count(self) -> None:
        for hidden in ("<!--\n## Predict\n-->\n",
                       "<details><summary>Hint</summary>\n\n**Predict** this.\n</details>\n"):
            _, problems = self.check(f"# Lab 99\n\n{hidden}\n{MEASURED}")
            self.assertEqual(len(problems), 1, problems)
            self.assertIn("no prediction before the first", problems[0])


class WorkOut(unittest.TestCase):
    def check(self, text: str) -> tuple[int, list[str]]:
        return check_page(hc.check_work_out, text)

    def test_a_section_of_two_or_more_bullets_passes(self) -> None:
        text = ("# Lab 99\n\n## Goal\nMultiply.\n\n## What you work out\nNot the answers.\n\n"
                "- the index map;\n- the pitch;\n* a conflict degree.\n\n## Background\n- x\n")
        self.assertEqual(self.check(text), (3, []))
        self.assertEqual(self.check(text.replace("- the pitch;\n* a conflict degree.\n", "")
                                    .replace("- the index map;", "1. the map\n2. the grid")),
                         (2, []))

    def test_a_missing_section_fails(self) -> None:
        for heading in ("## What you derive", "### What you work out", "## What you work out:"):
            n, problems = self.check(f"# Lab 99\n\n{heading}\n\n- a\n- b\n")
            self.assertEqual(n, 0)
            self.assertEqual(problems, ["README.md: no '## What you work out' section (what the "
                                        "student derives in this lab, at least 2 bullets, no "
                                        "answers)"], heading)

    def test_fewer_than_two_bullets_fail(self) -> None:
        # the next section's bullets, folded ones and code do not count
        text = ("# Lab 99\n\n## What you work out\n- the index map.\n\n<details><summary>More"
                "</summary>\n\n- folded\n</details>\n\n```\n- code\n```\n## Background\n- x\n")
        n, problems = self.check(text)
        self.assertEqual(n, 1)
        self.assertEqual(problems, ["README.md:3: '## What you work out' lists 1 item(s): name at "
                                    "least 2 things the student derives, as bullets"])


GRADING_LINK = "How the labs are graded: [the grading page](../../docs/grading.md#points).\n"


class GradingPage(unittest.TestCase):
    def check(self, pages: dict[str, str], grading: bool = True) -> list[str]:
        with tempfile.TemporaryDirectory() as tmp, as_root(tmp):
            (Path(tmp) / "docs").mkdir()
            if grading:
                (Path(tmp) / "docs" / "grading.md").write_text("# Grading\n")
            paths = []
            for name, text in pages.items():
                path = Path(tmp) / "labs" / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
                paths.append(path)
            p = hc.Problems()
            hc.check_grading_page(paths, p)
            return p.items

    def test_lab_pages_that_link_the_grading_page_pass(self) -> None:
        self.assertEqual(self.check({"lab98_a/README.md": "# Lab 98\n\n" + GRADING_LINK,
                                     "lab99_b/README.md": "# Lab 99\n\n" + GRADING_LINK}), [])

    def test_a_lab_page_without_the_link_fails(self) -> None:
        problems = self.check({"lab98_a/README.md": "# Lab 98\n\n" + GRADING_LINK,
                               "lab99_b/README.md": "# Lab 99\n\nSee [grading](grading.md).\n"})
        self.assertEqual(problems, ["labs/lab99_b/README.md: no link to docs/grading.md (how the "
                                    "labs are graded)"])

    def test_without_the_grading_page_fails(self) -> None:
        problems = self.check({"lab99_b/README.md": "# Lab 99\n\n" + GRADING_LINK}, grading=False)
        self.assertEqual(problems, ["docs/grading.md: missing: the one page on how the labs are "
                                    "graded"])

    def test_grading_mechanics_stated_on_a_lab_page_fail(self) -> None:
        problems = self.check({"lab99_b/README.md": "# Lab 99\n\n" + GRADING_LINK + "\nThe bars "
                               "shown are those of the reference GPU.\n"})
        self.assertEqual(problems, ["labs/lab99_b/README.md:5: grading mechanics repeated: they "
                                    "are stated on docs/grading.md, link there"])

    def test_a_long_paragraph_on_two_pages_fails(self) -> None:
        para = " ".join(f"word{i}" for i in range(30)) + ".\n"
        problems = self.check({"lab98_a/README.md": "# Lab 98\n\n" + GRADING_LINK + "\n" + para,
                               "lab99_b/README.md": "# Lab 99\n\n" + para + "\n" + GRADING_LINK})
        self.assertEqual(problems, ["labs/lab99_b/README.md:3: the same paragraph as "
                                    "labs/lab98_a/README.md:5: put it on one page and link to "
                                    "it"])
        short = "A short paragraph said twice.\n"
        self.assertEqual(self.check({"lab98_a/README.md": GRADING_LINK + short,
                                     "lab99_b/README.md": GRADING_LINK + short}), [])


LDS = ("<!-- lds128 table -->\n| lane l reads `float4` | distinct `float4` | wavefronts |\n"
       "|---|--:|--:|\n| 0 (every lane the same) | 1 | 2 |\n| l / 8 | 4 | 2 |\n"
       "| l % 8 | 8 | {w} |\n")


class Lds128Tables(unittest.TestCase):
    def check(self, reference: str | None, handout: str) -> tuple[int, list[str]]:
        with tempfile.TemporaryDirectory() as tmp, as_root(tmp):
            (Path(tmp) / "docs").mkdir()
            ref = Path(tmp) / "docs" / "reference-run.md"
            if reference is not None:
                ref.write_text("# Reference run\n\n" + reference)
            page = Path(tmp) / "labs" / "lab99_fixture" / "README.md"
            page.parent.mkdir(parents=True)
            page.write_text("# Lab 99\n\n" + handout)
            other = page.with_name("NOTES.md")
            other.write_text("# No table here\n")
            p = hc.Problems()
            n = hc.check_lds128([page, other] + ([ref] if reference is not None else []), p)
            return n, p.items

    def test_lds128_rows_reads_the_marked_table(self) -> None:
        self.assertEqual(hc.lds128_rows("text\n\n" + LDS.format(w=4)),
                         [("0", "1", "2"), ("l / 8", "4", "2"), ("l % 8", "8", "4")])
        self.assertIsNone(hc.lds128_rows("| a | b | c |\n|---|---|---|\n| 1 | 2 | 3 |\n"))

    def test_a_handout_table_equal_to_the_reference_passes(self) -> None:
        # the pattern's parenthesis is a gloss: it may differ
        handout = LDS.format(w=4).replace("(every lane the same)", "(a broadcast)")
        self.assertEqual(self.check(LDS.format(w=4), handout), (1, []))

    def test_a_handout_table_that_differs_fails(self) -> None:
        n, problems = self.check(LDS.format(w=4), LDS.format(w=2))
        self.assertEqual(n, 1)
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("labs/lab99_fixture/README.md: the LDS.128 wavefront table differs from the "
                      "measurement in docs/reference-run.md: ", problems[0])
        self.assertIn("('l % 8', '8', '2')] against [", problems[0])
        self.assertIn("('l % 8', '8', '4')]", problems[0])

    def test_a_handout_table_without_a_reference_fails(self) -> None:
        self.assertEqual(self.check(None, LDS.format(w=4)),
                         (1, ["docs/reference-run.md: no '<!-- lds128 table -->' measurement, "
                              "which labs/lab99_fixture/README.md quotes"]))


class StubBudgets(unittest.TestCase):
    def check(self, counts: list[int], budgets: list[int | None]) -> tuple[int, list[str]]:
        with tempfile.TemporaryDirectory() as tmp, as_root(tmp):
            lab = Lab(tmp, {"a.cu": counts}, {"README.md": "# Lab 99\n"},
                      budgets={"a.cu": budgets})
            p = hc.Problems()
            return hc.check_stub_budgets(lab.dir, p), p.items

    def test_budgets_within_ten_percent_pass(self) -> None:
        # 20 lines: 18 to 22; 5 lines: one line either way; a region without a budget is skipped
        self.assertEqual(self.check([20, 20, 5, 5, 7], [18, 22, 4, 6, None]), (4, []))

    def test_a_budget_off_by_more_fails_naming_the_stub_region(self) -> None:
        n, problems = self.check([20, 5], [23, 5])
        self.assertEqual(n, 2)
        self.assertEqual(problems, ["labs/lab99_fixture/a.cu:2: 'Roughly 23 lines' in the "
                                    "TODO(lab99) region, but the reference solution has 20 lines "
                                    "of code there (within 10 %: 18 to 22)"])
        _, problems = self.check([20, 5], [20, 3])
        self.assertEqual(len(problems), 1, problems)
        self.assertRegex(problems[0], r"^labs/lab99_fixture/a\.cu:5: 'Roughly 3 lines' .* has 5 "
                                      r"lines of code")

    def test_a_range_passes_when_the_count_is_near_it(self) -> None:
        with tempfile.TemporaryDirectory() as tmp, as_root(tmp):
            lab = Lab(tmp, {"a.cu": [30]}, {"README.md": "# Lab 99\n"})
            for path in (lab.dir / "a.cu", lab.solutions / lab.dir.name / "a.cu"):
                path.write_text(path.read_text().replace("do it.", "do it. Roughly 25-27 lines."))
            p = hc.Problems()
            self.assertEqual((hc.check_stub_budgets(lab.dir, p), p.items), (1, []))
            for path in (lab.dir / "a.cu", lab.solutions / lab.dir.name / "a.cu"):
                path.write_text(path.read_text().replace("25-27", "20-26"))
            hc.check_stub_budgets(lab.dir, p)
            self.assertEqual(len(p.items), 1, p.items)
            self.assertIn("'Roughly 20-26 lines'", p.items[0])

    def test_without_solutions_nothing_is_checked(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            lab = Lab(tmp, {"a.cu": [20]}, {"README.md": "# Lab 99\n"}, budgets={"a.cu": [50]})
            with mock.patch.object(hc, "ROOT", Path(tmp) / "elsewhere"):
                p = hc.Problems()
                self.assertEqual(hc.check_stub_budgets(lab.dir, p), 0)
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
