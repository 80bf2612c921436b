"""Diagnosis of the device rules bench's spread: each adversarial case's
check called N times in a row in one MicroPython process, as the bench calls
it, with ``gc.collect()`` before each call, and with ``gc.disable()`` around
them; prints min / median / max µs (unix port) per case and the most bytes one
call allocated, and the cost of a ``gc.collect()``. Not a benchmark (writes no
section of docs/performance.md).

    .venv/bin/python bench/device_rules_spread.py [--repeat N] [--modes plain gc nogc] [FILE.jsonl ...]

FILE: cases as in ``tests/device_rules/data/adversarial.jsonl`` (the default).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tractor_table import adversarial, mpy
from tractor_table.paths import FIRMWARE_DIR
from tractor_table.sim import engine

HERE = Path(__file__).resolve().parent
RUNNER = HERE / "device_rules_spread_mp.py"
STORED = HERE.parent / "tests" / "device_rules" / "data" / "adversarial.jsonl"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--modes", nargs="+", default=["plain", "gc", "nogc"], choices=["plain", "gc", "nogc"])
    ap.add_argument("files", nargs="*", type=Path, default=[STORED])
    args = ap.parse_args(argv[1:])
    cases = [c for f in args.files for c in adversarial.read_cases(f)]
    lines = [json.dumps({k: v for k, v in c.items() if k not in adversarial._NOT_FOR_DEVICE}) for c in cases]
    for mode in args.modes:
        proc = mpy.run(
            RUNNER,
            args=[mode, str(args.repeat)],
            path=[FIRMWARE_DIR, engine.MPY_DIR],
            heapsize="4M",
            input="\n".join(lines) + "\n",
            timeout=3600,
        )
        if proc.returncode != 0:
            raise SystemExit(f"{mode}: the MicroPython runner failed:\n{proc.stderr[-2000:]}")
        out = proc.stdout.splitlines()
        print(f"== {mode} ({args.repeat} calls each): gc.collect() {json.loads(out[0])}")
        for line in out[1:]:
            cid, kind, lo, med, hi, alloc = json.loads(line)
            print(f"{cid} {kind}: min {lo} median {med} max {hi} µs; allocated {alloc} B")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
