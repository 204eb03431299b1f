#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The repository's honesty checks that need no GPU (instructor checkout), as CI runs them:
#   0. format check       every C++/CUDA source matches .clang-format; every source file
#                          carries the SPDX license line (python3 -m tools.spdx_headers --check)
#   0b. Python             pyflakes on every tracked .py file (tools/ and tests/), mypy on
#                          tools/ and tests/tools/ ([tool.mypy] of pyproject.toml); both
#                          required (Debian: pyflakes3 mypy)
#   1. skeleton check      solutions/ differ from labs/ only in TODO regions; the variant
#                          patches of tests/labNN_topic/{wrong,right}/ apply to solutions/
#   2. stub audit (CPU)    every CPU-graded test fails on the untouched stubs (build/ci-student)
#   3. known-wrong (CPU)   the graders reject the known-wrong submissions; the variants
#                          only a GPU can catch are Skipped here (build/ci, CUDALAB_WRONG=ON)
#   4. declared tests      tests/grading.json (what the scoreboard grades, with its points)
#                          is what the graders list with the points each lab declares in
#                          tests/labNN_topic/objectives.json; a graded suite a declaration
#                          lacks, a declared suite no grader lists or points not adding up
#                          (per technique, to 100 per lab) fail it (regenerate: python3 -m
#                          tools.scoreboard --build-dir build/ci --write-declared
#                          tests/grading.json)
#   4b. verdict order      every CPU test's verdict, and every CPU-judged known-wrong
#                          variant's, is the same in the declared order, shuffled and alone
#                          (python3 -m tools.verdict_order_check --cpu-only; build/ci)
#   4c. contract table     every documented promise of a lab header (tests/contracts.json)
#                          names a test that exists in the lab's grader sources, or the
#                          header says why it cannot be tested (tools/contract_check.py;
#                          the gaps the table records pass until closed, a new one fails)
#   5. student release     exported without solutions/ etc., configured, built and graded
#                          (build/student-release)
# Every check runs; the exit status is 1 if any failed. Usage: tools/ci_checks.sh [-j N]
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

jobs=${CMAKE_BUILD_PARALLEL_LEVEL:-2}
if [ "${1:-}" = "-j" ] && [ -n "${2:-}" ]; then jobs=$2; fi
export CMAKE_BUILD_PARALLEL_LEVEL=$jobs

failed=()
check() {
  local name=$1; shift
  printf '\n==== %s ====\n' "$name"
  if "$@"; then echo "---- $name: ok"; else echo "---- $name: FAILED"; failed+=("$name"); fi
}

known_wrong_cpu() {
  cmake --preset ci -DCUDALAB_WRONG=ON >/dev/null &&
    cmake --build --preset ci &&
    ctest --test-dir build/ci -L "wrong|right|attack" -j "$jobs" --output-on-failure --no-tests=error \
      --output-junit wrong-junit.xml
}

# pyflakes: unused imports and variables, undefined names, redefinitions; any finding fails.
python_lint() {
  local pyflakes
  pyflakes=$(command -v pyflakes3 || command -v pyflakes) ||
    { echo "pyflakes is not installed (apt-get install pyflakes3)"; return 1; }
  git ls-files -z '*.py' | xargs -0 "$pyflakes" && echo "pyflakes: no finding"
}

# mypy with the [tool.mypy] configuration of pyproject.toml (what it checks, tools/ and
# tests/tools/, and why is written there), found in the repository root; any error fails.
python_types() {
  command -v mypy >/dev/null 2>&1 ||
    { echo "mypy is not installed (apt-get install mypy)"; return 1; }
  mypy --version && mypy
}

student_release() {
  rm -rf build/student-release &&
    tools/export_student_release.sh --verify build/student-release
}

check "format check" tools/format_check.sh
check "license headers (SPDX-License-Identifier: BSD-3-Clause in every source file)" python3 -m tools.spdx_headers --check
check "workflows and shell scripts (actionlint, shellcheck, grade.yml job graph, links)" tools/ci/lint_workflows.sh
check "Python lint (pyflakes on tools/ and tests/)" python_lint
check "Python types (mypy on tools/ and tests/tools/, pyproject.toml)" python_types
check "skeleton check" python3 -m tools.skeleton_check
check "stub audit (CPU-graded tests)" python3 -m tools.stub_audit --cpu-only -j "$jobs"
check "handouts (commands on build/ci-student, paths, reference numbers, figures, questions)" python3 -m tools.handout_check --build-dir build/ci-student
check "known-wrong submissions (no GPU)" known_wrong_cpu
check "verdicts in any order and alone (CPU tests of the solutions and the known-wrong variants)" python3 -m tools.verdict_order_check --build-dir build/ci --cpu-only -j "$jobs"
check "contract table (every promise of a lab header names the test that checks it)" python3 -m tools.contract_check
check "measurement channel and CMake rules" sh -c 'ctest --test-dir build/ci -R "^cudalab\." --test-output-size-passed 1024 --no-tests=error --output-junit channel-junit.xml >/dev/null && python3 -m tools.scoreboard --build-dir build/ci --junit build/ci/channel-junit.xml --json build/ci/channel-scores.json --markdown build/ci/channel-scores.md --quiet --expect-measurement cudalab.GivenChannelCpu.MeasurementAfterLongOutputReachesTheScoreboard:after_long_output && python3 -m tools.ci.check_channel_scores build/ci/channel-scores.json'
check "declared tests and points (tests/grading.json) match the graders" sh -c 'python3 -m tools.scoreboard --build-dir build/ci --write-declared build/ci/grading.json >/dev/null && diff -u tests/grading.json build/ci/grading.json && echo "tests/grading.json is current"'
check "student release" student_release

echo
if [ "${#failed[@]}" -gt 0 ]; then
  echo "ci_checks: FAILED: ${failed[*]}"
  exit 1
fi
echo "ci_checks: all honesty checks passed"
