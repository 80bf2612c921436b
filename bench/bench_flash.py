"""The power-cut soak and the cost of a save on littlefs; writes the "flash"
section of docs/performance.md.

Runs :func:`tractor_table.board.flashsoak.soak` (``tractor-table soak-flash``):
bots' hands played by the table core, saved on littlefs on the modelled NOR
flash as ``main.py`` does, the power cut ``--cuts`` times at random erases and
programs. The uncut reference run gives the cost of each save: the flash
chip's typical erase/program times (and its reads) charged to the virtual
clock by ``board/mpy/norflash.py``, and the snapshot's serialisation on this
CPU, scaled to an RP2040 with ``bench/rp2040.py``.

Usage: .venv/bin/python bench/bench_flash.py [--cuts 1000] [--seed 1]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import rp2040  # noqa: E402
from tractor_table import perfdoc  # noqa: E402
from tractor_table.board import flashsoak  # noqa: E402

# the real rp2 port (v1.28.0, board RPI_PICO, emulated RP2040 at 125 MHz, the
# flash chip's typical erase/program times charged): a snapshot saved to
# littlefs, median / worst; measured with the factors of bench/rp2040.py
RP2_SAVE_MS = (81.0, 299.0)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cuts", type=int, default=1000)
    ap.add_argument("--hands", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    fig, ref = flashsoak.soak(args.cuts, hands=args.hands, seed=args.seed, say=print)
    lines = flashsoak.report(fig)
    print("\n".join(lines))
    st = flashsoak.save_times(ref)
    flash = sorted(s.flash_us / 1000 for s in ref.saves)
    ser_rp2 = [rp2040.rp2_ms(s.serialise_us, "snapshot") for s in ref.saves]
    total = [s.flash_us / 1000 + rp2040.rp2_ms(s.serialise_us, "snapshot") for s in ref.saves]
    med, worst = statistics.median(total), max(total)
    ev = fig.events_lost or [0]
    body = [
        "## Flash: saves on littlefs and power cuts",
        "",
        f"Command: `.venv/bin/python bench/bench_flash.py --cuts {args.cuts} --seed {args.seed}` "
        f"(`make soak-flash`). Machine: {perfdoc.machine_line()}",
        "",
        f"The table core (device rules) plays {fig.hands} bots' hands and saves with `persist.Store` on "
        "`vfs.VfsLfs2` (the unix port's littlefs, the rp2 port's code) on the NOR flash model "
        "(`host/tractor_table/board/mpy/norflash.py`: 352 blocks of 4 KiB, 256-byte pages, W25Q16JV typical "
        "times: page program 0.4 ms, sector erase 45 ms), after every `take_save()` as `main.py` does.",
        "",
        f"A save on littlefs, {int(st['saves'])} saves of the uncut run:",
        "",
        "| what | median | worst |",
        "|---|---:|---:|",
        f"| erases + programs per save | {st['ops_median']:g} | {st['ops_worst']:g} |",
        f"| flash time charged (virtual ms: erase, program, read) | {st['flash_median']:.1f} | {st['flash_worst']:.1f} |",
        f"| serialising the snapshot, unix port (ms) | {st['ser_median']:.3f} | {st['ser_worst']:.3f} |",
        f"| the same on an RP2040 (× {rp2040.TIME['snapshot']:.0f} × {rp2040.FLASH_WAIT}, `bench/rp2040.py`) | "
        f"{statistics.median(ser_rp2):.1f} | {max(ser_rp2):.1f} |",
        f"| a save on an RP2040, flash + serialising (est.) | {med:.1f} | {worst:.1f} |",
        f"| the real rp2 port, typical flash times charged | {RP2_SAVE_MS[0]:.0f} | {RP2_SAVE_MS[1]:.0f} |",
        f"| model / real rp2 port | {med / RP2_SAVE_MS[0]:.2f} | {worst / RP2_SAVE_MS[1]:.2f} |",
        "",
        f"{sum(1 for x in flash if x >= 45)} of the {len(flash)} saves erase a block (45 ms each); the worst "
        "ones also compact littlefs's metadata (a second or third erase). The estimate is "
        f"{(1 - med / RP2_SAVE_MS[0]) * 100:.0f}% under the real port's median and "
        f"{(1 - worst / RP2_SAVE_MS[1]) * 100:.0f}% under its worst: it leaves out littlefs's own CPU time "
        "on the RP2040 (its C code runs natively here, unscaled) and the Python file calls, and the "
        "real port's run (other hands, a filesystem with the firmware's history) met costlier "
        "compactions. So the model's flash time is a floor: count on about 80 ms a save, 300 ms at "
        "worst, on a Pico.",
        "",
        "Power cuts (`tractor-table soak-flash`, the same soak):",
        "",
        *[f"- {ln}" for ln in lines],
        f"- events lost per cut: median {statistics.median(ev):g}, max {max(ev)}",
    ]
    perfdoc.write_section("flash", "\n".join(body))
    print("\n".join(body))
    return 1 if fig.failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
