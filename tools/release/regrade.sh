#!/usr/bin/env bash
# The grade that counts: grades one student submission with the instructor's own copy of the
# course, the way grade.yml does it, on a machine the instructor controls (a GPU machine
# grades everything; without a GPU the GPU tests are skipped).
#
#   tools/release/regrade.sh [--course DIR] [--ref COMMIT] [--preset student|ci-student]
#                            [--out DIR] <submission: a git URL or a local checkout>
#
#   --course DIR   the course release at the pinned tag or commit (default: this checkout;
#                  an exported release or the instructor repository both work)
#   --ref COMMIT   the submission's commit to grade (e.g. the last one before the deadline;
#                  default: its default branch)
#   --preset P     student (default: builds for the GPU here) or ci-student (no GPU, sm_90)
#   --out DIR      where the copy is built and scored (default: a new folder under /tmp)
#
# Only the submission's lab files (SOURCES and answers.txt of each lab,
# tools/release/take_submission.py) are used; CUDALAB_SPEEDUP_SCALE is 1, CUDALAB_SEED is
# unset, warnings are not errors. Prints the scoreboard and the path of scores.json.
set -euo pipefail

die() { echo "regrade: $*" >&2; exit 2; }
here=$(cd "$(dirname "$0")/../.." && pwd)
course=$here
ref=""
preset=student
out=""
submission=""
while [ $# -gt 0 ]; do
  case "$1" in
    --course) course=${2:?}; shift ;;
    --ref) ref=${2:?}; shift ;;
    --preset) preset=${2:?}; shift ;;
    --out) out=${2:?}; shift ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) [ -z "$submission" ] || die "only one submission"; submission=$1 ;;
  esac
  shift
done
[ -n "$submission" ] || die "usage: tools/release/regrade.sh [options] <submission URL or folder>"
case "$preset" in student|ci-student) ;; *) die "--preset must be student or ci-student" ;; esac
[ -f "$course/tools/release/take_submission.py" ] || die "$course has no tools/release/take_submission.py"
[ -n "$out" ] || out=$(mktemp -d /tmp/cudalab-regrade.XXXXXX)
mkdir -p "$out"
[ -z "$(ls -A "$out")" ] || die "$out is not empty"

# The course: only the files git tracks when it is a checkout (no build trees, no leftovers).
mkdir "$out/course"
if git -C "$course" rev-parse --git-dir >/dev/null 2>&1; then
  git -C "$course" ls-files -z | (cd "$course" && tar --null -T - -cf -) | tar -C "$out/course" -xf -
else
  (cd "$course" && tar --exclude='./build*' -cf - .) | tar -C "$out/course" -xf -
fi
# The submission, at the commit asked for.
git clone -q "$submission" "$out/submission"
if [ -n "$ref" ]; then
  git -C "$out/submission" -c advice.detachedHead=false checkout -q "$ref"
fi
echo "regrade: submission $(git -C "$out/submission" rev-parse HEAD) with the course at $course"

python3 "$out/course/tools/release/take_submission.py" --submission "$out/submission" \
  --course "$out/course"
cd "$out/course"
unset CUDALAB_SEED
export CUDALAB_SPEEDUP_SCALE=1
cmake --preset "$preset" -DCUDALAB_WARNINGS_AS_ERRORS=OFF -DCUDALAB_BUILD_DOCS=OFF >"$out/configure.log" 2>&1 ||
  die "the course does not configure (see $out/configure.log)"
cmake --build --preset "$preset" -- -k 0 >"$out/build.log" 2>&1 ||
  echo "regrade: some targets did not compile (see $out/build.log); their tests count as errors"
spec=()
if [ "$preset" = student ] && command -v nvidia-smi >/dev/null 2>&1; then
  python3 tools/gpu_resources.py -o "$out/gpus.json" && spec=(--resource-spec-file "$out/gpus.json")
fi
rc=0
ctest --preset "$preset" "${spec[@]}" >"$out/ctest.log" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 8 ] || echo "regrade: ctest exited with $rc (see $out/ctest.log)"
python3 tools/scoreboard.py --build-dir "build/$preset"
gpu_grading=()
[ "$preset" = student ] && gpu_grading=(--gpu-grading)
python3 tools/release/classroom_results.py report "${gpu_grading[@]}" \
  --scores "build/$preset/scores.json" --points tools/release/points.json
echo "regrade: scores in $out/course/build/$preset/scores.json"
