#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Exports a student release of cudalabs: the git-tracked tree without the reference
# solutions, the known-wrong submissions and the instructor-only files.
#
#   tools/export_student_release.sh [--git] [--verify] [--grader OWNER/REPO@COMMIT] <dest>
#
#   <dest>     a folder that does not exist yet (or is empty)
#   --grader   the instructor repository holding .github/workflows/grade-reusable.yml (a copy
#              of tools/release/grade-reusable.yml) and its commit: the release's
#              .github/workflows/grade.yml calls it pinned there (default: $CUDALAB_GRADER;
#              without either the call keeps a placeholder and grading fails)
#   --git      make <dest> a git repository with one commit (a template repository)
#   --verify   then configure, build and grade the release there with the ci-student
#              presets (stubs: graded tests fail, GPU tests skip without a GPU) and print its
#              scoreboard, graded by the release's tests/grading.json (the lock: every graded
#              test and its points, which the release's grading reads too); fails if it does
#              not configure or build, or a test cannot run
#
# Files are taken from the working tree, but only those git tracks (untracked and ignored
# files never leave). Left out (instructor-only):
#   solutions/  tests/labNN_topic/wrong/, right/ (correct alternatives: solutions too) and attack/
#   cmake/CudalabWrong.cmake  docs/instructors.md  docs/threat-model.md  .ci/
#   tests/contracts.json (the contract table, read only by the instructors' contract check)
#   pyproject.toml (the instructor tools as an installable package, and their mypy settings;
#   the release's tools run in-tree, python3 -m tools.scoreboard)
#   .github/actionlint.yaml (the instructors' workflow lint)
#   docs/adding-a-lab.md (the conventions and checks for writing labs, which name solutions/,
#   the variants and the instructor tools: the release gets a short page saying where they
#   are, since the build's messages for course authors name it)
#   .github/workflows/ (the instructor CI; the release gets tools/release/grade.yml as
#   .github/workflows/grade.yml instead)  tools/ except the package's __init__.py files
#   (tools/ and tools/release/: the tools run as modules, python3 -m tools.scoreboard),
#   scoreboard.py (with the modules it is
#   made of, ctest_record.py, measurement_channel.py, ctest_run.py, scoring.py,
#   score_render.py and model.py, the typed model of the lock and the scores, and
#   grading_manifest.py, which it reads the build's tests and points with, and cxx_source.py,
#   which that reads the technique tables with), figures.py (charts of
#   the student's own run; with plot.py, diagrams.py and svg.py, which it draws with), gpu_resources.py, gpu-resources.json and the grading helpers
#   tools/release/*.py (not tools/release/classroom50/, the instructor's Classroom 50
#   autograder, nor tools/release/regrade.py, the instructor's regrade, which runs on the
#   instructor's checkout with tools/classroom/). (tools/bank_figures.py stays out: it holds lab
#   05's bank model.)
# In exported Markdown files, the lines from "<!-- instructor-only -->" to
# "<!-- /instructor-only -->" are removed. The release must have no dead relative link and
# none of its text files (Markdown, scripts and their help texts, workflows, CMake, sources)
# may name a tools/ path or a tools module it does not ship (tools/ci/check_links.py;
# mentions of missing .md files are printed as warnings).
set -euo pipefail

die() { echo "export_student_release: $*" >&2; exit 1; }

git_init=0
verify=0
dest=""
grader=${CUDALAB_GRADER:-}
placeholder='COURSE-ORG/cudalabs-grading/.github/workflows/grade-reusable.yml@0000000000000000000000000000000000000000'
while [ $# -gt 0 ]; do
  case "$1" in
    --git) git_init=1 ;;
    --verify) verify=1 ;;
    --grader) grader=${2:?--grader needs OWNER/REPO@COMMIT}; shift ;;
    -h|--help) sed -n '2,47p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) [ -z "$dest" ] || die "only one destination, got '$dest' and '$1'"; dest=$1 ;;
  esac
  shift
done
[ -n "$dest" ] || die "usage: tools/export_student_release.sh [--git] [--verify] [--grader OWNER/REPO@COMMIT] <dest>"
if [ -n "$grader" ] && ! [[ "$grader" =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+@[0-9a-f]{40}$ ]]; then
  die "--grader must be OWNER/REPO@COMMIT with a 40-hex commit (a tag can be moved), got '$grader'"
fi

here=$(cd "$(dirname "$0")" && pwd)
root=$(git -C "$here" rev-parse --show-toplevel 2>/dev/null) ||
  die "needs a git checkout of cudalabs (the release is built from the files git tracks)"
if [ ! -f "$root/CMakePresets.json" ] || [ ! -d "$root/labs" ]; then die "$root is not a cudalabs checkout"; fi

if [ -e "$dest" ]; then
  [ -d "$dest" ] || die "$dest exists and is not a folder"
  [ -z "$(ls -A "$dest")" ] || die "$dest is not empty; remove it or choose another folder"
fi
dest=$(realpath -m "$dest")
case "$dest/" in
  "$root"/) die "the destination is the checkout itself" ;;
  "$root"/*) # Inside the checkout: only in an ignored folder (e.g. build/...), never in the tree.
    git -C "$root" check-ignore -q "$dest/.probe" || die "$dest is inside the checkout and not ignored by git" ;;
esac
mkdir -p "$dest"

# Instructor-only paths (prefixes match folders).
is_excluded() {
  case "$1" in
    solutions/*|tests/lab*/wrong/*|tests/lab*/right/*|tests/lab*/attack/*|tests/tools/*) return 0 ;;
    .ci/*|.github/workflows/*|.github/actionlint.yaml|tests/contracts.json) return 0 ;;
    cmake/CudalabWrong.cmake|cmake/CudalabExpectVerdict.cmake|docs/instructors.md) return 0 ;;
    docs/threat-model.md|docs/adding-a-lab.md) return 0 ;;
    pyproject.toml) return 0 ;;  # the instructor tools as a package to install, and their mypy
    tools/__init__.py) return 1 ;;  # the package tools (python3 -m tools.scoreboard)
    tools/scoreboard.py|tools/grading_manifest.py|tools/cxx_source.py|tools/figures.py|tools/plot.py|tools/diagrams.py|tools/svg.py) return 1 ;;
    tools/ctest_record.py|tools/measurement_channel.py|tools/ctest_run.py) return 1 ;;  # the scoreboard's modules
    tools/scoring.py|tools/score_render.py|tools/model.py) return 1 ;;
    tools/gpu_resources.py|tools/gpu-resources.json) return 1 ;;
    tools/release/classroom50/*) return 0 ;;  # the instructor's Classroom 50 autograder
    tools/release/regrade.py) return 0 ;;  # the instructor's regrade (uses tools/classroom/)
    tools/release/*.py) return 1 ;;  # grading helpers the workflow runs from the course copy (and __init__.py)
    tools/*) return 0 ;;
  esac
  return 1
}

list=$(mktemp)
trap 'rm -f "$list"' EXIT
count=0
while IFS= read -r -d '' f; do
  is_excluded "$f" && continue
  [ -e "$root/$f" ] || continue  # deleted in the working tree
  printf '%s\0' "$f" >>"$list"
  count=$((count + 1))
done < <(git -C "$root" ls-files -z)
[ "$count" -gt 0 ] || die "no files to export"
tar -C "$root" --null -T "$list" -cf - | tar -C "$dest" -xf -

mkdir -p "$dest/.github/workflows"
cp "$root/tools/release/grade.yml" "$dest/.github/workflows/grade.yml"
grep -qF "$placeholder" "$dest/.github/workflows/grade.yml" ||
  die "internal error: tools/release/grade.yml does not call $placeholder"
if [ -n "$grader" ]; then
  sed -i "s#${placeholder}#${grader%@*}/.github/workflows/grade-reusable.yml@${grader#*@}#" \
    "$dest/.github/workflows/grade.yml"
else
  echo "export_student_release: WARNING: no --grader: .github/workflows/grade.yml calls the placeholder ${placeholder%%/*}/...; set it before students push"
fi

# docs/adding-a-lab.md stays instructor-only; the build's messages for course authors
# (cmake/CudalabGrading.cmake, tools/grading_manifest.py) name it, so the release says where it is.
cat >"$dest/docs/adding-a-lab.md" <<'EOF_ADDING'
# Adding or changing a lab

The conventions for writing and changing a lab (its files, grader, points and known-wrong
submissions) and the checks that enforce them are part of the course's instructor repository,
not of this release. To change how your labs are graded, ask your instructors.
EOF_ADDING

# Instructor-only passages of the Markdown files (e.g. README's "For instructors").
while IFS= read -r -d '' md; do
  sed -i '/<!-- instructor-only -->/,/<!-- \/instructor-only -->/d' "$md"
done < <(grep -rlZ --include='*.md' -e '<!-- instructor-only -->' "$dest" || true)

# The release must stand on its own: nothing instructor-only may remain, no dead link.
for p in solutions tests/tools docs/instructors.md docs/threat-model.md cmake/CudalabWrong.cmake \
  cmake/CudalabExpectVerdict.cmake tools/bank_figures.py tools/calibrate.py tools/skeleton_check.py \
  tools/stub_audit.py tools/variant_patches.py tools/gpu_validate.sh tools/release/regrade.py \
  tests/contracts.json .github/actionlint.yaml pyproject.toml; do
  [ ! -e "$dest/$p" ] || die "internal error: $p was exported"
done
! grep -q 'skeleton_check' "$dest/docs/adding-a-lab.md" ||
  die "internal error: docs/adding-a-lab.md was exported"
for p in "$dest"/tests/lab*/wrong "$dest"/tests/lab*/right "$dest"/tests/lab*/attack; do
  [ ! -e "$p" ] || die "internal error: ${p#"$dest"/} was exported"
done
PYTHONPATH=$root python3 -P -m tools.ci.check_links --quiet "$dest" ||
  die "the release has dead links or names tools it does not ship (above): fix them in the checkout"
rev=$(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)
echo "export_student_release: $count files of cudalabs $rev -> $dest"

if [ "$verify" -eq 1 ]; then
  echo "export_student_release: verifying: configure, build and grade with the ci-student presets"
  cd "$dest"
  cmake --workflow --preset ci-student
  rc=0
  ctest --preset ci-student >build/ci-student/ctest.log 2>&1 || rc=$?
  tail -n 3 build/ci-student/ctest.log
  # ctest exits 8 when tests fail (the stubs fail their graded tests); anything else is
  # an error of the release itself.
  [ "$rc" -eq 0 ] || [ "$rc" -eq 8 ] || die "ctest failed with exit code $rc in the release (see $dest/build/ci-student/ctest.log)"
  python3 -m tools.scoreboard --build-dir build/ci-student --strict \
    --json build/ci-student/scores.json --markdown build/ci-student/scores.md ||
    die "the scoreboard of the release reports a problem (above)"
  echo "export_student_release: the release configures, builds and grades"
fi

# Last, after --verify (build/ is ignored by the release's .gitignore).
if [ "$git_init" -eq 1 ]; then
  git -C "$dest" init -q
  git -C "$dest" add -A
  git -C "$dest" -c user.name="cudalabs release" -c user.email="cudalabs@invalid" \
    commit -q -m "cudalabs student release ($rev)"
  echo "export_student_release: $dest is a git repository with one commit"
fi
