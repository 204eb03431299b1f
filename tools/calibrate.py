# SPDX-License-Identifier: BSD-3-Clause
"""Calibrates the speed bars for the GPU this machine runs: one file per GPU model.

    python3 -m tools.calibrate --build-dir build/solution [--runs 3] [--reference]
                               [--out-dir tests/calibration] [--log-dir DIR]
    python3 -m tools.calibrate --from-logs RUN1.log RUN2.log RUN3.log [--out-dir ...]

Runs the perf and profiler tests of a build of the reference solutions (`ctest -L
"perf|profiler" -V`, with CUDALAB_SPEEDUP_SCALE and CUDALAB_SEED removed) --runs times, reads
every speed bar the graders judged ("bar" records of the measurement channel:
cudalab::testing::speed_bar()) and writes tests/calibration/<gpu-model>.tsv: each bar is
  - 0.7 x the lowest run for a lower bar (1.3 x the highest for an upper bar), rounded away
    from the runs to two significant digits: the rule every threshold of the course follows;
  - or, where the reference GPU's file (`reference yes`) marks the bar `fixed`, its bar and
    note, copied (a share of a physical ceiling or of a copy that the lab promises, a bar
    between the technique removed and the slowest correct design).
The tiers (named levels above a bar that a perf test shows, not graded: `tier` lines) are
not calibrated: the reference GPU's `fixed` tiers are copied with their notes, and the tiers
the rewritten file had keep theirs.
The graders hold no bar: they read them from these files. Commit the file: the graders then
judge on that GPU model against it, and elsewhere, or for a bar it lacks, against the
reference GPU's (--reference marks this run's model as the reference; a file that was the
reference stays so). Rewriting the reference file keeps its notes and the bars no run
judged (review the notes: they give each bar's provenance); a new bar gets no note, so
add one there (docs/instructors.md). --from-logs writes the file from saved `ctest -V`
logs of earlier runs (--log-dir keeps them). Every bar must have a value in every run; a test
that failed is fine (its bar was still recorded) unless it failed before judging speed.
Exit status: 0 written, 1 a bar missing or runs from different GPUs, 2 usage error.
Python 3 standard library only; instructor tool.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import re
import subprocess
import sys
from pathlib import Path

from . import reference_ratios  # (read_calibration, suggest)
from .ctest_record import read_stream  # (the console of `ctest -V`)
from .ctest_run import run_ctest_stream  # (ctest through a pipe)
from .measurement_channel import RECORD_MARKER, json_lines  # (the records)
from .model import BarRecord, CalibrationRow, DeviceRecord

ROOT = Path(__file__).resolve().parent.parent
LABELS = "perf|profiler"
# No tool path: the files ship in the student release, which has no calibrate.py.
FORMAT_LINE = "# cudalabs calibration v2 (the course's calibration run; cudalab/calibration.hpp)"


class CalibrationError(Exception):
    pass


def slug(gpu: str) -> str:
    """The file name of a GPU model: 'NVIDIA H100 80GB HBM3' -> 'nvidia-h100-80gb-hbm3'."""
    return re.sub(r"[^a-z0-9]+", "-", gpu.lower()).strip("-") or "unknown-gpu"


def bars_of_run(text: str) -> dict[tuple[str, str], BarRecord]:
    """The "bar" records of one `ctest -V` log, each from the output of the test it names."""
    out: dict[tuple[str, str], BarRecord] = {}
    for case in read_stream(text):
        for rec in json_lines(case["output"], RECORD_MARKER):
            if rec.get("type") != "bar" or rec.get("test") != case["name"]:
                continue
            name = rec.get("name")
            if not isinstance(name, str):  # the table's rows are keyed and written by name
                raise CalibrationError(f"{case['name']}: a bar record without a name")
            out[(case["name"], name)] = BarRecord.from_record(rec)
    return out


def device_of_run(text: str) -> DeviceRecord | None:
    """The first "device" record of a run that has a GPU, None when there is none."""
    for case in read_stream(text):
        for rec in json_lines(case["output"], RECORD_MARKER):
            if rec.get("type") == "device" and rec.get("available"):
                return DeviceRecord.from_record(rec)
    return None


def calibrate(runs: list[dict[tuple[str, str], BarRecord]],
              reference: dict | None = None) -> tuple[str, list[CalibrationRow]]:
    """(GPU model, one row per bar) from the bar records of every run; a bar that the
    reference GPU's calibration @p reference (reference_ratios.read_calibration()) fixes keeps
    its bar and note."""
    ref_bars = (reference or {}).get("bars") or {}
    gpus = {rec.gpu for run in runs for rec in run.values()}
    if not gpus:
        raise CalibrationError("no speed bar was recorded: is this a GPU build of the solutions?")
    if len(gpus) != 1:
        raise CalibrationError("the runs used different GPUs: " + ", ".join(sorted(map(str, gpus))))
    gpu = gpus.pop()
    if not isinstance(gpu, str):  # the GPU model names the calibration file
        raise CalibrationError("the bar records name no GPU model")
    keys = sorted(set().union(*runs))
    missing = [f"{k[0]} {k[1]}: in {sum(k in r for r in runs)} of {len(runs)} runs"
               for k in keys if not all(k in r for r in runs)]
    if missing:
        raise CalibrationError("bars missing from some runs (a test failed before judging "
                               "speed?):\n  " + "\n  ".join(missing))
    rows = []
    for key in keys:
        recs = [run[key] for run in runs]
        values: list[float] = []
        for r in recs:
            value = r.value
            if value is None:
                raise CalibrationError(f"{key[0]} {key[1]}: a run recorded no value")
            values.append(value)
        bound = recs[-1].bound or "min"
        ref = ref_bars.get(key)
        if ref is not None and ref["rule"] == "fixed":
            bar, rule, note = ref["bar"], "fixed", ref["note"]
        else:
            bar, rule, note = reference_ratios.suggest(values, bound), "measured", ""
        rows.append(CalibrationRow(test=key[0], name=key[1], bound=bound, bar=bar, rule=rule,
                                   reference=None if ref is None else ref["bar"],
                                   values=values, note=note))
    return gpu, rows


def _num(x: float) -> str:
    return f"{x:.4g}"


Tiers = dict[tuple[str, str], list[dict]]


def carry_tiers(reference: dict | None, old: dict | None) -> Tiers:
    """The tiers of a file being written: the reference GPU's file's `fixed` tiers with their
    notes, then those of the file's previous version (@p old; both as
    reference_ratios.read_calibration() reads them) that the reference does not fix."""
    out: Tiers = {}
    for key, tiers in ((reference or {}).get("tiers") or {}).items():
        fixed = [dict(t) for t in tiers if t["rule"] == "fixed"]
        if fixed:
            out[key] = fixed
    for key, tiers in ((old or {}).get("tiers") or {}).items():
        names = {t["name"] for t in out.get(key, [])}
        kept = [dict(t) for t in tiers if t["name"] not in names]
        if kept:
            out[key] = out.get(key, []) + kept
    return out


def render(gpu: str, rows: list[CalibrationRow], facts: dict[str, str], reference: bool,
           tiers: Tiers | None = None) -> str:
    lines = [FORMAT_LINE,
             "# Speed bars for one GPU model: 0.7 x the lowest of the runs of the reference",
             "# solutions (1.3 x the highest for an upper bar), two significant digits, or the",
             "# lab's fixed bar. Columns of a bar line: test, measurement, bound, bar, rule",
             "# (measured or fixed), the runs' values; a note line after it (test, measurement,",
             "# text) gives the bar's provenance. The graders hold no bar: they read it here.",
             "# A tier line (test, measurement, tier name, value, rule) and its note name a",
             "# level above a bar that a perf test shows and does not grade.",
             f"gpu\t{gpu}", f"reference\t{'yes' if reference else 'no'}"]
    lines += [f"{k}\t{v}" for k, v in facts.items()]

    def note(key: tuple[str, str], text: str) -> None:
        if text:
            lines.append("\t".join(["note", key[0], key[1], text]))

    def tier_lines(key: tuple[str, str]) -> None:
        for t in (tiers or {}).get(key, []):
            lines.append("\t".join(["tier", key[0], key[1], t["name"], _num(t["value"]),
                                    t["rule"]]))
            note(key, t["note"])

    for r in sorted(rows, key=lambda r: (r.test, r.name)):
        lines.append("\t".join(["bar", r.test, r.name, r.bound, _num(r.bar), r.rule]
                               + [_num(v) for v in r.values]))
        note((r.test, r.name), r.note or "")
        tier_lines((r.test, r.name))
    for key in sorted(set(tiers or {}) - {(r.test, r.name) for r in rows}):
        tier_lines(key)  # a tier of a bar this file has not (never judged on this model)
    return "\n".join(lines) + "\n"


def keep_reference_notes(rows: list[CalibrationRow], old: dict) -> list[CalibrationRow]:
    """Rewriting the reference GPU's file: its notes stay with their bars, and the bars no run
    judged (a test skipped on this build) stay as they were (printed)."""
    old_bars = old.get("bars") or {}
    for r in rows:
        prev = old_bars.get((r.test, r.name))
        if prev is not None and not r.note:
            r.note = prev["note"]
    judged = {(r.test, r.name) for r in rows}
    kept = []
    for key, b in sorted(old_bars.items()):
        if key not in judged:
            kept.append(CalibrationRow(test=key[0], name=key[1], bound=b["bound"], bar=b["bar"],
                                       rule=b["rule"], reference=b["bar"], values=b["values"],
                                       note=b["note"]))
            print(f"calibrate: kept {key[0]} {key[1]} (no run judged it)")
    return rows + kept


def was_reference(path: Path) -> bool:
    try:
        return any(line.strip() == "reference\tyes" for line in path.read_text().splitlines())
    except OSError:
        return False


def run_logs(build_dir: Path, runs: int, log_dir: Path) -> list[str]:
    """The console text of --runs runs of the perf and profiler tests, each also saved."""
    saved = {k: os.environ.pop(k) for k in ("CUDALAB_SPEEDUP_SCALE", "CUDALAB_SEED")
             if k in os.environ}
    texts = []
    try:
        for i in range(runs):
            log = log_dir / f"calibrate-{i + 1}.log"
            code, cases, _ = run_ctest_stream(
                build_dir, log_dir / f"calibrate-{i + 1}.xml", ["-L", LABELS], log)
            if not cases:
                raise CalibrationError(f"run {i + 1}: ctest ran no perf test (exit {code})")
            failed = [c["name"] for c in cases if c["status"] == "failed"]
            print(f"calibrate: run {i + 1}/{runs}: {len(cases)} tests, {len(failed)} failed"
                  + (" (" + ", ".join(failed[:5]) + ")" if failed else ""), flush=True)
            texts.append(log.read_text(encoding="utf-8", errors="replace"))
    finally:
        os.environ.update(saved)
    return texts


def cache_value(build_dir: Path, key: str) -> str | None:
    try:
        for line in (build_dir / "CMakeCache.txt").read_text().splitlines():
            if line.startswith(key + ":"):
                return line.split("=", 1)[1]
    except OSError:
        return None
    return None


def course_commit() -> str:
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"],
                             capture_output=True, text=True, check=False)
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", type=Path, help="a GPU build of the reference solutions")
    ap.add_argument("--runs", type=int, default=3, help="full runs of the perf tests (default 3)")
    ap.add_argument("--from-logs", nargs="+", type=Path, metavar="LOG",
                    help="saved `ctest -V` logs of the runs instead of running ctest")
    ap.add_argument("--out-dir", type=Path, default=ROOT / "tests" / "calibration")
    ap.add_argument("--log-dir", type=Path, help="keep each run's ctest -V log here")
    ap.add_argument("--reference", action="store_true",
                    help="this GPU model is the course's reference (used where none matches)")
    args = ap.parse_args(argv)
    if bool(args.build_dir) == bool(args.from_logs):
        ap.error("give --build-dir or --from-logs")
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    try:
        if args.from_logs:
            texts = [p.read_text(encoding="utf-8", errors="replace") for p in args.from_logs]
            toolkit = None
        else:
            if cache_value(args.build_dir, "CUDALAB_IMPL") != "solution":
                ap.error(f"{args.build_dir} is not a build of the reference solutions "
                         "(CUDALAB_IMPL=solution): bars come from the reference")
            log_dir = args.log_dir or (args.build_dir / "calibration-logs")
            log_dir.mkdir(parents=True, exist_ok=True)
            texts = run_logs(args.build_dir, args.runs, log_dir)
            toolkit = cache_value(args.build_dir, "CMAKE_CUDA_COMPILER_VERSION")
        found = reference_ratios.reference_calibration(args.out_dir, ROOT / "tests" / "calibration")
        gpu, rows = calibrate([bars_of_run(t) for t in texts], found[1] if found else None)
    except (CalibrationError, OSError, ValueError) as e:
        print(f"calibrate: {e}", file=sys.stderr)
        return 1
    dev = device_of_run(texts[-1])
    facts = {"created": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
             "course": course_commit(), "runs": str(len(texts))}
    if dev is not None:
        facts["device"] = str(dev.description or dev.name)
        facts["driver"] = str(dev.driver)
    if toolkit:
        facts["cuda_toolkit"] = toolkit
    out = args.out_dir / f"{slug(gpu)}.tsv"
    reference = args.reference or was_reference(out)
    try:
        old = reference_ratios.read_calibration(out) if out.is_file() else None
    except ValueError as e:
        print(f"calibrate: {e}", file=sys.stderr)
        return 1
    if reference and old is not None:
        rows = keep_reference_notes(rows, old)
    tiers = carry_tiers(found[1] if found else None, old)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    out.write_text(render(gpu, rows, facts, reference, tiers))
    changed = [(r, r.reference) for r in rows
               if r.reference is not None and abs(r.bar - r.reference) > 1e-9]
    new = [r for r in rows if r.reference is None]
    print(f"calibrate: {out}: {len(rows)} bars for {gpu} ({len(texts)} runs"
          f"{', the reference GPU' if reference else ''}); {len(changed)} differ from the "
          "reference GPU's bars:")
    for r, ref in changed:
        sign = "<=" if r.bound == "max" else ">="
        print(f"  {r.test} {r.name}: {sign} {_num(r.bar)} "
              f"(reference {_num(ref)}; runs {', '.join(map(_num, r.values))})")
    if new:
        print(f"calibrate: {len(new)} bar(s) the reference GPU's file lacks (a grader fails "
              "without one: calibrate the reference GPU, --reference, and note each bar):")
        for r in new:
            print(f"  {r.test} {r.name}: {_num(r.bar)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
