"""The power-cut soak and the cost of a save on littlefs; writes the "flash"
section of docs/performance.md.

Runs :func:`tractor_table.sim.board.flashsoak.soak` (``tractor-table soak-flash``):
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
from tractor_table.sim.board import flashsoak  # noqa: E402

# the real rp2 port (v1.28.0, board RPI_PICO, emulated RP2040 at 125 MHz, the
# flash chip's typical erase/program times charged): a snapshot saved to
# littlefs, median / worst; measured with the factors of bench/rp2040.py
RP2_SAVE_MS = (81.0, 299.0)


def p99(xs: list[float] | list[int]) -> float:
    v = sorted(xs)
    return float(v[min(len(v) - 1, int(len(v) * 0.99))])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cuts", type=int, default=1000)
    ap.add_argument("--hands", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    fig, ref = flashsoak.soak(args.cuts, hands=args.hands, seed=args.seed, say=print,
                              stage=lambda text: print(f"soak-flash: {text}", flush=True))
    lines = flashsoak.report(fig)
    print("\n".join(lines))
    flash = sorted(s.flash_us / 1000 for s in ref.saves)
    ser = sorted(s.serialise_us / 1000 for s in ref.saves)
    ser_rp2 = sorted(rp2040.rp2_ms(s.serialise_us, "snapshot") for s in ref.saves)
    total = sorted(s.flash_us / 1000 + rp2040.rp2_ms(s.serialise_us, "snapshot") for s in ref.saves)
    ops = sorted(s.ops for s in ref.saves)
    # the same saves at the datasheet's maximum times (norflash.TIMES["max"]):
    # each erase 400 ms instead of 45, each page program 3 ms instead of 0.4
    d_se, d_pp = (400000 - 45000), (3000 - 400)
    flash_max = sorted((s.flash_us + s.erases * d_se + s.pages * d_pp) / 1000 for s in ref.saves)
    # the serialising's worst is the host's scheduling noise on a shared
    # machine (a few samples of thousands): the estimate's worst takes its p99
    med = statistics.median(total)
    worst = max(flash) + p99(ser_rp2)

    def apart(model: float, real: float) -> str:
        r = model / real
        return f"{abs(1 - r) * 100:.0f}% {'under' if r < 1 else 'over'}"

    body = [
        "## Flash: saves on littlefs and power cuts",
        "",
        f"Command: `.venv/bin/python bench/bench_flash.py --cuts {args.cuts} --seed {args.seed}` "
        f"(`make soak-flash`). Machine: {perfdoc.machine_line()}",
        "",
        f"The table core (device rules) plays {fig.hands} bots' hands and saves with `persist.Store` on "
        "`vfs.VfsLfs2` (the unix port's littlefs, the rp2 port's code) on the NOR flash model "
        "(`host/tractor_table/sim/board/mpy/norflash.py`: 352 blocks of 4 KiB, 256-byte pages, W25Q16JV typical "
        "times: page program 0.4 ms, sector erase 45 ms; the datasheet's maximum 3 ms and 400 ms reported "
        "beside them), after every `take_save()` as `main.py` does.",
        "",
        f"A save on littlefs, {len(flash)} saves of the uncut run:",
        "",
        "| what | median | p99 | worst |",
        "|---|---:|---:|---:|",
        f"| erases + programs per save | {statistics.median(ops):g} | {p99(ops):g} | {max(ops)} |",
        f"| flash time charged (virtual ms: erase, program, read) | {statistics.median(flash):.1f} | "
        f"{p99(flash):.1f} | {max(flash):.1f} |",
        f"| flash time at the datasheet's maximum times (400 ms an erase, 3 ms a page program) | "
        f"{statistics.median(flash_max):.1f} | {p99(flash_max):.1f} | {max(flash_max):.1f} |",
        f"| serialising the snapshot, unix port (ms, best of 3) | {statistics.median(ser):.3f} | {p99(ser):.3f} | "
        f"{max(ser):.3f} |",
        f"| the same on an RP2040 (× {rp2040.TIME['snapshot']:.0f} × {rp2040.FLASH_WAIT}, `bench/rp2040.py`) | "
        f"{statistics.median(ser_rp2):.1f} | {p99(ser_rp2):.1f} | – |",
        f"| a save on an RP2040, flash + serialising (est.; worst: flash worst + serialising p99) | {med:.1f} | "
        f"{p99(total):.1f} | {worst:.1f} |",
        f"| the real rp2 port, typical flash times charged | {RP2_SAVE_MS[0]:.0f} | – | {RP2_SAVE_MS[1]:.0f} |",
        f"| estimate / real rp2 port | {med / RP2_SAVE_MS[0]:.2f} | – | {worst / RP2_SAVE_MS[1]:.2f} |",
        "",
        f"{sum(1 for x in flash if x >= 45)} of the {len(flash)} saves erase a block (45 ms each); the worst "
        "ones also compact littlefs's metadata (a second or third erase). The estimate is "
        f"{apart(med, RP2_SAVE_MS[0])} the real port's median and {apart(worst, RP2_SAVE_MS[1])} its worst: "
        "it leaves out littlefs's own CPU time on the RP2040 (its C code runs natively here, unscaled) "
        "and the Python file calls, and the real port's worst (other hands, another filesystem history) may have met a costlier compaction. So the model's "
        "flash time is a floor: count on about 80 ms a save, 300 ms at worst, on a Pico.",
        "",
        "Power cuts (`tractor-table soak-flash`, the same soak):",
        "",
        *[f"- {ln}" for ln in lines],
    ]
    perfdoc.write_section("flash", "\n".join(body))
    print("\n".join(body))
    return 1 if fig.failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
