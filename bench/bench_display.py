"""The display's cost on the device (issue 23, the display seam): what the
display path holds in the heap, the I2C time of its transfers, and the
firmware's live heap after boot on the board model.

1. Heap of the display path, isolated (deterministic): under MicroPython's
   unix port, ``display`` and ``picoboard`` imported and, on the Pico's path,
   the panel's driver; then the display model and the driver after a set-up
   and a frame (before the seam: ``display.SSD1306`` and picoboard's list of
   the pages' lines). Code and objects, bytes on the unix port.
2. I2C time on the board model's bus (400 kHz, the CPU's own time not
   charged): the set-up, a whole frame, a frame where one line changed.
3. With ``--boots N``: N boots of the board model (2 decks), the firmware's
   live heap after boot (the least of 5 probes, the models' share out) and
   its chip estimate (by kind).

The tree measured is the one whose ``tractor_table`` is imported: to measure
another (the firmware before the seam), put its ``host`` and ``engine`` first
on PYTHONPATH.

Usage: .venv/bin/python bench/bench_display.py [--boots N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import textwrap
from pathlib import Path

from tractor_table import mpy, paths
from tractor_table.sim.virtual.runner import compile_for_host

_PATH_HEAP = """
import gc
def live():
    gc.collect(); gc.collect(); return gc.mem_alloc()
class Bus:
    def writeto(self, a, b): pass
    def writevto(self, a, v): pass
class Pin:
    def value(self, v): pass
a = live()
import display, picoboard
old = hasattr(display, "SSD1306")
if not old:
    drv = __import__(PANEL.lower())
c = live()
m = display.DisplayModel()
if old:
    d = display.SSD1306(Bus(), 0x3C)
    lines = [None] * 8  # picoboard's copy of the pages' lines
else:
    d = getattr(drv, PANEL)(Bus(), 0x3C, 128, 64, *((Pin(),) if PANEL == "SSD1309" else ()))
    d.init()
    d.update(m.buf, m.lines)
b = live()
print("HEAP", "before-seam" if old else PANEL, c - a, b - c)
"""

_I2C_TIME = """
from machine import I2C, Pin
import display
board.clock.factor = 0
bus = I2C(0, sda=Pin(16), scl=Pin(17))
buf = bytearray(1024)
def us(f):
    t = time.ticks_us(); f(); return time.ticks_diff(time.ticks_us(), t)
if hasattr(display, "SSD1306"):
    d = display.SSD1306(bus, 0x3C)
    def one():  # picoboard._draw for one changed page
        for c in (0x21, 0, 127, 0x22, 3, 3):
            d.command(c)
        bus.writevto(0x3C, (b"\\x40", memoryview(buf)[384:512]))
    print("I2C", "before-seam", us(d.init), us(lambda: d.show(buf)), us(one))
else:
    import ssd1306
    d = ssd1306.SSD1306(bus, 0x3C, 128, 64)
    keys = [""] * 8
    def one():
        keys[3] = "x"
        d.update(buf, keys)
    print("I2C", "SSD1306", us(d.init), us(lambda: d.update(buf, keys)), us(one))
"""

_PRELUDE = """
import machine, time, picoboot
board = picoboot.Board(None, None, None, 0)
machine._attach(board)
time.install(board.clock, board.idle)
"""


def path_heap(fw: Path) -> list[str]:
    out = []
    before_seam = "class SSD1306" in (paths.FIRMWARE_DIR / "display.py").read_text(encoding="utf-8")
    panels = ("SSD1306",) if before_seam else ("SSD1306", "SSD1309")
    for panel in panels:
        r = mpy.run(code=f"PANEL = {panel!r}\n" + _PATH_HEAP, path=[fw], heapsize="1M", timeout=60)
        if r.returncode != 0:
            raise SystemExit(f"the display path's heap: {r.stdout}{r.stderr}")
        out += [line for line in r.stdout.splitlines() if line.startswith("HEAP")]
    return out


def i2c_time() -> str:
    board = paths.ROOT / "host" / "tractor_table" / "sim" / "board" / "mpy"
    pn532 = paths.ROOT / "host" / "tractor_table" / "sim" / "pn532sim"
    r = mpy.run(code=_PRELUDE + textwrap.dedent(_I2C_TIME), path=[board, pn532, paths.FIRMWARE_DIR],
                heapsize="512K", timeout=120)
    if r.returncode != 0:
        raise SystemExit(f"the I2C time: {r.stdout}{r.stderr}")
    return next(line for line in r.stdout.splitlines() if line.startswith("I2C"))


def boots(n: int) -> list[tuple[int, int]]:
    from shengji import Rules
    from tractor_table.sim.board.runner import PicoTable

    out = []
    for _ in range(n):
        with tempfile.TemporaryDirectory() as d:
            vt = PicoTable(2, rules=Rules(decks=2), workdir=Path(d))
            with vt:
                _free, alloc, _, _ = min((vt.probe_heap() for _ in range(5)), key=lambda p: p[1])
            fw = alloc - vt.sim_bytes
            kinds = vt.code_kinds
            assert kinds is not None
            out.append((fw, kinds.chip_peak(fw)))
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boots", type=int, default=0, help="boots of the board model to measure (0: none)")
    args = ap.parse_args(argv[1:])
    print(f"tree: {paths.ROOT}")
    with tempfile.TemporaryDirectory(prefix="bench-display-") as tmp:
        fw = Path(tmp) / "firmware"
        compile_for_host(fw)
        for line in path_heap(fw):
            _, name, code, objects = line.split()
            print(f"display path heap, {name}: code {int(code):,} B + objects {int(objects):,} B = {int(code) + int(objects):,} B")
    _, name, init, whole, one = i2c_time().split()
    print(f"I2C time, {name}: set-up {int(init):,} us, whole frame {int(whole):,} us, one line changed {int(one):,} us")
    if args.boots:
        runs = boots(args.boots)
        for fw_bytes, chip in runs:
            print(f"board model after boot: firmware live {fw_bytes:,} B (chip by kind {chip:,} B)")
        print(f"median of {len(runs)}: {statistics.median(r[0] for r in runs):,.0f} B, "
              f"chip {statistics.median(r[1] for r in runs):,.0f} B")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
