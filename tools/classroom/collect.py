# SPDX-License-Identifier: BSD-3-Clause
"""Collects each student's graded results by push time, for one deadline or one per lab.

    python3 -m tools.classroom.collect --roster students.csv --org ORG
        (--classroom C --assignment A | --prefix P)
        (--deadline 2026-12-14T23:59:00Z | --deadlines deadlines.csv) [--extensions ext.csv]
        --source releases|artifacts [--branch main | --all-branches] --out DIR

Repositories: ORG/PREFIX-LOGIN, and ORG/PREFIX-TEAM for the students whose roster row has a
`team` (a team assignment: one repository, every member credited). Classroom 50 names them
<classroom>-<assignment>-<login>: --classroom and --assignment give that prefix. There is no
default prefix: a wrong one makes every repository a 404, and the message names it.

Where the results are:
  releases   Classroom 50: each graded submission is a release `submit/<UTC time>-<sha>`
             with the asset result.json, created by the grading workflow (author
             github-actions[bot]; releases by anyone else are ignored and reported)
  artifacts  plain GitHub: the artifact `cudalab-grade` (result.json inside) of each run of
             the grading workflow (grade-reusable.yml); expired artifacts are skipped
Which ones are kept: only results of commits pushed to the repository's default branch
(--branch names another; --all-branches keeps every branch), so a push to a side branch
never replaces the main branch's result. Push times come from GitHub's repository activity
API (GET /repos/{owner}/{repo}/activity: `after` is the commit a push, force push, branch
creation or merge left on the branch, `timestamp` when GitHub received it), not from commit
dates, which the student sets. With --all-branches, a commit the activity list does not show
falls back to the time the result was made (release or artifact creation) and says so.

Deadlines: --deadline for every lab, or --deadlines FILE (CSV lab,deadline; `*` for the labs
not listed), and --extensions FILE (CSV login,lab,extra: e.g. `alice,lab07,2d`; lab `*` for
every lab). For each deadline that applies to a student it keeps the last result pushed at
or before it, and the latest result after it (late work, which gradebook.py charges with the
late policy). A student with no result at all is listed with none.

Writes DIR/collected.json ({"deadline", "deadlines", "source", "branch", "notes", "students":
[{"student", "team", "repo", "submissions": [{"commit", "push_time", "push_time_source",
"result_from", "result"}], and the result at the last deadline: "commit", "push_time",
"push_time_source", "late", "result_from", "result"}]}) for gradebook.py and charts.py.
Exit status: 0; 1 when some repositories could not be read (listed, the others are written);
2 bad input. Needs the GitHub CLI `gh` with read access to the students' repositories.
Python 3 standard library.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import json
import sys
import zipfile
from pathlib import Path

from ..release.github_cli import GhError, call_gh
from .classlib import (Deadlines, GhCall, UsageError, add_prefix_args, api_items, check_name,
                       iso, not_found_message, parse_time, read_roster, repo_of,
                       resolve_prefix, units)

PUSH_TYPES = {"push", "force_push", "branch_creation", "pr_merge", "merge_queue_merge"}
BOT = "github-actions[bot]"
ARTIFACT = "cudalab-grade"

__all__ = ["parse_time", "pushes", "push_times"]


def pushes(call: GhCall, repo: str, ref: str | None = None) -> list[tuple[dt.datetime, str]]:
    """(when GitHub received it, the commit it left) for every push, force push, branch
    creation or merge, of @p ref (refs/heads/<branch>) or of every branch."""
    query = f"repos/{repo}/activity?per_page=100" + (f"&ref={ref}" if ref else "")
    out = []
    for a in api_items(call, query):
        sha, when = a.get("after"), a.get("timestamp")
        if ref and a.get("ref") not in (None, ref):
            continue  # an answer that ignored the filter
        if a.get("activity_type") in PUSH_TYPES and sha and when:
            out.append((parse_time(when), sha))
    return out


def push_times(call: GhCall, repo: str, ref: str | None = None) -> dict[str, dt.datetime]:
    """commit -> the first time a push left it at the head of @p ref (or of any branch)."""
    times: dict[str, dt.datetime] = {}
    for t, sha in pushes(call, repo, ref):
        if sha not in times or t < times[sha]:
            times[sha] = t
    return times


def default_branch(call: GhCall, repo: str) -> str:
    """The repository's default branch (GET /repos/{repo}); `main` when the answer has none."""
    out = call(["api", "-H", "Accept: application/vnd.github+json", f"repos/{repo}"])
    try:
        return json.loads(out or b"{}").get("default_branch") or "main"
    except ValueError:
        return "main"


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
        out.append({"label": tag, "commit_hint": tag.rsplit("-", 1)[-1], "branch": None,
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
                    "branch": run.get("head_branch"), "made": parse_time(a["created_at"]),
                    "fetch": ["api", f"repos/{repo}/actions/artifacts/{a['id']}/zip"],
                    "zip": True})
    return out


def resolve_commit(hint: str, times: dict[str, dt.datetime]) -> str | None:
    """The full commit of @p hint (a full or abbreviated sha) among the pushed ones."""
    if hint in times:
        return hint
    matches = [sha for sha in times if hint and sha.startswith(hint)]
    return matches[0] if len(matches) == 1 else None


def place(candidates: list[dict], times: dict[str, dt.datetime], branch: str | None,
          repo: str, notes: list[str]) -> list[dict]:
    """Each candidate with its commit and push time, oldest push first. With @p branch (only
    that branch counts), candidates whose commit was not pushed to it are dropped."""
    out = []
    for c in candidates:
        sha = resolve_commit(c["commit_hint"], times)
        if branch is not None and (sha is None or (c["branch"] not in (None, branch))):
            notes.append(f"{repo}: {c['label']} graded {c['commit_hint'][:12]}, which was not "
                         f"pushed to {branch}; ignored (--all-branches keeps it)")
            continue
        c["commit"] = sha or c["commit_hint"]
        c["push_time"] = times[sha] if sha else c["made"]
        c["push_time_source"] = "activity" if sha else "result created (push time unknown)"
        out.append(c)
    return sorted(out, key=lambda c: (c["push_time"], c["made"]))


def choose(candidates: list[dict], times: dict[str, dt.datetime],
           deadline: dt.datetime) -> dict | None:
    """The latest candidate pushed at or before @p deadline, else the latest one (late);
    candidates are placed with every branch counting."""
    order = place(candidates, times, None, "", [])
    if not order:
        return None
    on_time = [c for c in order if c["push_time"] <= deadline]
    pick = on_time[-1] if on_time else order[-1]
    pick["late"] = not on_time
    return pick


def needed(order: list[dict], deadlines: list[dt.datetime]) -> list[dict]:
    """The candidates a gradebook needs: the last one at or before each deadline and the
    latest one after the earliest deadline (late work), oldest first."""
    keep = {}
    for d in deadlines:
        on_time = [c for c in order if c["push_time"] <= d]
        if on_time:
            keep[id(on_time[-1])] = on_time[-1]
    if order and (not deadlines or order[-1]["push_time"] > deadlines[0]):
        keep[id(order[-1])] = order[-1]
    return sorted(keep.values(), key=lambda c: (c["push_time"], c["made"]))


def fetch_result(call: GhCall, c: dict) -> dict:
    """The result.json of a candidate (a release asset, or inside an artifact's zip)."""
    data = call(c["fetch"])
    if c["zip"]:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            data = z.read("result.json")
    return json.loads(data)


def collect_unit(call: GhCall, unit: dict, args, prefix: str, deadlines: Deadlines,
                 notes: list[str]) -> dict:
    """The submissions of one repository (a student's or a team's)."""
    repo = repo_of(args.org, prefix, unit["name"])
    logins = [m["login"] for m in unit["members"]]
    try:
        branch = None if args.all_branches else (args.branch or default_branch(call, repo))
        times = push_times(call, repo, f"refs/heads/{branch}" if branch else None)
        finder = release_candidates if args.source == "releases" else artifact_candidates
        order = place(finder(call, repo, notes), times, branch, repo, notes)
    except GhError as e:
        if e.not_found:
            raise GhError(not_found_message(repo, prefix)) from None
        raise GhError(f"{repo}: {e}") from None
    dues = deadlines.all_due(logins, [])
    keep = needed(order, dues)
    subs = [{"commit": c["commit"], "push_time": iso(c["push_time"]),
             "push_time_source": c["push_time_source"], "result_from": c["label"],
             "result": fetch_result(call, c)} for c in keep]
    entry = {"repo": repo, "branch": branch or "(all)", "submissions": subs, "commit": None,
             "push_time": None, "push_time_source": None, "late": None, "result_from": None,
             "result": None}
    if not subs:
        notes.append(f"{repo}: no graded result" + (f" on {branch}" if branch else ""))
        return entry
    last_due = dues[-1] if dues else None
    on_time = [s for s in subs if last_due is None or parse_time(s["push_time"]) <= last_due]
    pick = on_time[-1] if on_time else subs[-1]
    entry.update({k: pick[k] for k in ("commit", "push_time", "push_time_source",
                                       "result_from", "result")}, late=not on_time)
    return entry


def main(argv: list[str] | None = None, call: GhCall = call_gh) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split(
        "\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--roster", type=Path, required=True,
                    help="CSV with a `login` column (and `team` for a team assignment)")
    ap.add_argument("--org", required=True, help="the course organization")
    add_prefix_args(ap)
    ap.add_argument("--deadline", help="one deadline for every lab, ISO 8601 with a zone, "
                                       "e.g. 2026-12-14T23:59:00Z")
    ap.add_argument("--deadlines", type=Path, help="CSV lab,deadline (one per lab; * = others)")
    ap.add_argument("--extensions", type=Path, help="CSV login,lab,extra (e.g. alice,lab07,2d)")
    ap.add_argument("--source", choices=("releases", "artifacts"), required=True,
                    help="releases: Classroom 50; artifacts: the plain-GitHub workflow")
    ap.add_argument("--branch", help="the branch whose pushes count (default: the repository's "
                                     "default branch)")
    ap.add_argument("--all-branches", action="store_true",
                    help="count pushes to every branch (not only the default branch)")
    ap.add_argument("--out", type=Path, required=True, help="folder for collected.json")
    args = ap.parse_args(argv)
    try:
        check_name(args.org, "--org")
        prefix = resolve_prefix(args)
        if args.branch and args.all_branches:
            raise UsageError("--branch and --all-branches exclude each other")
        deadlines = Deadlines.load(args.deadline, args.deadlines, args.extensions)
        students = read_roster(args.roster)
        groups = units(students)
    except (UsageError, ValueError) as e:
        print(f"collect: {e}", file=sys.stderr)
        return 2
    notes: list[str] = []
    failures: list[str] = []
    entries: list[dict] = []
    for unit in groups:
        try:
            got = collect_unit(call, unit, args, prefix, deadlines, notes)
        except (GhError, ValueError, KeyError, zipfile.BadZipFile) as e:
            failures.append(f"{unit['name']}: {e}")
            got = {"repo": repo_of(args.org, prefix, unit["name"]), "error": str(e),
                   "submissions": [], "result": None}
        for m in unit["members"]:
            entries.append({"student": m["login"], "team": unit["team"], **got})
    args.out.mkdir(parents=True, exist_ok=True)
    final = deadlines.all_due([], [])
    doc = {"deadline": iso(final[-1]) if final else None, "deadlines": deadlines.to_json(),
           "source": args.source, "branch": "(all)" if args.all_branches else
           (args.branch or "(default branch)"), "prefix": prefix, "notes": notes,
           "students": entries}
    (args.out / "collected.json").write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    for n in notes:
        print(f"collect: {n}")
    for f in failures:
        print(f"collect: FAILED {f}", file=sys.stderr)
    with_result = sum(e.get("result") is not None for e in entries)
    late = sum(bool(e.get("late")) for e in entries)
    print(f"collect: {with_result} of {len(entries)} students have a result ({late} late) -> "
          f"{args.out / 'collected.json'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
