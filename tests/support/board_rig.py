"""Running MicroPython snippets on the board model's machine module (tests/board)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tractor_table import mpy

ROOT = Path(__file__).resolve().parents[2]
BOARD = ROOT / "host" / "tractor_table" / "sim" / "board" / "mpy"
PN532SIM = ROOT / "host" / "tractor_table" / "sim" / "pn532sim"
FIRMWARE = ROOT / "firmware"

# a board with no host (no FIFOs, no flash), its machine module attached
PRELUDE = """
import machine, time, picoboot
board = picoboot.Board(None, None, None, 0)
machine._attach(board)
time.install(board.clock, board.idle)
"""


def on_board(code: str, heapsize: str = "512K") -> str:
    """Run ``code`` after PRELUDE under MicroPython (board/mpy's machine and
    time ahead of the built-ins, the chip model, the firmware); its output, or
    AssertionError with MicroPython's output when it failed."""
    src = PRELUDE + textwrap.dedent(code)
    proc = mpy.run(code=src, path=[BOARD, PN532SIM, FIRMWARE], heapsize=heapsize, timeout=120)
    out = proc.stdout + proc.stderr
    if proc.returncode != 0:
        raise AssertionError(f"MicroPython failed:\n{out}")
    return out
