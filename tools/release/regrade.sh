#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The grade that counts: regrades one submission or a class with the pinned course, each
# inside a sandbox (the runner image under docker or podman, or namespaces with unshare on a
# GPU machine without a container engine); student code never runs on the host.
#
#   tools/release/regrade.sh [--course DIR] [--sandbox docker|podman|unshare]
#       [--deadline 2026-12-14T23:59:00Z] [--branch main] [--template DIR] [--out DIR]
#       [--image cudalab-runner] [--gpu 0] [--cpus 8] [--memory 32g] [--pids 4096]
#       [--preset student|ci-student]
#       (OWNER/REPO | git URL | local checkout) ... | --class ROSTER.csv --org ORG [--prefix P]
#
# The regrade's --help (this script's too) says what each step does. It runs the regrade of
# the course copy this script is in, with that copy alone on the module search path (-P: not
# the working directory, which may hold a student's checkout and its tools/ folder).
set -euo pipefail
course=$(cd "$(dirname "$0")/../.." && pwd)
PYTHONPATH=$course exec python3 -P -m tools.release.regrade "$@"
