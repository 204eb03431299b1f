# SPDX-License-Identifier: BSD-3-Clause
"""tools/readme_counts.py: every test count README.md states matches the tests the build tree
lists (ctest --show-only=json-v1), for the configuration the count names.

The fixture cases need no build tree; ReadmeOfThisTree checks the real README against the tree
this test runs in (CUDALAB_BUILD_DIR, set by tests/tools/CMakeLists.txt) and is skipped
without one."""
import os
import unittest
from pathlib import Path

SOURCE = Path(os.environ.get("CUDALAB_SOURCE_DIR", Path(__file__).resolve().parents[2]))
from tools import readme_counts  # noqa: E402

PRESETS = {
    "configurePresets": [
        {"name": "base", "hidden": True, "binaryDir": "${sourceDir}/build/${presetName}"},
        {"name": "solution", "inherits": "base", "cacheVariables": {"CUDALAB_IMPL": "solution"}},
        {"name": "sanitize", "inherits": "solution"},
    ],
    "testPresets": [
        {"name": "solution", "configurePreset": "solution"},
        {"name": "sanitize", "configurePreset": "sanitize",
         "filter": {"include": {"label": "sanitizer|profiler"}}},
    ],
}
DEFAULTS = {"CUDALAB_WRONG": "OFF", "CUDALAB_BATCH_SUITES": "ON", "CUDALAB_BATCH_PERF": "OFF",
            "CUDALAB_WARNINGS_AS_ERRORS": "OFF"}
TESTS = {
    "lab01.AddCpu.a": ["lab01", "cpu"],
    "lab01.AddGpu.b": ["lab01", "gpu"],
    "lab01.AddSanitizer.c": ["lab01", "gpu", "sanitizer"],
    "lab01.AddPerf.d": ["lab01", "gpu", "perf"],
    "wrong.lab01.v": ["wrong", "lab01", "cpu"],
    "right.lab01.w": ["right", "lab01", "gpu"],
}
CI_CACHE = {"CUDALAB_WRONG": "ON", "CUDALAB_BATCH_SUITES": "ON", "CUDALAB_BATCH_PERF": "OFF",
            "CUDALAB_WARNINGS_AS_ERRORS": "ON", "CUDALAB_IMPL": "solution"}


def results(text, cache=None, tests=None):
    counts, problems = readme_counts.read_counts(text)
    res = [readme_counts.expected(c, tests or TESTS, cache or CI_CACHE, PRESETS, DEFAULTS)
           for c in counts]
    return res, problems


class ReadsCounts(unittest.TestCase):
    def test_tagged_counts_and_code_left_out(self):
        text = ("Intro.\n\nThe `solution` preset has 4 tests<!-- tests: preset=solution -->; "
                "with `-DCUDALAB_WRONG=ON` 6<!-- tests: preset=solution variants=on -->.\n\n"
                "```sh\nctest  # 100% tests passed, 0 tests failed out of 40\n```\n"
                "A skip looks like `0 tests failed out of 40`.\n")
        counts, problems = readme_counts.read_counts(text)
        self.assertEqual(problems, [])
        self.assertEqual([(c.number, c.spec["variants"]) for c in counts], [(4, "off"), (6, "on")])

    def test_an_untagged_count_is_a_problem_naming_its_sentence(self):
        text = "First.\n\nThe whole suite (1073 tests) ran. Next.\n"
        _, problems = readme_counts.read_counts(text)
        self.assertEqual(len(problems), 1)
        self.assertIn("1073", problems[0])
        self.assertIn("The whole suite (1073 tests) ran.", problems[0])

    def test_a_tag_without_preset_is_a_problem(self):
        _, problems = readme_counts.read_counts("It has 3 tests<!-- tests: variants=on -->.\n")
        self.assertTrue(problems and "preset" in problems[0], problems)


class ComparesWithTheTree(unittest.TestCase):
    def test_right_counts_pass_in_a_tree_with_variants(self):
        res, problems = results("The `solution` preset: 4 tests<!-- tests: preset=solution -->. "
                                "With -DCUDALAB_WRONG=ON the `solution` preset has 6 tests"
                                "<!-- tests: preset=solution variants=on -->.\n")
        self.assertEqual(problems, [])
        self.assertEqual([(r.expected, r.problem, r.unchecked) for r in res],
                         [(4, None, None), (6, None, None)])

    def test_a_wrong_count_fails_naming_both_numbers_and_the_sentence(self):
        res, _ = results("Intro. The `solution` preset has 5 tests<!-- tests: preset=solution -->.")
        self.assertEqual(res[0].expected, 4)
        self.assertIn("5", res[0].problem)
        self.assertIn("4", res[0].problem)
        self.assertIn("The `solution` preset has 5 tests.", res[0].problem)

    def test_the_test_presets_filter_applies(self):
        res, _ = results("The `sanitize` preset runs 1 test<!-- tests: preset=sanitize -->.")
        self.assertEqual((res[0].expected, res[0].problem), (1, None))

    def test_label_and_name_selections(self):
        res, _ = results("The `solution` preset has 3 gpu tests"
                         "<!-- tests: preset=solution label=^gpu$ -->, 1 perf test"
                         "<!-- tests: preset=solution name=Perf -->.")
        self.assertEqual([(r.expected, r.problem) for r in res], [(3, None), (1, None)])

    def test_the_sentence_must_name_its_configuration(self):
        res, _ = results("The suite has 4 tests<!-- tests: preset=solution -->.")
        self.assertIn("does not name the preset", res[0].problem)
        res, _ = results("The `solution` preset has 6 tests with variants"
                         "<!-- tests: preset=solution variants=on -->.")
        self.assertIn("CUDALAB_WRONG=ON", res[0].problem)

    def test_a_tree_that_cannot_tell_leaves_the_count_unchecked(self):
        plain = dict(CI_CACHE, CUDALAB_WRONG="OFF")
        tests = {k: v for k, v in TESTS.items() if not k.startswith(("wrong.", "right."))}
        res, _ = results("With -DCUDALAB_WRONG=ON the `solution` preset has 9 tests"
                         "<!-- tests: preset=solution variants=on -->.", plain, tests)
        self.assertIsNone(res[0].problem)
        self.assertIn("CUDALAB_WRONG=OFF", res[0].unchecked)
        batched = dict(CI_CACHE, CUDALAB_BATCH_PERF="ON")
        res, _ = results("The `solution` preset has 9 tests<!-- tests: preset=solution -->.",
                         batched)
        self.assertIsNone(res[0].problem)
        self.assertIn("CUDALAB_BATCH_PERF", res[0].unchecked)


@unittest.skipUnless(os.environ.get("CUDALAB_BUILD_DIR"), "no build tree (CUDALAB_BUILD_DIR)")
class ReadmeOfThisTree(unittest.TestCase):
    def test_every_count_the_readme_states(self):
        build = Path(os.environ["CUDALAB_BUILD_DIR"])
        ctest = os.environ.get("CUDALAB_CTEST", "ctest")
        res, problems = readme_counts.check(SOURCE / "README.md", build, SOURCE, ctest)
        bad = problems + [f"README.md:{r.count.line}: {r.problem}" for r in res if r.problem]
        for r in res:
            state = r.unchecked and f"not checked ({r.unchecked})" or "as the tree lists"
            print(f"README.md:{r.count.line}: {r.count.number} tests, preset "
                  f"{r.count.spec['preset']}, variants {r.count.spec['variants']}: {state}")
        self.assertEqual(bad, [], "\n".join(bad))
        self.assertTrue(any(r.expected is not None for r in res),
                        f"no README count could be checked in {build}")


if __name__ == "__main__":
    unittest.main()
