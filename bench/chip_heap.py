"""The firmware's modules in the heap of the real MicroPython rp2 port, on an
emulated RP2040 (tools/rp2emu), against the by-kind estimate the benches use
(docs/performance.md, "The resident code on the emulated RP2040").

    python bench/chip_heap.py [--build build/rp2emu] [--modules a,b,...] [--json] [--write]
    python bench/chip_heap.py --objects [--decks 4] [--json] [--write]

One board: the modules imported in the order given (default: what a 4-deck
table holds at its peak, ``virtual_heap.resident_names(4)`` and the chip's
board, ``virtual_heap.CHIP_BOARD``), each one's share of the heap taken as
``bench/bench_heap.py`` takes it on the unix port: ``gc.mem_alloc()`` after a
collection, before and after the import (its imports count where they first
load). The ``.mpy`` files (``mpy-cross -march=armv6m -O3``, as ``make
firmware`` builds them) are written through the REPL to a littlefs on a RAM
block device just before the import that reads them, and removed after it, so
that the disk stays small (a module's imports: found on the unix port by a
hook on ``__import__``). After the last import, ``micropython.qstr_info()``:
the qstr pools the names took (docs/firmware.md, "The chip's qstr pools").

``--objects``: the data side instead, the readers' and the rules engine's
objects as a table makes them (four PN532 drivers on the board's SPI bus, the
card map of ``--decks`` decks, the scanner, the rules adapter, its engine with
the ladders 3-4 decks hold), each ``gc.mem_alloc()`` before and after, on the
emulated board (``machine.SPI``, ``machine.Pin``) and on the unix port (the
chip models' bus and pins), their modules loaded first.

The estimate beside it: ``virtual_heap.resident_code`` (each module's own heap
on the unix port x HEAP_BYTECODE, plus its armv6m native code one for one).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import chip_emu
from tractor_table import mpy, perfdoc, virtual_heap
from tractor_table.paths import FIRMWARE_DIR
from tractor_table.sim.virtual.runner import compile_for_host

#: the unix port: which module files each import reads (its imports' too)
_HOOK = """
import builtins, sys
_imp = builtins.__import__
seen = []
def hook(name, *a):
    had = name in sys.modules
    m = _imp(name, *a)
    if not had and getattr(m, '__file__', None) and name not in seen:
        seen.append(name)
    return m
builtins.__import__ = hook
for n in NAMES:
    del seen[:]
    __import__(n)
    print('N', n, ' '.join(seen))
"""

_QSTR = re.compile(r"qstr pool: n_pool=(\d+), n_qstr=(\d+), n_str_data_bytes=(\d+), n_total_bytes=(\d+)")


def files_read(fw: Path, names: tuple[str, ...]) -> dict[str, list[str]]:
    """For each name in turn, the firmware modules its import loads (itself
    and the imports not loaded before), on the unix port from ``fw``."""
    proc = mpy.run(code=f"NAMES = {list(names)!r}\n" + _HOOK, path=[fw], heapsize="1M", timeout=60)
    if proc.returncode != 0:
        raise SystemExit(f"the imports failed on the unix port: {proc.stdout}{proc.stderr}")
    need = {}
    for line in proc.stdout.splitlines():
        if line.startswith("N "):
            parts = line.split()
            need[parts[1]] = parts[2:]
    return need


def script(names: tuple[str, ...], need: dict[str, list[str]], mpys: dict[str, Path]) -> str:
    """The REPL lines: a RAM disk as large as the largest import's files, then
    for each module its files written, its import measured, its files removed."""
    biggest = max(sum(mpys[m].stat().st_size for m in v) for v in need.values() if v)
    lines = ["import gc, os, micropython"]
    chip_emu.typed(chip_emu._BDEV % (biggest // 512 + 60), lines)
    chip_emu.typed("def live():\n gc.collect()\n gc.collect()\n return gc.mem_alloc()\n", lines)
    for n in names:
        for m in need.get(n, []):
            chip_emu.typed_file(lines, mpys[m])
            lines.append("f = None; s = None")
        lines.append(f"a = live(); __import__({n!r}); print('C', {n!r}, live() - a)")
        for m in need.get(n, []):
            lines.append(f"os.remove('/ram/{m}.mpy')")
    lines.append("micropython.qstr_info(); print('F', gc.mem_free(), gc.mem_alloc())")
    return "\n".join(lines) + "\n"


def measure(build: Path, names: tuple[str, ...], src: Path, timeout: int = 1200) -> dict[str, object]:
    """Each module's share of the chip's heap (bytes), the estimate's, and the
    qstr pools after the last import."""
    with tempfile.TemporaryDirectory(prefix="tt-chipheap-") as td:
        tmp = Path(td)
        fw = tmp / "host"
        if src == FIRMWARE_DIR:
            compile_for_host(fw)
        else:
            for p in sorted(src.glob("*.py")):
                compile_for_host(fw, p)
        need = files_read(fw, names)
        mods = sorted({m for v in need.values() for m in v})
        mpys = {p.stem: p for p in chip_emu.compile_mpy([src / (m + ".py") for m in mods], tmp / "arm")}
        path = tmp / "script.txt"
        path.write_text(script(names, need, mpys))
        t0 = time.monotonic()
        proc = subprocess.run(
            ["node", str(chip_emu.RUNNER), str(build), str(path), str(timeout)], capture_output=True, text=True, check=False
        )
        wall = time.monotonic() - t0
        kinds = virtual_heap.resident_code(fw, names, src)
    chip: dict[str, int] = {}
    qstr: dict[str, int] = {}
    for line in proc.stdout.splitlines():
        if line.startswith("C "):
            _, n, b = line.split()
            chip[n] = int(b)
        m = _QSTR.search(line)
        if m:
            qstr = dict(zip(("pools", "qstrs", "text_bytes", "total_bytes"), map(int, m.groups()), strict=True))
    missing = [n for n in names if n not in chip]
    if missing:
        err = [ln for ln in proc.stdout.splitlines() if "Error" in ln] or [f"exit {proc.returncode}"]
        raise SystemExit(f"no figure from the emulated board for {', '.join(missing)}: {err[-1]}")
    rows = []
    for n in names:
        u, nat = kinds.by_module.get(n, (0, 0))
        rows.append({"module": n, "unix": u, "native": nat, "estimate": round(virtual_heap.chip_code(u, nat)), "chip": chip[n]})
    return {"rows": rows, "qstr": qstr, "wall_s": round(wall, 1)}


#: the modules the objects need, loaded before any is made
OBJECT_MODULES = (
    "events", "tablebase", "hwconfig", "pn532", "pn532cmd", "scanner", "scanstart", "cardmap", "cardmapload",
    "tablerules", "rulesinit", "ruleopts", "drules_hand", "drules_base", "drules_match", "drules_play", "drules",
    "drules_init", "drules_ladder", "drules_place", "drules_memo",
)
_OBJECTS = """
def live():
    gc.collect(); gc.collect(); return gc.mem_alloc()
import pn532, pn532cmd, scanner, scanstart, cardmap, cardmapload, tablerules, rulesinit, drules_hand, drules
import drules_init, drules_ladder, drules_place, drules_memo
data = open(CARDS, 'rb').read()
a = live(); drv = [pn532.PN532(BUS, CS[i], RST[i]) for i in range(4)]; print('O drivers', live() - a)
a = live(); cm = cardmap.CardMap(data); print('O cardmap', live() - a)
data = None
a = live(); sc = scanner.Scanner(drv, cm); print('O scanner', live() - a)
a = live(); r = tablerules.TableRules(DECKS); print('O rules', live() - a)
a = live(); e = r.e(); print('O engine', live() - a)
"""
_OBJ_UNIX = """import gc
import chip, hwconfig as H
clock = chip.SimClock(0)
BUS = chip.SimSpiBus(clock, H.SPI_BAUDRATE)
pins = [BUS.attach(chip.Chip(clock, 's%d' % s)) for s in range(4)]
CS = [p[0] for p in pins]
RST = [p[1] for p in pins]
"""
_OBJ_RP2 = """from machine import SPI, Pin
import hwconfig as H
BUS = SPI(H.SPI_ID, baudrate=H.SPI_BAUDRATE)
CS = [Pin(n, Pin.OUT) for n in H.READER_CS]
RST = [Pin(n, Pin.OUT) for n in H.READER_RSTPD_N]
"""


def _objects(text: str) -> dict[str, int]:
    return {ln.split()[1]: int(ln.split()[2]) for ln in text.splitlines() if ln.startswith("O ")}


def unix_objects(decks: int, tmp: Path) -> dict[str, int]:
    """The objects on the unix port (the chip models' bus and pins), in a
    fresh process; ``tmp`` gets the compiled files and the card map."""
    from tractor_table.sim.virtual.runner import CHIP_SOURCE, virtual_card_map

    cards = tmp / "cards.bin"
    cards.write_bytes(virtual_card_map(decks))
    fw = tmp / "host"
    if not fw.exists():
        compile_for_host(fw)
    sim = tmp / "sim"
    if not sim.exists():
        compile_for_host(sim, CHIP_SOURCE)
    code = _OBJ_UNIX + f"DECKS = {decks}\nCARDS = {str(cards)!r}\n" + _OBJECTS
    proc = mpy.run(code=code, path=[sim, fw], heapsize="1M", timeout=120)
    found = _objects(proc.stdout)
    if len(found) != 5:
        raise SystemExit(f"the objects were not measured on the unix port: {proc.stdout}{proc.stderr}")
    return found


def measure_objects(build: Path, decks: int, timeout: int = 1200) -> dict[str, object]:
    """The readers' and the engine's objects (bytes) on the emulated board and
    on the unix port, and the estimate's data factor beside them."""
    with tempfile.TemporaryDirectory(prefix="tt-chipobj-") as td:
        tmp = Path(td)
        cards = tmp / "cards.bin"
        head = f"DECKS = {decks}\n"
        unix = unix_objects(decks, tmp)
        mpys = chip_emu.compile_mpy([FIRMWARE_DIR / (m + ".py") for m in OBJECT_MODULES], tmp / "arm") + [cards]
        lines = ["import gc, os"]
        chip_emu.typed(chip_emu._BDEV % (sum(m.stat().st_size for m in mpys) // 512 + 3 * len(mpys) + 40), lines)
        for m in mpys:
            chip_emu.typed_file(lines, m)
            lines.append("f = None; s = None")
        chip_emu.typed(_OBJ_RP2 + head + "CARDS = '/ram/cards.bin'\n" + _OBJECTS, lines)
        path = tmp / "script.txt"
        path.write_text("\n".join(lines) + "\n")
        proc = subprocess.run(
            ["node", str(chip_emu.RUNNER), str(build), str(path), str(timeout)], capture_output=True, text=True, check=False
        )
    u, c = unix, _objects(proc.stdout)
    if not u or set(u) != set(c):
        err = [ln for ln in proc.stdout.splitlines() if "Error" in ln] or ["no figures"]
        raise SystemExit(f"the objects were not measured on both ports: {err[-1]}")
    rows = [{"part": k, "unix": u[k], "estimate": round(virtual_heap.chip_data(u[k])), "chip": c[k]} for k in u]
    return {"decks": decks, "rows": rows}


def render_objects(cmd: str, r: dict[str, object]) -> str:
    rows = list(r["rows"])  # type: ignore[call-overload]
    u = sum(x["unix"] for x in rows)
    est = sum(x["estimate"] for x in rows)
    chip = sum(x["chip"] for x in rows)
    out = [
        f"Command: `{cmd}`. {perfdoc.machine_line()}",
        "",
        f"The readers' and the rules engine's objects as a {r['decks']}-deck table makes them, each "
        "`gc.mem_alloc()` before and after, on the emulated RP2040 (the rp2 port v1.26.1) and on the unix port; "
        f"the estimate every bench uses for such data: the unix port's bytes x {virtual_heap.HEAP_DATA:g} (`HEAP_DATA`):",
        "",
        "| part | unix port | estimate (x HEAP_DATA) | **on the chip** | chip / unix |",
        "|---|---:|---:|---:|---:|",
    ]
    for x in rows:
        out.append(f"| {x['part']} | {x['unix']:,} | {x['estimate']:,} | {x['chip']:,} | {x['chip'] / x['unix']:.2f} |")
    out.append(f"| **all** | {u:,} | {est:,} | **{chip:,}** | {chip / u:.2f} |")
    return "\n".join(out)


def render(cmd: str, r: dict[str, object]) -> str:
    rows = list(r["rows"])  # type: ignore[call-overload]
    est = sum(x["estimate"] for x in rows)
    chip = sum(x["chip"] for x in rows)
    q = dict(r["qstr"])  # type: ignore[call-overload]
    out = [
        f"Command: `{cmd}`. {perfdoc.machine_line()}",
        "",
        "The real MicroPython rp2 port (v1.26.1, RPI_PICO, tools/rp2emu) on an emulated RP2040: each module imported in "
        "turn on one board, its share of the heap `gc.mem_alloc()` after a collection, before and after (its imports "
        "where they first load); beside it the estimate every heap figure of the benches uses "
        f"(`virtual_heap.chip_code`: the unix port's figure x {virtual_heap.HEAP_BYTECODE:g}, plus the armv6m native code):",
        "",
        "| module | unix port | armv6m native | estimate (by kind) | **on the chip** |",
        "|---|---:|---:|---:|---:|",
    ]
    for x in rows:
        out.append(f"| {x['module']} | {x['unix']:,} | {x['native']:,} | {x['estimate']:,} | {x['chip']:,} |")
    out += [
        f"| **all** | | | **{est:,}** | **{chip:,}** ({chip / est:.3f} of the estimate) |",
        "",
        f"After the last import: {q.get('qstrs', '?')} qstrs (the firmware's, one a module for its file, and the script's own few) in {q.get('pools', '?')} pools, "
        f"{q.get('total_bytes', 0):,} B with their text ({q.get('text_bytes', 0):,} B); the port's pools hold "
        "20, 40, ... 640 names (1,260 in six), and the seventh, 1,280 names, takes about 7.7 KB in one block.",
    ]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", type=Path, default=chip_emu.REPO / "build" / "rp2emu", help="tools/rp2emu/build.sh's folder")
    ap.add_argument("--modules", help="modules in load order, comma-separated (default: a 4-deck table's resident set)")
    ap.add_argument("--firmware", type=Path, default=FIRMWARE_DIR, help="the firmware's folder (default: firmware/)")
    ap.add_argument("--timeout", type=int, default=1200, help="wall seconds the board may take")
    ap.add_argument("--objects", action="store_true", help="the readers' and the engine's objects instead of the modules' code")
    ap.add_argument("--decks", type=int, default=4, choices=(1, 2, 3, 4), help="with --objects: the card map's and the rules' decks")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON, write nothing")
    ap.add_argument("--write", action="store_true", help="write the table to docs/performance.md (section chip-heap, or chip-objects)")
    args = ap.parse_args(argv)
    missing = chip_emu.no_board(args.build)
    if missing:
        print(missing, file=sys.stderr)
        return 2
    if args.objects:
        cmd = "python bench/chip_heap.py --objects" + (f" --decks {args.decks}" if args.decks != 4 else "")
        return _report(args, cmd, measure_objects(args.build, args.decks, args.timeout), render_objects, "chip-objects")
    default = virtual_heap.resident_names(4) + virtual_heap.CHIP_BOARD
    names = tuple(n for n in args.modules.split(",") if n) if args.modules else default
    unknown = [n for n in names if not (args.firmware / (n + ".py")).exists()]
    if unknown:
        print(f"no module {', '.join(unknown)} in {args.firmware}", file=sys.stderr)
        return 2
    cmd = "python bench/chip_heap.py" + (f" --modules {','.join(names)}" if names != default else "")
    return _report(args, cmd, measure(args.build, names, args.firmware, args.timeout), render, "chip-heap")


def _report(
    args: argparse.Namespace, cmd: str, r: dict[str, object], fmt: Callable[[str, dict[str, object]], str], section: str
) -> int:
    """The figures as JSON (--json), or as a table printed and, with --write,
    written to docs/performance.md's section."""
    if args.json:
        print(json.dumps({"command": cmd, **r}, indent=1))
        return 0
    body = fmt(cmd, r)
    print(body)
    if args.write:
        perfdoc.write_section(section, body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
