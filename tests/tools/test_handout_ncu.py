#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Tests of tools/handout_ncu.py (the handouts' ncu commands, run on a GPU) without a GPU: no
ncu gives exit 77; a stand-in ncu ($CUDALAB_NCU) reports an unknown metric, no kernels, a
profiled launch or hangs, and every command still gets its output file and summary row."""

from __future__ import annotations

import contextlib
import io
import os
import stat
import tempfile
import unittest
from pathlib import Path


from tools import handout_ncu

# A stand-in for ncu: what it prints depends on the command line.
FAKE_NCU = """#!/bin/sh
case "$*" in
  *lab13_sgemm*) echo "==ERROR== Failed to find metric lts__t_sector_hit_rate.pct"; exit 1 ;;
  *lab10_layout*) echo "==WARNING== No kernels were profiled."; exit 0 ;;
  *lab14_binary_mma*) sleep 30 ;;
  *) echo "  k(float *) (1, 1, 1)x(32, 1, 1), Context 1, Stream 7, Device 0, CC 9.0"; exit 0 ;;
esac
"""


class HandoutNcu(unittest.TestCase):
    def run_tool(self, *argv: str, ncu: str | None) -> tuple[int, str]:
        old = os.environ.get("CUDALAB_NCU")
        os.environ["CUDALAB_NCU"] = ncu if ncu is not None else "/nonexistent/ncu"
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
                rc = handout_ncu.main(list(argv))
        finally:
            if old is None:
                del os.environ["CUDALAB_NCU"]
            else:
                os.environ["CUDALAB_NCU"] = old
        return rc, out.getvalue()

    def test_without_ncu_exits_77_with_one_line(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            rc, out = self.run_tool("--build-dir", tmp, "--out", f"{tmp}/out", ncu=None)
            self.assertEqual(rc, 77)
            self.assertEqual(len(out.strip().splitlines()), 1, out)
            self.assertFalse(Path(f"{tmp}/out").exists())

    def test_list_rewrites_the_student_tree(self) -> None:
        rc, out = self.run_tool("--list", "--build-dir", "/tmp/tree", ncu=None)
        self.assertEqual(rc, 0)
        lines = out.strip().splitlines()
        self.assertGreater(len(lines), 0)
        for line in lines:
            self.assertIn(": ncu ", line)
            self.assertNotIn("build/student/", line)
            self.assertIn("/tmp/tree/labs/lab", line)

    def test_every_command_runs_and_is_reported(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            ncu = Path(tmp) / "ncu"
            ncu.write_text(FAKE_NCU)
            ncu.chmod(ncu.stat().st_mode | stat.S_IXUSR)
            tree = Path(tmp) / "tree"
            commands = handout_ncu.ncu_commands(handout_ncu.parse_labs("10-14"))
            for c in commands:  # every program the commands name "is built"
                for prog in handout_ncu.programs(handout_ncu.rewrite(c.text, tree)):
                    Path(prog).parent.mkdir(parents=True, exist_ok=True)
                    Path(prog).touch()
            rc, out = self.run_tool("--build-dir", str(tree), "--out", f"{tmp}/out",
                                    "--timeout", "2", ncu=str(ncu))
            self.assertEqual(rc, 1, out)
            files = sorted(p.name for p in Path(f"{tmp}/out").glob("lab*.txt"))
            self.assertEqual(len(files), len(commands), out)
            summary = Path(f"{tmp}/out/summary.md").read_text()
            self.assertIn("unknown metric: ==ERROR== Failed to find metric", summary)
            self.assertIn("no kernels profiled", summary)
            self.assertIn("timed out after 2 s", summary)
            self.assertIn("| exit 0 | 1 | — |", summary)


if __name__ == "__main__":
    unittest.main()
