# SPDX-License-Identifier: BSD-3-Clause
"""Checks the student release's grading workflows: the caller tools/release/grade.yml and
the reusable tools/release/grade-reusable.yml it calls.

    python3 -m tools.ci.check_grade_graph [--workflow tools/release/grade.yml]
        [--reusable tools/release/grade-reusable.yml] [--checkouts WORKFLOW...]

Asserts
  - the caller's jobs only call grade-reusable.yml of another repository, pinned by a
    40-hex commit (a tag or branch can be moved; the all-zero placeholder is what
    tools/export_student_release.sh --grader replaces), pass course-repo and course-ref, and
    hand over no other secret than the course token (no `secrets: inherit`);
  - the reusable workflow is `on: workflow_call` with the inputs course-repo and course-ref,
    grades in one job on [self-hosted, gpu] with a timeout, and uploads scores.json,
    junit.xml and result.json as the artifact cudalab-grade in a step whose `if:` still
    holds when the grading step failed (the expression is evaluated for a failed and for a
    successful run; a step without a status function is skipped after a failure, which
    the script first checks it would catch);
  - no token reaches the step that runs the student's code: GH_TOKEN / GITHUB_TOKEN are
    set neither for the workflow, nor the job, nor the grading step;
  - every actions/checkout step (of these and of the --checkouts workflows) sets
    persist-credentials: false.
Needs PyYAML. Exit status: 0 ok, 1 a check failed.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

try:
    import yaml
except ImportError:
    yaml = None

ROOT = Path(__file__).resolve().parents[2]
STATUS_FUNCTIONS = ("success", "failure", "always", "cancelled")
PINNED_USES = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+/\.github/workflows/"
                         r"grade-reusable\.yml@[0-9a-f]{40}$")
ARTIFACT = "cudalab-grade"
ARTIFACT_FILES = ("scores.json", "junit.xml", "result.json")
TOKENS = ("GH_TOKEN", "GITHUB_TOKEN")

# An upload step without a status function: GitHub skips it once a step before it failed.
UNSAFE_UPLOAD = {"uses": "actions/upload-artifact@v4",
                 "with": {"name": ARTIFACT, "path": "\n".join(ARTIFACT_FILES)}}


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
    out: list[tuple[str, object]] = []
    pos = 0
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
# The checks
# ---------------------------------------------------------------------------
def load(path: Path) -> dict:
    wf = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    # PyYAML reads the key `on` as the boolean True.
    if True in wf and "on" not in wf:
        wf["on"] = wf.pop(True)
    return wf


def step_runs_after_failure(step: dict) -> tuple[bool, bool]:
    """Whether @p step runs (after a failed step, after only successful steps)."""
    cond = step.get("if")
    cond = "" if cond is None else str(cond).strip() if not isinstance(cond, bool) else \
        ("true" if cond else "false")
    results = []
    for failed in (True, False):
        funcs = {"success": lambda f=failed: not f, "failure": lambda f=failed: f,
                 "always": lambda: True, "cancelled": lambda: False,
                 "startsWith": lambda a, b: str(a).lower().startswith(str(b).lower()),
                 "contains": lambda a, b: str(b).lower() in str(a).lower()}
        ctx = {"github": {"ref": "refs/heads/main", "event_name": "push"}, "inputs": {},
               "env": {}, "vars": {}, "secrets": {}, "steps": {}, "runner": {"temp": "/t"}}
        uses_status = re.search(r"\b(" + "|".join(STATUS_FUNCTIONS) + r")\s*\(", cond)
        runs = (not failed) if not cond else truthy(evaluate(cond, ctx, funcs))
        if cond and not uses_status:
            runs = runs and not failed
        results.append(bool(runs))
    return results[0], results[1]


def check_upload(step: dict, where: str) -> list[str]:
    errors = []
    with_ = step.get("with") or {}
    if with_.get("name") != ARTIFACT:
        errors.append(f"{where}: the artifact must be named {ARTIFACT!r}")
    paths = str(with_.get("path", ""))
    for f in ARTIFACT_FILES:
        if f not in paths:
            errors.append(f"{where}: the artifact must hold {f}")
    after_failure, after_success = step_runs_after_failure(step)
    if not after_failure or not after_success:
        errors.append(f"{where}: its if: must hold after a failed grading step too (e.g. "
                      "${{ !cancelled() }}), or a failing build uploads no scores")
    return errors


def check_caller(wf: dict, path: Path) -> list[str]:
    errors = []
    jobs = wf.get("jobs") or {}
    if not jobs:
        return [f"{path}: no jobs"]
    for jid, job in jobs.items():
        uses = str(job.get("uses", ""))
        if not PINNED_USES.match(uses):
            errors.append(f"{path}: job {jid} must only call OWNER/REPO/.github/workflows/"
                          f"grade-reusable.yml@<40-hex commit>, got {uses or 'steps'!r}")
        with_ = job.get("with") or {}
        for key in ("course-repo", "course-ref"):
            if key not in with_:
                errors.append(f"{path}: job {jid} must pass {key}")
        secrets = job.get("secrets")
        if secrets == "inherit" or (isinstance(secrets, dict) and set(secrets) - {"course-token"}):
            errors.append(f"{path}: job {jid} may hand over only the course-token secret")
    return errors


def check_reusable(wf: dict, path: Path) -> list[str]:
    errors = []
    call = (wf.get("on") or {}).get("workflow_call") if isinstance(wf.get("on"), dict) else None
    if call is None:
        return [f"{path}: must be `on: workflow_call`"]
    inputs = call.get("inputs") or {}
    for key in ("course-repo", "course-ref"):
        if not (inputs.get(key) or {}).get("required"):
            errors.append(f"{path}: input {key} must be required")
    if any(t in (wf.get("env") or {}) for t in TOKENS):
        errors.append(f"{path}: no token in the workflow's env (student code runs in it)")
    gpu_jobs = 0
    for jid, job in (wf.get("jobs") or {}).items():
        runs_on = job.get("runs-on")
        labels = [runs_on] if isinstance(runs_on, str) else list(runs_on or [])
        if not {"self-hosted", "gpu"} <= set(labels):
            continue
        gpu_jobs += 1
        if not job.get("timeout-minutes"):
            errors.append(f"{path}: job {jid} needs timeout-minutes")
        if any(t in (job.get("env") or {}) for t in TOKENS):
            errors.append(f"{path}: job {jid}: no token in the job's env (student code runs "
                          "in it)")
        steps = job.get("steps") or []
        graders = [s for s in steps if "tools.release.autograde" in str(s.get("run", ""))]
        uploads = [s for s in steps if str(s.get("uses", "")).startswith(
            "actions/upload-artifact@")]
        if len(graders) != 1:
            errors.append(f"{path}: job {jid} must run tools.release.autograde once")
        for s in graders:
            if any(t in (s.get("env") or {}) for t in TOKENS):
                errors.append(f"{path}: job {jid}: the grading step must not get a token")
        if not uploads:
            errors.append(f"{path}: job {jid} uploads no artifact")
        for s in uploads:
            errors += check_upload(s, f"{path}: job {jid}, upload step")
    if gpu_jobs != 1:
        errors.append(f"{path}: exactly one job must run on [self-hosted, gpu], found {gpu_jobs}")
    return errors


def check_checkouts(path: Path) -> list[str]:
    wf = load(path)
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
    ap.add_argument("--workflow", type=Path, default=ROOT / "tools/release/grade.yml",
                    help="the caller installed in student repositories")
    ap.add_argument("--reusable", type=Path, default=ROOT / "tools/release/grade-reusable.yml",
                    help="the reusable grading workflow")
    ap.add_argument("--checkouts", type=Path, nargs="*",
                    default=sorted((ROOT / ".github/workflows").glob("*.yml")),
                    help="other workflows whose checkouts must not persist credentials")
    args = ap.parse_args(argv)

    # 1. The checker must catch an upload step that a failed grading step would skip.
    if not check_upload(UNSAFE_UPLOAD, "self-test"):
        print("check_grade_graph: SELF-TEST FAILED: an upload step without a status function "
              "was not caught")
        return 1
    print("check_grade_graph: self-test ok: an upload step skipped after a failure is rejected")

    # 2. The workflows.
    errors = check_caller(load(args.workflow), args.workflow)
    errors += check_reusable(load(args.reusable), args.reusable)
    for p in dict.fromkeys([args.workflow, args.reusable] + list(args.checkouts or [])):
        errors += check_checkouts(p)
    for e in errors:
        print(f"check_grade_graph: {e}")
    if errors:
        return 1
    print(f"check_grade_graph: {args.workflow.name} calls {args.reusable.name} pinned by commit; "
          "it grades on [self-hosted, gpu] and uploads cudalab-grade whatever the outcome")
    return 0


if __name__ == "__main__":
    sys.exit(main())
