# SPDX-License-Identifier: BSD-3-Clause
"""The SVG document every hand-drawn figure of the course sits in (the course map of
tools/figures.py and the diagrams of tools/diagrams.py; the charts are drawn with matplotlib,
tools/plot.py): size, accessible title, style, white background.
Python 3 standard library only."""

from __future__ import annotations


def esc(s: str) -> str:
    """@p s as XML text."""
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def document(width: float, height: float, title: str, style: str, body: list[str],
             defs: str = "") -> str:
    """A whole SVG file: @p body's elements over a white @p width x @p height canvas."""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" height="{height:g}" '
            f'viewBox="0 0 {width:g} {height:g}" role="img" aria-label="{esc(title)}">\n'
            f'<title>{esc(title)}</title>\n<style>{style}</style>\n{defs}'
            f'<rect x="0" y="0" width="{width:g}" height="{height:g}" fill="#ffffff"/>\n'
            + "\n".join(body) + "\n</svg>\n")
