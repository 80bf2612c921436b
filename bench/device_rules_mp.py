# The device rules engine's benchmark, MicroPython side (run by
# bench/bench_device_rules.py under the unix port, firmware/ on the path).
#
#   micropython device_rules_mp.py time R [NATIVE INNER] < scripts (JSON lines) > one line per hand
#   micropython device_rules_mp.py heap     < one 2-deck script    > one JSON line
#   micropython device_rules_mp.py code                 > the imported modules' heap
#
# "time": every check of each hand script (difffuzz.make_script: the plays of
# the full engine's bots plus attempts) is timed: check_lead with the four
# hands known (throws checked), check_follow, trick_winner; each call made
# R times and its time the median of them: every check timed the same way
# (the adversarial set is timed the same way by
# host/tractor_table/sim/engine/mpy/adversary_mp.py), first as the table
# asks it (tablerules.ask: the heap locked), then called directly
# (unlocked). Prints per hand: [id, variant, [[kind, µs, native µs, µs
# unlocked], ...], retries] (µs: locked; native µs: the part of the locked
# time in native code, host/tractor_table/sim/engine/mpy/kindtime_mp.py, when
# the engine's native methods and the bytecode ones they call are named,
# else 0: the split is measured unlocked, its wrappers allocate, and its
# proportion applied to the locked time; retries: checks tablerules asked
# again unlocked, a MemoryError under the lock).
# The bench runs this P times over (passes)
# and keeps each check's least median: the checks allocate nothing, so no
# collection runs inside a timed call; the passes filter the shared machine's
# slow spells, which outlast a check's R calls.
# "heap": replays one hand and prints the engine's live heap (gc.mem_alloc()
# after gc.collect()) after importing it, after setting up, and its peak over
# every step, each above a baseline taken before the engine was imported.
import gc
import json
import sys
import time


def steps_of(case):
    """The script's steps with card lists as bytes (made before measuring)."""
    out = []
    for st in case["steps"]:
        k = st[0]
        if k in ("L", "F", "P", "b", "k", "e"):
            cards = bytes(st[2] if k in ("L", "F", "P", "b") else st[1])
            seat = st[1] if k in ("L", "F", "P", "b") else 0
            out.append((k, seat, cards, st[3] if k == "L" else 0))
        else:
            out.append((k, 0, b"", 0))
    return out


def setup(case):
    """Engine, bidding and the hand's options from a script's rules."""
    import drules
    import drules_hand

    r = case["rules"]
    km = option(r, "kitty_multiplier")
    e = drules.Engine(
        r.get("decks", 2),
        r.get("permanent_twos", False),
        r.get("same_shape_only", False),
        km,
        r.get("kitty_requires_trump", False),
        r.get("throw_penalty", 0),
    )
    level = "23456789TJQKA".index(r["level"])
    b = drules_hand.Bidding(e.decks, level, r.get("allow_self_override", True))
    return e, b, level, option(r, "no_bid"), option(r, "first_dealer")


def option(rules, name):
    """A case's choice option as the engine's number (firmware/ruleopts.py: its
    index in the option's values; the default's without it)."""
    import ruleopts

    for o in ruleopts.OPTIONS:
        if o[0] == name:
            v = rules.get(name)
            return o[3] if v is None else o[2].index(v)
    raise ValueError("no rule option " + name)


def median(ts):
    ts.sort()
    n = len(ts)
    return ts[n // 2] if n % 2 else (ts[n // 2 - 1] + ts[n // 2]) / 2


def replay(case, steps, timer, hands, forced, R, kinds=False):
    """Play the steps through a fresh engine; timer(kind, µs, native µs, µs
    unlocked) gets each check."""
    import drules
    import drules_hand
    import tablerules as TR

    e, bidding, level, no_bid, first_dealer = setup(case)
    dealer = case["dealer"]
    for s in range(4):
        drules.hand_from(case["hands"][s], hands[s])
    plays = [b"", b"", b"", b""]
    n = 0
    lead = b""
    ticks = time.ticks_us
    diff = time.ticks_diff
    split = None
    if kinds:
        import kindtime_mp

        split = kindtime_mp.split
    for k, seat, cards, _real in steps:
        if k == "b":
            bidding.bid(seat, cards)
        elif k == "e":
            trump, _, _ = drules_hand.end_of_draw(bidding, False, dealer, no_bid, first_dealer, cards)
            e.set_trump(level, drules.NT if trump < 0 else trump)
        elif k == "L":
            ts = []
            for _ in range(R):
                t0 = ticks()
                TR.ask(e, TR.LEAD, cards, hands, seat, forced)
                ts.append(diff(ticks(), t0))
            med = median(ts)
            ts = []
            for _ in range(R):
                t0 = ticks()
                e.check_lead(cards, hands, seat, forced)
                ts.append(diff(ticks(), t0))
            mu = median(ts)
            nat = split(lambda c=cards, s=seat: e.check_lead(c, hands, s, forced), R, mu)[0] if split else 0
            timer("lead", med, nat * med / mu if mu else 0, mu)
        elif k == "F":
            h = hands[seat]
            ts = []
            for _ in range(R):
                t0 = ticks()
                TR.ask(e, TR.FOLLOW, lead, h, cards)
                ts.append(diff(ticks(), t0))
            med = median(ts)
            ts = []
            for _ in range(R):
                t0 = ticks()
                e.check_follow(lead, h, cards)
                ts.append(diff(ticks(), t0))
            mu = median(ts)
            nat = split(lambda ld=lead, hh=h, c=cards: e.check_follow(ld, hh, c), R, mu)[0] if split else 0
            timer("follow", med, nat * med / mu if mu else 0, mu)
        elif k == "P":
            if n == 0:
                lead = cards
            plays[n] = cards
            n += 1
            h = hands[seat]
            for c in cards:
                h[c % 54] -= 1
            if n == 4:
                ts = []
                for _ in range(R):
                    t0 = ticks()
                    TR.ask(e, TR.TRICK, plays)
                    ts.append(diff(ticks(), t0))
                med = median(ts)
                ts = []
                for _ in range(R):
                    t0 = ticks()
                    e.trick_winner(plays)
                    ts.append(diff(ticks(), t0))
                mu = median(ts)
                nat = split(lambda: e.trick_winner(plays), R, mu)[0] if split else 0
                timer("trick", med, nat * med / mu if mu else 0, mu)
                n = 0
    return e


def out_timer(out):
    def timer(kind, us, nat=0, unlocked=0):
        out.append((kind, us, nat, unlocked))

    return timer


def time_mode(R, native=None, inner=None):
    kinds = bool(native)
    if kinds:
        import drules
        import drules_sweep
        import kindtime_mp

        load = getattr(drules_sweep, "load_all", None)  # (an older engine, bench/calib_engine.py: its methods are on Engine already)
        if load is not None:
            load(drules)  # the oracle's and the ladders' methods on Engine, to be wrapped
        kindtime_mp.setup(drules.Engine, native, inner or [])
    hands = [bytearray(54) for _ in range(4)]
    forced = bytearray(256)
    while True:
        line = sys.stdin.readline()
        if not line or line.strip() == "end":
            break
        case = json.loads(line)
        steps = steps_of(case)
        line = None
        out = []
        timer = out_timer(out)

        gc.collect()
        import tablerules

        n0 = tablerules.retries
        replay(case, steps, timer, hands, forced, R, kinds)
        sys.stdout.write(json.dumps([case["id"], case.get("variant"), out, tablerules.retries - n0]) + "\n")
        case = steps = out = None
        gc.collect()


def heap_mode():
    case = json.loads(sys.stdin.readline())
    steps = steps_of(case)
    import ruleopts  # noqa: F401 - the options' table (setup) is not the engine's: before the baseline
    import tablerules  # noqa: F401 - the table's (replay asks through it): before the baseline

    gc.collect()
    base = gc.mem_alloc()
    peak = [0]

    def timer(kind, us, nat=0, unlocked=0):
        # after each check: what is still alive above the baseline
        gc.collect()
        live = gc.mem_alloc() - base
        if live > peak[0]:
            peak[0] = live

    run_hand(case, steps, timer)
    # The engine and the hands are gone now: what stays is the engine's code
    # (imported modules). The conservative GC may keep a little garbage, so
    # the code is measured at the end, at the same depth as the checks.
    gc.collect()
    code = gc.mem_alloc() - base
    import drules

    e = drules.Engine(2)
    gc.collect()
    engine_object = gc.mem_alloc() - base - code
    del e
    print(json.dumps({"code": code, "peak": peak[0], "state_peak": peak[0] - code, "engine_object": engine_object}))


def run_hand(case, steps, timer):
    hands = [bytearray(54) for _ in range(4)]
    forced = bytearray(256)
    replay(case, steps, timer, hands, forced, 1)


def main(argv):
    mode = argv[1]
    if mode == "time":
        time_mode(
            int(argv[2]),
            argv[3].split(",") if len(argv) > 3 and argv[3] else None,
            argv[4].split(",") if len(argv) > 4 and argv[4] else None,
        )
    elif mode == "heap":
        heap_mode()
    elif mode == "code":
        # a fresh process: the heap the engine's modules take once imported
        gc.collect()
        base = gc.mem_alloc()
        import drules  # noqa: F401
        import drules_hand  # noqa: F401

        gc.collect()
        print(json.dumps({"code": gc.mem_alloc() - base}))


if __name__ == "__main__":
    main(sys.argv)
