"""Benchmark of the full rules engine (``shengji``): follow checks per second
and whole random 2-deck hands judged per second (every play checked).

    .venv/bin/python bench/bench_engine.py [--hands N] [--seed S]

Writes the section ``engine`` of ``docs/performance.md``. One core (the
engine is single-threaded). The reference measured in the same run is a bare
pass over the same plays that only adds up their points: judging costs that
many times a loop that looks at every card once.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Sequence

from shengji import Order, Rank, Rules, Suit
from shengji.cards import POINTS
from shengji.play import Lead, check_follow_counts, trick_winner_faces
from shengji.playout import deal, judge_hand, random_playout
from tractor_table.perfdoc import machine_line, median, write_section

Hand = tuple[Order, list[list[int]], int, list[list[tuple[int, ...]]]]


def make_hands(count: int, rng: random.Random, structured: float, rules: Rules) -> list[Hand]:
    out: list[Hand] = []
    for _ in range(count):
        order = Order(rules, Rank(rng.randrange(13)), rng.choice([None, *Suit]))
        hands, _kitty = deal(rules, rng)
        leader = rng.randrange(4)
        tricks = random_playout(order, hands, leader, rng, throw_rate=0.1, structured=structured)
        out.append((order, hands, leader, tricks))
    return out


def time_each(hands: Sequence[Hand], fn: Callable[[Hand], object], repeat: int = 3) -> list[float]:
    """Seconds per hand: the best of ``repeat`` runs of each hand."""
    out = []
    for h in hands:
        best = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            fn(h)
            best = min(best, time.perf_counter() - t0)
        out.append(best)
    return out


def judge(h: Hand) -> object:
    order, hands, leader, tricks = h
    j = judge_hand(order, hands, leader, tricks)
    assert not j.faults
    return j


def bare(h: Hand) -> object:
    total = 0
    for trick in h[3]:
        for play in trick:
            for f in play:
                total += POINTS[f]
    return total


def follow_cases(
    hands: Sequence[Hand],
) -> list[tuple[Order, Lead, list[int], tuple[int, ...], str]]:
    """Every follow of the hands: (order, lead, follower's counts, play, lead kind)."""
    cases = []
    for order, start, leader, tricks in hands:
        held = [[0] * 54 for _ in range(4)]
        for seat, faces in enumerate(start):
            for f in faces:
                held[seat][f] += 1
        for trick in tricks:
            lead = Lead(order, trick[0])
            d = lead.decomposition
            kind = "throw" if d.is_throw else d.codes[0]
            kind = kind if kind in ("s", "p", "throw") else "run"
            for i in range(1, 4):
                seat = (leader + i) % 4
                cases.append((order, lead, list(held[seat]), trick[i], kind))
            for i in range(4):
                for f in trick[i]:
                    held[(leader + i) % 4][f] -= 1
            leader = trick_winner_faces(order, lead, trick, leader).winner
    return cases


def follow_rate(cases: Sequence[tuple[Order, Lead, list[int], tuple[int, ...], str]]) -> float:
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for order, lead, hand, play, _kind in cases:
            check_follow_counts(order, lead, hand, play)
        best = min(best, time.perf_counter() - t0)
    return len(cases) / best


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=200, help="random hands per mix (default 200)")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--no-write", action="store_true", help="print only; leave docs/performance.md")
    args = ap.parse_args(argv[1:])
    command = ".venv/bin/python bench/bench_engine.py" + (
        f" --hands {args.hands}" if args.hands != 200 else ""
    )
    rng = random.Random(args.seed)
    rows = []
    follow_rows = []
    medians = {}
    mixes = (
        ("2 decks, random leads", Rules.preset("classic"), 0.0, args.hands),
        ("2 decks, biggest-unit leads", Rules.preset("classic"), 1.0, args.hands),
        ("3 decks (titanic), biggest-unit leads", Rules.preset("titanic"), 1.0, args.hands // 4),
        ("4 decks (xuwen), biggest-unit leads", Rules.preset("xuwen"), 1.0, args.hands // 4),
    )
    for label, rules, structured, count in mixes:
        hands = make_hands(max(count, 5), rng, structured, rules)
        plays = sum(len(t) for h in hands for t in h[3])
        per_hand = time_each(hands, judge)
        ref = time_each(hands, bare)
        med = median(per_hand)
        medians[label] = med
        rows.append(
            f"| {label} | {len(hands)} | {plays / len(hands):.0f} | {med * 1e3:.3f} "
            f"| {max(per_hand) * 1e3:.2f} | {1 / med:,.0f} | {med / median(ref):.0f}× |"
        )
        if rules.decks != 2:
            continue
        cases = follow_cases(hands)
        by_kind: dict[str, list[tuple[Order, Lead, list[int], tuple[int, ...], str]]] = {}
        for c in cases:
            by_kind.setdefault(c[4], []).append(c)
        follow_rows.append(f"| {label}, all | {len(cases)} | {follow_rate(cases):,.0f} |")
        for kind in ("s", "p", "run", "throw"):
            if by_kind.get(kind):
                name = {"s": "single", "p": "pair", "run": "tractor/run", "throw": "throw"}[kind]
                follow_rows.append(
                    f"| {label}, {name} led | {len(by_kind[kind])} "
                    f"| {follow_rate(by_kind[kind]):,.0f} |"
                )
    target = 5.0
    worst = medians["2 decks, biggest-unit leads"] * 1e3
    body = f"""## engine

Full rules engine (`shengji`), one core. Command: `{command}` (seed {args.seed}).
Machine: {machine_line()}.

Whole random hands judged with `shengji.playout.judge_hand`: every lead
checked, every throw checked against the other three hands, every follow
checked, every trick's winner and points (≈100 plays with 2 decks). Plays come from random
legal playouts (`random_playout`: 10 % random throws; "biggest-unit leads"
always leads the widest/longest unit held, so pairs and tractors dominate).
Times are per hand, best of 3 runs of each hand, median over the hands of each mix.
The reference is a bare loop over the same plays adding up their points.

| hands | count | plays/hand | median ms/hand | max ms | hands/s | × bare loop |
|---|---|---|---|---|---|---|
{chr(10).join(rows)}

Target: a full 2-deck hand judged in under {target:.0f} ms median — measured
{worst:.2f} ms with 2 decks in the harder mix ({"met" if worst < target else "NOT met"}).

Follow checks (`check_follow_counts` with the trick's `Lead` built once), every
follow of the hands above, best of 5 passes:

| follows | checks | checks/s |
|---|---|---|
{chr(10).join(follow_rows)}
"""
    print(body)
    if not args.no_write:
        write_section("engine", body)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
