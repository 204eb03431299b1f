#!/usr/bin/env python3
"""Checks the job graph of the student release's grading workflow (tools/release/grade.yml).

    python3 tools/ci/check_grade_graph.py [--workflow tools/release/grade.yml] [-v]
        [--checkouts WORKFLOW...]

GitHub skips a job whose `needs` did not all succeed unless its `if:` holds a status
function (success(), failure(), always(), cancelled()); a GPU job that needed the CPU
grading job without one was skipped whenever a single CPU test failed. `act` cannot run
here, so this script evaluates the `if:` expressions itself: it simulates every outcome
(success or failure) of every job, with the GPU runner variable on and off, and asserts
  - gpu does not need cpu, directly or through another job, and whether gpu runs never
    depends on cpu's outcome; with CUDALAB_GPU_RUNNER=true and the course job done, it runs;
  - cpu runs whenever the course job succeeded;
  - run-autograding-tests (the job GitHub Classroom reads its points from; that exact name)
    needs cpu and gpu, runs after any outcome of theirs and whether or not gpu ran, and
    may write checks;
  - every actions/checkout step (of this workflow and of the --checkouts workflows) sets
    persist-credentials: false (no exceptions: a step that really needs git's token would
    have to be allowed here, by name, with the reason).
It first checks itself on the old graph (gpu needing cpu without a status function) and
fails if it would not catch it. Needs PyYAML. Exit status: 0 ok, 1 a check failed.
"""

from __future__ import annotations

import argparse
import itertools
import re
import sys
from pathlib import Path

try:
    import yaml
except ImportError:
    yaml = None

ROOT = Path(__file__).resolve().parents[2]
STATUS_FUNCTIONS = ("success", "failure", "always", "cancelled")
REPORT_JOB = "run-autograding-tests"

# The graph before the fix: the GPU job needs the CPU job and has no status function.
OLD_GRAPH = """
on: push
jobs:
  cpu:
    runs-on: ubuntu-24.04
    steps: [{run: ctest}]
  gpu:
    needs: cpu
    if: >-
      vars.CUDALAB_GPU_RUNNER == 'true' &&
      (github.event_name != 'pull_request' ||
       github.event.pull_request.head.repo.full_name == github.repository)
    runs-on: [self-hosted, gpu]
    steps: [{run: ctest}]
"""


# ---------------------------------------------------------------------------
# GitHub Actions expressions (the subset job conditions use)
# ---------------------------------------------------------------------------
TOKEN = re.compile(r"""\s*(?:
    (?P<num>-?\d+(?:\.\d+)?)
  | '(?P<str>(?:[^']|'')*)'
  | (?P<op>==|!=|<=|>=|&&|\|\||[!<>()\[\].,])
  | (?P<name>[A-Za-z_][A-Za-z0-9_-]*)
)""", re.X)


def tokenize(text: str) -> list[tuple[str, object]]:
    out, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ValueError(f"cannot parse expression at {text[pos:]!r}")
        pos = m.end()
        if m.group("num") is not None:
            out.append(("lit", float(m.group("num"))))
        elif m.group("str") is not None:
            out.append(("lit", m.group("str").replace("''", "'")))
        elif m.group("op") is not None:
            out.append(("op", m.group("op")))
        else:
            name = m.group("name")
            lit = {"true": True, "false": False, "null": None}
            out.append(("lit", lit[name]) if name in lit else ("name", name))
    return out


def truthy(v) -> bool:
    return not (v is None or v is False or v == "" or (isinstance(v, float) and v == 0))


def loose_eq(a, b) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        return a.lower() == b.lower()
    if type(a) is not type(b):
        def num(x):
            if x is None:
                return 0.0
            if isinstance(x, bool):
                return float(x)
            if isinstance(x, (int, float)):
                return float(x)
            try:
                return float(x) if str(x).strip() else 0.0
            except ValueError:
                return float("nan")
        return num(a) == num(b)
    return a == b


class Parser:
    """Recursive descent over the tokens; evaluates while parsing."""

    def __init__(self, tokens, context, functions):
        self.t, self.i, self.ctx, self.fn = tokens, 0, context, functions

    def peek(self):
        return self.t[self.i] if self.i < len(self.t) else ("end", None)

    def take(self, value=None):
        tok = self.peek()
        if value is not None and tok != ("op", value):
            raise ValueError(f"expected {value!r}, got {tok}")
        self.i += 1
        return tok

    def parse(self):
        v = self.or_()
        if self.peek()[0] != "end":
            raise ValueError(f"unexpected {self.peek()}")
        return v

    def or_(self):
        v = self.and_()
        while self.peek() == ("op", "||"):
            self.take()
            rhs = self.and_()
            v = v if truthy(v) else rhs
        return v

    def and_(self):
        v = self.cmp()
        while self.peek() == ("op", "&&"):
            self.take()
            rhs = self.cmp()
            v = rhs if truthy(v) else v
        return v

    def cmp(self):
        v = self.unary()
        while self.peek()[0] == "op" and self.peek()[1] in ("==", "!=", "<", "<=", ">", ">="):
            op = self.take()[1]
            rhs = self.unary()
            if op == "==":
                v = loose_eq(v, rhs)
            elif op == "!=":
                v = not loose_eq(v, rhs)
            else:
                a, b = float(v or 0), float(rhs or 0)
                v = {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
        return v

    def unary(self):
        if self.peek() == ("op", "!"):
            self.take()
            return not truthy(self.unary())
        return self.postfix()

    def postfix(self):
        kind, val = self.take()
        if kind == "lit":
            v = val
        elif kind == "op" and val == "(":
            v = self.or_()
            self.take(")")
        elif kind == "name" and self.peek() == ("op", "("):
            self.take("(")
            args = []
            while self.peek() != ("op", ")"):
                args.append(self.or_())
                if self.peek() == ("op", ","):
                    self.take()
            self.take(")")
            if val not in self.fn:
                raise ValueError(f"unknown function {val}()")
            v = self.fn[val](*args)
        elif kind == "name":
            v = self.ctx.get(val)
        else:
            raise ValueError(f"unexpected {val!r}")
        while self.peek() in (("op", "."), ("op", "[")):
            if self.take()[1] == ".":
                key = self.take()[1]
            else:
                key = self.or_()
                self.take("]")
            v = v.get(str(key)) if isinstance(v, dict) else None
        return v


def evaluate(expr: str, context: dict, functions: dict):
    expr = expr.strip()
    m = re.fullmatch(r"\$\{\{(.*)\}\}", expr, re.S)
    if m:
        expr = m.group(1)
    return Parser(tokenize(expr), context, functions).parse()


# ---------------------------------------------------------------------------
# Workflow model and simulation
# ---------------------------------------------------------------------------
def load(text: str) -> dict:
    wf = yaml.safe_load(text)
    jobs = {}
    for jid, job in (wf.get("jobs") or {}).items():
        needs = job.get("needs") or []
        needs = [needs] if isinstance(needs, str) else list(needs)
        cond = job.get("if")
        jobs[jid] = {"needs": needs, "if": None if cond is None else str(cond).strip()
                     if not isinstance(cond, bool) else ("true" if cond else "false"),
                     "raw": job}
    return jobs


def ancestors(jobs: dict, jid: str) -> set[str]:
    seen, todo = set(), list(jobs[jid]["needs"])
    while todo:
        j = todo.pop()
        if j not in seen:
            seen.add(j)
            todo += jobs.get(j, {}).get("needs", [])
    return seen


def order(jobs: dict) -> list[str]:
    done, out = set(), []
    while len(out) < len(jobs):
        ready = [j for j in jobs if j not in done and all(n in done for n in jobs[j]["needs"])]
        if not ready:
            raise ValueError("cyclic or dangling needs")
        for j in ready:
            done.add(j)
            out.append(j)
    return out


def simulate(jobs: dict, outcome: dict, variables: dict, event: str = "push",
             cancelled: bool = False) -> dict:
    """Result of every job: success/failure (its outcome when it runs) or skipped."""
    result: dict[str, str] = {}
    for jid in order(jobs):
        anc = ancestors(jobs, jid)
        funcs = {
            "success": lambda anc=anc: all(result[a] == "success" for a in anc),
            "failure": lambda anc=anc: any(result[a] == "failure" for a in anc),
            "always": lambda: True,
            "cancelled": lambda: cancelled,
            "contains": lambda a, b: str(b).lower() in str(a).lower(),
            "startsWith": lambda a, b: str(a).lower().startswith(str(b).lower()),
        }
        ctx = {"vars": variables, "github": {"event_name": event, "event": {},
                                             "repository": "org/student-repo"},
               "needs": {n: {"result": result[n], "outputs": {}} for n in jobs[jid]["needs"]},
               "secrets": {}, "env": {}, "inputs": {}}
        cond = jobs[jid]["if"] or ""
        uses_status = re.search(r"\b(" + "|".join(STATUS_FUNCTIONS) + r")\s*\(", cond)
        runs = funcs["success"]() if not cond else truthy(evaluate(cond, ctx, funcs))
        if cond and not uses_status:
            runs = runs and funcs["success"]()
        if cancelled and not (cond and re.search(r"\b(always|cancelled)\s*\(", cond)):
            runs = False
        result[jid] = outcome.get(jid, "success") if runs else "skipped"
    return result


def scenarios(jobs: dict):
    """(gpu variable, outcome of every job) for all combinations."""
    ids = list(jobs)
    for gpu_var in ("true", ""):
        for combo in itertools.product(("success", "failure"), repeat=len(ids)):
            yield gpu_var, dict(zip(ids, combo))


# ---------------------------------------------------------------------------
# The assertions
# ---------------------------------------------------------------------------
def check_graph(jobs: dict) -> list[str]:
    errors = []
    for j in ("cpu", "gpu"):
        if j not in jobs:
            return [f"no job '{j}'"]
    if "cpu" in ancestors(jobs, "gpu"):
        errors.append("gpu needs cpu (directly or through another job): GPU grading would "
                      "depend on the CPU grading job")
    seen = {}
    for gpu_var, outcome in scenarios(jobs):
        res = simulate(jobs, outcome, {"CUDALAB_GPU_RUNNER": gpu_var})
        setup_ok = all(res[a] == "success" for a in ancestors(jobs, "gpu"))
        key = (gpu_var, tuple((j, o) for j, o in outcome.items() if j != "cpu"))
        gpu_runs = res["gpu"] != "skipped"
        if key in seen and seen[key][0] != gpu_runs:
            errors.append(f"whether gpu runs depends on cpu's outcome (CUDALAB_GPU_RUNNER="
                          f"{gpu_var!r}: cpu {seen[key][1]} -> gpu "
                          f"{'runs' if seen[key][0] else 'skipped'}; cpu {outcome['cpu']} -> "
                          f"gpu {'runs' if gpu_runs else 'skipped'})")
        seen.setdefault(key, (gpu_runs, outcome["cpu"]))
        if gpu_var == "true" and setup_ok and not gpu_runs:
            errors.append(f"gpu is skipped although GPU grading is on and its needs succeeded "
                          f"(outcomes {outcome})")
        cpu_setup = all(res[a] == "success" for a in ancestors(jobs, "cpu"))
        if cpu_setup and res["cpu"] == "skipped":
            errors.append(f"cpu is skipped although its needs succeeded (outcomes {outcome})")
        if REPORT_JOB in jobs:
            # Whatever cpu and gpu did, the report runs when the jobs before them succeeded.
            base = ancestors(jobs, REPORT_JOB) - {"cpu", "gpu"}
            if all(res[a] == "success" for a in base) and res[REPORT_JOB] == "skipped":
                errors.append(f"{REPORT_JOB} is skipped (cpu {res['cpu']}, gpu {res['gpu']}, "
                              f"CUDALAB_GPU_RUNNER={gpu_var!r})")
    if REPORT_JOB not in jobs:
        errors.append(f"no job '{REPORT_JOB}' (GitHub Classroom reads the points from the "
                      "check run of a job with exactly that name)")
    else:
        raw = jobs[REPORT_JOB]["raw"]
        if not {"cpu", "gpu"} <= set(jobs[REPORT_JOB]["needs"]):
            errors.append(f"{REPORT_JOB} must need cpu and gpu (it reports both)")
        if raw.get("name", REPORT_JOB) != REPORT_JOB:
            errors.append(f"{REPORT_JOB} has name {raw.get('name')!r}: Classroom looks for the "
                          f"check run named {REPORT_JOB!r}")
        if (raw.get("permissions") or {}).get("checks") != "write":
            errors.append(f"{REPORT_JOB} needs permissions: checks: write")
    # Deduplicate while keeping the order.
    return list(dict.fromkeys(errors))


def check_checkouts(path: Path) -> list[str]:
    wf = yaml.safe_load(path.read_text(encoding="utf-8"))
    errors = []
    for jid, job in (wf.get("jobs") or {}).items():
        for i, step in enumerate(job.get("steps") or []):
            uses = str(step.get("uses", ""))
            if uses.startswith("actions/checkout@"):
                if (step.get("with") or {}).get("persist-credentials") is not False:
                    errors.append(f"{path}: job {jid}, step {i + 1} ({uses}): set "
                                  "persist-credentials: false")
    return errors


def main(argv: list[str] | None = None) -> int:
    if yaml is None:
        print("check_grade_graph: PyYAML is missing (apt-get install python3-yaml)",
              file=sys.stderr)
        return 1
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workflow", type=Path, default=ROOT / "tools/release/grade.yml")
    ap.add_argument("--checkouts", type=Path, nargs="*",
                    default=sorted((ROOT / ".github/workflows").glob("*.yml")),
                    help="other workflows whose checkouts must not persist credentials")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)

    # 1. The checker must catch the old graph.
    old = check_graph(load(OLD_GRAPH))
    if not any("depends on cpu's outcome" in e for e in old):
        print("check_grade_graph: SELF-TEST FAILED: the old graph (gpu needs cpu without a "
              "status function) was not caught")
        return 1
    print("check_grade_graph: self-test ok: the old graph is rejected (" + old[0] + ")")

    # 2. The workflow.
    jobs = load(args.workflow.read_text(encoding="utf-8"))
    errors = check_graph(jobs)
    for p in dict.fromkeys([args.workflow] + list(args.checkouts or [])):
        errors += check_checkouts(p)
    for gpu_var in ("true", ""):
        outcome = {j: "success" for j in jobs}
        outcome["cpu"] = "failure"
        res = simulate(jobs, outcome, {"CUDALAB_GPU_RUNNER": gpu_var})
        print(f"  CUDALAB_GPU_RUNNER={gpu_var or '(unset)':7} cpu fails -> " +
              ", ".join(f"{j}: {r}" for j, r in res.items()))
    if args.verbose:
        for gpu_var, outcome in scenarios(jobs):
            res = simulate(jobs, outcome, {"CUDALAB_GPU_RUNNER": gpu_var})
            print(f"    {gpu_var or '-':5} {outcome} -> {res}")
    for e in errors:
        print(f"check_grade_graph: {e}")
    if errors:
        return 1
    print(f"check_grade_graph: {args.workflow}: the job graph is correct ({len(jobs)} jobs, "
          f"{2 * 2 ** len(jobs)} outcome combinations)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
