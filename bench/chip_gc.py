"""A collection's time on the emulated RP2040 against this port's, for the same heap.

The board model charges the firmware's ``gc.collect()`` (and the chip's own
collections) as this port's collection time for the firmware's live heap and
its garbage, by a fit made at power-up (``board/mpy/vclock.py``,
``calibrate_gc`` and ``fw_collect``), times the compiled-code factor
(``c_factor``: the rp2 port's native code, 88.4 fixed, 90-117 anchored in the
board's runs). The rp2 port's collector had not been timed alone
(docs/performance.md, "How the figures are obtained"). Here it is:

- **the chip**: the real rp2 port (v1.26.1) on the emulated RP2040 at 125 MHz
  (``tools/rp2emu/run.mjs``, no flash wait states), a heap of N small lists
  (``[i, i + 1, str(i)]``, about 70 bytes each there) for N = 0, 500, ...
  2000, each collection timed with ``time.ticks_us`` (twice; the second kept);
- **this port**: the same code on the unix port (``--heap`` of heap, 64-bit:
  each list about twice the bytes), ``--runs`` processes, each row's median.

Their ratio is what a collection's time on this port must be multiplied by to
be the chip's; the chip's own is longer by its flash wait states (the
collector runs from flash through the XIP cache: x 1.3, ``bench/rp2040.py``'s
FLASH_WAIT, on top). Prints a table; ``--json`` the figures; ``--write`` the
table to docs/performance.md (section ``chip-gc``). Needs the emulator's build
(tools/rp2emu/build.sh) and node.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import chip_emu  # noqa: E402  (bench/chip_emu.py)
import chip_heap  # noqa: E402  (its _report)
import chipref  # noqa: E402
import rp2040  # noqa: E402
from tractor_table import mpy, perfdoc  # noqa: E402

#: the heaps measured: lists made before each row
SIZES = (0, 500, 1000, 1500, 2000)

PROBE = """import gc, time
def probe(n):
    gc.collect()
    t = time.ticks_us(); gc.collect(); d = time.ticks_diff(time.ticks_us(), t)
    print('L', n, d, gc.mem_alloc(), gc.mem_free())
big = []
for k in {sizes}:
    while len(big) < k:
        i = len(big)
        big.append([i, i + 1, str(i)])
    probe(k)
""".replace("{sizes}", repr(SIZES))


def _rows(text: str) -> dict[int, tuple[int, int, int]]:
    """{lists: (us, alloc, free)} of the probe's lines."""
    out: dict[int, tuple[int, int, int]] = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) == 5 and f[0] == "L":
            out[int(f[1])] = (int(f[2]), int(f[3]), int(f[4]))
    return out


def chip(build: Path, timeout: int, tmp: Path) -> dict[int, tuple[int, int, int]]:
    lines: list[str] = []
    chip_emu.typed(PROBE, lines)
    script = tmp / "gc_probe.txt"
    script.write_text("\n".join(lines) + "\n")
    proc = subprocess.run(
        ["node", str(chip_emu.RUNNER), str(build), str(script), str(timeout)],
        capture_output=True, text=True, timeout=timeout + 60, check=False,
    )
    rows = _rows(proc.stdout)
    if set(rows) != set(SIZES):
        raise SystemExit(f"the emulated board gave no figures (exit {proc.returncode}):\n{proc.stdout[-2000:]}")
    return rows


def unix(heap: str, runs: int) -> dict[int, tuple[float, int, int]]:
    got: dict[int, list[tuple[int, int, int]]] = {n: [] for n in SIZES}
    for _ in range(runs):
        proc = mpy.run(code=PROBE, heapsize=heap, timeout=120)
        rows = _rows(proc.stdout)
        if set(rows) != set(SIZES):
            raise SystemExit(f"the unix port gave no figures: {proc.stdout}{proc.stderr}")
        for n, r in rows.items():
            got[n].append(r)
    return {n: (statistics.median(r[0] for r in v), v[0][1], v[0][2]) for n, v in got.items()}


def render(cmd: str, r: dict[str, Any]) -> str:
    c, u = r["chip"], r["unix"]
    cf = r["c_factor_fixed"]
    out = [
        "## A collection on the emulated RP2040 and on this port",
        "",
        f"Command: `{cmd}`. {perfdoc.machine_line()}; load {r['load'][0]:.2f} before, {r['load'][1]:.2f} after. "
        "The chip: the rp2 port v1.26.1 on the emulated RP2040 at 125 MHz (no flash wait states), "
        "`gc.collect()` timed with `time.ticks_us` after a first one, a heap of N lists `[i, i + 1, str(i)]`. "
        f"This port: the same code, heap {r['heap']}, the median of {r['runs']} processes. The board model "
        "charges a collection as this port's time for the firmware's live heap (a fit made at power-up, on the "
        f"process's whole heap) times the compiled-code factor: {cf:g} fixed, 90-117 anchored in the board's runs.",
        "",
        "| lists | live heap: chip / this port | **collection on the chip** | on this port | chip / this port |",
        "|---:|---:|---:|---:|---:|",
    ]
    for n in SIZES:
        cu, ca, _ = c[n]
        uu, ua, _ = u[n]
        ratio = cu / uu if uu else 0.0
        out.append(f"| {n} | {ca / 1024:.0f} / {ua / 1024:.0f} KiB | **{cu / 1000:.1f} ms** | {uu:.0f} us | "
                   f"{ratio:.0f} |")
    ratios = [c[n][0] / u[n][0] for n in SIZES if u[n][0]]
    per_kib = [(c[b][0] - c[a][0]) / ((c[b][1] - c[a][1]) / 1024) for a, b in zip(SIZES, SIZES[1:], strict=False)]
    out += [
        "",
        f"On the chip a collection takes {c[0][0] / 1000:.2f} ms with the heap nearly empty and "
        f"{statistics.median(per_kib) * 1000 / 1000:.0f} us more per KiB live (median of the steps; x "
        f"{rp2040.FLASH_WAIT:g} with a real chip's flash wait states): a live heap of 110-140 KiB, the "
        "firmware's in a game, is a collection of "
        f"{(c[0][0] + 110 * statistics.median(per_kib)) * rp2040.FLASH_WAIT / 1000:.0f}-"
        f"{(c[0][0] + 140 * statistics.median(per_kib)) * rp2040.FLASH_WAIT / 1000:.0f} ms with the wait states, "
        "one piece, core 0 stopped through it.",
        "",
        f"The ratio chip / this port, {min(ratios):.0f}-{max(ratios):.0f} (x {rp2040.FLASH_WAIT:g} with the "
        f"wait states: {min(ratios) * rp2040.FLASH_WAIT:.0f}-{max(ratios) * rp2040.FLASH_WAIT:.0f}), against the "
        f"factor the board model charges a collection at ({cf:g}-117): for a heap of these objects, this port's "
        f"time x the factor is {cf / (max(ratios) * rp2040.FLASH_WAIT):.2f}-"
        f"{117 / (min(ratios) * rp2040.FLASH_WAIT):.2f} of the chip's with its wait states. The "
        "model's fit is made on the process's whole heap (the models' objects in it), and the collections its "
        "runs charge in a game are 17-28 ms (the block \"Time, 2 decks\": gc.collect()), the chip's size at "
        "the firmware's heap by the line above; whether they flatter the chip at the firmware's own objects "
        "(code, the table's lists) is not measured here.",
    ]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = chip_emu.emu_parser(__doc__ or "", "chip-gc", 300)
    ap.add_argument("--heap", default="500K", help="the unix port's heap")
    ap.add_argument("--runs", type=int, default=5, help="unix-port processes (each row's median)")
    parsed = chip_emu.board_args(ap, argv, "chip_gc.py")
    if parsed is None:
        return 2
    args, cmd = parsed
    load0 = chipref.load()[0]
    with tempfile.TemporaryDirectory(prefix="tt-chipgc-") as td:
        c = chip(args.build, args.timeout, Path(td))
    u = unix(args.heap, args.runs)
    r = {"chip": c, "unix": u, "heap": args.heap, "runs": args.runs, "load": [load0, chipref.load()[0]],
         "c_factor_fixed": chipref.fixed_board().c_factor}
    return chip_heap._report(args, cmd, r, render, "chip-gc")


if __name__ == "__main__":
    sys.exit(main())
