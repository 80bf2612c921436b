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


def time_factor(kind: str = "rules") -> float:
    """rp2 / unix-port time for ``kind`` (a key of ``TIME``, ``"rules"`` or
    ``"generic"``), flash wait states included: what a unix time is multiplied by."""
    factor = RULES if kind == "rules" else GENERIC if kind == "generic" else TIME[kind]
    return factor * FLASH_WAIT


#: the rp2 port's own figures behind each factor (rp2 / unix), for the docs
MEASURED: list[tuple[str, str, str, str]] = [
    # (what, rp2 port, unix port, factor name)
    ("firmware modules' code, imported in the virtual table's order", "74,304 B", "95,104 B", "heap"),
    ("device rules engine: code / working-state peak", "16,688 / 4,368 B", "21,088 / 5,536 B", "heap"),
    ("table core over the 40 hands of `bench_table.py`: peak `gc.mem_alloc()`", "108,992 B", "139,744 B", "heap"),
    ("rules check over the 300-hand corpus: median", "0.38 ms", "2 µs", "rules_median"),
    ("rules check over the 300-hand corpus: worst", "33.5 ms", "211 µs", "rules_worst"),
    ("table core: a lead (click), median", "4.05 ms", "0.038 ms", "lead"),
    ("table core: a follow's last tap, median", "3.94 ms", "0.035 ms", "follow"),
    ("table core: the hand's last tap, median", "98.6 ms", "0.786 ms", "hand_end"),
    ("table core: a snapshot serialised, median", "14.4 ms", "0.116 ms", "snapshot"),
]


def calibration_markdown() -> str:
    """The "Calibration" section of docs/performance.md: every factor, and where it comes from."""
    out = [
        "## Calibration: from the unix port to an RP2040",
        "",
        "Every RP2040 figure on this page is a unix-port figure times a factor of `bench/rp2040.py`. "
        "The factors were measured by running the firmware on the real MicroPython rp2 port "
        "(v1.28.0, board `RPI_PICO`) on an emulated RP2040 at 125 MHz, against the unix port "
        "on the same inputs (2026-12-01). Emulated time charges no flash wait states, and a "
        f"real chip is about 1.1–1.3× slower: every time factor is multiplied by {FLASH_WAIT} "
        "(the pessimistic end). The benchmarks use these factors, not a pystone ratio.",
        "",
        "| factor | rp2 / unix | × flash wait states | used for |",
        "|---|---:|---:|---|",
        f"| heap (`HEAP`) | {HEAP} | – | every heap figure (64-bit objects to 32-bit) |",
    ]
    uses = {
        "rules_median": "a rules check (`RULES`, the larger of the two)",
        "rules_worst": "(measured; the median's factor is used)",
        "lead": "a lead (click) at the table",
        "follow": "a follow's last tap",
        "hand_end": "the hand's last tap (audit, settlement)",
        "snapshot": "a snapshot serialised",
    }
    for kind, factor in TIME.items():
        out.append(f"| time: {kind} | {factor:g} | {factor * FLASH_WAIT:g} | {uses[kind]} |")
    out.append(
        f"| time: generic (`GENERIC`) | {GENERIC:g} | {GENERIC * FLASH_WAIT:g} | "
        "work with no factor of its own (the readers' driver and scanner, the link): the largest table-core factor |"
    )
    out += [
        "",
        "The measurements behind them:",
        "",
        "| what | rp2 port | unix port | factor |",
        "|---|---:|---:|---|",
    ]
    for what, rp2, unix, name in MEASURED:
        value = HEAP if name == "heap" else TIME[name]
        out.append(f"| {what} | {rp2} | {unix} | {name} ({value:g}) |")
    out += [
        "",
        "Where the heap factor stands against a 32-bit build measured here in CI, see "
        '"Heap with 32-bit objects" (`bench/bench_heap32.py`).',
    ]
    return "\n".join(out)

