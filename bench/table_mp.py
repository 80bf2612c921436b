# MicroPython side of bench/bench_table.py: feeds recorded bot hands to the
# table core with the device rules engine and times each input.
#
# Usage: micropython table_mp.py HANDS.jsonl STORE_PATH NUMBER_OF_HANDS
# HANDS.jsonl: one hand per line, [decks, bids, kitty, plays] with bids
# [[seat, cards]], kitty the buried cards, plays [[seat, cards]] in order.
# Prints lines "play us us ...", "lead ...", "end ...", "save ...", "serialize ...",
# "mem bytes" (the live heap's peak, after each hand: bench/heapprobe.py, so that
# it runs on the webassembly port too, bench/bench_heap32.py).
import array
import io
import json
import sys
import time

import events as E
import heapprobe
import persist
import table as T
import tablerules


class Samples:
    def __init__(self, cap):
        self.a = array.array("i", bytes(4 * cap))
        self.n = 0

    def append(self, x):
        self.a[self.n] = x
        self.n += 1



def main(argv):
    f = open(argv[1])
    store = persist.Store(argv[2])
    n = int(argv[3])
    # preallocated: growing lists would need ever larger blocks of the heap
    follow_us = Samples(110 * n)
    lead_us = Samples(40 * n)
    end_us = Samples(n)
    save_us = Samples(40 * n)
    ser_us = Samples(40 * n)
    t = None
    while True:
        line = f.readline()
        if not line:
            break
        decks, bids, kitty, plays = json.loads(line)
        line = None
        if t is None:
            rules = tablerules.TableRules(decks)
            # the rules digest, as main.configured_app sets it (in every snapshot)
            import tableconfig

            rules.digest = tableconfig.Options({}, decks).digest
            del sys.modules["tableconfig"]
            sys.modules.pop("ruleopts", None)
            tableconfig = None
            t = T.Table(rules, decks=decks)
        t.command([T.CMD_NEW_MATCH])  # each recorded hand is a first hand
        for seat, cards in bids:
            for c in cards:
                t.tap(seat, c, 0)
            t.button(seat, E.BTN_OK, 0)
        t.button(0, E.BTN_OK, 0)
        for c in kitty:
            t.tap(t.dealer, c, 0)
        t.take_events()
        for seat, cards in plays:
            leading = t.lead is None
            for c in cards[:-1]:
                t.tap(seat, c, 0)
            if leading:
                t.tap(seat, cards[-1], 0)
                a = time.ticks_us()
                t.button(seat, E.BTN_OK, 0)
                lead_us.append(time.ticks_diff(time.ticks_us(), a))
            else:
                last = t.played + len(cards) >= t.hand_size and t.turn == (t.leader + 3) & 3
                a = time.ticks_us()
                t.tap(seat, cards[-1], 0)
                dt = time.ticks_diff(time.ticks_us(), a)
                if last:
                    end_us.append(dt)
                else:
                    follow_us.append(dt)
            if t.take_save():
                a = time.ticks_us()
                store.save(t.snapshot(True))
                save_us.append(time.ticks_diff(time.ticks_us(), a))
                # the same snapshot serialized into RAM: the CPU part of a save
                sink = io.BytesIO()
                a = time.ticks_us()
                w = persist.Store()
                w._start(sink, t.snapshot(True))
                while w._more():
                    pass
                ser_us.append(time.ticks_diff(time.ticks_us(), a))
                sink = w = None
            for _i, _h, ev in t.take_events():
                if ev[0] == E.REJECT:
                    raise RuntimeError("the table refused a recorded play: " + repr(ev))
        if t.phase != T.HAND_END:
            raise RuntimeError("hand did not end: phase " + str(t.phase))
        yield  # the live heap at the hand's end
    f.close()
    # one line per series, written number by number (no large allocation)
    for name, smp in (
        ("play", follow_us),
        ("lead", lead_us),
        ("end", end_us),
        ("save", save_us),
        ("serialize", ser_us),
    ):
        sys.stdout.write(name)
        for k in range(smp.n):
            sys.stdout.write(" " + str(smp.a[k]))
        sys.stdout.write("\n")
    print("mem", heapprobe.peak())


heapprobe.drive(main(sys.argv))
