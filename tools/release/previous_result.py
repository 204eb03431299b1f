#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Fetches the result.json of the last graded push of this repository, for one-lab pushes.

    python3 tools/release/previous_result.py --source releases|artifacts --out FILE
        [--repo OWNER/NAME] [--branch NAME]

Runs in a grading workflow, before any student code, as its own step: the only one that
gets the job's token (GH_TOKEN or GITHUB_TOKEN; GITHUB_API_URL and GITHUB_REPOSITORY come
from the runner). Where the last result is:
  releases   Classroom 50: the newest published release `submit/*` made by
             github-actions[bot] (the grading workflow; releases by anyone else are skipped)
             with the asset result.json (GET /repos/{repo}/releases, then the asset with
             Accept: application/octet-stream)
  artifacts  plain GitHub: the newest unexpired artifact `cudalab-grade` of a run on
             --branch (default GITHUB_REF_NAME), result.json inside its zip
             (GET /repos/{repo}/actions/artifacts?name=cudalab-grade, then .../zip, whose
             redirect is followed without the token)
tools/release/autograde.py --previous FILE then grades only the labs whose files changed
(tools/release/reuse.py says what that trusts).

Exit status: 0 when FILE was written or there is no previous result (then nothing is
written: every lab is graded); 1 when the API could not be read (the workflow step goes on:
continue-on-error). Python 3 standard library.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import urllib.error
import urllib.request
import zipfile
from pathlib import Path
from typing import Callable

BOT = "github-actions[bot]"
ARTIFACT = "cudalab-grade"
Get = Callable[[str, str], bytes]


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: PLR0913
        return None


def http_get(url: str, accept: str) -> bytes:
    """GET @p url from the GitHub API with the job's token; a redirect (an artifact's or an
    asset's storage URL, already signed) is followed without the token."""
    token = os.environ.get("GH_TOKEN") or os.environ.get("GITHUB_TOKEN") or ""
    headers = {"Accept": accept, "X-GitHub-Api-Version": "2022-11-28",
               "User-Agent": "cudalabs-previous-result"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(urllib.request.Request(url, headers=headers), timeout=60) as r:
            return r.read()
    except urllib.error.HTTPError as e:
        if e.code not in (301, 302, 303, 307, 308) or not e.headers.get("Location"):
            raise
        location = e.headers["Location"]
    with urllib.request.urlopen(urllib.request.Request(
            location, headers={"User-Agent": "cudalabs-previous-result"}), timeout=120) as r:
        return r.read()


def from_releases(get: Get, api: str, repo: str) -> bytes | None:
    releases = json.loads(get(f"{api}/repos/{repo}/releases?per_page=30",
                              "application/vnd.github+json"))
    ours = [r for r in releases if str(r.get("tag_name", "")).startswith("submit/")
            and not r.get("draft") and (r.get("author") or {}).get("login") == BOT
            and any(a.get("name") == "result.json" for a in r.get("assets") or [])]
    if not ours:
        return None
    newest = max(ours, key=lambda r: r.get("published_at") or r.get("created_at") or "")
    asset = next(a for a in newest["assets"] if a.get("name") == "result.json")
    print(f"previous_result: {newest['tag_name']}")
    return get(f"{api}/repos/{repo}/releases/assets/{asset['id']}", "application/octet-stream")


def from_artifacts(get: Get, api: str, repo: str, branch: str) -> bytes | None:
    listing = json.loads(get(f"{api}/repos/{repo}/actions/artifacts?name={ARTIFACT}&per_page=30",
                             "application/vnd.github+json"))
    ours = [a for a in listing.get("artifacts") or [] if a.get("name") == ARTIFACT
            and not a.get("expired") and (a.get("workflow_run") or {}).get("head_branch") == branch]
    if not ours:
        return None
    newest = max(ours, key=lambda a: a.get("created_at") or "")
    print(f"previous_result: artifact {newest['id']} of run "
          f"{(newest.get('workflow_run') or {}).get('id')}")
    data = get(f"{api}/repos/{repo}/actions/artifacts/{newest['id']}/zip",
               "application/vnd.github+json")
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return z.read("result.json") if "result.json" in z.namelist() else None


def main(argv: list[str] | None = None, get: Get = http_get) -> int:
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
    api = os.environ.get("GITHUB_API_URL", "https://api.github.com").rstrip("/")
    try:
        data = from_releases(get, api, args.repo) if args.source == "releases" else \
            from_artifacts(get, api, args.repo, args.branch)
        if data is not None:
            json.loads(data)  # must be JSON; autograde.py checks the v1 rules
    except (urllib.error.URLError, OSError, ValueError, KeyError, zipfile.BadZipFile) as e:
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
