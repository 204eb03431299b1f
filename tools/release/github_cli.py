# SPDX-License-Identifier: BSD-3-Clause
"""The one way the course's Python tools talk to GitHub: the GitHub CLI, `gh`.

call_gh(args) runs `gh ARGS` and returns its standard output; gh authenticates with GH_TOKEN
(or GITHUB_TOKEN, or `gh auth login`), keeps the token off every command line and talks to
github.com unless GH_HOST names another host. A failure raises GhError with one line naming
the gh command and what it works on (the API path or the repository) and gh's last line.
Used by the grading workflow's previous_result.py and by the instructor's class tools (not
in a student release), which take call_gh as a parameter so that their tests hand them a fake.

Library only (no command line); Python 3 standard library and gh (Debian: apt-get install gh).
"""

from __future__ import annotations

import subprocess


class GhError(Exception):
    """gh failed or could not run: its message names the gh command and what it works on."""

    @property
    def not_found(self) -> bool:
        return "HTTP 404" in str(self) or "Could not resolve to a Repository" in str(self)


def describe(args: list[str]) -> str:
    """The gh command in a message: the subcommand and what it works on (the API path or the
    repository), not its option flags."""
    target = next((a for a in args if a.startswith("repos/") or a.startswith("orgs/")), None)
    if target is None:
        target = next((a for a in args[2:] if "/" in a and not a.startswith("-")), "")
    return " ".join(x for x in (args[0] if args else "", target) if x)


def call_gh(args: list[str], timeout: float = 300) -> bytes:
    """Runs `gh ARGS` and returns its stdout; raises GhError with gh's message on failure."""
    try:
        proc = subprocess.run(["gh", *args], capture_output=True, check=False, timeout=timeout)
    except FileNotFoundError:
        raise GhError("cannot run the GitHub CLI `gh`: it is not installed (Debian: apt-get "
                      "install gh; https://cli.github.com)") from None
    except OSError as e:
        raise GhError(f"cannot run the GitHub CLI `gh` ({e.strerror or e})") from None
    except subprocess.TimeoutExpired:
        raise GhError(f"gh {describe(args)} timed out") from None
    if proc.returncode != 0:
        msg = proc.stderr.decode(errors="replace").strip().splitlines()
        raise GhError(f"gh {describe(args)}: {msg[-1] if msg else f'exit {proc.returncode}'}")
    return proc.stdout
