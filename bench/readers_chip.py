"""The readers' loop on core 1: the emulated chip against the board model.

The chip's side: ``tools/rp2emu/readers.mjs`` (the real rp2 port on the
emulated RP2040, the firmware's ``pn532``, ``scanner`` and ``readcore`` as
deploy compiles them, four PN532s answering at the simulator's timings, SPI
bytes at 4 MHz): the four-seat cycle of ``readcore.run`` with no card, and
with a tag resting on seat 0. The board model's side: the same firmware at an
idle table (``PicoTable``, no game: the readers on core 1 polling four empty
readers) for ``--seconds`` of real time, at the fixed factors
(``bench/rp2040.py``): its cycle (``cycle_p50``: board time between two polls
of seat 0) and core 1's CPU charged. Their ratio says how far the model's
charge of core 1's loop is from the chip's (docs/firmware.md, "The readers on
core 1, and the board model's second core").

Needs the emulator's build (tools/rp2emu/build.sh) and node; prints a table,
``--json`` the figures, ``--write`` the table to docs/performance.md (section
``readers-chip``).
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import chip_emu  # noqa: E402  (bench/chip_emu.py)
import chip_heap  # noqa: E402  (its _report: JSON, or a table written with --write)
import chipref  # noqa: E402
from tractor_table import perfdoc  # noqa: E402

_HOST = re.compile(
    r"\[host\] (?P<case>[^:]+): (?P<n>\d+) cycles, p50 (?P<p50>\d+) us, mean (?P<mean>\d+) us, "
    r"max (?P<max>\d+) us, min (?P<min>\d+) us; core not in WFE/WFI (?P<awake>[\d.]+)%, "
    r"busy-waiting in sleep_us (?P<spin>[\d.]+)%, working (?P<work>[\d.]+)%"
)


def chip(build: Path, turns: int, timeout: int) -> dict[str, dict[str, float]]:
    """readers.mjs's two cases: {'no card': {...}, 'tag on seat 0': {...}}."""
    proc = subprocess.run(
        ["node", str(chip_emu.REPO / "tools" / "rp2emu" / "readers.mjs"), str(build), str(turns), str(timeout)],
        capture_output=True, text=True, timeout=timeout + 60, check=False,
    )
    out: dict[str, dict[str, float]] = {}
    for m in _HOST.finditer(proc.stdout):
        out[m.group("case")] = {k: float(v) for k, v in m.groupdict().items() if k != "case"}
    if proc.returncode != 0 or len(out) != 2:
        raise SystemExit(f"readers.mjs failed (exit {proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return out


def model(seconds: float) -> dict[str, Any]:
    """The board model's idle table: the readers on core 1, four empty readers."""
    from shengji import Rules
    from tractor_table.sim.board.runner import PicoTable

    fixed = chipref.fixed_board()
    with tempfile.TemporaryDirectory(prefix="tt-readers-") as w:
        vt = PicoTable(2, rules=Rules(decks=2), cpu_factor=fixed.cpu_factor, c_factor=fixed.c_factor, workdir=Path(w))
        with vt:
            time.sleep(seconds)
        f = dict(vt.figures)
    return {
        "cycle_p50_us": f["cycle_p50"],
        "cycle_p99_us": f["cycle_p99"],
        "cycles": f.get("cycle_n", 0),
        "board_s": f["virtual_us"] / 1e6,
        "core1_cpu_share": f.get("core1_cpu_us", 0) / max(1, f["virtual_us"]),
        "core1_stack_max": f.get("core1_stack_max", 0),
        "core1_stack_limit": f.get("core1_stack_limit", 0),
        "factors": [fixed.cpu_factor, fixed.c_factor],
    }


def render(cmd: str, c: dict[str, dict[str, float]], m: dict[str, Any]) -> str:
    nc, tag = c["no card"], c["tag on seat 0"]
    ratio = m["cycle_p50_us"] / nc["p50"]
    return "\n".join([
        "## The readers' loop on core 1: the emulated chip and the board model",
        "",
        f"Command: `{cmd}`. {perfdoc.machine_line()}. The chip: `tools/rp2emu/readers.mjs` (the rp2 port "
        "v1.26.1 on the emulated RP2040 at 125 MHz, no flash wait states; one core, the loop on it; four "
        "PN532s at the simulator's timings). The model: an idle table on the board model (`PicoTable`, no "
        f"game, the readers on core 1), {m['board_s']:.1f} s of board time, the fixed factors (bytecode x "
        f"{m['factors'][0]:g}, C x {m['factors'][1]:g}).",
        "",
        "| what | the emulated chip | the board model |",
        "|---|---:|---:|",
        f"| four-seat cycle, no card: p50 / max (model: p99) | {nc['p50'] / 1000:.1f} / {nc['max'] / 1000:.1f} ms | "
        f"{m['cycle_p50_us'] / 1000:.1f} / {m['cycle_p99_us'] / 1000:.1f} ms |",
        f"| four-seat cycle, a tag on seat 0: p50 / max | {tag['p50'] / 1000:.1f} / {tag['max'] / 1000:.1f} ms | - |",
        f"| core 1's CPU, no card (chip: working, not spinning) | {nc['work']:.1f} % "
        f"({nc['work'] / 100 * nc['p50'] / 1000:.1f} ms of a p50 cycle) | {100 * m['core1_cpu_share']:.1f} % "
        f"({m['core1_cpu_share'] * m['cycle_p50_us'] / 1000:.1f} ms of a p50 cycle) |",
        f"| core 1's stack, deepest (model: this port's bytes, at its model calls) | - | "
        f"{m['core1_stack_max']} of {m['core1_stack_limit']} B |",
        "",
        f"The model's cycle is {ratio:.2f}x the emulated chip's (the chip's own is longer by its flash wait "
        "states: the emulator charges none, x 1.1-1.3 on the working share). Where the model is above, it is "
        "the pessimistic side: the board's figures are a bound, not the chip's.",
    ])


def main(argv: list[str] | None = None) -> int:
    ap = chip_emu.emu_parser(__doc__ or "", "readers-chip", 300)
    ap.add_argument("--turns", type=int, default=200, help="measured turns per case on the chip (even)")
    ap.add_argument("--seconds", type=float, default=20.0, help="real seconds of the board model's idle table")
    parsed = chip_emu.board_args(ap, argv, "readers_chip.py")
    if parsed is None:
        return 2
    args, cmd = parsed
    r = {"chip": chip(args.build, args.turns, args.timeout), "model": model(args.seconds)}
    return chip_heap._report(args, cmd, r, lambda cmd, r: render(cmd, r["chip"], r["model"]), "readers-chip")


if __name__ == "__main__":
    sys.exit(main())
