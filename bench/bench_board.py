"""Board model figures: the real firmware (boot.py, main.py, picoboard.py)
on the modelled Pico (host/tractor_table/sim/board), bots playing, the verifier
checking: heap live peak by deck count; the four-seat poll cycle; each tap
from the card put down to the frame that shows it (provisional) and to the
frame that shows it counted, with its stages; at the bots' pace, at a human
pace (a card every 0.8-2 s) and with the flash at its maximum times.

    python bench/bench_board.py [--decks 1 2 3 4] [--hands 2] [--runs 2] [--json]

Writes the section "board" of docs/performance.md (tractor_table.perfdoc);
with --json prints one JSON object instead and writes no file. Time on the
board model is its virtual clock: the models' own times (SPI bytes at the
baud rate, the PN532 model's delays, I2C bytes at 400 kHz, flash erase and
program times, the firmware's sleeps) plus the firmware's CPU time, its
bytecode charged x GENERIC x FLASH_WAIT, its native code, gc.collect() and
json calls x the native factor x FLASH_WAIT (board.C_FACTOR).

The factors are anchored to the chip in the same run (bench/chipref.py):
before each board run, the table core the chip ran (a676471) is timed here
on the hands the chip was fed, and GENERIC is the largest of chip ms / unix
ms now over its kinds (lead, follow, hand end, snapshot); the native factor
is the fixed one times the rules engine's pessimistic anchor (the chip's
engine on the audit's cases); that run is charged them (this machine's speed
moves within minutes, more than between two runs' anchors). The anchor is
timed once more after the runs, to show how far the machine moved. ``--fixed-factors``: the fixed
factors of bench/rp2040.py, as before (and ``--heap-only`` always: the heap
figures do not depend on the clock's charge).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import chipref  # noqa: E402
import rp2040  # noqa: E402
from tractor_table import perfdoc  # noqa: E402
from tractor_table.errors import CommandError  # noqa: E402
from tractor_table.sim.board import C_FACTOR  # noqa: E402

HEAP_TARGET = rp2040.CHIP_BUDGET
HEAP_GOAL = rp2040.CHIP_GOAL
CYCLE_P50_TARGET = 20.0
CYCLE_P99_TARGET = 40.0
SHOWN_TARGET = 50.0
COUNTED_TARGET = 100.0
#: a person's pace: a card every 0.8-2 s at the table
HUMAN_PACE_MS = (800, 2000)


def play(
    decks: int,
    hands: int,
    seed: int,
    cpu_factor: float,
    c_factor: float | None = None,
    flash_times: str = "typ",
    pace_ms: tuple[int, int] | None = None,
    preset: str | None = None,
    hand_scan: bool = False,
    table_cfg: dict[str, str] | None = None,
) -> dict[str, Any]:
    from shengji import Rules
    from tractor_table.events import describe
    from tractor_table.link.engine_replayer import EngineReplayer
    from tractor_table.link.serial_link import host_identity
    from tractor_table.link.verifier import Verifier
    from tractor_table.sim.board.runner import PicoTable
    from tractor_table.sim.virtual.game import BotGame

    rules = Rules.preset(preset) if preset else Rules(decks=decks)
    decks = rules.decks
    load = os.getloadavg()[0]
    # a workdir of our own: the firmware compiled there is read again after
    # the run, for the code of the modules loaded at the peak
    work = tempfile.TemporaryDirectory(prefix="tt-board-")
    vt = PicoTable(
        decks, rules=rules, cpu_factor=cpu_factor, c_factor=c_factor, flash_times=flash_times,
        pace_ms=pace_ms, pace_seed=seed, hand_scan=hand_scan, workdir=Path(work.name), table_cfg=table_cfg,
    )
    verifier = Verifier(EngineReplayer(rules), host_identity()[1], describe=describe)
    vt.note_hooks.append(verifier.on_note)
    t0 = time.monotonic()
    with vt:
        t_up = time.monotonic()
        game = BotGame(vt, rules, seed=seed, strength=1, say=lambda _s: None, event_timeout=vt.event_timeout)
        game.play(hands)
        t_end = time.monotonic()
    f = dict(vt.figures)
    bad = len(game.disagreements) + len(verifier.disagreements)
    if bad:
        raise SystemExit(f"{decks} deck(s): {bad} disagreement(s): {game.disagreements[:3]} {verifier.disagreements[:3]}")
    at_peak = vt.chip_peak_at_peak()
    code_peak = at_peak[1] if at_peak else None
    work.cleanup()
    return {
        "decks": decks,
        "preset": (preset or "") + (" + hand scans" if hand_scan else ""),
        "peak_taps": vt.peak_taps,
        "peak_lines": list(vt.peak_lines),
        "chip_at_peak": at_peak[0] if at_peak else -1,
        "code_peak": {n: list(v) for n, v in code_peak.by_module.items()} if code_peak else {},
        "code_peak_unix": code_peak.unix if code_peak else -1,
        "code_peak_native": code_peak.native if code_peak else -1,
        "code_peak_chip": code_peak.chip if code_peak else -1,
        "hands": game.hands_played,
        "tricks": game.tricks_played,
        "peak": vt.firmware_peak,
        "chip": vt.chip_peak,
        "code_unix": vt.code_kinds.unix if vt.code_kinds else -1,
        "code_native": vt.code_kinds.native if vt.code_kinds else -1,
        "code_chip": vt.code_kinds.chip if vt.code_kinds else -1,
        "cap": vt.cap,
        "sim": vt.sim_bytes - vt.held_bytes,
        "heap": vt.heapsize,
        "wall_s": t_end - t_up,
        "start_s": t_up - t0,
        "virtual_s": f["virtual_us"] / 1e6,
        "cpu_s": f["cpu_us"] / 1e6,
        "cycle_p50": f["cycle_p50"] / 1000,
        "cycle_p99": f["cycle_p99"] / 1000,
        "lat_p50": f["lat_p50"] / 1000,
        "lat_p99": f["lat_p99"] / 1000,
        "lat_max": f["lat_max"] / 1000,
        "lat_n": f["lat_n"],
        **{f"{k}_{q}": f.get(f"{k}_{q}", -1000) / 1000 for k in ("shown", "st1", "st2", "st3", "saving") for q in ("p50", "p99", "max")},
        **{f"{k}_n": f.get(f"{k}_n", 0) for k in ("shown", "saving")},
        "unclosed": f.get("unclosed", 0),
        "gc_s": f.get("gc_us", 0) / 1e6,
        "gc_n": f.get("gc_n", 0),
        # the chip's own collections (the allocator model: its threshold or a
        # full heap), charged; the process's for the models' garbage, not
        "gc_auto_s": f.get("gc_auto_us", 0) / 1e6,
        "gc_auto_n": f.get("gc_auto_n", 0),
        "gc_auto_thr": f.get("gc_auto_thr", 0),
        "gc_real_n": f.get("gc_real_n", 0),
        "gc_backstop": f.get("gc_backstop", 0),
        "fw_alloc_mb": f.get("fw_req", 0) / 1e6,
        "json_s": f.get("json_us", 0) / 1e6,
        "frames": f.get("frames", 0),
        "frames_full": f.get("frames_full", 0),
        "flash_busy_s": f.get("flash_busy_us", 0) / 1e6,
        "flash_times": flash_times,
        "pace": list(pace_ms) if pace_ms else None,
        "taps": f["taps"],
        "programs": f["flash_programs"],
        "erases": f["flash_erases"],
        "capped": f.get("capped", 0),
        "preempted": f.get("preempted", 0),
        "preempted_s": f.get("preempted_us", 0) / 1e6,
        "wait_capped": f.get("wait_capped", 0),
        "link_waits": f.get("link_waits", 0),
        "segments": f.get("segments", 0),
        "cal_ns": f.get("cal_ns", 0),
        "situ_ns": f.get("situ_ns", 0),
        "fb_s": f.get("fb_us", 0) / 1e6,
        "native_s": f.get("native_us", 0) / 1e6,
        "switches": f.get("switches", 0),
        "switch_ns": f.get("switch_ns", 0),
        "switch_situ_ns": f.get("switch_situ_ns", 0),
        "cycle_n": f.get("cycle_n", 0),
        "turns": f.get("turns", 0),
        **{k: f.get(k, 0) for k in (
            "core1_starts", "core1_hand_overs", "core1_stack_max", "core1_stack_limit", "core1_stalls",
            "core1_stalled_us", "core1_requested", "core1_stretches", "core1_cpu_us", "core0_cpu_us")},
        "load": load,
    }


def profile(path: Path, decks: int, hands: int, seed: int, factor: float, cfac: float) -> int:
    """One bots' run with the firmware profiled (cpuprof.py); its top rows on stderr."""
    import tractor_table.sim.board.runner as runner

    base = runner.PicoTable

    class Profiled(base):  # type: ignore[misc, valid-type]
        # the wrappers' garbage and frames: a heap and a C stack of its own size
        def __init__(self, *a: Any, **k: Any) -> None:
            k.setdefault("heapsize", "700K")
            super().__init__(*a, **k)

    path = path.resolve()
    os.environ["TT_CPUPROF"] = str(path)
    runner.PicoTable = Profiled  # type: ignore[misc]
    try:
        r = play(decks, hands, seed, factor, cfac)
    finally:
        runner.PicoTable = base  # type: ignore[misc]
        del os.environ["TT_CPUPROF"]
    rows = path.read_text().splitlines()
    print(f"{path}: {r['hands']} hand(s), {r['cpu_s']:.1f} s of firmware CPU charged; the first rows:", file=sys.stderr)
    for line in rows[:25]:
        print(line, file=sys.stderr)
    return 0


def measure_anchor(table: chipref.OldTable, old: chipref.OldEngine, runs: int = 3) -> dict[str, Any]:
    """The same-run anchor now: the chip's table core (``runs`` runs, each input
    its least) and the chip's engine on the audit's cases (``runs`` passes,
    each case its least); the board's factors from them."""
    load_start = chipref.load()
    unix = table.time(runs)
    cases = chipref.cases(list(chipref.ANCHOR_CASES))
    passes = [old.time(cases) for _ in range(runs)]
    chipref.check_answers(cases, passes)
    rules = chipref.rules_anchor(chipref.anchor_estimates(chipref.least_timings(passes)))
    factors = chipref.table_factors(unix)
    board = chipref.anchored_factors(factors, rules)
    return {
        "commit": chipref.COMMIT,
        "table_unix_ms": {k: round(v, 4) for k, v in unix.items()},
        "table_chip_ms": chipref.TABLE_CHIP_MS,
        "table_factors": {k: round(v, 1) for k, v in factors.items()},
        "table_ratio_to_fixed": {k: round(v / rp2040.TIME[k], 3) for k, v in factors.items()},
        "generic": round(board.generic, 1),
        "generic_fixed": rp2040.GENERIC,
        "rules": rules.json(),
        "cpu_factor": round(board.cpu_factor, 1),
        "c_factor": round(board.c_factor, 1),
        "cpu_factor_fixed": chipref.fixed_board().cpu_factor,
        "c_factor_fixed": chipref.fixed_board().c_factor,
        "ratio_to_fixed": {k: round(v, 3) for k, v in board.ratios().items()},
        "load": {"start": load_start, "end": chipref.load()},
    }


#: an anchor's figures kept per board run (and after the runs) in the summary
ANCHOR_BRIEF = ("table_unix_ms", "generic", "rules", "cpu_factor", "c_factor", "load")


def _median_tree(items: list[Any]) -> Any:
    """The median of each number over ``items`` (dicts of the same shape); the first's otherwise."""
    first = items[0]
    if isinstance(first, dict):
        return {k: _median_tree([i[k] for i in items]) for k in first}
    if isinstance(first, (int, float)) and not isinstance(first, bool):
        return round(statistics.median(items), 4)
    return first


def anchor_summary(per_run: list[dict[str, Any]], after: dict[str, Any]) -> dict[str, Any]:
    """The anchors timed before each board run: each figure's median over them
    (the factors, their ratio to the fixed ones, the rules anchor's ratios),
    each run's own, and the anchor timed after the runs."""
    out: dict[str, Any] = _median_tree([{k: v for k, v in a.items() if k != "scenario"} for a in per_run])
    # the load: at the first anchor's start and at the last one's end (after the runs)
    out["load"] = {"start": per_run[0]["load"]["start"], "end": after["load"]["end"]}
    out["rules"]["flattered"] = max(set(a["rules"]["flattered"] for a in per_run),
                                    key=[a["rules"]["flattered"] for a in per_run].count)
    out["per_run"] = [{"scenario": a["scenario"], **{k: a[k] for k in ANCHOR_BRIEF}} for a in per_run]
    out["after"] = {k: after[k] for k in ANCHOR_BRIEF}
    return out


def factor_line(anchor: dict[str, Any] | None) -> str:
    """Where the board's factors come from, for the docs."""
    fixed = chipref.fixed_board()
    if anchor is None:
        return (f"the fixed factors (`--fixed-factors`: GENERIC x FLASH_WAIT of `bench/rp2040.py`, {rp2040.SOURCE}; "
                f"`board.C_FACTOR`, see below).")
    t, r = anchor["table_factors"], anchor["rules"]
    after = anchor.get("after") or {}
    per = ", ".join(f"{a['cpu_factor']:g} ({a['scenario']})" for a in anchor.get("per_run") or [])
    return (
        f"**anchored to the chip in this run** (`bench/chipref.py`), timed again before each board run, each run "
        f"charged its own (bytecode: {per}; the medians below). The table "
        f"core the chip ran ({anchor['commit']}, 40 hands of seed 11) timed here: chip ms / unix ms now "
        + ", ".join(f"{k} {v:g}" for k, v in t.items())
        + f" (the fixed factors: {', '.join(f'{rp2040.TIME[k]:g}' for k in t)}); GENERIC is their largest, "
        f"{anchor['generic']:g} (fixed {rp2040.GENERIC:g}), x {rp2040.FLASH_WAIT} = {anchor['cpu_factor']:g} "
        f"({anchor['ratio_to_fixed']['cpu_factor']:.2f}x the fixed {fixed.cpu_factor:g}); the native factor is "
        f"{rp2040.TIME['rules_native']:g} x the rules engine's pessimistic anchor {r['pessimistic']:.2f} ({r['flattered']}; "
        f"median {r['median']:.2f}) x {rp2040.FLASH_WAIT} = {anchor['c_factor']:g} "
        f"({anchor['ratio_to_fixed']['c_factor']:.2f}x the fixed {fixed.c_factor:g}). Timed once more after the runs: "
        f"GENERIC {after.get('generic', '-')}, rules anchor {(after.get('rules') or {}).get('pessimistic', '-')}. "
        f"Load {anchor['load']['start'][0]:.1f} before, {(after.get('load') or anchor['load'])['end'][0]:.1f} after. "
        "The x1.3 for flash wait states stays on top; only the unix side is timed again (the chip's times are the "
        "audit's); `--fixed-factors` runs with the fixed ones."
    )


def median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Each figure's median over the runs (the first run's for the rest).

    A percentile of an empty set (no tap during a save in a run: the model
    prints -1) is no sample: the median is taken over the runs that have one,
    and stays negative (no figure) only when none has."""
    out = dict(runs[0])
    for k, v in runs[0].items():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            vals = [r[k] for r in runs]
            if k.endswith(("_p50", "_p99", "_max")) and any(x >= 0 for x in vals):
                vals = [x for x in vals if x >= 0]
            m = statistics.median(vals)
            out[k] = int(m) if isinstance(v, int) and m == int(m) else m
    return out


def firmware_id() -> str:
    """The commit the firmware is from, "+changes" when firmware/ differs from it."""
    import subprocess

    root = HERE.parent
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "firmware"], cwd=root, capture_output=True,
                               text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"firmware of {head}" + (" +changes" if dirty else "")


def figures(r: dict[str, Any]) -> dict[str, Any]:
    """One scenario's figures in milliseconds, as --json prints them."""
    full = r["frames_full"] / r["frames"] if r["frames"] else 0.0
    return _no_sample_none({
        "cycle_p50_ms": r["cycle_p50"],
        "cycle_p99_ms": r["cycle_p99"],
        "shown_p50_ms": r["shown_p50"],
        "shown_p99_ms": r["shown_p99"],
        "counted_p50_ms": r["lat_p50"],
        "counted_p99_ms": r["lat_p99"],
        "counted_max_ms": r["lat_max"],
        "placed_to_first_sighting_p50_ms": r["st1_p50"],
        "placed_to_first_sighting_p99_ms": r["st1_p99"],
        "first_sighting_to_confirming_poll_p50_ms": r["st2_p50"],
        "first_sighting_to_confirming_poll_p99_ms": r["st2_p99"],
        "confirming_poll_to_frame_p50_ms": r["st3_p50"],
        "confirming_poll_to_frame_p99_ms": r["st3_p99"],
        "during_save_taps": r["saving_n"],
        "during_save_counted_p99_ms": r["saving_p99"],
        "during_save_counted_max_ms": r["saving_max"],
        "taps": r["lat_n"],
        "taps_unclosed": r["unclosed"],
        "frames": r["frames"],
        "frames_full_pct": round(100 * full, 1),
        "gc_collects": r["gc_n"],
        "gc_ms_per_collect": round(1000 * r["gc_s"] / r["gc_n"], 2) if r["gc_n"] else 0.0,
        # the chip's own collections (docs/firmware.md, "The firmware's collections")
        "gc_auto_collects": r.get("gc_auto_n", 0),
        "gc_auto_at_threshold": r.get("gc_auto_thr", 0),
        "gc_auto_ms_per_collect": round(1000 * r["gc_auto_s"] / r["gc_auto_n"], 2) if r.get("gc_auto_n") else 0.0,
        "gc_model_collects": r.get("gc_real_n", 0),
        "gc_backstop": r.get("gc_backstop", 0),
        "firmware_alloc_mb": round(r.get("fw_alloc_mb", 0.0), 2),
        "flash_erases": r["erases"],
        "flash_programs": r["programs"],
        "hands": r["hands"],
        "tricks": r["tricks"],
        "firmware_cpu_s": round(r["cpu_s"], 2),
        "board_s": round(r["virtual_s"], 2),
        "model_call_overhead_ns": {"calibrated": r["cal_ns"], "in_situ": r["situ_ns"]},
        "native_cpu_s": round(r["native_s"], 2),
        "kind_switches": r["switches"],
        "kind_switch_overhead_ns": {"calibrated": r["switch_ns"], "in_situ": r["switch_situ_ns"]},
        "load": round(r["load"], 1),
        # the factors charged (the median of the runs': anchored, each run its own)
        "factors": {"bytecode": r.get("factor_bytecode"), "c_calls_gc": r.get("factor_c")},
    })


def _no_sample_none(fig: dict[str, Any]) -> dict[str, Any]:
    """A percentile in ms of an empty set (the model's -1 us) is null in the JSON, not -0.001."""
    return {k: (None if k.endswith("_ms") and isinstance(v, float) and v < 0 else v) for k, v in fig.items()}


#: the rules of every preset (shengji.Rules.preset), each at its own deck
#: count, and the tournament's with hand scans (the largest firmware)
PRESET_RUNS: list[tuple[str, bool]] = [
    ("classic", False), ("qq", False), ("lianzhong", False), ("tournament", False), ("tournament", True),
    ("onedeck", False), ("titanic", False), ("friend", False), ("xuwen", False),
]


def heap_lines(rows: list[dict[str, Any]], cmd: str) -> list[str]:
    """The section "board-heap" of docs/performance.md: the live peak by kind
    with the modules loaded at that moment, where in the match it was, and
    the code at the peak per module (the largest run's)."""
    loads = [r["load"] for r in rows]
    lines = [
        "## Board model: the heap at its live peak (issue 21)",
        "",
        f"Command: `{cmd}`. Machine: {perfdoc.machine_line()}; load average at the runs' start "
        f"{min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} cores (heap figures do not depend on it; the "
        "sampled peak moves by a few hundred bytes from run to run).",
        "Each run: the real firmware on the board model (`tractor-table virtual --board pico --bots`: boot.py, "
        "main.py, picoboard.py from littlefs, the four PN532 models on SPI), bots of strength 1, seed 1, the "
        "verifier checking every event. *Peak*: `gc.mem_alloc()` after a collection, sampled every 64 sleeps "
        "(and every 1,024 model calls), less what the models and the platform hold (the littlefs mount, which "
        "the rp2 port makes before the 240,720 B a script finds free: measured at the first boot, reported "
        "apart). *At*: the taps done at the peak and the display then (the board model keeps the display's RAM "
        "of each new peak). *Code at the peak*: the modules loaded at that moment (`PicoTable.peak_code`: "
        "each one's own heap on the unix port, measured in a fresh process, and its armv6m native code), by "
        "kind (`bench/rp2040.py`, \"Heap, by kind\"): bytecode × "
        f"{rp2040.HEAP_BYTECODE:g}, native code one for one; the rest of the peak is data × {rp2040.HEAP_DATA:g}. "
        f"Bound: {HEAP_TARGET:,} B (128 KiB); goal {HEAP_GOAL:,} B (100 KiB).",
        "",
        "| rules | decks | hands | at (taps: display) | unix peak | code at the peak: unix / native / on the chip "
        "| data on the chip | **RP2040 peak (by kind)** | vs 128 KiB | vs 100 KiB |",
        "|---|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        chip = r["chip_at_peak"]
        at = " · ".join(x.strip() for x in r["peak_lines"][:3] if x.strip())
        lines.append(
            f"| {r['preset'] or 'default'} | {r['decks']} | {r['hands']} | {r['peak_taps']}: {at} | {r['peak']:,} | "
            f"{r['code_peak_unix']:,} / {r['code_peak_native']:,} / {r['code_peak_chip']:,} | "
            f"{chip - r['code_peak_chip']:,} | **{chip:,} B ({chip / 1024:.0f} KiB)** | "
            f"{chip / HEAP_TARGET:.2f} | {chip / HEAP_GOAL:.2f} |"
        )
    top = max(rows, key=lambda r: r["chip_at_peak"])
    lines += [
        "",
        f"The code at the peak of the largest run ({top['preset'] or 'default'}, {top['decks']} decks), per module "
        "(a module's imports count where they first load; main.py runs as `__main__`, counted as `main`):",
        "",
        "| module | unix port | armv6m native code | on the chip |",
        "|---|---:|---:|---:|",
    ]
    for name, (u, n) in top["code_peak"].items():
        lines.append(f"| {name} | {u:,} | {n:,} | {round(rp2040.chip_code(u, n)):,} |")
    lines.append(
        f"| **all** | **{top['code_peak_unix']:,}** | **{top['code_peak_native']:,}** | **{top['code_peak_chip']:,}** |"
    )
    over = top["chip_at_peak"] - HEAP_TARGET
    lines += [
        "",
        f"**Over the bound by {over:,} B** (the largest run) if positive. What each remedy would take off the "
        "peak on the chip, by kind, measured on the whole match (tournament rules with hand scans, 2 decks, seed 1, "
        "one run each, the firmware of 3185788 with its `@micropython.native` decorators removed, 2026-12-06): "
        "161,286 B as it is; the rules engine as bytecode only 145,816 B (15.5 KB off; its native methods are the "
        "worst check's time, issue 21's 20 ms); `scanner` and `pn532` as bytecode too 139,131 B (6.7 KB more; "
        "the poll cycle's time, issue 22): **still 8 KB over the bound** with no native code at all. The rest is "
        "the firmware's bytecode, held in RAM because the rp2 port copies a `.mpy` from littlefs into the heap: "
        "executed in place from flash (a ROMFS partition, MicroPython's `vfs.VfsRom`, or frozen modules; ROMFS "
        "came in MicroPython v1.25; the stock RPI_PICO build has no ROMFS partition, `MICROPY_HW_ROMFS_BYTES` 0; "
        "frozen modules need a build of our own too) it would take "
        "off at most the code at the peak less its native code (about 85 KB); the modules' globals, classes, "
        "function objects and qstr entries stay in RAM: measured with a ROMFS image in the next section, about "
        "39 KB off on the chip by kind. What is left as data (about 49 KB on "
        "the chip, the column above) is a long tail, in this port's bytes at the peak: the link's ring of 64 "
        "events (5.8 KB with its hashes), the rules engine's tables and buffers (7.7 KB), the four readers' drivers, "
        "the scanner's queues and the card map (8 KB), a save in progress (its snapshot and file, 3.7 KB: the "
        "peak falls on one), the display (1.9 KB) (docs/firmware.md, \"Heap\", the census of 2026-12-06). The rules "
        "engine is not in the draw's heap (drules_hand is, by turns), and with 1-2 decks and no same_shape_only its "
        "placement oracle (drules_place, drules_sweep, drules_memo: about 23.6 KB on the chip, 19.2 KB of it native) "
        "comes only at a check that asks it, which bot play never makes: a 2-deck hand with a near-miss follow "
        "(the adversarial corpora) holds about 26 KB more from then to its end. With 3-4 decks the ladders and the "
        "oracle are asked in most hands and come with the engine (docs/firmware.md, \"Heap\", \"The rules engine "
        "by turns, and its parts as they are asked\").",
    ]
    return lines


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--decks", type=int, nargs="+", default=[1, 2, 3, 4], choices=(1, 2, 3, 4),
                    help="deck counts of the heap rows (the timing figures are of 2 decks, or the first given)")
    ap.add_argument("--hands", type=int, default=2, help="hands of each bots' run")
    ap.add_argument("--human-hands", type=int, default=1, help="hands of each human-paced run")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--runs", type=int, default=2, help="runs of the timing figures (medians)")
    ap.add_argument("--json", action="store_true",
                    help="print one JSON object (RP2040-calibrated; the bots' pace at the top level, "
                    "'human' and 'flash_max' under their keys) and write no file")
    ap.add_argument("--heap-only", action="store_true",
                    help="only the heap: the deck counts given and every preset (and the tournament's rules with "
                    "hand scans); writes the section 'board-heap' of docs/performance.md (with --json: prints it)")
    ap.add_argument("--before", type=Path, default=HERE / "board_before.json",
                    help="a --json output of an earlier firmware, shown beside this run in the docs")
    ap.add_argument("--profile", type=Path, metavar="FILE",
                    help="instead: one bots' run of --hands hands with every firmware method wrapped, and "
                    "FILE (tab-separated) getting the board time charged while each was innermost and its calls "
                    "(sim/board/mpy/cpuprof.py); writes nothing else")
    ap.add_argument("--reader-core", choices=("0", "1"),
                    help="table.cfg's reader_core for the timing runs: 1 the readers on the Pico's second core, 0 in "
                    "the main loop's turn (default: the table's, by its decks: docs/readers.md)")
    ap.add_argument("--fixed-factors", action="store_true",
                    help="charge the fixed factors of bench/rp2040.py (GENERIC x FLASH_WAIT, C_FACTOR) instead of "
                    "the ones anchored to the chip in this run (bench/chipref.py)")
    args = ap.parse_args(argv)
    factor = rp2040.GENERIC * rp2040.FLASH_WAIT
    cfac = C_FACTOR
    refs: tuple[chipref.OldTable, chipref.OldEngine] | None = None
    if not args.fixed_factors and not args.heap_only:
        refs = (chipref.OldTable(), chipref.OldEngine())
    anchors: list[dict[str, Any]] = []  # the anchor timed before each board run

    def say(*a: Any) -> None:
        print(*a, file=sys.stderr)

    def charge(scenario: str) -> tuple[float, float]:
        """The factors of the next board run: the fixed ones, or anchored just before it."""
        if refs is None:
            return factor, cfac
        a = measure_anchor(*refs)
        a["scenario"] = scenario
        anchors.append(a)
        say("anchor", scenario, {k: a[k] for k in ("table_unix_ms", "generic", "cpu_factor", "c_factor", "load")},
            a["rules"]["pessimistic"])
        return a["cpu_factor"], a["c_factor"]

    def run(scenario: str, decks: int, hands: int, seed: int, **kw: Any) -> dict[str, Any]:
        f, c = charge(scenario)
        if args.reader_core is not None:
            kw["table_cfg"] = {"reader_core": args.reader_core}
        r = play(decks, hands, seed, f, c, **kw)
        r["factor_bytecode"], r["factor_c"] = f, c
        return r

    if args.profile is not None:
        f, c = charge("profile")
        if refs is not None:
            refs[0].close()
            refs[1].close()
        return profile(args.profile, args.decks[0] if len(args.decks) == 1 else 2, args.hands, args.seed, f, c)
    ref = 2 if 2 in args.decks else args.decks[0]

    if args.heap_only:
        rows = []
        for d in args.decks:
            rows.append(play(d, args.hands, args.seed, factor, cfac))
            say("heap", {k: rows[-1][k] for k in ("decks", "preset", "peak", "chip_at_peak", "peak_taps")})
        for preset, scan in PRESET_RUNS:
            rows.append(play(0, args.hands, args.seed, factor, cfac, preset=preset, hand_scan=scan))
            say("heap", {k: rows[-1][k] for k in ("decks", "preset", "peak", "chip_at_peak", "peak_taps")})
        cmd = "python bench/bench_board.py --heap-only" + (
            "" if (args.decks, args.hands, args.seed) == ([1, 2, 3, 4], 2, 1)
            else f" --decks {' '.join(map(str, args.decks))} --hands {args.hands} --seed {args.seed}")
        if args.json:
            print(json.dumps({"rows": rows, "command": cmd, "firmware": firmware_id()}, indent=1))
            return 0
        body = "\n".join(heap_lines(rows, cmd))
        print(body)
        perfdoc.write_section("board-heap", body)
        return 0
    rows = []
    bots: list[dict[str, Any]] = []
    for d in args.decks:
        r = run("bots", d, args.hands, args.seed)
        say("bots", r)
        rows.append(r)
        if d == ref:
            bots.append(r)
    for _ in range(args.runs - 1):
        bots.append(run("bots", ref, args.hands, args.seed))
        say("bots", bots[-1])
    human_runs = []
    for k in range(args.runs):
        human_runs.append(run("human", ref, args.human_hands, args.seed + k, pace_ms=HUMAN_PACE_MS))
        say("human", human_runs[-1])
    fmax: dict[str, Any] | None = None
    fmax_error = ""
    try:
        fmax = run("flash_max", ref, args.hands, args.seed, flash_times="max")
        say("flash max", fmax)
    except CommandError as exc:
        # a failure at the flash's maximum times is a figure too: said, not hidden
        fmax_error = str(exc).splitlines()[0]
        say("flash max failed:", fmax_error)
    anchor: dict[str, Any] | None = None
    if refs is not None:
        # the anchor again after the runs: how far the machine moved meanwhile
        anchor = anchor_summary(anchors, measure_anchor(*refs))
        refs[0].close()
        refs[1].close()
    bot, human = median_run(bots), median_run(human_runs)
    out = figures(bot)
    out["human"] = figures(human)
    out["flash_max"] = figures(fmax) if fmax is not None else {"error": fmax_error}
    out["heap_peak_unix_bytes"] = {str(r["decks"]): r["peak"] for r in rows}
    out["decks"] = ref
    out["runs"] = args.runs
    out["factors"] = {"bytecode": anchor["cpu_factor"] if anchor else factor,
                      "c_calls_gc": anchor["c_factor"] if anchor else cfac, "anchored": anchor is not None}
    # the same-run anchor (None with --fixed-factors): the factors, their ratio to the fixed ones, the load
    out["anchor"] = anchor
    out["command"] = "python bench/bench_board.py " + " ".join(argv)
    out["firmware"] = firmware_id()
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    before: dict[str, Any] | None = None
    if args.before.exists():
        before = json.loads(args.before.read_text())
    all_runs = rows + bots + human_runs + ([fmax] if fmax is not None else [])
    cmd = "python bench/bench_board.py" + (
        "" if (args.decks, args.hands, args.human_hands, args.seed, args.runs) == ([1, 2, 3, 4], 2, 1, 1, 2)
        else f" --decks {' '.join(map(str, args.decks))} --hands {args.hands} --human-hands {args.human_hands} "
        f"--seed {args.seed} --runs {args.runs}"
    )
    lines = [
        "## Board model: the real firmware on a modelled Pico",
        "",
        f"Command: `{cmd}` (also run by `make bench`; `--json` prints the figures as one JSON object and writes "
        f"nothing). Machine: {perfdoc.machine_line()}; load average at the runs' start "
        f"{min(r['load'] for r in all_runs):.1f}-{max(r['load'] for r in all_runs):.1f} on {os.cpu_count()} cores "
        "(a shared machine: the firmware's CPU time, and so the board-time figures, grow with it; see \"Board time\" below).",
        f"Each run: `tractor-table virtual --board pico --bots` as a benchmark (bots of strength 1, seed {args.seed}, "
        "the verifier checking every event: 0 disagreements in every run); the real `boot.py`, `main.py` and "
        "`picoboard.py` run from littlefs and read the PN532 models through `machine.SPI` (docs/firmware.md, \"Board model\").",
        "",
        "### Heap: live peak of the firmware with the readers, by deck count",
        "",
        f"Peak of `gc.mem_alloc()` after a collection, sampled every 64 sleeps of the firmware, over {args.hands} hands, "
        "minus what the device models and the platform (the littlefs mount) hold (measured at power-up, reported "
        "apart). RP2040: calibrated by kind "
        "(`bench/rp2040.py`, \"Heap, by kind\"): the code of the modules loaded at the peak as the unix port holds it × "
        f"{rp2040.HEAP_BYTECODE:g}, plus their armv6m native code counted one for one, plus the rest × {rp2040.HEAP_DATA:g}. "
        f"Target: the whole-match peak under {HEAP_TARGET // 1024} KiB; goal {HEAP_GOAL // 1024} KiB. "
        "The board model gives the firmware the chip's heap (`board/runner.py`, `chip_cap`): its resident code as "
        f"it is here plus what the chip's {rp2040.CHIP_HEAP:,} B leave once that code is counted at the chip's size, "
        "in this port's data bytes; the rest of the process's heap is the models' or held back, so the firmware "
        "runs out (MemoryError) where the chip would.",
        "",
        "| decks | hands | unix port (64-bit) | of which code at the peak (unix / armv6m native) | code on the chip | "
        "**RP2040 peak (by kind)** | vs 128 KiB target | vs 100 KiB goal | the firmware's cap (unix bytes) | models (not counted) | heap given |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        rp2 = r["chip_at_peak"]
        lines.append(
            f"| {r['decks']} | {r['hands']} | {r['peak']:,} B | {r['code_peak_unix']:,} / {r['code_peak_native']:,} B | "
            f"{r['code_peak_chip']:,} B | **{rp2:,.0f} B ({rp2 / 1024:.0f} KiB)** | "
            f"{rp2 / HEAP_TARGET:.2f} | {rp2 / HEAP_GOAL:.2f} | {r['cap']:,} | {r['sim']:,} B | {r['heap']} |"
        )

    def ms(v: float | None) -> str:
        return "-" if v is None or v < 0 else f"{v:.0f}"

    def cell(fig: dict[str, Any] | None, key: str, key2: str | None = None) -> str:
        if fig is None or key not in fig:
            return "-"
        return ms(fig[key]) + (f" / {ms(fig[key2])}" if key2 else "")

    def counts(f: dict[str, Any] | None) -> str:
        if f is None:
            return "-"
        return (f"{f['taps']} ({f['during_save_taps']}) / {f['frames']} ({f['frames_full_pct']} %) / "
                f"{f['gc_collects']} x {f['gc_ms_per_collect']} ms")

    scen = [("bots", out, before), ("human pace", out["human"], (before or {}).get("human")),
            ("bots, flash at its maximum times", out["flash_max"], (before or {}).get("flash_max"))]
    metrics = [
        ("four-seat poll cycle, p50 / p99", "cycle_p50_ms", "cycle_p99_ms", f"<= {CYCLE_P50_TARGET:.0f} / {CYCLE_P99_TARGET:.0f}"),
        ("placed -> shown (provisional or counted), p50 / p99", "shown_p50_ms", "shown_p99_ms", f"p99 <= {SHOWN_TARGET:.0f}"),
        ("placed -> counted and shown, p50 / p99", "counted_p50_ms", "counted_p99_ms", f"p99 <= {COUNTED_TARGET:.0f}"),
        ("... worst", "counted_max_ms", None, ""),
        ("... of the taps during a save (flash busy): p99 / worst", "during_save_counted_p99_ms", "during_save_counted_max_ms", f"<= {COUNTED_TARGET:.0f}"),
        ("stage: placed -> first sighting, p50 / p99", "placed_to_first_sighting_p50_ms", "placed_to_first_sighting_p99_ms", ""),
        ("stage: first sighting -> confirming poll, p50 / p99", "first_sighting_to_confirming_poll_p50_ms", "first_sighting_to_confirming_poll_p99_ms", ""),
        ("stage: confirming poll -> frame drawn, p50 / p99", "confirming_poll_to_frame_p50_ms", "confirming_poll_to_frame_p99_ms", ""),
    ]
    lines += [
        "",
        f"### Time, {ref} decks, RP2040-calibrated (medians of {args.runs} runs; flash at its maximum times: 1 run)",
        "",
        f"Board time (the virtual clock, see below), ms. The firmware's bytecode charged x {factor:.1f}, its native "
        f"code and its `gc.collect()` and `json` calls, C code timed apart, x {cfac:.1f}: {factor_line(anchor)} "
        f"*Before*: `{(before or {}).get('command', '-')}` on "
        f"{(before or {}).get('firmware', '-')}, the same model.",
        "",
        "| scenario | what | before | **now** | target |",
        "|---|---|---|---|---|",
    ]
    for name, now_f, bef in scen:
        if "error" in now_f or (bef is not None and "error" in bef):
            lines.append(f"| {name} | the run | {(bef or {}).get('error', 'played')} | "
                         f"**{now_f.get('error', 'played')}** | - |")
        if "error" in now_f:
            continue
        if bef is not None and "error" in bef:
            bef = None
        for label, k1, k2, target in metrics:
            lines.append(f"| {name} | {label} | {cell(bef, k1, k2)} | **{cell(now_f, k1, k2)}** | {target} |")
        lines.append(
            f"| {name} | taps (during a save) / frames (whole 1 KiB) / gc.collect() | {counts(bef)} | "
            f"{counts(now_f)} | - |"
        )
    lines += [
        "",
        f"Targets (issue 22): four-seat poll cycle p50 <= {CYCLE_P50_TARGET:.0f} ms, p99 <= {CYCLE_P99_TARGET:.0f} ms; "
        f"placed -> shown p99 <= {SHOWN_TARGET:.0f} ms; placed -> counted and shown p99 <= {COUNTED_TARGET:.0f} ms, "
        "taps during saves included.",
        "",
        "How the figures are obtained:",
        "- *Board time* is the model's virtual clock: every SPI byte at the baud rate the RP2040's divider gives, "
        "the PN532 model's command and RF delays (docs/readers.md), every I2C byte at 400 kHz "
        "(a whole display frame is about 24 ms), the flash's erase and program times (W25Q16JV: typical 45 ms per "
        "4 KiB erase and 0.4 ms per 256-byte page program; maximum 400 ms and 3 ms), the firmware's sleeps, and "
        "the firmware's own CPU time: the time the process runs outside the models, less the measured cost of a "
        "call into a Python model (a C call on the rp2 port, charged 5 us there; the cost is measured where the "
        "firmware runs, on its shortest stretches, and taken off when larger than a tight loop's: vclock.py), "
        "times the bytecode factor; the USB serial's reads, writes and polls are C calls too (a write also 1 us a "
        "byte), not this port's system calls; the "
        "firmware's `gc.collect()`, `json.dumps`/`json.loads` and framebuf's drawing are timed apart (the model puts timing wrappers "
        "in `sys.modules`, `board/mpy/vclock.py`) and charged at the compiled-code factor: the rp2 port's "
        "measured ratio for native code (57-68 on the rules engine's adversarial follows, the top taken) x 1.3; "
        "the rp2 port's collector and C library were not timed alone, so this is the nearest measured figure "
        "(a collection is charged for the firmware's own heap, by a fit of this port's collection time made at "
        "power-up; the chip's own collections come where its allocator would make them, from the firmware's "
        "allocations counted apart from the models': docs/firmware.md, \"The firmware's collections\"). CPU time, "
        "not wall time: the time the process waited for a CPU is taken off each stretch (the kernel's run delay, "
        f"/proc/thread-self/schedstat; {bot['preempted_s']:.1f} s of real time off {bot['preempted']:.0f} of "
        f"{bot['segments']:,.0f} stretches, median bots' run); a stretch of native code (the reader driver's "
        f"wait loop) while a PN532 model holds a frame the firmware has not read is charged at most 16 us "
        f"({bot['wait_capped']:.0f}; bytecode meanwhile is charged whole), any stretch at most 1 ms "
        f"({bot['capped']:.0f}). What remains load-dependent is the CPU's own speed: the figures are from a "
        "machine at the load given above; on a quiet one they are lower.",
        "- *Four-seat poll cycle*: board time between two polls (InListPassiveTarget) of seat 0's reader in its turn.",
        "- *A tap* is followed from the board time a person puts a card's tag on a reader (`board/mpy/picoboot.py`, "
        "`TapLog`): its *first sighting* is the first poll answer listing it that the Pico reads; it is *counted* "
        "when the buzzer next sounds after a second such read (every tap the table takes makes a sound: a tap, an "
        "error, a trick), its second read being the *confirming poll* (the seat's next poll, which confirms it: the "
        "dwell is shorter than a cycle; until 2026-12-08 the last read before the sound, which moved the main "
        "loop's wait into the stage before); it is *counted and shown* at the "
        "end of the first display frame begun after it was counted (a frame rendered before cannot show it: an "
        "earlier model closed a tap at any frame's end); *shown* at the end of the first frame begun after the "
        "first sighting whose seat line holds the card's name (a provisional display), or at its counted frame. "
        "*During a save*: taps during which the flash was erased or programmed.",
        f"- *Human pace*: a person lays a card every {HUMAN_PACE_MS[0] / 1000:.1f}-{HUMAN_PACE_MS[1] / 1000:.1f} s "
        "at the table (drawn uniformly, seeded; `PicoTable(pace_ms=...)`, the control line `K lo hi seed`), the "
        "bots deciding what; the bots' pace lays each card as soon as its seat is free.",
        "- *Flash at its maximum times*: the same bots' run with every erase and program charged the datasheet's "
        "maximum (`norflash.NorFlash(times=\"max\")`): what a worn or hot chip costs at worst.",
        f"- Flash: {bot['erases']} erases and {bot['programs']} page programs in the median bots' run "
        f"({bot['tricks']} tricks), littlefs on the NOR flash model as `deploy` writes it (`board/flashimage.py`).",
    ]
    perfdoc.write_section("board", "\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
