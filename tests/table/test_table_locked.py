"""The table asks the engine's checks with the heap locked (issue 21;
firmware/tablerules.py, ``ask``; docs/firmware.md, "The checks with the heap
locked"): every case of every corpus answered through ``tablerules.ask`` gives
the engine's own answer, with the parts the engine loads at a first question
loaded under the lock (``drules._load`` unlocks for them) and no retry; a
check cut short by an allocation under the lock (a MemoryError) is asked
again unlocked, with the same answer, after the engine's scratch is put back,
and counted; the heap is never left locked. CPython test driving MicroPython."""

from __future__ import annotations

import json
from pathlib import Path

from tractor_table import adversarial, mpy
from tractor_table.paths import FIRMWARE_DIR
from tractor_table.sim.engine import MPY_DIR

ROOT = Path(__file__).resolve().parents[2]
CORPORA = [
    *sorted((ROOT / "tests" / "device_rules" / "data").glob("*.jsonl")),
    *sorted((ROOT / "tests" / "engine" / "conformance").glob("*.jsonl")),
]

# The MicroPython side: each case's check (follow, throw, trick, shape) made
# from its cards (judge_mp's parsing), asked directly of a fresh engine and
# through tablerules.ask of another; with CUT, each engine method named is
# wrapped so that, under the lock, its first call allocates (its arguments'
# tuple: a MemoryError), and each case is asked again on the same engine
# after, unwrapped: its scratch was put back.
SCRIPT = """
import gc, json, sys, micropython
import drules, tablerules as TR
from judge_mp import CaseRules, seat_of

def check_of(case):
    t = CaseRules(case["rules"])
    k = case["kind"]
    if k == "follow":
        a = (TR.FOLLOW, t.cards(case["lead"]), drules.hand_from(t.cards(case["hand"])), t.cards(case["play"]), None)
    elif k == "throw":
        leader = seat_of(case["leader"])
        lead = t.cards(case["lead"])
        hands = [drules.hand_from(t.cards(h, empty=True)) for h in case["hands"]]
        drules.hand_from(lead, hands[leader])
        a = (TR.LEAD, lead, hands, leader, bytearray(len(lead)))
    elif k == "trick":
        seen = [0] * 54
        a = (TR.TRICK, [t.cards(p, seen) for p in case["plays"]], None, 0, None)
    elif k == "shape":
        a = (TR.DECOMPOSE, t.cards(case["cards"]), None, 0, None)
    else:
        return None
    return t, a

def direct(e, a):
    w = a[0]
    if w == TR.FOLLOW:
        r = e.check_follow(a[1], a[2], a[3])
    elif w == TR.LEAD:
        r = e.check_lead(a[1], a[2], a[3], a[4])
    elif w == TR.TRICK:
        r = e.trick_winner(a[1])
    else:
        r = e.decompose(a[1])
    return [r, e.nforced, bytes(a[4][: e.nforced]) if w == TR.LEAD else b"", bytes(e.units[: 3 * max(r, 0)]) if w == TR.DECOMPOSE else b""]

def asked(e, a):
    r = TR.ask(e, a[0], a[1], a[2], a[3], a[4])
    x = [0, 1]  # allocates: the heap is not left locked
    w = a[0]
    return [r, e.nforced, bytes(a[4][: e.nforced]) if w == TR.LEAD else b"", bytes(e.units[: 3 * max(r, 0)]) if w == TR.DECOMPOSE else b""]

def cut(f):
    def w(*args):
        return f(*args)
    return w

names = json.loads(sys.stdin.readline())
cases = [json.loads(x) for x in sys.stdin if x.strip()]
if names:
    import drules_sweep
    drules_sweep.load_all(drules)  # every part's methods on Engine, to be wrapped
checks = []
for c in cases:
    ca = check_of(c)
    if ca is not None:
        checks.append((c["id"], ca[0], ca[1], direct(ca[0].engine, ca[1])))
if not names:
    # fresh engines: their parts loaded at their first question, under the lock
    bad = []
    for c in cases:
        ca = check_of(c)
        if ca is None:
            continue
        got = asked(ca[0].engine, ca[1])
        want = [x for cid, t, a, x in checks if cid == c["id"]][0]
        if got != want:
            bad.append(c["id"])
    print(json.dumps({"checks": len(checks), "bad": bad, "retries": TR.retries}))
else:
    out = {}
    for name in names:
        f = getattr(drules.Engine, name, None)
        if f is None:
            out[name] = None
            continue
        setattr(drules.Engine, name, cut(f))
        n0 = TR.retries
        bad = []
        again = []
        engines = []
        for c in cases:
            ca = check_of(c)
            if ca is None:
                continue
            want = [x for cid, t, a, x in checks if cid == c["id"]][0]
            if asked(ca[0].engine, ca[1]) != want:
                bad.append(c["id"])
            engines.append((c["id"], ca[0].engine, ca[1], want))
        cut_short = TR.retries - n0
        setattr(drules.Engine, name, f)
        for cid, e, a, want in engines:
            if asked(e, a) != want:
                again.append(cid)
        out[name] = [cut_short, bad, again, TR.retries - n0 - cut_short]
        engines = None
        gc.collect()
    print(json.dumps(out))
"""


def lines() -> str:
    return "\n".join(x for f in CORPORA for x in f.read_text(encoding="utf-8").splitlines() if x.strip()) + "\n"


def run(names: list[str]) -> dict[str, object]:
    # (the names on stdin: this unix port ends with "FATAL: uncaught NLR" on
    # a command-line argument of 300 characters or more)
    proc = mpy.run(code=SCRIPT, path=[FIRMWARE_DIR, MPY_DIR], heapsize="8M", input=json.dumps(names) + "\n" + lines(), timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return out


def test_every_check_asked_locked_gives_the_engines_answer_without_a_retry() -> None:
    out = run([])
    assert out["checks"] > 150  # type: ignore[operator]
    assert out["bad"] == []
    # the engine allocated nothing under the lock: its parts' first loads
    # (the oracle's placement, its search) were made with the heap unlocked
    assert out["retries"] == 0


def test_a_check_cut_short_under_the_lock_is_asked_again_with_the_same_answer() -> None:
    native, inner = adversarial.engine_methods()
    # every method of the engine the checks call (bytecode and viper): each
    # in turn made to allocate under the lock
    names = sorted({*native, *inner, "check_follow", "check_lead", "trick_winner", "decompose", "_structure", "_decompose",
                    "_ladder", "_lvector", "_unit", "_most", "_try", "_qtest", "_qadd", "_drop", "_match_key", "_fits",
                    "_t", "_fill", "_emit_unit", "_pairs", "_count", "_top", "_reach", "_rung", "_lstart",
                    "_lfits", "_pfit", "_gmatch", "_tpoly", "lead_suit"})
    out = run(names)
    missing = [n for n, v in out.items() if v is None]
    assert missing == [], missing  # every name is a method of the engine
    cut = {n: v for n, v in out.items() if v is not None}
    for name, (_cut_short, bad, again, later) in cut.items():  # type: ignore[misc]
        assert bad == [], (name, bad)  # the retry's answer is the engine's
        assert again == [], (name, again)  # and its scratch was put back: the same engine answers again, locked
        assert later == 0, name  # without a retry
    # the retries are counted, once a check cut short; the public checks and
    # the deepest searches' methods were each cut short many times
    for name in ("check_follow", "check_lead", "trick_winner", "decompose", "_try", "_feasible", "_fits"):
        assert cut[name][0] > 5, (name, cut[name])  # type: ignore[index]
