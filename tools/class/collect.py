#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Collects each student's latest graded result before a deadline, by push time.

    python3 tools/class/collect.py --roster students.csv --org ORG [--prefix cudalabs]
        --deadline 2026-12-14T23:59:00Z --source releases|artifacts --out DIR

Where the results are:
  releases   Classroom 50: each graded submission is a release `submit/<UTC time>-<sha>`
             with the asset result.json, created by the grading workflow (author
             github-actions[bot]; releases by anyone else are ignored and reported)
  artifacts  plain GitHub: the artifact `cudalab-grade` (result.json inside) of each run of
             the grading workflow (grade-reusable.yml); expired artifacts are skipped
Which one counts: the one whose graded commit was pushed last at or before --deadline. Push
times come from GitHub's repository activity API (GET /repos/{owner}/{repo}/activity:
`after` is the commit a push, force push, branch creation or merge left on the branch,
`timestamp` when GitHub received it), not from commit dates, which the student sets. A commit
the activity list does not show (older than its retention, or only tagged) falls back to the
time the result was made (release or artifact creation, GitHub's clock, after grading) and
says so. A student with nothing on time gets the latest result after the deadline, marked
late; one with no result at all is listed with none.

Writes DIR/collected.json ({"deadline", "source", "students": [{"student", "repo",
"commit", "push_time", "push_time_source", "late", "result_from", "result"}]}) for
gradebook.py and charts.py. Exit status: 0; 1 when some repositories could not be read
(listed, the others are written); 2 bad input. Needs the GitHub CLI `gh` with read access
to the students' repositories. Python 3 standard library.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import json
import sys
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from classlib import (GhCall, GhError, UsageError, api_items, call_gh, check_name,  # noqa: E402
                      read_roster, repo_of)

PUSH_TYPES = {"push", "force_push", "branch_creation", "pr_merge", "merge_queue_merge"}
BOT = "github-actions[bot]"
ARTIFACT = "cudalab-grade"


def parse_time(text: str) -> dt.datetime:
    """An ISO 8601 time (Z or an offset) as an aware UTC datetime."""
    value = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    if value.tzinfo is None:
        raise ValueError(f"{text!r} has no time zone (add Z for UTC)")
    return value.astimezone(dt.timezone.utc)


def pushes(call: GhCall, repo: str, ref: str | None = None) -> list[tuple[dt.datetime, str]]:
    """(when GitHub received it, the commit it left) for every push, force push, branch
    creation or merge, of @p ref (refs/heads/<branch>) or of every branch."""
    query = f"repos/{repo}/activity?per_page=100" + (f"&ref={ref}" if ref else "")
    out = []
    for a in api_items(call, query):
        sha, when = a.get("after"), a.get("timestamp")
        if a.get("activity_type") in PUSH_TYPES and sha and when:
            out.append((parse_time(when), sha))
    return out


def push_times(call: GhCall, repo: str) -> dict[str, dt.datetime]:
    """commit -> the first time a push left it at the head of a branch."""
    times: dict[str, dt.datetime] = {}
    for t, sha in pushes(call, repo):
        if sha not in times or t < times[sha]:
            times[sha] = t
    return times


def release_candidates(call: GhCall, repo: str, notes: list[str]) -> list[dict]:
    """Classroom 50 submissions: {commit_hint, made, fetch} per release with a result.json."""
    out = []
    for r in api_items(call, f"repos/{repo}/releases?per_page=100"):
        tag = r.get("tag_name", "")
        if not tag.startswith("submit/") or r.get("draft"):
            continue
        if (r.get("author") or {}).get("login") != BOT:
            notes.append(f"{repo}: release {tag} was not made by the grading workflow "
                         f"(author {(r.get('author') or {}).get('login')}); ignored")
            continue
        asset = next((a for a in r.get("assets") or [] if a.get("name") == "result.json"), None)
        if asset is None:
            continue
        out.append({"label": tag, "commit_hint": tag.rsplit("-", 1)[-1],
                    "made": parse_time(r.get("published_at") or r["created_at"]),
                    "fetch": ["api", "-H", "Accept: application/octet-stream",
                              f"repos/{repo}/releases/assets/{asset['id']}"], "zip": False})
    return out


def artifact_candidates(call: GhCall, repo: str, notes: list[str]) -> list[dict]:
    """Plain-GitHub runs: {commit_hint, made, fetch} per unexpired cudalab-grade artifact."""
    out = []
    for a in api_items(call, f"repos/{repo}/actions/artifacts?name={ARTIFACT}&per_page=100",
                       ".artifacts[]"):
        if a.get("name") != ARTIFACT or a.get("expired"):
            continue
        run = a.get("workflow_run") or {}
        out.append({"label": f"run {run.get('id')}", "commit_hint": run.get("head_sha") or "",
                    "made": parse_time(a["created_at"]),
                    "fetch": ["api", f"repos/{repo}/actions/artifacts/{a['id']}/zip"],
                    "zip": True})
    return out


def resolve_commit(hint: str, times: dict[str, dt.datetime]) -> str | None:
    """The full commit of @p hint (a full or abbreviated sha) among the pushed ones."""
    if hint in times:
        return hint
    matches = [sha for sha in times if hint and sha.startswith(hint)]
    return matches[0] if len(matches) == 1 else None


def choose(candidates: list[dict], times: dict[str, dt.datetime],
           deadline: dt.datetime) -> dict | None:
    """The latest candidate pushed at or before @p deadline, else the latest one (late)."""
    for c in candidates:
        sha = resolve_commit(c["commit_hint"], times)
        c["commit"] = sha or c["commit_hint"]
        c["push_time"] = times[sha] if sha else c["made"]
        c["push_time_source"] = "activity" if sha else "result created (push time unknown)"
    if not candidates:
        return None
    order = sorted(candidates, key=lambda c: (c["push_time"], c["made"]))
    on_time = [c for c in order if c["push_time"] <= deadline]
    pick = on_time[-1] if on_time else order[-1]
    pick["late"] = not on_time
    return pick


def fetch_result(call: GhCall, c: dict) -> dict:
    """The result.json of a candidate (a release asset, or inside an artifact's zip)."""
    data = call(c["fetch"])
    if c["zip"]:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            data = z.read("result.json")
    return json.loads(data)


def collect_student(call: GhCall, student: dict, args, deadline: dt.datetime,
                    notes: list[str]) -> dict:
    repo = repo_of(args.org, args.prefix, student["login"])
    entry = {"student": student["login"], "repo": repo, "commit": None, "push_time": None,
             "push_time_source": None, "late": None, "result_from": None, "result": None}
    times = push_times(call, repo)
    finder = release_candidates if args.source == "releases" else artifact_candidates
    pick = choose(finder(call, repo, notes), times, deadline)
    if pick is None:
        notes.append(f"{repo}: no graded result")
        return entry
    entry.update(commit=pick["commit"], push_time=pick["push_time"].strftime("%Y-%m-%dT%H:%M:%SZ"),
                 push_time_source=pick["push_time_source"], late=pick["late"],
                 result_from=pick["label"], result=fetch_result(call, pick))
    return entry


def main(argv: list[str] | None = None, call: GhCall = call_gh) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split(
        "\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--roster", type=Path, required=True, help="CSV with a `login` column")
    ap.add_argument("--org", required=True, help="the course organization")
    ap.add_argument("--prefix", default="cudalabs", help="repositories are ORG/PREFIX-LOGIN")
    ap.add_argument("--deadline", required=True, help="ISO 8601 with a zone, e.g. 2026-12-14T23:59:00Z")
    ap.add_argument("--source", choices=("releases", "artifacts"), required=True,
                    help="releases: Classroom 50; artifacts: the plain-GitHub workflow")
    ap.add_argument("--out", type=Path, required=True, help="folder for collected.json")
    args = ap.parse_args(argv)
    try:
        check_name(args.org, "--org")
        deadline = parse_time(args.deadline)
        students = read_roster(args.roster)
    except (UsageError, ValueError) as e:
        print(f"collect: {e}", file=sys.stderr)
        return 2
    notes, failures, entries = [], [], []
    for s in students:
        try:
            entries.append(collect_student(call, s, args, deadline, notes))
        except (GhError, ValueError, KeyError, zipfile.BadZipFile) as e:
            failures.append(f"{s['login']}: {e}")
            entries.append({"student": s["login"], "repo": repo_of(args.org, args.prefix,
                                                                   s["login"]),
                            "error": str(e), "result": None})
    args.out.mkdir(parents=True, exist_ok=True)
    doc = {"deadline": deadline.strftime("%Y-%m-%dT%H:%M:%SZ"), "source": args.source,
           "notes": notes, "students": entries}
    (args.out / "collected.json").write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    for n in notes:
        print(f"collect: {n}")
    for f in failures:
        print(f"collect: FAILED {f}", file=sys.stderr)
    got = sum(e.get("result") is not None for e in entries)
    late = sum(bool(e.get("late")) for e in entries)
    print(f"collect: {got} of {len(entries)} students have a result ({late} late) -> "
          f"{args.out / 'collected.json'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
