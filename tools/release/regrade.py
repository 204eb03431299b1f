# SPDX-License-Identifier: BSD-3-Clause
"""The grade that counts: regrades submissions with the pinned course, each inside a sandbox.

    tools/release/regrade.sh [--course DIR] [--sandbox docker|podman|unshare]
        [--image cudalab-runner] [--gpu 0] [--cpus 8] [--memory 32g] [--pids 4096]
        [--preset student|ci-student] [--branch main] [--template DIR] [--out DIR]
        [--deadline 2026-12-14T23:59:00Z | --deadlines deadlines.csv [--extensions ext.csv]]
        (SUBMISSION ... | --class ROSTER.csv --org ORG
                          (--classroom C --assignment A | --prefix P))

SUBMISSION: OWNER/REPO (cloned from GitHub with gh), a git URL, or a local checkout.
For each one, on the host: clone it; pick the commit — with --deadline, the last commit a
push left on --branch at or before the deadline, by push time from GitHub's repository
activity API (commit dates are the student's to set; tools/classroom/collect.py reads the same
API), else the branch's head; compare every file outside the lab files with the template by
content (--template, default the course: works for repositories created from a template,
whose history is unrelated to the course's) and list the changed ones (a tamper check: they
are never graded, but a person may want to know). Then, in the sandbox, run
tools/release/grade_submission.py (take the lab files, scan them, build, test, score).

Sandboxes (student code never runs on the host itself):
  docker, podman  the runner image (tools/runner/Dockerfile): --rm, no network, read-only
                  root, a tmpfs for /tmp, one GPU, CPU/memory/pids limits, every capability
                  dropped but CHOWN, SETUID, SETGID and KILL, no new privileges; the course
                  and the submission mounted read-only, only the result folder writable.
  unshare         for a GPU machine without a container engine (needs root): new network
                  (loopback only), PID, IPC, UTS and mount namespaces; / remounted read-only
                  inside, a tmpfs for /tmp, only the result folder writable; --pids and --cpus
                  as RLIMIT_NPROC of the test user and a CPU affinity (no memory limit: CUDA
                  reserves more address space than any rlimit would allow).
In both, grade_submission.py runs student code as the unprivileged user cudalab-test.

With --class the repositories are ORG/PREFIX-LOGIN, or ORG/PREFIX-TEAM for the students whose
roster row has a `team` (graded once, credited to every member); Classroom 50 names them
<classroom>-<assignment>-<login> (--classroom, --assignment). --deadlines (CSV lab,deadline;
`*` for the other labs) and --extensions (CSV login,lab,extra) are collect.py's: each
submission is graded at every deadline that applies to it, only for the labs due then (the
same commit once).

Writes <out>/<name>/{scores.json, scores.md, junit.xml, intake.json, tamper.txt, ...} per
submission (and deadline: <name>@<deadline>), <out>/regrade.csv (one row each: name,
repository, commit, push time, points per lab, total, labs needing review, files changed
outside the lab files) and <out>/regrade.json (per submission and deadline: members,
repository, deadline, commit and each lab's whole points, as result.json counts them), which
python3 -m tools.classroom.gradebook --regrade reads. Exit status: 0 when every submission was graded;
1 when some could not be (listed); 2 on a usage error.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from . import grade_submission  # the user student code runs as
from . import take_submission
from ..model import LabScore
from .course_files import student_files

HERE = Path(__file__).resolve().parent

SANDBOXES = ("docker", "podman", "unshare")
CAPS = ["CHOWN", "SETUID", "SETGID", "KILL"]


class RegradeError(Exception):
    """Reported on one line."""


class NoSubmission(RegradeError):
    """Nothing was pushed by the deadline: listed, not a failure of the regrade."""


def log(msg: str) -> None:
    print(f"regrade: {msg}", flush=True)


def pick_sandbox(choice: str | None) -> str:
    if choice:
        if choice == "unshare" and os.geteuid() != 0:
            raise RegradeError("--sandbox unshare needs root")
        if choice != "unshare" and shutil.which(choice) is None:
            raise RegradeError(f"{choice} is not installed")
        return choice
    for engine in ("docker", "podman"):
        if shutil.which(engine):
            return engine
    if os.geteuid() == 0 and shutil.which("unshare"):
        return "unshare"
    raise RegradeError("no sandbox: install docker or podman (with the runner image), or run "
                       "as root for --sandbox unshare; student code never runs on the host")


def fetch(submission: str, dest: Path) -> tuple[str | None, Path]:
    """Clones @p submission into @p dest; returns (OWNER/REPO when it is on GitHub, dest)."""
    local = Path(submission)
    if local.is_dir():
        subprocess.run(["git", "clone", "-q", "--no-local", str(local.resolve()), str(dest)],
                       check=True)
        return None, dest
    m = re.match(r"^(?:https://github\.com/|git@github\.com:)?([\w.-]+/[\w.-]+?)(?:\.git)?/?$",
                 submission)
    if m and shutil.which("gh"):
        subprocess.run(["gh", "repo", "clone", m.group(1), str(dest), "--", "-q"], check=True)
        return m.group(1), dest
    subprocess.run(["git", "clone", "-q", submission, str(dest)], check=True)
    return (m.group(1) if m else None), dest


def commit_at_deadline(repo: str | None, checkout: Path, branch: str,
                       deadline: dt.datetime | None) -> tuple[str, str | None, str]:
    """(commit, its push time or None, how it was chosen)."""
    if deadline is None:
        head = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--verify", "-q",
                               f"origin/{branch}^{{commit}}"],
                              stdout=subprocess.PIPE, text=True, check=False).stdout.strip() or \
            subprocess.run(["git", "-C", str(checkout), "rev-parse", "HEAD"],
                           stdout=subprocess.PIPE, text=True, check=True).stdout.strip()
        return head, None, f"the head of {branch}"
    if repo is None:
        raise RegradeError("--deadline needs a GitHub repository (OWNER/REPO): push times come "
                           "from GitHub's activity API, not from commit dates")
    from ..classroom import collect  # tools/classroom/collect.py: push times from the activity API
    from .github_cli import call_gh
    on_time = [p for p in collect.pushes(call_gh, repo, f"refs/heads/{branch}")
               if p[0] <= deadline]
    if not on_time:
        raise NoSubmission(f"{repo}: nothing was pushed to {branch} by the deadline")
    when, sha = max(on_time)
    return sha, when.strftime("%Y-%m-%dT%H:%M:%SZ"), f"last push to {branch} before the deadline"


def tamper_report(submission: Path, template: Path) -> list[str]:
    """Files of the submission outside the lab files whose content differs from the template."""
    taken = set(student_files(template))
    return take_submission.ignored_changes(submission, template, taken, limit=10000)


def sandbox_command(kind: str, args, course: Path, sub: Path, out: Path,
                    labs: str | None = None) -> list[str]:
    # The course copy's driver, the course copy alone on its module search path
    # (course_python): -P keeps the working directory out, PYTHONPATH is set below.
    grade = ["python3", "-P", "-m", "tools.release.grade_submission", "--course", "{course}",
             "--submission", "{sub}", "--out", "{out}/grade", "--preset", args.preset,
             "--test-user", "auto", "--jobs", str(args.cpus)]
    labs = args.labs if labs is None else labs
    if labs:
        grade += ["--labs", labs]
    if kind in ("docker", "podman"):
        gpu = (["--gpus", f"device={args.gpu}"] if kind == "docker"
               else ["--device", f"nvidia.com/gpu={args.gpu}"]) if args.preset == "student" else []
        cmd = [kind, "run", "--rm", "--network", "none", "--read-only",
               "--tmpfs", "/tmp:rw,exec,size=16g", "--tmpfs", "/home/runner:rw",
               *gpu, "--cpus", str(args.cpus), "--memory", args.memory,
               "--memory-swap", args.memory, "--pids-limit", str(args.pids),
               "--cap-drop", "ALL", *[x for c in CAPS for x in ("--cap-add", c)],
               "--security-opt", "no-new-privileges",
               "-v", f"{course}:/course:ro", "-v", f"{sub}:/submission:ro", "-v", f"{out}:/out",
               "-e", "CUDALAB_SPEEDUP_SCALE=1", "-e", "PYTHONPATH=/course",
               "--entrypoint", "python3", args.image]
        return cmd + [w.format(course="/course", sub="/submission", out="/out")
                      for w in grade[1:]]
    # unshare: a read-only view of this machine, writable only in <out>, no network.
    inner = " ".join(f"'{w.format(course=course, sub=sub, out=out)}'" for w in grade)
    cpus = f"0-{args.cpus - 1}"
    script = ("set -e; mount --make-rprivate /; "
              f"mount --bind '{out}' '{out}'; mount -t tmpfs -o size=16g tmpfs /tmp; "
              "mount -o remount,bind,ro /; "
              f"export CUDA_VISIBLE_DEVICES={args.gpu} CUDALAB_SPEEDUP_SCALE=1 "
              f"PYTHONPATH='{course}'; "
              f"exec prlimit --nproc={args.pids} taskset -c {cpus} {inner}")
    return ["unshare", "--net", "--pid", "--fork", "--kill-child", "--mount", "--mount-proc",
            "--ipc", "--uts", "--", "sh", "-c", script]


def regrade_one(name: str, submission: str, args, sandbox: str, course: Path, template: Path,
                deadline: dt.datetime | None, labs: str | None = None) -> dict:
    out = (args.out / name).resolve()
    out.mkdir(parents=True)
    out.chmod(0o755)
    work = Path(tempfile.mkdtemp(prefix="cudalab-regrade-", dir=args.out))
    try:
        try:
            repo, checkout = fetch(submission, work / "submission")
        except subprocess.CalledProcessError as e:
            raise RegradeError(f"{submission}: could not be cloned (exit {e.returncode}): does "
                               "the repository exist under that name (Classroom 50: "
                               "<classroom>-<assignment>-<login>) and can this account read "
                               "it?") from None
        sha, pushed, how = commit_at_deadline(repo, checkout, args.branch, deadline)
        subprocess.run(["git", "-C", str(checkout), "-c", "advice.detachedHead=false",
                        "checkout", "-q", sha], check=True)
        log(f"{name}: {repo or submission} at {sha[:12]} ({how}"
            + (f", pushed {pushed}" if pushed else "") + ")")
        tampered = tamper_report(checkout, template)
        (out / "tamper.txt").write_text("".join(f"{t}\n" for t in tampered))
        if tampered:
            log(f"{name}: {len(tampered)} file(s) outside the lab files differ from the template "
                f"(not graded; listed in tamper.txt)")
        # The sandbox reads a plain copy of the submission (no .git of the student's).
        sub = out / "submission"
        shutil.copytree(checkout, sub, ignore=shutil.ignore_patterns(".git"), symlinks=True)
        for d, _, _ in os.walk(out):
            os.chmod(d, 0o755)
        cmd = sandbox_command(sandbox, args, course, sub, out, labs)
        with open(out / "sandbox.log", "wb") as logf:
            rc = subprocess.run(cmd, stdout=logf, stderr=subprocess.STDOUT, check=False).returncode
        scores_path = out / "grade" / "scores.json"
        if not scores_path.is_file():
            raise RegradeError(f"{name}: the sandbox produced no scores (exit {rc}; see "
                               f"{out / 'sandbox.log'})")
        for f in ("scores.json", "scores.md", "junit.xml", "intake.json", "ctest.log"):
            if (out / "grade" / f).is_file():
                shutil.copy2(out / "grade" / f, out / f)
        scores = json.loads(scores_path.read_text())
        return {"name": name, "repository": repo or submission, "commit": sha,
                "push_time": pushed or "", "scores": scores, "tampered": tampered,
                "exit": rc, "labs": whole_points(scores, course, args.preset)}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def whole_points(scores: dict, course: Path, preset: str) -> dict[str, dict]:
    """lab -> {score, max-score}: the whole points result.json would give (autograde.py's
    rules, with the course's points lock, tests/grading.json), for the labs this run graded."""
    from . import autograde  # tools/release/autograde.py
    labs = autograde.graded_labs(scores, None)
    entries = autograde.lab_entries(scores, labs, preset == "student",
                                    autograde.read_lock(course), {})
    return {e["cudalabs"]["lab"]: {"score": e["score"], "max-score": e["max-score"]}
            for e in entries}


def write_csv(path: Path, rows: list[dict]) -> None:
    scored = [[LabScore.from_json(lab, f"{r['name']}: scores.json labs[{i}]")
               for i, lab in enumerate(r["scores"]["labs"])] for r in rows]
    labs = sorted({lab.lab for lab_scores in scored for lab in lab_scores})
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["name", "repository", "commit", "push_time", *labs, "total",
                    "needs_review", "integrity", "changed_outside_lab_files"])
        for r, lab_scores in zip(rows, scored):
            by_lab = {lab.lab: lab for lab in lab_scores}
            w.writerow([r["name"], r["repository"], r["commit"], r["push_time"],
                        *[by_lab[lab].points if lab in by_lab else "" for lab in labs],
                        r["scores"]["totals"]["points"],
                        " ".join(lab.lab for lab in lab_scores if lab.needs_review),
                        "ok" if r["scores"].get("integrity", {}).get("ok", True) else "changed",
                        len(r["tampered"])])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("submissions", nargs="*", help="OWNER/REPO, a git URL or a local checkout")
    ap.add_argument("--class", dest="roster", type=Path,
                    help="a roster CSV (column login; team for a team assignment)")
    ap.add_argument("--org", help="with --class: the organization of the students' repositories")
    from ..classroom.classlib import add_prefix_args  # tools/classroom/classlib.py
    add_prefix_args(ap)
    ap.add_argument("--course", type=Path, default=HERE.parents[1],
                    help="the pinned course release (default: this tree)")
    ap.add_argument("--template", type=Path, help="the student template (default: --course)")
    ap.add_argument("--sandbox", choices=SANDBOXES, help="default: docker, podman, else unshare")
    ap.add_argument("--image", default="cudalab-runner", help="the runner image (docker, podman)")
    ap.add_argument("--gpu", default="0", help="the GPU a submission gets (default 0)")
    ap.add_argument("--cpus", type=int, default=8)
    ap.add_argument("--memory", default="32g")
    ap.add_argument("--pids", type=int, default=4096)
    ap.add_argument("--preset", choices=("student", "ci-student"), default="student")
    ap.add_argument("--deadline", help="grade the last push at or before this time (ISO 8601)")
    ap.add_argument("--deadlines", type=Path,
                    help="CSV lab,deadline: each lab at its own deadline (collect.py's file)")
    ap.add_argument("--extensions", type=Path, help="CSV login,lab,extra (with --deadlines or "
                                                    "--deadline)")
    ap.add_argument("--branch", default="main")
    ap.add_argument("--labs", default="", help="regrade only these labs (labNN, comma-separated)")
    ap.add_argument("--out", type=Path, help="default: a new folder under /tmp")
    args = ap.parse_args(argv)

    from ..classroom.classlib import Deadlines, UsageError, read_roster, repo_of, resolve_prefix, units
    try:
        # (name, submission, members)
        targets: list[tuple[str, str, list[str]]] = []
        if args.roster:
            if not args.org:
                raise RegradeError("--class needs --org")
            prefix = resolve_prefix(args)
            for u in units(read_roster(args.roster)):
                targets.append((u["name"], repo_of(args.org, prefix, u["name"]),
                                [m["login"] for m in u["members"]]))
        for s in args.submissions:
            name = re.sub(r"[^\w.-]+", "_", s.rstrip("/").split("/")[-1]) or "sub"
            targets.append((name, s, [name]))
        if not targets:
            raise RegradeError("name a submission, or a class with --class ROSTER --org ORG")
        deadlines = None
        if args.deadline or args.deadlines:
            deadlines = Deadlines.load(args.deadline, args.deadlines, args.extensions)
        elif args.extensions:
            raise RegradeError("--extensions needs --deadline or --deadlines")
        sandbox = pick_sandbox(args.sandbox)
        args.out = (args.out or Path(tempfile.mkdtemp(prefix="cudalab-regrade-",
                                                      dir="/var/tmp"))).resolve()
        if sandbox == "unshare" and Path("/tmp") in args.out.parents:
            raise RegradeError("--sandbox unshare mounts a fresh /tmp: choose --out outside /tmp")
        args.out.mkdir(parents=True, exist_ok=True)
        if sandbox == "unshare":
            # The sandbox's root is read-only: the user student code runs as must exist first.
            grade_submission.test_user("auto")
        course = args.course.resolve()
        template = (args.template or args.course).resolve()
        course_labs = sorted(p.name[:5] for p in (course / "labs").glob("lab[0-9][0-9]_*"))
        wanted = [x for x in args.labs.split(",") if x] or course_labs
        log(f"{len(targets)} submission(s), course {course}, sandbox {sandbox}, results in "
            f"{args.out}")
    except (RegradeError, UsageError, ValueError) as e:
        print(f"regrade: {e}", file=sys.stderr)
        return 2

    rows, failed, graded = [], [], []
    for name, sub, members in targets:
        # One grade per distinct deadline of this submission, for the labs due then.
        plan: dict[dt.datetime | None, list[str]] = {}
        for lab in wanted:
            plan.setdefault(deadlines.due(members, lab) if deadlines else None, []).append(lab)
        for due, labs in sorted(plan.items(), key=lambda kv: kv[0] or dt.datetime.max.replace(
                tzinfo=dt.timezone.utc)):
            label = name if len(plan) == 1 else \
                f"{name}@{due.strftime('%Y-%m-%dT%H-%M-%SZ') if due else 'head'}"
            only = "" if labs == course_labs else ",".join(labs)
            try:
                r = regrade_one(label, sub, args, sandbox, course, template, due, only)
                rows.append(r)
                s = r["scores"]
                graded.append({"name": name, "members": members, "repository": r["repository"],
                               "deadline": due.strftime("%Y-%m-%dT%H:%M:%SZ") if due else "",
                               "commit": r["commit"], "push_time": r["push_time"],
                               "labs": {lab: v for lab, v in r["labs"].items() if lab in labs},
                               "folder": label})
                log(f"{label}: {s['totals']['points']} of {s['totals']['max_points']} points"
                    + ("; needs review: " + ", ".join(s["intake"]["needs_review"])
                       if s["intake"]["needs_review"] else ""))
            except NoSubmission as e:
                log(f"{label}: no submission ({e})")
            except (RegradeError, subprocess.CalledProcessError, OSError) as e:
                failed.append(label)
                print(f"regrade: {label}: {e}", file=sys.stderr)
    if rows:
        write_csv(args.out / "regrade.csv", rows)
        (args.out / "regrade.json").write_text(json.dumps(
            {"course": str(course), "preset": args.preset, "branch": args.branch,
             "deadlines": deadlines.to_json() if deadlines else None, "submissions": graded},
            indent=1) + "\n")
        log(f"class table: {args.out / 'regrade.csv'}; for the gradebook: "
            f"{args.out / 'regrade.json'}")
    if failed:
        print("regrade: not graded: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
