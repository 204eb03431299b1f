#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Entry point of the cudalab-runner image (tools/runner/Dockerfile): registers a runner for
# exactly one job, runs it, and exits; `docker run --rm` then removes the container.
#   CUDALAB_JITCONFIG                       a just-in-time runner configuration (preferred;
#                                           tools/runner/cudalab-runner.sh mints one per job)
#   CUDALAB_RUNNER_URL, CUDALAB_RUNNER_TOKEN a registration token instead: config.sh --ephemeral
#   CUDALAB_RUNNER_LABELS (default gpu), CUDALAB_RUNNER_NAME, CUDALAB_RUNNER_GROUP
set -euo pipefail
cd /home/runner

if [ -n "${CUDALAB_JITCONFIG:-}" ]; then
  jit=$CUDALAB_JITCONFIG
  unset CUDALAB_JITCONFIG
  exec ./run.sh --jitconfig "$jit"
fi

if [ -n "${CUDALAB_RUNNER_URL:-}" ] && [ -n "${CUDALAB_RUNNER_TOKEN:-}" ]; then
  token=$CUDALAB_RUNNER_TOKEN
  unset CUDALAB_RUNNER_TOKEN
  args=(--unattended --ephemeral --disableupdate --replace --work _work
        --url "$CUDALAB_RUNNER_URL" --token "$token"
        --labels "${CUDALAB_RUNNER_LABELS:-gpu}" --name "${CUDALAB_RUNNER_NAME:-$(hostname)}")
  if [ -n "${CUDALAB_RUNNER_GROUP:-}" ]; then
    args+=(--runnergroup "$CUDALAB_RUNNER_GROUP")
  fi
  ./config.sh "${args[@]}"
  exec ./run.sh
fi

echo "cudalab-runner: set CUDALAB_JITCONFIG, or CUDALAB_RUNNER_URL and CUDALAB_RUNNER_TOKEN" >&2
exit 2
