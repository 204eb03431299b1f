#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Full validation of the repository on a GPU machine (instructors, and before a release):
#   1. build the reference solutions with the known-wrong variants (-DCUDALAB_WRONG=ON)
#   2. run the solution suite N times (default 3); every run must pass. Before it, with the
#      step "calibrate" (not a default step): three runs of the perf and profiler tests write
#      tests/calibration/<this GPU model>.tsv (tools/calibrate.py), copied to the output
#      folder, and the solution runs judge against it
#   3. stub audit on the GPU: every graded test fails on the untouched stubs
#   4. known-wrong suite: every broken variant is rejected, every correct alternative accepted
#   5. (step "order", not a default step) the verdicts of every Cpu and Gpu test, solutions and
#      known-wrong variants, in the declared order, two shuffled orders and alone must agree
#      (tools/verdict_order_check.py)
#   6. scoreboard of each solution run (scores-runN.json, scores.md) and the speed ratios of
#      all runs against their thresholds, with the thresholds the 30 % rule suggests
#      (python3 -m tools.reference_ratios --suggest: ratios.md)
# Logs go to the folder given as $1 (default: build/gpu-validate).
# Usage: tools/gpu_validate.sh [OUT_DIR] ; CUDALAB_VALIDATE_RUNS=N, CUDALAB_VALIDATE_JOBS=N (ctest -j
# of the solution runs, default 8), CUDALAB_VALIDATE_STEPS="build calibrate solution audit wrong order"
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
out=${1:-build/gpu-validate}
mkdir -p "$out"
runs=${CUDALAB_VALIDATE_RUNS:-3}
steps=${CUDALAB_VALIDATE_STEPS:-build solution audit wrong}
jobs=$(nproc)
status=0
has() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
log() { printf '%s\n' "$*" | tee -a "$out/summary.txt"; }
summary_of() { grep -E '^[0-9]+% tests passed' "$1" | tail -n 1; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader >"$out/summary.txt" 2>&1

if has build; then
  cmake --preset solution -DCUDALAB_WRONG=ON >"$out/build.log" 2>&1 ||
    { log "CONFIGURE FAILED (solution)"; tail -n 40 "$out/build.log"; exit 1; }
  # Keep going past a broken target: its tests then fail as not built, the rest still run.
  if cmake --build --preset solution -j "$jobs" -- -k 0 >>"$out/build.log" 2>&1; then
    log "build: solution + known-wrong variants ok"
  else
    status=1
    log "BUILD FAILED (solution); first errors:"
    grep -E "error" "$out/build.log" | head -n 20 | tee -a "$out/summary.txt"
  fi
fi

if has calibrate; then
  start=$(date +%s)
  if python3 -m tools.calibrate --build-dir build/solution --runs 3 --log-dir "$out/calibration" \
    >"$out/calibrate.log" 2>&1; then
    cp tests/calibration/*.tsv "$out/calibration/"
    log "calibration: $(grep -m1 ' bars for ' "$out/calibrate.log") ($(( $(date +%s) - start )) s)"
  else
    status=1
    log "CALIBRATION FAILED:"
    tail -n 20 "$out/calibrate.log" | tee -a "$out/summary.txt"
  fi
fi

if has solution; then
  for i in $(seq 1 "$runs"); do
    start=$(date +%s)
    ctest --test-dir build/solution -LE "^(wrong|right)$" -j "${CUDALAB_VALIDATE_JOBS:-8}" --output-on-failure --test-output-size-passed 1048576 \
      --output-junit "junit-run$i.xml" >>"$out/solution.log" 2>&1 || status=1
    log "solution run $i: $(summary_of "$out/solution.log") ($(( $(date +%s) - start )) s)"
    python3 -m tools.scoreboard --build-dir build/solution --junit "build/solution/junit-run$i.xml" \
      --json "$out/scores-run$i.json" --markdown "$out/scores.md" >>"$out/scoreboard.txt" 2>&1 || true
  done
fi

if has solution && ls "$out"/scores-run*.json >/dev/null 2>&1; then
  # Exit 1 there means a threshold sits closer than 30 % to a run: reported, not a failure here.
  python3 -m tools.reference_ratios "$out"/scores-run*.json --suggest --markdown "$out/ratios.md" \
    >"$out/ratios.txt" 2>&1 || true
  log "speed ratios of the runs against their thresholds: $(tail -n 1 "$out/ratios.txt") (ratios.md)"
fi

if has audit; then
  # The student preset builds for this GPU (native); ci-student pins sm_90, whose kernels
  # would fail on another GPU for the wrong reason ("no kernel image").
  python3 -m tools.stub_audit --preset student --build-dir build/gpu-student -j 8 \
    >"$out/stub-audit.log" 2>&1 || status=1
  log "stub audit: $(tail -n 1 "$out/stub-audit.log")"
fi

if has wrong; then
  ctest --test-dir build/solution -L "^(wrong|right)$" -j 8 --output-on-failure \
    --test-output-size-passed 1048576 --output-junit junit-wrong.xml >"$out/wrong.log" 2>&1 || status=1
  log "known-wrong rejected and correct alternatives accepted: $(summary_of "$out/wrong.log")"
  log "  wrong variants: $(grep -c 'wrong\.lab[0-9]*\.[^ ]* \.*   Passed' "$out/wrong.log") rejected," \
    "right variants: $(grep -c 'right\.lab[0-9]*\.[^ ]* \.*   Passed' "$out/wrong.log") accepted"
fi
if has order; then
  # Order-independent verdicts (not a default step: about one grader run per test alone):
  # every Cpu and Gpu test of the solutions and of the known-wrong variants, declared order,
  # two shuffled orders and alone; every verdict, and every variant's, must agree.
  start=$(date +%s)
  python3 -m tools.verdict_order_check --build-dir build/solution --set both \
    -j "${CUDALAB_VALIDATE_JOBS:-8}" --json "$out/verdict-order.json" >"$out/verdict-order.log" 2>&1 || status=1
  log "verdicts in any order and alone: $(tail -n 1 "$out/verdict-order.log") ($(( $(date +%s) - start )) s)"
fi
cat "$out/summary.txt"
exit $status
