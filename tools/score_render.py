# SPDX-License-Identifier: BSD-3-Clause
"""The scoreboard's report (scores.json, tools/scoring.py) as people read it: the terminal
table and the Markdown of scores.md and the CI job's step summary.

Library only (no command line); Python 3 standard library.
"""

from __future__ import annotations

from collections import Counter

from .model import LabScore, Measurement
from .scoring import SCHEMA_NAME, SCHEMA_VERSION, cc_key


def _fmt(x) -> str:
    if isinstance(x, float):
        return f"{x:.4g}"
    return "-" if x is None else str(x)


def _pts(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".") if isinstance(x, (int, float)) else str(x)


def measurement_text(m: Measurement) -> str:
    unit = m.unit if m.unit in ("x", "%") else (" " + m.unit if m.unit else "")
    text = f"{m.name} {_fmt(m.value)}{unit}"
    if m.threshold is not None:
        sign = {"min": ">= ", "max": "<= "}.get(m.bound or "", "threshold ")
        text += f" ({sign}{_fmt(m.threshold)})"
    if m.tiers:
        text += f", tier {tier_text(m)}"
    return text


def tier_text(m: Measurement) -> str:
    """The tier a measurement reached and the tiers it had: 'good (good >= 75, excellent >= 85)'."""
    levels = ", ".join(f"{t.name} >= {_fmt(t.at_least)}" for t in m.tiers)
    return f"{m.tier or 'none'} ({levels})"


def variant_verdicts(report: dict) -> list[tuple[str, str, list[dict]]]:
    """(title, verdict counts, the variants judged wrongly or not at all) of the known-wrong
    submissions and of the correct alternatives that ran."""
    out = []
    for kind, bad in (("wrong", ("accepted", "error")), ("right", ("rejected", "error"))):
        if report[kind]:
            v = Counter(w["verdict"] for w in report[kind])
            title = "known-wrong submissions" if kind == "wrong" else "correct alternatives"
            out.append((title, ", ".join(f"{n} {k}" for k, n in sorted(v.items())),
                        [w for w in report[kind] if w["verdict"] in bad]))
    return out


def gpu_line(env: dict) -> str:
    gpu = env["gpu"]
    tk = env.get("cuda_toolkit") or "unknown"
    if not gpu["available"]:
        return (f"GPU: none. GPU tests were skipped ({gpu['reason']}); only the CPU-graded "
                f"parts are scored. CUDA toolkit {tk}.")
    text = (f"GPU: {gpu['name']}, compute capability {gpu['compute_capability']}, "
            f"{gpu['sm_count']} SMs at {gpu['sm_clock_mhz']} MHz, driver {gpu['driver']}, "
            f"runtime {gpu['runtime']}, CUDA toolkit {tk}")
    if len(env.get("gpus_seen", [])) > 1:
        text += f" ({len(env['gpus_seen'])} different GPUs ran tests)"
    return text


def scale_line(env: dict) -> str:
    seen = env.get("speedup_scales_seen") or []
    if not seen:
        return "CUDALAB_SPEEDUP_SCALE: no test reported it"
    if len(seen) == 1:
        s = seen[0]
        return "CUDALAB_SPEEDUP_SCALE " + ("invalid" if s is None else _fmt(float(s))) + \
            (" (the default: thresholds as written)" if s == 1 else
             " (every speed threshold was scaled by it)")
    return "CUDALAB_SPEEDUP_SCALE differed between results: " + \
        ", ".join("invalid" if s is None else _fmt(float(s)) for s in seen)


def calibration_line(env: dict) -> str:
    cal = env.get("calibration") or {}
    if not cal.get("bars"):
        return "speed bars: none judged"
    src = cal.get("by_source") or {}
    where = ", ".join(cal.get("files") or []) or "no calibration file"
    text = (f"speed bars: {cal['bars']} judged; {src.get('calibration', 0)} calibrated for this "
            f"GPU, {src.get('reference', 0)} from the reference GPU's calibration")
    if src.get("none"):  # a bar no calibration file has: its test failed
        text += f", {src['none']} with no bar in any calibration file (failed)"
    text += f" ({where})"
    for note in cal.get("notes") or []:
        text += f"\nnote: {note}"
    return text


def run_line(report: dict) -> str:
    r = report["run"]
    if not r["partial"] and r["from_previous"] == 0:
        return f"complete run: all {r['graded_tests']} graded tests have a result from it."
    parts = []
    if r["partial"]:
        parts.append(f"partial run: {r['with_result']} of {r['graded_tests']} graded tests have "
                     f"a result ({r['not_run']} never run)")
    else:
        parts.append(f"all {r['graded_tests']} graded tests have a result")
    if r["from_previous"]:
        parts.append(f"{r['from_this_run']} from this run, {r['from_previous']} kept from "
                     f"earlier runs as asked (--keep-previous; {r['oldest_result']} to "
                     f"{r['newest_result']})")
    if r["graders_not_built"]:
        parts.append("not built: " + ", ".join(r["graders_not_built"]))
    return "; ".join(parts) + "."


def lab_scores(report: dict) -> list[LabScore]:
    """The labs[] of a report, typed (tools/model.py)."""
    return [LabScore.from_json(lab, f"scores.json labs[{i}]")
            for i, lab in enumerate(report["labs"])]


def unavailable_lines(report: dict) -> list[str]:
    """One line per lab with parts this GPU cannot run (labs[].unavailable): their points are
    optional/unavailable on this GPU; empty when there are none."""
    out = []
    for lab in lab_scores(report):
        parts = lab.unavailable
        if not parts:
            continue
        needs = sorted({u.needs for u in parts}, key=cc_key)
        where = "this GPU" if any(u.kind == "gpu" for u in parts) else "this build"
        out.append(f"{lab.lab}: {_pts(sum(u.points for u in parts))} points "
                   f"optional/unavailable on this GPU (need compute capability "
                   f"{' / '.join(needs)}; {where} lacks it): "
                   + ", ".join(f"{u.objective} {_pts(u.points)}" for u in parts)
                   + f"; {_pts(lab.points_available)} of {_pts(lab.max_points)} "
                     f"available here")
    return out


def _rows(report: dict) -> tuple[list[str], list[list[str]]]:
    head = ["lab", "topic", "passed", "failed", "skipped", "not run", "points",
            "key measurements"]
    rows = []
    for lab in lab_scores(report):
        meas = "; ".join(measurement_text(m) for m in lab.measurements[:3])
        if len(lab.measurements) > 3:
            meas += f"; +{len(lab.measurements) - 3} more"
        if not lab.grader_built:
            meas = "grader not built" + ("; " + meas if meas else "")
        rows.append([lab.lab, lab.topic or "", f"{lab.passed}/{lab.tests}",
                     str(lab.failed + lab.error), str(lab.skipped), str(lab.not_run),
                     f"{_pts(lab.points)}/{_pts(lab.max_points)}", meas or "-"])
    t = report["totals"]
    rows.append(["total", "", f"{t['passed']}/{t['tests']}", str(t["failed"] + t["error"]),
                 str(t["skipped"]), str(t["not_run"]),
                 f"{_pts(t['points'])}/{_pts(t['max_points'])}", ""])
    return head, rows


def render_text(report: dict) -> str:
    env = report["environment"]
    head, rows = _rows(report)
    widths = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
    line = lambda r: "  ".join(c.ljust(w) if i in (0, 1, 7) else c.rjust(w)  # noqa: E731
                               for i, (c, w) in enumerate(zip(r, widths))).rstrip()
    impl = env.get("implementation") or "?"
    out = [f"cudalabs scoreboard ({impl} build, {report['generated']})", gpu_line(env),
           scale_line(env), calibration_line(env), run_line(report), "",
           line(head), line(["-" * w for w in widths])]
    out += [line(r) for r in rows[:-1]]
    out += [line(["-" * w for w in widths]), line(rows[-1])]
    t = report["totals"]
    if t["skipped"]:
        out.append(f"{t['skipped']} graded test(s) skipped; points possible here: "
                   f"{_pts(t['max_points_here'])} of {_pts(t['max_points'])}.")
    labs = lab_scores(report)
    gone = unavailable_lines(report)
    if gone:
        out += ["", f"unavailable on this GPU (optional, not moved): points available on this "
                    f"GPU {_pts(t['points_available'])} of {_pts(t['max_points'])}"]
        out += [f"  {g}" for g in gone]
        for lab in labs:
            if lab.unavailable:
                out.append(f"  {lab.lab} why: {lab.unavailable[0].reason}")
    meas = [(lab.lab, m) for lab in labs for m in lab.measurements]
    if meas:
        out += ["", "measurements:"]
        for lab_id, m in meas:
            out.append(f"  {lab_id}  {m.test.split('.', 1)[1]}: {measurement_text(m)}  "
                       f"[{m.status}]")
    fails = [f for lab in labs for f in lab.failures]
    if fails:
        out += ["", "failed:"]
        out += [f"  {f.test}: {f.message}" for f in fails]
    for title, counts, bad in variant_verdicts(report):
        out += ["", f"{title}: {counts}"]
        out += [f"  {w['name']}: {w['verdict'].upper()}" for w in bad]
    g = report["given"]
    if sum(g.values()):
        out += ["", f"not graded (given code, helper suites): {g['passed']} passed, "
                    f"{g['failed'] + g['error']} failed, {g['skipped']} skipped"]
    flags = [f for lab in labs for f in lab.flags]
    if flags:
        out += ["", "needs review (intake scan of the lab files):"]
        out += [f"  needs review: {f.file}:{f.line}: {f.construct}" for f in flags]
    if report.get("anomalies"):
        out += ["", f"ignored ({len(report['anomalies'])}): input that no test of this run may "
                    f"give"]
        out += [f"  {a}" for a in report["anomalies"][:50]]
    return "\n".join(out) + "\n"


def _md(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render_markdown(report: dict) -> str:
    env = report["environment"]
    head, rows = _rows(report)
    rows[-1] = [f"**{c}**" if c else "" for c in rows[-1]]
    out = [f"## cudalabs scoreboard ({env.get('implementation') or '?'} build)", "",
           _md(gpu_line(env)), "", _md(scale_line(env)), "", _md(calibration_line(env)), "",
           _md(run_line(report)), "",
           "| " + " | ".join(head) + " |",
           "|" + "|".join(["---", "---", "--:", "--:", "--:", "--:", "--:", "---"]) + "|"]
    out += ["| " + " | ".join(_md(c) for c in r) + " |" for r in rows]
    labs = lab_scores(report)
    gone = [(lab, u) for lab in labs for u in lab.unavailable]
    if gone:
        t = report["totals"]
        out += ["", "### Unavailable on this GPU", "",
                f"These parts need a newer GPU (or a build with its architecture) than this "
                f"run had: their points are optional/unavailable on this GPU, not moved. "
                f"Points available on this GPU: {_pts(t['points_available'])} of "
                f"{_pts(t['max_points'])}.", "",
                "| lab | objective | points | needs compute capability | why |",
                "|---|---|--:|--:|---|"]
        for lab, u in gone:
            out.append(f"| {lab.lab} | `{_md(u.objective)}` | {_pts(u.points)} "
                       f"(optional/unavailable on this GPU) | {u.needs} | "
                       f"{_md(u.reason)} |")
    meas = [(lab.lab, m) for lab in labs for m in lab.measurements]
    if meas:
        out += ["", "### Measurements", "",
                "| lab | test | measurement | value | threshold | scale | result | tier |",
                "|---|---|---|--:|--:|--:|---|---|"]
        for lab_id, m in meas:
            bound = {"min": ">= ", "max": "<= "}.get(m.bound or "", "")
            thr = f"{bound}{_fmt(m.threshold)}" if m.threshold is not None else "-"
            out.append(f"| {lab_id} | `{_md(m.test.split('.', 1)[1])}` | {_md(str(m.name))} | "
                       f"{_fmt(m.value)} {_md(m.unit)} | {_md(thr)} | "
                       f"{_fmt(m.speedup_scale)} | {m.status} | "
                       f"{_md(tier_text(m)) if m.tiers else '-'} |")
    fails = [f for lab in labs for f in lab.failures]
    if fails:
        out += ["", "<details><summary>Failed tests (" + str(len(fails)) + ")</summary>", ""]
        out += [f"- `{_md(f.test)}`: {_md(f.message)}" for f in fails]
        out += ["", "</details>"]
    for title, counts, bad in variant_verdicts(report):
        out += ["", f"{title.capitalize()}: {counts}"]
        out += [f"- **{w['verdict'].upper()}** `{w['name']}`" for w in bad]
    flags = [f for lab in labs for f in lab.flags]
    if flags:
        out += ["", f"### Needs review ({len(flags)})", ""]
        out += [f"- needs review: `{_md(f.file)}:{f.line}`: {_md(f.construct)}"
                for f in flags]
    if report.get("anomalies"):
        out += ["", f"<details><summary>Ignored input ({len(report['anomalies'])})</summary>", ""]
        out += [f"- {_md(a)}" for a in report["anomalies"][:200]]
        out += ["", "</details>"]
    out += ["", f"_Points: each lab is worth {report['points']['lab_points']}, split over the "
                f"techniques and objectives it declares (docs/scores-schema.md); generated "
                f"{report['generated']}; schema {SCHEMA_NAME} v{SCHEMA_VERSION}._"]
    return "\n".join(out) + "\n"
