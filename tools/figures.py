# SPDX-License-Identifier: BSD-3-Clause
"""Throughput charts of every lab (SVG, drawn with matplotlib) and the course map, from a
scores file.

    python3 -m tools.figures                          # the reference run -> docs/figures/perf
    python3 -m tools.figures --check                  # exit 1 when a committed figure is stale
    python3 -m tools.figures --scores build/student/scores.json --out build/student/figures
                                                      # your own run (after the scoreboard)

Each chart shows, for one lab, the throughput the grader measured for every variant next to
its baseline, cuBLAS SGEMM where it applies (measured by lab 09's grader in the same run)
and the physical ceiling of the GPU (FP32 FMA peak, memory bandwidth or the popcount unit),
all in one unit (TFLOP/s, GB/s, TOPS or cycles). A series missing from the scores file (a
renamed measurement, a test that did not run) is an error naming the chart and the series,
exit status 1; `--allow-missing` draws what a partial run has instead. The same folder holds
the diagrams of tools/diagrams.py (labs 01 and 10-14), which need no data.

What each chart and the course map take from a lab (its box, its chart's title, the series
of its tests: test, measurement, label) lives beside the lab's grader, in
tests/labNN_topic/figures.json; this file keeps the layout of the panels and tools/plot.py
draws them.

Drawing the charts needs matplotlib (Debian and Ubuntu: apt-get install python3-matplotlib);
without it the command says so and exits 2. The course map and the diagrams are drawn with
the standard library alone. --check needs no matplotlib: a chart is up to date when the
digest it carries is the digest of what it would show now (every series' label and value,
the title, units, lines and caption, and the renderer's format tag; tools/plot.py), so a new
reference number, a renamed series or a changed drawing makes it stale and another
matplotlib version does not; the course map and the diagrams are compared byte for byte.
Each stale or missing figure is named, exit status 1.

The reference is `docs/reference/scores.json` (the scoreboard's `scores.json` of the
reference run, schema docs/scores-schema.md) when it exists; otherwise the Measurements
table of `docs/reference-run.md`, the same numbers as the scoreboard printed them.
`load_reference()` is shared with the instructors' handout check, which checks the numbers the
handouts quote against the same file.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from . import diagrams  # the hand-drawn diagrams of labs 01 and 10-14 (no data)
from . import plot  # the charts, drawn with matplotlib
from .model import measurements_of  # scores.json's measurements
from .plot import COLOURS, Bar, Chart, Line, Panel
from .svg import document, esc  # the SVG file of the course map

ROOT = Path(__file__).resolve().parent.parent
REFERENCE_JSON = ROOT / "docs" / "reference" / "scores.json"
REFERENCE_MD = ROOT / "docs" / "reference-run.md"
DEFAULT_OUT = ROOT / "docs" / "figures" / "perf"

N = 4096  # every perf test's matrices are 4096 x 4096 (x 4096)
FLOPS = 2.0 * N ** 3

# Memory bandwidth by GPU (datasheets, bytes/s): the transpose charts' ceiling. A GPU not
# listed gets no bandwidth line.
BANDWIDTH = {"NVIDIA H200": 4.8e12, "NVIDIA H100 80GB HBM3": 3.35e12, "NVIDIA H100 PCIe": 2.0e12,
             "NVIDIA A100-SXM4-80GB": 2.039e12, "NVIDIA A100-SXM4-40GB": 1.555e12}
# FP32 lanes per SM by compute capability (the FMA peak is SMs x clock x lanes x 2).
FP32_LANES = {"7.0": 64, "7.5": 64, "8.0": 64, "8.6": 128, "8.7": 128, "8.9": 128, "9.0": 128}
POPC_PER_SM_CLOCK = 16  # 32-bit POPC per clock per SM, sm_70 ... sm_90


# ---------------------------------------------------------------------------
# The reference: measurements and the GPU
# ---------------------------------------------------------------------------
@dataclass
class Reference:
    source: Path
    measurements: dict[tuple[str, str], tuple[float, str]] = field(default_factory=dict)
    gpu: dict = field(default_factory=dict)

    def get(self, test: str, name: str) -> float | None:
        hit = self.measurements.get((test, name))
        return None if hit is None else hit[0]


def _num(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def load_reference(path: Path | None = None) -> Reference:
    """The reference measurements: scores.json (schema cudalabs-scores) or reference-run.md."""
    if path is None:
        path = REFERENCE_JSON if REFERENCE_JSON.is_file() else REFERENCE_MD
    ref = Reference(path)
    if path.suffix == ".json":
        data = json.loads(path.read_text())
        if data.get("schema") != "cudalabs-scores":
            raise ValueError(f"{path}: not a cudalabs-scores file")
        for i, t in enumerate(data.get("tests", [])):
            for found in measurements_of(t.get("measurements", []), f"{path}: tests[{i}]"):
                if found.value is not None and found.name is not None:
                    ref.measurements[(t["name"], found.name)] = (float(found.value), found.unit)
        gpu = (data.get("environment") or {}).get("gpu") or {}
        ref.gpu = {"name": gpu.get("name"), "cc": gpu.get("compute_capability"),
                   "sms": gpu.get("sm_count"), "mhz": gpu.get("sm_clock_mhz")}
        return ref
    text = path.read_text()
    g = re.search(r"GPU: (?P<name>[^,]+), compute capability (?P<cc>[\d.]+), (?P<sms>\d+) SMs at "
                  r"(?P<mhz>\d+) MHz", text)
    if g:
        ref.gpu = {"name": g["name"], "cc": g["cc"], "sms": int(g["sms"]), "mhz": int(g["mhz"])}
    row = re.compile(r"^\| (lab\d\d) \| `([^`]+)` \| ([^|]+?) \| ([-\d.eE+]+) ?([^|]*?) \| "
                     r"[^|]* \| [^|]* \|$")
    section = text.split("### Measurements", 1)
    for line in (section[1] if len(section) > 1 else "").splitlines():
        m = row.match(line.strip())
        if m:
            value = _num(m[4])
            if value is not None:
                ref.measurements[(f"{m[1]}.{m[2]}", m[3].strip())] = (value, m[5].strip())
    return ref


def _source(ref: Reference) -> str:
    """The scores file as the figures name it: relative to the repository where it is in it."""
    return str(ref.source.relative_to(ROOT) if ref.source.is_relative_to(ROOT) else ref.source)


# ---------------------------------------------------------------------------
# Chart specifications
# ---------------------------------------------------------------------------
def _div(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or b == 0 else a / b


def _mul(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a * b


def ceilings(ref: Reference) -> dict[str, float | None]:
    g = ref.gpu
    sms, mhz, cc = g.get("sms"), g.get("mhz"), g.get("cc")
    clock = mhz * 1e6 if mhz else None
    lanes = FP32_LANES.get(cc or "")
    fp32 = sms * clock * lanes * 2 / 1e12 if sms and clock and lanes else None
    popc = sms * clock * POPC_PER_SM_CLOCK * 32 * 2 / 1e12 if sms and clock else None
    bw = BANDWIDTH.get(g.get("name") or "")
    return {"fp32_tflops": fp32, "popc_tops": popc, "bandwidth_gbs": bw / 1e9 if bw else None}


def tflops_from_ms(ms: float | None) -> float | None:
    return None if ms is None or ms <= 0 else FLOPS / (ms * 1e-3) / 1e12


# Each lab's part lives beside its grader, tests/labNN_topic/figures.json:
#   "course": its box on the course map: {"teaches", and where the lab has a headline ratio
#             "test", "measurement", "what" (the words under the ratio); "board": true on the
#             one ratio a class's speed board ranks by default)};
#   "chart":  {"title"} of the lab's own throughput chart (docs/figures/perf/labNN.svg);
#   "series": the bars this lab's tests give to a chart (its own or a later lab's): {"chart"
#             (e.g. "lab07"), "panel" (a panel title of LAYOUT), "label", "kind" ("baseline",
#             "variant" or "other"), "test", "measurement", and optionally "multiply_by" and
#             "divide_by" (a number, or {"test", "measurement"} of another measurement) and
#             "convert": "tflops_from_ms" (a 4096^3 matmul's milliseconds to TFLOP/s)};
#   "lines":  reference lines this lab measures for every panel that names them (LAYOUT):
#             {"label", "test", "measurement", and the same optional fields}.
# A panel's bars: the chart's own lab's series in its file's order, then the other labs',
# later labs first (the lesson just before comes first).
FIGURES_FILE = "figures.json"
CONVERSIONS = {"tflops_from_ms": tflops_from_ms}


@dataclass
class Layout:
    """One panel of a chart: what figures.py draws; its bars come from the labs' series."""
    title: str
    unit: str
    lines: tuple[str, ...] = ()  # reference lines: a ceiling of the GPU or a lab's "lines"
    lower_is_better: bool = False
    log: bool = False


MATMUL_LINES = ("cuBLAS SGEMM", "FP32 FMA peak")
TOPS_LINES = ("FP32 FMA peak", "popc ceiling")
TRANSPOSE = Layout("transpose", "GB/s", ("memory bandwidth",))
COLUMN_MATMUL = Layout("column-access matmul", "TFLOP/s", MATMUL_LINES)
LAYOUT: dict[str, list[Layout]] = {
    "lab02": [Layout("matmul", "TFLOP/s", MATMUL_LINES, log=True)],
    "lab03": [Layout("matmul", "TFLOP/s", MATMUL_LINES)],
    "lab04": [Layout("matmul", "TFLOP/s", MATMUL_LINES)],
    "lab05": [Layout("microbenchmark", "cycles", lower_is_better=True)],
    "lab06": [TRANSPOSE, COLUMN_MATMUL],
    "lab07": [TRANSPOSE, COLUMN_MATMUL],
    "lab08": [Layout("multiply-adds as operations", "TOPS", TOPS_LINES, log=True)],
    "lab09": [Layout("multiply-adds as operations", "TOPS", TOPS_LINES)],
}


@dataclass
class LabFigures:
    """One lab's tests/labNN_topic/figures.json."""
    folder: str  # e.g. "lab07_swizzle"
    course: dict
    chart: dict
    series: list[dict]
    lines: list[dict]

    @property
    def lab(self) -> str:
        return self.folder[:5]


def load_labs(tests_dir: Path | None = None) -> list[LabFigures]:
    """Every lab's figures.json (tests/labNN_*/), by lab; a series for a chart or panel that
    LAYOUT lacks, or of an unknown kind or conversion, is an error naming the file."""
    out = []
    for path in sorted((tests_dir or ROOT / "tests").glob(f"lab[0-9][0-9]_*/{FIGURES_FILE}")):
        data = json.loads(path.read_text(encoding="utf-8"))
        lab = LabFigures(path.parent.name, data.get("course") or {}, data.get("chart") or {},
                         data.get("series") or [], data.get("lines") or [])
        for s in lab.series:
            panels = [p.title for p in LAYOUT.get(str(s.get("chart")), [])]
            if s.get("panel") not in panels:
                raise ValueError(f"{path}: series '{s.get('label')}': no panel "
                                 f"'{s.get('panel')}' in chart {s.get('chart')} (tools/figures.py)")
            if s.get("kind") not in COLOURS:
                raise ValueError(f"{path}: series '{s.get('label')}': kind must be one of "
                                 f"{', '.join(COLOURS)}")
        for s in lab.series + lab.lines:
            if s.get("convert", "tflops_from_ms") not in CONVERSIONS:
                raise ValueError(f"{path}: '{s.get('label')}': unknown conversion "
                                 f"'{s.get('convert')}'")
        out.append(lab)
    return out


def named_tests(lab: LabFigures) -> list[tuple[str, str]]:
    """(test, measurement) of every measurement @p lab's figures.json reads."""
    out = []
    entries = [lab.course] + lab.series + lab.lines
    for e in entries:
        for part in [e] + [e.get(k) for k in ("multiply_by", "divide_by")]:
            if isinstance(part, dict) and part.get("test"):
                out.append((part["test"], part.get("measurement", "")))
    return out


def board_ratio(labs: list[LabFigures] | None = None) -> tuple[str, str]:
    """(test, measurement) of the headline ratio marked "board" (the class speed board's
    default); ("", "") when no lab marks one."""
    for lab in load_labs() if labs is None else labs:
        if lab.course.get("board"):
            return lab.course["test"], lab.course["measurement"]
    return "", ""


def _operand(ref: Reference, x: float | dict | None) -> float | None:
    return ref.get(x["test"], x["measurement"]) if isinstance(x, dict) else \
        None if x is None else float(x)


def value_of(ref: Reference, s: dict) -> float | None:
    """A series' or line's value: the measurement, times "multiply_by", over "divide_by",
    converted."""
    v = ref.get(s["test"], s["measurement"])
    if "multiply_by" in s:
        v = _mul(v, _operand(ref, s["multiply_by"]))
    if "divide_by" in s:
        v = _div(v, _operand(ref, s["divide_by"]))
    if "convert" in s:
        v = CONVERSIONS[s["convert"]](v)
    return v


def spec(ref: Reference,
         labs: list[LabFigures] | None = None) -> dict[str, tuple[str, list[Panel]]]:
    """Each chart of LAYOUT: its title (its lab's "chart") and its panels with their bars and
    lines, the labs' series in panel order."""
    labs = load_labs() if labs is None else labs
    c = ceilings(ref)
    lines = {"FP32 FMA peak": c["fp32_tflops"], "popc ceiling": c["popc_tops"],
             "memory bandwidth": c["bandwidth_gbs"]}
    for lab in labs:
        lines.update({ln["label"]: value_of(ref, ln) for ln in lab.lines})
    out: dict[str, tuple[str, list[Panel]]] = {}
    for chart, layout in LAYOUT.items():
        own = [lab for lab in labs if lab.lab == chart]
        others = sorted((lab for lab in labs if lab.lab != chart), key=lambda lab: lab.lab,
                        reverse=True)
        title = own[0].chart.get("title", chart) if own else chart
        panels = []
        for lay in layout:
            bars = [Bar(s["label"], value_of(ref, s), s["kind"]) for lab in own + others
                    for s in lab.series if s["chart"] == chart and s["panel"] == lay.title]
            panels.append(Panel(lay.title, lay.unit, bars,
                                [Line(name, lines.get(name)) for name in lay.lines],
                                lower_is_better=lay.lower_is_better, log=lay.log))
        out[chart] = (title, panels)
    return out


# ---------------------------------------------------------------------------
# The charts (drawn by tools/plot.py) and the style of the course map
# ---------------------------------------------------------------------------
STYLE = ("text{font-family:'DejaVu Sans',Verdana,Arial,sans-serif;fill:#212121}"
         ".h{font-size:15px;font-weight:bold}.p{font-size:12.5px;font-weight:bold}"
         ".s{font-size:11px;fill:#424242}.v{font-size:11px;font-weight:bold}")


def caption(gpu: dict, source: str) -> str:
    """What a lab's chart says under its panels: the GPU, the colours, the scores file."""
    return (f"{gpu.get('name') or 'GPU ?'}, {gpu.get('sms') or '?'} SMs at "
            f"{gpu.get('mhz') or '?'} MHz. Grey: baseline, blue: the lab's kernels, purple: for "
            f"comparison; dashed lines: the GPU's ceilings and cuBLAS. Source: {source}")


# ---------------------------------------------------------------------------
# The course map
# ---------------------------------------------------------------------------
def course(labs: list[LabFigures]) -> list[tuple[str, str, str, tuple[str, str] | None, str]]:
    """The course map's boxes, one per lab with a "course" entry: (NN, topic, what it teaches,
    (test, measurement) of its headline ratio or None, the words under the ratio)."""
    out = []
    for lab in labs:
        if not lab.course:
            continue
        c = lab.course
        key = (c["test"], c["measurement"]) if c.get("test") else None
        out.append((lab.lab[3:], lab.folder[6:], c.get("teaches", ""), key, c.get("what", "")))
    return out


def render_course_map(ref: Reference, labs: list[LabFigures] | None = None) -> str:
    boxes = course(load_labs() if labs is None else labs)
    box_w, box_h, gap = 196, 112, 22
    per_row = 5
    width = 16 * 2 + per_row * box_w + (per_row - 1) * gap
    out = [f'<text x="16" y="30" class="h">The course: {len(boxes)} labs, and what each step '
           'buys on the reference GPU</text>']
    rows = math.ceil(len(boxes) / per_row)
    for i, (nn, topic, teaches, key, what) in enumerate(boxes):
        r, col = divmod(i, per_row)
        slot = col if r % 2 == 0 else per_row - 1 - col  # a snake: odd rows run right to left
        x = 16 + slot * (box_w + gap)
        y = 50 + r * (box_h + 40)
        value = ref.get(*key) if key else None
        fill = "#e3f2fd" if value is None or value >= 1.0 else "#fff8e1"
        out.append(f'<rect x="{x}" y="{y}" width="{box_w}" height="{box_h}" rx="8" fill="{fill}" '
                   f'stroke="#1e88e5" stroke-width="1.2"/>')
        out.append(f'<text x="{x + 10}" y="{y + 22}" class="p">Lab {nn}</text>')
        out.append(f'<text x="{x + 10}" y="{y + 40}" class="s">{esc(topic)}</text>')
        out.append(f'<text x="{x + 10}" y="{y + 58}" class="s">{esc(teaches)}</text>')
        if value is not None:
            out.append(f'<text x="{x + 10}" y="{y + 84}" class="v" style="font-size:17px">'
                       f'{value:.3g}×</text>')
            out.append(f'<text x="{x + 10}" y="{y + 102}" class="s">{esc(what)}</text>')
        elif key:
            out.append(f'<text x="{x + 10}" y="{y + 84}" class="s">not yet measured</text>')
        else:
            out.append(f'<text x="{x + 10}" y="{y + 84}" class="s">graded on correctness</text>')
        if i + 1 < len(boxes):
            if col + 1 < per_row and r % 2 == 0:
                out.append(f'<path d="M{x + box_w + 3} {y + box_h / 2:g}h{gap - 8}" '
                           f'stroke="#1e88e5" stroke-width="2" marker-end="url(#arr)"/>')
            elif col + 1 < per_row:
                out.append(f'<path d="M{x - 3} {y + box_h / 2:g}h{-(gap - 8)}" '
                           f'stroke="#1e88e5" stroke-width="2" marker-end="url(#arr)"/>')
            else:
                out.append(f'<path d="M{x + box_w / 2:g} {y + box_h + 3}v30" stroke="#1e88e5" '
                           f'stroke-width="2" marker-end="url(#arr)"/>')
    height = 50 + rows * (box_h + 40) + 10
    out.append(f'<text x="16" y="{height - 12}" class="s">{esc(ref.gpu.get("name") or "")}: '
               f'ratios the graders measured (source: {esc(_source(ref))}).</text>')
    arrow = ('<defs><marker id="arr" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
             'markerHeight="7" orient="auto"><path d="M0 0L10 5L0 10z" fill="#1e88e5"/></marker>'
             '</defs>\n')
    return document(width, height, "Course map", STYLE, out, defs=arrow)


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------
def missing_series(ref: Reference) -> list[str]:
    """'labNN: series' for every bar of a chart whose measurement the scores file lacks."""
    out = []
    for lab, (_title, panels) in spec(ref).items():
        for p in panels:
            for b in p.bars:
                if b.value is None:
                    out.append(f"{lab} ({p.title}): '{b.label}'")
    return out


def charts(ref: Reference) -> tuple[dict[str, Chart], list[str]]:
    """Each lab's chart by file name (labNN.svg), and a note for every chart left out (no
    measurement of it in the scores file)."""
    out: dict[str, Chart] = {}
    notes: list[str] = []
    for lab, (title, panels) in spec(ref).items():
        if not any(b.value for p in panels for b in p.bars):
            notes.append(f"{lab}: no measurement in {_source(ref)}; chart left out")
            continue
        out[f"{lab}.svg"] = Chart(title, panels, caption(ref.gpu, _source(ref)))
    return out, notes


def drawings(ref: Reference) -> dict[str, str]:
    """The figures drawn here with the standard library, by file name: the diagrams and the
    course map (compared byte for byte)."""
    files = diagrams.all_diagrams()
    files["course_map.svg"] = render_course_map(ref)
    return files


def stale(out: Path, drawn: dict[str, Chart], exact: dict[str, str]) -> list[str]:
    """What is wrong with each figure of @p out: a chart missing or drawn from other data
    (its digest), a drawing missing or not the same bytes."""
    problems = []
    for name, chart in drawn.items():
        path = out / name
        if not path.is_file():
            problems.append(f"{path}: missing")
            continue
        carried = plot.digest_in(path.read_text(encoding="utf-8"))
        if carried is None:
            problems.append(f"{path}: carries no chart digest (not drawn by tools/plot.py)")
        elif carried != plot.digest(chart):
            problems.append(f"{path}: stale, drawn from other data (a value, label, title, "
                            f"unit, line or the caption changed, or the renderer's format)")
    for name, text in exact.items():
        path = out / name
        if not path.is_file():
            problems.append(f"{path}: missing")
        elif path.read_text(encoding="utf-8") != text:
            problems.append(f"{path}: differs from what tools/figures.py draws now")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tools.figures", description=__doc__.split("\n\n")[0])
    ap.add_argument("--scores", type=Path,
                    help="scores.json of a run, or a reference-run Markdown file (default: "
                         "docs/reference/scores.json, else docs/reference-run.md)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder of the SVG files")
    ap.add_argument("--check", action="store_true",
                    help="check the files in --out instead of writing them (the charts by "
                         "their digest: no matplotlib needed)")
    ap.add_argument("--allow-missing", action="store_true",
                    help="draw what a partial run has instead of failing when a chart's series "
                         "is missing from the scores file")
    args = ap.parse_args(argv)
    try:
        ref = load_reference(args.scores.resolve() if args.scores else None)
    except (OSError, ValueError) as e:
        print(f"figures: {e}", file=sys.stderr)
        return 2
    missing = missing_series(ref)
    if missing and not args.allow_missing:
        for m in missing:
            print(f"figures: chart {m} has no measurement in {ref.source}", file=sys.stderr)
        print(f"figures: {len(missing)} series missing: a measurement was renamed or not run; "
              f"fix the series in tests/labNN_topic/{FIGURES_FILE} (or --allow-missing for a "
              "partial run)",
              file=sys.stderr)
        return 1
    drawn, notes = charts(ref)
    exact = drawings(ref)
    for n in notes:
        print(f"figures: {n}")
    if args.check:
        problems = stale(args.out, drawn, exact)
        for problem in problems:
            print(f"figures: {problem}")
        if problems:
            print("figures: regenerate with: python3 -m tools.figures")
            return 1
        print(f"figures: {len(drawn) + len(exact)} figures up to date in {args.out} "
              f"(source {ref.source.name})")
        return 0
    try:
        files = {name: plot.render(chart) for name, chart in drawn.items()}
    except plot.MissingMatplotlib as e:
        print(f"figures: {e}", file=sys.stderr)
        return 2
    files.update(exact)
    args.out.mkdir(parents=True, exist_ok=True)
    for n, text in files.items():
        (args.out / n).write_text(text, encoding="utf-8")
    print(f"figures: wrote {len(files)} figures to {args.out} (source {ref.source})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
