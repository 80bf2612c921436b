"""Benchmark of the table core; writes the "table" section of docs/performance.md.

Bot hands are played by the full engine (``shengji`` bots, two decks), then
fed, card by card, to the firmware's table core with the device rules engine
under MicroPython's unix port (``bench/table_mp.py``): the time of each input
that ends a play is measured (a lead's click; a follow's last tap, which
includes the revoke re-checks of docs/rules.md §10.1; the last tap of the hand, which includes
the audit of every hand and the settlement), and of each snapshot written to
flash. The times are calibrated to a real RP2040 with the factors of
``bench/rp2040.py`` (measured on the real rp2 port: one factor per kind of
input, x1.3 for flash wait states), and the peak heap calibrated by kind (code, native code, data).

Usage: .venv/bin/python bench/bench_table.py [--hands N]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
from pathlib import Path

import rp2040
from shengji import Rules
from shengji.hand import Bid, Play
from shengji.match import make_bots, play_hand
from tractor_table import mpy, perfdoc

HERE = Path(__file__).resolve().parent
#: the calibration factor (bench/rp2040.py) of each timed input
KIND = {"lead": "lead", "play": "follow", "end": "hand_end", "serialize": "snapshot"}


def record_hands(n: int, seed: int) -> list[list[object]]:
    rules = Rules(decks=2)
    rng = random.Random(seed)
    out: list[list[object]] = []
    k = 0
    while len(out) < n:
        bots = make_bots([1, 2, 1, 2], seed=seed + k)
        k += 1
        hand = play_hand(rules, bots, rng, level=0, dealer=None, first_hand=True)
        if hand.redeal:
            continue
        bids = [[e.seat, list(e.cards)] for e in hand.events if isinstance(e, Bid)]
        plays = [[e.seat, list(e.cards)] for e in hand.events if isinstance(e, Play)]
        out.append([2, bids, list(hand.buried or ()), plays])
    return out


def time_inputs(script: Path, path: list[Path], hands: list[list[object]], runs: int, tmp: Path) -> list[dict[str, list[int]]]:
    """``runs`` runs of ``script`` (``table_mp.py``: today's, or an older
    commit's, bench/chipref.py) over ``hands`` with the modules on ``path``:
    each run's µs per input by name ("lead", "play", "end", "save",
    "serialize") and its heap peak ("mem")."""
    hands_file = tmp / "hands.jsonl"
    hands_file.write_text("".join(json.dumps(h) + "\n" for h in hands))
    out: list[dict[str, list[int]]] = []
    for _ in range(runs):
        proc = mpy.run(
            script,
            path=path,
            # the timing samples are kept in the heap too: room for them
            heapsize="256K",
            args=[str(hands_file), str(tmp / "table.json"), str(len(hands))],
            timeout=600,
        )
        if proc.returncode != 0:
            raise RuntimeError(proc.stdout + proc.stderr)
        one: dict[str, list[int]] = {}
        for line in proc.stdout.splitlines():
            name, *nums = line.split()
            one[name] = [int(x) for x in nums]
        out.append(one)
    return out


def least_inputs(runs: list[dict[str, list[int]]]) -> dict[str, list[int]]:
    """Each input's least time over the runs (the same inputs in the same
    order in each: a shared machine only adds time); "mem", the median peak."""
    r = {k: [min(vs) for vs in zip(*(run[k] for run in runs), strict=True)] for k in runs[0] if k != "mem"}
    r["mem"] = [int(statistics.median(run["mem"][0] for run in runs))]
    return r


def stats(xs: list[float]) -> tuple[float, float]:
    return statistics.median(xs), max(xs)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=40)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--runs", type=int, default=3, help="runs over the same hands; each input keeps its least time")
    args = ap.parse_args()
    # (imported here: bench/chipref.py records the hands with an older engine,
    # which today's virtual table cannot import)
    from tractor_table.sim.virtual.runner import compile_for_host

    hands = record_hands(args.hands, args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        # the firmware compiled by mpy-cross as for the Pico (native code for this CPU)
        fw = Path(tmp) / "firmware"
        compile_for_host(fw)
        try:
            runs = time_inputs(HERE / "table_mp.py", [fw, HERE], hands, args.runs, Path(tmp))
        except RuntimeError as exc:
            print(exc)
            return 1
    # The same inputs in the same order in every run: each keeps its least time
    # (a shared machine only adds time), the heap peak its median.
    r = least_inputs(runs)
    rows = []
    for key, what in (
        ("lead", "a lead (click): suit check, throw or not"),
        ("play", "a follow's last tap: the play, revoke re-checks of earlier tricks"),
        ("end", "the hand's last tap: trick, kitty, audit of every hand, settlement"),
        ("serialize", "snapshot serialized with its crc (the CPU part of a save)"),
        ("save", "snapshot saved: file written, flushed (fsync here), renamed"),
    ):
        med, worst = stats([x / 1000 for x in r[key]])
        if key in KIND:
            f = rp2040.time_factor(KIND[key])
            est = f"{KIND[key]}, × {f:.0f} | {med * f:.1f} | {worst * f:.1f}"
        else:
            est = "– | n/a | n/a"
        rows.append(f"| {what} | {len(r[key])} | {med:.3f} | {worst:.3f} | {est} |")
    peak = r["mem"][0]
    body = [
        "## Table core: time per input on the device",
        "",
        f"Table core (`firmware/table*.py`) with the device rules engine, under MicroPython's unix port "
        f"(`-X heapsize=256K`: the timing samples live there too). Command: `.venv/bin/python bench/bench_table.py --hands {args.hands} "
        f"--seed {args.seed} --runs {args.runs}`.",
        f"Machine: {perfdoc.machine_line()}",
        "",
        f"{args.hands} two-deck hands played by the full engine's bots (strengths 1 and 2), fed to the "
        f"table card by card (bids, burial, every play), {args.runs} times; each input keeps its least time of the "
        "runs (the machine is shared: noise only adds). Times per input: median and worst on the unix port, "
        "and calibrated to a real RP2040 = unix time × the factor measured on the real rp2 port for that "
        f"kind of input × {rp2040.FLASH_WAIT} for flash wait states (section \"Calibration\", "
        "`bench/rp2040.py`). The worst case is scaled by the same factor as the median"
        + (
            "; the rp2 port's own worst on these hands: 12.0 / 28.7 / 125 / 43.7 ms."
            if (args.hands, args.seed) == (40, 11)
            else "."
        ),
        "",
        "| input | count | median ms (unix) | worst ms (unix) | factor (rp2040.py) | RP2040 median ms (calibrated) | RP2040 worst ms (calibrated) |",
        "|---|---|---|---|---|---|---|",
        *rows,
        "",
        f"Peak live heap over the {args.hands} hands (`gc.mem_alloc()` after a collection at each hand's end, "
        f"the timing samples' arrays included): {peak:,} B on the unix port, "
        f"{rp2040.chip_heap(peak, rp2040.TABLE_CODE_UNIX, rp2040.TABLE_CODE_NATIVE):,.0f} B calibrated by kind "
        f"(its modules' code, {rp2040.TABLE_CODE_UNIX:,} B on the unix port, × {rp2040.HEAP_BYTECODE:g} plus "
        f"{rp2040.TABLE_CODE_NATIVE:,} B of armv6m native code; the rest × {rp2040.HEAP_DATA:g}: bench/rp2040.py)"
        + (
            "; the rp2 port itself measured 108,992 B on these 40 hands (139,744 B on the unix port then, "
            "when this program also held pystone's code, 29,184 B there)."
            if (args.hands, args.seed) == (40, 11)
            else "."
        ),
        "",
        "The firmware's heap as a whole is measured by the virtual table, which runs all of it "
        "(docs/firmware.md, \"The virtual table\").",
        "",
        "A save's time here is mostly the host file system's fsync; on the Pico, littlefs "
        "commits to flash instead (not measured here): the serialize row is the part that "
        "scales with the CPU.",
    ]
    perfdoc.write_section("table", "\n".join(body))
    print("\n".join(body))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
