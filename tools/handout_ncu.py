# SPDX-License-Identifier: BSD-3-Clause
"""Handout ncu run: every `ncu` command of the handouts of labs 10-14, run as written on a GPU.

    python3 -m tools.handout_ncu [--build-dir build/solution] [--out build/handout-ncu]
                                 [--timeout 120] [--labs 10-14] [--list]

Finds the ncu commands of the handout pages of labs 10-14 (labs/labNN_topic/*.md: fenced
blocks and `inline code`, extracted as tools/handout_check.py does) and runs each one from the
repository root with bash, as written, except that `build/student/` becomes the --build-dir
(default build/solution: the reference solutions, built with `cmake --workflow --preset
solution`, so the demos have kernels worth profiling). Every command gets a time limit
(--timeout seconds, then its process group is killed) and a failure never stops the run.

Writes into --out (default build/handout-ncu, created): one file per command,
labNN_<page>_L<line>.txt (the handout's command, the command run, the exit status, then its
stdout and stderr), and summary.md: per command its page and line, exit status, kernels
profiled, and what ncu reported: an unknown metric ("Failed to find metric", "unknown/invalid
metric"), "No kernels were profiled", no permission for the GPU's performance counters
(ERR_NVGPUCTRPERM), other ==ERROR== lines, a time-out, or a program not built.

Exit status: 0 when every command exited 0 with nothing reported, 1 otherwise, 77 (with a
one-line reason) when ncu is not found (PATH, $CUDALAB_NCU, /usr/local/cuda/bin,
/opt/nvidia/nsight-compute, as the graders look for it), 2 on a usage error. --list prints the
commands and runs nothing (no ncu needed). Python 3 standard library only; instructor tool.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from . import handout_check  # the handouts' pages and command extraction

sys.dont_write_bytecode = True  # no __pycache__ in the checkout
ROOT = Path(__file__).resolve().parent.parent

NCU_DIRS = ("/usr/local/cuda/bin", "/opt/nvidia/nsight-compute")
STUDENT_TREE = re.compile(r"(?<![\w./-])(?:\./)?build/student/")
LEADING_NCU = re.compile(r"^((?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*)ncu(?=\s)")
# What ncu prints when a metric name is not one of the GPU's, when no launch matched, and when
# the performance counters are not open to this user.
UNKNOWN_METRIC = re.compile(r"failed to find metric|unknown metric|invalid metric", re.I)
NO_KERNELS = re.compile(r"no kernels were profiled", re.I)
NO_PERMISSION = re.compile(r"ERR_NVGPUCTRPERM")
ERROR_LINE = re.compile(r"^==ERROR==.*$", re.M)
# One profiled launch: "  name(args) (grid)x(block), Context 1, Stream 7, Device 0, CC 9.0".
PROFILED = re.compile(r"\), Context \d+, Stream \d+, Device \d+, CC \d+\.\d+", re.M)


@dataclass
class NcuCommand:
    page: Path
    line: int
    text: str  # as the handout writes it


def parse_labs(spec: str) -> set[int]:
    labs: set[int] = set()
    for part in spec.split(","):
        lo, _, hi = part.strip().partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()):
            raise argparse.ArgumentTypeError(f"'{spec}' is not like 10-14 or 10,12")
        labs.update(range(int(lo), int(hi or lo) + 1))
    return labs


def ncu_commands(labs: set[int]) -> list[NcuCommand]:
    """The ncu commands of the handout pages of @p labs, in page and line order."""
    out = []
    for lab_dir in handout_check.lab_dirs():
        if int(lab_dir.name[3:5]) not in labs:
            continue
        for page in handout_check.lab_pages(lab_dir):
            commands, _ = handout_check.extract(page)
            for c in sorted(commands, key=lambda c: c.line):
                words = c.text.split()
                while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
                    words = words[1:]  # VAR=value prefixes of an inline command
                if words and words[0] == "ncu":
                    out.append(NcuCommand(page, c.line, c.text))
    return out


def find_ncu() -> str | None:
    env = os.environ.get("CUDALAB_NCU")
    if env:
        return env if os.access(env, os.X_OK) else None
    found = shutil.which("ncu")
    if found:
        return found
    for d in NCU_DIRS:
        cand = Path(d) / "ncu"
        if os.access(cand, os.X_OK):
            return str(cand)
    return None


def rewrite(text: str, build_dir: Path) -> str:
    return STUDENT_TREE.sub(lambda m: shlex.quote(str(build_dir)) + "/", text)


def programs(text: str) -> list[str]:
    """The build-tree paths a command names (to tell 'not built' from an ncu failure)."""
    try:
        words = shlex.split(text)
    except ValueError:
        return []
    return [w for w in words if "/labs/lab" in w and not w.startswith("-")]


def run_one(command: str, timeout: float) -> tuple[int | None, str, str, float]:
    """(exit status or None after a time-out, stdout, stderr, seconds) of one bash command."""
    start = time.monotonic()
    proc = subprocess.Popen(["bash", "-c", command], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        return proc.returncode, out, err, time.monotonic() - start
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # ncu and the program it runs
        out, err = proc.communicate()
        return None, out, err, time.monotonic() - start


def findings(status: int | None, output: str, missing: list[str]) -> list[str]:
    """What a command's result and output report, in words (empty: nothing)."""
    notes = []
    if missing:
        notes.append("not built: " + ", ".join(missing))
    if status is None:
        notes.append("timed out")
    if UNKNOWN_METRIC.search(output):
        notes.append("unknown metric: " + "; ".join(
            sorted({ln.strip() for ln in output.splitlines() if UNKNOWN_METRIC.search(ln)}))[:300])
    if NO_KERNELS.search(output):
        notes.append("no kernels profiled")
    if NO_PERMISSION.search(output):
        notes.append("no permission for the GPU performance counters (ERR_NVGPUCTRPERM)")
    others = [ln for ln in ERROR_LINE.findall(output)
              if not UNKNOWN_METRIC.search(ln) and not NO_PERMISSION.search(ln)]
    if others:
        notes.append(f"{len(others)} other ==ERROR== line(s): {others[0].strip()[:200]}")
    return notes


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tools.handout_ncu", description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", type=Path, default=Path("build/solution"),
                    help="the built tree that replaces build/student/ (default: build/solution)")
    ap.add_argument("--out", type=Path, default=Path("build/handout-ncu"),
                    help="folder for one output file per command and summary.md "
                         "(default: build/handout-ncu)")
    ap.add_argument("--timeout", type=float, default=120.0,
                    help="seconds per command before it is killed (default: 120)")
    ap.add_argument("--labs", type=parse_labs, default=parse_labs("10-14"),
                    help="the labs whose handouts to read (default: 10-14)")
    ap.add_argument("--list", action="store_true",
                    help="print the commands as they would run, run nothing")
    args = ap.parse_args(argv)
    if args.timeout <= 0:
        ap.error("--timeout must be positive")

    build_dir = args.build_dir if args.build_dir.is_absolute() else Path.cwd() / args.build_dir
    build_dir = build_dir.resolve()
    build_rel = build_dir.relative_to(ROOT) if build_dir.is_relative_to(ROOT) else build_dir
    out_dir = (args.out if args.out.is_absolute() else Path.cwd() / args.out).resolve()
    commands = ncu_commands(args.labs)
    if not commands:
        print("handout_ncu: no ncu command in the handouts of labs "
              f"{', '.join(str(n) for n in sorted(args.labs))}")
        return 1
    if args.list:
        for c in commands:
            print(f"{c.page.relative_to(ROOT)}:{c.line}: {rewrite(c.text, build_rel)}")
        return 0

    ncu = find_ncu()
    if ncu is None:
        print("handout_ncu: ncu (Nsight Compute) not found (PATH, $CUDALAB_NCU, "
              f"{', '.join(NCU_DIRS)}): nothing run")
        return 77
    quoted_ncu = shlex.quote(ncu)
    if not build_dir.is_dir():
        print(f"handout_ncu: {build_rel} does not exist; build it first (the solutions: "
              f"cmake --preset solution && cmake --build --preset solution)", file=sys.stderr)
        return 2
    out_dir.mkdir(parents=True, exist_ok=True)

    rows = []
    failed = 0
    for i, c in enumerate(commands, start=1):
        page = c.page.relative_to(ROOT)
        command = rewrite(c.text, build_rel)
        missing = [p for p in programs(command) if not (ROOT / p).exists()]
        print(f"[{i}/{len(commands)}] {page}:{c.line}: {command}", flush=True)
        # The ncu found above runs the command (it need not be on PATH).
        ran = LEADING_NCU.sub(lambda m: m.group(1) + quoted_ncu, command)
        status: int | None
        if missing:  # nothing to profile: not run
            status, out, err, secs = -1, "", "", 0.0
            shown = "not run"
        else:
            status, out, err, secs = run_one(ran, args.timeout)
            shown = f"timed out after {args.timeout:g} s" if status is None else f"exit {status}"
        notes = findings(status, out + "\n" + err, missing)
        kernels = len(PROFILED.findall(out))
        name = f"{c.page.parent.name[:5]}_{c.page.stem}_L{c.line}.txt"
        (out_dir / name).write_text(
            f"# handout: {page}:{c.line}\n# as written: {c.text}\n# ran: {ran}\n"
            f"# result: {shown} ({secs:.1f} s)\n# kernels profiled: {kernels}\n"
            f"# reported: {'; '.join(notes) or 'nothing'}\n\n"
            f"## stdout\n{out}\n## stderr\n{err}", encoding="utf-8")
        if status != 0 or notes:
            failed += 1
        print(f"    {shown}, {kernels} kernel(s) profiled, {secs:.1f} s"
              f"{'; ' + '; '.join(notes) if notes else ''}  -> {name}", flush=True)
        rows.append(f"| `{page}:{c.line}` | `{cell(command)}` | {shown} | {kernels} | "
                    f"{cell('; '.join(notes)) or '—'} | {name} |")

    summary = out_dir / "summary.md"
    summary.write_text(
        "# ncu commands of the handouts\n\n"
        f"Build tree: `{build_rel}` (for `build/student/`); ncu: `{ncu}`; time limit "
        f"{args.timeout:g} s per command.\n\n"
        "| handout | command run | result | kernels profiled | reported | output |\n"
        "|---|---|--:|--:|---|---|\n" + "\n".join(rows) + "\n", encoding="utf-8")
    print(f"handout_ncu: {len(commands)} command(s), {failed} with a problem; summary: {summary}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
