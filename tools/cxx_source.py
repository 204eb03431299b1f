# SPDX-License-Identifier: BSD-3-Clause
"""A lab's C++ sources read as text: without comments, the body of a brace, the names of the
lab's technique table (the rows of `kTechniques[]` in its headers) and the grader's tests
registered once per technique of it (per_technique_calls()). Shared by the points' check (the
techniques a declaration may name), the contract check (the tests registered once per
technique) and the bar keys' test.
Python 3 standard library only."""

from __future__ import annotations

import re
from pathlib import Path

_TECHNIQUE_TABLE = re.compile(r"\bkTechniques\s*\[\s*\]\s*=\s*\{")
_ROW_NAME = re.compile(r'\{\s*"(\w+)"')
# A test registered once per technique of a lab's table (tests/common/technique_tests.hpp):
# for_each_technique([kList, ]"Suite.{}Case", body, ...) and the same of
# for_each_technique_and_shape; kList, where given, names the entries it takes.
_PER_TECHNIQUE = re.compile(
    r'\bfor_each_technique(?:_and_shape)?\s*\(\s*(?:(\w+)\s*,\s*)?"([^"]*)"\s*,\s*&?\s*(\w+)')


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


def camel_case(name: str) -> str:
    """A technique's @p name as test names hold it ("block_tiled" -> "BlockTiled")."""
    return "".join(w[:1].upper() + w[1:] for w in name.split("_"))


def name_list(name: str, texts: list[str]) -> list[str]:
    """The strings of the array @p name (`const char* <name>[] = {"a", "b"}`) defined in one of
    @p texts; ValueError where none defines it."""
    array = re.compile(rf"\b{re.escape(name)}\s*\[\s*\w*\s*\]\s*=\s*\{{")
    for text in texts:
        m = array.search(text)
        if m:
            return re.findall(r'"(\w+)"', body_at(text, m.end() - 1))
    raise ValueError(f"{name}: no array of technique names `{name}[] = {{...}}` in the grader")


def per_technique_calls(text: str, table: list[str],
                        lab_texts: list[str]) -> list[tuple[int, str, str, list[str]]]:
    """(position, the name "Suite.{}Case" or "Inst/Suite.{}Case", the body's name, the names of
    the entries it is registered for) of each test @p text registers once per technique: every
    entry of the lab's table @p table (table_names()), or those of the list its call names first
    (name_list(), defined in one of @p lab_texts, the grader's sources without comments)."""
    return [(m.start(), m.group(2), m.group(3),
             name_list(m.group(1), lab_texts) if m.group(1) else list(table))
            for m in _PER_TECHNIQUE.finditer(text)]
