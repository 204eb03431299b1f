# SPDX-License-Identifier: BSD-3-Clause
"""Keeps the test counts README.md states honest: each against the tests a build tree lists.

Every count of tests in README.md's prose (outside code) carries a tag right after it that says
which configuration it counts, and the sentence says it in words too:

    the `solution` preset registers 1076 tests<!-- tests: preset=solution -->

  preset=NAME     the configure preset whose options the count is for (CMakePresets.json), and
                  the test preset of that name, whose filter (e.g. sanitize's labels) applies;
                  the sentence must name the preset
  variants=on     with the known-wrong, correct and attack variants (-DCUDALAB_WRONG=ON; the
                  sentence must say CUDALAB_WRONG=ON); default off, as the presets configure
  label=REGEX     only tests with a label matching REGEX (as ctest -L)
  name=REGEX      only tests whose name matches REGEX (as ctest -R)

The expected number comes from `ctest --show-only=json-v1` of a built tree (listed from a copy
of its CTestTestfile.cmake files, tools/phase_times.py). A tree configured differently from
the count's preset still checks it where the difference is known: a tree with the variants
(the CI tree) checks counts without them by leaving out the tests named wrong.*, right.* and
attack.*; options that do not change which tests exist (CUDALAB_IMPL: student and solution
register the same graders; warnings, docs, GPU slots, perf per GPU, fail-fast, device debug,
the test launcher) are ignored. A count the tree cannot check (variants asked of a tree
without them, or another option that differs) is reported as unchecked, never as passed.

  python3 -m tools.readme_counts --build-dir build/ci [--readme README.md]
Exit 1 when a count is wrong, untagged or its sentence does not name its configuration.
"""
from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from . import phase_times

VARIANT_MODES = ("wrong", "right", "attack")
# CUDALAB_* options that change how tests run, not which tests are registered.
COUNT_NEUTRAL = {"CUDALAB_IMPL", "CUDALAB_WARNINGS_AS_ERRORS", "CUDALAB_BUILD_DOCS",
                 "CUDALAB_PERF_PER_GPU", "CUDALAB_GPU_LOCKS", "CUDALAB_GPU_SLOTS", "CUDALAB_GPU_COUNT",
                 "CUDALAB_DEVICE_DEBUG", "CUDALAB_TEST_LAUNCHER", "CUDALAB_WRONG_FAIL_FAST"}
TAG = re.compile(r"<!--\s*tests:(.*?)-->", re.S)
NUMBER = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+)(?!\w)")
COUNT = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)((?:\s+[A-Za-z][\w-]*){0,3}?)\s+tests?\b")


# Where a sentence starts: after . ! ? and a capital, or after an HTML comment other than a tag.
BOUNDARY = re.compile(r"(?:[.!?]\s+(?=[A-Z(`*<])|<!--(?!\s*tests:).*?-->\s*)")


class CountError(Exception):
    pass


@dataclass
class Count:
    number: int
    sentence: str
    line: int
    spec: dict = field(default_factory=dict)


@dataclass
class Result:
    count: Count
    expected: int | None = None
    problem: str | None = None      # a wrong count or a malformed statement: fails
    unchecked: str | None = None    # the tree cannot check it: reported


def _blank(text: str) -> str:
    """The text with fenced code blocks and inline code spans blanked (same length)."""
    out = []
    fence: str | None = None
    for line in text.split("\n"):
        m = re.match(r"^\s*(`{3,}|~{3,})", line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            out.append(" " * len(line))
            continue
        if m:
            fence = m.group(1)
            out.append(" " * len(line))
            continue
        out.append(re.sub(r"(`+)(.+?)\1", lambda s: " " * len(s.group(0)), line))
    return "\n".join(out)


def _sentence(text: str, raw: str, start: int, end: int) -> str:
    """The sentence (within its paragraph) around raw[start:end], tags removed: its bounds are
    found in text (raw with code blanked), its words taken from raw."""
    para_start = text.rfind("\n\n", 0, start)
    para_start = 0 if para_start < 0 else para_start + 2
    para_end = text.find("\n\n", end)
    para_end = len(text) if para_end < 0 else para_end
    left = text[para_start:start]
    cut = max((m.end() for m in BOUNDARY.finditer(left)), default=0)
    right = text[end:para_end]
    stop = re.search(r"[.!?](?=\s+[A-Z(`*]|\s*$)", right)
    stop_at = stop.end() if stop else len(right)
    sentence = raw[para_start + cut:end + stop_at]
    sentence = re.sub(r"<!--.*?-->", "", sentence, flags=re.S)
    return " ".join(sentence.split())


def parse_spec(body: str) -> dict:
    spec = {}
    for word in body.split():
        if "=" not in word:
            raise CountError(f"tag word {word!r} is not KEY=VALUE")
        key, value = word.split("=", 1)
        if key not in ("preset", "variants", "label", "name"):
            raise CountError(f"unknown tag key {key!r} (preset, variants, label, name)")
        spec[key] = value
    if "preset" not in spec:
        raise CountError("the tag names no preset=")
    if spec.setdefault("variants", "off") not in ("on", "off"):
        raise CountError(f"variants={spec['variants']}: on or off")
    return spec


def read_counts(text: str) -> tuple[list[Count], list[str]]:
    """The tagged counts of a Markdown text, and the problems (untagged counts, bad tags)."""
    raw = text
    text = _blank(raw)
    counts, problems = [], []
    claimed = set()
    for tag in TAG.finditer(raw):
        line = raw.count("\n", 0, tag.start()) + 1
        if text[tag.start():tag.end()].strip() == "":
            continue  # inside code
        before = text[max(0, tag.start() - 400):tag.start()]
        para = before.rsplit("\n\n", 1)[-1]
        para = TAG.sub(lambda t: " " * len(t.group(0)), para)  # an earlier tag's own digits
        numbers = list(NUMBER.finditer(para))
        if not numbers:
            problems.append(f"line {line}: a tests tag with no number before it")
            continue
        num = numbers[-1]
        at = tag.start() - len(para) + num.start()
        claimed.add(at)
        sentence = _sentence(text, raw, at, tag.end())
        try:
            spec = parse_spec(tag.group(1))
        except CountError as e:
            problems.append(f"line {line}: {e}: \"{sentence}\"")
            continue
        counts.append(Count(int(num.group(1).replace(",", "")), sentence, line, spec))
    for m in COUNT.finditer(text):
        if m.start() not in claimed:
            line = text.count("\n", 0, m.start()) + 1
            problems.append(f"line {line}: states {m.group(1)} tests without a tag saying which "
                            f"configuration it counts (<!-- tests: preset=NAME -->): "
                            f"\"{_sentence(text, raw, m.start(), m.end())}\"")
    return counts, problems


# ---------------------------------------------------------------------------
def _bool(value: str) -> bool | None:
    v = value.strip().upper()
    if v in ("ON", "TRUE", "YES", "Y", "1"):
        return True
    if v in ("OFF", "FALSE", "NO", "N", "0", "") or v.endswith("-NOTFOUND"):
        return False
    return None


def option_defaults(source_dir: Path) -> dict[str, str]:
    """{option: default} of every option(CUDALAB_...) in the project's CMake files."""
    out: dict[str, str] = {}
    files = [source_dir / "CMakeLists.txt", *sorted((source_dir / "cmake").glob("*.cmake")),
             *sorted(source_dir.glob("tests/**/CMakeLists.txt"))]
    pattern = re.compile(r"option\(\s*(CUDALAB_\w+)\s+\"(?:[^\"\\]|\\.)*\"\s*([^\s)]*)\s*\)", re.S)
    for f in files:
        if "grading_project" in f.parts or "forgery_project" in f.parts:
            continue
        try:
            text = f.read_text()
        except OSError:
            continue
        for m in pattern.finditer(text):
            out.setdefault(m.group(1), m.group(2) or "OFF")
    return out


def read_cache(build_dir: Path) -> dict[str, str]:
    out = {}
    path = build_dir / "CMakeCache.txt"
    try:
        lines = path.read_text().splitlines()
    except OSError as e:
        raise CountError(f"cannot read {path}: {e}") from None
    for line in lines:
        m = re.match(r"^([A-Za-z_][\w-]*):[A-Z]+=(.*)$", line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def _matches(pattern: str, values: list[str]) -> bool:
    return any(re.search(pattern, v) for v in values)


def _filters(test_preset: dict) -> list[tuple[str, str, bool]]:
    """(kind, regex, include) of a test preset's filter (label/name include/exclude)."""
    out = []
    flt = test_preset.get("filter", {}) or {}
    for side, include in (("include", True), ("exclude", False)):
        part = flt.get(side, {}) or {}
        for kind in ("label", "name"):
            if part.get(kind):
                out.append((kind, part[kind], include))
    return out


def expected(count: Count, tests: dict[str, list[str]], cache: dict[str, str],
             presets: dict, defaults: dict[str, str]) -> Result:
    res = Result(count)
    spec = count.spec
    name = spec["preset"]
    try:
        cfg = phase_times.resolve_configure(presets, name)
    except phase_times.PhaseError as e:
        res.problem = str(e)
        return res
    words = set(re.findall(r"[\w-]+", count.sentence.lower()))
    if name.lower() not in words:
        res.problem = (f"the sentence does not name the preset `{name}` its count is for: "
                       f"\"{count.sentence}\"")
        return res
    want_variants = spec["variants"] == "on"
    if want_variants and "CUDALAB_WRONG=ON" not in count.sentence:
        res.problem = (f"a count with the variants must say -DCUDALAB_WRONG=ON in its sentence: "
                       f"\"{count.sentence}\"")
        return res
    # The options of the count's configuration against the tree's.
    wanted = dict(defaults)
    wanted.update({k: str(v) for k, v in cfg.get("cacheVariables", {}).items()
                   if k.startswith("CUDALAB_")})
    wanted["CUDALAB_WRONG"] = "ON" if want_variants else "OFF"
    tree_variants = _bool(cache.get("CUDALAB_WRONG", "OFF"))
    differ = []
    for opt, value in sorted(wanted.items()):
        if opt in COUNT_NEUTRAL or opt == "CUDALAB_WRONG" or opt not in defaults:
            continue
        have = cache.get(opt, defaults.get(opt, ""))
        if _bool(value) is not None:
            same = _bool(have) == _bool(value)
        else:
            same = have == value
        if not same:
            differ.append(f"{opt}={have} (the preset: {value})")
    if want_variants and not tree_variants:
        differ.append("CUDALAB_WRONG=OFF (the count is with the variants)")
    if differ:
        res.unchecked = "the tree differs in " + ", ".join(differ)
        return res
    selected = {}
    for test, labels in tests.items():
        if not want_variants and test.split(".", 1)[0] in VARIANT_MODES:
            continue
        selected[test] = labels
    try:
        tpreset = phase_times.resolve_test(presets, name)
    except phase_times.PhaseError:
        tpreset = {}
    rules = _filters(tpreset)
    if spec.get("label"):
        rules.append(("label", spec["label"], True))
    if spec.get("name"):
        rules.append(("name", spec["name"], True))
    for kind, pattern, include in rules:
        selected = {t: labels for t, labels in selected.items()
                    if _matches(pattern, labels if kind == "label" else [t]) == include}
    res.expected = len(selected)
    if res.expected != count.number:
        what = f"the `{name}` preset" + (" with -DCUDALAB_WRONG=ON" if want_variants else "")
        if spec.get("label") or spec.get("name"):
            what += f", tests selected by {spec.get('label') or ''}{spec.get('name') or ''}"
        res.problem = (f"README states {count.number} tests for {what}, the tree lists "
                       f"{res.expected}: \"{count.sentence}\"")
    return res


def check(readme: Path, build_dir: Path, source_dir: Path, ctest: str = "ctest",
          tests: dict[str, list[str]] | None = None) -> tuple[list[Result], list[str]]:
    counts, problems = read_counts(readme.read_text(encoding="utf-8"))
    if tests is None:
        tests = phase_times.test_labels(phase_times.ctest_list(build_dir, ctest))
    not_built = sorted(t for t in tests if ".NOT_BUILT." in t)
    if not_built:
        raise CountError(f"{build_dir} is not built ({', '.join(not_built[:3])}): build it first")
    cache = read_cache(build_dir)
    presets = phase_times.read_presets(source_dir)
    defaults = option_defaults(source_dir)
    results = [expected(c, tests, cache, presets, defaults) for c in counts]
    if not counts and not problems:
        problems.append(f"{readme} states no test count (nothing checked)")
    return results, problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", type=Path, required=True)
    ap.add_argument("--source-dir", type=Path, default=Path(__file__).resolve().parent.parent)
    ap.add_argument("--readme", type=Path, help="default: README.md of the source tree")
    ap.add_argument("--ctest", default="ctest")
    args = ap.parse_args(argv)
    readme = args.readme or args.source_dir / "README.md"
    try:
        results, problems = check(readme, args.build_dir, args.source_dir, args.ctest)
    except (CountError, phase_times.PhaseError) as e:
        print(f"readme_counts: {e}", file=sys.stderr)
        return 2
    bad = list(problems)
    for r in results:
        where = f"{readme.name}:{r.count.line}"
        if r.problem:
            bad.append(f"{where}: {r.problem}")
        elif r.unchecked:
            print(f"{where}: {r.count.number} tests (preset {r.count.spec['preset']}, variants "
                  f"{r.count.spec['variants']}) not checked: {r.unchecked}")
        else:
            print(f"{where}: {r.count.number} tests (preset {r.count.spec['preset']}, variants "
                  f"{r.count.spec['variants']}) as the tree lists")
    for b in bad:
        print(f"readme_counts: {b}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
