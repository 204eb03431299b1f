# SPDX-License-Identifier: BSD-3-Clause
"""Skeleton check: solutions/ differ from their labs/ stubs only inside TODO regions.

    python3 -m tools.skeleton_check [--root DIR] [--lab NN ...] [--min-wrong N]

For every lab (labs/labNN_topic/ with a CMakeLists.txt calling cudalab_add_lab):
  * the SOURCES files of cudalab_add_lab() exist in labs/labNN_topic/ and in
    solutions/labNN_topic/, and solutions/labNN_topic/ holds exactly those files (no
    headers, nothing else: the interface is the header in labs/, shared by both);
  * each SOURCES stub has at least one region
        // TODO(labNN): ...        (the TODO line, then comment lines with a // HINT:)
        ...
        // END TODO(labNN)
    and its solution twin has the same regions: outside them both files are identical
    line by line (byte for byte), the TODO line with the comment lines that follow it in
    the stub (the HINT) and the END line are identical, and the solution differs from the
    stub somewhere;
  * known-wrong submissions (tests/labNN_topic/wrong/<variant>.patch, a header and a
    unified diff against solutions/labNN_topic/; see tools/variant_patches.py): at least
    --min-wrong variants per lab (default 3), each with a header whose first line says what
    is broken, patching SOURCES files only; each applies cleanly (git apply, as CMake
    does) to the current solution, and the patched files differ from the solution, only
    inside TODO regions. One exemption: a cheat whose trick lives in a given launcher
    (calling a baseline, computing on the host, ignoring the stream) must edit outside the
    regions; its header says so in a line `cheat: <why it must edit outside the TODO
    regions>`, and its files then only have to differ from the solution (anywhere). A
    `cheat:` line without a reason is a problem;
  * correct alternatives (tests/labNN_topic/right/<variant>.patch): a first line saying
    what the alternative is, SOURCES files only, applies cleanly, changes something;
  * tests/labNN_topic/wrong/ and right/ hold only .patch files; tests/ holds no folder
    labNN_topic of no lab;
  * kernel identity: every `__global__` function of a lab's .cu files is private to its file
    (an anonymous namespace or `static`) unless the lab's header declares it (a kernel the
    lesson makes part of the interface), and every SOURCES file that defines a kernel exports
    its identity, a function returning `cudalab::KernelInfo` (labNN::<technique>_kernel()).
A patch whose hunks apply only at an offset (the solution gained or lost lines above them)
is reported as a note, not a problem: `python3 -m tools.variant_patches refresh` re-derives it.
Each problem is printed as `path:line: message` (for a patched file:
`tests/<lab>/<kind>/<variant>.patch[<file>]:line`, the line of the patched file). Exit
status: 0 when clean, 1 when a problem was found, 2 on a usage error. A tree without
solutions/ (a student release) only gets the stub checks. Python 3 standard library and git.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from . import variant_patches  # reads and applies the variant patches

# cudalab_add_lab() keywords are upper case (NUMBER, SOURCES, POINTS, ...); its values (file
# names, libraries, Suite=points) never are, so any all-capitals word starts a new keyword.
KEYWORD = re.compile(r"[A-Z][A-Z0-9_]*")
HEADER_SUFFIXES = {".h", ".hpp", ".cuh", ".hh", ".hxx", ".inl"}
# The handout's answers: labs/<lab>/answers.txt (a TODO region) and its reference twin in
# solutions/<lab>/ (tools/handout_check.py compares the two).
ANSWERS = "answers.txt"


class Problems:
    def __init__(self, root: Path):
        self.root = root
        self.items: list[str] = []
        self.notes: list[str] = []
        # Shown names of files that exist only for the check (a variant's patched files).
        self.alias: dict[Path, str] = {}

    def add(self, path: Path, line: int | None, message: str) -> None:
        rel: str | Path
        if path in self.alias:
            rel = self.alias[path]
        else:
            try:
                rel = path.relative_to(self.root)
            except ValueError:
                rel = path
        self.items.append(f"{rel}:{line}: {message}" if line else f"{rel}: {message}")


# ---------------------------------------------------------------------------
# cudalab_add_lab() arguments
# ---------------------------------------------------------------------------
def lab_arguments(cmakelists: Path) -> dict[str, list[str]] | None:
    text = cmakelists.read_text(errors="replace")
    text = re.sub(r"#[^\n]*", "", text)  # comments (no '#' inside file names here)
    m = re.search(r"cudalab_add_lab\s*\((.*?)\)", text, re.S)
    if not m:
        return None
    args: dict[str, list[str]] = {}
    key = None
    for token in re.findall(r'"[^"]*"|[^\s"]+', m.group(1)):
        token = token.strip('"')
        if KEYWORD.fullmatch(token):
            key = token
            args.setdefault(key, [])
        elif key:
            args[key].append(token)
    return args


# ---------------------------------------------------------------------------
# TODO regions
# ---------------------------------------------------------------------------
@dataclass
class Segment:
    kind: str          # "out" or "todo"
    start: int         # 1-based line number of the first line
    lines: list[str] = field(default_factory=list)


def read_lines(path: Path) -> list[str]:
    # Bytes decoded losslessly; line ends kept, so CRLF vs LF or a missing final newline
    # counts as a difference.
    return path.read_bytes().decode("utf-8", "surrogateescape").splitlines(keepends=True)


def segments(path: Path, nn: str, problems: Problems) -> list[Segment] | None:
    """Splits a file into outside/TODO segments; None (and problems) when malformed."""
    start_re = re.compile(r"\bTODO\(lab" + nn + r"\)")
    end_re = re.compile(r"\bEND TODO\(lab" + nn + r"\)")
    any_re = re.compile(r"\bTODO\(lab(\d\d)\)")
    segs = [Segment("out", 1)]
    ok = True
    for i, line in enumerate(read_lines(path), start=1):
        other = [n for n in any_re.findall(line) if n != nn]
        if other:
            problems.add(path, i, f"TODO(lab{other[0]}) marker in a lab{nn} file")
            ok = False
        if end_re.search(line):
            if segs[-1].kind != "todo":
                problems.add(path, i, f"END TODO(lab{nn}) without an open TODO(lab{nn})")
                return None
            segs[-1].lines.append(line)
            segs.append(Segment("out", i + 1))
        elif start_re.search(line):
            if segs[-1].kind == "todo":
                problems.add(path, i, f"TODO(lab{nn}) inside the region opened at line "
                                      f"{segs[-1].start} (missing END TODO(lab{nn})?)")
                return None
            segs.append(Segment("todo", i, [line]))
        else:
            segs[-1].lines.append(line)
    if segs[-1].kind == "todo":
        problems.add(path, segs[-1].start, f"TODO(lab{nn}) region is never closed with END TODO(lab{nn})")
        return None
    return segs if ok else None


def region_header(seg: Segment) -> list[str]:
    """The TODO line and the comment lines right after it (what to do, and the HINT)."""
    header = [seg.lines[0]]
    for line in seg.lines[1:-1]:
        if line.lstrip().startswith("//"):
            header.append(line)
        else:
            break
    return header


def compare_files(stub: Path, other: Path, nn: str, problems: Problems, what: str,
                  require_hint: bool = True) -> bool:
    """stub vs other (solution or wrong variant): identical outside regions. True if clean.

    For a wrong variant, `stub` is the solution it was copied from (require_hint=False)."""
    ref = "stub" if require_hint else "solution"
    n_before = len(problems.items)
    a = segments(stub, nn, problems)
    b = segments(other, nn, problems)
    if a is None or b is None:
        return False
    regions_a = [s for s in a if s.kind == "todo"]
    regions_b = [s for s in b if s.kind == "todo"]
    if not regions_a:
        problems.add(stub, None, f"no TODO(lab{nn}) ... END TODO(lab{nn}) region: a SOURCES "
                                 f"file holds the student's work")
        return False
    if require_hint:
        for r in regions_a:
            if not any("HINT" in line for line in region_header(r)):
                problems.add(stub, r.start, f"TODO(lab{nn}) region without a // HINT: comment "
                                            f"right after the TODO line")
    if len(regions_a) != len(regions_b):
        problems.add(other, None, f"{len(regions_b)} TODO(lab{nn}) region(s), the {ref} "
                                  f"{stub.name} has {len(regions_a)}")
        return False
    for sa, sb in zip(a, b):
        if sa.kind == "out":
            for k in range(max(len(sa.lines), len(sb.lines))):
                la = sa.lines[k] if k < len(sa.lines) else None
                lb = sb.lines[k] if k < len(sb.lines) else None
                if la != lb:
                    problems.add(other, sb.start + k,
                                 f"differs from the {ref} outside the TODO(lab{nn}) regions "
                                 f"({ref} line {sa.start + k}: {_show(la)}; here: {_show(lb)})")
                    break
        else:
            # Variants are compared with the solution, whose region may start with comments
            # of its own: only the TODO line itself must match there.
            header = region_header(sa) if require_hint else sa.lines[:1]
            for k, line in enumerate(header):
                if k >= len(sb.lines) or sb.lines[k] != line:
                    got = sb.lines[k] if k < len(sb.lines) else None
                    problems.add(other, sb.start + k,
                                 f"the TODO/HINT lines of the region differ from the {ref}'s "
                                 f"({ref} line {sa.start + k}: {_show(line)}; here: {_show(got)})")
                    break
            if sa.lines[-1] != sb.lines[-1]:
                problems.add(other, sb.start + len(sb.lines) - 1,
                             f"END TODO(lab{nn}) line differs from the {ref}'s "
                             f"({ref} line {sa.start + len(sa.lines) - 1})")
    if len(problems.items) == n_before and read_lines(stub) == read_lines(other):
        problems.add(other, None, f"identical to the {ref}: the {what} changes nothing")
    return len(problems.items) == n_before


_GLOBAL = re.compile(r"__global__\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?[\w:<>]+\s+(\w+)\s*\(")
_KERNEL_INFO = re.compile(r"cudalab::KernelInfo\s+\w+\s*\(")
_SCOPE = re.compile(r"namespace\s+(\w+(?:::\w+)*)?\s*\{|\{|\}|__global__")


def blank_comments(text: str) -> str:
    """@p text with comments and string/character literals blanked (line breaks kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif text[i] in "\"'":
            j = i + 1
            while j < n and text[j] != text[i] and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
        else:
            out.append(text[i])
            i += 1
            continue
        out.append(re.sub(r"[^\n]", " ", text[i:j]))
        i = j
    return "".join(out)


def kernels_of(path: Path) -> list[tuple[int, str, bool]]:
    """(line, name, private) of every `__global__` function a file defines or declares:
    private when it lies in an anonymous namespace or is declared `static`."""
    text = blank_comments(path.read_text(encoding="utf-8", errors="replace"))
    found, scopes = [], []
    for m in _SCOPE.finditer(text):
        token = m.group(0)
        if token.startswith("namespace"):
            scopes.append("named" if m.group(1) else "anonymous")
        elif token == "{":
            scopes.append("block")
        elif token == "}":
            if scopes:
                scopes.pop()
        elif (g := _GLOBAL.match(text, m.start())):
            line_start = text.rfind("\n", 0, m.start()) + 1
            static = re.search(r"\bstatic\s+(template\s*<[^>]*>\s*)?$",
                               text[line_start:m.start()]) is not None
            found.append((text.count("\n", 0, m.start()) + 1, g.group(1),
                          "anonymous" in scopes or static))
    return found


def check_kernel_identity(lab_dir: Path, sources: list[str], problems: Problems) -> None:
    """Kernels private to their file unless the header declares them; every SOURCES file
    with a kernel exports a cudalab::KernelInfo."""
    interface = {name for h in sorted(lab_dir.iterdir()) if h.suffix in HEADER_SUFFIXES
                 for _, name, _ in kernels_of(h)}
    for f in sorted(lab_dir.glob("*.cu")):
        found = kernels_of(f)
        for line, name, private in found:
            if not private and name not in interface:
                problems.add(f, line, f"kernel {name} is public: make it private to its file "
                                      f"(an anonymous namespace) and export its identity, or "
                                      f"declare it in the lab's header if the lesson makes it "
                                      f"part of the interface")
        if found and f.name in sources and not _KERNEL_INFO.search(f.read_text(errors="replace")):
            problems.add(f, None, "defines a kernel but exports no identity (a function "
                                  "returning cudalab::KernelInfo, labNN::<technique>_kernel())")


def _show(line: str | None) -> str:
    if line is None:
        return "<end of file>"
    text = line.rstrip("\n")
    if text.endswith("\r"):
        text = text[:-1] + "<CR>"
    text = text.strip()
    return repr(text if len(text) <= 60 else text[:57] + "...")


# ---------------------------------------------------------------------------
# Per lab
# ---------------------------------------------------------------------------
def check_lab(root: Path, lab_dir: Path, problems: Problems, min_wrong: int) -> int:
    """Returns the number of files compared."""
    nn = lab_dir.name[3:5]
    args = lab_arguments(lab_dir / "CMakeLists.txt")
    if args is None:
        problems.add(lab_dir / "CMakeLists.txt", None, "no cudalab_add_lab(...) call")
        return 0
    number = (args.get("NUMBER") or [""])[0]
    if number != nn:
        problems.add(lab_dir / "CMakeLists.txt", None, f"NUMBER {number!r} does not match the folder lab{nn}")
    name = (args.get("NAME") or [""])[0]
    if f"lab{nn}_{name}" != lab_dir.name:
        problems.add(lab_dir / "CMakeLists.txt", None, f"NAME {name!r} does not match the folder {lab_dir.name}")
    sources = args.get("SOURCES", [])
    if not sources:
        problems.add(lab_dir / "CMakeLists.txt", None, "cudalab_add_lab() lists no SOURCES (the student's files)")
    for f in sources:
        if Path(f).suffix in HEADER_SUFFIXES:
            problems.add(lab_dir / "CMakeLists.txt", None, f"SOURCES lists the header {f}; "
                                                           f"the interface header is not student work")
        if not (lab_dir / f).is_file():
            problems.add(lab_dir / f, None, "listed in SOURCES but missing in labs/")
    for f in args.get("GIVEN", []) + args.get("DEMO", []):
        if not (lab_dir / f).is_file():
            problems.add(lab_dir / f, None, "listed in GIVEN/DEMO but missing in labs/")
    if not any(p.suffix in HEADER_SUFFIXES for p in lab_dir.iterdir()):
        problems.add(lab_dir, None, "no interface header (.cuh/.h/.hpp) in labs/")

    check_kernel_identity(lab_dir, sources, problems)

    compared = 0
    sol_root = root / "solutions"
    if not sol_root.is_dir():
        # Student release: the stubs must still be well-formed.
        for f in sources:
            if (lab_dir / f).is_file():
                segs = segments(lab_dir / f, nn, problems)
                if segs is not None and not any(s.kind == "todo" for s in segs):
                    problems.add(lab_dir / f, None, f"no TODO(lab{nn}) region")
        return 0
    sol_dir = sol_root / lab_dir.name
    if not sol_dir.is_dir():
        problems.add(sol_dir, None, "missing: every lab has its reference solution")
        return 0
    for p in sorted(sol_dir.rglob("*")):
        if p.is_dir():
            continue
        rel = p.relative_to(sol_dir).as_posix()
        if p.suffix in HEADER_SUFFIXES:
            problems.add(p, None, "a header in solutions/: the graders include the headers "
                                  "of labs/ (one interface shared by stub and solution), so "
                                  "they would never see this one")
        elif rel not in sources and rel != ANSWERS:
            twin = "exists" if (lab_dir / rel).exists() else "has no twin in labs/"
            problems.add(p, None, f"not a SOURCES file of lab{nn} ({twin}); solutions/ holds "
                                  f"only the SOURCES files and {ANSWERS}")
    for f in sources:
        stub, sol = lab_dir / f, sol_dir / f
        if not sol.is_file():
            problems.add(sol, None, "SOURCES file missing in solutions/")
            continue
        if stub.is_file():
            compare_files(stub, sol, nn, problems, "solution")
            compared += 1

    # Known-wrong submissions and correct alternatives: patches of the solution.
    for kind in variant_patches.KINDS:
        compared += check_variants(root, lab_dir.name, kind, sources, problems,
                                   min_wrong if kind == "wrong" else 0)
    return compared


def check_variants(root: Path, lab: str, kind: str, sources: list[str], problems: Problems,
                   minimum: int) -> int:
    """tests/<lab>/<kind>/*.patch; returns the number of patched files compared."""
    nn = lab[3:5]
    vdir = root / "tests" / lab / kind
    entries = sorted(vdir.iterdir()) if vdir.is_dir() else []
    for p in entries:
        if p.suffix != ".patch" or not p.is_file():
            problems.add(p, None, f"not a variant: tests/{lab}/{kind}/ holds only "
                                  f"<variant>.patch files (diffs against solutions/{lab}/)")
    patches = [p for p in entries if p.suffix == ".patch" and p.is_file()]
    if len(patches) < minimum:
        problems.add(vdir, None, f"{len(patches)} known-wrong submission(s); every lab "
                                 f"keeps at least {minimum}")
    sol_dir = root / "solutions" / lab
    compared = 0
    for path in patches:
        if not re.fullmatch(r"[A-Za-z0-9_]+", path.stem):
            problems.add(path, None, "variant names use letters, digits and _ only")
        try:
            v = variant_patches.read_variant(path, root)
        except variant_patches.PatchError as e:
            problems.add(path, None, str(e).split(": ", 1)[-1])
            continue
        if not v.what:
            problems.add(path, 1, "missing or empty first line: say what " +
                         ("is broken" if kind == "wrong" else "the alternative is"))
        cheat = None  # the reason a cheat must edit outside the TODO regions
        for line, reason in v.spec("cheat") if kind == "wrong" else []:
            cheat = reason
            if not reason:
                problems.add(path, line, "'cheat:' line without a reason (why the variant must "
                                         "edit outside the TODO regions)")
        outside = [f for f in v.files if f not in sources]
        for f in outside:
            problems.add(path, None, f"patches {f}, not a SOURCES file of lab{nn} "
                                     f"({', '.join(sources)})")
        if outside:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            try:
                offsets = variant_patches.apply_variant(v, Path(tmp), root)
            except variant_patches.PatchError as e:
                problems.add(path, None, f"does not apply to solutions/{lab}/: {e}")
                continue
            if offsets:
                problems.notes.append(f"{path.relative_to(root)}: applies with hunks moved by "
                                      f"{offsets} lines; python3 -m tools.variant_patches "
                                      f"refresh re-derives it")
            for f in v.files:
                patched = Path(tmp) / f
                problems.alias[patched] = f"{path.relative_to(root)}[{f}]"
                same = read_lines(sol_dir / f) == read_lines(patched)
                if kind == "right" or cheat:
                    if same:
                        problems.add(patched, None, "identical to the solution: the variant "
                                                    "changes nothing")
                else:
                    compare_files(sol_dir / f, patched, nn, problems, "known-wrong variant",
                                  require_hint=False)
                compared += 1
    return compared


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tools.skeleton_check", description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent,
                    help="the cudalabs checkout (default: this script's)")
    ap.add_argument("--lab", action="append", default=[], metavar="NN", help="check only lab NN")
    ap.add_argument("--min-wrong", type=int, default=3,
                    help="known-wrong submissions each lab needs (default 3; 0: no check)")
    args = ap.parse_args(argv)
    root = args.root.resolve()
    if not (root / "labs").is_dir():
        print(f"skeleton_check: {root} has no labs/ folder", file=sys.stderr)
        return 2
    problems = Problems(root)
    labs = sorted(p for p in (root / "labs").glob("lab[0-9][0-9]_*")
                  if p.is_dir() and (p / "CMakeLists.txt").is_file())
    if args.lab:
        wanted = {f"{int(n):02d}" for n in args.lab if n.isdigit()}
        labs = [p for p in labs if p.name[3:5] in wanted]
    if not labs:
        print("skeleton_check: no lab to check", file=sys.stderr)
        return 2
    if (root / "solutions").is_dir() and not args.lab:
        for p in sorted((root / "solutions").iterdir()):
            if p.is_dir() and not (root / "labs" / p.name / "CMakeLists.txt").is_file():
                problems.add(p, None, "has no lab in labs/ (no labs/<same name>/CMakeLists.txt)")
    if (root / "tests").is_dir() and not args.lab:
        for p in sorted((root / "tests").glob("lab[0-9][0-9]_*")):
            if p.is_dir() and not (root / "labs" / p.name / "CMakeLists.txt").is_file():
                problems.add(p, None, "grading folder of no lab (no labs/<same name>/)")
    compared = sum(check_lab(root, lab, problems, args.min_wrong) for lab in labs)
    for item in problems.items:
        print(item)
    for note in problems.notes:
        print(f"note: {note}")
    names = " ".join(p.name[:5] for p in labs)
    if not (root / "solutions").is_dir():
        compared_text = "no solutions/ (student release): stubs checked"
    else:
        compared_text = f"{compared} file pair(s) identical outside their TODO regions"
    if problems.items:
        print(f"skeleton check FAILED: {len(problems.items)} problem(s) in {names}")
        return 1
    print(f"skeleton check passed: {len(labs)} lab(s) ({names}), {compared_text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
