"""bench/chip_gc.py: a collection timed on the emulated RP2040 and on the unix
port (the board itself, tools/rp2emu, is built by hand). What it must hold
without the board: the probe runs on the unix port and gives a row for every
heap size, its live heap growing with the lists; the lines the runner types
rebuild the probe; the figures drawn from the rows are theirs."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "bench") not in sys.path:
    sys.path.insert(0, str(ROOT / "bench"))

import chip_emu  # noqa: E402
import chip_gc  # noqa: E402


def test_the_probe_times_a_collection_for_each_heap_on_the_unix_port() -> None:
    rows = chip_gc.unix("500K", 1)
    assert sorted(rows) == list(chip_gc.SIZES)
    live = [rows[n][1] for n in chip_gc.SIZES]
    assert live == sorted(live) and live[-1] > live[0] + 100_000, rows  # 2,000 lists: over 100 KB more
    assert all(rows[n][0] > 0 for n in chip_gc.SIZES[1:]), rows


def test_the_typed_lines_rebuild_the_probe() -> None:
    lines: list[str] = []
    chip_emu.typed(chip_gc.PROBE, lines)
    assert all(len(ln.encode()) <= 510 for ln in lines)  # run.mjs's longest line
    scope: dict[str, str] = {}
    for ln in lines[:-1]:
        exec(ln, scope)  # the pieces, joined as the board joins them
    assert scope["s"] == chip_gc.PROBE and lines[-1] == "exec(s)"
    assert "for k in (0, 500, 1000, 1500, 2000):" in chip_gc.PROBE


def test_the_figures_are_the_rows() -> None:
    # a chip 0.5 ms + 128 us a KiB, this port 100 times faster: the ratio 100 at every size beyond the empty heap
    chip = {n: (500 + n * 9, 3000 + n * 72, 0) for n in chip_gc.SIZES}
    unix = {n: ((500 + n * 9) / 100, 1000 + n * 140, 0) for n in chip_gc.SIZES}
    text = chip_gc.render("cmd", {"chip": chip, "unix": unix, "heap": "500K", "runs": 5, "load": [0.1, 0.2],
                                  "c_factor_fixed": 88.4})
    assert "| 2000 | 144 / 274 KiB | **18.5 ms** | 185 us | 100 |" in text, text
    assert "0.50 ms with the heap nearly empty and 128 us more per KiB live" in text, text
    assert "The ratio chip / this port, 100-100 (x 1.3 with the wait states: 130-130)" in text, text
    assert "this port's time x the factor is 0.68-0.90 of the chip's" in text, text
