# SPDX-License-Identifier: BSD-3-Clause
"""The measurement channel (cudalab/testing.hpp): the "[ CUDALAB-RECORD ] {...}" records in
each test's captured output, and the reports of batch runs ("[ CUDALAB-BATCH ] {...}"). A
test's records count only from its own output and only when they name it; what they give
the scores (each test's verdict source, measurements, speed bars and their calibration).

Library only (no command line); Python 3 standard library.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from .model import Bar, BarRecord, DeviceRecord, Measurement, Tier

RECORD_MARKER = "[ CUDALAB-RECORD ] "
BATCH_MARKER = "[ CUDALAB-BATCH ] "
BATCH_SUFFIX = ".@batch"
# Tests of the known-wrong and correct-alternative submissions (cmake/CudalabWrong.cmake).
VARIANT_TEST = re.compile(r"^(wrong|right)\.(lab\d\d)\.(.+)$")


def json_lines(output: str, marker: str) -> list[dict]:
    """The JSON objects of the lines of @p output that start with @p marker."""
    found = []
    for line in output.splitlines():
        if not line.startswith(marker):
            continue
        try:
            rec = json.loads(line[len(marker):])
        except ValueError:
            continue
        if isinstance(rec, dict) and isinstance(rec.get("test"), str):
            found.append(rec)
    return found


def empty_channel() -> dict:
    return {"start": 0.0, "test": {}, "device": None, "measurements": [], "bars": [],
            "result": None}


def channel_of(records: list[dict]) -> dict:
    """One test's channel entry from its records, in the order the test printed them."""
    entry = empty_channel()
    for rec in records:
        kind = rec.get("type")
        if kind == "test":
            entry = empty_channel()
            entry["test"] = rec
            entry["start"] = rec.get("unix_time") or 0.0
        elif kind == "device":
            entry["device"] = DeviceRecord.from_record(rec)
        elif kind == "measurement":
            entry["measurements"].append(rec)
        elif kind == "bar":
            entry["bars"].append(BarRecord.from_record(rec))
        elif kind == "result":
            entry["result"] = rec
    return entry


def attribute(cases: list[dict], known: set[str]) -> tuple[dict[str, dict], list[str]]:
    """Each test's verdict and channel from CTest's record of one run.

    A test's records count only from its own captured output, and only those naming it. A
    batch run (<prefix><Suite>.@batch) reports, in its own output, the status and records of
    each test of its suite: for those tests, that report counts, not the test's relay of a
    result file (which another process could have written). Returns ({test: {"status",
    "message", "time_s", "channel", "source"}}, anomalies: one line each, ignored input)."""
    anomalies: list[str] = []
    batch_status: dict[str, str] = {}
    batch_records: dict[str, list[dict]] = {}
    by_name = {}
    for c in cases:
        by_name[c["name"]] = c
        if not c["name"].endswith(BATCH_SUFFIX):
            continue
        prefix = c["name"][:-len(BATCH_SUFFIX)] + "."
        for line in json_lines(c["output"], BATCH_MARKER):
            if line["test"].startswith(prefix) and line.get("status") in ("passed", "failed",
                                                                          "skipped"):
                batch_status[line["test"]] = line["status"]
            else:
                anomalies.append(f"{c['name']} reported a status for {line['test']}, which is "
                                 f"not a test of its suite: ignored")
        for rec in json_lines(c["output"], RECORD_MARKER):
            if rec["test"].startswith(prefix):
                batch_records.setdefault(rec["test"], []).append(rec)
            else:
                anomalies.append(f"{c['name']} printed a record for {rec['test']}, which is not "
                                 f"a test of its suite: ignored")
    results: dict[str, dict] = {}
    for c in cases:
        name = c["name"]
        if name.endswith(BATCH_SUFFIX) or VARIANT_TEST.match(name):
            continue
        if name not in known:
            anomalies.append(f"{name} is not a test of this build (or not declared): ignored")
            continue
        own = []
        for rec in json_lines(c["output"], RECORD_MARKER):
            if rec["test"] == name:
                own.append(rec)
            else:
                anomalies.append(f"the output of {name} holds a record for {rec['test']}: ignored")
        status, source = c["status"], "ctest"
        if name in batch_status:
            source = "batch"
            if status in ("passed", "failed", "skipped") and status != batch_status[name]:
                anomalies.append(f"{name}: CTest says {status} but its batch run said "
                                 f"{batch_status[name]} (was its result file altered?); the "
                                 f"batch run's verdict counts")
            status = batch_status[name]
            own = batch_records.get(name, [])
        chan = channel_of(own) if own else None
        message = c["message"]
        if chan and chan["result"] and status in ("failed", "skipped") and \
                chan["result"].get("message"):
            message = _channel_message(chan["result"])
        elif status == "failed" and c["status"] == "passed":
            message = "failed in its batch run"
        results[name] = {"status": status, "message": message, "time_s": c["time_s"],
                         "channel": chan, "source": source}
    return results, anomalies


def _channel_message(res: dict) -> str:
    text = " ".join((res.get("message") or "").split())[:400]
    if res.get("file") and res.get("status") == "failed":
        return f"{Path(res['file']).name}:{res.get('line')}: {text}"
    return text


# ---------------------------------------------------------------------------
# What a test's channel gives its entry in scores.json
# ---------------------------------------------------------------------------
def channel_measurements(test: str, chan: dict | None, status: str) -> list[Measurement]:
    """The measurements of a test's channel, each with its bar's source and calibration and
    the test's @p status."""
    if not chan:
        return []
    scale = chan["test"].get("speedup_scale")
    bars = {b.name: b for b in chan.get("bars") or []}
    out = []
    for m in chan["measurements"]:
        bar = bars.get(m.get("name")) or BarRecord()
        out.append(Measurement(
            test=test, name=m.get("name"), value=m.get("value"), bar_source=bar.source,
            calibration=bar.calibration, unit=m.get("unit") or "",
            threshold=m.get("threshold"), bound=m.get("bound"), verdict=m.get("verdict"),
            unscaled_threshold=m.get("unscaled_threshold"),
            speedup_scale=m.get("speedup_scale", scale), text=m.get("text"),
            tiers=[Tier(t.get("name"), t.get("at_least")) for t in m.get("tiers") or []],
            tier=m.get("tier"), status=status))
    return out


def channel_bars(chan: dict | None) -> list[Bar]:
    """The speed bars a test judged against and where each came from (speed_bar())."""
    return [b.to_bar() for b in (chan or {}).get("bars") or []]


def calibration_summary(used: list[dict]) -> dict:
    """Which calibration files the scored results' speed bars came from (and any note)."""
    files: Counter[str] = Counter()
    sources: Counter[str] = Counter()
    notes: set[str] = set()
    gpus: set[str | None] = set()
    for chan in used:
        for b in chan.get("bars") or []:
            sources[b.source or "?"] += 1
            if b.calibration:
                files[b.calibration] += 1
                gpus.add(b.calibration_gpu)
            if b.note:
                notes.add(b.note)
    return {"files": sorted(files), "calibrated_on": sorted(g for g in gpus if g),
            "bars": sum(sources.values()), "by_source": dict(sorted(sources.items())),
            "notes": sorted(notes)}

