# SPDX-License-Identifier: BSD-3-Clause
"""Throughput charts of every lab (SVG) and the course map, drawn from a scores file.

    python3 -m tools.figures                          # the reference run -> docs/figures/perf
    python3 -m tools.figures --check                  # exit 1 when a committed chart is stale
    python3 -m tools.figures --scores build/student/scores.json --out build/student/figures
                                                      # your own run (after the scoreboard)

Each chart shows, for one lab, the throughput the grader measured for every variant next to
its baseline, cuBLAS SGEMM where it applies (measured by lab 09's grader in the same run)
and the physical ceiling of the GPU (FP32 FMA peak, memory bandwidth or the popcount unit),
all in one unit (TFLOP/s, GB/s, TOPS or cycles). A series missing from the scores file (a
renamed measurement, a test that did not run) is an error naming the chart and the series,
exit status 1; `--allow-missing` draws what a partial run has instead. The same folder holds
the diagrams of tools/diagrams.py (labs 01 and 10-14), which need no data.

The reference is `docs/reference/scores.json` (the scoreboard's `scores.json` of the
reference run, schema docs/scores-schema.md) when it exists; otherwise the Measurements
table of `docs/reference-run.md`, the same numbers as the scoreboard printed them.
`load_reference()` is shared with the instructors' handout check, which checks the numbers the
handouts quote against the same file. Python 3 standard library only; deterministic output.
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
from .svg import document, esc  # the SVG file around every figure

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
        for t in data.get("tests", []):
            for m in t.get("measurements", []):
                if isinstance(m.get("value"), (int, float)):
                    ref.measurements[(t["name"], m["name"])] = (float(m["value"]), m.get("unit", ""))
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


# ---------------------------------------------------------------------------
# Chart specifications
# ---------------------------------------------------------------------------
@dataclass
class Bar:
    label: str
    value: float | None
    kind: str  # "baseline", "variant" (the student's kernel), "other"


@dataclass
class Line:
    label: str
    value: float | None


@dataclass
class Panel:
    title: str
    unit: str
    bars: list[Bar]
    lines: list[Line] = field(default_factory=list)
    lower_is_better: bool = False
    log: bool = False
    # Counts (histograms): every bar drawn, empty ones too, labelled and ticked as integers.
    counts: bool = False


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


def cublas_tflops(ref: Reference) -> float | None:
    return tflops_from_ms(ref.get("lab09.CublasPerf.TiledBinaryGemmBeatsCublasSgemm",
                                  "cublas_sgemm_ms"))


def matmul_lines(ref: Reference) -> list[Line]:
    c = ceilings(ref)
    return [Line("cuBLAS SGEMM", cublas_tflops(ref)), Line("FP32 FMA peak", c["fp32_tflops"])]


def lab04_static(ref: Reference) -> float | None:
    return ref.get("lab04.TiledPerf.StaticTilesBeatNaive", "static_tflops")


def spec(ref: Reference) -> dict[str, tuple[str, list[Panel]]]:
    g = ref.get
    c = ceilings(ref)
    t02 = "lab02.CoalescingPerf.ThreadPerElementBeatsUncoalescedBaseline"
    t03 = "lab03.PitchPerf.PitchedMatmulKeepsTwoThirdsOfUnpitchedSpeed"
    t04 = "lab04.TiledPerf.DynamicTilesKeepUpWithNaive"
    t02r = "lab02.CoalescingPerf.RowPerBlockBeatsUncoalescedBaseline"
    t05 = "lab05.MicrobenchPerf.AllConflictIsSlowerByTheThreshold"
    t06t = "lab06.PaddedPerf.TransposeBeatsTheConflictingTranspose"
    t06m = "lab06.PaddedPerf.MatmulBeatsTheConflictingMatmul"
    t07t = "lab07.SwizzledPerf.TransposeBeatsTheConflictingTranspose"
    t07m = "lab07.SwizzledPerf.MatmulBeatsTheConflictingMatmul"
    t08p = "lab08.XnorPerf.PopcIsFasterThanFloatOneBlockPerRow"
    t08t = "lab08.XnorPerf.TableIsFasterThanFloatOneBlockPerRow"
    t09t = "lab09.TiledPerf.PopcTiledIsFasterThanNaiveXnor"
    t09c = "lab09.CublasPerf.TiledBinaryGemmBeatsCublasSgemm"
    t09r = "lab09.RegisterTiledPerf.ReachesThreeQuartersOfThePopcCeiling"
    gf = lambda t, n: _div(g(t, n), 1000.0)  # noqa: E731  GFLOP/s -> TFLOP/s
    static = lab04_static(ref)
    tiled_ms = g(t09c, "tiled_xnor_ms")
    transpose_bw = Line("memory bandwidth", c["bandwidth_gbs"])
    popc_line = Line("popc ceiling", c["popc_tops"])
    return {
        "lab02": ("Lab 02: coalescing (4096³ matmul, the grader's perf test)", [
            Panel("matmul", "TFLOP/s", [
                Bar("baseline: x walks rows (uncoalesced)", gf(t02, "lab02 uncoalesced baseline"),
                    "baseline"),
                Bar("thread per element, x walks columns",
                    gf(t02, "thread_per_element_matmul with block 32x8"), "variant"),
                Bar("one block per row", gf(t02r, "row_per_block_matmul with 256 threads per block"),
                    "variant")], matmul_lines(ref), log=True)]),
        "lab03": ("Lab 03: pitched rows (4001³ matmul, the grader's perf test)", [
            Panel("matmul", "TFLOP/s", [
                Bar("baseline: packed rows", gf(t03, "lab03 unpitched baseline"), "baseline"),
                Bar("pitched rows", gf(t03, "lab03 pitched_matmul"), "variant")],
                matmul_lines(ref))]),
        "lab04": ("Lab 04: shared-memory tiles (4096³ matmul, the grader's perf tests)", [
            Panel("matmul", "TFLOP/s", [
                Bar("baseline: naive 16×16", _div(static, g("lab04.TiledPerf.StaticTilesBeatNaive",
                                                            "speedup")), "baseline"),
                Bar("tiled, static 32×32", static, "variant"),
                Bar("tiled, dynamic (48 KB plan)", g(t04, "dynamic_tflops"), "variant")],
                matmul_lines(ref))]),
        "lab05": ("Lab 05: cycles per dependent shared load (lower is better)", [
            Panel("microbenchmark", "cycles", [
                Bar("conflict-free (lane i: word i)", g(t05, "conflict_free_cycles"), "variant"),
                Bar("32-way (lane i: word 32 i)", g(t05, "all_conflict_cycles"), "baseline")],
                lower_is_better=True)]),
        "lab06": ("Lab 06: padding (4096² transpose, 4096³ matmul, the grader's perf tests)", [
            Panel("transpose", "GB/s", [
                Bar("baseline: conflicting [32][32]", g(t06t, "conflicting transpose"),
                    "baseline"),
                Bar("padded [32][33]", g(t06t, "padded transpose"), "variant")], [transpose_bw]),
            Panel("column-access matmul", "TFLOP/s", [
                Bar("baseline: conflicting [32][32]", g(t06m, "conflicting matmul"), "baseline"),
                Bar("padded [32][33]", g(t06m, "padded matmul"), "variant"),
                Bar("lab 04: static tiles, row access", static, "other")], matmul_lines(ref))]),
        "lab07": ("Lab 07: XOR swizzle (4096² transpose, 4096³ matmul, the grader's perf tests)", [
            Panel("transpose", "GB/s", [
                Bar("baseline: conflicting", g(t07t, "conflicting transpose"), "baseline"),
                Bar("XOR-swizzled", g(t07t, "swizzled transpose"), "variant"),
                Bar("lab 06: padded", g(t06t, "padded transpose"), "other")], [transpose_bw]),
            Panel("column-access matmul", "TFLOP/s", [
                Bar("baseline: conflicting", g(t07m, "conflicting matmul"), "baseline"),
                Bar("XOR-swizzled", g(t07m, "swizzled matmul"), "variant"),
                Bar("lab 06: padded", g(t06m, "padded matmul"), "other"),
                Bar("lab 04: static tiles, row access", static, "other")], matmul_lines(ref))]),
        "lab08": ("Lab 08: ±1 matmul as bits (4096³, one block per row, <<<4096, 32>>>)", [
            Panel("multiply-adds as operations", "TOPS", [
                Bar("baseline: float", g(t08p, "float_rows_tops"), "baseline"),
                Bar("XNOR, popcount table", _mul(g(t08t, "xnor_table_tbitops"), 2.0), "variant"),
                Bar("XNOR, __popc", _mul(g(t08p, "xnor_popc_tbitops"), 2.0), "variant")],
                [Line("FP32 FMA peak", c["fp32_tflops"]), popc_line], log=True)]),
        "lab09": ("Lab 09: tiled binary GEMM against cuBLAS (4096³, the grader's perf tests)", [
            Panel("multiply-adds as operations", "TOPS", [
                Bar("cuBLAS SGEMM (float, same ±1 data)", cublas_tflops(ref), "other"),
                Bar("baseline: naive XNOR <<<4096, 32>>>",
                    tflops_from_ms(_mul(tiled_ms, g(t09t, "speedup"))), "baseline"),
                Bar("tiled 16×16, __popc", tflops_from_ms(tiled_ms), "variant"),
                Bar("register-tiled, 64-bit (advanced)",
                    tflops_from_ms(g(t09r, "register_tiled_ms")), "variant")],
                [Line("FP32 FMA peak", c["fp32_tflops"]), popc_line])]),
    }


# ---------------------------------------------------------------------------
# SVG
# ---------------------------------------------------------------------------
STYLE = ("text{font-family:'DejaVu Sans',Verdana,Arial,sans-serif;fill:#212121}"
         ".h{font-size:15px;font-weight:bold}.p{font-size:12.5px;font-weight:bold}"
         ".s{font-size:11px;fill:#424242}.v{font-size:11px;font-weight:bold}"
         ".a{font-size:9.5px;fill:#616161;text-anchor:middle}.r{font-size:10px;fill:#37474f}"
         ".e{text-anchor:end}")
COLOURS = {"baseline": "#90a4ae", "variant": "#1e88e5", "other": "#ab47bc"}


def fmt(v: float) -> str:
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def nice_ticks(vmax: float, log: bool, vmin: float) -> list[float]:
    if log:
        lo = math.floor(math.log10(vmin))
        hi = math.ceil(math.log10(vmax))
        return [m * 10 ** e for e in range(lo, hi + 1) for m in (1, 2, 5)
                if vmin / 1.01 <= m * 10 ** e <= vmax * 1.0001]
    step = 10 ** math.floor(math.log10(vmax / 4))
    for m in (1, 2, 2.5, 5, 10):
        if vmax / (m * step) <= 6:
            step *= m
            break
    return [i * step for i in range(int(vmax / step) + 1)]


def draw_panel(out: list[str], x0: float, y0: float, width: float, p: Panel) -> float:
    # The bars and lines drawn, each with its value (those without one are not drawn).
    bars = [(b, b.value) for b in p.bars if b.value is not None and (b.value > 0 or p.counts)]
    lines = [(ln, ln.value) for ln in p.lines if ln.value is not None and ln.value > 0]
    label_of = (lambda v: f"{int(round(v))}") if p.counts else fmt
    label_w = 250
    bar_h, gap = 22, 10
    out.append(f'<text x="{x0:g}" y="{y0 + 14:g}" class="p">{esc(p.title)} ({esc(p.unit)}'
               f'{", lower is better" if p.lower_is_better else ""}'
               f'{", log scale" if p.log else ""})</text>')
    if not bars:
        out.append(f'<text x="{x0:g}" y="{y0 + 36:g}" class="s">no measurement in this scores '
                   f'file</text>')
        return 50
    values = [v for _, v in bars] + [v for _, v in lines]
    vmax = max(max(values), 1.0 if p.counts else 0.0) * 1.12
    vmin = min(values) / 1.5 if p.log else 0.0
    gx, gw = x0 + label_w, width - label_w - 45

    def pos(v: float) -> float:
        if p.log:
            return gx + gw * (math.log10(v) - math.log10(vmin)) / (math.log10(vmax) - math.log10(vmin))
        return gx + gw * v / vmax

    top = y0 + 30 + 12 * len(lines)
    height = len(bars) * (bar_h + gap)
    # axis ticks
    for t in nice_ticks(vmax, p.log, vmin if p.log else 1):
        if p.log and t < vmin:
            continue
        if p.counts and t != int(t):
            continue  # no half students
        x = pos(t) if t > 0 else gx
        out.append(f'<line x1="{x:g}" y1="{top - 4:g}" x2="{x:g}" y2="{top + height:g}" '
                   f'stroke="#eceff1" stroke-width="1"/>')
        out.append(f'<text x="{x:g}" y="{top + height + 13:g}" class="a">{t:g}'
                   f'</text>')
    # bars
    for i, (b, value) in enumerate(bars):
        y = top + i * (bar_h + gap)
        x1 = pos(value)
        x_start = gx if not p.log else pos(vmin)
        out.append(f'<text x="{gx - 8:g}" y="{y + bar_h - 6:g}" class="s e">{esc(b.label)}</text>')
        out.append(f'<rect x="{x_start:g}" y="{y:g}" width="{max(x1 - x_start, 0 if p.counts and not value else 1.5):g}" '
                   f'height="{bar_h:g}" fill="{COLOURS[b.kind]}"/>')
        out.append(f'<text x="{x1 + 5:g}" y="{y + bar_h - 6:g}" class="v">{label_of(value)}'
                   f'</text>')
    # reference lines, labels stacked above the bars
    for j, (ln, value) in enumerate(sorted(lines, key=lambda lv: lv[1])):
        x = pos(value)
        ly = y0 + 30 + 12 * j
        out.append(f'<line x1="{x:g}" y1="{ly + 2:g}" x2="{x:g}" y2="{top + height:g}" '
                   f'stroke="#d32f2f" stroke-width="1.3" stroke-dasharray="4 3"/>')
        out.append(f'<text x="{x - 4:g}" y="{ly:g}" class="r e">{esc(ln.label)} {fmt(value)}'
                   f'</text>')
    return top - y0 + height + 24


def render_chart(title: str, panels: list[Panel], gpu: dict, source: str) -> str:
    width = 900
    out: list[str] = []
    y: float = 16
    out.append(f'<text x="16" y="{y + 14}" class="h">{esc(title)}</text>')
    y += 24
    for p in panels:
        y += 10
        y += draw_panel(out, 16, y, width - 32, p)
    note = (f"{gpu.get('name') or 'GPU ?'}, {gpu.get('sms') or '?'} SMs at {gpu.get('mhz') or '?'}"
            f" MHz; grey: baseline, blue: the lab's kernels, purple: for comparison; dashed: "
            f"ceilings and cuBLAS. Source: {source}")
    out.append(f'<text x="16" y="{y + 8}" class="s">{esc(note)}</text>')
    return document(width, y + 22, title, STYLE, out)


# ---------------------------------------------------------------------------
# The course map
# ---------------------------------------------------------------------------
COURSE = [
    ("01", "hello_addone", "grid, block, thread; bounds", None, ""),
    ("02", "naive_matmul", "coalescing", ("lab02.CoalescingPerf."
                                          "ThreadPerElementBeatsUncoalescedBaseline", "speedup"),
     "over x-walks-rows"),
    ("03", "pitch", "cudaMallocPitch, 2-D copies", ("lab03.PitchPerf."
                                                     "PitchedMatmulKeepsTwoThirdsOfUnpitchedSpeed", "speedup"),
     "of packed (no regression)"),
    ("04", "shared_memory", "tiles, static vs dynamic", ("lab04.TiledPerf.StaticTilesBeatNaive",
                                                         "speedup"), "over naive"),
    ("05", "bank_conflict", "bank model, measured", ("lab05.MicrobenchPerf."
                                                      "AllConflictIsSlowerByTheThreshold",
                                                      "slowdown"), "a 32-way load costs"),
    ("06", "padding", "[32][33] against conflicts", ("lab06.PaddedPerf."
                                                      "MatmulBeatsTheConflictingMatmul", "speedup"),
     "over the conflicting matmul"),
    ("07", "swizzle", "XOR swizzle, no extra memory", ("lab07.SwizzledPerf."
                                                       "MatmulBeatsTheConflictingMatmul", "speedup"),
     "over the conflicting matmul"),
    ("08", "xnor", "±1 as bits: XNOR + popcount", ("lab08.XnorPerf."
                                                   "PopcIsFasterThanFloatOneBlockPerRow", "speedup"),
     "over float, same launch"),
    ("09", "blocked_xnor", "tiled binary GEMM", ("lab09.RegisterTiledPerf.BeatsCublasSgemm",
                                                 "speedup"), "over cuBLAS SGEMM"),
    ("10", "layout", "sectors; SoA vs AoS", ("lab10.PointsPerf.XOnlySoaIsFasterThanAos4",
                                             "speedup"), "SoA over AoS, one field"),
    ("11", "vectorized", "128-bit accesses", ("lab11.CopyPerf.Float4BeatsScalarWithFourWarpsPerSm",
                                              "speedup"), "float4 over scalar, 4 warps/SM"),
    ("12", "prefetch", "prefetch, cp.async, TMA", ("lab12.LatencyExposedPerf."
                                                   "RegisterPrefetchHidesTheLoadLatency",
                                                   "speedup"), "one block/SM, over sync"),
    ("13", "sgemm", "register and warp tiles, cp.async", ("lab13.SgemmPerf.SwizzledShareOfCublas",
                                                          "speedup"), "of cuBLAS SGEMM"),
    ("14", "binary_mma", "1-bit tensor cores", ("lab14.PipelinedPerf.MultipleOfThePopcCeiling",
                                                "binary_mma_pipelined_x_popc_ceiling"),
     "the CUDA cores' popc ceiling"),
]


def render_course_map(ref: Reference) -> str:
    box_w, box_h, gap = 196, 112, 22
    per_row = 5
    width = 16 * 2 + per_row * box_w + (per_row - 1) * gap
    out = [f'<text x="16" y="30" class="h">The course: {len(COURSE)} labs, and what each step '
           'buys on the reference GPU</text>']
    rows = math.ceil(len(COURSE) / per_row)
    for i, (nn, topic, teaches, key, what) in enumerate(COURSE):
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
        if i + 1 < len(COURSE):
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
    src = ref.source.relative_to(ROOT) if ref.source.is_relative_to(ROOT) else ref.source
    out.append(f'<text x="16" y="{height - 12}" class="s">{esc(ref.gpu.get("name") or "")}: '
               f'ratios the graders measured (source: {esc(str(src))}).</text>')
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


def build(ref: Reference) -> tuple[dict[str, str], list[str]]:
    files: dict[str, str] = {}
    notes: list[str] = []
    src = ref.source.relative_to(ROOT) if ref.source.is_relative_to(ROOT) else ref.source
    for lab, (title, panels) in spec(ref).items():
        if not any(b.value for p in panels for b in p.bars):
            notes.append(f"{lab}: no measurement in {src}; chart left out")
            continue
        files[f"{lab}.svg"] = render_chart(title, panels, ref.gpu, str(src))
    files.update(diagrams.all_diagrams())
    files["course_map.svg"] = render_course_map(ref)
    return files, notes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tools.figures", description=__doc__.split("\n\n")[0])
    ap.add_argument("--scores", type=Path,
                    help="scores.json of a run, or a reference-run Markdown file (default: "
                         "docs/reference/scores.json, else docs/reference-run.md)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder of the SVG files")
    ap.add_argument("--check", action="store_true",
                    help="compare with the files in --out instead of writing them")
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
              f"fix the chart's spec in tools/figures.py (or --allow-missing for a partial run)",
              file=sys.stderr)
        return 1
    files, notes = build(ref)
    for n in notes:
        print(f"figures: {n}")
    if args.check:
        stale = [n for n, text in files.items()
                 if not (args.out / n).is_file() or (args.out / n).read_text() != text]
        for n in stale:
            print(f"figures: {args.out / n} is missing or differs from {ref.source}")
        if stale:
            print("figures: regenerate with: python3 -m tools.figures")
            return 1
        print(f"figures: {len(files)} charts up to date in {args.out} (source {ref.source.name})")
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    for n, text in files.items():
        (args.out / n).write_text(text)
    print(f"figures: wrote {len(files)} charts to {args.out} (source {ref.source})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
