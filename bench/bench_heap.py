"""What holds the firmware's heap, and its peaks on the virtual table; writes
the "heap" section of docs/firmware.md (and a summary into docs/performance.md).

1. Code: each firmware module (compiled with ``mpy-cross -march=host`` as the
   virtual table runs it) imported under MicroPython's unix port in the order
   the virtual table loads them; the live heap (``gc.collect()`` then
   ``gc.mem_alloc()``) before and after each import is the module's share
   (its code objects, its globals, the qstrs it adds).
2. Objects: a seeded three-hand game on the virtual table
   (``VirtualTable(heap_report=True)``); at its end
   ``host/tractor_table/sim/board/mpy/heapreport.py`` drops the parts of the app
   one at a time, each followed by a collection.
3. Peaks: the firmware's live peak (``VirtualTable.firmware_peak``: after a
   collection at every loop turn whose heap in use passed it, the simulated
   chips' and the fast board's own share taken out) for whole matches and for
   four decks, against the heap each run gets; on the chip by kind, with the
   chip's board (picoboard, the display's driver) counted in the fast
   board's place.

Usage: .venv/bin/python bench/bench_heap.py [--quick]   (--quick: no whole
matches, nothing written)
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

import rp2040
from shengji import Rules
from tractor_table import mpy, perfdoc, virtual_heap
from tractor_table.errors import CommandError
from tractor_table.events import Event
from tractor_table.paths import DOCS_DIR
from tractor_table.sim.virtual.game import BotGame
from tractor_table.sim.virtual.runner import BOARD_SOURCES, VirtualTable, compile_for_host

BUDGET = 160 * 1024
#: the issue-11/21 bound on the calibrated RP2040 whole-match peak (half of the heap), and the goal
RP2040_BUDGET = rp2040.CHIP_BUDGET
RP2040_GOAL = rp2040.CHIP_GOAL
#: the last event (index, state hash) of `virtual --bots --hands 3 --seed 7`
#: measured before the heap work (docs/firmware.md, "Heap"): the event stream
#: did not change with it
BEFORE_LAST = (336, 3542109210)

#: (label, modules imported) in the order the virtual table loads them
#: (vboard.py: persist, ttlink_io, the reader stack; then main.py; then
#: configured_app: table.cfg's reader, dropped after, and the rules)
LOADED = [
    ("ttlink_io (USB serial adapter)", ["ttlink_io"]),
    ("persist (flash snapshots)", ["persist"]),
    ("hwconfig (pins, generated)", ["hwconfig"]),
    ("cardmap (tag UID -> card)", ["cardmap"]),
    ("pn532 (reader driver)", ["pn532"]),
    ("scanner (four readers' polling)", ["scanner"]),
    ("ttlink (link codec, device end)", ["ttlink"]),
    ("events (kinds, reasons)", ["events"]),
    ("table core (table, tablebase, tabledeal, tablesnap, tabletrick)", ["table"]),
    ("display (the renderer: model, frame buffer's code)", ["display"]),
    ("version", ["version"]),
    ("main (App)", ["main"]),
    ("device rules engine (drules*.py)", ["drules", "drules_hand"]),
    ("tablerules (adapter)", ["tablerules"]),
]
#: loaded only when needed (measured each on top of the above)
ON_DEMAND = [
    ("tablerestore (a start from flash, a host's push; dropped after)", "tablerestore"),
    ("persistload (the snapshot read from flash at boot; dropped after)", "persistload"),
    ("tablescan (hand_scan mode)", "tablescan"),
    ("tablereveal (no_bid = kitty, no bid)", "tablereveal"),
    ("tableforfeit (revoke = forfeit, a revoke known)", "tableforfeit"),
    ("tablefriend (partners = called, at a table that plays it)", "tablefriend"),
    ("tablecall (partners = called: the call, for the phase CALL only; dropped after)", "tablecall"),
    ("enrollmode (enroll mode)", "enrollmode"),
    ("tableconfig, ruleopts (table.cfg and its options, at start; dropped after)", "tableconfig"),
    ("picoboard (the Pico's board: not on the virtual table)", "picoboard"),
    ("ssd1306 (the SSD1306's driver: on the Pico, when the pin map names it)", "ssd1306"),
    ("ssd1309 (the SSD1309's driver: on the Pico, when the pin map names it)", "ssd1309"),
    ("ttlink_host (the host's end: never on the table)", "ttlink_host"),
    ("vboard (the virtual table's board: not on the Pico)", "vboard"),
    ("hands (the board's control protocol and hands at the readers, both modes: not on the Pico; "
     "counted with the simulation)", "hands"),
]

_MEASURE = """
import gc, micropython
def live():
    gc.collect(); gc.collect()
    return gc.mem_alloc()
def load(names):
    for n in names:
        __import__(n)
start = live()
micropython.qstr_info()
for label, names in LOADED:
    a = live()
    load(names)
    print("M", live() - a, label)
    micropython.qstr_info()
print("loaded", live() - start)
for label, name in ON_DEMAND:
    a = live()
    __import__(name)
    print("D", live() - a, label)
    micropython.qstr_info()
"""


def measure_modules(
    fw: Path,
) -> tuple[list[tuple[str, int, int]], int, list[tuple[str, int, int]], str]:
    """(label, live bytes, of which qstr pools) per module loaded, the total,
    the same for the modules loaded on demand, and the last qstr_info line."""
    code = f"LOADED = {LOADED!r}\nON_DEMAND = {ON_DEMAND!r}\n" + _MEASURE
    with tempfile.TemporaryDirectory(prefix="bench-heap-board-") as tmp:
        # the fast board's modules alone: their folder also holds the board
        # model's machine.py and time.py, which would replace the built-ins
        for src in BOARD_SOURCES:
            shutil.copy(src, tmp)
        proc = mpy.run(code=code, path=[fw, Path(tmp)], heapsize="1M", timeout=60)
    if proc.returncode != 0:
        raise SystemExit(f"module measurement failed: {proc.stdout}{proc.stderr}")
    loaded: list[tuple[str, int, int]] = []
    demand: list[tuple[str, int, int]] = []
    total = 0
    qstr = ""
    pools = -1
    pending: tuple[list[tuple[str, int, int]], str, int] | None = None
    for line in proc.stdout.splitlines():
        kind, _, rest = line.partition(" ")
        if kind in ("M", "D"):
            size, _, label = rest.partition(" ")
            pending = (loaded if kind == "M" else demand, label, int(size))
        elif kind == "loaded":
            total = int(rest)
        elif line.startswith("qstr pool"):
            qstr = line.strip()
            now = int(line.rsplit("n_total_bytes=", 1)[1])
            if pending is not None:
                pending[0].append((pending[1], pending[2], now - pools))
                pending = None
            pools = now
    return loaded, total, demand, qstr


def play(
    fw: Path,
    *,
    hands: int,
    seed: int,
    rules: str = "classic",
    strength: int = 1,
    readers: str = "spi",
    hand_scan: bool = False,
    report: bool = False,
) -> dict[str, object]:
    r = Rules.preset(rules)
    with tempfile.TemporaryDirectory(prefix="bench-heap-") as tmp:
        work = Path(tmp)
        (work / "firmware").symlink_to(fw)
        vt = VirtualTable(
            r.decks, workdir=work, readers=readers, hand_scan=hand_scan, rules=r, heap_report=report
        )
        last: list[object] = []
        vt.note_hooks.append(
            lambda n: last.__setitem__(slice(None), [n.index, n.hash]) if isinstance(n, Event) else None
        )
        t0 = time.monotonic()
        with vt:
            game = BotGame(vt, r, seed=seed, strength=strength, say=lambda _s: None)
            game.play(hands)
            time.sleep(0.2)
        dt = time.monotonic() - t0
    if game.disagreements:
        raise SystemExit(f"disagreements in the {rules} run: {game.disagreements[:3]}")
    return {
        "heap": vt.heapsize,
        "decks": r.decks,
        "hands": game.hands_played,
        "events": game.events_seen,
        "ready": vt.ready_alloc - vt.sim_bytes,
        "peak": vt.firmware_peak,
        "sim": vt.sim_bytes,
        "parts": list(vt.heap_parts),
        "last": list(last),
        "seconds": dt,
    }


def smallest_heap(fw: Path, lo: int = 96, hi: int = 160) -> int:
    """The smallest -X heapsize (KiB, to 2K) under which the firmware plays
    `virtual --bots --hands 3 --seed 7 --readers direct` to the end: the live
    peak plus what lives between two samples (the audit, a snapshot being
    written, a frame being encoded) and what fragmentation wastes."""

    def plays(k: int) -> bool:
        r = Rules(decks=2)
        with tempfile.TemporaryDirectory(prefix="bench-heap-") as tmp:
            work = Path(tmp)
            (work / "firmware").symlink_to(fw)
            vt = VirtualTable(2, workdir=work, readers="direct", rules=r, heapsize=f"{k}K")
            try:
                with vt:
                    game = BotGame(
                        vt, r, seed=7, strength=1, say=lambda _s: None, event_timeout=3.0
                    )
                    game.play(3)
            except CommandError:
                return False
            return game.hands_played == 3 and not game.disagreements

    if not plays(hi):
        return -1
    while hi - lo > 2:
        mid = (lo + hi) // 2
        if plays(mid):
            hi = mid
        else:
            lo = mid
    return hi


def kib(n: int) -> str:
    return f"{n:,}"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="no whole matches; print, write nothing")
    args = ap.parse_args(argv[1:])
    with tempfile.TemporaryDirectory(prefix="bench-heap-fw-") as tmp:
        fw = Path(tmp) / "firmware"
        compile_for_host(fw)
        loaded, total, demand, qstr = measure_modules(fw)
        print(f"modules loaded: {total} bytes", file=sys.stderr)
        # the chip's board (picoboard, the display's driver) in the fast
        # board's place (virtual_heap.CHIP_BOARD): its code counted on the chip
        code = virtual_heap.resident_code(fw, virtual_heap.RESIDENT + virtual_heap.CHIP_BOARD)
        print(f"resident code: unix {code.unix}, native {code.native}, chip {code.chip}", file=sys.stderr)
        # 3-4 decks hold the engine's ladders and oracle too (virtual_heap.resident_names)
        code34 = virtual_heap.resident_code(fw, virtual_heap.resident_names(4) + virtual_heap.CHIP_BOARD)
        game = play(fw, hands=3, seed=7, report=True)
        print(f"3 hands, seed 7: peak {game['peak']}", file=sys.stderr)
        four = play(fw, hands=2, seed=5, rules="xuwen", strength=0, readers="direct")
        four_spi = play(fw, hands=2, seed=5, rules="xuwen", strength=0)
        print(f"4 decks: direct {four['peak']}, spi {four_spi['peak']}", file=sys.stderr)
        direct = play(fw, hands=3, seed=7, readers="direct")
        least = smallest_heap(fw)
        print(f"3 hands direct: peak {direct['peak']}, smallest heap {least}K", file=sys.stderr)
        runs = [
            ("2 decks, 3 hands", "`virtual --bots --hands 3 --seed 7`", game),
            (
                "2 decks, 3 hands, taps as card ids",
                "`virtual --bots --hands 3 --seed 7 --readers direct`",
                direct,
            ),
            (
                "4 decks, random bots, taps as card ids",
                "`virtual --bots --hands 2 --rules xuwen --strength 0 --seed 5 --readers direct`",
                four,
            ),
            (
                "4 decks, random bots, simulated readers",
                "`virtual --bots --hands 2 --rules xuwen --strength 0 --seed 5`",
                four_spi,
            ),
        ]
        if not args.quick:
            m7 = play(fw, hands=300, seed=7)
            print(f"match seed 7: peak {m7['peak']}", file=sys.stderr)
            m5 = play(fw, hands=300, seed=5, hand_scan=True)
            print(f"match seed 5 hand-scan: peak {m5['peak']}", file=sys.stderr)
            mf = play(fw, hands=300, seed=7, rules="friend")
            print(f"match seed 7 friend: peak {mf['peak']}", file=sys.stderr)
            runs[1:1] = [
                ("2 decks, a whole match", "`virtual --bots --hands 300 --seed 7`", m7),
                (
                    "2 decks, a whole match, find-a-friend",
                    "`virtual --bots --hands 300 --seed 7 --rules friend`",
                    mf,
                ),
                (
                    "2 decks, a whole match, hand_scan",
                    "`virtual --bots --hands 300 --seed 5 --hand-scan`",
                    m5,
                ),
            ]
    for _label, _cmd, r in runs:
        if int(r["decks"]) > 2:  # type: ignore[call-overload]
            r["kinds"] = code34
    body = render(loaded, total, demand, qstr, game, runs, least, int(direct["peak"]), code)  # type: ignore[call-overload]
    print(body)
    print(summary(runs, code))
    if not args.quick:
        perfdoc.write_section("heap", body, page=DOCS_DIR / "firmware.md")
        perfdoc.write_section("heap", summary(runs, code), page=perfdoc.PAGE)
    return 0


def _kinds(r: dict[str, object], code: virtual_heap.CodeKinds) -> virtual_heap.CodeKinds:
    """The resident code a run's table holds: with 3-4 decks the engine's
    ladders and oracle too (set on the run as "kinds")."""
    k = r.get("kinds", code)
    return k if isinstance(k, virtual_heap.CodeKinds) else code


def _chip(r: dict[str, object], code: virtual_heap.CodeKinds, unix: int) -> int:
    """A live heap of the fast board's firmware (``unix``, this port's bytes:
    the fast board itself counted apart, vboard.py) as bytes on the chip, by
    kind, with the chip's board in its place: the code of picoboard and the
    display's driver (virtual_heap.CHIP_BOARD) added, at the chip's size."""
    k = _kinds(r, code)
    return k.chip_peak(unix + k.unix_of(virtual_heap.CHIP_BOARD))


def render(
    loaded: list[tuple[str, int, int]],
    total: int,
    demand: list[tuple[str, int, int]],
    qstr: str,
    game: dict[str, object],
    runs: list[tuple[str, str, dict[str, object]]],
    least: int,
    direct_peak: int,
    code: virtual_heap.CodeKinds,
) -> str:
    out = [
        "#### Heap, measured",
        "",
        "Written by `.venv/bin/python bench/bench_heap.py` (`make bench`) on "
        f"{perfdoc.machine_line()}; 64-bit unix port: objects are about twice "
        "the Pico's (8-byte words, 32-byte GC blocks against 16), so these "
        "figures overstate the Pico's. Live heap = `gc.collect()` then `gc.mem_alloc()`.",
        "",
        "**Where the heap goes at the end of a seeded game** (`virtual --bots --hands 3 --seed 7`, "
        "simulated readers; the end of hand 3 is where the live peak is: every "
        "trick of the hand kept, the link's ring full). Each part is dropped in "
        "turn by `mpy/heapreport.py`, followed by a collection:",
        "",
        "| part | bytes |",
        "|---|---:|",
    ]
    parts = list(game["parts"])  # type: ignore[call-overload]
    rest = 0
    for label, size in parts:
        if label == "rest":
            rest = size
        else:
            out.append(f"| {label} | {kib(size)} |")
    sim = int(game["sim"])  # type: ignore[call-overload]
    out.append(
        f"| what stays: the modules' code, the board, the readers' drivers and card map "
        f"(the simulated chips' and the fast board's own {kib(sim)} taken out) | {kib(rest - sim)} |"
    )
    out += [
        "",
        f"**The modules' code**, each imported in the order the virtual table loads them "
        f"(in all {kib(total)} bytes on the unix port):",
        "",
        "| module | bytes | of which qstr pools |",
        "|---|---:|---:|",
    ]
    for label, size, q in loaded:
        out.append(f"| {label} | {kib(size)} | {kib(q)} |")
    out += [
        "",
        "**The resident code by kind, on the chip** (`virtual_heap.resident_code`: each module's own heap "
        f"on the unix port × {rp2040.HEAP_BYTECODE:g}, plus its armv6m native code as `make firmware` compiles it, "
        "counted one for one; a module's imports in its row; bench/rp2040.py, \"Heap, by kind\"):",
        "",
        "| module | unix port | armv6m native code | on the chip |",
        "|---|---:|---:|---:|",
    ]
    for name, (u, n) in code.by_module.items():
        if u:
            out.append(f"| {name} | {kib(u)} | {kib(n)} | {kib(round(rp2040.chip_code(u, n)))} |")
    out += [
        f"| **all resident code** | **{kib(code.unix)}** | **{kib(code.native)}** | **{kib(code.chip)}** |",
        "",
        "Loaded only when needed, each measured on top of the above:",
        "",
        "| module | bytes | of which qstr pools |",
        "|---|---:|---:|",
    ]
    for label, size, q in demand:
        out.append(f"| {label} | {kib(size)} | {kib(q)} |")
    out += [
        "",
        "(Each module's names and strings are interned as qstrs in pools that "
        "grow in doubling chunks: a pool allocated while one module loads is "
        f"filled by the next ones, so that column is lumpy. At the end: {qstr}.)",
        "",
        "**Peaks** (`VirtualTable.firmware_peak`; the heap each run gets: "
        "`runner.default_heap`, 160K for the firmware with 1-2 decks, 192K and "
        "224K with 3 and 4, plus 80K for the simulated chips):",
        "",
        "| run | command | hands, events | heap | after boot | live peak | under 160 KiB by "
        "| RP2040 after boot (by kind) | RP2040 peak (by kind) |",
        "|---|---|---|---|---:|---:|---:|---:|---:|",
    ]
    for label, cmd, r in runs:
        peak = int(r["peak"])  # type: ignore[call-overload]
        out.append(
            f"| {label} | {cmd} | {r['hands']}, {r['events']} | {r['heap']} | "
            f"{kib(int(r['ready']))} | {kib(peak)} | {kib(BUDGET - peak)} | "  # type: ignore[call-overload]
            f"{kib(_chip(r, code, int(r['ready'])))} | {kib(_chip(r, code, peak))} |"  # type: ignore[call-overload]
        )
    out += [
        "",
        f"**Headroom for what lives between two samples**: the smallest `-X heapsize` "
        f"under which `virtual --bots --hands 3 --seed 7 --readers direct` still plays "
        f"to the end is {least}K ({kib(least * 1024)} bytes) for a live peak of "
        f"{kib(direct_peak)}: the audit, a snapshot being written, a frame being "
        f"encoded and fragmentation take the other {kib(least * 1024 - direct_peak)} "
        "(to 2K).",
    ]
    last = list(game["last"])  # type: ignore[call-overload]
    same = "the same" if tuple(last) == BEFORE_LAST else "NOT the same"
    out += [
        "",
        f"The 3-hand game's last event: index {last[0] if last else '?'}, state hash "
        f"{last[1] if last else '?'}: {same} as before the heap work "
        f"(index {BEFORE_LAST[0]}, hash {BEFORE_LAST[1]}, 2026-11-29).",
    ]
    return "\n".join(out)


def summary(runs: list[tuple[str, str, dict[str, object]]], code: virtual_heap.CodeKinds) -> str:
    out = [
        "## Firmware heap",
        "",
        f"Measured by `.venv/bin/python bench/bench_heap.py` on {perfdoc.machine_line()} (64-bit unix port); "
        'the breakdown is in [firmware.md](firmware.md) ("Heap, measured"). The RP2040 '
        "columns are calibrated by kind (bench/rp2040.py, \"Heap, by kind\"): the resident modules' code "
        f"({kib(code.unix)} B on the unix port, the chip's board among them: "
        f"{', '.join(virtual_heap.CHIP_BOARD)}, {kib(code.unix_of(virtual_heap.CHIP_BOARD))} B, in the place of the "
        "fast board's own heap, which is counted apart with the simulated chips) × "
        f"{rp2040.HEAP_BYTECODE:g}, plus their armv6m native code "
        f"({kib(code.native)} B), {kib(code.chip)} B on the chip in all; the rest of the live heap × "
        f"{rp2040.HEAP_DATA:g}. Bounds: the whole-match calibrated peak under {RP2040_BUDGET // 1024} KiB "
        f"(half of the Pico's heap), goal {RP2040_GOAL // 1024} KiB.",
        "",
        "| run | live peak (unix) | RP2040 after boot | RP2040 peak (by kind) | under 128 KiB by | goal 100 KiB |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for label, cmd, r in runs:
        peak = int(r["peak"])  # type: ignore[call-overload]
        rp2 = _chip(r, code, peak)
        goal = "met" if rp2 <= RP2040_GOAL else "not met"
        out.append(
            f"| {label} ({cmd}) | {kib(peak)} | {kib(_chip(r, code, int(r['ready'])))} | {kib(rp2)} | "  # type: ignore[call-overload]
            f"{kib(RP2040_BUDGET - rp2)} | {goal} |"
        )
    return "\n".join(out)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
