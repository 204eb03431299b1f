# SPDX-License-Identifier: BSD-3-Clause
"""The course's bar charts, drawn with matplotlib as SVG: a lab's throughput chart
(tools/figures.py) and the instructors' class charts.

A chart is data: a Chart (title, caption) of Panels, each a set of horizontal Bars (a label,
a value, a kind: "baseline", "variant" or "other") and reference Lines (a ceiling, cuBLAS, a
pass bar). render() draws one as an SVG document; only it needs matplotlib (Debian:
python3-matplotlib), and without it raises MissingMatplotlib with the one line to print.
The output is deterministic for one matplotlib version: the Agg backend, a fixed
svg.hashsalt (the clip paths' ids), no date or creator in the metadata, text kept as SVG text
(svg.fonttype "none", so labels and values stay searchable).

Every SVG carries, in an XML comment before its root element, the digest of the chart it
was drawn from: sha256 of the chart's data (every label, value, title, unit, line and the
caption) and of FORMAT, the renderer's tag. A check of committed charts compares that digest
with the data's (digest(), digest_in(); standard library only) instead of the bytes, which
change from one matplotlib version to the next. FORMAT changes when the drawing changes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import re
import textwrap
from dataclasses import dataclass, field
from typing import Any

FORMAT = "matplotlib/1"  # the renderer and its drawing: a new drawing, a new number
MISSING = "needs matplotlib (Debian: apt-get install python3-matplotlib)"
STAMP = re.compile(r"<!-- cudalabs chart: (?P<format>[^>]*?) sha256=(?P<digest>[0-9a-f]{64}) -->")
# Bar colours by kind; a chart's caption says what each means there.
COLOURS = {"baseline": "#90a4ae", "variant": "#1e88e5", "other": "#ab47bc"}
# Reference lines, in the order of their values: colour and dash of each.
LINE_STYLES = [("#d32f2f", (0, (5, 3))), ("#ef6c00", (0, (2, 2))), ("#5d4037", (0, (6, 2, 1, 2)))]
TEXT, MUTED, GRID = "#212121", "#546e7a", "#eceff1"
WIDTH_IN = 9.0
# Characters of a caption line that fit WIDTH_IN at the caption's size (the SVG does not wrap).
CAPTION_CHARS = 130
RC = {"svg.hashsalt": "cudalabs", "svg.fonttype": "none", "font.family": "DejaVu Sans",
      "font.size": 9, "text.color": TEXT, "axes.labelcolor": TEXT, "axes.edgecolor": "#b0bec5",
      "xtick.color": MUTED, "ytick.color": TEXT, "axes.spines.top": False,
      "axes.spines.right": False, "axes.titlesize": 10, "axes.titleweight": "bold",
      "axes.titlelocation": "left", "axes.titlepad": 8, "legend.fontsize": 8,
      "legend.frameon": False, "figure.facecolor": "white"}


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


@dataclass
class Chart:
    title: str
    panels: list[Panel]
    caption: str  # sentences; drawn a sentence per line where it fits


class MissingMatplotlib(RuntimeError):
    """render() without matplotlib; str() is the one line to print."""


def fmt(v: float) -> str:
    """A measured value as a chart labels it: 3 significant digits, at most 2 decimals."""
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def digest(chart: Chart) -> str:
    """sha256 of FORMAT and everything @p chart shows (no matplotlib needed)."""
    data = json.dumps({"format": FORMAT, "chart": dataclasses.asdict(chart)}, sort_keys=True,
                      ensure_ascii=False)
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


def digest_in(svg: str) -> str | None:
    """The digest an SVG of render() carries; None for any other file."""
    m = STAMP.search(svg)
    return m["digest"] if m else None


def caption_lines(caption: str) -> list[str]:
    """@p caption a sentence per line where it fits, else wrapped at CAPTION_CHARS."""
    lines: list[str] = []
    for sentence in re.split(r"(?<=\.) (?=[A-Z])", caption):
        lines += textwrap.wrap(sentence, CAPTION_CHARS) or [""]
    return lines


def _drawn(p: Panel) -> tuple[list[Bar], list[Line]]:
    """The bars and lines of @p p that have a value to draw (a log axis or a throughput
    cannot show 0; a count of 0 is drawn)."""
    bars = [b for b in p.bars if b.value is not None and (b.value > 0 or p.counts)]
    lines = [ln for ln in p.lines if ln.value is not None and ln.value > 0]
    return bars, lines


def _draw_panel(ax: Any, ticker: Any, p: Panel, k: int) -> None:
    bars, lines = _drawn(p)
    ax.set_title(p.title)
    ax.set_xlabel(p.unit + (", lower is better" if p.lower_is_better else "")
                  + (", log scale" if p.log else ""), color=MUTED)
    if not bars:
        ax.set_axis_off()
        ax.text(0, 0.5, "no measurement in this scores file", transform=ax.transAxes,
                color=MUTED, va="center")
        return
    values = [b.value or 0.0 for b in bars]
    top = max(values + [ln.value or 0.0 for ln in lines] + [1.0 if p.counts else 0.0])
    if p.log:
        low = min(values + [ln.value or top for ln in lines]) / 1.6
        ax.set_xscale("log")
        ax.set_xlim(low, top * 1.9)
        ax.xaxis.set_major_locator(ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
        ax.xaxis.set_minor_locator(ticker.NullLocator())
        ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    else:
        low = 0.0
        ax.set_xlim(0, top * 1.13)
        ax.xaxis.set_major_locator(ticker.MaxNLocator(nbins=7, steps=[1, 2, 2.5, 5, 10],
                                                      integer=p.counts))
    ys = list(range(len(bars)))
    ax.barh(ys, [v - low for v in values], left=low, height=0.68,
            color=[COLOURS[b.kind] for b in bars], zorder=2)
    ax.set_yticks(ys, [b.label for b in bars])
    ax.set_ylim(len(bars) - 0.4, -0.6)  # the first bar on top
    ax.tick_params(axis="y", length=0)
    ax.grid(axis="x", color=GRID, linewidth=0.8, zorder=0)
    ax.set_axisbelow(True)
    for i, (b, v) in enumerate(zip(bars, values)):
        ax.annotate(f"{int(round(v))}" if p.counts else fmt(v), (v, i), xytext=(3, 0),
                    textcoords="offset points", va="center", fontsize=8, fontweight="bold",
                    zorder=4, bbox={"boxstyle": "square,pad=0.15", "fc": "white", "ec": "none",
                                    "alpha": 0.85}, gid=f"value-{k}-{i}")
    for j, ln in enumerate(sorted(lines, key=lambda ln: ln.value or 0.0)):
        colour, dash = LINE_STYLES[j % len(LINE_STYLES)]
        ax.axvline(ln.value, color=colour, linestyle=dash, linewidth=1.3, zorder=3,
                   label=f"{ln.label} {fmt(ln.value or 0.0)} {p.unit}")
    if lines:
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), handlelength=2.6)


def render(chart: Chart) -> str:
    """@p chart as an SVG document carrying its digest; MissingMatplotlib without matplotlib."""
    try:
        import matplotlib
    except ImportError:
        raise MissingMatplotlib(MISSING) from None
    matplotlib.use("Agg")
    from matplotlib import ticker
    from matplotlib.figure import Figure

    caption = caption_lines(chart.caption)
    rows = [max(len(_drawn(p)[0]), 1) for p in chart.panels] or [1]
    heights = [0.75 + 0.27 * n for n in rows]
    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(WIDTH_IN, 0.55 + sum(heights) + 0.17 * len(caption)),
                     layout="constrained")
        fig.get_layout_engine().set(w_pad=0.1, h_pad=0.08, hspace=0.06)
        fig.suptitle(chart.title, x=0.01, ha="left", fontsize=12, fontweight="bold")
        axes = fig.subplots(len(rows), 1, squeeze=False, height_ratios=heights)[:, 0]
        for k, (ax, p) in enumerate(zip(axes, chart.panels)):
            _draw_panel(ax, ticker, p, k)
        fig.supxlabel("\n".join(caption), x=0.01, ha="left", fontsize=7.5, color=MUTED,
                      linespacing=1.5)
        out = io.StringIO()
        fig.savefig(out, format="svg", metadata={"Title": chart.title, "Date": None,
                                                 "Creator": None})
    svg = re.sub(r" +\n", "\n", out.getvalue())  # path data ends its lines with a space
    stamp = f"<!-- cudalabs chart: {FORMAT} sha256={digest(chart)} -->\n"
    at = svg.index("<svg")
    return svg[:at] + stamp + svg[at:]
