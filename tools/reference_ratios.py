# SPDX-License-Identifier: BSD-3-Clause
"""Speed ratios of several reference runs against their thresholds (calibration check).

    python3 -m tools.reference_ratios RUN1.json RUN2.json RUN3.json [--markdown OUT.md]
                                      [--suggest]

Reads the scoreboard's scores.json of each run (docs/scores-schema.md) and prints one row per
graded measurement that has a threshold: its value in every run and the threshold. A
lower bound (`min`) must sit at least 30 % below the lowest run (threshold <= 0.7 x lowest), an
upper bound (`max`) at least 30 % above the highest, unless the threshold is a fixed bar of
the course (rule `fixed` in the reference GPU's calibration file, whose note gives the reason). Rows that break the rule are marked and
make the exit status 1. --suggest adds the threshold the rule gives for a new lab: 0.7 x the
lowest run rounded down (or 1.3 x the highest rounded up) to two significant digits.
Python 3 standard library only.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from .model import Measurement, measurements_of

MARGIN = 0.30
ROOT = Path(__file__).resolve().parent.parent
CALIBRATION_DIR = ROOT / "tests" / "calibration"


def read_calibration(path: Path) -> dict:
    """One calibration file (cudalab/calibration.hpp): {"gpu", "reference", "facts", "bars",
    "tiers"}, bars keyed by (test, measurement): {"bound", "bar", "rule", "values", "note"};
    tiers by (test, measurement): [{"name", "value", "rule", "note"}] in the file's order. A
    note line belongs to the bar or tier line it follows."""
    out: dict = {"gpu": None, "reference": False, "facts": {}, "bars": {}, "tiers": {}}
    last: tuple[tuple[str, str], dict] | None = None  # the bar or tier a note may follow
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line or line.startswith("#"):
            continue
        f = line.split("\t")
        if f[0] == "bar" and len(f) >= 6:
            out["bars"][(f[1], f[2])] = {"bound": f[3], "bar": float(f[4]), "rule": f[5],
                                         "values": [float(v) for v in f[6:]], "note": ""}
            last = (f[1], f[2]), out["bars"][(f[1], f[2])]
        elif f[0] == "tier" and len(f) == 6:
            tier = {"name": f[3], "value": float(f[4]), "rule": f[5], "note": ""}
            out["tiers"].setdefault((f[1], f[2]), []).append(tier)
            last = (f[1], f[2]), tier
        elif f[0] == "note" and len(f) == 4 and last is not None and last[0] == (f[1], f[2]):
            last[1]["note"] = f[3]
        elif len(f) == 2 and f[0] == "gpu":
            out["gpu"] = f[1]
        elif len(f) == 2 and f[0] == "reference":
            out["reference"] = f[1] == "yes"
        elif len(f) == 2:
            out["facts"][f[0]] = f[1]
        else:
            raise ValueError(f"{path}:{number}: not a calibration record")
    return out


def reference_calibration(*dirs: Path) -> tuple[Path, dict] | None:
    """The reference GPU's file (`reference yes`) of the first of @p dirs that has one."""
    for d in dirs:
        for path in sorted(d.glob("*.tsv")):
            cal = read_calibration(path)
            if cal["reference"]:
                return path, cal
    return None


def fixed_bars(calibration_dir: Path = CALIBRATION_DIR) -> dict[tuple[str, str], str]:
    """Bars fixed by the course design rather than calibrated from the solution (a share of a
    physical ceiling or of a same-run copy that the lab promises, a bar between the technique
    removed and the slowest correct design): (test, measurement) -> the reason, the `fixed`
    bars of the reference GPU's calibration file and their notes."""
    found = reference_calibration(calibration_dir)
    if found is None:
        return {}
    return {k: b["note"] for k, b in found[1]["bars"].items() if b["rule"] == "fixed"}


# Only speed measurements are calibrated from the solution; counts the tests judge exactly
# (conflict degrees, bytes of shared memory, wavefronts, sectors) are listed but not flagged.
SPEED_UNITS = {"x", "%"}


def load(path: Path) -> dict[tuple[str, str], Measurement]:
    """The graded measurements with a name and a threshold of a scores.json, by (test, name)."""
    data = json.loads(path.read_text())
    return {(m.test, m.name): m
            for m in measurements_of(data.get("measurements", []), f"{path}: measurements")
            if m.graded and m.threshold is not None and m.name is not None}


def suggest(values: list[float], bound: str | None) -> float:
    """The threshold 30 % beyond the runs, rounded away from them to two significant digits."""
    upper = bound == "max"
    x = max(values) * (1.0 + MARGIN) if upper else min(values) * (1.0 - MARGIN)
    step = 10 ** (math.floor(math.log10(x)) - 1) if x > 0 else 1.0
    return math.ceil(x / step - 1e-9) * step if upper else math.floor(x / step + 1e-9) * step


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", type=Path, help="scores.json of each run")
    ap.add_argument("--markdown", type=Path, help="also write the table to this file")
    ap.add_argument("--suggest", action="store_true",
                    help="add the threshold 30 %% beyond the runs (two significant digits)")
    args = ap.parse_args(argv)
    runs = [load(p) for p in args.runs]
    keys = sorted(set().union(*runs))
    head = "| test | measurement | " + " | ".join(f"run {i + 1}" for i in range(len(runs)))
    head += " | threshold | margin |" + (" suggested |" if args.suggest else "")
    head += "\n|---|---|" + "--:|" * (len(runs) + 2 + (1 if args.suggest else 0)) + "\n"
    rows = []
    bad = 0
    fixed = fixed_bars()
    for key in keys:
        ms = [r.get(key) for r in runs]
        present = [m for m in ms if m is not None]
        values = [float(m.value) for m in present if m.value is not None]
        ref = present[-1]
        thr = ref.unscaled_threshold or ref.threshold or 0.0
        bound = ref.bound
        unit = ref.unit
        if bound == "max":
            margin = thr / max(values) - 1.0 if max(values) > 0 else float("inf")
        else:
            margin = 1.0 - thr / min(values) if min(values) > 0 else float("-inf")
        note = ""
        if key in fixed and (bound != "max" and thr <= min(values)):
            note = f" (fixed: {fixed[key]})"
        elif unit.strip() not in SPEED_UNITS:
            note = " (exact count, judged by the test)"
        elif margin < MARGIN - 1e-3:
            note = " **< 30 %**"
            bad += 1
        if len(present) < len(runs):
            note += f" (missing in {len(runs) - len(present)} run(s))"
        cells = " | ".join("-" if m is None else f"{m.value:.4g}" for m in ms)
        sign = "≤" if bound == "max" else "≥"
        row = f"| `{key[0]}` | {key[1]} | {cells} | {sign} {thr:g} {unit} | {margin * 100:.0f} %{note} |"
        if args.suggest:
            row += f" {sign} {suggest(values, bound):.4g} |" if values else " - |"
        rows.append(row)
    table = head + "\n".join(rows) + "\n"
    print(table)
    print(f"{len(rows)} thresholds, {bad} speed threshold(s) closer than 30 % to the solution's runs")
    if args.markdown:
        args.markdown.write_text(table)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
