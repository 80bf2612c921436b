"""Benchmark of the table core; writes the "table" section of docs/performance.md.

Bot hands are played by the full engine (``shengji`` bots, two decks), then
fed, card by card, to the firmware's table core with the device rules engine
under MicroPython's unix port (``bench/table_mp.py``): the time of each input
that ends a play is measured (a lead's click; a follow's last tap, which
includes the revoke re-checks of §10; the last tap of the hand, which includes
the audit of every hand and the settlement), and of each snapshot written to
flash. MicroPython's pystone runs in the same process, and the times are scaled
to an RP2040 estimate by the published figure of about 1,300 pystones/s at
125 MHz.

Usage: .venv/bin/python bench/bench_table.py [--hands N]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
from pathlib import Path

from shengji import Rules
from shengji.hand import Bid, Play
from shengji.match import make_bots, play_hand
from tractor_table import mpy, perfdoc
from tractor_table.virtual.runner import compile_for_host

HERE = Path(__file__).resolve().parent
RP2040_PYSTONES = 1300.0


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


def stats(xs: list[float]) -> tuple[float, float]:
    return statistics.median(xs), max(xs)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=40)
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    hands = record_hands(args.hands, args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "hands.jsonl"
        script.write_text("".join(json.dumps(h) + "\n" for h in hands))
        # the firmware compiled by mpy-cross as for the Pico (native code for this CPU)
        fw = Path(tmp) / "firmware"
        compile_for_host(fw)
        proc = mpy.run(
            HERE / "table_mp.py",
            path=[fw, HERE],
            # the timing samples are kept in the heap too: room for them
            heapsize="256K",
            args=[str(script), str(Path(tmp) / "table.json"), str(len(hands))],
            timeout=600,
        )
    if proc.returncode != 0:
        print(proc.stdout + proc.stderr)
        return 1
    r: dict[str, list[int]] = {}
    for line in proc.stdout.splitlines():
        name, *nums = line.split()
        r[name] = [int(x) for x in nums]
    pystones = float(r["pystones"][0])
    scale = pystones / RP2040_PYSTONES  # unix-port speed over the RP2040's
    rows = []
    for key, what in (
        ("lead", "a lead (click): suit check, throw or not"),
        ("play", "a follow's last tap: the play, revoke re-checks of earlier tricks"),
        ("end", "the hand's last tap: trick, kitty, audit of every hand, settlement"),
        ("serialize", "snapshot serialized with its crc (the CPU part of a save)"),
        ("save", "snapshot saved: file written, flushed (fsync here), renamed"),
    ):
        med, worst = stats([x / 1000 for x in r[key]])
        est = f"{med * scale:.1f} | {worst * scale:.1f}" if key != "save" else "n/a | n/a"
        rows.append(f"| {what} | {len(r[key])} | {med:.3f} | {worst:.3f} | {est} |")
    body = [
        "## Table core: time per input on the device",
        "",
        f"Table core (`firmware/table*.py`) with the device rules engine, under MicroPython's unix port "
        f"(`-X heapsize=256K`: the timing samples live there too). Command: `.venv/bin/python bench/bench_table.py --hands {args.hands} "
        f"--seed {args.seed}`.",
        f"Machine: {perfdoc.machine_line()}",
        "",
        f"{args.hands} two-deck hands played by the full engine's bots (strengths 1 and 2), fed to the "
        "table card by card (bids, burial, every play). Times per input; RP2040 estimate = unix time × "
        f"(unix pystones / {RP2040_PYSTONES:.0f}), with MicroPython's pystone run in the same process: "
        f"{pystones:.0f} pystones/s here, so × {scale:.0f}.",
        "",
        "| input | count | median ms | worst ms | RP2040 median ms (est.) | RP2040 worst ms (est.) |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
        "The firmware's heap is measured by the virtual table, which runs all of it "
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
