"""The MicroPython heap a virtual table's firmware gets by default.

Kept apart from ``tractor_table.sim.virtual`` (which loads the engine, the link and
the bots) so that the command line can name these figures in its help."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .mpy import DEFAULT_HEAP

#: The heap the firmware gets by deck count (the Pico it emulates has the
#: same RAM whatever the decks, but every hand holds decks/2 times the cards:
#: three and four decks get more room on this 64-bit port, whose objects are
#: larger than the Pico's). Measured by bench/bench_heap.py (docs/firmware.md,
#: "Heap"): the live peak with four decks stays far below 160K since the
#: tricks are packed, but the end-of-hand audit of random bots' four-deck
#: throws allocates in bursts, and 160K ran out there.
#: 2026-12-02: +32K each. The firmware's qstrs passed 1,260 with the readers'
#: and enroll's last names, and this port then allocates its next qstr pool in
#: one 14 KB block (1,280 entries of 64-bit pointers; the rp2 port's pools are
#: half that): 190 KB at boot with the simulated chips, where 208K left 18 KB.
#: This heap is the unix port's margin only; the chip's budget is judged by
#: the board model's cap (board/runner.py, chip_cap), by kind.
FIRMWARE_HEAP_BY_DECKS = {1: "192K", 2: "192K", 3: "224K", 4: "256K"}
#: With simulated PN532s the chip models live in the firmware's heap too: the
#: firmware's heap above plus 80K for them (they hold about 22K, and allocate
#: while they answer; measured and reported apart as ``sim_bytes``, and
#: ``firmware_peak`` excludes them). 2026-12-06: 48K -> 80K, for imports late
#: in a match that failed with "allocating 1280 bytes" in about half the
#: find-a-friend runs of tests/table/test_virtual_friend.py (largest free
#: block 5-9 KB of 78-85 KB free). The 1,280 is a new qstr pool's entries
#: (14 KB in one block), not bytes: the part loaded then (the engine at a
#: draw's end, tablecall at the call) brought names not yet interned. The
#: cause is fixed in the firmware (mainstart._names interns at the start the
#: names every match of the rules loads later); the 80K stays as margin.
SIM_HEAP = "272K"
SIM_HEAP_BY_DECKS = {d: f"{int(h[:-1]) + 80}K" for d, h in FIRMWARE_HEAP_BY_DECKS.items()}


def firmware_budget(decks: int) -> int:
    """The firmware's own heap (bytes, this port) with ``decks`` decks: what a
    virtual table's firmware peak (the simulated chips' share taken out) must
    stay under."""
    h = FIRMWARE_HEAP_BY_DECKS.get(decks, DEFAULT_HEAP)
    return int(h[:-1]) * 1024


def default_heap(decks: int, readers: str) -> str:
    """The heap a virtual table gets by default: the firmware's by deck count,
    plus room for the simulated chips with ``readers="spi"``."""
    if readers == "spi":
        return SIM_HEAP_BY_DECKS.get(decks, SIM_HEAP)
    return FIRMWARE_HEAP_BY_DECKS.get(decks, DEFAULT_HEAP)

# ---- the heap by kind, as the rp2 port counts it ------------------------------
#
# Measured on the real MicroPython rp2 port (v1.28.0, RPI_PICO) against the unix
# port on the same firmware (../shared audit of 2026-12-01 evening; the figures
# in bench/rp2040.py, MEASURED_HEAP, and docs/performance.md "Calibration"):
# one factor for "the heap" does not hold, because the rp2 port keeps native
# code in the GC heap and the unix port does not (it maps it apart). So:
#
# - native code: the machine code of each @micropython.native / viper function
#   as the armv6m .mpy holds it (tractor_table.mpy_native), in 16-byte GC
#   blocks, counted as it is: the unix port's heap holds none of it;
# - bytecode: a module's own heap on the unix port (code objects, bytecode,
#   qstrs, globals) x HEAP_BYTECODE;
# - data: everything the firmware allocates as it runs x HEAP_DATA.
#
# Fitted on the audit: drules* 41,136 B on the chip = 0.736 x 23,584 (unix) +
# 23,776 (armv6m native); scanner 8,000 = 0.733 x 4,256 + 4,880; pn532 10,176 =
# 0.660 x 8,576 + 4,512; the other 11 modules (bytecode) 0.70 (0.59-0.78); all
# 107,136 = 0.705 x 104,992 + 33,168. HEAP_BYTECODE is the largest group's, so
# that no module's estimate is flattered (all modules: +3.5 % over the chip).
# HEAP_DATA: the table core over 40 hands of bench_table (126,896 B on the chip,
# 126,048 on the unix port), less its modules' code estimated as above.

#: rp2 / unix for a module's own heap (bytecode, code objects, qstrs, globals)
HEAP_BYTECODE = 0.74
#: rp2 / unix for what the firmware allocates as it runs (its state)
HEAP_DATA = 0.89
#: native code: armv6m bytes counted one for one (on top of the module's unix heap x HEAP_BYTECODE)
HEAP_NATIVE = 1.0
HEAP_BY_KIND = {"native": HEAP_NATIVE, "bytecode": HEAP_BYTECODE, "data": HEAP_DATA}
#: the rp2 port's free heap at boot (a small script): what the firmware may use
CHIP_HEAP = 240_720
#: the issue-11/21 bound on the whole-match live peak on the chip, and the goal
CHIP_BUDGET = 128 * 1024
CHIP_GOAL = 100 * 1024

#: the firmware modules the table holds all the time (main.py's imports, the
#: board's, table.cfg's rules), in the order they load; on the Pico the board
#: is picoboard (with pn532, scanner, cardmap), on the virtual table vboard
RESIDENT = (
    "ttlink_io", "persist", "cardmap", "pn532", "scanner", "ttlink", "events",
    "table", "tablebase", "tabledeal", "tabletrick",
    "display", "main", "drules", "drules_hand", "tablerules",
)


#: the chip's board, which the virtual table's fast board (vboard.py, counted
#: apart as the simulation's) stands in for: the Pico's board module and its
#: display's driver are firmware, in the chip's heap. The virtual table's
#: figures on the chip count their code in vboard's place (bench/bench_heap.py;
#: their objects, the frame buffer's 1 KB among them, are not in the fast
#: board's heap: the board model counts them)
CHIP_BOARD = ("picoboard", "ssd1306")


#: the rules engine's ladders and placement oracle: with 3-4 decks or
#: same_shape_only the engine holds them from its load (firmware/drules.py,
#: _parts); with 1-2 decks only from a check that asks them to the hand's end
#: (bot play: never; docs/firmware.md, "Heap"). The oracle's search
#: (drules_sweep) is not among them: it comes only at a question that the
#: placement's greedy tries do not settle (drules.Engine._feasible), which bot
#: play never asks with any number of decks
LADDER_PARTS = ("drules_ladder", "drules_place", "drules_memo")


def resident_names(decks: int, same_shape_only: bool = False) -> tuple[str, ...]:
    """The modules a table of these rules holds in its play (RESIDENT, and the
    engine's ladders and oracle where the rules have ladders)."""
    return RESIDENT + LADDER_PARTS if decks > 2 or same_shape_only else RESIDENT


def chip_code(unix_bytes: float, native_bytes: float = 0) -> float:
    """A module's (or modules') heap on the chip: its unix-port heap x
    HEAP_BYTECODE, plus its armv6m native code (bytes in GC blocks)."""
    return unix_bytes * HEAP_BYTECODE + native_bytes * HEAP_NATIVE


def chip_data(unix_bytes: float) -> float:
    """State the firmware allocates, on the unix port, as bytes on the chip."""
    return unix_bytes * HEAP_DATA


def chip_heap(total_unix: float, code_unix: float, native_bytes: float) -> float:
    """A live-heap figure of the unix port (``total_unix``) of which
    ``code_unix`` is the resident modules' code (whose armv6m native code is
    ``native_bytes``), as bytes on the chip: code by kind, the rest as data."""
    return chip_code(code_unix, native_bytes) + chip_data(max(0.0, total_unix - code_unix))


def native_by_module(src: Path | None = None, out: Path | None = None) -> dict[str, int]:
    """Each firmware module's armv6m native code in the chip's heap (bytes, in
    16-byte GC blocks): the modules with ``@micropython.native``/``viper``
    compiled with ``mpy-cross -march=armv6m`` as ``make firmware`` does, and
    read (:mod:`.mpy_native`); modules without native code are 0."""
    import subprocess
    import tempfile

    from . import firmware_build, mpy_native
    from .paths import FIRMWARE_DIR

    src = FIRMWARE_DIR if src is None else src
    sizes: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="tractor-native-") as tmp:
        where = Path(tmp) if out is None else out
        for source in firmware_build.firmware_sources(src):
            text = source.read_text(encoding="utf-8")
            if "@micropython.native" not in text and "@micropython.viper" not in text:
                sizes[source.stem] = 0
                continue
            target = where / (source.stem + ".mpy")
            proc = subprocess.run(
                [firmware_build.mpy_cross_binary(), "-march=armv6m", firmware_build.OPT, "-s", source.stem, "-o", str(target), str(source)],
                capture_output=True, text=True, check=False,
            )
            if proc.returncode != 0:
                raise RuntimeError(f"mpy-cross -march=armv6m rejected {source.name}: {proc.stderr.strip()}")
            sizes[source.stem] = mpy_native.read_file(target).native_heap
    return sizes


_CODE_MEASURE = """
import gc
def live():
    gc.collect(); gc.collect()
    return gc.mem_alloc()
for n in NAMES:
    a = live()
    try:
        __import__(n)
    except ImportError as e:
        print("X", n, e)
        continue
    print("C", n, live() - a)
import sys
print("L", " ".join(sorted(sys.modules)))
"""


def code_by_module(fw_dir: Path, names: tuple[str, ...] = RESIDENT) -> tuple[dict[str, int], list[str]]:
    """Each module's own heap on the unix port (``gc.mem_alloc()`` after a
    collection, before and after its import, in the order given; a module's
    imports count where they first load): compiled as in ``fw_dir``; and every
    module loaded at the end (the imports' imports too)."""
    from . import mpy

    code = f"NAMES = {list(names)!r}\n" + _CODE_MEASURE
    proc = mpy.run(code=code, path=[fw_dir], heapsize="1M", timeout=60)
    if proc.returncode != 0:
        raise RuntimeError(f"module measurement failed: {proc.stdout}{proc.stderr}")
    out: dict[str, int] = {}
    loaded: list[str] = []
    for line in proc.stdout.splitlines():
        kind, _, rest = line.partition(" ")
        if kind == "C":
            name, size = rest.split()
            out[name] = int(size)
        elif kind == "L":
            loaded = rest.split()
    return out, loaded


@dataclass
class CodeKinds:
    """The resident firmware's code by kind: unix-port heap, armv6m native code, on the chip."""

    unix: int  # the modules' own heap on the unix port
    native: int  # their native code on the chip (armv6m, GC blocks)
    by_module: dict[str, tuple[int, int]]  # name -> (unix, native); a module's imports in its figures

    @property
    def chip(self) -> int:
        return round(chip_code(self.unix, self.native))

    def unix_of(self, names: tuple[str, ...]) -> int:
        """The unix-port heap of these modules' code (those measured)."""
        return sum(self.by_module[n][0] for n in names if n in self.by_module)

    def chip_peak(self, total_unix: int) -> int:
        """A unix-port live heap holding this code, as bytes on the chip."""
        return round(chip_heap(total_unix, self.unix, self.native))


def resident_code(fw_dir: Path, names: tuple[str, ...] = RESIDENT, src: Path | None = None) -> CodeKinds:
    """The resident modules' code by kind (``fw_dir``: compiled for this machine)."""
    unix, loaded = code_by_module(fw_dir, names)
    native = native_by_module(src)
    # a module's native code counts where it loaded: with the first module of
    # ``names`` that is it or imported it (drules imports drules_place, ...)
    home: dict[str, str] = {}
    for n in loaded:
        if native.get(n, 0):
            home[n] = n if n in unix else next((m for m in names if m in unix and n.startswith(m)), names[-1])
    by = {}
    for n in names:
        if n in unix:
            by[n] = (unix[n], sum(native[m] for m, h in home.items() if h == n))
    return CodeKinds(sum(u for u, _ in by.values()), sum(v for _, v in by.values()), by)
