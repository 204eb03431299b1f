# SPDX-License-Identifier: BSD-3-Clause
"""cudalabs grading manifest: every test of a build tree with its lab, labels and points.

    python3 -m tools.grading_manifest [--build-dir build/solution] [--check] [--json FILE]

What it reads (nothing else; Python 3 standard library):
  * `ctest --show-only=json-v1` of the build tree: the tests CMake registered, each with its
    labels, timeout, RUN_SERIAL and GPU resource (cmake/CudalabGrading.cmake gives them from
    the suite's name ending);
  * <build-dir>/cudalab_labs.json, written by CMake at configure time: the source tree, the
    suite-ending rules, the labs (folders, SOURCES, GIVEN, DEMO) and the graders (label,
    prefix, whether graded);
  * each lab's declaration, tests/labNN_topic/objectives.json of the source tree: its
    objectives grouped by the technique they grade, each group with its points and why:
        {"techniques": {
           "tiled": {"points": 70, "why": "The lesson: ...",
                     "objectives": {"TiledGpu": 30, "TiledPerf": 40}},   # suite: points
           "lab":   {"points": 30, "why": "The demo and the questions.",
                     "objectives": {"DemoGpu": 10, "QuestionsCpu": 20}}},
         "helpers": {"SmallTiledGpu": "what it feeds"}}          # suites that earn nothing
    An objective is a graded suite's base name (every instantiation of a parameterized suite
    is one objective); within an objective every test counts the same. A technique is a name
    of the lab's technique table (the first string of each row of kTechniques[] in the lab's
    header), the stem of one of its SOURCES (a lesson part, one technique per file), or one of
    SHARED_TECHNIQUES for what spans techniques. A helper suite exists only to feed other
    tests (the small shapes a sanitizer or profiler test re-runs under its tool): its tests
    are not graded.

The rules a declaration must follow (each break is a problem naming the lab, the suite and the
file; --check exits 1 on any): it is valid JSON of that form, its points are non-negative
integers, each technique's objectives add up to its points and the techniques' points to 100,
each technique says why in a sentence or two, an objective sits in one technique only, a
technique is one the lab has (when its folder can be read), and it names every graded suite
the grader lists (as an objective or a helper) and no suite the grader lacks. Labs whose
grader is not built are checked for form only.

--check prints the problems (the instructor CI runs it through the scoreboard's
--write-declared); --json writes the manifest (tools/model.py: Manifest). tools/scoreboard.py,
tools/release/grade_submission.py and the instructors' stub audit call load_manifest().
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter, OrderedDict
from pathlib import Path

from .cxx_source import table_names
from .model import (LAB_POINTS, GraderRecord, LabRecord, Manifest, ManifestObjective,
                    ManifestTest, ModelError, SuiteRules, TechniqueDeclared)

RECORD = "cudalab_labs.json"
DECLARATION = "objectives.json"
# Technique keys of every lab, for what spans its techniques: "speed", the speed verdicts that
# time every technique at once; "lab", the demo, the handout's questions and the checks over
# every kernel (sanitizers, index ranges).
SHARED_TECHNIQUES = ("speed", "lab")
_TECHNIQUE = re.compile(r"^[a-z][a-z0-9_]*$")
_LAB_LABEL = re.compile(r"^lab\d\d$")
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


class ManifestError(Exception):
    """The build tree cannot be read (not configured, ctest failed): one line, exit 2."""


def suite_base(suite: str) -> str:
    """The base name of "Inst/Suite/3": the last part that is not a type index."""
    base = suite
    for part in suite.split("/"):
        if not part.isdigit():
            base = part
    return base


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------
def read_record(build_dir: Path) -> dict:
    """<build-dir>/cudalab_labs.json (cmake/CudalabGrading.cmake, configure time)."""
    path = build_dir / RECORD
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ManifestError(f"{path} not found: configure the tree with this version of the "
                            f"repository (cmake --preset <name>)") from None
    except ValueError as e:
        raise ManifestError(f"{path} is not valid JSON: {e}") from None


def ctest_tests(build_dir: Path, ctest: str = "ctest") -> list[dict]:
    """The tests of `ctest --show-only=json-v1`, each {"name", "command", "properties": {}}."""
    try:
        proc = subprocess.run([ctest, "--test-dir", str(build_dir), "--show-only=json-v1"],
                              capture_output=True, text=True, check=False, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ManifestError(f"cannot list the tests of {build_dir} with {ctest}: {e}") from None
    if proc.returncode != 0:
        raise ManifestError(f"{ctest} --show-only=json-v1 failed in {build_dir} "
                            f"(exit {proc.returncode}): {proc.stderr.strip()[:400]}")
    try:
        data = json.loads(proc.stdout)
    except ValueError as e:
        raise ManifestError(f"{ctest} --show-only=json-v1 printed no JSON: {e}") from None
    return parse_ctest_json(data)


def parse_ctest_json(data: dict) -> list[dict]:
    """The tests of a json-v1 document, properties as a dict."""
    return [{"name": t["name"], "command": t.get("command") or [],
             "properties": {p["name"]: p.get("value") for p in t.get("properties", [])}}
            for t in data.get("tests", [])]


def technique_names(source_dir: Path, lab_info: LabRecord | None) -> list[str] | None:
    """The techniques a lab's declaration may name: SHARED_TECHNIQUES, the names of the lab's
    technique table (kTechniques[] in its headers) and the stems of its SOURCES; None when the
    lab's folder is not known or not there (nothing to check against)."""
    if not lab_info or not lab_info.folder:
        return None
    folder = source_dir / lab_info.folder
    if not folder.is_dir():
        return None
    names = set(SHARED_TECHNIQUES)
    names.update(Path(f).name.split(".")[0] for f in lab_info.sources)
    names.update(table_names(folder))
    return sorted(names)


def _points_problem(points: object) -> bool:
    return isinstance(points, bool) or not isinstance(points, int) or points < 0


def read_declaration(path: Path, lab: str, shown: str | None = None,
                     names: list[str] | None = None) -> tuple[dict | None, list[str]]:
    """A lab's objectives.json: ({"objectives": {name: points}, "technique_of": {name:
    technique}, "techniques": {technique: TechniqueDeclared}, "helpers": {name: why}},
    problems naming it as @p shown). @p names: the techniques the lab has (technique_names()),
    None to take any. None when it cannot be used at all."""
    where = shown or str(path)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None, [f"{lab}: no declaration {where}: a lab declares its objectives and their "
                      f"points there (docs/adding-a-lab.md)"]
    except ValueError as e:
        return None, [f"{lab}: {where} is not valid JSON: {e}"]
    if not isinstance(raw, dict) or not isinstance(raw.get("techniques"), dict):
        return None, [f"{lab}: {where} has no \"techniques\" object (technique: points, why, "
                      f"objectives)"]
    problems = []
    extra = sorted(set(raw) - {"techniques", "helpers"})
    if extra:
        problems.append(f"{lab}: {where}: unknown key(s) {', '.join(extra)} (only "
                        f"\"techniques\" and \"helpers\")")
    helpers = raw.get("helpers", {})
    if not isinstance(helpers, dict):
        problems.append(f"{lab}: {where}: \"helpers\" is not an object (suite: what it feeds)")
        helpers = {}
    objectives: dict[str, int] = {}
    technique_of: dict[str, str] = {}
    techniques: dict[str, TechniqueDeclared] = {}
    for tname, group in raw["techniques"].items():
        at = f"{lab}: {where}: technique {tname}"
        if not _TECHNIQUE.match(tname):
            problems.append(f"{at}: not a technique name (lower case, digits, _)")
            continue
        if names is not None and tname not in names:
            problems.append(f"{at} is not one of the lab's: {', '.join(names)} (its technique "
                            f"table, its SOURCES' stems, {', '.join(SHARED_TECHNIQUES)})")
        if not isinstance(group, dict) or not isinstance(group.get("objectives"), dict):
            problems.append(f"{at}: not an object with \"points\", \"why\" and "
                            f"\"objectives\" (suite: points)")
            continue
        unknown = sorted(set(group) - {"points", "why", "objectives"})
        if unknown:
            problems.append(f"{at}: unknown key(s) {', '.join(unknown)}")
        points, why = group.get("points"), group.get("why")
        if _points_problem(points):
            problems.append(f"{at} has points {points!r}, not a non-negative integer")
            points = 0
        if not isinstance(why, str) or not why.strip():
            problems.append(f"{at} does not say why it has its points (\"why\": a sentence "
                            f"or two)")
            why = ""
        techniques[tname] = TechniqueDeclared(int(points or 0), why)
        total = 0
        for name, opoints in group["objectives"].items():
            if not _NAME.match(name):
                problems.append(f"{at}: objective '{name}' is not a suite base name")
            elif _points_problem(opoints):
                problems.append(f"{at}: objective {name} has points {opoints!r}, not a "
                                f"non-negative integer")
            elif name in technique_of:
                problems.append(f"{lab}: {where}: objective {name} is in the techniques "
                                f"{technique_of[name]} and {tname}: an objective grades one")
            else:
                objectives[name], technique_of[name] = opoints, tname
                total += opoints
        if total != points:
            problems.append(f"{at}: its objectives' points add up to {total}, not its points "
                            f"{points}")
    for name in helpers:
        if name in objectives:
            problems.append(f"{lab}: {where}: {name} is both an objective and a helper suite")
    total = sum(t.points for t in techniques.values())
    if total != LAB_POINTS:
        problems.append(f"{lab}: {where}: the techniques' points add up to {total}, not "
                        f"{LAB_POINTS}")
    return {"objectives": objectives, "technique_of": technique_of, "techniques": techniques,
            "helpers": {str(k): str(v) for k, v in helpers.items() if k not in objectives}}, \
        problems


def declaration_path(source_dir: Path, lab: str, lab_info: LabRecord | None) -> Path:
    """tests/<lab folder>/objectives.json: from the lab's record, else the one tests/<lab>_*/."""
    if lab_info and lab_info.grading_folder:
        return source_dir / lab_info.grading_folder / DECLARATION
    found = sorted((source_dir / "tests").glob(f"{lab}_*/{DECLARATION}"))
    return found[0] if len(found) == 1 else source_dir / "tests" / f"{lab}_<topic>" / DECLARATION


# ---------------------------------------------------------------------------
# The manifest
# ---------------------------------------------------------------------------
def read_rules(record: dict) -> SuiteRules:
    """The suite-ending rules of a record (read_record()); ManifestError when malformed."""
    try:
        return SuiteRules.from_json(record.get("rules", {}), f"{RECORD}: rules")
    except ModelError as e:
        raise ManifestError(str(e)) from None


def suite_ending(rules: SuiteRules, suite: str) -> str:
    """The ending of @p suite ("Inst/TiledGpu/2" -> "Gpu") by the build's rule table
    (read_rules()), or "" when no rule applies."""
    rule = rules.rule_of(suite_base(suite))
    return rule.ending if rule else ""


def build_manifest(record: dict, tests: list[dict], source_dir: Path | None = None) -> Manifest:
    """The manifest of a build from its record (read_record(); its rules, labs and graders
    typed: SuiteRules, LabRecord, GraderRecord; ModelError when malformed), its CTest tests
    and the labs' declarations (tools/model.py: Manifest, its ManifestTests,
    ManifestObjectives and TechniqueDeclared)."""
    source_dir = Path(source_dir) if source_dir else Path(record.get("source_dir", "."))
    # The manifest's rules: the record's, with the points of a lab.
    rules = SuiteRules.from_json(dict(record.get("rules", {}), lab_points=LAB_POINTS),
                                 f"{RECORD}: rules")
    labs = OrderedDict((lab.lab, lab) for lab in (
        LabRecord.from_json(x, f"{RECORD}: labs[{i}]")
        for i, x in enumerate(record.get("labs", []))))
    graders = [GraderRecord.from_json(g, f"{RECORD}: graders[{i}]")
               for i, g in enumerate(record.get("graders", []))]
    not_built = {g.prefix + "NOT_BUILT." + g.target: g.target for g in graders}
    missing = [not_built[t["name"]] for t in tests if t["name"] in not_built]

    # The graded labs and their declarations.
    graded_labs = [g.lab for g in graders if g.graded]
    decls, paths, problems = {}, {}, []
    for lab in sorted(set(graded_labs)):
        path = declaration_path(source_dir, lab, labs.get(lab))
        paths[lab] = str(path.relative_to(source_dir)) if path.is_relative_to(source_dir) \
            else str(path)
        decl, why = read_declaration(path, lab, paths[lab],
                                     technique_names(source_dir, labs.get(lab)))
        problems += why
        decls[lab] = decl or {"objectives": {}, "technique_of": {}, "techniques": {},
                              "helpers": {}}

    out: OrderedDict[str, ManifestTest] = OrderedDict()
    for t in tests:
        name, props = t["name"], t["properties"]
        if name in not_built or name.endswith(".@batch"):
            continue
        labels = list(props.get("LABELS") or [])
        # Its grader (the longest prefix of a grader of its label), else a test registered
        # directly (cudalab_add_rule_test): <label>.<Suite>.<Case>.
        owner = max((g for g in graders if name.startswith(g.prefix) and g.lab in labels),
                    key=lambda g: len(g.prefix), default=None)
        if owner is not None:
            lab, rest, grader_graded = owner.lab, name[len(owner.prefix):], owner.graded
        else:
            lab, _, rest = name.partition(".")
            grader_graded = True
            if lab not in labels:
                continue  # not a test of the grading rules (known-wrong variants, ...)
        suite, _, case = rest.partition(".")
        base = suite_base(suite)
        if not case or rules.rule_of(base) is None:
            continue
        given = "given" in labels
        graded = bool(grader_graded and _LAB_LABEL.match(lab) and not given)
        helper = graded and base in decls.get(lab, {}).get("helpers", {})
        graded = graded and not helper
        timeout = props.get("TIMEOUT")
        if isinstance(timeout, float) and timeout.is_integer():
            timeout = int(timeout)
        cmd = t["command"]
        out[name] = ManifestTest(
            name, lab, suite, case, labels, timeout, bool(props.get("RUN_SERIAL")),
            bool(props.get("RESOURCE_GROUPS")), given, helper, graded,
            base if graded else None,
            "gtest" if any(str(a).startswith("--gtest_filter=") for a in cmd) else "cmake")

    # Objectives: the declared points; the tests of the build.
    counts = Counter((t.lab, t.objective) for t in out.values() if t.graded)
    seen_helpers = {(t.lab, suite_base(t.suite)) for t in out.values() if t.helper}
    objectives: dict[str, dict[str, ManifestObjective]] = {}
    for lab in sorted(set(graded_labs)):
        decl = decls[lab]
        objs = {o: ManifestObjective(p, counts.get((lab, o), 0), decl["technique_of"][o])
                for o, p in decl["objectives"].items()}
        built = any(g.lab == lab and g.graded and g.target not in missing for g in graders)
        for (tlab, o), n in sorted(counts.items()):
            if tlab == lab and o not in objs:
                objs[o] = ManifestObjective(0, n, None)
                problems.append(f"{lab}: the grader lists the graded suite {o} but "
                                f"{paths[lab]} does not declare it: add it to \"objectives\" "
                                f"with its points, or to \"helpers\" if it only feeds other tests")
        if built:
            for o in decl["objectives"]:
                if not counts.get((lab, o)):
                    problems.append(f"{lab}: {paths[lab]} declares the objective {o}, which the "
                                    f"grader does not list")
            for h in decl["helpers"]:
                if (lab, h) not in seen_helpers:
                    problems.append(f"{lab}: {paths[lab]} declares the helper suite {h}, which "
                                    f"the grader does not list")
        objectives[lab] = {k: objs[k] for k in sorted(objs)}

    return Manifest(
        str(source_dir), record.get("build_dir"), record.get("implementation"),
        record.get("test_launcher", []), rules, LAB_POINTS, labs, graders, out, objectives,
        {lab: d["techniques"] for lab, d in decls.items()},
        {lab: d["helpers"] for lab, d in decls.items() if d["helpers"]},
        paths, missing, problems)


def load_manifest(build_dir: Path, ctest: str = "ctest") -> Manifest:
    """The manifest of a configured (and possibly partly built) build tree."""
    build_dir = Path(build_dir)
    record = read_record(build_dir)
    try:
        return build_manifest(record, ctest_tests(build_dir, ctest))
    except ModelError as e:  # a record of another version of the repository
        raise ManifestError(f"{build_dir}: {e}: configure the tree with this version of the "
                            f"repository") from None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python3 -m tools.grading_manifest",
        description="The grading manifest of a build tree: its tests (ctest --show-only="
                    "json-v1), the labs' declared objectives and points "
                    "(tests/labNN_topic/objectives.json) and CMake's record (cudalab_labs.json).")
    ap.add_argument("--build-dir", type=Path, default=Path("build/student"),
                    help="the build tree (default: build/student)")
    ap.add_argument("--json", type=Path, metavar="FILE", help="write the manifest here")
    ap.add_argument("--ctest", default="ctest", help="the ctest to list the tests with")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 if a declaration does not fit the graders (printed one a line)")
    args = ap.parse_args(argv)
    manifest = load_manifest(args.build_dir, args.ctest)
    if args.json:
        args.json.write_text(json.dumps(manifest.to_json(), indent=1) + "\n", encoding="utf-8")
    for p in manifest.problems:
        print(f"grading_manifest: {p}", file=sys.stderr)
    if args.check:
        if manifest.problems:
            return 1
        labs = sorted(manifest.objectives)
        print(f"grading_manifest: the declarations of {len(labs)} lab(s) fit their graders "
              f"({', '.join(labs)})")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except ManifestError as e:
        print(f"grading_manifest: {e}", file=sys.stderr)
        sys.exit(2)
