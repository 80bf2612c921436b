"""Calibration of unix-port figures to a real RP2040 (MicroPython rp2 port).

The factors were measured by running the firmware on the real MicroPython rp2
port (v1.28.0, board ``RPI_PICO``) on an emulated RP2040 at 125 MHz, against
the unix port's figures for the same inputs (the project's notes, "The firmware
on the real MicroPython rp2 port: first figures", 2026-12-01; summarised in
``docs/performance.md``, section "Calibration"). Emulated time charges no
flash wait states: a real chip is about 1.1-1.3x slower, so every time factor
is multiplied by ``FLASH_WAIT`` (the pessimistic end).

Use these, never a pystone ratio:

    rp2_ms = unix_us / 1000 * TIME[kind] * FLASH_WAIT
    rp2_bytes = unix_bytes * HEAP
"""

from __future__ import annotations

#: rp2 heap / unix-port heap (64-bit objects -> 32-bit), measured three ways:
#: module code 74,304 / 95,104 B = 0.78; the rules engine's code and working
#: state 0.79; the table core's peak over 40 hands 108,992 / 139,744 B = 0.78.
HEAP = 0.78

#: Emulated RP2040 time charges no flash wait states: x1.3 for a real chip.
FLASH_WAIT = 1.3

#: rp2 time / unix-port time, by kind of work (emulated RP2040 at 125 MHz).
TIME: dict[str, float] = {
    # rules check over the 300-hand corpus: median 0.38 ms / 2 us, worst 33.5 ms / 211 us
    "rules_median": 190.0,
    "rules_worst": 159.0,
    # the table core, median per input
    "lead": 106.0,  # 4.05 ms / 0.038 ms
    "follow": 112.0,  # follow's last tap: 3.94 ms / 0.035 ms
    "hand_end": 125.0,  # the hand's last tap: 98.6 ms / 0.786 ms
    "snapshot": 124.0,  # snapshot serialised: 14.4 ms / 0.116 ms
}

#: The factor to use for any rules check (lead, follow, throw, trick): the
#: larger of the two measured (median) ratios, so that an estimate is never
#: flattered by the smaller worst-case ratio.
RULES = TIME["rules_median"]

#: Generic firmware work (the main loop, the scanner, the link) that has no
#: factor of its own: the largest table-core factor measured.
GENERIC = max(TIME["lead"], TIME["follow"], TIME["hand_end"], TIME["snapshot"])

#: Where the factors come from, for the docs.
SOURCE = (
    "factors measured on the real MicroPython rp2 port v1.28.0 (RPI_PICO, emulated "
    "RP2040 at 125 MHz) against the unix port on the same inputs, x1.3 for flash wait states"
)


def rp2_ms(unix_us: float, kind: str = "rules") -> float:
    """A unix-port time in microseconds, as milliseconds on a real RP2040."""
    factor = RULES if kind == "rules" else GENERIC if kind == "generic" else TIME[kind]
    return unix_us / 1000.0 * factor * FLASH_WAIT


def rp2_bytes(unix_bytes: float) -> float:
    """A unix-port (64-bit) heap figure, as bytes on the rp2 port (32-bit objects)."""
    return unix_bytes * HEAP
