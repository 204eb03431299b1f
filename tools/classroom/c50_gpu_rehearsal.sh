#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Rehearses one Classroom 50 grade of one lab on this machine, as the grade job on the
# course's GPU runner does it, and checks everything it leaves: Classroom 50's own runner.py
# fetches the bundle (autograder.py, cudalab.json) from a Pages site on the loopback, runs
# the course's autograder on a submission whose lab files are the reference solutions, and
# writes result.json, release-body.md, the step outputs and the release assets. Needs no
# network: a GPU machine with the CUDA toolkit, cmake, ctest, git and python3 (or none of
# the GPU: GPU tests are then Skipped and the lab earns its CPU share only).
#
#   tools/classroom/c50_gpu_rehearsal.sh --runner-py RUNNER.py --solution-tree DIR
#       --student-tree DIR --lab labNN --out DIR [--schema RESULT_SCHEMA.json]
#       [--expect full|graded] [--mode individual|group|team] [--test-user USER|none]
#
# --runner-py      Classroom 50's cli/gh-teacher/skeleton/dotgithub/scripts/runner.py at the
#                  commit you pin, fetched beforehand (it is not part of this repository).
# --solution-tree  the instructor checkout: the reference solutions (solutions/<lab>/) become
#                  the submission's lab files, and its tools/release/classroom50/autograder.py
#                  is the bundle's. Configured or built or not: the grade builds its own copy.
# --student-tree   the course release as a git repository at its commit
#                  (tools/export_student_release.sh --git), what the runner image has in
#                  /opt/cudalabs-course; the submission is a clone of it.
# --lab            the one lab to grade (cudalab.json "labs").
# --schema         Classroom 50's schemas/result-v1.schema.json; result.json is checked
#                  against it (tools/classroom/json_schema_check.py) besides the runner's own
#                  validation and tools/release/autograde.py's rules.
# --test-user      who runs the tests (cudalab.json test_user): default the driver's, the
#                  user cudalab-test when run as root (created if missing), as in the runner
#                  image; none runs them as yourself.
# --expect         full: the lab earns every point but those of parts this GPU cannot run
#                  (default when nvidia-smi lists a GPU); graded: the lab was graded (built,
#                  no test that could not run), whatever its points (default without a GPU).
#
# Fails (exit 1) when anything is missing or wrong: runner.py's exit status or status=error,
# no result.json or one that breaks the schema or the v1 rules, not exactly one entry for the
# lab, the lab not graded in this run, its grader not built, tests that could not run,
# intake flags or "needs review" on the reference solutions, points short of --expect, a
# release asset (scores.json, junit.xml, feedback.md) not staged. Exit 2: a usage error.
# Everything is kept in OUT (c50/ holds tools/classroom/c50_local_run.sh's outputs); the last
# lines say PASS or FAIL with the reasons.
set -euo pipefail

runner_py='' solution_tree='' student_tree='' lab='' out='' schema='' expect='' mode=individual
test_user=''
here=$(cd "$(dirname "$0")/../.." && pwd)
die() { echo "c50_gpu_rehearsal: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --runner-py) runner_py=${2:?}; shift ;;
    --solution-tree) solution_tree=${2:?}; shift ;;
    --student-tree) student_tree=${2:?}; shift ;;
    --lab) lab=${2:?}; shift ;;
    --out) out=${2:?}; shift ;;
    --schema) schema=${2:?}; shift ;;
    --expect) expect=${2:?}; shift ;;
    --mode) mode=${2:?}; shift ;;
    --test-user) test_user=${2:?}; shift ;;
    -h|--help) sed -n '2,40p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
  shift
done
[ -f "$runner_py" ] || die "--runner-py: no file '$runner_py' (Classroom 50's runner.py)"
[ -d "$solution_tree/solutions" ] || die "--solution-tree: '$solution_tree' has no solutions/"
[ -f "$solution_tree/tools/release/classroom50/autograder.py" ] ||
  die "--solution-tree: '$solution_tree' has no tools/release/classroom50/autograder.py"
[ -d "$student_tree/labs" ] || die "--student-tree: '$student_tree' is not a course release"
git -C "$student_tree" rev-parse --verify -q HEAD >/dev/null ||
  die "--student-tree: '$student_tree' is not a git repository with a commit (export it with tools/export_student_release.sh --git)"
[[ "$lab" =~ ^lab[0-9][0-9]$ ]] || die "--lab: labNN, got '$lab'"
compgen -G "$student_tree/labs/${lab}_*" >/dev/null || die "--lab: the course has no $lab"
compgen -G "$solution_tree/solutions/${lab}_*" >/dev/null || die "--lab: no solutions/${lab}_*"
[ -n "$out" ] || die "--out is required"
[ -z "$schema" ] || [ -f "$schema" ] || die "--schema: no file '$schema'"
for tool in python3 git cmake ctest; do
  command -v "$tool" >/dev/null || die "$tool is not on PATH"
done
gpus=0
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  gpus=$(nvidia-smi -L | grep -c '^GPU ' || true)
fi
[ -n "$expect" ] || { [ "$gpus" -gt 0 ] && expect=full || expect=graded; }
case "$expect" in full|graded) ;; *) die "--expect: full or graded, got '$expect'" ;; esac
mkdir -p "$out"
out=$(cd "$out" && pwd)
solution_tree=$(cd "$solution_tree" && pwd)
student_tree=$(cd "$student_tree" && pwd)
runner_py=$(realpath "$runner_py")
echo "c50_gpu_rehearsal: $lab; $gpus GPU(s)$( [ "$gpus" -gt 0 ] && nvidia-smi --query-gpu=name,compute_cap --format=csv,noheader | head -n 1 | sed 's/^/: /'); nvcc: $(command -v nvcc || echo none); expect $expect"
echo "c50_gpu_rehearsal: runner.py $runner_py (sha256 $(sha256sum "$runner_py" | cut -c1-16)...)"

# The grade, as c50_local_run.sh runs it (the autograder from the solution tree).
start=$(date +%s)
set +e
"$here/tools/classroom/c50_local_run.sh" --runner-py "$runner_py" --course "$student_tree" \
  --autograder "$solution_tree/tools/release/classroom50/autograder.py" \
  --submission "$out/submission" --solutions "$solution_tree" --labs "$lab" --mode "$mode" \
  ${test_user:+--test-user "$test_user"} \
  --out "$out/c50" 2>&1 | tee "$out/c50_local_run.log"
rc=${PIPESTATUS[0]}
set -e
echo "c50_gpu_rehearsal: the grade took $(( $(date +%s) - start )) s; runner.py exited $rc"

# The checks, with this checkout's tools (its root alone on the module search path).
PYTHONPATH=$here python3 -P - "$out" "$lab" "$expect" "$rc" "$schema" <<'EOF'
import json, os, subprocess, sys
from pathlib import Path

from tools.release import autograde  # the v1 rules the course's autograder writes by

out, lab, expect, rc, schema = sys.argv[1:]
c50, problems = Path(out) / "c50", []

if rc != "0":
    problems.append(f"runner.py exited {rc} (it exits 0 for every grading outcome)")
outputs = dict(line.split("=", 1) for line in (c50 / "github-output").read_text().splitlines()
               if "=" in line) if (c50 / "github-output").is_file() else {}
status = outputs.get("status", "")
if status not in ("success", "failure"):
    problems.append(f"runner.py's status output is {status!r} (error: the runner rejected the "
                    "grade; runner.log says why)")
doc = None
try:
    doc = json.loads((c50 / "result.json").read_text())
except (OSError, ValueError) as e:
    problems.append(f"no readable result.json: {e}")
if doc is not None:
    for e in autograde.validate_result(doc):
        problems.append(f"result.json breaks the v1 rules: {e}")
    if schema:
        check = subprocess.run([sys.executable, "-P", "-m", "tools.classroom.json_schema_check",
                                schema, str(c50 / "result.json")], capture_output=True, text=True,
                               env=os.environ)
        print(check.stdout + check.stderr, end="")
        if check.returncode != 0:
            problems.append(f"result.json does not pass {schema} (above)")
    else:
        print("c50_gpu_rehearsal: no --schema: result.json checked by the runner and the v1 "
              "rules only")
    entries = doc.get("tests") or []
    mine = [t for t in entries if (t.get("cudalabs") or {}).get("lab") == lab]
    if len(entries) != 1 or len(mine) != 1:
        problems.append(f"result.json has {len(entries)} entries, {len(mine)} for {lab} "
                        "(want exactly one, for the lab)")
    for t in mine:
        c = t["cudalabs"]
        gone = sum(int(u.get("points") or 0) for u in c.get("unavailable") or [])
        print(f"c50_gpu_rehearsal: {t['test-name']}: {t['score']} / {t['max-score']} points "
              f"({c.get('passed')} of {c.get('tests')} tests passed, {c.get('failed')} failed, "
              f"{c.get('errors')} could not run; unavailable on this GPU: {gone} points); "
              f"GPU {c.get('gpu')}; {c.get('calibration') or 'no calibration'}")
        for f in c.get("failures") or []:
            print(f"  not passed: {f['test']}: {f['message']}")
        if not c.get("graded_in_this_run", False) or not c.get("grader_built", False):
            problems.append(f"{lab} was not graded in this run or its grader did not build")
        if c.get("errors"):
            problems.append(f"{c['errors']} test(s) of {lab} could not run")
        if c.get("flags") or c.get("needs_review"):
            problems.append(f"the reference solutions got intake flags or 'needs review': "
                            f"{c.get('flags')} {c.get('needs_review')}")
        if expect == "full" and t["score"] + gone < t["max-score"]:
            problems.append(f"the reference solutions earned {t['score']} of {t['max-score']} "
                            f"points ({gone} unavailable on this GPU)")
for name in ("scores.json", "junit.xml", "feedback.md"):
    if not (c50 / "runner-temp" / "classroom50-release-assets" / name).is_file():
        problems.append(f"release asset {name} was not staged")
body = c50 / "release-body.md"
if not body.is_file() or lab not in body.read_text():
    problems.append(f"release-body.md is missing or does not name {lab}")
for p in problems:
    print(f"c50_gpu_rehearsal: FAIL: {p}")
print(f"c50_gpu_rehearsal: {'FAIL' if problems else 'PASS'} ({lab}, expect {expect}, "
      f"status {status or 'none'}); everything is in {out}")
sys.exit(1 if problems else 0)
EOF
