# SPDX-License-Identifier: BSD-3-Clause
"""Creates every student's private repository from the course template, and adds the student.

    python3 -m tools.classroom.create_repos --roster students.csv --org ORG \\
        --template ORG/cudalabs-student [--prefix cudalabs] [--permission push] [--dry-run]

For each student of the roster (a CSV with a `login` column: GitHub user names) it runs
    gh repo create ORG/PREFIX-LOGIN --template TEMPLATE --private
    gh api -X PUT repos/ORG/PREFIX-LOGIN/collaborators/LOGIN -f permission=push
A repository that already exists is kept (the student is still added), so the command can be
run again after adding students to the roster. `push` is write access: no admin, so students
cannot change the repository's settings or variables. GitHub sends each student an
invitation. Students whose roster row has a `team` share one repository, ORG/PREFIX-TEAM,
and each member is added to it. --dry-run prints the commands and runs nothing. The other
class tools need the same prefix (--prefix); Classroom 50 creates its own repositories,
named <classroom>-<assignment>-<login>.

Exit status: 0 all done; 1 some student failed (listed); 2 bad input. Needs the GitHub CLI
`gh`, logged in as an owner of ORG. Python 3 standard library.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from ..release.github_cli import GhError, call_gh
from .classlib import GhCall, UsageError, check_name, read_roster, repo_of, units

PERMISSIONS = ("pull", "triage", "push", "maintain")  # never admin


def commands(student: dict, org: str, prefix: str, template: str, permission: str,
             repo_name: str | None = None) -> list[list[str]]:
    """The gh commands that create one student's (or team's) repository and add the student."""
    repo = repo_of(org, prefix, repo_name or student["login"])
    return [["repo", "create", repo, "--template", template, "--private"],
            ["api", "-X", "PUT", f"repos/{repo}/collaborators/{student['login']}",
             "-f", f"permission={permission}"]]


def create(students: list[dict], args, call: GhCall) -> list[str]:
    """Runs the commands for every student; returns the failures (one line each)."""
    failures: list[str] = []
    made: set[str] = set()
    for unit in units(students):
        for s in unit["members"]:
            failures += create_one(s, unit["name"], args, call, made)
    return failures


def create_one(s: dict, repo_name: str, args, call: GhCall, made: set) -> list[str]:
    """Creates the repository (once per team) and adds @p s; returns the failures."""
    failures: list[str] = []
    create_cmd, add_cmd = commands(s, args.org, args.prefix, args.template, args.permission,
                                   repo_name)
    if args.dry_run:
        for cmd in ((create_cmd, add_cmd) if create_cmd[2] not in made else (add_cmd,)):
            print("gh " + " ".join(shlex.quote(a) for a in cmd))
        made.add(create_cmd[2])
        return failures
    try:
        try:
            if create_cmd[2] not in made:
                call(create_cmd)
                print(f"create_repos: created {create_cmd[2]}")
        except GhError as e:
            if "already exists" not in str(e).lower():
                raise
            print(f"create_repos: {create_cmd[2]} exists, kept")
        made.add(create_cmd[2])
        call(add_cmd)
        print(f"create_repos: {s['login']} invited to {create_cmd[2]} ({args.permission})")
    except GhError as e:
        failures.append(f"{s['login']}: {e}")
    return failures


def main(argv: list[str] | None = None, call: GhCall = call_gh) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split(
        "\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--roster", type=Path, required=True, help="CSV with a `login` column")
    ap.add_argument("--org", required=True, help="the course organization")
    ap.add_argument("--template", required=True, help="the template repository, OWNER/NAME")
    ap.add_argument("--prefix", default="cudalabs",
                    help="repository names are PREFIX-LOGIN (default: cudalabs)")
    ap.add_argument("--permission", choices=PERMISSIONS, default="push",
                    help="the student's access (default push = write; admin is not offered)")
    ap.add_argument("--dry-run", action="store_true", help="print the gh commands only")
    args = ap.parse_args(argv)
    try:
        check_name(args.org, "--org")
        if args.prefix:
            check_name(args.prefix, "--prefix")
        owner, _, name = args.template.partition("/")
        check_name(owner, "--template owner")
        check_name(name, "--template name")
        students = read_roster(args.roster)
    except UsageError as e:
        print(f"create_repos: {e}", file=sys.stderr)
        return 2
    failures = create(students, args, call)
    for f in failures:
        print(f"create_repos: FAILED {f}", file=sys.stderr)
    if not args.dry_run:
        print(f"create_repos: {len(students) - len(failures)} of {len(students)} repositories ready")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
