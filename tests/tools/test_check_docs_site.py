#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tools/ci/check_docs_site.py on a small fake Doxygen site in a temporary folder, built from
this checkout's README title and handout pages: the site as it should be passes, and each
defect the check exists for (another front page, an instructor-only page published, the
handouts out of course order, one missing, no navigation) fails with a line naming it."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import tempfile
import unittest
from pathlib import Path

ROOT = Path(os.environ.get("CUDALAB_SOURCE_DIR", Path(__file__).resolve().parents[2]))
from tools.ci import check_docs_site  # noqa: E402


def handout_pages() -> list[str]:
    """Doxygen's HTML names of the handouts, in course order (lab by lab, README then PARTn)."""
    pages = []
    for lab in sorted(p for p in (ROOT / "labs").glob("lab[0-9][0-9]_*") if p.is_dir()):
        mds = ([lab / "README.md"] if (lab / "README.md").is_file() else []) + \
            sorted(lab.glob("PART[0-9]*.md"))
        pages += [check_docs_site.page_name(str(p.relative_to(ROOT))) for p in mds]
    return pages


class DocsSite(unittest.TestCase):
    def setUp(self) -> None:
        self.site = Path(tempfile.mkdtemp(prefix="cudalab-site-"))
        self.addCleanup(shutil.rmtree, self.site, ignore_errors=True)
        title = next(line[2:].strip() for line in
                     (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
                     if line.startswith("# "))
        self.index(title)
        self.nav(handout_pages())

    def index(self, title: str, body: str = "<h2>Build and grade</h2>") -> None:
        (self.site / "index.html").write_text(
            f'<html><div class="title">{title}</div>{body}</html>', encoding="utf-8")

    def nav(self, pages: list[str]) -> None:
        entries = ",\n".join(f'  [ "page", "{p}", null ]' for p in pages)
        (self.site / "navtreedata.js").write_text(f"var NAVTREE = [\n{entries}\n];\n",
                                                  encoding="utf-8")

    def check(self) -> tuple[int, str]:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            code = check_docs_site.main([str(self.site)])
        return code, out.getvalue()

    def test_the_site_as_it_should_be_passes(self) -> None:
        code, out = self.check()
        self.assertEqual(code, 0, out)
        self.assertIn(f"{len(handout_pages())} handout pages in course order", out)

    def test_another_front_page_fails(self) -> None:
        self.index("cudalabs: instructors")
        code, out = self.check()
        self.assertEqual(code, 1, out)
        self.assertIn("the front page is not README.md", out)

    def test_a_front_page_without_the_build_section_fails(self) -> None:
        title = next(line[2:].strip() for line in
                     (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
                     if line.startswith("# "))
        self.index(title, body="<h2>Labs</h2>")
        code, out = self.check()
        self.assertEqual(code, 1, out)
        self.assertIn("'Build and grade' section is missing", out)

    def test_each_instructor_page_published_fails(self) -> None:
        for md in check_docs_site.INSTRUCTOR_PAGES:
            with self.subTest(md=md):
                page = self.site / check_docs_site.page_name(md)
                page.write_text("<html></html>", encoding="utf-8")
                code, out = self.check()
                page.unlink()
                self.assertEqual(code, 1, out)
                self.assertIn(f"the instructor-only page {md} is published", out)

    def test_handouts_out_of_course_order_fail(self) -> None:
        pages = handout_pages()
        lab13 = [p for p in pages if p.startswith("md_labs_lab13_")]
        self.assertGreaterEqual(len(lab13), 2, "lab 13 has several pages")
        swapped = list(pages)
        i, j = swapped.index(lab13[0]), swapped.index(lab13[-1])
        swapped[i], swapped[j] = swapped[j], swapped[i]
        self.nav(swapped)
        code, out = self.check()
        self.assertEqual(code, 1, out)
        self.assertIn("not in course order", out)

    def test_a_missing_handout_or_navigation_fails(self) -> None:
        self.nav(handout_pages()[:-1])
        self.assertEqual(self.check()[0], 1)
        (self.site / "navtreedata.js").unlink()
        code, out = self.check()
        self.assertEqual(code, 1, out)
        self.assertIn("not in course order", out)

    def test_a_folder_without_a_site_is_a_usage_error(self) -> None:
        (self.site / "index.html").unlink()
        self.assertEqual(self.check()[0], 2)


if __name__ == "__main__":
    unittest.main()
