"""The firmware's heap after a start from flash and in enroll mode, on the
virtual table's board with its chip models (docs/firmware.md, "Heap": "After
a restore and in enroll mode"). Prints the figures; writes nothing.

1. A one-deck virtual table is started and stopped: its flash holds the
   snapshot of a table at its first deal, as a restart in enroll mode finds it
   (tests/readers/test_enroll_reconnect.py).
2. ``bench/enroll_heap_mp.py`` builds the board as ``vboard.py`` does on a
   copy of that flash (the chip models measured apart), starts the App from
   flash, turns enroll mode on at seat 2 and puts 30 tags down; at each point
   the live heap (``gc.collect()`` then ``gc.mem_alloc()``) and the qstr pools.

Usage: .venv/bin/python bench/bench_enroll_heap.py [--heap 208K] [--tags 30]
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from pathlib import Path

import rp2040
from tractor_table import mpy, virtual_heap
from tractor_table.sim.virtual.runner import CHIP_SOURCE, MPY_DIR, VirtualTable, compile_for_host

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--heap", default="208K", help="the heap (the virtual table's default with chip models)")
    ap.add_argument("--tags", type=int, default=30)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-enroll-") as tmp:
        work = Path(tmp)
        vt = VirtualTable(1, workdir=work / "table", keep_state=True)
        vt.start()
        if not vt.wait(lambda: vt.store.exists(), 20):
            raise SystemExit("the virtual table saved no state")
        vt.close()
        flash = work / "flash"
        shutil.copytree(vt.store.parent, flash)
        compile_for_host(work / "sim", CHIP_SOURCE)
        for src in (MPY_DIR / "vboard.py", MPY_DIR / "hands.py", MPY_DIR / "heapreport.py"):
            compile_for_host(work / "sim", src)
        code = virtual_heap.resident_code(work / "table" / "firmware")
        proc = mpy.run(
            HERE / "enroll_heap_mp.py",
            path=[work / "table" / "firmware", work / "sim"],
            heapsize=args.heap,
            args=[str(flash / "table.json"), str(flash / "table.cfg"), str(flash / "cards.bin"), "1", str(args.tags)],
            timeout=300,
        )
    if proc.returncode != 0:
        print(proc.stdout, proc.stderr, file=sys.stderr)
        return 1
    print(
        f"heap {args.heap}; firmware = live heap minus the chip models; RP2040: the difference from the "
        f"start (enroll mode's code and state) x {rp2040.HEAP_DATA:g} (the larger factor) on top of "
        "the table at start, calibrated by kind (bench/rp2040.py)"
    )
    print("| point | live heap | firmware | RP2040 (calibrated) | qstrs, pools |")
    print("|---|---:|---:|---:|---|")
    label = ""
    live = sim = 0
    base = -1
    for line in proc.stdout.splitlines():
        if line.startswith("P "):
            head, live_s, sim_s = line[2:].rsplit(" ", 2)
            label, live, sim = head, int(live_s), int(sim_s)
        elif line.startswith("qstr pool") and label != "start":
            m = re.search(r"n_pool=(\d+), n_qstr=(\d+)", line)
            pools = f"{m.group(2)}, {m.group(1)}" if m else "?"
            fw = live - sim
            if base < 0:
                base = fw
            # the point's growth over the first point is enroll mode's code and
            # tags (the data factor: the larger of the two); the first point is
            # the table at start, calibrated as a whole match is (code by kind)
            chip = code.chip_peak(base) + rp2040.HEAP_DATA * (fw - base)
            print(f"| {label} | {live:,} | {fw:,} | {round(chip):,} | {pools} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
