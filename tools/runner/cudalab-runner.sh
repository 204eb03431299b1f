#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Ephemeral, containerized GitHub Actions GPU runners for cudalabs (host side).
#
#   tools/runner/cudalab-runner.sh --org ORG [--gpus 0|0,1|all] [--labels L,...] [--group-id 1]
#       [--image cudalab-runner] [--name PREFIX] [--cpus 8] [--memory 32g] [--pids 4096]
#       [--network egress|open] [--pages-host HOST|none] [--once]
#
# Loop: ask GitHub for a just-in-time (JIT) runner configuration, which registers a runner
# for exactly one job, and start a fresh container of the cudalab-runner image
# (tools/runner/Dockerfile) with it: `docker run --rm --gpus ...`. The runner takes one job
# and exits; the container and everything the job wrote are removed; the loop starts the
# next one. Each job sees only its own files and the GPUs given here, nothing of the host
# (no volume, no docker socket). The job's steps run as root of the container with every
# capability dropped but CHOWN, SETUID, SETGID and KILL, and no new privileges: what
# tools/release/grade_submission.py needs to run student code as the image's unprivileged
# user cudalab-test, which can write nothing of the job's (docs/instructors.md, "Threat
# model"). Run one loop per GPU (the systemd unit cudalab-runner@.service does: --gpus %i),
# so that jobs of different students never share a GPU or a container.
#
# Limits by default: 8 CPUs, 32 GB of memory, 4096 processes per job (--cpus, --memory,
# --pids; CUDALAB_RUNNER_CPUS, _MEMORY, _PIDS). Network by default (--network egress): the job
# container sits on the internal Docker network cudalab-jobs, whose only way out is the proxy
# container cudalab-egress (tools/runner/egress/squid.conf), which lets HTTPS through to
# GitHub's hosts only, and the organization's GitHub Pages host (--pages-host, default
# <org>.github.io; `none` for a course without Classroom 50), from which Classroom 50's grade
# job fetches runner.py and the autograder bundle; `--network open` gives the job Docker's
# default bridge instead. The Pages host is written to $CUDALAB_RUNNER_STATE_DIR
# (default /etc/cudalab-runner)/egress-pages.acl; the proxy restarts when it changes.
#
# The GitHub token stays on the host: it is read from $CUDALAB_RUNNER_TOKEN_FILE (default
# /etc/cudalab-runner/token, mode 600) and only used to mint the single-use JIT
# configuration, with the GitHub CLI (`gh api`; Debian: apt-get install gh). It needs the
# organization permission "Self-hosted runners: read and write" (a fine-grained personal
# access token or a GitHub App installation token).
# Labels (default self-hosted,linux,x64,gpu): the jobs ask for [self-hosted, gpu]; the
# default labels are listed because a JIT registration may not add them by itself.
# Defaults come from the environment: CUDALAB_RUNNER_ORG, CUDALAB_RUNNER_GPUS,
# CUDALAB_RUNNER_LABELS, CUDALAB_RUNNER_GROUP_ID, CUDALAB_RUNNER_IMAGE, CUDALAB_RUNNER_NAME,
# CUDALAB_RUNNER_CPUS, CUDALAB_RUNNER_MEMORY (systemd: EnvironmentFile=/etc/cudalab-runner/env).
set -euo pipefail

org=${CUDALAB_RUNNER_ORG:-}
gpus=${CUDALAB_RUNNER_GPUS:-0}
labels=${CUDALAB_RUNNER_LABELS:-self-hosted,linux,x64,gpu}
group_id=${CUDALAB_RUNNER_GROUP_ID:-1}
image=${CUDALAB_RUNNER_IMAGE:-cudalab-runner}
prefix=${CUDALAB_RUNNER_NAME:-$(hostname -s)}
cpus=${CUDALAB_RUNNER_CPUS:-8}
memory=${CUDALAB_RUNNER_MEMORY:-32g}
pids=${CUDALAB_RUNNER_PIDS:-4096}
network=${CUDALAB_RUNNER_NETWORK:-egress}
pages_host=${CUDALAB_RUNNER_PAGES_HOST:-}
state_dir=${CUDALAB_RUNNER_STATE_DIR:-/etc/cudalab-runner}
proxy_image=${CUDALAB_RUNNER_PROXY_IMAGE:-ubuntu/squid:latest}
here=$(cd "$(dirname "$0")" && pwd)
token_file=${CUDALAB_RUNNER_TOKEN_FILE:-/etc/cudalab-runner/token}
api=${GITHUB_API_URL:-https://api.github.com}
once=0

die() { echo "cudalab-runner: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --org) org=${2:?}; shift ;;
    --gpus) gpus=${2:?}; shift ;;
    --labels) labels=${2:?}; shift ;;
    --group-id) group_id=${2:?}; shift ;;
    --image) image=${2:?}; shift ;;
    --name) prefix=${2:?}; shift ;;
    --cpus) cpus=${2:?}; shift ;;
    --memory) memory=${2:?}; shift ;;
    --pids) pids=${2:?}; shift ;;
    --network) network=${2:?}; shift ;;
    --pages-host) pages_host=${2:?}; shift ;;
    --once) once=1 ;;
    -h|--help) sed -n '2,40p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
  shift
done
[ -n "$org" ] || die "--org (or CUDALAB_RUNNER_ORG) is required"
[ -r "$token_file" ] || die "cannot read the token file $token_file"
command -v docker >/dev/null || die "docker is not installed"
command -v gh >/dev/null || die "gh (the GitHub CLI) is needed to ask GitHub (Debian: apt-get install gh)"
[[ "$group_id" =~ ^[0-9]+$ ]] || die "--group-id must be a runner group's number, not $group_id"

if [ "$gpus" = all ]; then gpu_arg=all; else gpu_arg="\"device=$gpus\""; fi
limits=(--pids-limit "$pids" --cpus "$cpus" --memory "$memory" --memory-swap "$memory")
caps=(--cap-drop ALL --cap-add CHOWN --cap-add SETUID --cap-add SETGID --cap-add KILL
      --security-opt no-new-privileges)

# The egress proxy and the internal network of the jobs (created once, kept between jobs).
net_args=()
case "$network" in
  open) ;;
  egress)
    docker network inspect cudalab-jobs >/dev/null 2>&1 ||
      docker network create --internal cudalab-jobs >/dev/null
    # Classroom 50's Pages site: <org>.github.io unless named (GitHub lowercases the org).
    [ -n "$pages_host" ] || pages_host="$(printf '%s' "$org" | tr '[:upper:]' '[:lower:]').github.io"
    [ "$pages_host" = none ] && pages_host=""
    [[ "$pages_host" =~ ^[A-Za-z0-9.-]*$ ]] || die "--pages-host: not a host name: $pages_host"
    acl_file="$state_dir/egress-pages.acl"
    acl_new="$(printf '%s\n' "$pages_host")"
    if [ ! -f "$acl_file" ] || [ "$(cat "$acl_file")" != "$acl_new" ]; then
      printf '%s\n' "$pages_host" >"$acl_file"
      docker rm -f cudalab-egress >/dev/null 2>&1 || true  # restarted with the new host
    fi
    if [ -z "$(docker ps -q --filter name=^cudalab-egress$)" ]; then
      docker rm -f cudalab-egress >/dev/null 2>&1 || true
      docker run -d --name cudalab-egress --restart unless-stopped \
        -v "$here/egress/squid.conf:/etc/squid/squid.conf:ro" \
        -v "$acl_file:/etc/squid/cudalab-pages.acl:ro" "$proxy_image" >/dev/null
      docker network connect cudalab-jobs cudalab-egress
    fi
    proxy=http://cudalab-egress:3128
    net_args=(--network cudalab-jobs -e "https_proxy=$proxy" -e "HTTPS_PROXY=$proxy"
              -e "http_proxy=$proxy" -e "HTTP_PROXY=$proxy" -e "no_proxy=localhost,127.0.0.1")
    ;;
  *) die "--network must be egress or open" ;;
esac

# Prints the encoded JIT configuration of a new runner named $1 (REST API: POST
# /orgs/{org}/actions/runners/generate-jitconfig with {name, runner_group_id, labels,
# work_folder}); fails when GitHub refuses or its answer has no configuration.
mint_jitconfig() {
  local token label fields=()
  local -a names
  IFS=, read -ra names <<<"$labels"
  for label in "${names[@]}"; do
    if [ -n "$label" ]; then fields+=(-f "labels[]=$label"); fi
  done
  if [ "${#fields[@]}" -eq 0 ]; then fields=(-f "labels[]"); fi  # an empty list
  token=$(tr -d '\n' <"$token_file")
  # The token reaches gh in its environment, not on the command line (other users see `ps`):
  # GH_TOKEN for github.com, GH_ENTERPRISE_TOKEN for the host of another $GITHUB_API_URL.
  GH_TOKEN=$token GH_ENTERPRISE_TOKEN=$token GH_PROMPT_DISABLED=1 GH_NO_UPDATE_NOTIFIER=1 \
    gh api --method POST "$api/orgs/$org/actions/runners/generate-jitconfig" \
    -H "Accept: application/vnd.github+json" -H "X-GitHub-Api-Version: 2022-11-28" \
    -f "name=$1" -F "runner_group_id=$group_id" "${fields[@]}" -f work_folder=_work \
    --jq '.encoded_jit_config // error("the answer has no encoded_jit_config")'
}

while true; do
  name="$prefix-gpu${gpus//,/_}-$(date +%Y%m%d%H%M%S)-$RANDOM"
  if ! jit=$(mint_jitconfig "$name"); then
    echo "cudalab-runner: could not get a JIT configuration from $api for $org; retrying in 60 s" >&2
    sleep 60
    continue
  fi
  echo "cudalab-runner: $name waits for one job (GPUs: $gpus, labels: $labels)"
  # The configuration reaches the container through an env file on a pipe: never on disk
  # and never on a command line. --rm: nothing of this job survives it.
  docker run --rm --name "$name" --gpus "$gpu_arg" \
    "${caps[@]}" "${limits[@]}" "${net_args[@]}" \
    --env-file <(printf 'CUDALAB_JITCONFIG=%s\n' "$jit") \
    "$image" || echo "cudalab-runner: $name exited with status $?" >&2
  unset jit
  [ "$once" -eq 1 ] && break
  sleep 2
done
