# SPDX-License-Identifier: BSD-3-Clause
"""Lane x bank grids and tile maps of shared-memory access patterns, as SVG figures.

    python3 -m tools.bank_figures                 # (re)write docs/figures/banks/*.svg
    python3 -m tools.bank_figures --check         # exit 1 when a committed figure is stale
    python3 -m tools.bank_figures --table         # the model's numbers of every pattern
    python3 -m tools.bank_figures --out DIR       # write the figures somewhere else

The model is the course's (labs 05-09, `cudalab/bank_model.hpp`): 32 banks of 4-byte words,
bank = (byte address / 4) % 32; lanes reading the same word are served together; a bank
serves one distinct word per pass, so a request's degree is the largest number of distinct
words one bank must deliver. 8-byte and 16-byte accesses are split into fixed half-warp
and quarter-warp phases, each a separate pass group (a simplification: see lab 05).

A lane x bank grid has one row per lane (grouped by phase) and one column per bank; a
coloured cell is a word the lane needs, its number the pass that serves it. The last row
gives the passes each bank needs. A tile map shows, for a 32 x 32 tile of floats, the bank
of every element (row r, column c) and outlines one column read by a warp.

Python 3 standard library only; the output is deterministic (byte-identical on re-runs).
"""

from __future__ import annotations

import argparse
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "docs" / "figures" / "banks"

NUM_BANKS = 32
WARP = 32
LANES_PER_PHASE = {1: 32, 2: 32, 4: 32, 8: 16, 16: 8}


# ---------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------
@dataclass
class Request:
    """One warp-wide access: byte address per lane (None = inactive lane) and width."""

    addresses: list[int | None]
    width: int = 4

    def words(self, lane: int) -> list[int]:
        a = self.addresses[lane]
        if a is None:
            return []
        first = a // 4
        count = max(1, self.width // 4)
        return [first + i for i in range(count)]


@dataclass
class Verdict:
    degree: int
    wavefronts: int
    phase_degrees: list[int]
    passes: dict[tuple[int, int], int] = field(default_factory=dict)  # (lane, bank) -> pass
    bank_passes: list[int] = field(default_factory=list)


def analyse(r: Request) -> Verdict:
    lanes = LANES_PER_PHASE[r.width]
    phases = WARP // lanes
    passes: dict[tuple[int, int], int] = {}
    bank_passes = [0] * NUM_BANKS
    degrees = []
    for p in range(phases):
        seen: list[list[int]] = [[] for _ in range(NUM_BANKS)]
        for lane in range(p * lanes, (p + 1) * lanes):
            for word in r.words(lane):
                bank = word % NUM_BANKS
                if word not in seen[bank]:
                    seen[bank].append(word)
                n = seen[bank].index(word) + 1
                passes[(lane, bank)] = n
                bank_passes[bank] = max(bank_passes[bank], n)
        degrees.append(max((len(s) for s in seen), default=0))
    return Verdict(max(degrees), sum(degrees), degrees, passes, bank_passes)


def words_request(words: list[int | None]) -> Request:
    return Request([None if w is None else 4 * w for w in words], 4)


def elements_request(elements: list[int], width: int) -> Request:
    return Request([width * e for e in elements], width)


# ---------------------------------------------------------------------------
# The patterns the handouts show
# ---------------------------------------------------------------------------
def _lanes() -> range:
    return range(WARP)


def _seed_table_request() -> Request:
    # One warp of byte lookups into a 256-entry table of bytes (64 words), table at byte 0:
    # 32 seeded random byte values, one per lane.
    rng = random.Random(2024)
    return Request([rng.randrange(256) for _ in _lanes()], 1)


PATTERNS: dict[str, tuple[str, Callable[[], Request]]] = {
    # lab 05
    "stride1": ("lane i reads word i", lambda: words_request([i for i in _lanes()])),
    "stride2": ("lane i reads word 2i", lambda: words_request([2 * i for i in _lanes()])),
    "stride32": ("lane i reads word 32i", lambda: words_request([32 * i for i in _lanes()])),
    "stride33": ("lane i reads word 33i", lambda: words_request([33 * i for i in _lanes()])),
    "broadcast": ("every lane reads word 0", lambda: words_request([0] * WARP)),
    "float2_stride1": ("float2: lane i reads element i",
                       lambda: elements_request(list(_lanes()), 8)),
    "float4_stride1": ("float4: lane i reads element i",
                       lambda: elements_request(list(_lanes()), 16)),
    "float4_stride2": ("float4: lane i reads element 2i",
                       lambda: elements_request([2 * i for i in _lanes()], 16)),
    "float4_pairs": ("float4: lanes 2j, 2j+1 read element j",
                     lambda: elements_request([i // 2 for i in _lanes()], 16)),
    # lab 06 / 07: a warp reads column 3 of a 32 x 32 tile of floats (lane = row)
    "column_plain": ("[32][32]: lane r reads (r, 3)",
                     lambda: words_request([32 * r + 3 for r in _lanes()])),
    "column_padded": ("[32][33]: lane r reads (r, 3)",
                      lambda: words_request([33 * r + 3 for r in _lanes()])),
    "column_swizzled": ("swizzled: lane r reads (r, 3) at column 3 ^ r",
                        lambda: words_request([32 * r + (3 ^ r) for r in _lanes()])),
    # lab 07: float4 column (slot 0 of rows 0..31; 8 float4 slots per 32-float row)
    "float4_column_plain": ("float4 slot 0 of row r, plain",
                            lambda: elements_request([8 * r + 0 for r in _lanes()], 16)),
    "float4_column_swizzled": ("float4 slot 0 of row r at slot 0 ^ (r % 8)",
                               lambda: elements_request([8 * r + (0 ^ (r % 8)) for r in _lanes()],
                                                        16)),
    # the seed's swizzle examples (check the seed with your model)
    "seed_xor_snippet": ("seed: s[x ^ y][y], lane x, y = 5",
                         lambda: words_request([32 * (x ^ 5) + 5 for x in _lanes()])),
    "seed_shift_swizzle": ("seed: column (3 + (r >> 4)) % 32 of row r",
                           lambda: words_request([32 * r + (3 + (r >> 4)) % 32 for r in _lanes()])),
    "seed_rotate_swizzle": ("seed: column (3 + r) % 32 of row r",
                            lambda: words_request([32 * r + (3 + r) % 32 for r in _lanes()])),
    # lab 09: a 16 x 16 block; warp 0 holds tix = 0..15 for tiy = 0 and 1
    "seed_tix16_tiy": ("seed: word tix * 16 + tiy",
                       lambda: words_request([16 * (l % 16) + l // 16 for l in _lanes()])),
    "seed_swapped": ("swapped: word tiy * 16 + tix",
                     lambda: words_request([16 * (l // 16) + l % 16 for l in _lanes()])),
    "seed_padded17": ("padded: word tix * 17 + tiy",
                      lambda: words_request([17 * (l % 16) + l // 16 for l in _lanes()])),
    "btile_pitch16": ("b_tile[tx][kw], pitch 16, kw = 0",
                      lambda: words_request([16 * (l % 16) for l in _lanes()])),
    "btile_pitch17": ("b_tile[tx][kw], pitch 17, kw = 0",
                      lambda: words_request([17 * (l % 16) for l in _lanes()])),
    "table_lookup": ("byte table: 32 random byte values", _seed_table_request),
}


# ---------------------------------------------------------------------------
# SVG
# ---------------------------------------------------------------------------
PASS_COLOURS = ["#ffffff", "#66bb6a", "#ffd54f", "#ffa726", "#ff7043", "#e53935", "#ad1457",
                "#6a1b9a", "#311b92"]


def pass_colour(n: int) -> str:
    if n <= 0:
        return PASS_COLOURS[0]
    if n < 5:
        return PASS_COLOURS[n]
    if n <= 8:
        return PASS_COLOURS[5]
    if n <= 16:
        return PASS_COLOURS[6]
    if n <= 24:
        return PASS_COLOURS[7]
    return PASS_COLOURS[8]


def esc(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def verdict_text(v: Verdict) -> str:
    if v.degree == 1:
        what = "conflict-free"
    elif v.degree == 0:
        what = "no active lane"
    else:
        what = f"{v.degree}-way conflict"
    wf = f"{v.wavefronts} wavefront" + ("s" if v.wavefronts != 1 else "")
    if len(v.phase_degrees) > 1:
        wf += " (phases: " + " ".join(str(d) for d in v.phase_degrees) + ")"
    return f"degree {v.degree}: {what}; {wf}"


class Svg:
    """A small SVG writer: text styles are CSS classes, so the files stay small."""

    STYLE = ("text{font-family:'DejaVu Sans',Verdana,Arial,sans-serif;fill:#212121}"
             ".h{font-size:15px;font-weight:bold}.b{font-size:12px;font-weight:bold}"
             ".s{font-size:10.5px;fill:#424242}.l{font-size:8.5px;fill:#616161}"
             ".n{font-size:8px;text-anchor:middle}.w{fill:#ffffff}.m{text-anchor:middle}"
             ".e{text-anchor:end}.k{font-weight:bold}.ok{font-size:11.5px;font-weight:bold;"
             "fill:#2e7d32}.bad{font-size:11.5px;font-weight:bold;fill:#c62828}"
             ".t{font-size:7px;text-anchor:middle;fill:#78909c}.tk{font-size:7px;"
             "text-anchor:middle}")

    def __init__(self) -> None:
        self.items: list[str] = []

    def rect(self, x: float, y: float, w: float, h: float, fill: str, stroke: str = "",
             sw: float = 0.5) -> None:
        line = f' stroke="{stroke}" stroke-width="{sw:g}"' if stroke else ""
        self.items.append(f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" '
                          f'fill="{fill}"{line}/>')

    def text(self, x: float, y: float, s: str, cls: str = "") -> None:
        c = f' class="{cls}"' if cls else ""
        self.items.append(f'<text x="{x:g}" y="{y:g}"{c}>{esc(s)}</text>')

    def line(self, x1: float, y1: float, x2: float, y2: float, stroke: str = "#424242",
             sw: float = 1) -> None:
        self.items.append(f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" '
                          f'stroke="{stroke}" stroke-width="{sw:g}"/>')

    def grid(self, x: float, y: float, cols: int, rows: int, cw: float, ch: float,
             stroke: str = "#d0d0d0") -> None:
        """Cell borders of a cols x rows grid as one path."""
        d = [f"M{x + i * cw:g} {y:g}v{rows * ch:g}" for i in range(cols + 1)]
        d += [f"M{x:g} {y + j * ch:g}h{cols * cw:g}" for j in range(rows + 1)]
        self.items.append(f'<path d="{"".join(d)}" stroke="{stroke}" stroke-width="0.5" '
                          f'fill="none"/>')

    def render(self, width: float, height: float, title: str) -> str:
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" height="{height:g}" '
                f'viewBox="0 0 {width:g} {height:g}" role="img" aria-label="{esc(title)}">\n'
                f'<title>{esc(title)}</title>\n<style>{self.STYLE}</style>\n'
                f'<rect x="0" y="0" width="{width:g}" height="{height:g}" fill="#ffffff"/>\n')
        return head + "\n".join(self.items) + "\n</svg>\n"


CELL = 13
LABEL = 58


def grid_panel(svg: Svg, x0: float, y0: float, name: str) -> tuple[float, float]:
    """Draws the lane x bank grid of pattern `name` at (x0, y0); returns its size."""
    title, make = PATTERNS[name]
    r = make()
    v = analyse(r)
    lanes = LANES_PER_PHASE[r.width]
    phases = WARP // lanes
    svg.text(x0, y0 + 13, title, "b")
    sub = f"{8 * r.width}-bit accesses"
    if phases > 1:
        sub += f", {phases} phases of {lanes} lanes"
    svg.text(x0, y0 + 28, sub, "s")
    gx, gy = x0 + LABEL, y0 + 52
    for b in range(0, NUM_BANKS, 4):
        svg.text(gx + b * CELL + CELL / 2, gy - 6, str(b), "l m")
    svg.text(x0, gy - 6, "bank", "l")
    y = gy
    for p in range(phases):
        if p > 0:
            svg.line(gx - 4, y + 2, gx + NUM_BANKS * CELL, y + 2, "#424242", 1.5)
            y += 4
        svg.grid(gx, y, NUM_BANKS, lanes, CELL, CELL)
        for lane in range(p * lanes, (p + 1) * lanes):
            if lane % 4 == 0 or lanes <= 8:
                svg.text(gx - 6, y + CELL - 3, f"lane {lane}", "l e")
            for b in range(NUM_BANKS):
                n = v.passes.get((lane, b), 0)
                if n > 0:
                    svg.rect(gx + b * CELL + 0.5, y + 0.5, CELL - 1, CELL - 1, pass_colour(n))
                    svg.text(gx + b * CELL + CELL / 2, y + CELL - 3.2, str(n),
                             "n w" if n >= 5 else "n")
            y += CELL
    y += 5
    svg.text(gx - 6, y + CELL - 3, "passes", "l e k")
    svg.grid(gx, y, NUM_BANKS, 1, CELL, CELL, "#757575")
    for b in range(NUM_BANKS):
        n = v.bank_passes[b]
        if n > 0:
            svg.rect(gx + b * CELL + 0.5, y + 0.5, CELL - 1, CELL - 1, pass_colour(n))
            svg.text(gx + b * CELL + CELL / 2, y + CELL - 3.2, str(n),
                     "n k w" if n >= 5 else "n k")
    y += CELL + 20
    svg.text(x0, y, verdict_text(v), "ok" if v.degree <= 1 else "bad")
    return LABEL + NUM_BANKS * CELL, y - y0 + 8


def tile_panel(svg: Svg, x0: float, y0: float, title: str, bank: Callable[[int, int], int],
               column: int, note: str) -> tuple[float, float]:
    """A 32 x 32 tile of floats: the bank of element (r, c); column `column` outlined."""
    cell = 12
    svg.text(x0, y0 + 13, title, "b")
    svg.text(x0, y0 + 28, note, "s")
    gx, gy = x0 + 40, y0 + 52
    svg.text(gx - 6, gy - 6, "c =", "l e")
    for c in range(0, 32, 4):
        svg.text(gx + c * cell + cell / 2, gy - 6, str(c), "l m")
    for c in range(0, 32, 2):  # light stripes on every other column
        svg.rect(gx + c * cell, gy, cell, 32 * cell, "#f3f5f7")
    svg.grid(gx, gy, 32, 32, cell, cell, "#dde3e7")
    hits = [0] * NUM_BANKS
    for r in range(32):
        if r % 4 == 0:
            svg.text(gx - 6, gy + r * cell + cell - 3, f"r {r}", "l e")
        for c in range(32):
            b = bank(r, c)
            on = c == column
            if on:
                hits[b] += 1
                svg.rect(gx + c * cell, gy + r * cell, cell, cell, "#fff59d", "#f57f17", 1.2)
            svg.text(gx + c * cell + cell / 2, gy + r * cell + cell - 3, str(b),
                     "tk" if on else "t")
    degree = max(hits)
    y = gy + 32 * cell + 20
    msg = (f"column {column} (outlined) falls in {sum(1 for h in hits if h)} bank(s): "
           + ("conflict-free" if degree == 1 else f"{degree}-way conflict"))
    svg.text(x0, y, msg, "ok" if degree == 1 else "bad")
    return 40 + 32 * cell, y - y0 + 8


@dataclass
class Figure:
    name: str
    title: str
    panels: list[tuple]  # ("grid", pattern) or ("tile", title, bank fn, column, note)
    caption: str = ""


FIGURES = [
    Figure("lab05_strides", "Lab 05: strided 4-byte reads",
           [("grid", "stride1"), ("grid", "stride2"), ("grid", "stride32")],
           "Cell: a bank the lane needs; number: the pass that serves it."),
    Figure("lab05_broadcast", "Lab 05: one word for every lane, and stride 33",
           [("grid", "broadcast"), ("grid", "stride33")]),
    Figure("lab05_wide", "Lab 05: 64-bit and 128-bit accesses are served in phases",
           [("grid", "float2_stride1"), ("grid", "float4_stride1"), ("grid", "float4_stride2")]),
    Figure("lab05_float4_pairs", "Lab 05: where the fixed-phase model simplifies",
           [("grid", "float4_pairs")],
           "The model counts 4 wavefronts; NVIDIA notes 2 for paired equal addresses (CC 7.x)."),
    Figure("lab06_column", "Lab 06: a warp reads column 3 of a 32 x 32 tile",
           [("grid", "column_plain"), ("grid", "column_padded")]),
    Figure("lab06_tile_maps", "Lab 06: bank of every element, plain and padded tile",
           [("tile", "float tile[32][32]", lambda r, c: (32 * r + c) % 32, 3,
             "bank = c: a column is one bank"),
            ("tile", "float tile[32][33]", lambda r, c: (33 * r + c) % 32, 3,
             "bank = (r + c) % 32: a column visits every bank")]),
    Figure("lab07_column", "Lab 07: the XOR swizzle reads a column conflict-free",
           [("grid", "column_plain"), ("grid", "column_swizzled")]),
    Figure("lab07_swizzle_map", "Lab 07: the swizzle map, element (r, c) at column c ^ (r % 32)",
           [("tile", "float tile[32][32], plain", lambda r, c: c, 3,
             "bank = c"),
            ("tile", "float tile[32 * 32], swizzled", lambda r, c: c ^ (r % 32), 3,
             "bank = c ^ (r % 32)")]),
    Figure("lab07_float4", "Lab 07: a float4 column, plain and interleaved",
           [("grid", "float4_column_plain"), ("grid", "float4_column_swizzled")]),
    Figure("lab09_seed_index", "Lab 09: the seed's tile index for a 16 x 16 block (warp 0)",
           [("grid", "seed_tix16_tiy"), ("grid", "seed_swapped"), ("grid", "seed_padded17")]),
    Figure("lab09_btile", "Lab 09: reading the B tile b_tile[tx][kw]",
           [("grid", "btile_pitch16"), ("grid", "btile_pitch17")]),
    Figure("lab09_table", "Lab 09: table lookups in shared memory",
           [("grid", "table_lookup")],
           "256 one-byte entries = 64 words: at most 2 distinct words per bank."),
]


def render_figure(fig: Figure) -> str:
    svg = Svg()
    pad = 16
    svg.text(pad, pad + 14, fig.title, "h")
    x: float = pad
    y0 = pad + 30
    heights = []
    for panel in fig.panels:
        if panel[0] == "grid":
            w, h = grid_panel(svg, x, y0, panel[1])
        else:
            w, h = tile_panel(svg, x, y0, panel[1], panel[2], panel[3], panel[4])
        heights.append(h)
        x += w + 28
    height = y0 + max(heights)
    if fig.caption:
        svg.text(pad, height + 10, fig.caption, "s")
        height += 20
    return svg.render(x - 28 + pad, height + pad, fig.title)


def write_all(out: Path) -> dict[str, str]:
    return {f"{fig.name}.svg": render_figure(fig) for fig in FIGURES}


def table() -> str:
    rows = ["| pattern | what | bytes | degree | wavefronts |", "|---|---|--:|--:|--:|"]
    for name, (title, make) in PATTERNS.items():
        r = make()
        v = analyse(r)
        rows.append(f"| {name} | {title} | {r.width} | {v.degree} | {v.wavefronts} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tools.bank_figures", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder of the SVG files")
    ap.add_argument("--check", action="store_true",
                    help="compare with the files in --out instead of writing them")
    ap.add_argument("--table", action="store_true", help="print the model's numbers and exit")
    args = ap.parse_args(argv)
    if args.table:
        print(table())
        return 0
    files = write_all(args.out)
    if args.check:
        stale = [n for n, text in files.items()
                 if not (args.out / n).is_file() or (args.out / n).read_text() != text]
        extra = sorted(p.name for p in args.out.glob("*.svg") if p.name not in files) \
            if args.out.is_dir() else []
        for n in stale:
            print(f"bank_figures: {args.out / n} is missing or stale")
        for n in extra:
            print(f"bank_figures: {args.out / n} is not generated by this tool")
        if stale or extra:
            print("bank_figures: regenerate with: python3 -m tools.bank_figures")
            return 1
        print(f"bank_figures: {len(files)} figures up to date in {args.out}")
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    for n, text in files.items():
        (args.out / n).write_text(text)
    print(f"bank_figures: wrote {len(files)} figures to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
