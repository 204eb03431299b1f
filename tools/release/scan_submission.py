# SPDX-License-Identifier: BSD-3-Clause
"""The intake scan: host-side constructs that have no place in a lab file, flagged for review.

    python3 -m tools.release.scan_submission [--course DIR] [--json FILE] [--summary FILE]
                                             [--lab labNN ...] [FILE ...]

A lab file (a SOURCES file of labs/labNN_topic/) holds kernels and the launchers that start
them. Student code runs inside the grader's process, so a lab file could print a fake verdict,
write files that other steps read, start processes that outlive its test, or change the job's
environment. None of that is needed to solve a lab, and each needs a construct this scan
finds in the source:

  file or stream I/O       fopen, open, ofstream, std::filesystem, FILE, write, unlink, ...
  process control          exit, _exit, abort, quick_exit, atexit, fork, exec*, system,
                           popen, kill, raise, signal, setsid, ptrace, prctl, syscall, ...
  environment access       getenv, setenv, putenv, unsetenv, environ
  dynamic loading          dlopen, dlsym, <dlfcn.h>
  network                  socket, connect, getaddrinfo, ...
  code before main         __attribute__((constructor)), [[gnu::constructor]], .init_array,
                           a namespace-scope variable initialised by a call or of a class
                           type with a constructor
  host inline assembly     asm outside a __device__ / __global__ function
  an interposed function   a definition of a CUDA runtime/driver function (cuda*, cu*)
  a main function          int main(...)
  a macro                  #define, #undef, ## or _Pragma (a macro can spell any name above)
  verdict strings          a string that mimics GoogleTest, CTest or the graders' own lines
                           ("[       OK ]", "[  PASSED  ]", "tests passed", "CUDALAB-RECORD", ...)
  an include               outside the lab's expected set (the lab's own headers, the
                           includes of its stub and solution, the common library's public
                           headers and a short list of standard and CUDA headers)

Each finding is printed as `needs review: <file>:<line>: <construct>` (GitHub annotations too
under Actions), appended to --summary as Markdown, and written per lab to --json
({"schema": "cudalabs-intake", "labs": {"lab07": [{"file", "line", "construct", "text"}]}}),
which the scoreboard records (scores.json `labs[].flags`) and the class gradebook shows.
A flag is not a verdict: a person reads the code. The scan works on comments-stripped text;
a determined author can hide intent from any scanner, which is why the grade that counts is
the instructor's regrade in a sandbox (the instructor handout's threat model).

With FILE arguments, those files are scanned (their lab is the labNN in their path, for the
include rule). Without, every SOURCES file of every lab of --course is scanned.
Exit status: 0 (findings are reported, not errors); 2 on a usage error.
Python 3 standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

from ..model import Flag
from .course_files import student_files  # (each lab's SOURCES and answers.txt)

SCHEMA = "cudalabs-intake"

# Standard and CUDA headers a lab may include besides what its own files include.
STANDARD_INCLUDES = {
    "algorithm", "array", "bitset", "cassert", "deque", "functional", "iterator", "list",
    "map", "memory", "optional", "set", "span", "unordered_map", "unordered_set", "cfloat", "climits", "cmath", "cstddef", "cstdint",
    "cstring", "initializer_list", "limits", "numeric", "stdexcept", "string", "tuple",
    "type_traits", "utility", "vector", "math.h", "stdint.h", "stddef.h", "float.h",
    "limits.h", "cuda_runtime.h", "cuda_runtime_api.h", "cuda_pipeline.h",
    "cuda_pipeline_primitives.h", "cuda/atomic", "cuda/barrier", "cuda/pipeline",
    "cuda/std/cstdint",
    "cuda_fp16.h", "cuda_bf16.h", "mma.h", "cooperative_groups.h",
    "cooperative_groups/memcpy_async.h", "cooperative_groups/reduce.h",
}
# Public headers of the common library a lab file may include (the grader-only reference
# code is kept out at link time: cmake/CudalabIsolation.cmake).
COMMON_INCLUDE = re.compile(r"^cudalab/[A-Za-z0-9_]+\.(cuh|hpp|h)$")

# (construct, identifiers) — a word followed by "(" or used as a name, outside comments and
# strings.
CALLS = [
    ("file or stream I/O", r"fopen|fopen64|freopen|fdopen|fwrite|fputs|fputc|fprintf|"
                           r"open|openat|creat|write|pwrite|writev|unlink|unlinkat|remove|"
                           r"rename|renameat|mkdir|rmdir|truncate|ftruncate|mmap|symlink|link|"
                           r"chmod|chown|chdir|dup|dup2|dup3|opendir|readdir|tmpfile|mkstemp"),
    ("process control", r"exit|_exit|_Exit|abort|quick_exit|at_quick_exit|atexit|fork|vfork|"
                        r"clone|execl|execlp|execle|execv|execvp|execvpe|execve|fexecve|system|"
                        r"popen|pclose|kill|killpg|raise|signal|sigaction|setsid|setpgid|"
                        r"daemon|ptrace|prctl|syscall|posix_spawn|posix_spawnp|terminate|"
                        r"set_terminate|longjmp|setjmp|pthread_create|pthread_kill"),
    ("environment access", r"getenv|secure_getenv|setenv|putenv|unsetenv|clearenv"),
    ("dynamic loading", r"dlopen|dlmopen|dlsym|dlvsym|dlclose|LoadLibrary|GetProcAddress"),
    ("network", r"socket|connect|bind|listen|accept|getaddrinfo|gethostbyname|sendto|recvfrom"),
]
NAMES = [
    ("file or stream I/O", r"ofstream|ifstream|fstream|filebuf|filesystem|FILE|stdout|stderr|"
                           r"STDOUT_FILENO|STDERR_FILENO"),
    ("environment access", r"environ|__environ"),
]
ATTRIBUTES = [
    ("code before main", re.compile(r"__attribute__\s*\(\(\s*(constructor|destructor)")),
    ("code before main", re.compile(r"\[\[\s*gnu\s*::\s*(constructor|destructor)")),
    ("code before main", re.compile(r"\.init_array|\.ctors|\.preinit_array")),
]
VERDICT_STRINGS = re.compile(
    r"\[\s*(OK|PASSED|FAILED|RUN|SKIPPED|==========|----------)\s*\]|"
    r"tests passed|tests failed|Test\s*#|\bPassed\b|CUDALAB-RECORD|CUDALAB-BATCH|"
    r"\[\s*(MEASURE|SPEED|CUDALAB|SEED|TIER)\s*\]|REJECTED|ACCEPTED|\"status\"|"
    r"GITHUB_|Classroom|result\.json|scores\.json|junit", re.I)
HOST_ASM = re.compile(r"\b(asm|__asm__|__asm)\b")
INTERPOSED = re.compile(r"^\s*(?:extern\s+\"[^\"]*\"\s+)?[\w:<>*&\s]*?\b(cuda[A-Z]\w*|cu[A-Z]\w*|"
                        r"nvrtc\w*|__cuda\w*)\s*\([^;{]*\)\s*(?:noexcept\s*)?\{", re.M)
MAIN = re.compile(r"\bint\s+main\s*\(")
# A macro can spell any name this scan looks for (`ex##it`, `#define E exit`): no lab needs one.
MACRO = re.compile(r"^[ \t]*#[ \t]*(define|undef)\b|##|\b_Pragma\s*\(", re.M)


# ---------------------------------------------------------------------------
# Source text: comments removed, strings set aside (line numbers kept)
# ---------------------------------------------------------------------------
def split_source(text: str) -> tuple[str, list[tuple[int, str]]]:
    """(code with comments and string/char literals blanked, [(line, literal text)])."""
    code = []
    strings = []
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        nxt = text[i + 1] if i + 1 < n else ""
        if c == "/" and nxt == "/":
            j = text.find("\n", i)
            j = n if j < 0 else j
            code.append(" " * (j - i))
            i = j
        elif c == "/" and nxt == "*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            chunk = text[i:j]
            code.append(re.sub(r"[^\n]", " ", chunk))
            line += chunk.count("\n")
            i = j
        elif c == "R" and nxt == '"' and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]{0,16})\(', text[i:])
            if not m:
                code.append(c)
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i)
            end = n if end < 0 else end + len(m.group(1)) + 2
            chunk = text[i:end]
            strings.append((line, chunk))
            code.append('""' + re.sub(r"[^\n]", " ", chunk[2:]))
            line += chunk.count("\n")
            i = end
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            chunk = text[i:j]
            if c == '"':
                strings.append((line, chunk[1:-1]))
            code.append(c + " " * (len(chunk) - 2) + c if len(chunk) >= 2 else chunk)
            i = j
        else:
            if c == "\n":
                line += 1
            code.append(c)
            i += 1
    return "".join(code), strings


def _line_of(code: str, pos: int) -> int:
    return code.count("\n", 0, pos) + 1


def _excerpt(lines: list[str], line: int) -> str:
    return lines[line - 1].strip()[:160] if 0 < line <= len(lines) else ""


# ---------------------------------------------------------------------------
# Scopes: which braces are namespaces, classes, device or host functions
# ---------------------------------------------------------------------------
def scopes(code: str) -> list[tuple[int, int, str, str]]:
    """Every brace block: (open pos, close pos, kind, header) with kind namespace, class,
    function, or other (initialisers, lambdas, control blocks inside functions)."""
    out = []
    stack: list[tuple[int, str, str]] = []
    last_end = 0
    for m in re.finditer(r"[{};]", code):
        ch, pos = m.group(), m.start()
        if ch == ";":
            if not stack or stack[-1][1] in ("namespace", "class"):
                last_end = pos + 1
            continue
        if ch == "{":
            header = code[last_end:pos]
            parent = stack[-1][1] if stack else "namespace"
            h = " ".join(header.split())
            if parent in ("function", "other"):
                kind = "other"
            elif re.search(r"\bnamespace\b[\w\s:]*$", h) or re.search(r'extern\s+"C"\s*$', h):
                kind = "namespace"
            elif re.search(r"\b(struct|class|union|enum)\b[^()]*$", h):
                kind = "class"
            elif re.search(r"\)\s*(const|noexcept|override|final|->[^{]*)?\s*$", h) and \
                    "=" not in h.split("(")[0]:
                kind = "function"
            else:
                kind = "other"
            stack.append((pos, kind, h))
            last_end = pos + 1
        else:
            if stack:
                start, kind, h = stack.pop()
                out.append((start, pos, kind, h))
            if not stack or stack[-1][1] in ("namespace", "class"):
                last_end = pos + 1
    return out


def _enclosing_function(blocks: list[tuple[int, int, str, str]],
                        pos: int) -> tuple[int, int, str, str] | None:
    best: tuple[int, int, str, str] | None = None
    for start, end, kind, header in blocks:
        if kind == "function" and start < pos < end:
            if best is None or start > best[0]:
                best = (start, end, kind, header)
    return best


def _namespace_statements(code: str,
                          blocks: list[tuple[int, int, str, str]]) -> list[tuple[int, str]]:
    """Statements ending in ';' whose every enclosing block is a namespace: (pos, text)."""
    inner = sorted((s, e, kind) for s, e, kind, _ in blocks if kind != "namespace")
    outermost: list[tuple[int, int, str]] = []  # inner blocks not nested in another inner block
    for s, e, kind in inner:
        if not outermost or s > outermost[-1][1]:
            outermost.append((s, e, kind))
    # After a function or class body a new statement starts; an initialiser's braces (a
    # lambda, a braced list) belong to their statement.
    ends = {e for _, e, kind in outermost if kind in ("function", "class")}
    spans = [(s, e) for s, e, _ in outermost]
    out = []
    start = 0
    for m in re.finditer(r"[{};]", code):
        pos = m.start()
        if pos in ends:
            start = pos + 1  # after a function or class body: a new statement starts
            continue
        if any(s <= pos <= e for s, e in spans):
            continue
        if m.group() in "{}":
            start = pos + 1
            continue
        out.append((start, code[start:pos]))
        start = pos + 1
    return out


_SKIP_STATEMENT = re.compile(r"^\s*(template|using|typedef|static_assert|namespace|extern|friend|"
                             r"#|enum|struct|class|union)\b")
_DEVICE_VAR = re.compile(r"\b(constexpr|__constant__|__device__|__shared__|__managed__|consteval|"
                         r"constinit)\b")


def code_before_main(code: str, blocks, classes_with_ctor: set[str]) -> list[tuple[int, str]]:
    """Namespace-scope variables whose initialisation runs code before main: (pos, why)."""
    found = []
    for pos, stmt in _namespace_statements(code, blocks):
        s = " ".join(stmt.split())
        if not s or _SKIP_STATEMENT.match(s) or _DEVICE_VAR.search(s):
            continue
        at = pos + (len(stmt) - len(stmt.lstrip()))
        lhs, eq, rhs = s.partition("=")
        if eq and "(" not in lhs and re.search(r"[\w>)\]]\s*\(|\[[^\]]*\]\s*[({]", rhs):
            found.append((at, "a namespace-scope variable initialised by a call"))
            continue
        words = re.findall(r"[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*", lhs)
        words = [w for w in words if w not in ("static", "const", "inline", "volatile",
                                               "thread_local", "mutable")]
        if len(words) >= 2 and words[0].split("::")[-1] in classes_with_ctor:
            found.append((at, f"a namespace-scope object of class {words[0]}, whose constructor "
                              f"runs before main"))
            continue
        # "Type name(args)" / "Type name{args}" with arguments that are values, not types.
        m = re.match(r"^(?:static\s+|const\s+|inline\s+)*([\w:<>]+)\s+(\w+)\s*[({](.*)[)}]\s*$", s)
        if m and not eq and re.search(r"\"|\b\d|\btrue\b|\bfalse\b|\bnullptr\b|\(\)", m.group(3)) \
                and m.group(1) not in ("void",):
            found.append((at, "a namespace-scope object constructed before main"))
    # "struct X { ... } x;" — a variable declared right after a class body.
    for start, end, kind, header in blocks:
        if kind != "class" or _enclosing_function(blocks, start):
            continue
        rest = code[end + 1:end + 200]
        m = re.match(r"\s*(\*?\s*[A-Za-z_]\w*)\s*[;=({]", rest)
        name = re.search(r"\b(?:struct|class|union)\s+(\w+)", header)
        if m and name and name.group(1) in classes_with_ctor:
            found.append((end, f"an object of class {name.group(1)} declared with its definition"))
    return found


def classes_with_constructor(code: str, blocks) -> set[str]:
    names = set()
    for start, end, kind, header in blocks:
        if kind != "class":
            continue
        m = re.search(r"\b(?:struct|class|union)\s+(\w+)", header)
        if m and re.search(r"\b" + re.escape(m.group(1)) + r"\s*\(", code[start:end]):
            names.add(m.group(1))
        if m and re.search(r"~\s*" + re.escape(m.group(1)) + r"\s*\(", code[start:end]):
            names.add(m.group(1))
    return names


# ---------------------------------------------------------------------------
# The scan
# ---------------------------------------------------------------------------
def scan_text(text: str, rel: str, allowed_includes: set[str] | None) -> list[Flag]:
    lines = text.splitlines()
    code, strings = split_source(text)
    flags: list[Flag] = []

    def add(pos_or_line: int, construct: str, is_line: bool = False):
        line = pos_or_line if is_line else _line_of(code, pos_or_line)
        flags.append(Flag(rel, line, construct, _excerpt(lines, line)))

    for construct, words in CALLS:
        for m in re.finditer(r"(?<![\w.>])(?:::|std::)?(" + words + r")\s*\(", code):
            # a member call (x.write(...), p->open(...)) or a declaration is not the libc one
            before = code[max(0, m.start() - 2):m.start()]
            if before.endswith(".") or before.endswith("->"):
                continue
            add(m.start(), f"{construct}: {m.group(1)}")
    for construct, words in NAMES:
        for m in re.finditer(r"(?<![\w.])(?:std::)?(" + words + r")\b", code):
            add(m.start(), f"{construct}: {m.group(1)}")
    for construct, rx in ATTRIBUTES:
        for m in rx.finditer(code):
            add(m.start(), f"{construct}: {m.group(0).strip()}")
    blocks = scopes(code)
    for pos, why in code_before_main(code, blocks, classes_with_constructor(code, blocks)):
        add(pos, f"code before main: {why}")
    for m in HOST_ASM.finditer(code):
        fn = _enclosing_function(blocks, m.start())
        header = fn[3] if fn else ""
        device = re.search(r"\b(__global__|__device__)\b", header) and \
            not re.search(r"\b__host__\b", header)
        if not device:
            add(m.start(), "host inline assembly")
    for m in INTERPOSED.finditer(code):
        add(m.start(1), f"an interposed library function: {m.group(1)}")
    for m in MAIN.finditer(code):
        add(m.start(), "a main function")
    for m in MACRO.finditer(code):
        add(m.start(), f"a macro, which can hide any construct: {m.group(0).strip()}")
    for line, literal in strings:
        verdict = VERDICT_STRINGS.search(literal)
        if verdict:
            flags.append(Flag(rel, line, f"a string that mimics a verdict or a grading file: "
                                         f"\"{verdict.group(0)}\"", _excerpt(lines, line)))
    if allowed_includes is not None:
        for m in re.finditer(r"^[ \t]*#[ \t]*include[ \t]*([<\"])([^>\"]+)[>\"]", code, re.M):
            name = m.group(2).strip()
            if name in allowed_includes or name in STANDARD_INCLUDES or \
                    COMMON_INCLUDE.match(name):
                continue
            add(m.start(), f"an include outside the lab's expected set: {m.group(1)}{name}"
                           f"{'>' if m.group(1) == '<' else chr(34)}")
        for m in re.finditer(r"^[ \t]*#[ \t]*include[ \t]*([A-Za-z_]\w*)", code, re.M):
            add(m.start(), f"an include through a macro: {m.group(1)}")
    flags.sort(key=lambda f: (f.line, f.construct))
    unique, seen = [], set()
    for f in flags:
        key = (f.line, f.construct)
        if key not in seen:
            seen.add(key)
            unique.append(f)
    return unique


def includes_of(path: Path) -> set[str]:
    try:
        code, _ = split_source(path.read_text(errors="replace"))
    except OSError:
        return set()
    return {m.group(1).strip() for m in
            re.finditer(r"^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"]+)[>\"]", code, re.M)}


def expected_includes(course: Path, lab_dir: str) -> set[str]:
    """The includes a lab's files may use: its own headers and what its stub and solution
    files include."""
    allowed = set()
    for folder in (course / "labs" / lab_dir, course / "solutions" / lab_dir):
        if not folder.is_dir():
            continue
        for p in folder.iterdir():
            if p.suffix in (".cuh", ".hpp", ".h"):
                allowed.add(p.name)
            if p.suffix in (".cu", ".cpp", ".cuh", ".hpp", ".h"):
                allowed |= includes_of(p)
    return allowed


def lab_of(path: str) -> tuple[str, str] | None:
    """("lab07", "lab07_swizzle") from a path holding labs/lab07_swizzle/ or the like."""
    m = re.search(r"(lab(\d\d)_[A-Za-z0-9_]+)", path)
    return (f"lab{m.group(2)}", m.group(1)) if m else None


def scan_course(course: Path, only_labs: set[str] | None = None) -> dict[str, list[Flag]]:
    found: dict[str, list[Flag]] = {}
    for rel in student_files(course):
        if not rel.endswith((".cu", ".cpp", ".cuh", ".hpp", ".h", ".cc", ".cxx")):
            continue
        lab = lab_of(rel)
        if lab is None or (only_labs and lab[0] not in only_labs):
            continue
        text = (course / rel).read_text(errors="replace")
        found.setdefault(lab[0], [])
        found[lab[0]] += scan_text(text, rel, expected_includes(course, lab[1]))
    return found


def report(found: dict[str, list[Flag]], summary: Path | None, json_out: Path | None) -> int:
    total = sum(len(v) for v in found.values())
    annotate = os.environ.get("GITHUB_ACTIONS") == "true"
    for lab in sorted(found):
        for f in found[lab]:
            print(f"needs review: {f.file}:{f.line}: {f.construct}")
            if annotate:
                print(f"::warning file={f.file},line={f.line},title=needs review::{f.construct}")
    print(f"scan_submission: {total} construct(s) to review in "
          f"{sum(1 for v in found.values() if v)} lab(s)")
    if summary:
        md = ["### Intake scan", ""]
        if total:
            md.append(f"{total} construct(s) with no place in a lab file: a person reads them "
                      f"before the grade counts.")
            md.append("")
            md += [f"- needs review: `{f.file}:{f.line}`: {f.construct}"
                   for lab in sorted(found) for f in found[lab]]
        else:
            md.append("No construct to review.")
        with open(summary, "a", encoding="utf-8") as fh:
            fh.write("\n".join(md) + "\n\n")
    if json_out:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(
            {"schema": SCHEMA, "version": 1,
             "labs": {lab: [f.to_json() for f in found[lab]] for lab in sorted(found)}},
            indent=1) + "\n")
    return total


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--course", type=Path, default=Path(__file__).resolve().parents[2],
                    help="the course tree whose lab files are scanned (default: this tree)")
    ap.add_argument("--lab", action="append", default=[], metavar="labNN",
                    help="scan only this lab (repeatable)")
    ap.add_argument("--json", type=Path, help="write the flags per lab here")
    ap.add_argument("--summary", type=Path, help="append a Markdown report to this file")
    ap.add_argument("files", nargs="*", type=Path, help="scan these files instead")
    args = ap.parse_args(argv)
    course = args.course.resolve()
    if args.files:
        found: dict[str, list[Flag]] = {}
        for p in args.files:
            if not p.is_file():
                print(f"scan_submission: {p} is not a file", file=sys.stderr)
                return 2
            lab = lab_of(str(p.resolve()))
            allowed = expected_includes(course, lab[1]) if lab else None
            key = lab[0] if lab else "unknown"
            found.setdefault(key, [])
            found[key] += scan_text(p.read_text(errors="replace"), str(p), allowed)
    else:
        if not (course / "labs").is_dir():
            print(f"scan_submission: {course} has no labs/", file=sys.stderr)
            return 2
        found = scan_course(course, set(args.lab) or None)
    report(found, args.summary, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
