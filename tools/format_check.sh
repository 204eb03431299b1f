#!/usr/bin/env bash
# Fails when a tracked C++/CUDA source differs from .clang-format (prints the offenders).
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
if [ "${#bad[@]}" -gt 0 ]; then
  echo "format check: ${#bad[@]} file(s) differ from .clang-format ($(clang-format --version)):"
  printf '  %s\n' "${bad[@]}"
  echo "fix with: tools/format_check.sh --fix"
  exit 1
fi
echo "format check: ${#files[@]} files match .clang-format"
