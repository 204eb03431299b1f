# SPDX-License-Identifier: BSD-3-Clause
"""Checks the scoreboard's reading of the measurement channel test (tools/ci_checks.sh).

usage: check_channel_scores.py SCORES_JSON

cudalab.GivenChannelCpu.MeasurementAfterLongOutputReachesTheScoreboard records a measurement
with tiers (good >= 75, excellent >= 85) at 80 (the scoreboard's --expect-measurement checks
that it arrived): scores.json must list both tiers and say it reached "good". Exit 0 when it
does, 1 otherwise.
"""
import json
import sys

from ..model import ModelError, measurements_of

TEST = "cudalab.GivenChannelCpu.MeasurementAfterLongOutputReachesTheScoreboard"


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        report = json.load(f)
    try:
        found = {m.name: m for m in measurements_of(report.get("measurements", []),
                                                    "scores.json measurements")
                 if m.test == TEST}
    except ModelError as e:
        print(f"check_channel_scores: {e} ({argv[1]})", file=sys.stderr)
        return 1
    problems = []
    tiered = found.get("tiered")
    tier, tiers = (tiered.tier, [t.to_json() for t in tiered.tiers]) if tiered else (None, None)
    if tier != "good":
        problems.append(f"tiered should have reached tier 'good', scores.json says {tier!r}")
    if [t.get("name") for t in tiers or []] != ["good", "excellent"]:
        problems.append(f"tiered should list tiers good, excellent: {tiers!r}")
    for p in problems:
        print(f"check_channel_scores: {p} ({argv[1]})", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
