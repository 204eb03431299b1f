#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tools/ci/check_links.py's check of tools/ paths in Markdown: a student release ships only
some tools, so its README and docs may name only those (tools/export_student_release.sh runs
the check on the release after removing the instructor-only passages). Works on a small tree
in a temporary folder (not a git checkout: every file is read)."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(os.environ.get("CUDALAB_SOURCE_DIR", Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(ROOT / "tools" / "ci"))
import check_links  # noqa: E402


class ToolPaths(unittest.TestCase):
    def setUp(self):
        self.root = Path(tempfile.mkdtemp(prefix="cudalab-links-"))
        self.addCleanup(shutil.rmtree, self.root, ignore_errors=True)
        check_links._TREE.clear()
        (self.root / "tools" / "release").mkdir(parents=True)
        (self.root / "tools" / "scoreboard.py").write_text("")
        (self.root / "docs").mkdir()

    def check(self, text: str, name: str = "README.md") -> list[str]:
        (self.root / name).write_text(text)
        check_links._TREE.clear()
        return check_links.missing_tool_paths(self.root)

    def test_a_tool_the_tree_lacks_is_named(self):
        problems = self.check("Scores: `python3 tools/scoreboard.py`.\n\n"
                              "Calibrate with `python3 tools/calibrate.py --build-dir B`.\n")
        self.assertEqual(problems, ["README.md:3: names tools/calibrate.py, which is not in "
                                    "this tree"])

    def test_fenced_commands_and_docs_count(self):
        problems = self.check("```sh\npython3 tools/stub_audit.py\n```\n", "docs/x.md")
        self.assertEqual(problems, ["docs/x.md:2: names tools/stub_audit.py, which is not in "
                                    "this tree"])

    def test_folders_placeholders_and_generated_files_pass(self):
        self.assertEqual(self.check("the grading helpers in tools/release/, "
                                    "tools/release/points.json (written by --verify), "
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

    def test_this_checkout_names_only_tools_it_has(self):
        check_links._TREE.clear()
        self.assertEqual(check_links.missing_tool_paths(ROOT), [])


if __name__ == "__main__":
    unittest.main()
