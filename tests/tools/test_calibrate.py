#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Tests of tools/calibrate.py on fixture `ctest -V` logs: the bars it writes (0.7 x the
lowest run, 1.3 x the highest for an upper bar, a fixed bar of the reference GPU's file kept
with its note), the file's format (as cudalab/calibration.hpp parses it), a new GPU model's
own file beside the course's, the reference file's notes kept when it is rewritten, the tiers
carried over (the reference's fixed tiers with their notes, a rewritten file's own), and its
refusals (a bar missing from a run, runs on different GPUs, records that name another test)."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import tempfile
import unittest
from pathlib import Path

TOOLS = Path(__file__).resolve().parents[2] / "tools"
from tools import calibrate  # noqa: E402
from tools import reference_ratios

H100 = "NVIDIA H100 80GB HBM3"
REFERENCE = TOOLS.parent / "tests" / "calibration" / "nvidia-h200.tsv"
FIXED_BARS = reference_ratios.fixed_bars()  # the reference GPU's file's fixed bars
FIXED = next(iter(FIXED_BARS))  # (test, measurement) of a fixed bar


def bar(test: str, name: str, value: float, reference: float, bound: str = "min",
        gpu: str = H100) -> dict:
    return {"type": "bar", "test": test, "name": name, "bound": bound, "value": value,
            "bar": reference, "reference": reference, "source": "reference",
            "calibration": "tests/calibration/nvidia-h200.tsv", "calibration_gpu": "NVIDIA H200",
            "gpu": gpu, "note": None}


def log(tests: dict[str, list[dict]], status: str = "Passed") -> str:
    """A `ctest -V` console log: each test prints its records, prefixed by its number."""
    lines = []
    for i, (name, records) in enumerate(tests.items(), start=1):
        lines += [f"    Start {i}: {name}", "", f"{i}: Test command: /bin/grader"]
        lines += [f"{i}: [ CUDALAB-RECORD ] " + json.dumps(r) for r in records]
        lines.append(f"{i}/{len(tests)} Test #{i}: {name} .......   {status}    1.00 sec")
    return "\n".join(lines) + "\n"


def run_values(speedup: float, upper: float, share: float, gpu: str = H100) -> str:
    return log({
        "lab04.TiledPerf.StaticTilesBeatNaive": [bar("lab04.TiledPerf.StaticTilesBeatNaive",
                                                     "speedup", speedup, 1.1, gpu=gpu)],
        "lab10.LayoutPerf.AllFieldsBand": [
            bar("lab10.LayoutPerf.AllFieldsBand", "speedup", 1.0, 0.7, gpu=gpu),
            bar("lab10.LayoutPerf.AllFieldsBand", "speedup_upper_bound", upper, 1.6, "max",
                gpu=gpu)],
        FIXED[0]: [bar(FIXED[0], FIXED[1], share, 0.85, gpu=gpu)],
    })


class Calibrate(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="cudalab-calibrate-"))
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        self.out = self.tmp / "calibration"

    def logs(self, *texts: str) -> list[str]:
        paths = []
        for i, text in enumerate(texts):
            p = self.tmp / f"run{i}.log"
            p.write_text(text)
            paths.append(str(p))
        return paths

    def main(self, *args: str) -> tuple[int, str]:
        err, out = io.StringIO(), io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            code = calibrate.main(list(args) + ["--out-dir", str(self.out)])
        return code, out.getvalue() + err.getvalue()

    def bars(self, path: Path) -> dict[tuple[str, str], list[str]]:
        out = {}
        for line in path.read_text().splitlines():
            f = line.split("\t")
            if f[0] == "bar":
                out[(f[1], f[2])] = f[3:]
        return out

    def notes(self, path: Path) -> dict[tuple[str, str], str]:
        """The bars' notes (a tier's note follows its tier line: tiers())."""
        lines = [line.split("\t") for line in path.read_text().splitlines()]
        for before, f in zip(lines, lines[1:]):
            if f[0] == "note":  # right after its bar or tier line
                self.assertIn(before[0], {"bar", "tier"}, f"{path.name}: {f}")
                self.assertEqual(before[1:3], [f[1], f[2]], f"{path.name}: {f}")
        return {(f[1], f[2]): f[3] for before, f in zip(lines, lines[1:])
                if f[0] == "note" and before[0] == "bar"}

    def tiers(self, path: Path) -> dict[tuple[str, str, str], tuple[str, str, str]]:
        """(test, measurement, tier name) -> (value, rule, note) of each tier line."""
        lines = [line.split("\t") for line in path.read_text().splitlines()] + [[""]]
        return {(f[1], f[2], f[3]): (f[4], f[5], after[3] if after[0] == "note" else "")
                for f, after in zip(lines, lines[1:]) if f[0] == "tier"}

    def test_writes_the_rule_for_each_bar(self):
        code, text = self.main("--from-logs", *self.logs(run_values(1.61, 1.10, 0.95),
                                                         run_values(1.60, 1.20, 0.97),
                                                         run_values(1.62, 1.15, 0.96)))
        self.assertEqual(code, 0, text)
        path = self.out / "nvidia-h100-80gb-hbm3.tsv"
        lines = path.read_text().splitlines()
        self.assertIn(f"gpu\t{H100}", lines)
        self.assertIn("reference\tno", lines)
        self.assertIn("runs\t3", lines)
        bars = self.bars(path)
        # 0.7 x 1.60 = 1.12 -> 1.1; 1.3 x 1.20 = 1.56 -> 1.6; a fixed bar stays the grader's.
        self.assertEqual(bars[("lab04.TiledPerf.StaticTilesBeatNaive", "speedup")][:3],
                         ["min", "1.1", "measured"])
        self.assertEqual(bars[("lab10.LayoutPerf.AllFieldsBand", "speedup_upper_bound")][:3],
                         ["max", "1.6", "measured"])
        self.assertEqual(bars[("lab10.LayoutPerf.AllFieldsBand", "speedup")][:3],
                         ["min", "0.7", "measured"])
        # The fixed bar and its note come from the reference GPU's file, not from the runs.
        want = reference_ratios.read_calibration(REFERENCE)["bars"][FIXED]
        self.assertEqual(bars[FIXED][:3], ["min", calibrate._num(want["bar"]), "fixed"])
        self.assertEqual(self.notes(path), {FIXED: FIXED_BARS[FIXED]})
        self.assertEqual(bars[("lab04.TiledPerf.StaticTilesBeatNaive", "speedup")][3:],
                         ["1.61", "1.6", "1.62"])
        # The reference GPU's tiers (all fixed), with their notes, though no run judged them.
        self.assertEqual(self.tiers(path), self.tiers(REFERENCE))
        self.assertTrue(self.tiers(path))
        self.assertEqual(reference_ratios.read_calibration(path)["tiers"],
                         reference_ratios.read_calibration(REFERENCE)["tiers"])

    def test_bars_follow_a_slower_gpu(self):
        code, text = self.main("--from-logs", *self.logs(run_values(1.3, 1.1, 0.9),
                                                         run_values(1.31, 1.1, 0.9)))
        self.assertEqual(code, 0, text)
        bars = self.bars(self.out / "nvidia-h100-80gb-hbm3.tsv")
        self.assertEqual(bars[("lab04.TiledPerf.StaticTilesBeatNaive", "speedup")][1], "0.91")
        self.assertIn("differ from the reference GPU's bars", text)
        # lab10.LayoutPerf is no test of the course: no reference bar, reported as new.
        self.assertIn("bar(s) the reference GPU's file lacks", text)

    def test_reference_flag_is_kept(self):
        self.out.mkdir()
        (self.out / "nvidia-h100-80gb-hbm3.tsv").write_text(f"gpu\t{H100}\nreference\tyes\n")
        code, text = self.main("--from-logs", *self.logs(run_values(1.6, 1.1, 0.9)))
        self.assertEqual(code, 0, text)
        self.assertIn("reference\tyes",
                      (self.out / "nvidia-h100-80gb-hbm3.tsv").read_text().splitlines())

    def test_rewriting_the_reference_keeps_its_notes_and_unjudged_bars(self):
        self.out.mkdir()
        path = self.out / "nvidia-h100-80gb-hbm3.tsv"
        path.write_text(f"gpu\t{H100}\nreference\tyes\n"
                        "bar\tlab04.TiledPerf.StaticTilesBeatNaive\tspeedup\tmin\t1\tmeasured\t1.5\n"
                        "note\tlab04.TiledPerf.StaticTilesBeatNaive\tspeedup\tstatic over naive\n"
                        f"bar\t{FIXED[0]}\t{FIXED[1]}\tmin\t0.5\tfixed\n"
                        f"note\t{FIXED[0]}\t{FIXED[1]}\tthe goal\n"
                        "bar\tlab14.PersistentPerf.X\tm\tmin\t9.5\tmeasured\n"
                        "note\tlab14.PersistentPerf.X\tm\tnot judged here\n")
        code, text = self.main("--from-logs", *self.logs(run_values(1.6, 1.1, 0.9)))
        self.assertEqual(code, 0, text)
        bars = self.bars(path)
        self.assertEqual(bars[("lab04.TiledPerf.StaticTilesBeatNaive", "speedup")][:3],
                         ["min", "1.1", "measured"])
        self.assertEqual(bars[FIXED][:3], ["min", "0.5", "fixed"])
        self.assertEqual(bars[("lab14.PersistentPerf.X", "m")], ["min", "9.5", "measured"])
        self.assertEqual(self.notes(path)[("lab04.TiledPerf.StaticTilesBeatNaive", "speedup")],
                         "static over naive")
        self.assertEqual(self.notes(path)[FIXED], "the goal")
        self.assertIn("kept lab14.PersistentPerf.X m", text)

    def test_rewriting_a_file_carries_its_tiers_over(self):
        """A tier is set by the course, never by the runs: the reference's fixed tiers are
        copied (a file's own value of one yields to them, as a fixed bar's does), a tier of
        the file's own stays with its note, and a tier of a test this run never judged stays
        (after the bars); the reference file rewritten keeps all of its tiers."""
        self.out.mkdir()
        path = self.out / "nvidia-h100-80gb-hbm3.tsv"
        stream_k = ("lab13.StreamKPerf.ShareOfCublas", "speedup")
        path.write_text(f"gpu\t{H100}\nreference\tno\n"
                        f"tier\t{stream_k[0]}\t{stream_k[1]}\tgood\t0.5\tfixed\n"
                        f"note\t{stream_k[0]}\t{stream_k[1]}\tan old value\n"
                        "tier\tlab04.TiledPerf.StaticTilesBeatNaive\tspeedup\tgreat\t2\tmeasured\n"
                        "note\tlab04.TiledPerf.StaticTilesBeatNaive\tspeedup\tthis GPU's runs\n")
        code, text = self.main("--from-logs", *self.logs(run_values(1.6, 1.1, 0.9)))
        self.assertEqual(code, 0, text)
        tiers = self.tiers(path)
        self.assertEqual(tiers[("lab04.TiledPerf.StaticTilesBeatNaive", "speedup", "great")],
                         ("2", "measured", "this GPU's runs"))
        self.assertEqual(tiers[(*stream_k, "good")], self.tiers(REFERENCE)[(*stream_k, "good")])
        lab04 = "lab04.TiledPerf.StaticTilesBeatNaive"
        self.assertEqual({k: v for k, v in tiers.items() if k[0] != lab04},
                         self.tiers(REFERENCE))
        lines = path.read_text().splitlines()
        # The lab04 tier right after its bar and the bar's note; stream-K's (no bar) at the end.
        at = lines.index(next(x for x in lines if x.startswith(f"bar\t{lab04}\t")))
        self.assertTrue(lines[at + 1].startswith(f"tier\t{lab04}\t"), lines)
        self.assertTrue(lines[-1].startswith(f"note\t{stream_k[0]}") or
                        lines[-1].startswith("note\tlab14."), lines[-1])
        # The file as cudalab/calibration.hpp reads it: every note after its own line.
        self.notes(path)
        ref = self.out / "nvidia-h200.tsv"
        shutil.copy(REFERENCE, ref)
        code, text = self.main("--from-logs", *self.logs(
            run_values(1.6, 1.1, 0.9, gpu="NVIDIA H200")))
        self.assertEqual(code, 0, text)
        self.assertEqual(self.tiers(ref), self.tiers(REFERENCE))

    def test_a_bar_missing_from_a_run_is_refused(self):
        partial = log({"lab04.TiledPerf.StaticTilesBeatNaive": []}, status="***Failed")
        code, text = self.main("--from-logs", *self.logs(run_values(1.6, 1.1, 0.9), partial))
        self.assertEqual(code, 1)
        self.assertIn("lab04.TiledPerf.StaticTilesBeatNaive speedup: in 1 of 2 runs", text)
        self.assertFalse(self.out.exists())

    def test_runs_on_different_gpus_are_refused(self):
        code, text = self.main("--from-logs", *self.logs(
            run_values(1.6, 1.1, 0.9), run_values(1.6, 1.1, 0.9, gpu="NVIDIA H200")))
        self.assertEqual(code, 1)
        self.assertIn("different GPUs", text)

    def test_a_record_naming_another_test_is_ignored(self):
        forged = log({"lab01.AddOneGpu.Small": [
            bar("lab04.TiledPerf.StaticTilesBeatNaive", "speedup", 0.01, 1.1)]})
        self.assertEqual(calibrate.bars_of_run(forged), {})

    def test_slug(self):
        self.assertEqual(calibrate.slug("NVIDIA H100 80GB HBM3"), "nvidia-h100-80gb-hbm3")
        self.assertEqual(calibrate.slug("NVIDIA H200"), "nvidia-h200")

    def test_the_course_files_follow_the_rule(self):
        """Each committed bar is what the rule gives for the runs the file records: 0.7 x the
        lowest (1.3 x the highest for an upper bar) or, for a bar the reference GPU's file
        fixes, that bar with its note. A bar without runs (measured on another GPU only) must
        say so in its note; the reference file notes every bar."""
        files = sorted((TOOLS.parent / "tests" / "calibration").glob("*.tsv"))
        self.assertTrue(files, "no calibration file in tests/calibration")
        ref = reference_ratios.read_calibration(REFERENCE)
        self.assertTrue(ref["reference"], REFERENCE)
        for path in files:
            notes = self.notes(path)
            for key, f in self.bars(path).items():
                bound, bar, rule = f[0], float(f[1]), f[2]
                values = [float(v) for v in f[3:]]
                if path == REFERENCE:
                    self.assertTrue(notes.get(key), f"{path.name}: {key}: no note")
                if key in FIXED_BARS:
                    self.assertEqual((rule, bar, notes.get(key)),
                                     ("fixed", ref["bars"][key]["bar"], FIXED_BARS[key]),
                                     f"{path.name}: {key}")
                    continue
                self.assertEqual(rule, "measured", f"{path.name}: {key}")
                if not values:
                    self.assertIn("No H200 run yet", notes.get(key, ""), f"{path.name}: {key}")
                    continue
                self.assertEqual(len(values), 3, f"{path.name}: {key}: three runs")
                want = float(calibrate._num(reference_ratios.suggest(values, bound)))
                self.assertEqual(bar, want, f"{path.name}: {key}")
            # Every tier has a note; the reference's fixed tiers are every file's, as they are.
            tiers = self.tiers(path)
            for tier_key, (_, _, note) in tiers.items():
                self.assertTrue(note, f"{path.name}: tier {tier_key}: no note")
            for tier_key, tier in self.tiers(REFERENCE).items():
                if tier[1] == "fixed":
                    self.assertEqual(tiers.get(tier_key), tier, f"{path.name}: tier {tier_key}")

    def test_a_new_gpu_model_gets_its_own_file_beside_the_course_files(self):
        """The path for a GPU model the course has no file for (docs/instructors.md): its runs
        write tests/calibration/<model>.tsv, named by the model CUDA reports, not the
        reference; the course's files stay as they are; the new file is the one a run on that
        model then chooses first (by its `gpu` line, as choose_bar() does), while another
        unknown model still gets the reference's. A bar the model never judged (its test was
        skipped there: lab 14's persistent part on a GPU below 9.0) is not in the file (the
        reference file's bar applies there)."""
        model = "NVIDIA A100-SXM4-80GB"
        shutil.copytree(TOOLS.parent / "tests" / "calibration", self.out)
        before = {p.name: p.read_bytes() for p in self.out.glob("*.tsv")}
        device = {"type": "device", "test": "lab04.TiledPerf.StaticTilesBeatNaive",
                  "available": True, "name": model, "description": f"{model} (sm_80, 108 SMs)",
                  "driver": "12.8"}

        def run(speedup: float) -> str:
            text = run_values(speedup, 1.1, 0.9, gpu=model)
            return text.replace("1: [ CUDALAB-RECORD ] ",
                                "1: [ CUDALAB-RECORD ] " + json.dumps(device) +
                                "\n1: [ CUDALAB-RECORD ] ", 1)

        code, text = self.main("--from-logs", *self.logs(run(1.4), run(1.5), run(1.45)))
        self.assertEqual(code, 0, text)
        path = self.out / "nvidia-a100-sxm4-80gb.tsv"
        self.assertTrue(path.is_file(), text)
        self.assertEqual({p.name: p.read_bytes() for p in self.out.glob("*.tsv")
                          if p.name != path.name}, before)
        facts = dict(line.split("\t", 1) for line in path.read_text().splitlines()
                     if line and not line.startswith(("#", "bar\t", "note\t", "tier\t")))
        self.assertEqual((facts["gpu"], facts["reference"], facts["runs"]), (model, "no", "3"))
        self.assertEqual(facts["device"], f"{model} (sm_80, 108 SMs)")
        bars = self.bars(path)
        # 0.7 x 1.4 = 0.98; nothing of lab 14's persistent part (never judged on this model).
        self.assertEqual(bars[("lab04.TiledPerf.StaticTilesBeatNaive", "speedup")][:3],
                         ["min", "0.98", "measured"])
        self.assertFalse([k for k in bars if k[0].startswith("lab14.PersistentPerf")])

        def choose(gpu: str) -> str | None:  # cudalab::choose_bar()'s files, by `gpu` line
            files = {}
            for p in sorted(self.out.glob("*.tsv")):
                kv = dict(line.split("\t", 1) for line in p.read_text().splitlines()
                          if line and not line.startswith(("#", "bar\t", "note\t", "tier\t")))
                files[p.name] = kv
            exact = [n for n, kv in files.items() if kv.get("gpu") == gpu]
            ref = [n for n, kv in files.items() if kv.get("reference") == "yes"]
            found = exact or ref
            return found[0] if found else None

        self.assertEqual(choose(model), path.name)
        self.assertEqual(choose("NVIDIA L4"), "nvidia-h200.tsv")

    def test_refuses_a_student_build(self):
        build = self.tmp / "build"
        build.mkdir()
        (build / "CMakeCache.txt").write_text("CUDALAB_IMPL:STRING=student\n")
        with self.assertRaises(SystemExit):
            with contextlib.redirect_stderr(io.StringIO()):
                calibrate.main(["--build-dir", str(build), "--out-dir", str(self.out)])


if __name__ == "__main__":
    unittest.main()
