"""The device rules engine's RP2040 estimate by kind against the chip's measured times.

    .venv/bin/python bench/calib_engine.py [--commit a676471] [--repeat 21] [--runs 5] [--cases adv-17,issue-12] [--bots 30]

The rp2 port was measured once (the audit of 2026-12-01, evening: the engine of
main at a676471 on the real MicroPython rp2 port, emulated RP2040 at 125 MHz, no
flash wait states charged; ``bench/rp2040.py``). This script takes that
commit's engine (``git archive COMMIT firmware``), compiles its ``drules*``
modules with ``mpy-cross -march=host -O3`` as the firmware is built (its
``@micropython.native`` methods native, for this machine), and times the same
cases through today's by-kind path, the one ``bench/bench_device_rules.py``
uses: the "adversary" runner with ``kindtime_mp.py`` (each check the median of
``--repeat`` calls, split into native and bytecode µs), ``--runs`` times over
in one process; a case's figure is the median run (by total µs). Each estimate,
``rules_ms_by_kind`` without and with ``FLASH_WAIT``, is set against the chip's
time: estimate / measured. Last, the factors (native, bytecode) that fit the
chip's times best (least squares of log(estimate / measured), no flash wait),
over a wide grid and within the audit's measured ranges (57-68, 83-170).
``--bots 30``: also the 30 bot hands the chip ran (seed 1000, 7,531 checks), timed
as the bench times them (5 calls each, the least of 3 passes): median all, median
follow and worst against the chip's. The section "Device rules: the estimate
against the chip's measured times" of docs/performance.md gives a run.

The factors of ``bench/rp2040.py`` are read, never changed. Timing is
load-sensitive: say the load (``uptime``) beside the figures.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
from pathlib import Path
from typing import Any

import bench_device_rules
import rp2040
from chipref import MEASURED, OldEngine, case_rows, cases, chip, estimate
from tractor_table import adversarial, mpy
from tractor_table.paths import FIRMWARE_DIR
from tractor_table.sim import engine

HERE = Path(__file__).resolve().parent

#: the audit's measured ranges of rp2 / unix by kind (adversarial follows)
RANGE_NATIVE = (57.0, 68.0)
RANGE_BYTECODE = (83.0, 170.0)


def bot_checks(mpy_dir: Path, native: list[str], inner: list[str], hands: int, repeat: int) -> list[tuple[str, float, float]]:
    """Every check of ``hands`` bot hands (bench_device_rules.py's corpus, seed
    1000) timed by kind once with the engine in ``mpy_dir``: (kind, µs, native µs)."""
    lines, _variant = bench_device_rules.bot_scripts(hands, 1000)
    proc = mpy.run(
        bench_device_rules.RUNNER,
        args=["time", str(repeat), ",".join(native), ",".join(inner)],
        path=[mpy_dir, HERE, engine.MPY_DIR, FIRMWARE_DIR],
        heapsize="32M",
        input="\n".join(lines) + "\nend\n",
        timeout=3600,
    )
    if proc.returncode != 0:
        raise SystemExit(f"the bots' replay failed:\n{proc.stderr[-2000:]}")
    return [(str(k), float(us), float(nat)) for line in proc.stdout.splitlines() for k, us, nat in json.loads(line)[2]]


def time_cases(
    commit: str, chosen: list[dict[str, Any]], repeat: int, runs: int, hands: int = 0
) -> tuple[list[dict[str, Any]], list[tuple[str, float, float]]]:
    """Each case timed by kind ``runs`` times with the commit's engine: its
    median run (chipref.case_rows); and the checks of ``hands`` bot hands (:func:`bot_checks`)."""
    with OldEngine(commit, repeat) as old:
        native, inner = adversarial.engine_methods(old.src)
        # the bots' checks: the least of 3 passes each, as bench_device_rules.py takes them
        # and its default repeat (5): with 21 a bytecode trick check of the old engine timed
        # 143-157 µs in every pass against 47 at 5 (the split's wrappers' garbage in the
        # runner's heap, kindtime_mp.py's note), which made the bots' worst 3x the chip's
        passes = [bot_checks(old.mpy_dir, native, inner, hands, BOT_REPEAT) for _ in range(3 if hands else 0)]
        bots = [min(ts, key=lambda t: t[1]) for ts in zip(*passes, strict=True)]
        # whole passes: a slow spell of the machine meets a case in one run
        got = [old.time(chosen) for _ in range(runs)]
    return case_rows(chosen, got), bots


def fit(rows: list[dict[str, Any]], nat: tuple[float, float], byt: tuple[float, float]) -> tuple[float, float, float]:
    """(native, bytecode, rms of log ratio) that fit the chip's times best on a
    grid of whole factors, from each case's least run (the bench's figure, and
    the one the machine's load moves least)."""
    best = (0.0, 0.0, math.inf)
    for fn in range(int(nat[0]), int(nat[1]) + 1):
        for fb in range(int(byt[0]), int(byt[1]) + 1):
            e = [math.log(estimate(r, fn, fb, least=True) / chip(r)) ** 2 for r in rows]
            rms = math.sqrt(sum(e) / len(e))
            if rms < best[2]:
                best = (float(fn), float(fb), rms)
    return best


#: calls per bot check, the median counts: bench_device_rules.py's default
BOT_REPEAT = 5

#: the chip's times of 30 bot hands (7,531 checks), ms: median of all, of follows, the worst
BOTS_MEASURED = (0.27, 0.24, 8.9)


def bots_markdown(bots: list[tuple[str, float, float]]) -> list[str]:
    """The bots' checks: median all / follow, worst, the estimate against the chip's."""
    fn, fb, fw = rp2040.TIME["rules_native"], rp2040.TIME["rules_bytecode"], rp2040.FLASH_WAIT
    ms = [(k, (nat * fn + (us - nat) * fb) / 1000.0) for k, us, nat in bots]
    got = (
        statistics.median(e for _, e in ms),
        statistics.median(e for k, e in ms if k == "follow"),
        max(e for _, e in ms),
    )
    cells = " | ".join(f"{g:.2f} ms / {m:g} ms = {g / m:.2f} (×{fw:g}: {g * fw / m:.2f})" for g, m in zip(got, BOTS_MEASURED, strict=True))
    return [
        "",
        f"| bot hands, seed 1000 ({len(ms):,} checks, {BOT_REPEAT} calls each, least of 3 passes): estimate / chip | median all | median follow | worst |",
        "|---|---:|---:|---:|",
        f"| estimate (no flash wait) / chip's (30 hands, 7,531 checks) | {cells} |",
    ]


def markdown(rows: list[dict[str, Any]], commit: str, cmd: str, load: str, bots: list[tuple[str, float, float]] | None = None) -> str:
    """The table and the fits, as docs/performance.md gives them."""
    fn, fb, fw = rp2040.TIME["rules_native"], rp2040.TIME["rules_bytecode"], rp2040.FLASH_WAIT
    out = [
        f"`{cmd}` (engine of {commit}; load {load}):",
        "",
        "| case | chip (emulated) | unix µs: median run (native %; runs' range) | estimate "
        f"×{fn:g}/×{fb:g} | / chip | ×{fw:g} / chip | least run: / chip | ×{fw:g} / chip |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lo, hi = MEASURED[r["id"]]
        m = chip(r)
        e, el = estimate(r, fn, fb), estimate(r, fn, fb, least=True)
        ms = f"{lo:g} ms" if lo == hi else f"{lo:g}–{hi:g} ms"
        share = r["native_us"] / r["us"] if r["us"] else 0.0
        ok = "" if r["agrees"] else " (**answer differs**)"
        out.append(
            f"| {r['id']}{ok} | {ms} | {r['us']:.0f} ({share:.0%}; {r['spread'][0]:.0f}–{r['spread'][1]:.0f}) "
            f"| {e:.1f} ms | {e / m:.2f} | {e * fw / m:.2f} | {el / m:.2f} | {el * fw / m:.2f} |"
        )
    big = [r for r in rows if r["id"] != "trivial"]
    if big:
        ratios = [estimate(r, fn, fb) / chip(r) for r in big]
        least = [estimate(r, fn, fb, least=True) / chip(r) for r in big]
        scale = math.exp(statistics.fmean(math.log(x) for x in ratios))
        shares = [r["native_us"] / r["us"] for r in big]
        wide = fit(big, (20, 200), (40, 400))
        inside = fit(big, RANGE_NATIVE, RANGE_BYTECODE)
        out += [
            "",
            f"Over the {len(big)} non-trivial cases the estimate without flash wait is "
            f"{min(ratios):.2f}–{max(ratios):.2f}× the chip's time (median {statistics.median(ratios):.2f}, "
            f"geometric mean {scale:.2f}); of the least run {min(least):.2f}–{max(least):.2f}× "
            f"(median {statistics.median(least):.2f}); with ×{fw:g} medians {statistics.median(ratios) * fw:.2f} "
            f"and {statistics.median(least) * fw:.2f}. "
            f"Best fit to the least runs (least squares of log(estimate / chip), no flash wait) within the audit's measured ranges "
            f"({RANGE_NATIVE[0]:g}–{RANGE_NATIVE[1]:g}, {RANGE_BYTECODE[0]:g}–{RANGE_BYTECODE[1]:g}): "
            f"native {inside[0]:g}, bytecode {inside[1]:g} (rms {inside[2]:.2f}); on a grid of 20–200 × 40–400: "
            f"native {wide[0]:g}, bytecode {wide[1]:g} (rms {wide[2]:.2f}). The cases' native shares "
            f"({min(shares):.0%}–{max(shares):.0%}) are too alike to tell the two factors apart: "
            "only their weighted sum is fitted.",
        ]
    if bots:
        out += bots_markdown(bots)
    return "\n".join(out)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--commit", default="a676471", help="the engine's commit (default a676471, the one the chip ran)")
    ap.add_argument("--cases", default=",".join(MEASURED), help="case ids, comma-separated (default: every measured one)")
    ap.add_argument("--repeat", type=int, default=21, help="calls per timed check, the median counts (default 21)")
    ap.add_argument("--runs", type=int, default=5, help="runs over the cases; a case's median run counts (default 5)")
    ap.add_argument("--bots", type=int, default=0, help="also time this many bot hands (seed 1000; the chip's figures are of 30)")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON lines, not markdown")
    args = ap.parse_args(argv[1:])
    if args.repeat < 1 or args.runs < 1:
        raise SystemExit(f"--repeat {args.repeat} --runs {args.runs}: give 1 or more for each")
    ids = [i.strip() for i in args.cases.split(",") if i.strip()]
    unknown = [i for i in ids if i not in MEASURED]
    if unknown:
        raise SystemExit(f"no chip time for {', '.join(unknown)}; the measured cases: {', '.join(MEASURED)}")
    if args.bots < 0:
        raise SystemExit(f"--bots {args.bots}: give 0 or more hands")
    rows, bots = time_cases(args.commit, cases(ids), args.repeat, args.runs, args.bots)
    if args.json:
        for r in rows:
            print(json.dumps(r))
        return 0
    load = os.getloadavg()
    cmd = f".venv/bin/python bench/calib_engine.py --commit {args.commit} --repeat {args.repeat} --runs {args.runs}"
    cmd += f" --bots {args.bots}" if args.bots else ""
    print(markdown(rows, args.commit, cmd, f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}", bots))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
