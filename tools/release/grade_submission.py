# SPDX-License-Identifier: BSD-3-Clause
"""Grades one student submission with a pinned copy of the course, so that no lab file can
change any other test's verdict or the points.

    python3 -m tools.release.grade_submission --submission DIR --out DIR
        [--course DIR] [--preset student|ci-student] [--labs lab07,lab09]
        [--test-user auto|none|USER] [--jobs N] [--step-summary]

What it does, in this order (the instructor handout's threat model says why each step):
  1. copies the course's tracked files into <out>/course (a fresh tree: no build folder, no
     leftovers) and loads everything scoring needs into this process — the scoreboard's
     code, the declared tests and points (tests/grading.json) — before any student code runs;
  2. takes only the lab files from the submission (tools/release/take_submission.py) and
     scans them (tools/release/scan_submission.py): flags go to <out>/intake.json;
  3. configures and builds with the course's CMake (warnings are not errors, batch runs off,
     CUDALAB_SPEEDUP_SCALE=1, CUDALAB_SEED unset); with --labs, only those labs' graders;
  4. runs ctest with the CI job's variables removed (GITHUB_ENV, GITHUB_PATH, GITHUB_OUTPUT,
     GITHUB_STEP_SUMMARY, tokens) and reads every verdict and every test's output from ctest's
     own console, ends every process the tests left behind, then checks that no file of the
     course copy changed during the build and no file of it or of the build during the tests;
  5. scores with the code loaded in step 1 and writes <out>/scores.json, scores.md,
     junit.xml (CTest's, for people), ctest.log and intake.json.
As root (a containerised runner, the regrade sandbox, CI), every process that runs student
code — the graders' listing at build time and every test — runs as another user
(--test-user auto: cudalab-test, created if missing) that can write only <out>/scratch: the
course copy, the build and this driver's outputs are out of its reach. Without root, the
integrity check of step 4 reports any file a test changed (the run then needs review).

Exit status: 0 when the submission was graded (failed tests are scores); 3 when the run
needs review (a file of the course or the build changed during the tests); 2 on a usage
error or when the course does not configure. Python 3 standard library; needs cmake, ctest,
git (or tar) and, as root, setpriv and useradd.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

# The scoreboard's code, loaded now: nothing a test writes can change it.
from .. import ctest_run
from .. import score_render
from .. import scoring
from ..ctest_record import ScoreError
from . import take_submission
from .course_python import course_env, module_command

HERE = Path(__file__).resolve().parent

DEFAULT_TEST_USER = "cudalab-test"
# Folders of the build tree the tests or ctest itself write.
RUNTIME_DIRS = ("Testing", "cudalab_batch")


class GradeError(Exception):
    """Reported on one line, exit status 2."""


def log(msg: str) -> None:
    print(f"grade_submission: {msg}", flush=True)


def pin_environment(env) -> None:
    """Graded as the course sets it, for the build and every test (they inherit @p env):
    thresholds as written, a fresh input seed per run."""
    env["CUDALAB_SPEEDUP_SCALE"] = "1"
    env.pop("CUDALAB_SEED", None)


def run(cmd: list[str], cwd: Path, out: Path, check: bool = True) -> int:
    """Runs @p cmd without the CI job's variables, its output appended to @p out, and ends
    whatever it leaves running."""
    with open(out, "ab") as sink:
        proc = subprocess.run(cmd, cwd=cwd, env=ctest_run.test_environment(),
                              stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT,
                              check=False)
    ctest_run.end_leftovers()
    if check and proc.returncode != 0:
        raise GradeError(f"{' '.join(cmd[:3])} ... exited with {proc.returncode} (see {out})")
    return proc.returncode


def copy_course(course: Path, dest: Path) -> None:
    """The course's tracked files (a checkout) or every file but build trees (an export)."""
    dest.mkdir(parents=True)
    if (course / ".git").exists():
        files = subprocess.run(["git", "-c", "safe.directory=*", "-C", str(course), "ls-files",
                                "-z"], check=True,
                               stdout=subprocess.PIPE).stdout.decode().split("\0")
    else:
        files = [str(p.relative_to(course)) for p in course.rglob("*")
                 if p.is_file() and not p.relative_to(course).parts[0].startswith("build")]
    for rel in filter(None, files):
        src = course / rel
        if not src.is_file() or src.is_symlink():
            continue
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest / rel)


def test_user(choice: str) -> pwd.struct_passwd | None:
    """The user tests run as: none without root (or --test-user none)."""
    if choice == "none":
        return None
    if os.geteuid() != 0:
        if choice != "auto":
            raise GradeError("--test-user needs root (setpriv switches to that user)")
        return None
    name = DEFAULT_TEST_USER if choice == "auto" else choice
    try:
        return pwd.getpwnam(name)
    except KeyError:
        if choice != "auto":
            raise GradeError(f"no user {name}") from None
    if shutil.which("useradd") is None:
        raise GradeError("useradd not found: create the test user first (--test-user USER)")
    subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin",
                    "--user-group", name], check=True)
    return pwd.getpwnam(name)


def unreachable_by(user: pwd.struct_passwd, path: Path) -> Path | None:
    """The first folder of @p path and those above it that @p user may not enter (no search
    permission for it as owner, group or other), or None."""
    for folder in (path, *path.parents):
        st = folder.stat()
        shift = 6 if st.st_uid == user.pw_uid else 3 if st.st_gid == user.pw_gid else 0
        if not (st.st_mode >> shift) & 0o1:
            return folder
    return None


def launcher(user: pwd.struct_passwd | None, scratch: Path) -> list[str]:
    if user is None:
        return []
    if shutil.which("setpriv") is None:
        raise GradeError("setpriv (util-linux) not found: it runs student code as the test user")
    return ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups",
            "--no-new-privs", "--", "env", f"HOME={scratch}", f"TMPDIR={scratch}",
            "CUDA_CACHE_PATH=" + str(scratch / ".nv")]


def snapshot(root: Path, skip: set[Path]) -> dict[str, str]:
    """sha256 of every file under @p root but those under @p skip."""
    digests = {}
    for dirpath, dirnames, filenames in os.walk(root):
        d = Path(dirpath)
        dirnames[:] = [n for n in dirnames if d / n not in skip]
        for n in filenames:
            p = d / n
            if p in skip or p.is_symlink():
                continue
            h = hashlib.sha256()
            try:
                with open(p, "rb") as f:
                    for chunk in iter(lambda: f.read(1 << 20), b""):
                        h.update(chunk)
            except OSError:
                continue
            digests[str(p.relative_to(root))] = h.hexdigest()
    return digests


def changed(before: dict[str, str], after: dict[str, str]) -> list[str]:
    out = [f"changed: {k}" for k in before if k in after and before[k] != after[k]]
    out += [f"removed: {k}" for k in before if k not in after]
    out += [f"added: {k}" for k in after if k not in before]
    return sorted(out)


def job_files() -> dict[str, bytes]:
    """The CI job's command files (GITHUB_ENV, ...) as they are now: tests never see their
    variables, and whatever reaches the files anyway is undone (restore_job_files())."""
    saved = {}
    for var in ctest_run.JOB_FILES:
        path = os.environ.get(var)
        if path and os.path.isfile(path):
            saved[path] = Path(path).read_bytes()
    return saved


def restore_job_files(saved: dict[str, bytes]) -> list[str]:
    """Puts the job's command files back as they were; returns the ones that had changed."""
    changed_files = []
    for path, content in saved.items():
        try:
            if Path(path).read_bytes() != content:
                changed_files.append(path)
                Path(path).write_bytes(content)
        except OSError:
            changed_files.append(path)
    return changed_files


def lab_targets(course: Path, labs: list[str]) -> list[str]:
    """The graders and demos of @p labs (labNN)."""
    targets = []
    for lab in labs:
        folders = sorted((course / "labs").glob(f"{lab}_*"))
        if not folders:
            raise GradeError(f"--labs: the course has no {lab}")
        targets += [f"{lab}_test", folders[0].name]
    return targets


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--submission", type=Path, required=True, help="the student's checkout")
    ap.add_argument("--course", type=Path, default=HERE.parents[1],
                    help="the pinned course tree (default: the tree of this script)")
    ap.add_argument("--out", type=Path, required=True, help="a new or empty folder for everything")
    ap.add_argument("--preset", choices=("student", "ci-student"), default="student",
                    help="student: builds for the GPU here; ci-student: no GPU, sm_90")
    ap.add_argument("--labs", default="", help="grade only these labs (labNN, comma-separated)")
    ap.add_argument("--test-user", default="auto",
                    help="auto (as root: cudalab-test), none, or a user name")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="build and test jobs")
    ap.add_argument("--step-summary", action="store_true",
                    help="append scores.md to $GITHUB_STEP_SUMMARY (after the tests)")
    args = ap.parse_args(argv)

    # Whatever student code leaves running (at build or test time) becomes our child and is
    # ended after each step.
    ctest_run.make_subreaper()
    pin_environment(os.environ)
    summary_file = os.environ.get("GITHUB_STEP_SUMMARY") if args.step_summary else None
    out = args.out.resolve()
    if out.exists() and any(out.iterdir()):
        raise GradeError(f"{out} is not empty")
    out.mkdir(parents=True, exist_ok=True)
    out.chmod(0o755)
    course = out / "course"
    copy_course(args.course.resolve(), course)
    declared_file = course / "tests" / "grading.json"
    declared = json.loads(declared_file.read_text()) if declared_file.is_file() else None
    labs = [x.strip() for x in args.labs.split(",") if x.strip()]

    # 2. The lab files and the intake scan.
    intake_json = out / "intake.json"
    if take_submission.main(["--submission", str(args.submission.resolve()), "--course",
                             str(course), "--intake-json", str(intake_json)]
                            + (["--summary", summary_file] if summary_file else [])) != 0:
        raise GradeError("the submission could not be taken")
    intake = json.loads(intake_json.read_text())

    # 3. Configure and build; student code runs (the graders' listing) only as the test user.
    saved_job_files = job_files()  # from here on, student code runs
    sources_before = snapshot(course, {course / "build"})  # the listing runs it at build time
    user = test_user(args.test_user)
    scratch = out / "scratch"
    scratch.mkdir()
    if user is not None:
        os.chown(scratch, user.pw_uid, user.pw_gid)
        blocked = unreachable_by(user, scratch)
        if blocked is not None:
            raise GradeError(f"the test user {user.pw_name} may not enter {blocked} (mode "
                             f"{blocked.stat().st_mode & 0o777:o}), so no grader could list or "
                             f"run its tests: grade under a folder others may enter (e.g. chmod "
                             f"o+x {blocked}, or another --out)")
    build = course / "build" / args.preset
    configure = ["cmake", "--preset", args.preset, "-DCUDALAB_WARNINGS_AS_ERRORS=OFF",
                 "-DCUDALAB_BUILD_DOCS=OFF", "-DCUDALAB_BATCH_SUITES=OFF",
                 "-DCUDALAB_TEST_LAUNCHER=" + ";".join(launcher(user, scratch))]
    build_log = out / "build.log"
    log(f"configure and build ({args.preset}" + (f", labs {', '.join(labs)}" if labs else "") +
        (f"; student code runs as {user.pw_name}" if user else "; student code runs as this user")
        + ")")
    run(configure, cwd=course, out=build_log)
    targets = lab_targets(course, labs) if labs else []
    rc = run(["cmake", "--build", "--preset", args.preset, "-j", str(args.jobs)]
             + (["--target"] + targets if targets else []) + ["--", "-k", "0"],
             cwd=course, out=build_log, check=False)
    if rc != 0:
        log(f"some targets did not compile (see {build_log}); their tests count as errors")
    tampered = [f"during the build: {c}"
                for c in changed(sources_before, snapshot(course, {course / "build"}))]

    # 4. The tests.
    manifest = scoring.load_manifest(build)
    notes = scoring.apply_declared(manifest, declared) if declared else []
    skip = {build / d for d in RUNTIME_DIRS}
    before = snapshot(course, skip)
    # The labs' tests only: the course's own tests (common, cudalab) grade nothing and some
    # write into the build tree, which the test user may not.
    extra = ["-j", str(args.jobs), "--timeout", "900",
             "-R", "^(" + "|".join(labs or ["lab[0-9][0-9]"]) + r")\."]
    if args.preset == "student" and shutil.which("nvidia-smi"):
        spec = out / "gpus.json"
        if subprocess.run(module_command("tools.gpu_resources") + ["-o", str(spec)],
                          check=False, env=course_env(course)).returncode == 0:
            extra += ["--resource-spec-file", str(spec)]
    junit = out / "junit.xml"
    started = dt.datetime.now().timestamp()
    ctest_rc, cases, ended = ctest_run.run_ctest_stream(build, junit, extra, out / "ctest.log")
    window = {"start": started, "end": dt.datetime.now().timestamp()}
    if ended:
        notes.append(f"{ended} process(es) the tests left running were ended before scoring")
    tampered += changed(before, snapshot(course, skip))
    tampered += [f"changed (restored): the CI job's file {p}"
                 for p in restore_job_files(saved_job_files)]
    for t in tampered[:50]:
        notes.append(f"a test changed the course copy or the build: {t}")

    # 5. Scores, from the code loaded before any student code ran.
    report = scoring.score(manifest, cases, window, scoring.read_cache(build),
                           {"kind": "ctest console", "junit": str(junit),
                            "build_dir": str(build), "declared": str(declared_file)
                            if declared else None, "run_start": scoring.iso(started),
                            "keep_previous": False,
                            "submission": str(args.submission),
                            "test_user": user.pw_name if user else None},
                           intake=intake, notes=notes)
    report["integrity"] = {"checked": True, "changed_files": tampered, "ok": not tampered}
    graded = set(labs) if labs else {lab["lab"] for lab in report["labs"]}
    for lab in report["labs"]:
        lab["graded_in_this_run"] = lab["lab"] in graded
    (out / "scores.json").write_text(json.dumps(report, indent=2) + "\n")
    md = score_render.render_markdown(report)
    (out / "scores.md").write_text(md)
    sys.stdout.write(score_render.render_text(report))
    if summary_file:
        with open(summary_file, "a", encoding="utf-8") as f:
            f.write(md)
    log(f"ctest exited with {ctest_rc}; scores in {out / 'scores.json'}")
    if tampered:
        log(f"NEEDS REVIEW: {len(tampered)} file(s) of the course copy or the build changed "
            f"during the tests (scores.json: integrity)")
        return 3
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except GradeError as e:
        print(f"grade_submission: {e}", file=sys.stderr)
        sys.exit(2)
    except ScoreError as e:
        print(f"grade_submission: {e}", file=sys.stderr)
        sys.exit(2)
