# The adversarial generator's device side (tractor_table/adversarial.py, and
# bench/bench_device_rules.py for the adversarial set): runs under MicroPython
# (unix port) with firmware/ and this folder on the module path.
#
#   micropython adversary_mp.py R [CAP_US [NATIVE BYTECODE]] < cases (JSON lines) > one answer per line
#
# A case is a conformance case (docs/rules.md §13) of kind "follow", "throw" or
# "trick" (judge_mp.py parses it). Each gets the device engine's answer and its
# time: the one engine call that judges it (check_follow; check_lead with the
# four hands known; trick_winner), asked as the table asks it
# (tablerules.ask: the heap locked, docs/firmware.md "The checks with the heap
# locked"), made R times, timed with ticks_us, and the median of the R times
# reported ("us"; every check the same way); then the same call made R times
# unlocked, as the engine is called directly ("us_unlocked"). When a call
# takes more than CAP_US (default: no cap) the check is not repeated: its one
# time stands (the search must not spend minutes on one input; the benches
# give no cap). With NATIVE and BYTECODE (the engine's native and bytecode
# methods' names, comma-separated) each answer also has "native_us": the part
# of "us" spent in native code (kindtime_mp.py), the rest being bytecode, and
# "native_us_unlocked", that of "us_unlocked". The split's wrappers allocate
# (their argument tuples), so it is measured unlocked (a locked call through
# them would be cut short and asked again) and its proportion applied to the
# locked time. "retries": the checks tablerules asked again unlocked (a
# MemoryError under the lock) over the case's calls. Answers:
#   follow: {"id", "us", "n", "answer": [reason], ...}
#   throw:  {"id", "us", "n", "answer": ["ok"]} or ["throw_failed", forced card names]
#   trick:  {"id", "us", "n", "answer": [winner seat, points]}
# The process loop is serve_mp.py's (a line "quit", or the end of input, ends
# it); the host's client is tractor_table.sim.engine.EngineProcess.
import gc
import sys
import time

import drules  # type: ignore[import-not-found]
import kindtime_mp  # type: ignore[import-not-found]
import tablerules as TR  # type: ignore[import-not-found]
from judge_mp import REASONS, CaseRules, names, seat_of  # type: ignore[import-not-found]
from serve_mp import CaseError, serve  # type: ignore[import-not-found]


def median(ts: list) -> float:  # type: ignore[type-arg]
    ts.sort()
    n = len(ts)
    if n % 2:
        return float(ts[n // 2])
    return float(ts[n // 2 - 1] + ts[n // 2]) / 2.0


def timed(fn, R: int, cap: int) -> tuple:  # type: ignore[no-untyped-def, type-arg]
    ticks = time.ticks_us  # type: ignore[attr-defined]  # MicroPython's time
    diff = time.ticks_diff  # type: ignore[attr-defined]
    ts = []
    out = None
    for _ in range(R):
        t0 = ticks()
        out = fn()
        dt = diff(ticks(), t0)
        ts.append(dt)
        if cap and dt > cap:
            break
    return out, ts


def both(plain, locked, R: int, cap: int) -> tuple:  # type: ignore[no-untyped-def, type-arg]
    """(answer, locked times, unlocked times): locked() as the table asks
    the check, plain() the engine's method called directly; the same answer."""
    r, ts = timed(locked, R, cap)
    r2, tu = timed(plain, R, cap)
    if r2 != r:
        raise CaseError("the check locked and unlocked gave different answers")
    return r, ts, tu


def answer(case: dict, R: int, cap: int) -> tuple:  # type: ignore[type-arg]
    kind = case.get("kind")
    t = CaseRules(case.get("rules"))
    e = t.engine
    if kind == "follow":
        lead = t.cards(case["lead"])
        if e.lead_suit(lead) == drules.MIXED:
            raise CaseError("lead: the cards span several effective suits")
        hand = drules.hand_from(t.cards(case["hand"]))
        play = t.cards(case["play"])
        gc.collect()
        fn = lambda: e.check_follow(lead, hand, play)  # noqa: E731
        r, ts, tu = both(fn, lambda: TR.ask(e, TR.FOLLOW, lead, hand, play), R, cap)
        return [REASONS[r]], ts, tu, fn
    if kind == "throw":
        leader = seat_of(case["leader"])
        lead = t.cards(case["lead"])
        hands_text = case["hands"]
        if not isinstance(hands_text, list) or len(hands_text) != 4:
            raise CaseError("hands must be four strings")
        hands = [drules.hand_from(t.cards(h, empty=True)) for h in hands_text]
        drules.hand_from(lead, hands[leader])
        forced = bytearray(len(lead))
        gc.collect()
        fn = lambda: e.check_lead(lead, hands, leader, forced)  # noqa: E731
        r, ts, tu = both(fn, lambda: TR.ask(e, TR.LEAD, lead, hands, leader, forced), R, cap)
        if r == drules.R_THROW_FAILED:
            return ["throw_failed", names(forced[: e.nforced])], ts, tu, fn
        return [REASONS[r]], ts, tu, fn
    if kind == "trick":
        leader = seat_of(case["leader"])
        seen = [0] * 54
        plays = [t.cards(p, seen) for p in case["plays"]]
        if len(plays) != 4:
            raise CaseError("plays must be four strings")
        if e.lead_suit(plays[0]) == drules.MIXED:
            raise CaseError("plays[0]: the lead spans several effective suits")
        gc.collect()
        fn = lambda: e.trick_winner(plays)  # noqa: E731
        w, ts, tu = both(fn, lambda: TR.ask(e, TR.TRICK, plays), R, cap)
        pts = 0
        for p in plays:
            pts += e.points(p)
        return [(leader + w) % 4, pts], ts, tu, fn
    raise CaseError("unknown kind " + repr(kind))


def main(argv: list) -> None:  # type: ignore[type-arg]
    R = int(argv[1]) if len(argv) > 1 else 5
    cap = int(argv[2]) if len(argv) > 2 else 0
    native = argv[3].split(",") if len(argv) > 3 and argv[3] else []
    if native:
        import drules_sweep  # type: ignore[import-not-found]

        load = getattr(drules_sweep, "load_all", None)  # (an older engine, bench/calib_engine.py: its methods are on Engine already)
        if load is not None:
            load(drules)  # the oracle's and the ladders' methods on Engine, to be wrapped
        kindtime_mp.setup(drules.Engine, native, argv[4].split(",") if len(argv) > 4 else [])

    def one(case: dict) -> dict:  # type: ignore[type-arg]
        n0 = TR.retries
        ans, ts, tu, fn = answer(case, R, cap)
        out = {"answer": ans, "us": median(ts), "n": len(ts), "us_unlocked": median(tu), "retries": TR.retries - n0}
        if native:
            # (unlocked: the wrappers allocate) the proportion, on both times
            nat, _ = kindtime_mp.split(fn, len(tu), out["us_unlocked"])
            out["native_us_unlocked"] = nat
            out["native_us"] = nat * out["us"] / out["us_unlocked"] if out["us_unlocked"] > 0 else 0.0
        return out

    serve(one)


if __name__ == "__main__":
    main(sys.argv)
