"""The board model's CPU time with and without the events beside the link
(``PicoTable.start(side_events=True)``, what ``virtual --serve --board pico``
runs): the side channel's work is the simulation's, so the firmware's CPU
time (board time charged for its own work, the ``V`` line's ``cpu_us``) must
not move with it. A scripted draw and burial (the typed commands of
tests/board/test_board_serve.py) on a two-deck table, in pairs, the order
within a pair alternating (the first of a pair ran slower on a loaded
machine); medians and their ratio, ``cpu_us`` with and without the timed
``gc.collect()`` (its time varies most from run to run).

    python bench/bench_side_events.py [--pairs 3]
"""

from __future__ import annotations

import argparse
import os
import statistics

from shengji import Rules
from tractor_table.events import EV
from tractor_table.sim.board.runner import PicoTable


def _card(name: str) -> int:
    return "23456789TJQKA".index(name[0]) + 13 * "SHDC".index(name[1])


SCRIPT = [("T", 1, _card("2H")), ("B", 1, EV.BTN_OK), ("B", 0, EV.BTN_OK)] + [
    ("T", 1, _card(c + "D")) for c in "3456789T"
]


def one(side: bool) -> dict[str, int]:
    vt = PicoTable(2, rules=Rules(decks=2))
    try:
        vt.start(host_link=False, side_events=side)
        assert vt.settle(60), vt.firmware_errors()
        for op, seat, arg in SCRIPT:
            (vt.tap if op == "T" else vt.press)(seat, arg)
            assert vt.settle(60), vt.firmware_errors()
        events = vt.events.qsize()
    finally:
        vt.close()
    f = vt.figures
    return {"cpu_us": f["cpu_us"], "gc_us": f["gc_us"], "turns": f["turns"], "events": events,
            "held": vt.held_bytes}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=3)
    args = ap.parse_args()
    runs: dict[bool, list[dict[str, int]]] = {True: [], False: []}
    for i in range(args.pairs):
        for side in ((False, True) if i % 2 == 0 else (True, False)):
            r = one(side)
            runs[side].append(r)
            print(f"side_events={side}: {r}", flush=True)
    med = {s: {k: statistics.median(r[k] for r in runs[s]) for k in ("cpu_us", "gc_us", "turns")} for s in runs}
    for s in (False, True):
        m = med[s]
        print(f"side_events={s}: median cpu_us {m['cpu_us']:.0f}, cpu_us - gc_us {m['cpu_us'] - m['gc_us']:.0f}, "
              f"turns {m['turns']:.0f}, events {runs[s][0]['events']}, held {runs[s][0]['held']} bytes")
    on, off = med[True], med[False]
    print(f"ratio on/off: cpu_us {on['cpu_us'] / off['cpu_us']:.3f}, "
          f"cpu_us - gc_us {(on['cpu_us'] - on['gc_us']) / (off['cpu_us'] - off['gc_us']):.3f}; "
          f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
