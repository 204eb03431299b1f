# SPDX-License-Identifier: BSD-3-Clause
"""Classroom 50's grade job as the class rehearsal needs it (a helper, not a test module).

Written from Classroom 50's sources (foundation50/classroom50: the grade job of
cli/gh-teacher/skeleton/dotgithub/workflows/autograde-runner.yaml and its
dotgithub/scripts/runner.py) to the contract they state, not copied: the runner
  - derives the owner from the repository name <classroom>-<assignment>-<owner> (else the
    actor) and the assignment_type from the assignment's mode ("group" and "team" verbatim,
    anything else "individual");
  - runs the bundle's autograder.py with the student's checkout as working directory and the
    environment CLASSROOM, ASSIGNMENT, SUBMISSION_TAG, USERNAME, OWNER, ASSIGNMENT_TYPE,
    COMMIT_URL, RELEASE_URL, REVIEW_URL, CLASSROOM50_BUNDLE_DIR added to the job's; a
    non-zero exit is an error (no release is published);
  - stamps owner, assignment_type, datetime (the graded commit's committer date), graded_at
    and submitted_by over the autograder's result.json, then validates it against the run's
    identity (classroom, assignment, owner, assignment_type) and the v1 shape;
  - mirrors release-body.md to the job summary and stages the assignment's release_assets
    (regular files of the checkout; a symlink, or a file that is itself a result document,
    is skipped);
  - publishes the release submit/<UTC time>-<short sha> with result.json and the staged
    assets, made by github-actions[bot].
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

RESULT_SCHEMA = "classroom50/result/v1"
BOT = "github-actions[bot]"


def assignment_type_for_mode(mode: str | None) -> str:
    mode = (mode or "").strip().lower()
    return mode if mode in ("group", "team") else "individual"


def owner_from_repo(repository: str, classroom: str, assignment: str, actor: str) -> str:
    name = repository.split("/", 1)[-1]
    prefix = f"{classroom.lower()}-{assignment.lower()}-"
    return name[len(prefix):] if name.lower().startswith(prefix) else actor


def validate(doc, classroom: str, assignment: str, owner: str, kind: str) -> str | None:
    """The runner's checks of a stamped result.json: None when it passes."""
    if not isinstance(doc, dict) or doc.get("schema") != RESULT_SCHEMA:
        return "schema"
    if doc.get("classroom") != classroom or doc.get("assignment") != assignment:
        return "classroom/assignment"
    if str(doc.get("owner", "")).lower() != owner.lower():
        return "owner"
    if doc.get("assignment_type") != kind:
        return f"assignment_type is {doc.get('assignment_type')!r}, want {kind!r}"
    if not str(doc.get("submission", "")).startswith("submit/"):
        return "submission"
    for key in ("commit", "release", "review", "datetime"):
        if not isinstance(doc.get(key), str) or not doc[key]:
            return key
    counts = [doc.get("score"), doc.get("max-score")]
    tests = doc.get("tests")
    for t in tests if isinstance(tests, list) else [None]:
        if not isinstance(t, dict) or not t.get("test-name") or \
                not isinstance(t.get("passed"), bool):
            return "tests"
        counts += [t.get("score"), t.get("max-score")]
    if any(isinstance(c, bool) or not isinstance(c, int) or c < 0 for c in counts):
        return "scores"
    return None


def is_result_document(path: Path) -> bool:
    try:
        doc = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except ValueError:
        return False
    return isinstance(doc, dict) and str(doc.get("schema", "")).startswith("classroom50/result/")


def grade_job(checkout: Path, bundle: Path, *, classroom: str, assignment: str, repository: str,
              sha: str, pushed: dt.datetime, mode: str, actor: str, release_assets: list[str],
              runner_temp: Path, env: dict) -> dict:
    """One run of the grade job on @p checkout: {status, error, result, body, assets, tag,
    summary, log}."""
    runner_temp.mkdir(parents=True, exist_ok=True)
    summary, output = runner_temp / "step-summary.md", runner_temp / "github-output"
    summary.write_text("")
    tag = f"submit/{pushed.strftime('%Y-%m-%dT%H-%M-%SZ')}-{sha[:7]}"
    owner = owner_from_repo(repository, classroom, assignment, actor)
    kind = assignment_type_for_mode(mode)
    server = "https://github.com"
    full_env = {**env, "CLASSROOM": classroom, "ASSIGNMENT": assignment,
                "SUBMISSION_TAG": tag, "USERNAME": owner, "OWNER": owner,
                "ASSIGNMENT_TYPE": kind, "COMMIT_URL": f"{server}/{repository}/commit/{sha}",
                "RELEASE_URL": f"{server}/{repository}/releases/tag/{tag.replace('/', '%2F')}",
                "REVIEW_URL": f"{server}/{repository}/commit/{sha}",
                "CLASSROOM50_BUNDLE_DIR": str(bundle), "GITHUB_REPOSITORY": repository,
                "GITHUB_SHA": sha, "GITHUB_ACTOR": actor, "GITHUB_REF": "refs/heads/main",
                "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(output),
                "RUNNER_TEMP": str(runner_temp)}
    for name in ("result.json", "release-body.md"):
        (checkout / name).unlink(missing_ok=True)
    proc = subprocess.run([sys.executable, str(bundle / "autograder.py")], cwd=checkout,
                          env=full_env, capture_output=True, text=True, check=False)
    out: dict = {"tag": tag, "log": proc.stdout + proc.stderr, "assets": {}, "result": None,
                 "body": "", "status": "error", "error": None}
    if proc.returncode != 0:
        out["error"] = f"autograder exited {proc.returncode}"
        return out
    result = json.loads((checkout / "result.json").read_text())
    committed = subprocess.run(["git", "show", "-s", "--format=%cI", sha], cwd=checkout,
                               capture_output=True, text=True, check=True).stdout.strip()
    result.update(owner=owner, assignment_type=kind,
                  datetime=dt.datetime.fromisoformat(committed).astimezone(
                      dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                  graded_at=dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                  submitted_by={"username": actor, "id": None})
    err = validate(result, classroom, assignment, owner, kind)
    if err is not None:
        out["error"] = err
        return out
    body = checkout / "release-body.md"
    out.update(result=result, body=body.read_text() if body.is_file() else "",
               status="success" if all(t["passed"] for t in result["tests"]) else "failure")
    with open(summary, "a") as f:
        f.write(out["body"])
    for rel in release_assets:
        src = checkout / rel
        if src.is_symlink() or not src.is_file() or is_result_document(src):
            continue
        out["assets"][rel.rsplit("/", 1)[-1]] = src.read_bytes()
    out["summary"] = summary.read_text()
    return out


def publish(state_dir: Path, repo: str, job: dict, created: dt.datetime,
            author: str = BOT) -> None:
    """The release of a graded submission in the fake GitHub of fake_gh.py."""
    state = json.loads((state_dir / "state.json").read_text())
    assets = []
    for name, data in [("result.json", json.dumps(job["result"]).encode())] + \
            sorted(job["assets"].items()):
        aid = state["next_id"]
        state["next_id"] += 1
        (state_dir / "assets").mkdir(exist_ok=True)
        (state_dir / "assets" / str(aid)).write_bytes(data)
        assets.append({"id": aid, "name": name})
    when = created.strftime("%Y-%m-%dT%H:%M:%SZ")
    state["repos"][repo]["releases"].append({
        "id": state["next_id"], "tag_name": job["tag"], "draft": False,
        "author": {"login": author}, "created_at": when, "published_at": when,
        "body": job["body"], "assets": assets})
    state["next_id"] += 1
    (state_dir / "state.json").write_text(json.dumps(state, indent=1))


def record_push(state_dir: Path, repo: str, sha: str, branch: str, when: dt.datetime) -> None:
    """GitHub's activity entry of a push (the fake GitHub received it at @p when)."""
    state = json.loads((state_dir / "state.json").read_text())
    state["repos"][repo]["activity"].append({
        "activity_type": "push", "after": sha, "ref": f"refs/heads/{branch}",
        "timestamp": when.strftime("%Y-%m-%dT%H:%M:%SZ"), "actor": {"login": "x"}})
    (state_dir / "state.json").write_text(json.dumps(state, indent=1))


def runner_main() -> int:
    """A stand-in for runner.py's grade step, for machines without Classroom 50's runner
    (python3 tests/tools/classroom50_flow.py in the student's checkout, with the grade job's
    environment): fetches the bundle from PAGES_BASE_URL, runs grade_job, and leaves what the
    runner leaves: the stamped result.json and release-body.md in the checkout, status= in
    GITHUB_OUTPUT (error when grading failed), the body in GITHUB_STEP_SUMMARY and the
    release assets in $RUNNER_TEMP/classroom50-release-assets. Exits 0, as the runner does
    for every grading outcome. Not Classroom 50's runner: a rehearsal with it proves the
    course's side only."""
    import tarfile  # noqa: PLC0415
    import urllib.request  # noqa: PLC0415
    env = dict(os.environ)
    checkout, temp = Path.cwd(), Path(env.get("RUNNER_TEMP") or "/tmp")
    classroom, assignment = env["CLASSROOM"], env["ASSIGNMENT"]
    runtime = temp / "classroom50-runtime"
    runtime.mkdir(parents=True, exist_ok=True)
    url = f"{env['PAGES_BASE_URL']}/{classroom}/autograders/{assignment}.tar.gz"
    with urllib.request.urlopen(url, timeout=60) as r:  # noqa: S310 (the loopback server)
        (runtime / "bundle.tar.gz").write_bytes(r.read())
    with tarfile.open(runtime / "bundle.tar.gz") as tar:
        tar.extractall(runtime)  # noqa: S202 (the bundle this rehearsal made)
    sha = env["GITHUB_SHA"]
    committed = subprocess.run(["git", "show", "-s", "--format=%cI", sha], cwd=checkout,
                               capture_output=True, text=True, check=True).stdout.strip()
    job = grade_job(checkout, runtime / assignment, classroom=classroom, assignment=assignment,
                    repository=env["GITHUB_REPOSITORY"], sha=sha,
                    pushed=dt.datetime.fromisoformat(committed), mode=env.get("MODE", ""),
                    actor=env.get("GITHUB_ACTOR", ""),
                    release_assets=json.loads(env.get("RELEASE_ASSETS") or "[]"),
                    runner_temp=temp, env=env)
    print(job["log"], end="")
    if job["result"] is not None:
        (checkout / "result.json").write_text(json.dumps(job["result"], indent=2) + "\n")
    staged = temp / "classroom50-release-assets"
    staged.mkdir(parents=True, exist_ok=True)
    for name, data in job["assets"].items():
        (staged / name).write_bytes(data)
    with open(env["GITHUB_OUTPUT"], "a") as f:
        f.write(f"status={job['status']}\n")
    with open(env["GITHUB_STEP_SUMMARY"], "a") as f:
        f.write(job["body"])
    print(f"classroom50_flow (stand-in runner): status={job['status']}"
          + (f" error={job['error']}" if job["error"] else ""))
    return 0


__all__ = ["grade_job", "publish", "record_push", "runner_main", "os"]

if __name__ == "__main__":
    sys.exit(runner_main())
