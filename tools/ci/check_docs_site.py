# SPDX-License-Identifier: BSD-3-Clause
"""Docs site check (proposal for issue 41, item 7): the generated Doxygen site has the README
as its front page, the handouts in course order (lab 13's parts 1, 2, 3) and no
instructor-only page.

    python3 -m tools.ci.check_docs_site build/ci/docs/html

Reads index.html and navtreedata.js of the site (GENERATE_TREEVIEW = YES). Exit status 0 when
it holds, 1 with one line per problem, 2 on a usage error. Python 3 standard library only.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
INSTRUCTOR_PAGES = ("docs/instructors.md", "docs/threat-model.md", "docs/adding-a-lab.md")


def page_name(md: str) -> str:
    """Doxygen's HTML file of a Markdown page: md_<path with / and - as _>.html."""
    return "md_" + re.sub(r"[/\-.]", "_", md[:-3]) + ".html"


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not Path(argv[0], "index.html").is_file():
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    site = Path(argv[0])
    problems = []
    readme_title = next(line[2:].strip() for line in
                        (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
                        if line.startswith("# "))
    index = (site / "index.html").read_text(encoding="utf-8", errors="replace")
    m = re.search(r'<div class="title">(.*?)</div>', index, re.S)
    if not m or re.sub(r"<[^>]+>", "", m.group(1)).strip() != readme_title:
        problems.append(f"index.html: the front page is not README.md (title "
                        f"{m and m.group(1).strip()!r}, want {readme_title!r})")
    if "Build and grade" not in index:
        problems.append("index.html: README.md's 'Build and grade' section is missing")
    for md in INSTRUCTOR_PAGES:
        if (site / page_name(md)).exists():
            problems.append(f"{page_name(md)}: the instructor-only page {md} is published")
    nav = (site / "navtreedata.js").read_text(encoding="utf-8", errors="replace") \
        if (site / "navtreedata.js").is_file() else ""
    want = []
    for lab in sorted(p for p in (ROOT / "labs").glob("lab[0-9][0-9]_*") if p.is_dir()):
        pages = ([lab / "README.md"] if (lab / "README.md").is_file() else []) + \
            sorted(lab.glob("PART[0-9]*.md"))
        want += [page_name(str(p.relative_to(ROOT))) for p in pages]
    order = [p for p in re.findall(r'"(md_labs_[^"#]+\.html)"', nav)]
    seen = list(dict.fromkeys(order))  # first appearance of each page, in navigation order
    if seen != want:
        problems.append(f"navtreedata.js: the handouts are not in course order: {seen} "
                        f"(want {want})")
    for p in problems:
        print(f"check_docs_site: {p}")
    if not problems:
        print(f"check_docs_site: {site}: README.md is the front page, {len(want)} handout pages "
              "in course order, no instructor-only page")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
