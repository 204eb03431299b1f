# SPDX-License-Identifier: BSD-3-Clause
"""Charts of a class (SVG): per-lab points and completion, per-lab distributions of the key
speed ratios, and an opt-in speed board per GPU model.

    python3 -m tools.classroom.charts --collected DIR/collected.json --out DIR
        [--gradebook gradebook.csv]
        [--board [--board-test TEST] [--board-name NAME]]
        [--names [--consent logins.txt]]

From each student's result.json (collected by collect.py) it reads the key ratios the
graders measured (result.json entries, cudalabs.ratios: thresholded speedups and shares)
and the GPU they ran on, and draws with matplotlib, as the labs' throughput charts are drawn
(tools/plot.py):
  points.svg       per lab, how many students scored 0-9, 10-19, ..., 90-99 and 100 % of the
                   lab's points (every bin drawn, empty ones too; counts are whole numbers),
                   from --gradebook (the points that count: regrade, late policy) when given,
                   else from the collected results
  completion.svg   per lab, how many students completed it (full points), partly, not at
                   all, or have no result
  dist_labNN.svg   for every ratio of the lab and every GPU model, how many students
                   reached which value (bins; blue at or above the pass bar, grey below)
  board_<gpu>.svg  only with --board: the students ranked by one ratio (default: the one
                   a lab's tests/labNN_topic/figures.json marks "board", lab 13's swizzled
                   SGEMM as a share of cuBLAS), one chart per GPU model, since ratios from
                   different GPUs do not compare
Nobody is named by default: the board says "student 1..n" (by rank). --names puts GitHub
logins on it; with --consent FILE (one login per line) only those students are named and
the others stay "student k", and only then does the board say "Names shown with consent".
Distributions never name anyone. Every bin of a histogram is drawn, empty ones too, and
counts are whole numbers.

Needs matplotlib (Debian and Ubuntu: apt-get install python3-matplotlib), on the instructor's
machine where the class tools run; the output is deterministic for one matplotlib version.
Exit status: 0; 2 bad input or no matplotlib.
"""

from __future__ import annotations

import argparse
import csv
import re
import statistics
import sys
from pathlib import Path

from ..model import LabResult
from .classlib import UsageError, read_json
from ..figures import board_ratio
from ..plot import Bar, Chart, Line, MissingMatplotlib, Panel, render

BOARD_TEST, BOARD_NAME = board_ratio()
BINS = 8


def lab_results(student: dict) -> list[LabResult]:
    """The lab entries of a collected student's result.json (none without a result)."""
    return [LabResult.from_json(e, f"{student.get('student')}: result.json tests[{i}]")
            for i, e in enumerate((student.get("result") or {}).get("tests", []))]


def samples(collected: dict) -> list[dict]:
    """Every ratio of every student: {student, lab, test, name, value, threshold, gpu}."""
    out = []
    for s in collected.get("students") or []:
        for e in lab_results(s):
            c = e.cudalabs
            for r in e.ratios:
                if isinstance(r.get("value"), (int, float)) and r.get("test") and r.get("name"):
                    out.append({"student": s["student"], "lab": c.get("lab", r["test"][:5]),
                                "test": r["test"], "name": r["name"], "value": float(r["value"]),
                                "unit": r.get("unit") or "", "threshold": r.get("threshold"),
                                "gpu": c.get("gpu") or "unknown GPU"})
    return out


def bins(values: list[float], threshold: float | None) -> list[tuple[float, float, int]]:
    """BINS equal bins over the values (and the threshold, so the pass bar is a bin edge when
    it lies inside): (low, high, count)."""
    lo, hi = min(values), max(values)
    if threshold is not None and lo < threshold <= hi:
        below = max(1, round(BINS * (threshold - lo) / (hi - lo)))
        edges = [lo + (threshold - lo) * i / below for i in range(below)] + \
                [threshold + (hi - threshold) * i / max(1, BINS - below)
                 for i in range(max(1, BINS - below) + 1)]
    elif hi > lo:
        edges = [lo + (hi - lo) * i / BINS for i in range(BINS + 1)]
    else:
        edges = [lo, hi]
    out = []
    for i in range(len(edges) - 1):
        last = i == len(edges) - 2
        n = sum(edges[i] <= v < edges[i + 1] or (last and v == edges[i + 1]) for v in values)
        out.append((edges[i], edges[i + 1], n))
    return out


def distribution_panel(group: list[dict]) -> Panel:
    """One histogram (sideways bars) of one ratio on one GPU model."""
    values = sorted(g["value"] for g in group)
    t = group[0]["threshold"]
    bars = [Bar(f"{lo:.3g} – {hi:.3g}{' ' + group[0]['unit'] if group[0]['unit'] else ''}",
                float(n), "variant" if t is not None and lo >= t else "baseline")
            for lo, hi, n in bins(values, t)]
    title = (f"{group[0]['test'].split('.', 1)[1]} {group[0]['name']} on {group[0]['gpu']}: "
             f"{len(values)} students, median {statistics.median(values):.3g}"
             + (f", pass bar {t:g}" if t is not None else ""))
    return Panel(title, "students", bars, counts=True)


POINT_BINS = [(i * 10, i * 10 + 9) for i in range(10)]


def lab_points(collected: dict, gradebook: list[dict] | None) -> dict[str, list]:
    """lab -> [(student, points, max points) or (student, None, None) without a result]."""
    out: dict[str, list] = {}
    if gradebook is not None:
        labs = sorted(k for k in (gradebook[0] if gradebook else {}) if re.fullmatch(
            r"lab\d\d", k))
        maxes: dict[str, int] = {}
        for s in collected.get("students") or []:
            for e in lab_results(s):
                if e.cudalabs.get("lab"):
                    maxes[e.lab] = max(maxes.get(e.lab, 0), e.max_score)
        for r in gradebook:
            for lab in labs:
                v = (r.get(lab) or "").strip()
                out.setdefault(lab, []).append(
                    (r.get("login"), int(float(v)) if v else None, maxes.get(lab) or 100))
        return out
    labs = sorted({e.cudalabs.get("lab") for s in collected.get("students") or []
                   for e in lab_results(s)} - {None})
    for s in collected.get("students") or []:
        entries = {e.cudalabs.get("lab"): e for e in lab_results(s)}
        for lab in labs:
            got = entries.get(lab)
            out.setdefault(lab, []).append((s["student"], None if got is None else got.score,
                                            None if got is None else got.max_score))
    return out


def points_charts(per_lab: dict[str, list]) -> dict[str, str]:
    """points.svg (histogram of the share of points per lab) and completion.svg."""
    if not per_lab:
        return {}
    panels, done = [], []
    for lab, rows in sorted(per_lab.items()):
        shares = [100 * p / m if m else 0 for _, p, m in rows if p is not None]
        counts = [0] * (len(POINT_BINS) + 1)
        for v in shares:
            counts[min(int(v // 10), 9) if v < 100 else 10] += 1
        labels = [f"{lo}–{hi} %" for lo, hi in POINT_BINS] + ["100 %"]
        panels.append(Panel(f"{lab}: {len(shares)} students with a result",
                            "students", [Bar(label, float(n), "variant" if label == "100 %"
                                             else "baseline")
                                         for label, n in zip(labels, counts)], counts=True))
        full = sum(p is not None and m and p == m for _, p, m in rows)
        zero = sum(p == 0 for _, p, m in rows if p is not None)
        none = sum(p is None for _, p, m in rows)
        done.append(Panel(f"{lab}: {len(rows)} students", "students", [
            Bar("completed (full points)", float(full), "variant"),
            Bar("partly", float(len(rows) - full - zero - none), "other"),
            Bar("no points", float(zero), "baseline"),
            Bar("no result", float(none), "baseline")], counts=True))
    note = ("Bars: number of students (whole numbers), every bin drawn. No names.")
    return {"points.svg": render(Chart("The class's points per lab (share of the lab's points)",
                                       panels, note)),
            "completion.svg": render(Chart("Completion per lab", done, note))}


def distributions(data: list[dict]) -> dict[str, str]:
    """dist_labNN.svg for every lab with ratios."""
    files = {}
    for lab in sorted({d["lab"] for d in data}):
        groups: dict[tuple, list[dict]] = {}
        for d in data:
            if d["lab"] == lab:
                groups.setdefault((d["test"], d["name"], d["gpu"]), []).append(d)
        panels = [distribution_panel(groups[k]) for k in sorted(groups)]
        files[f"dist_{lab}.svg"] = render(Chart(
            f"Lab {lab[3:]}: the class's key speed ratios", panels,
            "Bars: number of students per bin of the ratio the grader measured; blue: at or "
            "above the pass bar, grey: below. No names."))
    return files


def board_labels(ranked: list[dict], names: bool, consent: set[str] | None) -> list[str]:
    """"student k" by rank, or the login where --names (and the consent list) allow it."""
    out = []
    for k, d in enumerate(ranked, start=1):
        named = names and (consent is None or d["student"].lower() in consent)
        out.append(d["student"] if named else f"student {k}")
    return out


def board_note(names: bool, consent: set[str] | None) -> str:
    """What the board says about names: consent is claimed only when a consent list was given."""
    if not names:
        return "Anonymised: student k is rank k."
    if consent is None:
        return "Names shown: GitHub logins (--names without a consent list)."
    return "Names shown with consent (the consent list); everyone else is student k (rank k)."


def boards(data: list[dict], test: str, name: str, names: bool,
           consent: set[str] | None) -> dict[str, str]:
    """board_<gpu>.svg: the students ranked by one ratio, per GPU model."""
    files = {}
    picked = [d for d in data if d["test"] == test and d["name"] == name]
    for gpu in sorted({d["gpu"] for d in picked}):
        best: dict[str, dict] = {}
        for d in picked:
            if d["gpu"] == gpu and (d["student"] not in best or d["value"] > best[d["student"]]["value"]):
                best[d["student"]] = d
        ranked = sorted(best.values(), key=lambda d: (-d["value"], d["student"].lower()))
        share = ranked[0]["unit"] == "x" and "Share" in test
        scale, unit = (100.0, "% of cuBLAS") if share else (1.0, ranked[0]["unit"] or "x")
        t = ranked[0]["threshold"]
        bars = [Bar(label, d["value"] * scale, "variant" if t is None or d["value"] >= t
                    else "baseline") for label, d in zip(board_labels(ranked, names, consent),
                                                         ranked)]
        lines = [Line("pass bar", t * scale)] if t is not None else []
        slug = re.sub(r"[^a-z0-9]+", "-", gpu.lower()).strip("-") or "gpu"
        files[f"board_{slug}.svg"] = render(Chart(
            f"Speed board, {gpu}: {test.split('.', 1)[1]} ({len(ranked)} students)",
            [Panel(f"{name}", unit, bars, lines)],
            "Ranked by the value the grader measured on the collected commit; blue: at or "
            "above the pass bar. " + board_note(names, consent)))
    return files


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split(
        "\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--collected", type=Path, required=True, help="collect.py's collected.json")
    ap.add_argument("--out", type=Path, required=True, help="folder of the SVG files")
    ap.add_argument("--gradebook", type=Path,
                    help="gradebook.py's CSV: the points that count, for points.svg")
    ap.add_argument("--board", action="store_true", help="also draw the speed boards (opt-in)")
    ap.add_argument("--board-test", default=BOARD_TEST, help=f"default {BOARD_TEST}")
    ap.add_argument("--board-name", default=BOARD_NAME, help=f"default {BOARD_NAME}")
    ap.add_argument("--names", action="store_true", help="name students on the board")
    ap.add_argument("--consent", type=Path,
                    help="with --names: only these logins (one per line) are named")
    args = ap.parse_args(argv)
    try:
        if args.consent and not args.names:
            raise UsageError("--consent only makes sense with --names")
        consent = None
        if args.consent:
            try:
                consent = {line.strip().lower() for line in
                           args.consent.read_text(encoding="utf-8").splitlines() if line.strip()}
            except OSError as e:
                raise UsageError(f"cannot read {args.consent}: {e.strerror}") from None
        collected = read_json(args.collected, "collected results")
        data = samples(collected)
        book = None
        if args.gradebook:
            try:
                with open(args.gradebook, newline="", encoding="utf-8") as f:
                    book = list(csv.DictReader(f))
            except OSError as e:
                raise UsageError(f"cannot read {args.gradebook}: {e.strerror}") from None
    except UsageError as e:
        print(f"charts: {e}", file=sys.stderr)
        return 2
    try:
        files = points_charts(lab_points(collected, book))
        files.update(distributions(data))
        board = boards(data, args.board_test, args.board_name, args.names, consent) \
            if args.board else {}
    except MissingMatplotlib as e:
        print(f"charts: {e}", file=sys.stderr)
        return 2
    if args.board and not board:
        print(f"charts: no student has {args.board_test} {args.board_name}; no board")
    files.update(board)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, text in sorted(files.items()):
        (args.out / name).write_text(text, encoding="utf-8")
    students = len({d["student"] for d in data})
    print(f"charts: {len(files)} chart(s) from {students} students -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
