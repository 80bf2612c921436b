"""Instructions a check, locked against unlocked, in a clean heap and a holey
one (issue 21; docs/performance.md, "The checks with the heap locked"):
valgrind's callgrind over ``bench/holes_mp.py --count`` (MicroPython's unix
port), each figure the difference of N calls and none in one process.

    .venv/bin/python bench/holes_count.py [IDS] [--calls N]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

from tractor_table import mpy
from tractor_table.paths import FIRMWARE_DIR
from tractor_table.sim.engine import MPY_DIR

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = "adv-66,adv-60,adv-51,adv-52,host-11-3972,adv-47"


def instructions(cid: str, way: str, heap: str, calls: int) -> int:
    """callgrind's total instructions of one run of holes_mp.py --count."""
    cmd = mpy.command(ROOT / "bench" / "holes_mp.py", heapsize="512K", args=["--count", cid, way, heap, str(calls)])
    env = {**mpy._env([FIRMWARE_DIR, MPY_DIR])}
    proc = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
        env=env, cwd=ROOT, capture_output=True, text=True, check=False, timeout=1200,
    )
    m = re.search(r"Collected : (\d+)", proc.stderr)
    if proc.returncode != 0 or m is None:
        raise SystemExit(f"{cid} {way} {heap}: {proc.stderr[-1500:]}")
    return int(m.group(1))


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ids", nargs="?", default=DEFAULT)
    ap.add_argument("--calls", type=int, default=20)
    args = ap.parse_args(argv[1:])
    for cid in args.ids.split(","):
        row: dict[str, object] = {"id": cid}
        for heap in ("clean", "holey"):
            for way in ("locked", "unlocked"):
                a = instructions(cid, way, heap, args.calls)
                b = instructions(cid, way, heap, 0)
                row[f"{heap}_{way}"] = round((a - b) / args.calls)
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
