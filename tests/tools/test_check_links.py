#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tools/ci/check_links.py's check of tools/ paths: a student release ships only some tools, so
its README, docs, workflow, scripts (and their help texts), CMake files and sources may name
only those (tools/export_student_release.sh runs the check on the release after removing the
instructor-only passages). Works on a small tree in a temporary folder (not a git checkout:
every file is read), and on a real export of this checkout."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

ROOT = Path(os.environ.get("CUDALAB_SOURCE_DIR", Path(__file__).resolve().parents[2]))
from tools.ci import check_links  # noqa: E402


class ToolPaths(unittest.TestCase):
    def setUp(self):
        self.root = Path(tempfile.mkdtemp(prefix="cudalab-links-"))
        self.addCleanup(shutil.rmtree, self.root, ignore_errors=True)
        check_links._TREE.clear()
        (self.root / "tools" / "release").mkdir(parents=True)
        (self.root / "tools" / "scoreboard.py").write_text("")
        (self.root / "tools" / "grading_manifest.py").write_text("")
        (self.root / "docs").mkdir()

    def check(self, text: str, name: str = "README.md") -> list[str]:
        (self.root / name).write_text(text)
        check_links._TREE.clear()
        return check_links.missing_tool_paths(self.root)

    def test_a_tool_the_tree_lacks_is_named(self):
        problems = self.check("Scores: `python3 -m tools.scoreboard`.\n\n"
                              "Calibrate with `python3 -m tools.calibrate --build-dir B`.\n")
        self.assertEqual(problems, ["README.md:3: names tools/calibrate.py, which is not in "
                                    "this tree"])

    def test_paths_and_module_names_alike(self):
        py = "python3"  # (the script form, which `git grep` must not find as a command)
        problems = self.check(f"Scores: `{py} tools/scoreboard.py`, `tools.scoreboard.main()`.\n"
                              f"Calibrate with `{py} tools/calibrate.py --build-dir B`.\n"
                              "Grade with tools.release.autograde or `import tools.release`.\n"
                              "<cudalab/tools.hpp>, tools.json and `python3 -m tools.<name>`\n")
        self.assertEqual(problems, [
            "README.md:2: names tools/calibrate.py, which is not in this tree",
            "README.md:3: names tools/release/autograde.py, which is not in this tree"])

    def test_fenced_commands_and_docs_count(self):
        problems = self.check("```sh\npython3 -m tools.stub_audit\n```\n", "docs/x.md")
        self.assertEqual(problems, ["docs/x.md:2: names tools/stub_audit.py, which is not in "
                                    "this tree"])

    def test_folders_and_placeholders_pass(self):
        self.assertEqual(self.check("the grading helpers in tools/release/, "
                                    "tools/${name}.py, tools/<tool>, and tools/scoreboard.py.\n"),
                         [])

    def test_the_command_line_fails_on_a_missing_tool(self):
        (self.root / "README.md").write_text("`tools/gpu_validate.sh`\n")
        check_links._TREE.clear()
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = check_links.main([str(self.root), "--quiet"])
        self.assertEqual(code, 1, out.getvalue())
        self.assertIn("names tools/gpu_validate.sh", out.getvalue())

    def test_workflows_scripts_and_sources_count(self):
        # Outside Markdown too: a workflow template, a script's help text, a CMake comment, a
        # header's comment, a data file's header and a script with no suffix.
        (self.root / ".github" / "workflows").mkdir(parents=True)
        (self.root / "tests" / "calibration").mkdir(parents=True)
        (self.root / ".ci").mkdir()
        texts = {
            ".github/workflows/grade.yml": "# installed by tools/export_student_release.sh\n",
            "tools/release/lab_points.py": '"""Points (tools/release/regrade.sh)."""\n',
            "CMakeLists.txt": "# bars (tools/calibrate.py)\n",
            "docs/filter.awk": "# as tools/export_student_release.sh removes them\n",
            "common.hpp": "/** read by tools/calibrate.py */\n",
            "tests/calibration/gpu.tsv": "# cudalabs calibration v1 (tools/calibrate.py)\n",
            ".ci/run": "python3 tools/ci_checks.sh\n",
            "tools/scoreboard.py": "# reads tools/grading_manifest.py\n",
        }
        for name, text in texts.items():
            (self.root / name).write_text(text)
        check_links._TREE.clear()
        problems = check_links.missing_tool_paths(self.root)
        self.assertEqual(sorted(problems), sorted([
            ".github/workflows/grade.yml:1: names tools/export_student_release.sh, which is "
            "not in this tree",
            "tools/release/lab_points.py:1: names tools/release/regrade.sh, which is not in "
            "this tree",
            "CMakeLists.txt:1: names tools/calibrate.py, which is not in this tree",
            "docs/filter.awk:1: names tools/export_student_release.sh, which is not in this "
            "tree",
            "common.hpp:1: names tools/calibrate.py, which is not in this tree",
            "tests/calibration/gpu.tsv:1: names tools/calibrate.py, which is not in this tree",
            ".ci/run:1: names tools/ci_checks.sh, which is not in this tree",
        ]))

    def test_the_student_release_names_only_tools_it_ships(self):
        # The export itself runs the check (and fails); here its result is read again, so
        # that a failure lists every offender of the release.
        if not (ROOT / ".git").exists():
            self.skipTest("not a git checkout: the export reads the files git tracks")
        dest = self.root / "release"
        run = subprocess.run(["bash", str(ROOT / "tools" / "export_student_release.sh"),
                              str(dest)], capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        check_links._TREE.clear()
        self.assertEqual(check_links.missing_tool_paths(dest), [])
        shipped = {p.relative_to(dest).as_posix() for p in (dest / "tools").rglob("*")}
        for instructor_only in ("tools/release/regrade.py", "tools/calibrate.py",
                                "tools/classroom", "tools/runner"):
            self.assertNotIn(instructor_only, shipped)
        for p in ("tests/contracts.json", ".github/actionlint.yaml"):
            self.assertFalse((dest / p).exists(), p)

    def test_this_checkout_names_only_tools_it_has(self):
        check_links._TREE.clear()
        self.assertEqual(check_links.missing_tool_paths(ROOT), [])


if __name__ == "__main__":
    unittest.main()
