"""The MicroPython heap a virtual table's firmware gets by default.

Kept apart from ``tractor_table.virtual`` (which loads the engine, the link and
the bots) so that the command line can name these figures in its help."""

from __future__ import annotations

from .mpy import DEFAULT_HEAP

#: The heap the firmware gets by deck count (the Pico it emulates has the
#: same RAM whatever the decks, but every hand holds decks/2 times the cards:
#: three and four decks get more room on this 64-bit port, whose objects are
#: larger than the Pico's). Measured by bench/bench_heap.py (docs/firmware.md,
#: "Heap"): the live peak with four decks stays far below 160K since the
#: tricks are packed, but the end-of-hand audit of random bots' four-deck
#: throws allocates in bursts, and 160K ran out there.
FIRMWARE_HEAP_BY_DECKS = {1: "160K", 2: "160K", 3: "192K", 4: "224K"}
#: With simulated PN532s the chip models live in the firmware's heap too: the
#: firmware's heap above plus 48K for them (they hold about 22K, and allocate
#: while they answer; measured and reported apart as ``sim_bytes``, and
#: ``firmware_peak`` excludes them).
SIM_HEAP = "208K"
SIM_HEAP_BY_DECKS = {d: f"{int(h[:-1]) + 48}K" for d, h in FIRMWARE_HEAP_BY_DECKS.items()}


def default_heap(decks: int, readers: str) -> str:
    """The heap a virtual table gets by default: the firmware's by deck count,
    plus room for the simulated chips with ``readers="spi"``."""
    if readers == "spi":
        return SIM_HEAP_BY_DECKS.get(decks, SIM_HEAP)
    return FIRMWARE_HEAP_BY_DECKS.get(decks, DEFAULT_HEAP)

#: rp2 heap / unix-port heap (64-bit objects -> 32-bit), measured on the real
#: rp2 port (bench/rp2040.py HEAP; docs/performance.md, "Calibration"): a
#: firmware peak here times this is its estimate on a Pico, whose budget is
#: half its heap, 128 KiB (issue 11).
RP2_HEAP_FACTOR = 0.78
