# SPDX-License-Identifier: BSD-3-Clause
"""A lab's C++ sources read as text: without comments, the body of a brace, and the names of
the lab's technique table (the rows of `kTechniques[]` in its headers). Shared by the points'
check (the techniques a declaration may name), the contract check (the tests registered once
per technique) and the bar keys' test.
Python 3 standard library only."""

from __future__ import annotations

import re
from pathlib import Path

_TECHNIQUE_TABLE = re.compile(r"\bkTechniques\s*\[\s*\]\s*=\s*\{")
_ROW_NAME = re.compile(r'\{\s*"(\w+)"')


def strip_comments(text: str) -> str:
    """C++ source @p text without its comments."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def body_at(text: str, open_brace: int) -> str:
    """The text between the brace at @p open_brace and its match."""
    depth = 0
    for i in range(open_brace, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return text[open_brace + 1:i]
    return text[open_brace + 1:]


def table_names(folder: Path) -> list[str]:
    """The names of the technique table of the lab in @p folder (the first string of each row
    of `kTechniques[]` in its headers, e.g. "row_per_block"), in table order; none without one."""
    names: list[str] = []
    for header in sorted(folder.glob("*.cuh")):
        text = strip_comments(header.read_text(encoding="utf-8", errors="replace"))
        for m in _TECHNIQUE_TABLE.finditer(text):
            names += _ROW_NAME.findall(body_at(text, m.end() - 1))
    return names
