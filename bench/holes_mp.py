# The worst checks locked (as the table asks them: tablerules.ask) against
# unlocked (the engine's method called directly), in a clean heap and in a
# holey one (issue 21; docs/performance.md, "The checks with the heap
# locked"). Runs under MicroPython's unix port with firmware/ and
# host/tractor_table/sim/engine/mpy/ on the path:
#   micropython -X heapsize=512K bench/holes_mp.py IDS [HOLES [ROUNDS [CALLS]]]
# IDS: case ids of tests/device_rules/data/*.jsonl (comma-separated). For
# each case: a fresh engine, its check asked once (its parts loaded); then
# HOLES (default 2,000) one-block holes made below the free space (a small
# tuple kept, one freed, in turn: as docs/firmware.md's "Not modelled by any
# bench" found), or none ("clean", first); each way ROUNDS (5) rounds of CALLS
# (40) calls locked and CALLS unlocked, interleaved; a figure is the least
# call. Prints one JSON line a case: {"id", "clean": [locked µs, unlocked µs],
# "holey": [locked µs, unlocked µs], "retries"}.
#   micropython -X heapsize=512K bench/holes_mp.py --count ID WAY HEAP N
# The same set-up for one case, then its check asked N times, WAY "locked"
# or "unlocked", HEAP "clean" or "holey", nothing timed: for valgrind's
# callgrind (instructions a check: the difference of N calls and none;
# bench/holes_count.py runs it).
import gc
import json
import sys
import time

import drules  # type: ignore[import-not-found]
import tablerules as TR  # type: ignore[import-not-found]
from judge_mp import CaseRules, seat_of  # type: ignore[import-not-found]

FILES = (
    "tests/device_rules/data/adversarial.jsonl",
    "tests/device_rules/data/adversarial-host.jsonl",
    "tests/device_rules/data/adversarial-beyond.jsonl",
)


def check_of(case):  # type: ignore[no-untyped-def]
    t = CaseRules(case["rules"])
    k = case["kind"]
    if k == "follow":
        return t, (TR.FOLLOW, t.cards(case["lead"]), drules.hand_from(t.cards(case["hand"])), t.cards(case["play"]), None)
    if k == "throw":
        leader = seat_of(case["leader"])
        lead = t.cards(case["lead"])
        hands = [drules.hand_from(t.cards(h, empty=True)) for h in case["hands"]]
        drules.hand_from(lead, hands[leader])
        return t, (TR.LEAD, lead, hands, leader, bytearray(len(lead)))
    seen = [0] * 54
    return t, (TR.TRICK, [t.cards(p, seen) for p in case["plays"]], None, 0, None)


def plain(e, a):  # type: ignore[no-untyped-def]
    w = a[0]
    if w == TR.FOLLOW:
        return e.check_follow(a[1], a[2], a[3])
    if w == TR.LEAD:
        return e.check_lead(a[1], a[2], a[3], a[4])
    return e.trick_winner(a[1])


def least(e, a, rounds, calls):  # type: ignore[no-untyped-def]
    ticks = time.ticks_us  # type: ignore[attr-defined]
    diff = time.ticks_diff  # type: ignore[attr-defined]
    w, x, y, z, v = a
    bl = bu = 1 << 30
    for _ in range(rounds):
        for _ in range(calls):
            t0 = ticks()
            TR.ask(e, w, x, y, z, v)
            d = diff(ticks(), t0)
            if d < bl:
                bl = d
        for _ in range(calls):
            t0 = ticks()
            plain(e, a)
            d = diff(ticks(), t0)
            if d < bu:
                bu = d
    return [bl, bu]


def holes(n):  # type: ignore[no-untyped-def]
    # n one-block holes below the free space: tuples of one item (one GC
    # block), one kept and one dropped in turn
    keep = [None] * n
    drop = [None] * n
    for i in range(n):
        drop[i] = (i,)
        keep[i] = (i,)
    drop = None
    gc.collect()
    return keep


def find(want):  # type: ignore[no-untyped-def]
    cases = {}
    for fn in FILES:
        for line in open(fn):
            c = json.loads(line)
            if c.get("id") in want:
                cases[c["id"]] = c
    return cases


def count(argv):  # type: ignore[no-untyped-def]
    cid, way, heap, n = argv[2], argv[3], argv[4], int(argv[5])
    t, a = check_of(find([cid])[cid])
    e = t.engine
    w, x, y, z, v = a
    assert TR.ask(e, w, x, y, z, v) == plain(e, a)
    gc.collect()
    kept = holes(2000) if heap == "holey" else None
    if way == "locked":
        for _ in range(n):
            TR.ask(e, w, x, y, z, v)
    else:
        for _ in range(n):
            plain(e, a)
    print(kept is None, TR.retries)


def main(argv):  # type: ignore[no-untyped-def]
    if argv[1] == "--count":
        count(argv)
        return
    want = argv[1].split(",")
    n = int(argv[2]) if len(argv) > 2 else 2000
    rounds = int(argv[3]) if len(argv) > 3 else 5
    calls = int(argv[4]) if len(argv) > 4 else 40
    cases = find(want)
    for cid in want:
        t, a = check_of(cases[cid])
        e = t.engine
        r0 = TR.retries
        assert TR.ask(e, a[0], a[1], a[2], a[3], a[4]) == plain(e, a)
        gc.collect()
        clean = least(e, a, rounds, calls)
        kept = holes(n)
        holey = least(e, a, rounds, calls)
        del kept
        gc.collect()
        print(json.dumps({"id": cid, "clean": clean, "holey": holey, "retries": TR.retries - r0}))


main(sys.argv)
