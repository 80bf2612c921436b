"""The firmware's names in the RP2040's heap: how many the rp2 port interns,
and the qstr pools they take (docs/firmware.md, "The chip's qstr pools").

MicroPython interns every name a module's code holds (its identifiers,
attributes, short strings) when the module is imported, unless the port keeps
the name in flash (its ROM qstrs, its frozen modules'), and never frees one.
The names go into pools that double: the rp2 port's first holds 20 names,
then 40, 80, ... 640: 1,260 in six pools, about 7.6 KB; the 1,261st name takes
a seventh pool of 1,280 names, 7.7 KB in one block, at once. Measured on the
port (bench/chip_heap.py): six pools, 16,350 B with their text, after a 4-deck
table's resident modules.

The models cannot show that step: their own code (the board model, the chip
models) interns its names in the same pools on the unix port, before the
firmware's, so their pools fill at other counts. So it is counted here, from
the ``.mpy`` files: the union of the names of the modules a table loads, less
the port's own (``rp2_rom_qstrs``), plus one for each module (its file's
name, ``__file__``).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from . import firmware_build, mpy_native
from .paths import FIRMWARE_DIR
from .rp2_rom_qstrs import NAMES as PORT_NAMES

#: the first pool's names: twice the port's MICROPY_ALLOC_QSTR_ENTRIES_INIT (10)
FIRST_POOL = 20
#: a name's entry in a pool on the rp2 port: its pointer (4), its hash (1: the
#: port's MICROPY_QSTR_BYTES_IN_HASH) and its length (1)
ENTRY_BYTES = 6
#: a pool's header (py/qstr.h, qstr_pool_t: six words on a 32-bit port)
POOL_HEADER = 24
#: the GC's block on the RP2040
BLOCK = 16
#: names a table interns at run time besides its modules' (boot.py's, a
#: getattr's): measured 15-20 on the emulated port in bench/chip_heap.py's
#: script, which interns its own few the same way
RUNTIME_NAMES = 20
#: the chip's six pools: the names that fit before the seventh's 7.7 KB step
SIX_POOLS = 1260
#: firmware modules no match loads in its power-up: the maintenance ones
#: (enroll mode, the self-test, a tag's pages), the host's end and the
#: snapshot's and the events' layouts (never on the table), boot.py (run
#: from source: its few names are among RUNTIME_NAMES) and the other
#: display's driver
NOT_IN_A_MATCH = ("enrollmode", "selftest", "pn532tag", "ttlink_host", "snaplayout", "evlayout", "boot", "ssd1309")


def pools(names: int) -> tuple[int, int, int]:
    """The pools ``names`` interned names take on the rp2 port: (pools,
    names they hold, bytes in the heap)."""
    n = cap = size = 0
    alloc = FIRST_POOL
    while cap < names:
        n += 1
        cap += alloc
        size += -(-(POOL_HEADER + ENTRY_BYTES * alloc) // BLOCK) * BLOCK
        alloc *= 2
    return n, cap, size


def worst_match(src: Path = FIRMWARE_DIR) -> list[str]:
    """The modules the most a table can load in one power-up: rules with
    every part (3-4 decks' ladders, called partners, hand scans, the kitty
    turned up, forfeits) and every rare path (the oracle's search, a
    take-back, a restore, a snapshot for the host): every firmware module
    but NOT_IN_A_MATCH."""
    return [p.stem for p in firmware_build.firmware_sources(src) if p.stem not in NOT_IN_A_MATCH]


#: the paths a match may take or not (the oracle's search, a take-back, a
#: restore from flash or a host's push, a snapshot for the host): in
#: worst_match, not among the names a model interns first (match_modules)
RARE = ("drules_sweep", "tableundo", "tablerestore", "ttlink_snap")
#: the chip's board and what starts it (on the Pico; the fast board is vboard)
PICO_BOARD = ("picoboard", "picohw", "picostart", "ssd1306")
#: the readers' modules (not loaded with taps as card ids)
READERS = ("pn532", "pn532cmd", "scanner", "scanstart", "cardmap", "cardmapload")
#: each rule's own parts, loaded only at a table that plays it
LADDERS = ("drules_ladder", "drules_place", "drules_memo")
FRIEND = ("tablefriend", "tablecall", "drules_friend")


def match_modules(rules: Any, *, hand_scan: bool = False, pico: bool = True, readers: bool = True) -> list[str]:
    """The modules a table of ``rules`` (shengji.Rules) loads in a match that
    takes no rare path: the names a model interns before its own
    (start.py), so that the firmware's fill the pools as on the chip. The
    ladders with 3-4 decks or same_shape_only (1-2 decks load them only for a
    check that asks them: bot play never does)."""
    out = []
    for m in worst_match():
        if m in RARE or (not pico and m in PICO_BOARD) or (not readers and m in READERS):
            continue
        if m in LADDERS and not (rules.decks > 2 or rules.same_shape_only):
            continue
        if m in FRIEND and str(rules.partners) != "called":
            continue
        if (m == "tablescan" and not hand_scan) or (m == "tablereveal" and str(rules.no_bid) != "kitty"):
            continue
        if m == "tableforfeit" and str(rules.revoke) != "forfeit":
            continue
        out.append(m)
    return out


def names_of(fw_dir: Path, modules: Iterable[str]) -> list[str]:
    """The names the compiled modules in ``fw_dir`` hold (``.mpy`` files of
    any architecture), each once, in a stable order."""
    names: set[str] = set()
    for m in modules:
        names |= {q.decode() for q in mpy_native.read_file(fw_dir / (m + ".mpy")).qstrs}
    return sorted(names)


def module_names(modules: Iterable[str], src: Path = FIRMWARE_DIR) -> dict[str, frozenset[str]]:
    """Each module's names as its armv6m ``.mpy`` holds them (``make
    firmware``'s build), the names every port has (the .mpy format's static
    ones) left out."""
    out: dict[str, frozenset[str]] = {}
    with tempfile.TemporaryDirectory(prefix="tt-qstrs-") as td:
        for m in modules:
            source = src / (m + ".py")
            target = Path(td) / (m + ".mpy")
            proc = firmware_build.compile_module(source, target)
            if proc.returncode != 0:
                raise RuntimeError(f"mpy-cross -march=armv6m rejected {source.name}: {proc.stderr.strip()}")
            out[m] = frozenset(q.decode() for q in mpy_native.read_file(target).qstrs)
    return out


def interned(modules: Iterable[str], src: Path = FIRMWARE_DIR) -> int:
    """The names the rp2 port interns for these modules: their names less the
    port's own, and each module's file name; RUNTIME_NAMES not included."""
    mods = list(dict.fromkeys(modules))
    names = frozenset().union(*module_names(mods, src).values())
    return len(names - PORT_NAMES) + len(mods)
