# The MicroPython side of bench/bench_heap32.py and tests/foundation/test_heap32.py:
# the same measurements on the 64-bit unix port and on the 32-bit webassembly
# port, with the same firmware files (bytecode .mpy, host/tractor_table/wasm32.py).
#
#   micropython heap32_mp.py code           the firmware modules' code, imported in
#                                           the virtual table's order (as bench_heap.py)
#   micropython heap32_mp.py rules CASE     the device rules engine: its code, and its
#                                           working state's peak over one hand script
#                                           (tractor_table.difffuzz) in the file CASE
#   micropython heap32_mp.py link           the link's state (as bench_link.py)
#
# Live heap = gc.mem_alloc() after a collection, at each `yield` of a run
# (bench/heapprobe.py: the webassembly port collects only at its top level).
# Prints one JSON line.
import json
import sys

import heapprobe
from heapprobe import last

#: the firmware modules in the order the virtual table loads them (bench/bench_heap.py)
LOADED = (
    "ttlink_io", "persist", "hwconfig", "cardmap", "pn532", "scanner", "ttlink", "events",
    "table", "display", "version", "main", "drules", "drules_hand", "tablerules",
)


def code_mode():
    yield
    start = last()
    sizes = []
    for name in LOADED:
        a = last()
        __import__(name)
        yield
        sizes.append([name, last() - a])
    yield
    print(json.dumps({"modules": sizes, "total": last() - start}))


def rules_mode(path):
    f = open(path)
    case = json.loads(f.read())
    f.close()
    steps = []
    for st in case["steps"]:
        k = st[0]
        if k in ("L", "F", "P", "b"):
            steps.append((k, st[1], bytes(st[2])))
        elif k in ("k", "e"):
            steps.append((k, 0, bytes(st[1])))
    r = case["rules"]
    yield
    base = last()
    import drules
    import drules_hand

    yield
    code = last() - base
    km = ("structure", "linear", "cards").index(r.get("kitty_multiplier", "structure"))
    level = "23456789TJQKA".index(r["level"])
    hands = [bytearray(54) for _ in range(4)]
    forced = bytearray(256)
    plays = [b"", b"", b"", b""]
    peak = 0
    e = drules.Engine(
        r.get("decks", 2), r.get("permanent_twos", False), r.get("same_shape_only", False), km,
        r.get("kitty_requires_trump", False), r.get("throw_penalty", 0),
    )
    bidding = drules_hand.Bidding(e.decks, level, r.get("allow_self_override", True))
    no_bid = drules_hand.NB_KITTY if r.get("no_bid") == "kitty" else drules_hand.NB_NT
    fd = drules_hand.FD_FINAL if r.get("first_dealer") == "final" else drules_hand.FD_FIRST
    for s in range(4):
        drules.hand_from(case["hands"][s], hands[s])
    n = 0
    lead = b""
    for k, seat, cards in steps:
        if k == "b":
            bidding.bid(seat, cards)
        elif k == "e":
            trump, _, _ = drules_hand.end_of_draw(bidding, False, case["dealer"], no_bid, fd, cards)
            e.set_trump(level, drules.NT if trump < 0 else trump)
        elif k == "L":
            e.check_lead(cards, hands, seat, forced)
        elif k == "F":
            e.check_follow(lead, hands[seat], cards)
        elif k == "P":
            if n == 0:
                lead = cards
            plays[n] = cards
            n += 1
            h = hands[seat]
            for c in cards:
                h[c % 54] -= 1
            if n == 4:
                e.trick_winner(plays)
                n = 0
        else:
            continue
        yield
        now = last() - base - code
        if now > peak:
            peak = now
    print(json.dumps({"code": code, "state_peak": peak}))


def link_mode():
    yield
    m0 = last()
    import ttlink

    yield
    m1 = last()
    link = ttlink.DeviceLink(0, 1, lambda: 12345, "0.1.0", "rules-2026.1", ring=64)
    yield
    m2 = last()
    for k in range(200):
        link.add_event([6, k // 5, k % 4, (k * 37) % 108])
    yield
    m3 = last()
    link.feed(ttlink.encode_frame(0, 0, 0, ttlink.HELLO, [1, "0.1.0", "rules-2026.1", 5, 0, 0]), 10)
    link.feed(ttlink.encode_frame(link.sid, 1, 0, ttlink.SYNC, [136]), 20)
    link.take_output()
    yield
    m4 = last()
    print(json.dumps({"module": m1 - m0, "empty": m2 - m1, "ring": m3 - m2, "total": m4 - m1}))


def main(argv):
    mode = argv[1]
    if mode == "code":
        return code_mode()
    if mode == "rules":
        return rules_mode(argv[2])
    if mode == "link":
        return link_mode()
    raise ValueError("unknown mode " + mode)


heapprobe.drive(main(sys.argv))
