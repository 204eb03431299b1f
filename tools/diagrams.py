# SPDX-License-Identifier: BSD-3-Clause
"""Diagrams of labs 01 and 10-14 (SVG), drawn from the labs' own rules, not from measurements.

    python3 -m tools.figures            # writes them with the charts into docs/figures/perf

Each function returns one SVG document; all_diagrams() maps file names to them. Lab 10's
sector counts come from the sector model the lab asks for (32 lanes, 4-byte loads, a 32-byte
sector); the other diagrams show index layouts the handouts describe. Python 3 standard
library only; deterministic output (python3 -m tools.figures --check compares the committed files).
"""

from __future__ import annotations

from .svg import document, esc

STYLE = ("text{font-family:'DejaVu Sans',Verdana,Arial,sans-serif;fill:#212121}"
         ".h{font-size:15px;font-weight:bold}.s{font-size:11px;fill:#424242}"
         ".t{font-size:10px;fill:#212121;text-anchor:middle}.b{font-size:12px;font-weight:bold}")
BLUE, GREY, PURPLE, ORANGE, GREEN = "#1e88e5", "#cfd8dc", "#ab47bc", "#fb8c00", "#43a047"


def _svg(width: int, height: int, title: str, body: list[str]) -> str:
    return document(width, height, title, STYLE, body)


def _rect(x: float, y: float, w: float, h: float, fill: str, stroke: str = "#607d8b") -> str:
    return (f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" fill="{fill}" '
            f'stroke="{stroke}" stroke-width="0.8"/>')


def _warps(bx: float, by: float, w: float, h: float) -> list[str]:
    """The 2 × 4 warp tiles (w × h px each) of a block tile drawn at (bx, by), numbered
    row by row."""
    out = []
    for wr in range(2):
        for wc in range(4):
            out.append(f'<rect x="{bx + wc * w:g}" y="{by + wr * h:g}" width="{w:g}" '
                       f'height="{h:g}" fill="none" stroke="{PURPLE}" stroke-width="1.5"/>')
            out.append(_text(bx + wc * w + w / 2, by + wr * h + h / 2 + 4,
                             f"warp {wr * 4 + wc}", "t"))
    return out


def _text(x: float, y: float, s: str, cls: str = "s") -> str:
    return f'<text x="{x:g}" y="{y:g}" class="{cls}">{esc(s)}</text>'


def lab01_grid() -> str:
    """A 5 x 11 matrix covered by 2 x 4 blocks: the grid is rounded up, some threads fall out."""
    rows, cols, bh, bw, cell = 5, 11, 2, 4, 26
    gy, gx = -(-rows // bh), -(-cols // bw)
    x0, y0 = 20, 60
    body = [_text(16, 28, "Lab 01: a 5 × 11 matrix, blocks of 2 × 4 threads, grid rounded up to "
                          f"{gy} × {gx} blocks", "h")]
    for r in range(gy * bh):
        for c in range(gx * bw):
            inside = r < rows and c < cols
            body.append(_rect(x0 + c * cell, y0 + r * cell, cell, cell,
                              "#bbdefb" if inside else "#ffe0b2"))
            if inside:
                body.append(_text(x0 + c * cell + cell / 2, y0 + r * cell + 17,
                                  f"{r * cols + c}", "t"))
    for by in range(gy):
        for bx in range(gx):
            body.append(f'<rect x="{x0 + bx * bw * cell}" y="{y0 + by * bh * cell}" '
                        f'width="{bw * cell}" height="{bh * cell}" fill="none" stroke="{BLUE}" '
                        f'stroke-width="2.2"/>')
    lx = x0 + gx * bw * cell + 24
    body += [_rect(lx, y0, 14, 14, "#bbdefb"), _text(lx + 20, y0 + 11, "thread inside: adds 1 to "
                                                     "element row · cols + col (number shown)"),
             _rect(lx, y0 + 24, 14, 14, "#ffe0b2"), _text(lx + 20, y0 + 35, "thread outside the "
                                                          "matrix: returns, touches nothing"),
             f'<rect x="{lx}" y="{y0 + 48}" width="14" height="14" fill="none" stroke="{BLUE}" '
             f'stroke-width="2.2"/>', _text(lx + 20, y0 + 59, "one block (blockIdx.y, blockIdx.x)"),
             _text(lx, y0 + 90, "grid.x = ⌈11 / 4⌉ = 3,  grid.y = ⌈5 / 2⌉ = 3"),
             _text(lx, y0 + 108, "col = blockIdx.x · blockDim.x + threadIdx.x")]
    return _svg(860, y0 + gy * bh * cell + 30, "Lab 01: grid, blocks and threads over a matrix",
                body)


def sectors_per_request(stride_floats: int, lanes: int = 32, size: int = 4) -> int:
    """The 32-byte sectors a warp touches when lane i loads the float at i * stride (aligned)."""
    return len({(i * stride_floats * size) // 32 for i in range(lanes)})


def lab10_sectors() -> str:
    strides = [1, 2, 4, 8, 16, 32]
    x0, y0, bar_h, gap, scale = 180, 60, 22, 10, 16
    body = [_text(16, 28, "Lab 10: 32-byte sectors one warp request touches (32 lanes, 4-byte "
                          "loads, lane i at float i · stride; the sector model)", "h")]
    for k, s in enumerate(strides):
        n = sectors_per_request(s)
        y = y0 + k * (bar_h + gap)
        useful = 128 / (32 * n)
        body += [_text(x0 - 10, y + 15, f"stride {s} float{'s' if s > 1 else ''}", "s"),
                 _rect(x0, y, n * scale, bar_h, BLUE if s == 1 else ORANGE),
                 _text(x0 + n * scale + 8, y + 15, f"{n} sectors, {n * 32} bytes moved for 128 "
                                                   f"used ({useful:.0%})", "s")]
    body[1:1] = []
    y = y0 + len(strides) * (bar_h + gap) + 12
    body.append(_text(16, y, "Up to stride 8 the count grows as 4 × stride; from stride 8 on "
                             "every lane has a sector of its own (32)."))
    return _svg(900, y + 16, "Lab 10: sectors per warp request by stride", body)


def lab11_head_body_tail() -> str:
    """One row of 23 floats starting 8 bytes past a 16-byte boundary: 2 head, 5 float4, 1 tail."""
    cell, x0, y0 = 28, 20, 70
    head, body_n, tail = 2, 5, 1
    width = head + 4 * body_n + tail
    out = [_text(16, 28, "Lab 11: one row of 23 floats that starts 8 bytes past a 16-byte "
                         "boundary", "h")]
    for i in range(-2, width + 1):
        x = x0 + (i + 2) * cell
        if i % 4 == 0 - 2 % 4 and False:
            pass
        colour = GREY
        if 0 <= i < head:
            colour = ORANGE
        elif head <= i < head + 4 * body_n:
            colour = "#bbdefb"
        elif head + 4 * body_n <= i < width:
            colour = PURPLE
        out.append(_rect(x, y0, cell, cell, colour))
        if 0 <= i < width:
            out.append(_text(x + cell / 2, y0 + 18, str(i), "t"))
    # 16-byte boundaries: address (i + 2) * 4 bytes from the boundary before the row
    for i in range(-2, width + 2, 4):
        x = x0 + (i + 2) * cell
        out.append(f'<line x1="{x}" y1="{y0 - 14}" x2="{x}" y2="{y0 + cell + 14}" '
                   f'stroke="#d32f2f" stroke-width="1.5" stroke-dasharray="4 3"/>')
    for v in range(body_n):
        x = x0 + (head + 4 * v + 2) * cell
        out.append(f'<rect x="{x + 2}" y="{y0 + cell + 6}" width="{4 * cell - 4}" height="12" '
                   f'rx="3" fill="{BLUE}"/>')
        out.append(_text(x + 2 * cell, y0 + cell + 30, f"float4 {v}", "t"))
    ly = y0 + cell + 60
    out += [_rect(20, ly, 14, 14, ORANGE), _text(40, ly + 11, "head: 2 scalar floats up to the "
                                                   "first 16-byte boundary"),
            _rect(20, ly + 22, 14, 14, "#bbdefb"), _text(40, ly + 33, "body: (23 − 2) / 4 = 5 "
                                                         "aligned float4 (one 16-byte access each)"),
            _rect(20, ly + 44, 14, 14, PURPLE), _text(40, ly + 55, "tail: the 1 float left"),
            _rect(20, ly + 66, 14, 14, GREY), _text(40, ly + 77, "outside the row; dashed red: "
                                                      "16-byte boundaries")]
    return _svg(20 + (width + 4) * cell + 20, ly + 92, "Lab 11: head, body and tail of a row", out)


def lab12_timeline() -> str:
    x0, unit = 150, 34
    out = [_text(16, 28, "Lab 12: one block per SM, four k steps: synchronous against two "
                         "stages", "h")]

    def box(x: float, y: float, w: float, label: str, colour: str) -> None:
        out.append(_rect(x, y, w, 24, colour))
        out.append(_text(x + w / 2, y + 16, label, "t"))

    y = 60
    out.append(_text(16, y + 16, "synchronous", "b"))
    x = x0
    for t in range(4):
        box(x, y, 3 * unit, f"load {t}", ORANGE)
        x += 3 * unit
        box(x, y, 2 * unit, f"mul {t}", BLUE)
        x += 2 * unit
    end_sync = x
    y = 110
    out.append(_text(16, y + 16, "two stages", "b"))
    box(x0, y, 3 * unit, "load 0", ORANGE)
    for t in range(4):
        start = x0 + 3 * unit + t * 3 * unit
        if t + 1 < 4:
            box(start, y + 30, 3 * unit, f"load {t + 1} → stage {(t + 1) % 2}", ORANGE)
        box(start, y, 2 * unit, f"mul {t} (stage {t % 2})", BLUE)
    end_two = x0 + 3 * unit + 3 * 3 * unit + 2 * unit
    for xe, ye in ((end_sync, 60), (end_two, 110)):
        out.append(f'<line x1="{xe}" y1="{ye - 6}" x2="{xe}" y2="{ye + 30}" stroke="#d32f2f" '
                   f'stroke-width="1.5"/>')
    out += [_text(16, 190, "With one block per SM nothing else runs while a block waits: the "
                           "copies of step t + 1 (cp.async into the other"),
            _text(16, 206, "stage) overlap the multiply of step t. The loads still bound the "
                           "loop when they take longer than the multiply."),
            _text(16, 222, "Lengths are illustrative (a load three units, a multiply two), not "
                           "measured.")]
    return _svg(x0 + 22 * unit, 236, "Lab 12: synchronous and two-stage timelines", out)


def lab13_warp_tiles() -> str:
    """Stage 3: the 128 x 128 block tile in 2 x 4 warps of 64 x 32, and which 4 x 4 chunks of
    its warp's piece two neighbouring lanes own (sgemm.cuh's kWarpM, kWarpN, kWarpLanesN)."""
    out = [_text(16, 28, "Lab 13, stage 3: warp tiles of the 128 × 128 block and the chunks of "
                         "lanes 0 and 1", "h")]
    s = 1.6  # block tile at 1.6 px per element
    bx, by = 20, 50
    out.append(_rect(bx, by, 128 * s, 128 * s, "#e3f2fd", BLUE))
    out += _warps(bx, by, 32 * s, 64 * s)
    out.append(_text(bx, by + 128 * s + 18, "block: 128 × 128 of C, k step 8;"))
    out.append(_text(bx, by + 128 * s + 34, "256 threads = 8 warps of 64 × 32"))
    # One warp's 64 x 32 piece at 4 px; lane l sits at (l / 4, l % 4) of the 8 x 4 lane grid
    # and owns the chunks at rows i * 32 + (l / 4) * 4, columns j * 16 + (l % 4) * 4.
    s2 = 4.0
    wx, wy = bx + 128 * s + 60, 50
    out.append(_rect(wx, wy, 32 * s2, 64 * s2, "#f3e5f5", PURPLE))
    for lane, colour in ((0, ORANGE), (1, GREEN)):
        for i in range(2):
            for j in range(2):
                out.append(_rect(wx + (j * 16 + (lane % 4) * 4) * s2,
                                 wy + (i * 32 + (lane // 4) * 4) * s2, 4 * s2, 4 * s2, colour))
    lx = wx + 32 * s2 + 24
    out += [_rect(lx, wy, 14, 14, ORANGE), _text(lx + 20, wy + 11, "lane 0: 2 × 2 chunks of "
                                                 "4 × 4 (8 × 8 results)"),
            _rect(lx, wy + 24, 14, 14, GREEN), _text(lx + 20, wy + 35, "lane 1: the chunks 4 "
                                                     "columns to the right"),
            _text(lx, wy + 70, "warp: 64 × 32 of C; lane l sits at (l / 4, l % 4)"),
            _text(lx, wy + 86, "of an 8 × 4 lane grid and owns 4 × 4 chunks"),
            _text(lx, wy + 102, "32 rows and 16 columns apart")]
    return _svg(int(lx + 290), int(wy + 64 * s2 + 30), "Lab 13: warp tiles of stage 3", out)


def lab13_tiles() -> str:
    out = [_text(16, 28, "Lab 13, stage 4: the tile hierarchy of the pipelined kernel", "h")]
    # block tile 128 x 256 drawn at 1.4 px per element / 2
    s = 1.3
    bx, by = 20, 50
    out.append(_rect(bx, by, 256 * s, 128 * s, "#e3f2fd", BLUE))
    out += _warps(bx, by, 64 * s, 64 * s)
    out.append(_text(bx, by + 128 * s + 18, "block: 128 × 256 of C, 256 threads = 8 warps of "
                                            "64 × 64"))
    # one warp 64 x 64 at 3 px, lanes 4 x 8 grid; lane 0's chunks highlighted
    s2 = 3.0
    wx, wy = bx + 256 * s + 50, 50
    out.append(_rect(wx, wy, 64 * s2, 64 * s2, "#f3e5f5", PURPLE))
    for i in range(4):
        for j in range(2):
            out.append(_rect(wx + j * 32 * s2, wy + i * 16 * s2, 4 * s2, 4 * s2, ORANGE))
    out.append(_text(wx, wy + 64 * s2 + 18, "warp: 64 × 64; lane 0 owns the 8 orange 4 × 4 "
                                            "chunks"))
    out.append(_text(wx, wy + 64 * s2 + 34, "(4 × 2 chunks: 16 × 8 results per thread)"))
    # Below both pictures: the warp's two caption lines end at wy + 64 * s2 + 34.
    out.append(_text(bx, wy + 64 * s2 + 60, "per k step of 16: A tile 16 × (128 + 4) stored "
                                            "transposed, B tile 16 × 256, three stages "
                                            "in flight (cp.async)"))
    return _svg(int(wx + 64 * s2 + 260), int(wy + 64 * s2 + 76), "Lab 13: block, warp and thread "
                "tiles", out)


def lab14_fragments() -> str:
    out = [_text(16, 28, "Lab 14: the A fragment of mma.m16n8k256 .b1 (16 rows × 8 words of "
                         "32 bits), by lane", "h")]
    cw, ch, x0, y0 = 62, 20, 70, 50
    for w in range(8):
        out.append(_text(x0 + w * cw + cw / 2, y0 - 6, f"word {w}", "t"))
    for r in range(16):
        out.append(_text(x0 - 8, y0 + r * ch + 14, f"row {r}", "s"))
        out[-1] = out[-1].replace('class="s"', 'class="s" text-anchor="end"')
        for w in range(8):
            g, t = r % 8, w % 4
            lane = 4 * g + t
            reg = (1 if r >= 8 else 0) + (2 if w >= 4 else 0)
            colour = ["#bbdefb", "#c8e6c9", "#ffe0b2", "#e1bee7"][reg]
            out.append(_rect(x0 + w * cw, y0 + r * ch, cw, ch, colour))
            out.append(_text(x0 + w * cw + cw / 2, y0 + r * ch + 14, f"L{lane} a[{reg}]", "t"))
    ly = y0 + 16 * ch + 22
    out.append(_text(16, ly, "Lane l = 4g + t holds word t of rows g and g + 8 in each 128-bit "
                             "half (PTX ISA, Matrix fragments for mma.m16n8k256);"))
    out.append(_text(16, ly + 16, "each colour is one 8 × 128-bit matrix: the four that one "
                                  "ldmatrix .x4 delivers."))
    return _svg(x0 + 8 * cw + 30, ly + 30, "Lab 14: A fragment layout", out)


def all_diagrams() -> dict[str, str]:
    return {"lab01_grid.svg": lab01_grid(), "lab10_sectors.svg": lab10_sectors(),
            "lab11_head_body_tail.svg": lab11_head_body_tail(),
            "lab12_timeline.svg": lab12_timeline(),
            "lab13_warp_tiles.svg": lab13_warp_tiles(), "lab13_tiles.svg": lab13_tiles(),
            "lab14_fragments.svg": lab14_fragments()}
