#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Fails when a tracked C++/CUDA source, or a file as a variant patch of
# tests/labNN_topic/{wrong,right} leaves it, differs from .clang-format (prints the offenders).
# Usage: tools/format_check.sh [--fix]
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.cu' '*.cuh' '*.cpp' '*.hpp' '*.h')
if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${files[@]}"
  exit 0
fi
if ! command -v clang-format >/dev/null 2>&1; then
  echo "format check: clang-format not found" >&2
  exit 1
fi
bad=()
for f in "${files[@]}"; do
  if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then bad+=("$f"); fi
done
# The variants (tests/labNN_topic/{wrong,right}: patches of solutions/) as they build: their patched
# files, written under build/ so that clang-format finds this checkout's .clang-format.
mapfile -t patches < <(git ls-files 'tests/lab*/wrong/*.patch' 'tests/lab*/right/*.patch')
if [ "${#patches[@]}" -gt 0 ] && [ -d solutions ]; then
  mkdir -p build
  scratch=$(mktemp -d build/format-variants.XXXXXX)
  trap 'rm -rf "$scratch"' EXIT
  for p in "${patches[@]}"; do
    d="$scratch/${p%.patch}"
    if ! python3 -m tools.variant_patches apply "$p" "$d" >/dev/null; then
      bad+=("$p (does not apply)")
      continue
    fi
    for f in "$d"/*; do
      if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then bad+=("$p (${f##*/})"); fi
    done
  done
fi
if [ "${#bad[@]}" -gt 0 ]; then
  echo "format check: ${#bad[@]} file(s) differ from .clang-format ($(clang-format --version)):"
  printf '  %s\n' "${bad[@]}"
  echo "fix with: tools/format_check.sh --fix"
  exit 1
fi
echo "format check: ${#files[@]} files and ${#patches[@]} variant patches match .clang-format"
