#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs one submission through Classroom 50's own runner.py, as its grade job does, on this
# machine (a GPU runner, or the runner image), without GitHub: the Pages site that serves the
# autograder bundle is a web server on the loopback.
#
#   tools/classroom/c50_local_run.sh --runner-py RUNNER.py --course COURSE --submission DIR
#       --out DIR [--classroom gpu-fall] [--assignment cudalabs] [--login alice]
#       [--mode individual|group|team] [--solutions INSTRUCTOR_CHECKOUT] [--labs lab07,...]
#       [--autograder AUTOGRADER.py] [--test-user USER|none]
#
# RUNNER.py  Classroom 50's cli/gh-teacher/skeleton/dotgithub/scripts/runner.py, fetched from
#            github.com/foundation50/classroom50 at a commit you pin (this script does not
#            fetch it; it runs it as the grade job's "Grade details" step does).
# COURSE     the course release at its commit (tools/export_student_release.sh --git), what
#            the runner image has in /opt/cudalabs-course.
# DIR        the student's checkout (a git repository). With --solutions, DIR is made here:
#            a clone of COURSE whose lab files are the reference solutions of
#            INSTRUCTOR_CHECKOUT (every labs/<lab>/ file that solutions/<lab>/ has, and
#            answers.txt from solutions/<lab>/; with --labs, only those labs').
# --labs     grade only these labs (cudalab.json's "labs"); default every lab.
# --autograder  the bundle's autograder.py (default tools/release/classroom50/autograder.py
#            of this checkout).
# --test-user  cudalab.json's test_user (default: the driver's own, cudalab-test as root).
# It writes the bundle (<assignment>/autograder.py and cudalab.json) under OUT/pages, serves
# OUT/pages on 127.0.0.1, runs runner.py in DIR with the grade job's environment (the release
# assets of docs/instructors.md, "Classroom 50"), and prints the release body, the job
# summary, the step outputs and the staged release assets; OUT keeps all of them.
set -euo pipefail

runner_py='' course='' submission='' out='' solutions='' labs='' test_user=''
here=$(cd "$(dirname "$0")/../.." && pwd)
autograder=$here/tools/release/classroom50/autograder.py
classroom=gpu-fall assignment=cudalabs login=student mode=individual
die() { echo "c50_local_run: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --runner-py) runner_py=${2:?}; shift ;;
    --course) course=${2:?}; shift ;;
    --submission) submission=${2:?}; shift ;;
    --out) out=${2:?}; shift ;;
    --classroom) classroom=${2:?}; shift ;;
    --assignment) assignment=${2:?}; shift ;;
    --login) login=${2:?}; shift ;;
    --mode) mode=${2:?}; shift ;;
    --solutions) solutions=${2:?}; shift ;;
    --labs) labs=${2:?}; shift ;;
    --autograder) autograder=${2:?}; shift ;;
    --test-user) test_user=${2:?}; shift ;;
    -h|--help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
  shift
done
[ -f "$runner_py" ] || die "--runner-py: no file $runner_py (Classroom 50's runner.py)"
[ -f "$autograder" ] || die "--autograder: no file $autograder"
runner_py=$(realpath "$runner_py")
autograder=$(realpath "$autograder")
[ -d "$course/labs" ] || die "--course: $course is not a course release"
if [ -z "$submission" ] || [ -z "$out" ]; then die "--submission and --out are required"; fi
if [ -n "$labs" ] && ! [[ "$labs" =~ ^lab[0-9][0-9](,lab[0-9][0-9])*$ ]]; then
  die "--labs: labNN, comma-separated, got '$labs'"
fi
course=$(cd "$course" && pwd)
course_ref=$(git -C "$course" rev-parse HEAD)
mkdir -p "$out"
out=$(cd "$out" && pwd)

if [ -n "$solutions" ]; then
  [ -d "$solutions/solutions" ] || die "--solutions: $solutions has no solutions/"
  rm -rf "$submission"
  git clone -q "$course" "$submission"
  for d in "$solutions"/solutions/lab[0-9][0-9]_*/; do
    lab=$(basename "$d")
    if [ -n "$labs" ] && [[ ",$labs," != *",${lab:0:5},"* ]]; then continue; fi
    cp "$d"* "$submission/labs/$lab/"  # its SOURCES files and answers.txt
  done
  git -C "$submission" -c user.name=c50 -c user.email=c50@invalid commit -q -am \
    "reference solutions as the lab files"
fi
submission=$(cd "$submission" && pwd)
sha=$(git -C "$submission" rev-parse HEAD)

# The Pages site: <classroom>/autograders/<assignment>.tar.gz holding <assignment>/...
pages=$out/pages
bundle=$out/bundle/$assignment
rm -rf "$pages" "$out/bundle"
mkdir -p "$pages/$classroom/autograders" "$bundle"
cp "$autograder" "$bundle/autograder.py"
printf '{"course_dir": "%s", "course_ref": "%s", "preset": "student", "labs": "%s", "test_user": "%s"}\n' \
  "$course" "$course_ref" "$labs" "$test_user" >"$bundle/cudalab.json"
tar -czf "$pages/$classroom/autograders/$assignment.tar.gz" -C "$out/bundle" "$assignment"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 --directory "$pages" "$port" >"$out/pages.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
sleep 1

tag="submit/$(date -u +%Y-%m-%dT%H-%M-%SZ)-${sha:0:7}"
temp=$out/runner-temp
rm -rf "$temp"
mkdir -p "$temp"
: >"$out/step-summary.md"
: >"$out/github-output"
echo "c50_local_run: $tag of $submission with $runner_py (Pages: http://127.0.0.1:$port)"
set +e
(cd "$submission" &&
  env PAGES_BASE_URL="http://127.0.0.1:$port" CLASSROOM="$classroom" ASSIGNMENT="$assignment" \
    SUBMISSION_TAG="$tag" MODE="$mode" SECRET= ALLOWED_FILES='[]' \
    RELEASE_ASSETS='["cudalab-feedback/scores.json","cudalab-feedback/junit.xml","cudalab-feedback/feedback.md"]' \
    GITHUB_REPOSITORY="$classroom/$classroom-$assignment-$login" GITHUB_SHA="$sha" \
    GITHUB_ACTOR="$login" GITHUB_SERVER_URL=https://github.com GITHUB_REF=refs/heads/main \
    GITHUB_OUTPUT="$out/github-output" GITHUB_STEP_SUMMARY="$out/step-summary.md" \
    RUNNER_TEMP="$temp" no_proxy=127.0.0.1,localhost NO_PROXY=127.0.0.1,localhost \
    python3 "$runner_py") 2>&1 | tee "$out/runner.log"
rc=${PIPESTATUS[0]}
set -e

cp "$submission/result.json" "$submission/release-body.md" "$out/" 2>/dev/null || true
printf '\n==== release body (release-body.md) ====\n'
cat "$out/release-body.md" 2>/dev/null || echo "(none)"
printf '\n==== step outputs ====\n'
cat "$out/github-output"
printf '\n==== release assets (staged by runner.py) ====\n'
ls -l "$temp/classroom50-release-assets" 2>/dev/null || echo "(none)"
printf '\n==== result.json (first lines) ====\n'
head -c 1500 "$out/result.json" 2>/dev/null || echo "(none)"
echo
echo "c50_local_run: runner.py exited $rc; everything is in $out"
exit "$rc"
