# SPDX-License-Identifier: BSD-3-Clause
"""Writes a CTest resource spec file for the GPUs of this machine.

    python3 -m tools.gpu_resources [--gpus N | --ids 0,2] [--slots S] [-o FILE]
    ctest --preset solution --resource-spec-file FILE -j <8 x GPUs>

Every build already has such a file (<build>/cudalab_resources.json, written at configure
time from `nvidia-smi -L` or CUDALAB_GPU_COUNT, with CUDALAB_GPU_SLOTS slots per GPU), and
ctest uses it unless --resource-spec-file names another: this tool is for a runner whose
GPUs differ from the configuring machine's, or for using only some of them (--ids).
Every correctness test asks for RESOURCE_GROUPS "gpus:1"; CTest then gives it one GPU id
in CTEST_RESOURCE_GROUP_0_GPUS, which the tests turn into cudaSetDevice(id). Perf and
profiler tests run alone: RUN_SERIAL, or with CUDALAB_PERF_PER_GPU=ON every slot of one
GPU — then --slots must equal the build's CUDALAB_GPU_SLOTS (default 8, the default here
too). The GPUs are counted with `nvidia-smi -L` unless --gpus or --ids says which
(CUDA_VISIBLE_DEVICES renumbers them from 0, as CUDA does). Example for 4 GPUs:
tools/gpu-resources.json. Python 3 standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys


def detected_ids() -> list[str]:
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and visible.strip() not in ("", "all"):
        entries = [v for v in visible.split(",") if v.strip()]
        return [str(i) for i in range(len(entries))]  # CUDA renumbers visible GPUs from 0
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=60,
                             check=True).stdout
    except (OSError, subprocess.SubprocessError) as e:
        raise SystemExit(f"gpu_resources: cannot count the GPUs with nvidia-smi ({e}); "
                         f"pass --gpus N") from None
    n = sum(1 for line in out.splitlines() if line.startswith("GPU "))
    return [str(i) for i in range(n)]


def main() -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tools.gpu_resources", description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpus", type=int, help="number of GPUs (ids 0..N-1)")
    ap.add_argument("--ids", help="comma-separated CUDA device ids, e.g. 0,2")
    ap.add_argument("--slots", type=int, default=8,
                    help="tests sharing one GPU (default 8, as CUDALAB_GPU_SLOTS)")
    ap.add_argument("-o", "--output", help="file to write (default: standard output)")
    args = ap.parse_args()
    if args.gpus is not None and args.ids:
        ap.error("give --gpus or --ids, not both")
    if args.slots < 1:
        ap.error("--slots must be at least 1")
    if args.ids:
        ids = [i.strip() for i in args.ids.split(",") if i.strip()]
        if not all(i.isdigit() for i in ids):
            ap.error(f"--ids takes numbers, got {args.ids!r}")
    elif args.gpus is not None:
        if args.gpus < 1:
            ap.error("--gpus must be at least 1")
        ids = [str(i) for i in range(args.gpus)]
    else:
        ids = detected_ids()
    if not ids:
        print("gpu_resources: no GPU found; GPU tests skip without a resource spec", file=sys.stderr)
        return 1
    spec = {"version": {"major": 1, "minor": 0},
            "local": [{"gpus": [{"id": i, "slots": args.slots} for i in ids]}]}
    text = json.dumps(spec, indent=2) + "\n"
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"gpu_resources: {len(ids)} GPU(s) x {args.slots} slot(s) -> {args.output}",
              file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
