# SPDX-License-Identifier: BSD-3-Clause
"""Fetches the result.json of the last graded push of this repository, for one-lab pushes.

    python3 -m tools.release.previous_result --source releases|artifacts --out FILE
        [--repo OWNER/NAME] [--branch NAME]

Runs in a grading workflow, before any student code, as its own step: the only one that
gets the job's token (GH_TOKEN; GITHUB_REPOSITORY comes from the runner). GitHub's API is
read with the GitHub CLI, `gh api` (the runner image has it), which authenticates with
GH_TOKEN (or GITHUB_TOKEN) and follows a download's redirect to GitHub's storage without
sending it there; it talks to github.com unless GH_HOST names another host. Where the last
result is:
  releases   Classroom 50: the newest published release `submit/*` made by
             github-actions[bot] (the grading workflow; releases by anyone else are skipped)
             with the asset result.json (GET repos/{repo}/releases, then the asset with
             Accept: application/octet-stream)
  artifacts  plain GitHub: the newest unexpired artifact `cudalab-grade` of a run on
             --branch (default GITHUB_REF_NAME), result.json inside its zip
             (GET repos/{repo}/actions/artifacts?name=cudalab-grade, then .../zip)
python3 -m tools.release.autograde --previous FILE then grades only the labs whose files changed
(tools/release/reuse.py says what that trusts).

Exit status: 0 when FILE was written or there is no previous result (then nothing is
written: every lab is graded); 1 when the API could not be read, or gh is missing (the
workflow step goes on: continue-on-error). Python 3 standard library and gh.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import zipfile
from pathlib import Path
from typing import Callable

from .github_cli import GhError, call_gh

BOT = "github-actions[bot]"
ARTIFACT = "cudalab-grade"
Get = Callable[[str, str], bytes]


def gh_get(path: str, accept: str) -> bytes:
    """GET @p path (`repos/...`) with `gh api` and the job's token; gh follows a redirect (an
    artifact's or an asset's storage URL, already signed) and sends its token only to the API
    host. The token is in gh's environment, never on its command line."""
    return call_gh(["api", "-H", f"Accept: {accept}", "-H", "X-GitHub-Api-Version: 2022-11-28",
                    path], timeout=180)


def from_releases(get: Get, repo: str) -> bytes | None:
    releases = json.loads(get(f"repos/{repo}/releases?per_page=30",
                              "application/vnd.github+json"))
    ours = [r for r in releases if str(r.get("tag_name", "")).startswith("submit/")
            and not r.get("draft") and (r.get("author") or {}).get("login") == BOT
            and any(a.get("name") == "result.json" for a in r.get("assets") or [])]
    if not ours:
        return None
    newest = max(ours, key=lambda r: r.get("published_at") or r.get("created_at") or "")
    asset = next(a for a in newest["assets"] if a.get("name") == "result.json")
    print(f"previous_result: {newest['tag_name']}")
    return get(f"repos/{repo}/releases/assets/{asset['id']}", "application/octet-stream")


def from_artifacts(get: Get, repo: str, branch: str) -> bytes | None:
    listing = json.loads(get(f"repos/{repo}/actions/artifacts?name={ARTIFACT}&per_page=30",
                             "application/vnd.github+json"))
    ours = [a for a in listing.get("artifacts") or [] if a.get("name") == ARTIFACT
            and not a.get("expired") and (a.get("workflow_run") or {}).get("head_branch") == branch]
    if not ours:
        return None
    newest = max(ours, key=lambda a: a.get("created_at") or "")
    print(f"previous_result: artifact {newest['id']} of run "
          f"{(newest.get('workflow_run') or {}).get('id')}")
    data = get(f"repos/{repo}/actions/artifacts/{newest['id']}/zip",
               "application/vnd.github+json")
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return z.read("result.json") if "result.json" in z.namelist() else None


def main(argv: list[str] | None = None, get: Get = gh_get) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split(
        "\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--source", choices=("releases", "artifacts"), required=True)
    ap.add_argument("--out", type=Path, required=True, help="where to write result.json")
    ap.add_argument("--repo", default=os.environ.get("GITHUB_REPOSITORY", ""),
                    help="OWNER/NAME (default: $GITHUB_REPOSITORY)")
    ap.add_argument("--branch", default=os.environ.get("GITHUB_REF_NAME", ""),
                    help="artifacts: the branch whose runs count (default: $GITHUB_REF_NAME)")
    args = ap.parse_args(argv)
    if "/" not in args.repo:
        print("previous_result: --repo OWNER/NAME (or GITHUB_REPOSITORY) is needed",
              file=sys.stderr)
        return 2
    try:
        data = from_releases(get, args.repo) if args.source == "releases" else \
            from_artifacts(get, args.repo, args.branch)
        if data is not None:
            json.loads(data)  # must be JSON; autograde.py checks the v1 rules
    except (GhError, ValueError, KeyError, zipfile.BadZipFile) as e:
        print(f"previous_result: cannot read the last result ({e}); every lab is graded")
        return 1
    if data is None:
        print("previous_result: no earlier graded result; every lab is graded")
        return 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(data)
    print(f"previous_result: -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
