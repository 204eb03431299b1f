# SPDX-License-Identifier: BSD-3-Clause
"""The typed model of the grading data the tools share: the points lock, a build's grading
manifest, a test's result and a lab's score.

  * Lock -> LabPoints -> TechniquePoints -> Objective: tests/grading.json (schema
    cudalabs-declared, version 2), each lab's 100 points over its techniques, each
    technique's over its objectives (points, whether its tests need a GPU, its tests). The
    scoreboard writes it (--write-declared) and grades by it; the autograder, the regrade and
    tools/release/lab_points.py give whole points in its shape.
  * TestResult: one entry of scores.json's tests[] (schema cudalabs-scores, version 4), with
    its Measurements, the speed Bars it judged against and, when it was skipped as unavailable
    on this GPU, its SkipReason. A Measurement is also an entry of labs[].measurements and of
    the top-level measurements (which add lab and graded).
  * LabScore -> TechniqueScore -> ObjectiveScore, Unavailable, CategoryCount, Failure, Flag:
    one entry of scores.json's labs[], its points in the lock's shape, the parts this GPU
    cannot run, its tests per category, its failed tests and the intake scan's flags of its
    files (a Flag is also what tools/release/scan_submission.py finds). A Measurement's Tiers
    are the tiers its test gave.
  * Manifest -> ManifestTest, ManifestObjective, TechniqueDeclared: the grading manifest of a
    build tree (tools/grading_manifest.py builds it; the scoreboard, the grading driver and
    the stub audit read it; --json writes it, schema cudalabs-manifest, version 3), with its
    copy of CMake's record of the build (cudalab_labs.json): SuiteRules -> SuiteRule, the
    suite-ending rules; LabRecord, a lab; GraderRecord, a grader. Those keep the keys CMake
    writes that no field names (extra) and their order (see _CMakeRecord).
  * LabResult: one lab's entry of a result.json (Classroom 50).
  * BarRecord: a "bar" record of the measurement channel (a test's speed bar as the judge
    wrote it), which the scoreboard turns into a Bar and the calibration reads; DeviceRecord:
    a "device" record (the GPU a test ran on, or why it had none), which the scoreboard's
    environment and the calibration's facts read.
  * CalibrationRow: a bar of a calibration file as the instructors' calibration run writes
    it (no path: the student release, which ships this file, has not that tool).

The lock, an Unavailable, a SkipReason, a Bar, a Tier, a Measurement, a Failure, a Flag, a
ManifestObjective, a TechniqueDeclared, CMake's records and the channel's records are frozen;
a TestResult, a LabScore (with its CategoryCounts) and a Manifest (with its ManifestTests) are
plain dataclasses, which the scoreboard fills in as it scores a run (tools/scoring.py;
apply_declared() gives a manifest the lock's tests and points), and so is a CalibrationRow,
whose note the calibration fills in. from_json() validates what the tools rely on (the fields
present, and the JSON kinds of those a class lists in KINDS) and raises ModelError with one
line naming the place and the field; to_json() gives back the JSON document with the keys in
the order the files have them, so that `json.dumps(x.to_json(), indent=...)` writes the same
bytes as before.
docs/scores-schema.md describes the fields. Library only; Python 3 standard library.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, fields, replace
from typing import Any, ClassVar, TypeVar

LOCK_SCHEMA = "cudalabs-declared"
LOCK_VERSION = 2
LAB_POINTS = 100


class ModelError(ValueError):
    """A document that does not have the model's shape: one line naming where."""


def _object(raw: object, where: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise ModelError(f"{where} is not an object")
    return raw


def _points(raw: object, where: str) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 0:
        raise ModelError(f"{where} has points {raw!r}, not a non-negative integer")
    return raw


# ---------------------------------------------------------------------------
# The lock (tests/grading.json)
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Objective:
    """A graded suite: its points, whether its tests need a GPU, its tests (names)."""
    points: int
    gpu: bool
    tests: tuple[str, ...]

    @classmethod
    def from_json(cls, raw: object, where: str) -> Objective:
        o = _object(raw, where)
        gpu, tests = o.get("gpu"), o.get("tests")
        if not isinstance(gpu, bool):
            raise ModelError(f"{where} has gpu {gpu!r}, not true or false")
        if not isinstance(tests, list) or not all(isinstance(t, str) for t in tests):
            raise ModelError(f"{where} has no \"tests\" list of test names")
        return cls(_points(o.get("points"), where), gpu, tuple(tests))

    def to_json(self) -> dict[str, Any]:
        return {"points": self.points, "gpu": self.gpu, "tests": list(self.tests)}


@dataclass(frozen=True)
class TechniquePoints:
    """A technique of a lab: its points, why, and its objectives by suite name."""
    points: int
    why: str
    objectives: dict[str, Objective] = field(default_factory=dict)

    @classmethod
    def from_json(cls, raw: object, where: str) -> TechniquePoints:
        g = _object(raw, where)
        why = g.get("why")
        if not isinstance(why, str):
            raise ModelError(f"{where} has no \"why\" string")
        objs = _object(g.get("objectives"), f"{where}: its \"objectives\"")
        return cls(_points(g.get("points"), where), why,
                   {name: Objective.from_json(o, f"{where}: objective {name}")
                    for name, o in objs.items()})

    def to_json(self) -> dict[str, Any]:
        return {"points": self.points, "why": self.why,
                "objectives": {k: o.to_json() for k, o in self.objectives.items()}}


@dataclass(frozen=True)
class LockedTest:
    """One test of a lock with where its points come from; weight: its objective's points
    over the objective's tests."""
    name: str
    lab: str
    technique: str
    objective: str
    gpu: bool
    weight: float


@dataclass(frozen=True)
class LabPoints:
    """A lab's points: its techniques by name, in the lock's order."""
    techniques: dict[str, TechniquePoints] = field(default_factory=dict)

    @classmethod
    def from_json(cls, raw: object, where: str) -> LabPoints:
        techs = _object(_object(raw, where).get("techniques"), f"{where}: its \"techniques\"")
        return cls({name: TechniquePoints.from_json(g, f"{where}: technique {name}")
                    for name, g in techs.items()})

    def to_json(self) -> dict[str, Any]:
        return {"techniques": {k: t.to_json() for k, t in self.techniques.items()}}

    def objectives(self) -> Iterator[tuple[str, str, Objective]]:
        """(technique, objective, Objective) of every objective, in the lock's order."""
        for tname, group in self.techniques.items():
            for oname, o in group.objectives.items():
                yield tname, oname, o


@dataclass(frozen=True)
class Lock:
    """tests/grading.json: the one form of the course's points."""
    labs: dict[str, LabPoints] = field(default_factory=dict)
    lab_points: int = LAB_POINTS

    @classmethod
    def from_json(cls, raw: object, where: str = "the declared tests") -> Lock:
        doc = _object(raw, where)
        if doc.get("schema") != LOCK_SCHEMA:
            raise ModelError(f"{where} are not a {LOCK_SCHEMA} file")
        if doc.get("version") != LOCK_VERSION:
            raise ModelError(f"{where} are version {doc.get('version')!r} of {LOCK_SCHEMA}, "
                             f"not {LOCK_VERSION}: write them again (tools/scoreboard.py "
                             f"--write-declared tests/grading.json)")
        labs = _object(doc.get("labs", {}), f"{where}: \"labs\"")
        return cls({lab: LabPoints.from_json(v, f"{where}: {lab}") for lab, v in labs.items()},
                   _points(doc.get("lab_points", LAB_POINTS), f"{where}: \"lab_points\""))

    def to_json(self) -> dict[str, Any]:
        return {"schema": LOCK_SCHEMA, "version": LOCK_VERSION, "lab_points": self.lab_points,
                "labs": {k: lab.to_json() for k, lab in self.labs.items()}}

    def only(self, labs: set[str]) -> Lock:
        """The lock of @p labs alone."""
        return Lock({k: v for k, v in self.labs.items() if k in labs}, self.lab_points)

    def objectives(self) -> Iterator[tuple[str, str, str, Objective]]:
        """(lab, technique, objective, Objective) of every objective, in the lock's order."""
        for lab_id, lab in self.labs.items():
            for tname, oname, o in lab.objectives():
                yield lab_id, tname, oname, o

    def tests(self) -> dict[str, LockedTest]:
        """Every test of the lock by name."""
        out = {}
        for lab_id, tname, oname, o in self.objectives():
            for name in o.tests:
                out[name] = LockedTest(name, lab_id, tname, oname, o.gpu,
                                       float(o.points) / len(o.tests))
        return out


# ---------------------------------------------------------------------------
# scores.json (cudalabs-scores, version 4): tests[] and labs[]
# ---------------------------------------------------------------------------
def _from_fields(cls: Any, raw: object, where: str, required: tuple[str, ...],
                 convert: dict[str, Any] | None = None) -> Any:
    """@p cls from the keys of @p raw named as its fields (absent ones keep their defaults,
    @p required ones must be there, those of the class's KINDS {field: (types, what)} must be
    of those types); @p convert: field -> function of the raw value."""
    d = _object(raw, where)
    missing = [k for k in required if k not in d]
    if missing:
        raise ModelError(f"{where} has no {', '.join(repr(k) for k in missing)}")
    for name, (kinds, what) in getattr(cls, "KINDS", {}).items():
        value = d.get(name)
        if name in d and (not isinstance(value, kinds) or
                          isinstance(value, bool) and bool not in kinds):
            raise ModelError(f"{where} has {name} {value!r}, not {what}")
    convert = convert or {}
    return cls(**{f.name: convert[f.name](d[f.name]) if f.name in convert else d[f.name]
                  for f in fields(cls) if f.name in d})


def _list(raw: object, where: str) -> list[Any]:
    if not isinstance(raw, list):
        raise ModelError(f"{where} is not a list")
    return raw


def _to_fields(obj: Any, convert: dict[str, Any] | None = None) -> dict[str, Any]:
    convert = convert or {}
    return {f.name: convert[f.name](getattr(obj, f.name)) if f.name in convert
            else getattr(obj, f.name) for f in fields(obj)}


# The KINDS of a JSON value a field may have: (Python types, how a message says it).
_TEXT = ((str,), "a string")
_TEXT_OR_NULL = ((str, type(None)), "a string or null")
_NUMBER_OR_NULL = ((int, float, type(None)), "a number or null")
_FLAG_OR_NULL = ((bool, type(None)), "true, false or null")
_FLAG = ((bool,), "true or false")
_COUNT = ((int,), "an integer")

_Flat = TypeVar("_Flat", bound="_FlatRecord")


class _FlatRecord:
    """from_json/to_json of a dataclass whose fields are all required JSON values, in the
    document's key order."""

    @classmethod
    def from_json(cls: type[_Flat], raw: object, where: str = "an entry") -> _Flat:
        return _from_fields(cls, raw, where, tuple(f.name for f in fields(cls)))

    def to_json(self) -> dict[str, Any]:
        return _to_fields(self)


@dataclass(frozen=True)
class Unavailable(_FlatRecord):
    """An objective of a lab all of whose tests were skipped as unavailable on this GPU."""
    objective: str
    technique: str | None
    points: int
    tests: int
    needs: str
    kind: str
    reason: str


@dataclass(frozen=True)
class SkipReason(_FlatRecord):
    """Why a skipped test cannot run here (scores.json tests[].unavailable): kind "gpu" (this
    GPU's compute capability is too old) or "build" (the build holds no code of the
    architecture it needs), the compute capability it needs ("9.0") and the skip message."""
    kind: str
    needs: str
    reason: str
    KINDS: ClassVar[dict[str, Any]] = {"kind": _TEXT, "needs": _TEXT, "reason": _TEXT}


@dataclass(frozen=True)
class Bar(_FlatRecord):
    """A speed bar a test judged against (scores.json tests[].bars[], from the channel's "bar"
    records, tools/measurement_channel.py): the measurement it bounds, min or max, the bar
    after CUDALAB_SPEEDUP_SCALE and before it (reference), where it came from (calibration,
    reference, none), the calibration file and the GPU model it was calibrated on."""
    name: str | None
    bound: str | None
    bar: float | None
    reference: float | None
    source: str | None
    calibration: str | None
    calibration_gpu: str | None
    KINDS: ClassVar[dict[str, Any]] = {
        "name": _TEXT_OR_NULL, "bound": _TEXT_OR_NULL, "bar": _NUMBER_OR_NULL,
        "reference": _NUMBER_OR_NULL, "source": _TEXT_OR_NULL, "calibration": _TEXT_OR_NULL,
        "calibration_gpu": _TEXT_OR_NULL}


_Channel = TypeVar("_Channel", bound="_ChannelRecord")


class _ChannelRecord:
    """from_record() of a record of the measurement channel (a dataclass whose fields are
    `Any = None`): read as it came, an absent key is None and no kind is checked, as the
    scoreboard and the calibration read every record (a test prints what it prints)."""

    @classmethod
    def from_record(cls: type[_Channel], rec: dict[str, Any]) -> _Channel:
        return cls(**{f.name: rec.get(f.name) for f in fields(cls)})


@dataclass(frozen=True)
class BarRecord(_ChannelRecord):
    """A "bar" record of the measurement channel, as the judge writes it (speed_bar() of
    common/testing/testing.cpp): the test, the measurement it bounds, min or max, the measured
    value, the bar after CUDALAB_SPEEDUP_SCALE and before it (reference), where it came from,
    the calibration file and the GPU model it was calibrated on, this run's GPU model and the
    calibration's note. Read as it came (from_record()); to_bar() is what scores.json keeps
    of it."""
    test: Any = None
    name: Any = None
    bound: Any = None
    value: Any = None
    bar: Any = None
    reference: Any = None
    source: Any = None
    calibration: Any = None
    calibration_gpu: Any = None
    gpu: Any = None
    note: Any = None

    def to_bar(self) -> Bar:
        return Bar(**{f.name: getattr(self, f.name) for f in fields(Bar)})


@dataclass(frozen=True)
class DeviceRecord(_ChannelRecord):
    """A "device" record of the measurement channel (set_channel_device() and
    set_channel_no_gpu() of common/testing/testing.cpp): whether the process has a GPU; if it
    has, the GPU's id, name, compute capability ("9.0"), SMs, SM and memory clocks (MHz),
    memory bus (bits), L2 and global memory (bytes), shared memory per block with opt-in and
    per SM (KiB), driver and runtime versions ("12.8") and a one-line description; if not,
    why. Read as it came (from_record()): the scoreboard's environment and the calibration's
    facts."""
    available: Any = None
    id: Any = None
    name: Any = None
    compute_capability: Any = None
    sm_count: Any = None
    sm_clock_mhz: Any = None
    memory_clock_mhz: Any = None
    memory_bus_bits: Any = None
    l2_bytes: Any = None
    global_memory_bytes: Any = None
    smem_per_block_optin_kb: Any = None
    smem_per_sm_kb: Any = None
    driver: Any = None
    runtime: Any = None
    description: Any = None
    reason: Any = None


@dataclass(frozen=True)
class Tier(_FlatRecord):
    """A tier of a measurement (tiers[] of a measurement, as the test gave it on the
    channel): its name and the value it needs (at least)."""
    name: str | None
    at_least: float | None
    KINDS: ClassVar[dict[str, Any]] = {"name": _TEXT_OR_NULL, "at_least": _NUMBER_OR_NULL}


@dataclass(frozen=True)
class Measurement:
    """A measurement a test reported on the channel, with its bar's source and calibration and
    the test's status (scores.json tests[].measurements[] and labs[].measurements[]; the
    top-level measurements[] add the lab and whether the test is graded, absent elsewhere).
    test, name and value are required; tiers: the tiers the test gave, in its order."""
    test: str
    name: str | None
    value: float | None
    bar_source: str | None = None
    calibration: str | None = None
    unit: str = ""
    threshold: float | None = None
    bound: str | None = None
    verdict: str | None = None
    unscaled_threshold: float | None = None
    speedup_scale: float | None = None
    text: str | None = None
    tiers: list[Tier] = field(default_factory=list)
    tier: str | None = None
    status: str = "not run"
    lab: str | None = None
    graded: bool | None = None
    KINDS: ClassVar[dict[str, Any]] = {
        "test": _TEXT, "name": _TEXT_OR_NULL, "value": _NUMBER_OR_NULL,
        "bar_source": _TEXT_OR_NULL, "calibration": _TEXT_OR_NULL, "unit": _TEXT,
        "threshold": _NUMBER_OR_NULL, "bound": _TEXT_OR_NULL, "verdict": _TEXT_OR_NULL,
        "unscaled_threshold": _NUMBER_OR_NULL, "speedup_scale": _NUMBER_OR_NULL,
        "text": _TEXT_OR_NULL, "tiers": ((list,), "a list"), "tier": _TEXT_OR_NULL,
        "status": _TEXT, "lab": _TEXT_OR_NULL, "graded": _FLAG_OR_NULL}

    @classmethod
    def from_json(cls, raw: object, where: str = "a measurement") -> Measurement:
        return _from_fields(cls, raw, where, ("test", "name", "value"), {
            "tiers": lambda ts: [Tier.from_json(t, f"{where}: tiers[{i}]")
                                 for i, t in enumerate(ts)]})

    def to_json(self) -> dict[str, Any]:
        doc = _to_fields(self, {"tiers": lambda ts: [t.to_json() for t in ts]})
        for k in ("lab", "graded"):
            if doc[k] is None:
                del doc[k]
        return doc


def measurements_of(raw: object, where: str) -> list[Measurement]:
    """The measurements of a scores.json list (tests[].measurements, labs[].measurements, the
    top-level measurements)."""
    return [Measurement.from_json(m, f"{where}[{i}]") for i, m in enumerate(_list(raw, where))]


@dataclass
class TestResult:
    """One graded test of a run (scores.json tests[]). Only name, lab and status are
    required: a partial document (a fixture, an older file) keeps the defaults."""
    name: str
    lab: str
    suite: str = ""
    case: str = ""
    labels: list[str] = field(default_factory=list)
    category: str = "other"
    objective: str | None = None
    technique: str | None = None
    weight: float = 0.0
    status: str = "not run"
    points: float = 0
    time_s: float | None = None
    message: str = ""
    result_source: str | None = None
    result_time: str | None = None
    speedup_scale: float | None = None
    measurements: list[Measurement] = field(default_factory=list)
    bars: list[Bar] = field(default_factory=list)
    speed: list[str] = field(default_factory=list)
    unavailable: SkipReason | None = None
    KINDS: ClassVar[dict[str, Any]] = {"speedup_scale": _NUMBER_OR_NULL}

    @classmethod
    def from_json(cls, raw: object, where: str = "a test") -> TestResult:
        return _from_fields(cls, raw, where, ("name", "lab", "status"), {
            "measurements": lambda ms: measurements_of(ms, f"{where}: measurements"),
            "bars": lambda bs: [Bar.from_json(b, f"{where}: bars[{i}]")
                                for i, b in enumerate(_list(bs, f"{where}: bars"))],
            "unavailable": lambda u: None if u is None else
            SkipReason.from_json(u, f"{where}: unavailable")})

    def to_json(self) -> dict[str, Any]:
        return _to_fields(self, {
            "measurements": lambda ms: [m.to_json() for m in ms],
            "bars": lambda bs: [b.to_json() for b in bs],
            "unavailable": lambda u: None if u is None else u.to_json()})

    @property
    def needs_gpu(self) -> bool:
        """Whether its category needs a GPU (every category but "cpu")."""
        return self.category != "cpu"


@dataclass
class ObjectiveScore(_FlatRecord):
    """An objective of a lab's score: its points, its tests (names), passed, earned."""
    points: int
    tests: list[str]
    passed: int
    earned: float


@dataclass
class TechniqueScore:
    """A technique of a lab's score: its points, why, earned and objectives."""
    points: int
    why: str
    earned: float
    objectives: dict[str, ObjectiveScore] = field(default_factory=dict)

    @classmethod
    def from_json(cls, raw: object, where: str = "a technique") -> TechniqueScore:
        return _from_fields(cls, raw, where, tuple(f.name for f in fields(cls)), {
            "objectives": lambda objs: {
                k: ObjectiveScore.from_json(v, f"{where}: {k}")
                for k, v in _object(objs, f"{where}: its \"objectives\"").items()}})

    def to_json(self) -> dict[str, Any]:
        return _to_fields(self, {"objectives": lambda objs: {k: o.to_json()
                                                            for k, o in objs.items()}})


@dataclass
class CategoryCount(_FlatRecord):
    """A lab's tests of one category (cpu, gpu, perf, ...) and how many of them passed."""
    tests: int = 0
    passed: int = 0
    KINDS: ClassVar[dict[str, Any]] = {"tests": _COUNT, "passed": _COUNT}


@dataclass(frozen=True)
class Failure(_FlatRecord):
    """A failed (or error) test of a lab and its message."""
    test: str
    message: str
    KINDS: ClassVar[dict[str, Any]] = {"test": _TEXT, "message": _TEXT}


@dataclass(frozen=True)
class Flag(_FlatRecord):
    """A finding of the intake scan in a lab file (tools/release/scan_submission.py): the
    file, its line, the construct found there and the line's text."""
    file: str
    line: int
    construct: str
    text: str
    KINDS: ClassVar[dict[str, Any]] = {"file": _TEXT, "line": _COUNT, "construct": _TEXT,
                                       "text": _TEXT}


def flags_of(raw: object, where: str) -> list[Flag]:
    """The intake flags of a list (an intake scan's labs{}, scores.json labs[].flags)."""
    return [Flag.from_json(f, f"{where}[{i}]") for i, f in enumerate(_list(raw, where))]


@dataclass
class LabScore:
    """One lab of a run (scores.json labs[]): counts, points (earned, maximum, the maximum
    here, what this GPU can earn), its points per technique and objective, the parts this GPU
    cannot run. Only lab is required."""
    lab: str
    number: int | None = None
    topic: str | None = None
    folder: str | None = None
    grader_built: bool = True
    tests: int = 0
    with_result: int = 0
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    error: int = 0
    not_run: int = 0
    points: float = 0.0
    max_points: float = 0.0
    max_points_here: float = 0.0
    points_available: float = 0.0
    unavailable: list[Unavailable] = field(default_factory=list)
    techniques: dict[str, TechniqueScore] = field(default_factory=dict)
    by_category: dict[str, CategoryCount] = field(default_factory=dict)
    measurements: list[Measurement] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    speedup_scales: list[Any] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)
    needs_review: bool = False
    # The grading driver's (tools/release/grade_submission.py) only: whether --labs took the
    # lab into this run; None (not written) for the scoreboard's own scores.json.
    graded_in_this_run: bool | None = None

    @classmethod
    def from_json(cls, raw: object, where: str = "a lab") -> LabScore:
        return _from_fields(cls, raw, where, ("lab",), {
            "unavailable": lambda us: [Unavailable.from_json(u, f"{where}: unavailable")
                                       for u in us],
            "techniques": lambda ts: {
                k: TechniqueScore.from_json(v, f"{where}: {k}")
                for k, v in _object(ts, f"{where}: its \"techniques\"").items()},
            "by_category": lambda cs: {
                k: CategoryCount.from_json(v, f"{where}: by_category {k}")
                for k, v in _object(cs, f"{where}: its \"by_category\"").items()},
            "measurements": lambda ms: measurements_of(ms, f"{where}: measurements"),
            "failures": lambda fs: [Failure.from_json(f, f"{where}: failures[{i}]")
                                    for i, f in enumerate(_list(fs, f"{where}: failures"))],
            "flags": lambda fs: flags_of(fs, f"{where}: flags")})

    def to_json(self) -> dict[str, Any]:
        doc = _to_fields(self, {
            "unavailable": lambda us: [u.to_json() for u in us],
            "techniques": lambda ts: {k: t.to_json() for k, t in ts.items()},
            "by_category": lambda cs: {k: c.to_json() for k, c in cs.items()},
            "measurements": lambda ms: [m.to_json() for m in ms],
            "failures": lambda fs: [f.to_json() for f in fs],
            "flags": lambda fs: [f.to_json() for f in fs]})
        if self.graded_in_this_run is None:
            del doc["graded_in_this_run"]
        return doc


# ---------------------------------------------------------------------------
# The grading manifest of a build (tools/grading_manifest.py, schema cudalabs-manifest)
# ---------------------------------------------------------------------------
MANIFEST_SCHEMA = "cudalabs-manifest"
MANIFEST_VERSION = 3


@dataclass
class ManifestTest:
    """One test of a build as the manifest gives it: its lab, suite and case, labels, CTest
    timeout, RUN_SERIAL, whether it holds a GPU, is given code or a helper suite, is graded
    (and its objective, the suite's base name), and how it was registered ("gtest" or
    "cmake"). The scoreboard's apply_declared() adds the declared tests a build lacks with
    the defaults."""
    name: str
    lab: str
    suite: str
    case: str
    labels: list[str] = field(default_factory=list)
    timeout: float | None = None
    run_serial: bool = False
    gpu: bool = False
    given: bool = False
    helper: bool = False
    graded: bool = False
    objective: str | None = None
    registered: str = "cmake"
    KINDS: ClassVar[dict[str, Any]] = {
        "name": _TEXT, "lab": _TEXT, "suite": _TEXT, "case": _TEXT,
        "labels": ((list,), "a list"), "timeout": _NUMBER_OR_NULL, "run_serial": _FLAG,
        "gpu": _FLAG, "given": _FLAG, "helper": _FLAG, "graded": _FLAG,
        "objective": _TEXT_OR_NULL, "registered": _TEXT}

    @classmethod
    def from_json(cls, raw: object, where: str = "a manifest test") -> ManifestTest:
        return _from_fields(cls, raw, where, ("name", "lab", "suite", "case"))

    def to_json(self) -> dict[str, Any]:
        return _to_fields(self)


@dataclass(frozen=True)
class ManifestObjective(_FlatRecord):
    """An objective of a lab in a manifest: its declared points, how many tests of the build
    it has, its technique (None for a graded suite the declaration lacks)."""
    points: int
    tests: int
    technique: str | None
    KINDS: ClassVar[dict[str, Any]] = {"points": _COUNT, "tests": _COUNT,
                                       "technique": _TEXT_OR_NULL}


@dataclass(frozen=True)
class TechniqueDeclared(_FlatRecord):
    """A technique a lab declares (tests/labNN_topic/objectives.json): its points and why."""
    points: int
    why: str
    KINDS: ClassVar[dict[str, Any]] = {"points": _COUNT, "why": _TEXT}


def _by_lab(raw: object, where: str, value: Any) -> dict[str, dict[str, Any]]:
    """{lab: {name: value(raw, where)}} of a manifest's objectives or techniques."""
    return {lab: {k: value(v, f"{where} {lab} {k}")
                  for k, v in _object(inner, f"{where} {lab}").items()}
            for lab, inner in _object(raw, where).items()}


# CMake's record of the build (<build>/cudalab_labs.json, _cudalab_write_labs_record() of
# cmake/CudalabGrading.cmake), of which the manifest keeps the rules, the labs and the graders.
_STRINGS = ((list,), "a list")
_Rec = TypeVar("_Rec", bound="_CMakeRecord")


@dataclass(frozen=True)
class _CMakeRecord:
    """from_json/to_json of an object CMake writes into its record: the fields are the keys
    CMake writes today (KINDS checked where present; REQUIRED: those the tools cannot do
    without). What the manifest does with the rest, and why:
      * a key a fixture (or an older record) leaves out keeps its field's default and is not
        written back;
      * a key CMake adds later, which no tool reads yet, is kept in `extra`, unread and
        unchecked;
      * `keys` is the document's key order, which to_json() follows (CMake's JSON writer
        orders the keys by name, a fixture has its own order).
    So the manifest's copy of the record stays what CMake wrote, byte for byte, whatever CMake
    adds. A record made in code (keys empty) writes its fields, then `extra`."""
    REQUIRED: ClassVar[tuple[str, ...]] = ()
    extra: dict[str, Any] = field(default_factory=dict, kw_only=True)
    keys: tuple[str, ...] = field(default=(), kw_only=True)

    @classmethod
    def _convert(cls, where: str) -> dict[str, Any]:
        """field -> function of the raw value, for the fields that are records themselves."""
        return {}

    @classmethod
    def from_json(cls: type[_Rec], raw: object, where: str = "a record") -> _Rec:
        d = _object(raw, where)
        typed = {f.name for f in fields(cls)} - {"extra", "keys"}
        rec = _from_fields(cls, {k: v for k, v in d.items() if k in typed}, where,
                           cls.REQUIRED, cls._convert(where))
        return replace(rec, extra={k: v for k, v in d.items() if k not in typed},
                       keys=tuple(d))

    def _to_json(self, convert: dict[str, Any] | None = None) -> dict[str, Any]:
        doc = _to_fields(self, convert)
        extra, keys = doc.pop("extra"), doc.pop("keys")
        return {k: doc[k] if k in doc else extra[k] for k in keys or (*doc, *extra)}

    def to_json(self) -> dict[str, Any]:
        return self._to_json()


@dataclass(frozen=True)
class SuiteRule(_CMakeRecord):
    """A suite-ending rule (rules.endings[]): the ending ("Gpu"), the labels, the timeout's
    name, RUN_SERIAL and whether a GPU is held that it gives a suite (cudalab_suite_rule()).
    The manifest matches suites by ending; the scoreboard labels a declared test the build
    lacks by its rule's labels."""
    ending: str
    labels: list[str] = field(default_factory=list)
    timeout: str | None = None
    run_serial: bool = False
    gpu: bool = False
    REQUIRED: ClassVar[tuple[str, ...]] = ("ending",)
    KINDS: ClassVar[dict[str, Any]] = {"ending": _TEXT, "labels": _STRINGS,
                                       "timeout": _TEXT_OR_NULL, "run_serial": _FLAG,
                                       "gpu": _FLAG}


@dataclass(frozen=True)
class SuiteRules(_CMakeRecord):
    """The record's suite-ending rules (its "rules"): the endings, in CMake's order (the last
    that matches wins), and the prefix of a given suite; the manifest adds lab_points."""
    endings: list[SuiteRule] = field(default_factory=list)
    given_prefix: str | None = None
    lab_points: int | None = None
    KINDS: ClassVar[dict[str, Any]] = {"endings": ((list,), "a list"),
                                       "given_prefix": _TEXT_OR_NULL, "lab_points": _COUNT}

    @classmethod
    def _convert(cls, where: str) -> dict[str, Any]:
        return {"endings": lambda es: [SuiteRule.from_json(e, f"{where}: endings[{i}]")
                                       for i, e in enumerate(es)]}

    def to_json(self) -> dict[str, Any]:
        return self._to_json({"endings": lambda es: [e.to_json() for e in es]})

    def rule_of(self, base: str) -> SuiteRule | None:
        """The rule of a suite's base name: the last whose ending it has, as in CMake's
        cudalab_suite_rule(); None when none applies."""
        found = None
        for r in self.endings:
            if base.endswith(r.ending):
                found = r
        return found


@dataclass(frozen=True)
class LabRecord(_CMakeRecord):
    """A lab of the record (its "labs"[], also of a lab whose grader is not built): its id
    ("lab07"), number, topic and folder under labs/, its SOURCES, GIVEN, DEMO (None: none),
    LIBRARIES and test sources, its folders under solutions/ and tests/ and its grader's
    target. The scoreboard names a lab by it; the manifest finds its declaration and its
    techniques by it."""
    lab: str
    number: int | None = None
    topic: str | None = None
    folder: str | None = None
    sources: list[str] = field(default_factory=list)
    given: list[str] = field(default_factory=list)
    demo: str | None = None
    libraries: list[str] = field(default_factory=list)
    test_sources: list[str] = field(default_factory=list)
    solution_folder: str | None = None
    grading_folder: str | None = None
    grader: str | None = None
    REQUIRED: ClassVar[tuple[str, ...]] = ("lab",)
    KINDS: ClassVar[dict[str, Any]] = {
        "lab": _TEXT, "number": _COUNT, "topic": _TEXT, "folder": _TEXT,
        "solution_folder": _TEXT, "grading_folder": _TEXT, "grader": _TEXT,
        "sources": _STRINGS, "given": _STRINGS, "libraries": _STRINGS,
        "test_sources": _STRINGS, "demo": _TEXT_OR_NULL}


@dataclass(frozen=True)
class GraderRecord(_CMakeRecord):
    """A grader of the record (its "graders"[], cudalab_add_grader()): its target, its lab's
    label, the prefix of its tests' names, whether it is graded (a grader without the key is
    not) and its executable. The manifest gives a test the lab of the grader of the longest
    prefix; a grader that was not built shows as <prefix>NOT_BUILT.<target>."""
    target: str
    lab: str
    prefix: str
    graded: bool = False
    executable: str | None = None
    REQUIRED: ClassVar[tuple[str, ...]] = ("target", "lab", "prefix")
    KINDS: ClassVar[dict[str, Any]] = {"target": _TEXT, "lab": _TEXT, "prefix": _TEXT,
                                       "graded": _FLAG, "executable": _TEXT}


@dataclass
class Manifest:
    """The grading manifest of a build tree (build_manifest() of tools/grading_manifest.py):
    CMake's record of it (source and build folder, implementation, test launcher, the
    suite-ending rules, the labs by id and the graders: SuiteRules, LabRecords and
    GraderRecords, written back as CMake wrote them), its tests by name, each graded lab's
    objectives and techniques by name, the helper suites, the declaration files, the grader
    targets not built and the problems of the declarations.
    The scoreboard's apply_declared() replaces the objectives and techniques with the
    lock's."""
    source_dir: str = "."
    build_dir: str | None = None
    implementation: str | None = None
    test_launcher: list[str] = field(default_factory=list)
    rules: SuiteRules = field(default_factory=SuiteRules)
    lab_points: int = LAB_POINTS
    labs: dict[str, LabRecord] = field(default_factory=dict)
    graders: list[GraderRecord] = field(default_factory=list)
    tests: dict[str, ManifestTest] = field(default_factory=dict)
    objectives: dict[str, dict[str, ManifestObjective]] = field(default_factory=dict)
    techniques: dict[str, dict[str, TechniqueDeclared]] = field(default_factory=dict)
    helpers: dict[str, dict[str, str]] = field(default_factory=dict)
    declarations: dict[str, str] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @classmethod
    def from_json(cls, raw: object, where: str = "the manifest") -> Manifest:
        """A manifest from its JSON document (labs and tests as lists)."""
        doc = _object(raw, where)
        if doc.get("schema") != MANIFEST_SCHEMA or doc.get("version") != MANIFEST_VERSION:
            raise ModelError(f"{where} is not a {MANIFEST_SCHEMA} file of version "
                             f"{MANIFEST_VERSION}")
        return _from_fields(cls, doc, where, ("tests", "objectives"), {
            "rules": lambda rules: SuiteRules.from_json(rules, f"{where}: rules"),
            "labs": lambda labs: {lab.lab: lab for lab in (
                LabRecord.from_json(lab, f"{where}: labs[{i}]")
                for i, lab in enumerate(_list(labs, f"{where}: labs")))},
            "graders": lambda graders: [
                GraderRecord.from_json(g, f"{where}: graders[{i}]")
                for i, g in enumerate(_list(graders, f"{where}: graders"))],
            "tests": lambda tests: {t.name: t for t in (
                ManifestTest.from_json(t, f"{where}: tests[{i}]")
                for i, t in enumerate(_list(tests, f"{where}: tests")))},
            "objectives": lambda objs: _by_lab(objs, f"{where}: objectives of",
                                               ManifestObjective.from_json),
            "techniques": lambda techs: _by_lab(techs, f"{where}: techniques of",
                                                TechniqueDeclared.from_json)})

    def to_json(self) -> dict[str, Any]:
        """The manifest as its JSON document (labs and tests as lists)."""
        return {"schema": MANIFEST_SCHEMA, "version": MANIFEST_VERSION, **_to_fields(self, {
            "rules": lambda rules: rules.to_json(),
            "labs": lambda labs: [lab.to_json() for lab in labs.values()],
            "graders": lambda graders: [g.to_json() for g in graders],
            "tests": lambda tests: [t.to_json() for t in tests.values()],
            "objectives": lambda objs: {lab: {k: o.to_json() for k, o in inner.items()}
                                        for lab, inner in objs.items()},
            "techniques": lambda techs: {lab: {k: t.to_json() for k, t in inner.items()}
                                         for lab, inner in techs.items()}})}

    def objective_of(self, test: ManifestTest) -> ManifestObjective | None:
        """The objective of a graded @p test, None when it has none."""
        return self.objectives.get(test.lab, {}).get(test.objective or "")


# ---------------------------------------------------------------------------
# A calibration file being written (the instructors' calibration run)
# ---------------------------------------------------------------------------
@dataclass
class CalibrationRow(_FlatRecord):
    """A bar of a calibration file (tests/calibration/<gpu-model>.tsv) as the calibration run
    writes it: the test, the measurement, min or max, the bar, its rule ("measured": from the
    runs' values; "fixed": the reference GPU's, kept), the reference GPU's bar (None: its file
    has none), the runs' values and the note (its provenance; "" none yet). A bar line and its
    note line are what the file keeps of it."""
    test: str
    name: str
    bound: str
    bar: float
    rule: str
    reference: float | None
    values: list[float]
    note: str
    KINDS: ClassVar[dict[str, Any]] = {
        "test": _TEXT, "name": _TEXT, "bound": _TEXT, "bar": ((int, float), "a number"),
        "rule": _TEXT, "reference": _NUMBER_OR_NULL, "values": ((list,), "a list"),
        "note": _TEXT}


# ---------------------------------------------------------------------------
# result.json (classroom50/result/v1): one lab's entry of tests[]
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class LabResult:
    """One lab's entry of a result.json (tools/release/autograde.py writes it; the class tools
    read it): its whole points and `cudalabs`, the course's part (lab, topic, counts, flags,
    ratios, points in the lock's shape, unavailable parts, GPU, calibration, course ref, ...,
    as written). Reading is lenient, as for a result of an older course: absent points are 0,
    an entry without `cudalabs` is named by its test name's first word."""
    name: str
    passed: bool
    score: int
    max_score: int
    message: str = ""
    cudalabs: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, raw: object, where: str = "a result.json entry") -> LabResult:
        e = _object(raw, where)
        return cls(str(e.get("test-name", "?")), bool(e.get("passed")),
                   int(e.get("score") or 0), int(e.get("max-score") or 0),
                   str(e.get("message") or ""),
                   _object(e.get("cudalabs") or {}, f"{where}: its \"cudalabs\""))

    def to_json(self) -> dict[str, Any]:
        return {"test-name": self.name, "passed": self.passed, "score": self.score,
                "max-score": self.max_score, "message": self.message,
                "cudalabs": self.cudalabs}

    @property
    def lab(self) -> str:
        return self.cudalabs.get("lab") or self.name.split()[0]

    @property
    def flags(self) -> list[dict[str, Any]]:
        return self.cudalabs.get("flags") or []

    @property
    def ratios(self) -> list[dict[str, Any]]:
        return self.cudalabs.get("ratios") or []

    @property
    def unavailable(self) -> list[dict[str, Any]]:
        """The parts the grading GPU could not run: {technique, objective, points, needs}."""
        return self.cudalabs.get("unavailable") or []
