#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A fake GitHub CLI `gh` for the class rehearsal (tests/tools/test_class_rehearsal.py) and
previous_result.py's tests (tests/tools/test_reuse.py), not a test module. Installed as `gh`
on PATH; its GitHub is the folder $FAKE_GH_STATE:
  state.json             {"repos": {"ORG/NAME": {"default_branch", "collaborators",
                          "activity": [...], "releases": [...], "artifacts": [...]}},
                          "next_id": N}
  git/ORG/NAME.git       each repository's bare git repository
  assets/ID              release asset contents
  artifacts/ID.zip       artifact archives
It answers what the class tools ask (github_cli.call_gh) and previous_result.py:
`repo create ORG/NAME --template T`, `repo clone ORG/NAME DEST`, and `api` calls: the
repository, its activity (filtered by `ref=`), releases, release assets (their contents only
with `-H "Accept: application/octet-stream"`, else their metadata, as GitHub answers),
artifacts and their zip, collaborators. An unknown repository, asset or artifact is
`HTTP 404: Not Found`, as GitHub answers. Every call is appended to $FAKE_GH_STATE/calls.log.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import NoReturn
from urllib.parse import parse_qs, urlsplit

STATE = Path(os.environ["FAKE_GH_STATE"])


def load() -> dict:
    path = STATE / "state.json"
    return json.loads(path.read_text()) if path.is_file() else {"repos": {}, "next_id": 1}


def save(state: dict) -> None:
    (STATE / "state.json").write_text(json.dumps(state, indent=1))


def fail(msg: str, code: int = 1) -> NoReturn:
    sys.stderr.write(msg + "\n")
    sys.exit(code)


def not_found(path: str) -> NoReturn:
    fail(f"gh: Not Found (HTTP 404)\nHTTP 404: Not Found (https://api.github.com/{path})")


def bare(repo: str) -> Path:
    return STATE / "git" / f"{repo}.git"


def emit(items, jq: str | None) -> None:
    if jq is None:
        sys.stdout.write(json.dumps(items))
        return
    if jq.startswith(".artifacts[]"):
        items = items["artifacts"]
    for item in items:
        sys.stdout.write(json.dumps(item) + "\n")


def api(args: list[str], state: dict) -> None:
    jq = args[args.index("--jq") + 1] if "--jq" in args else None
    path = next(a for a in args if a.startswith("repos/"))
    parts = urlsplit(path)
    segs, query = parts.path.split("/"), parse_qs(parts.query)
    repo = "/".join(segs[1:3])
    info = state["repos"].get(repo)
    if info is None:
        not_found(path)
    rest = segs[3:]
    if "-X" in args and args[args.index("-X") + 1] == "PUT" and rest[:1] == ["collaborators"]:
        info["collaborators"].append(rest[1])
        save(state)
        return
    if not rest:
        sys.stdout.write(json.dumps({"full_name": repo, "default_branch": info["default_branch"]}))
    elif rest == ["activity"]:
        ref = query["ref"][0] if query.get("ref") else None
        items = [a for a in reversed(info["activity"]) if ref is None or a["ref"] == ref]
        emit(items, jq)
    elif rest == ["releases"]:
        emit(list(reversed(info["releases"])), jq)
    elif rest[:2] == ["releases", "assets"] and len(rest) == 3:
        asset = STATE / "assets" / rest[2]
        if not asset.is_file():
            not_found(path)
        if "Accept: application/octet-stream" in args:
            sys.stdout.buffer.write(asset.read_bytes())
        else:
            sys.stdout.write(json.dumps({"id": int(rest[2]), "size": asset.stat().st_size}))
    elif rest[:2] == ["actions", "artifacts"] and len(rest) == 2:
        emit({"artifacts": info["artifacts"]}, jq)
    elif rest[:2] == ["actions", "artifacts"] and len(rest) == 4 and rest[3] == "zip":
        archive = STATE / "artifacts" / f"{rest[2]}.zip"
        if not archive.is_file():
            not_found(path)
        sys.stdout.buffer.write(archive.read_bytes())
    else:
        not_found(path)


def main(args: list[str]) -> None:
    STATE.mkdir(parents=True, exist_ok=True)
    with open(STATE / "calls.log", "a") as log:
        log.write(json.dumps(args) + "\n")
    state = load()
    if args[:2] == ["repo", "create"]:
        repo, template = args[2], args[args.index("--template") + 1]
        if repo in state["repos"]:
            fail("GraphQL: Name already exists on this account (createRepository)")
        if template not in state["repos"]:
            fail(f"GraphQL: Could not resolve to a Repository with the name '{template}'.")
        bare(repo).parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "-q", "--bare", str(bare(template)), str(bare(repo))],
                       check=True)
        state["repos"][repo] = {"default_branch": "main", "collaborators": [], "activity": [],
                                "releases": [], "artifacts": []}
        save(state)
    elif args[:2] == ["repo", "clone"]:
        repo, dest = args[2], args[3]
        if repo not in state["repos"]:
            fail(f"GraphQL: Could not resolve to a Repository with the name '{repo}'.")
        subprocess.run(["git", "clone", "-q", str(bare(repo)), dest], check=True)
    elif args[:1] == ["api"]:
        api(args, state)
    else:
        fail(f"fake gh: unsupported command {args}", 2)


if __name__ == "__main__":
    main(sys.argv[1:])
