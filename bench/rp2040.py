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
    rp2 heap: by kind (the section "Heap, by kind" at the end of this file)

**The fixed factors carry the speed of one day's machine.** Each one is the
chip's time over the unix port's time *on the machine of 2026-12-01*; this
machine's speed moves up to 2x between sessions (and within one, with the
load), so a unix time here times a fixed factor moves with the host, not the
code. The benches whose figures are judged against a target therefore
anchor them in the same run (``bench/chipref.py``): the code the chip ran
(a676471) is timed again here beside the figures, and the factor becomes the
chip's time over *that* unix time:

- ``bench/bench_device_rules.py``: a676471's rules engine on the audit's
  cases, by kind; each case's ratio chip ms x FLASH_WAIT /
  ``rules_ms_by_kind`` of it now; every estimate is given with the fixed
  factors and x the largest ratio (the pessimistic anchor: the verdict) and
  x the median ratio;
- ``bench/bench_board.py``: a676471's table core on the hands the chip was
  fed; GENERIC anchored = the largest chip ms / unix ms now over lead,
  follow, hand end and snapshot; the native factor (``board.C_FACTOR``) x
  the rules engine's pessimistic anchor; ``--fixed-factors`` for these ones.

Measured again: only the unix side (the chip's times are the audit's, one
emulated RP2040). Not measured: a real chip's flash wait states
(``FLASH_WAIT`` stays on top of every anchored factor), and whether today's
code slows down with the machine exactly as a676471's does. The heap factors
do not depend on the machine's speed and are not anchored.
"""

from __future__ import annotations

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
    # the rules engine by kind of code (audit of 2026-12-01 evening, adversarial
    # follows): native code (@micropython.native, armv6m on the chip) 57-68x
    # its unix-port time, bytecode 83-170x; the pessimistic ends. The
    # engine's @micropython.viper methods (since 2026-12-07) are charged the
    # native factor: machine code too, but their ratio was not measured on
    # the chip (docs/firmware.md, "The viper emitter")
    "rules_native": 68.0,
    "rules_bytecode": 170.0,
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


def rules_ms_by_kind(native_us: float, bytecode_us: float) -> float:
    """A rules check's unix-port time split by kind of code (µs in native
    code, µs in bytecode: ``sim/engine/mpy/kindtime_mp.py``), as milliseconds
    on a real RP2040: each part by its own factor, flash wait states on both."""
    return (native_us * TIME["rules_native"] + bytecode_us * TIME["rules_bytecode"]) / 1000.0 * FLASH_WAIT


#: The by-kind estimate against the rp2 port's own times (audit of 2026-12-01
#: evening, the engine of a676471 on the emulated RP2040): the same engine's
#: unix time split by kind here (adversary_mp.py with the split, 21 calls, load
#: 12 on 2 cores, 2026-12-02): (case, rp2 ms, unix µs, of which native µs).
#: Those single medians (x1.3 included) were 1.06-1.96x the chip's time; on the
#: least of many runs (bench/calib_engine.py) the estimate is about 1.18x at the
#: median and 0.84-1.35x case by case: not always above the chip's.
BY_KIND_CHECK: list[tuple[str, float, float, float]] = [
    ("adv-17", 29.4, 234.0, 146.8),
    ("adv-20", 28.3, 230.0, 152.7),
    ("adv-18", 24.3, 203.0, 143.7),
    ("adv-05", 23.1, 209.0, 150.6),
    ("adv-01", 20.9, 295.0, 182.5),
    ("issue-12", 13.1, 179.0, 120.2),
]


def time_factor(kind: str = "rules") -> float:
    """rp2 / unix-port time for ``kind`` (a key of ``TIME``, ``"rules"`` or
    ``"generic"``), flash wait states included: what a unix time is multiplied by."""
    factor = RULES if kind == "rules" else GENERIC if kind == "generic" else TIME[kind]
    return factor * FLASH_WAIT


#: the rp2 port's own figures behind each factor (rp2 / unix), for the docs
MEASURED: list[tuple[str, str, str, str]] = [
    # (what, rp2 port, unix port, factor name)
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
        "(the pessimistic end). The benchmarks use these factors, not a pystone ratio. The figures judged against "
        "a target (`bench_device_rules.py`, `bench_board.py`) are also anchored in the same run: the code the chip ran "
        "(a676471) timed again here beside them (`bench/chipref.py`; \"Calibration: the same-run anchor\", below).",
        "",
        "| factor | rp2 / unix | × flash wait states | used for |",
        "|---|---:|---:|---|",
        *heap_factor_rows(),
    ]
    uses = {
        "rules_median": "a rules check (`RULES`, the larger of the two)",
        "rules_worst": "(measured; the median's factor is used)",
        "lead": "a lead (click) at the table",
        "follow": "a follow's last tap",
        "hand_end": "the hand's last tap (audit, settlement)",
        "snapshot": "a snapshot serialised",
        "rules_native": "a rules check's time in native code (`rules_ms_by_kind`)",
        "rules_bytecode": "a rules check's time in bytecode (`rules_ms_by_kind`)",
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
        out.append(f"| {what} | {rp2} | {unix} | {name} ({TIME[name]:g}) |")
    out += [
        "",
        "**Rules checks by kind of code.** A check's unix-port time is split into the part in native "
        "code and the part in bytecode (`host/tractor_table/sim/engine/mpy/kindtime_mp.py`: every native "
        "method and every bytecode method native code calls is wrapped, each stretch charged to the code "
        "that ran it, and the plain time split in the measured proportion); each part is scaled by its "
        f"factor (native {TIME['rules_native']:g}, bytecode {TIME['rules_bytecode']:g}, × {FLASH_WAIT}: "
        "`rules_ms_by_kind`). Against the rp2 port's own times of the engine of a676471:",
        "",
        "| case | rp2 port | unix µs (native part) | estimate by kind | estimate / rp2 |",
        "|---|---:|---:|---:|---:|",
    ]
    for case, rp2, unix, nat in BY_KIND_CHECK:
        est = rules_ms_by_kind(nat, unix - nat)
        out.append(f"| {case} | {rp2:g} ms | {unix:g} ({nat:.0f}) | {est:.1f} ms | {est / rp2:.2f} |")
    out += ["", *heap_markdown()]
    out += [
        "",
        "Where the heap factors stand against a 32-bit build measured here in CI, see "
        '"Heap with 32-bit objects" (`bench/bench_heap32.py`).',
    ]
    return "\n".join(out)



# ---- Heap, by kind (issue 21) ---------------------------------------------------
# Kept apart from the time factors above. The factors themselves live in
# host/tractor_table/virtual_heap.py (the board model counts the heap with them
# too); this section names them for the benches and says where they come from.

from tractor_table.virtual_heap import (  # noqa: E402
    CHIP_BUDGET,
    CHIP_GOAL,
    CHIP_HEAP,
    HEAP_BY_KIND,
    HEAP_BYTECODE,
    HEAP_DATA,
    HEAP_NATIVE,
    chip_code,
    chip_data,
    chip_heap,
)

__all__ = [
    "CHIP_BUDGET", "CHIP_GOAL", "CHIP_HEAP", "HEAP_BY_KIND", "HEAP_BYTECODE", "HEAP_DATA",
    "HEAP_NATIVE", "chip_code", "chip_data", "chip_heap", "rp2_data",
]


def rp2_data(unix_bytes: float) -> float:
    """State the firmware allocates (no code), on the unix port, as bytes on the chip."""
    return chip_data(unix_bytes)


#: the rp2 port's figures behind the heap factors (audit of 2026-12-01, evening:
#: main at a676471), with the armv6m native code of the same commit read from
#: its .mpy files (tractor_table.mpy_native): (what, rp2, unix, native, fitted
#: rp2 / unix of the part that is not native code)
MEASURED_HEAP: list[tuple[str, int, int, int]] = [
    ("the rules engine `drules*` (20 native methods)", 41_136, 23_584, 23_776),
    ("`scanner` (native methods)", 8_000, 4_256, 4_880),
    ("`pn532` (native methods)", 10_176, 8_576, 4_512),
    ("the other 11 modules (bytecode only)", 47_824, 68_576, 0),
    ("the rules engine compiled without the native emitter", 23_824, 29_440, 0),
    ("all firmware modules, in the virtual table's order", 107_136, 104_992, 33_168),
]
#: the table core over 40 hands of bench_table (seed 11): peak gc.mem_alloc(),
#: and its modules' code on the unix port (events, persist, the table core,
#: tablerules, drules*: bench_heap's figures of the same commit)
TABLE_PEAK = (126_896, 126_048)
TABLE_CODE_UNIX = 59_200
TABLE_CODE_NATIVE = 23_776


def heap_factor_rows() -> list[str]:
    """The heap factors' rows of the calibration table."""
    return [
        f"| heap: native code (`HEAP_NATIVE`) | {HEAP_NATIVE:g} × the armv6m bytes | – | "
        "the machine code of `@micropython.native` functions: in the rp2 port's GC heap, not in the unix port's |",
        f"| heap: bytecode (`HEAP_BYTECODE`) | {HEAP_BYTECODE:g} | – | "
        "a module's own heap on the unix port (bytecode, code objects, qstrs, globals) |",
        f"| heap: data (`HEAP_DATA`) | {HEAP_DATA:g} | – | what the firmware allocates as it runs |",
    ]


def heap_markdown() -> list[str]:
    """How the heap factors were obtained (part of the "Calibration" section)."""
    out = [
        "**The heap, by kind.** The rp2 port keeps native code in the GC heap (it is loaded into RAM); "
        "the unix port maps it apart, so its `gc.mem_alloc()` never sees it. A firmware figure on the "
        f"chip is therefore: its modules' unix-port heap × {HEAP_BYTECODE:g}, plus their armv6m native code "
        "counted one for one (the `.mpy` files `make firmware` builds, read by `tractor_table/mpy_native.py`, "
        f"in 16-byte GC blocks), plus the rest of the live heap × {HEAP_DATA:g}. Fitted on the rp2 port's "
        "own figures (audit of 2026-12-01 evening, main at a676471):",
        "",
        "| what | rp2 port | unix port | armv6m native code | rp2 / unix of the rest | estimate by kind | estimate / rp2 |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for what, rp2, unix, native in MEASURED_HEAP:
        rest = (rp2 - native) / unix
        est = chip_code(unix, native)
        out.append(
            f"| {what} | {rp2:,} B | {unix:,} B | {native:,} B | {rest:.3f} | {est:,.0f} B | {est / rp2:.3f} |"
        )
    rp2, unix = TABLE_PEAK
    data = (rp2 - chip_code(TABLE_CODE_UNIX, TABLE_CODE_NATIVE)) / (unix - TABLE_CODE_UNIX)
    est = chip_heap(unix, TABLE_CODE_UNIX, TABLE_CODE_NATIVE)
    out += [
        f"| the table core, 40 hands of `bench_table` (seed 11): peak `gc.mem_alloc()` | {rp2:,} B | {unix:,} B | "
        f"{TABLE_CODE_NATIVE:,} B | data {data:.3f} | {est:,.0f} B | {est / rp2:.3f} |",
        "",
        f"`HEAP_BYTECODE` = {HEAP_BYTECODE:g} is the largest of the native builds' fitted ratios (drules 0.736, "
        "scanner 0.733, pn532 0.660, the 11 bytecode modules 0.70), so that no module's estimate is flattered "
        "(the whole firmware comes out 3.5 % over the chip's figure); the engine compiled as bytecode only "
        "(0.81) is the one figure above it. `HEAP_DATA` is the table core's peak less its code estimated so. "
        f"The chip's heap: {CHIP_HEAP:,} B free at boot; the bound on the whole-match live peak "
        f"{CHIP_BUDGET // 1024} KiB, the goal {CHIP_GOAL // 1024} KiB.",
    ]
    return out
