# SPDX-License-Identifier: BSD-3-Clause
"""shellcheck over the `run:` blocks of GitHub Actions workflows.

    python3 -m tools.ci.shellcheck_workflows WORKFLOW.yml...

Each bash or sh `run:` block (the step's `shell:`, else the job's or the workflow's
`defaults.run.shell`, else bash) is written to a temporary script, with every `${{ ... }}`
expression replaced by underscores of the same length (as actionlint does), and checked
with shellcheck. Problems are reported as `workflow:line:col: ...` at the block's lines.
The checks that make no sense for a block cut out of a workflow are disabled, as actionlint
disables them: SC1091 (sourced file), SC2050/SC2194 (constant after the substitution),
SC2154 (variables the runner sets), SC2157. Needs PyYAML (python3-yaml) and shellcheck.
Exit status: 0 clean, 1 problems, 2 usage or input error.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

try:
    import yaml
except ImportError:  # pragma: no cover - reported below
    yaml = None

EXCLUDE = "SC1091,SC2050,SC2154,SC2157,SC2194"
EXPR = re.compile(r"\$\{\{.*?\}\}", re.S)


def _get(node, key):
    """The value node of @p key in a mapping node, or None."""
    if node is None or not isinstance(node, yaml.MappingNode):
        return None
    for k, v in node.value:
        if isinstance(k, yaml.ScalarNode) and k.value == key:
            return v
    return None


def _shell(*nodes) -> str:
    for n in nodes:
        s = _get(_get(_get(n, "defaults"), "run"), "shell") if n is not None else None
        if s is not None:
            return s.value
    return "bash"


def run_blocks(path: Path) -> list[dict]:
    """Every run: block of a workflow: {job, step, shell, line (1-based first line), text}."""
    root = yaml.compose(path.read_text(encoding="utf-8"))
    jobs = _get(root, "jobs")
    blocks: list[dict] = []
    if not isinstance(jobs, yaml.MappingNode):
        return blocks
    for jk, job in jobs.value:
        steps = _get(job, "steps")
        if not isinstance(steps, yaml.SequenceNode):
            continue
        default_shell = _shell(job, root)
        for i, step in enumerate(steps.value):
            run = _get(step, "run")
            if run is None:
                continue
            shell_node = _get(step, "shell")
            shell = shell_node.value if shell_node is not None else default_shell
            name = _get(step, "name")
            first = run.start_mark.line + 1 + (1 if run.style in ("|", ">") else 0)
            blocks.append({"job": jk.value, "step": name.value if name else f"step {i + 1}",
                           "shell": shell, "line": first, "text": run.value,
                           "folded": run.style == ">"})
    return blocks


def check(path: Path, tmp: Path) -> list[str]:
    problems = []
    for n, b in enumerate(run_blocks(path)):
        sh = b["shell"].split()[0]
        if sh not in ("bash", "sh"):
            continue
        text = EXPR.sub(lambda m: "_" * len(m.group(0)), b["text"])
        script = tmp / f"block{n}.{sh}"
        script.write_text(f"#!/usr/bin/env {sh}\n{text}\n", encoding="utf-8")
        proc = subprocess.run(["shellcheck", "-f", "gcc", "-s", sh, "-e", EXCLUDE, str(script)],
                              capture_output=True, text=True, check=False)
        for line in proc.stdout.splitlines():
            m = re.match(r"^[^:]+:(\d+):(\d+): (.*)$", line)
            if not m:
                continue
            # Line 1 of the script is the shebang; a folded block (>) is one logical line.
            at = b["line"] if b["folded"] else b["line"] + int(m.group(1)) - 2
            problems.append(f"{path}:{at}:{m.group(2)}: {m.group(3)} "
                            f"(job {b['job']}, {b['step']!r})")
        if proc.returncode not in (0, 1):
            problems.append(f"{path}: shellcheck failed on job {b['job']}, {b['step']!r}: "
                            f"{proc.stderr.strip()}")
    return problems


def main(argv: list[str]) -> int:
    if yaml is None:
        print("shellcheck_workflows: PyYAML is missing (apt-get install python3-yaml)",
              file=sys.stderr)
        return 2
    if not argv:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    problems, count = [], 0
    with tempfile.TemporaryDirectory() as d:
        for f in argv:
            p = Path(f)
            count += len(run_blocks(p))
            problems += check(p, Path(d))
    for problem in problems:
        print(problem)
    print(f"shellcheck_workflows: {count} run: block(s) in {len(argv)} workflow(s), "
          f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
