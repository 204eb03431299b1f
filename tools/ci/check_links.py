# SPDX-License-Identifier: BSD-3-Clause
"""Dead relative links, and mentions of Markdown files that do not exist, in a cudalabs tree.

    python3 -m tools.ci.check_links [ROOT] [--strict-mentions] [--quiet]

Links: every relative link target of every Markdown file under ROOT (default: this
checkout) — `[text](target)`, `![alt](target)`, `[ref]: target`, and HTML `href=`/`src=` —
must exist, resolved against the file's folder (an `#anchor` is cut off; web addresses,
`mailto:` and pure anchors are not checked). A dead link is an error.

Mentions: a path ending in `.md` written in any text file (Markdown, sources, CMake, scripts,
workflows), e.g. "see <name>.md", must name a file that exists relative to the mentioning
file's folder or to ROOT, or its file name must exist somewhere in the tree. Outputs the
tools write (scores.md, feedback.md, release-body.md, step-summary.md, anything under
build*/) are not checked. Missing ones are warnings, errors with --strict-mentions.

Messages: a repository path (under docs/, tools/, labs/, common/, cmake/, tests/, solutions/
or .github/) written inside a string literal of a C++/CUDA/CMake source — what a grader or
the build prints to the student — must exist relative to ROOT. `#include` lines, paths
followed by a placeholder (`$`, `{`, `<`, `*`) and build outputs (docs/html) are not checked.
A missing one is an error.

Tool paths: a path under tools/ written in any text file — Markdown (text, code spans and
fenced commands alike), scripts and their help texts, workflows and other templates, CMake,
C++/CUDA sources and their comments, data files — e.g. `tools/calibrate.py`, must exist
relative to ROOT, and so must a tool named as a module, e.g. `python3 -m tools.calibrate` or
`tools.release.autograde` (tools/calibrate.py, tools/release/autograde.py; a dotted name may
go on past the module to a name inside it): a student release ships only some tools, so its
README, docs, workflow, scripts and sources may name only those (instructor-only Markdown
passages are removed before the check). Paths followed by a placeholder (`$`, `{`, `<`, `*`)
are not checked. A missing one is an error.

In a git checkout only the files git tracks are read; folders build*, out, .git and .cache
are skipped. Used on the instructor checkout (CI) and on
an exported student release (tools/export_student_release.sh --verify), where instructor-only
files are gone. Exit status: 0 clean, 1 problems, 2 usage error.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

SKIP_DIRS = {".git", ".cache", "out", "node_modules"}
TEXT_SUFFIXES = {".md", ".cu", ".cuh", ".cpp", ".hpp", ".h", ".cc", ".cmake", ".txt", ".py",
                 ".sh", ".yml", ".yaml", ".json", ".in", ".cjs", ".js", ".service"}
INLINE_LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REF_LINK = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.M)
HTML_LINK = re.compile(r"""\b(?:href|src)\s*=\s*["']([^"']+)["']""", re.I)
MENTION = re.compile(r"(?<![\w./-])((?:\.{1,2}/)?[\w.-]+(?:/[\w.-]+)*\.md)\b")
CODE_FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)


def skipped(rel: Path) -> bool:
    return any(p in SKIP_DIRS or p.startswith("build") for p in rel.parts[:-1])


# Written by the tools, not tracked: scores.md by tools/scoreboard.py into build trees;
# feedback.md, release-body.md and step-summary.md by the grading of a submission.
GENERATED = {"scores.md", "feedback.md", "release-body.md", "step-summary.md"}


def tree(root: Path) -> list[Path]:
    """The files of the tree: those git tracks when ROOT is a git checkout's top (so that
    build outputs and untracked work are not checked), else every file."""
    try:
        top = subprocess.run(["git", "-C", str(root), "rev-parse", "--show-toplevel"],
                             capture_output=True, text=True, check=True).stdout.strip()
        if Path(top).resolve() == root.resolve():
            out = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True,
                                 text=True, check=True).stdout
            return sorted(root / f for f in out.split("\0") if f)
    except (OSError, subprocess.CalledProcessError):
        pass
    return sorted(p for p in root.rglob("*"))


_TREE: dict[Path, list[Path]] = {}


def files(root: Path, suffixes: set[str], names: tuple[str, ...] = ()):
    if root not in _TREE:
        _TREE[root] = tree(root)
    for p in _TREE[root]:
        rel = p.relative_to(root)
        if p.is_file() and not skipped(rel) and (p.suffix in suffixes or p.name in names):
            yield p, rel


def texts(root: Path, suffixes: set[str], names: tuple[str, ...] = ()):
    """(path, rel, text) of each file of files() that reads as UTF-8."""
    for path, rel in files(root, suffixes, names):
        try:
            yield path, rel, path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue


def is_external(target: str) -> bool:
    return bool(re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target)) or target.startswith(("#", "//"))


def dead_links(root: Path) -> list[str]:
    problems = []
    for path, rel in files(root, {".md"}):
        text = path.read_text(encoding="utf-8", errors="replace")
        body = CODE_FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
        body = re.sub(r"`[^`\n]*`", lambda m: " " * len(m.group(0)), body)
        targets = [(m.start(), m.group(1)) for rx in (INLINE_LINK, REF_LINK, HTML_LINK)
                   for m in rx.finditer(body)]
        for pos, target in sorted(targets):
            if is_external(target):
                continue
            file_part = unquote(target.split("#", 1)[0].split("?", 1)[0])
            if not file_part:
                continue
            dest = (root / file_part.lstrip("/")) if file_part.startswith("/") else \
                (path.parent / file_part)
            if not dest.exists():
                line = body.count("\n", 0, pos) + 1
                problems.append(f"{rel}:{line}: dead link to {target}")
    return problems


def missing_mentions(root: Path) -> list[str]:
    names = {p.name for p, _ in files(root, {".md"})}
    problems = []
    for path, rel, text in texts(root, TEXT_SUFFIXES, ("run",)):
        for m in MENTION.finditer(text):
            mention = m.group(1)
            prefix = text[max(0, m.start() - 200):m.start()]
            if re.search(r"https?://\S*$", prefix):
                continue  # part of a web address
            first = mention.split("/", 1)[0]
            if Path(mention).name in GENERATED or first.startswith("build") or \
                    first in ("out", "course", "$out"):
                continue
            if (path.parent / mention).exists() or (root / mention).exists() or \
                    Path(mention).name in names:
                continue
            line = text.count("\n", 0, m.start()) + 1
            problems.append(f"{rel}:{line}: mentions {mention}, which is not in this tree")
    return problems


STRING_LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
REPO_PATH = re.compile(r"(?<![\w./$-])((?:docs|tools|labs|common|cmake|tests|solutions|\.github)"
                       r"/[\w.-]+(?:/[\w.-]+)*)")
BUILD_OUTPUTS = ("docs/html",)  # written into the build tree (docs/CMakeLists.txt)
MESSAGE_SUFFIXES = {".cpp", ".cu", ".hpp", ".cuh", ".h", ".cc", ".cmake"}


def missing_paths_in_messages(root: Path) -> list[str]:
    """Repository paths named in string literals of C++/CUDA/CMake sources that do not exist."""
    problems = []
    for path, rel, text in texts(root, MESSAGE_SUFFIXES, ("CMakeLists.txt",)):
        for n, line in enumerate(text.splitlines(), 1):
            if line.lstrip().startswith("#include"):
                continue
            for lit in STRING_LITERAL.finditer(line):
                body = lit.group(1)
                for m in REPO_PATH.finditer(body):
                    target = m.group(1).rstrip(".")
                    if body[m.end():m.end() + 1] in ("$", "{", "<", "*") or \
                            target.startswith(BUILD_OUTPUTS):
                        continue
                    if not (root / target).exists():
                        problems.append(f"{rel}:{n}: a message names {target}, which is not "
                                        "in this tree")
    return problems


TOOL_PATH = re.compile(r"(?<![\w./$-])(tools/[\w.@-]+(?:/[\w.@-]+)*/?)")
# A tool named as a module of the package tools (python3 -m tools.ci.check_links).
TOOL_MODULE = re.compile(r"(?<![\w./$-])tools((?:\.[A-Za-z_]\w*)+)")


TOOL_PATH_SUFFIXES = TEXT_SUFFIXES | {".awk", ".tsv", ".conf", ".cfg", ".toml", ".ini"}
TOOL_PATH_NAMES = ("CMakeLists.txt", "run", "Dockerfile")


def missing_module(root: Path, names: list[str]) -> str | None:
    """The file tools/<names[0]>/.../<name>.py that a module name tools.<names> needs and the
    tree lacks, or None: the name is found once one of its parts is a module file, and each
    part before it must be a package folder."""
    folder = root / "tools"
    for i, name in enumerate(names):
        if (folder / f"{name}.py").is_file():
            return None
        if not (folder / name).is_dir():
            return "/".join(["tools", *names[:i + 1]]) + ".py"
        folder = folder / name
    return None


def missing_tool_paths(root: Path) -> list[str]:
    """Paths under tools/ named in the tree's text files that do not exist in the tree."""
    problems = []
    for path, rel, text in texts(root, TOOL_PATH_SUFFIXES, TOOL_PATH_NAMES):
        if path.name in GENERATED:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            for m in TOOL_PATH.finditer(line):
                target = m.group(1).rstrip(".")
                if line[m.end():m.end() + 1] in ("$", "{", "<", "*"):
                    continue
                if not (root / target).exists():
                    problems.append(f"{rel}:{n}: names {target}, which is not in this tree")
            for m in TOOL_MODULE.finditer(line):
                names = m.group(1)[1:].split(".")
                if len(names) == 1 and f".{names[0]}" in TOOL_PATH_SUFFIXES | {".json", ".sh"}:
                    continue  # a file name (cudalab/tools.hpp), not a module
                lacking = missing_module(root, names)
                if lacking and line[m.end():m.end() + 1] not in ("$", "{", "<", "*"):
                    problems.append(f"{rel}:{n}: names {lacking}, which is not in this tree")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", nargs="?", type=Path, default=Path(__file__).resolve().parents[2])
    ap.add_argument("--strict-mentions", action="store_true",
                    help="mentions of missing .md files are errors, not warnings")
    ap.add_argument("--quiet", action="store_true", help="print only problems")
    args = ap.parse_args(argv)
    root = args.root.resolve()
    if not root.is_dir():
        print(f"check_links: {root} is not a folder", file=sys.stderr)
        return 2
    links = dead_links(root)
    mentions = missing_mentions(root)
    messages = missing_paths_in_messages(root)
    tool_paths = missing_tool_paths(root)
    for p in links + messages + tool_paths:
        print(f"error: {p}")
    for p in mentions:
        print(f"{'error' if args.strict_mentions else 'warning'}: {p}")
    failed = bool(links) or bool(messages) or bool(tool_paths) or \
        (args.strict_mentions and bool(mentions))
    if not args.quiet or failed:
        print(f"check_links: {root}: {len(links)} dead link(s), {len(messages)} missing path(s) "
              f"in source messages, {len(tool_paths)} missing tools/ path(s), "
              f"{len(mentions)} mention(s) of missing Markdown files"
              f"{'' if args.strict_mentions else ' (warnings)'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
