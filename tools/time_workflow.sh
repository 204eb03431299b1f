#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Times `cmake --workflow --preset PRESET` step by step and writes where the time went.
#
#   tools/time_workflow.sh [--source DIR] [--fresh] [--update-doc FILE] [--key KEY] PRESET OUTDIR
#
# Runs the workflow preset's steps as `cmake --workflow --preset PRESET` runs them (read from
# the source tree's CMakePresets.json): `cmake --preset <configure>`, `cmake --build --preset
# <build>`, `ctest --preset <test> --output-junit OUTDIR/junit.xml`, each in the source tree,
# each timed with `date +%s.%N`. Then tools/phase_times.py writes OUTDIR/phase-times.md: per
# lab, the seconds of CPU correctness, GPU correctness, sanitizer, profiler and perf tests, and
# the steps' wall times, with the GPU, the core count and the date.
#
#   --source DIR       the source tree to run in (default: the checkout holding this script);
#                      for "from a fresh clone", clone first and pass the clone
#   --fresh            remove the preset's build tree first (only a folder inside DIR)
#   --update-doc FILE  also put the table into FILE between <!-- phase-times:KEY:begin -->
#                      and <!-- phase-times:KEY:end --> (e.g. docs/reference-run.md)
#   --key KEY          that section's key (default: PRESET)
#
# OUTDIR gets: timings.tsv (the steps' start and end), configure.log, build.log, test.log,
# junit.xml, tests.json (ctest --show-only=json-v1) and phase-times.md. Needs no network
# (GoogleTest installed, or FETCHCONTENT_SOURCE_DIR_GOOGLETEST in the environment); without
# nvidia-smi the GPU is stated as "none visible". Exits non-zero when a step failed (the
# table is still written when the tests ran).
set -uo pipefail
die() { echo "time_workflow: $*" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/.." && pwd)
tools_root=$source_dir  # this checkout, whose tools.phase_times this script runs
fresh=0
doc=""
key=""
positional=()
while [ $# -gt 0 ]; do
  case "$1" in
    --source) source_dir=${2:?--source needs a folder}; shift ;;
    --fresh) fresh=1 ;;
    --update-doc) doc=${2:?--update-doc needs a file}; shift ;;
    --key) key=${2:?--key needs a name}; shift ;;
    -h|--help) sed -n '3,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) positional+=("$1") ;;
  esac
  shift
done
[ "${#positional[@]}" -eq 2 ] || die "usage: tools/time_workflow.sh [options] PRESET OUTDIR (see --help)"
preset=${positional[0]}
outdir=${positional[1]}
[ -f "$source_dir/CMakePresets.json" ] || die "$source_dir has no CMakePresets.json"
source_dir=$(cd "$source_dir" && pwd)
mkdir -p "$outdir" || die "cannot create $outdir"
outdir=$(cd "$outdir" && pwd)
if [ -n "$doc" ]; then
  [ -f "$doc" ] || die "$doc does not exist"
  doc=$(cd "$(dirname "$doc")" && pwd)/$(basename "$doc")
fi
py=$(command -v python3) || die "needs python3"
# tools.phase_times of this checkout, wherever this script is run from.
phase() { PYTHONPATH=$tools_root "$py" -P -m tools.phase_times "$@"; }

steps=$(phase steps --source-dir "$source_dir" --preset "$preset") || exit 2
binary=$(awk '$1 == "binary" { sub(/^binary /, ""); print }' <<<"$steps")
jobs=$(awk '$1 == "jobs" { print $2 }' <<<"$steps")
[ -n "$binary" ] || die "workflow preset $preset has no configure step"

existed=no
if [ -e "$binary" ]; then
  if [ "$fresh" -eq 1 ]; then
    case "$binary/" in
      "$source_dir"/?*/) rm -rf -- "$binary" ;;
      *) die "--fresh removes only a build tree inside $source_dir, not $binary" ;;
    esac
  else
    existed=yes
    echo "time_workflow: $binary exists: configure and build are incremental (--fresh for a clean one)" >&2
  fi
fi

timings="$outdir/timings.tsv"
gpu="none visible"
if command -v nvidia-smi >/dev/null 2>&1; then
  names=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c |
          awk '{ n = $1; $1 = ""; sub(/^ /, ""); printf "%s%s x %s", (NR > 1 ? ", " : ""), n, $0 }')
  [ -n "$names" ] && gpu=$names
fi
cuda=""
if command -v nvcc >/dev/null 2>&1; then
  cuda=$(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p' | head -n 1)
fi
{
  echo "meta preset $preset"
  echo "meta gpu $gpu"
  echo "meta cores $(nproc)"
  echo "meta date $(date -u +%Y-%m-%d)"
  echo "meta commit $(git -C "$source_dir" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  [ -n "$cuda" ] && echo "meta cuda $cuda"
  [ -n "$jobs" ] && echo "meta jobs $jobs"
  echo "meta build_dir_existed $existed"
} >"$timings"

status=0
ran_tests=0
while read -r kind name; do
  case "$kind" in
    configure) cmd=(cmake --preset "$name") ;;
    build) cmd=(cmake --build --preset "$name") ;;
    test) cmd=(ctest --preset "$name" --output-junit "$outdir/junit.xml") ;;
    *) continue ;;
  esac
  echo "time_workflow: $kind: ${cmd[*]}" >&2
  start=$(date +%s.%N)
  (cd "$source_dir" && "${cmd[@]}") >"$outdir/$kind.log" 2>&1
  rc=$?
  end=$(date +%s.%N)
  echo "step $kind $start $end $rc" >>"$timings"
  awk -v s="$start" -v e="$end" -v k="$kind" -v r="$rc" \
    'BEGIN { printf "time_workflow: %s took %.1f s (exit %d)\n", k, e - s, r }' >&2
  if [ "$kind" = test ]; then
    ran_tests=1
  fi
  if [ "$rc" -ne 0 ]; then
    status=$rc
    tail -n 20 "$outdir/$kind.log" >&2
    [ "$kind" = test ] || break   # as the workflow does: a failed step ends it
  fi
done <<<"$steps"

args=(table --build-dir "$binary" --timings "$timings" --output "$outdir/phase-times.md"
      --title "cmake --workflow --preset $preset")
if [ "$ran_tests" -eq 1 ] && [ -f "$outdir/junit.xml" ]; then
  phase list --build-dir "$binary" >"$outdir/tests.json" || status=2
  args+=(--junit "$outdir/junit.xml" --tests-json "$outdir/tests.json")
else
  args+=(--not-measured)
fi
if [ -n "$doc" ]; then
  args+=(--update-doc "$doc" --key "${key:-$preset}")
fi
phase "${args[@]}" || status=2
echo "time_workflow: wrote $outdir/phase-times.md" >&2
cat "$outdir/phase-times.md"
exit "$status"
