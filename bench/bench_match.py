"""Benchmark "match": bot hands simulated per second (2 decks), by bot strength.

Each figure is the median of several repeats of a fixed set of seeded hands.
The reference, measured in the same run, is replaying the very same hands'
events into a fresh hand state (the rules engine without any bot), so the ratio
says what the bots' thinking costs on top of the state machine. A second
table gives the paired strength comparison: the same deals played twice with
the sides' strengths swapped; the figure is the mean drop of the attackers'
score when the stronger bots defend.

    .venv/bin/python bench/bench_match.py [--hands N] [--repeats R]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from shengji.hand import Hand
from shengji.match import make_bots, play_hand
from shengji.rules import Rules
from tractor_table.perfdoc import machine_line, median, write_section


def hands_per_second(rules: Rules, strength: int, seeds: list[int]) -> tuple[float, list[Hand]]:
    t0 = time.perf_counter()
    hands = []
    for seed in seeds:
        hands.append(
            play_hand(rules, make_bots(strength, seed), random.Random(seed), dealer=seed % 4, first_hand=False)
        )
    return len(seeds) / (time.perf_counter() - t0), hands


def replay_per_second(hands: list[Hand]) -> float:
    t0 = time.perf_counter()
    for h in hands:
        r = Hand(h.rules, level=h.level, dealer=h.dealer, first_hand=False, strict=True)
        for e in h.events:
            r.apply(e)
    return len(hands) / (time.perf_counter() - t0)


def strength_gap(strong: int, weak: int, seeds: list[int]) -> tuple[float, float]:
    rules = Rules()
    diffs = []
    for seed in seeds:
        scores = []
        for s in ((strong, weak, strong, weak), (weak, strong, weak, strong)):
            from shengji.bots import Bot

            bots = [Bot(i, s[i], seed=seed * 4 + i) for i in range(4)]
            h = play_hand(rules, bots, random.Random(seed), level=seed % 13, dealer=0, first_hand=False)
            scores.append(h.result().score)
        diffs.append(scores[1] - scores[0])
    return statistics.mean(diffs), statistics.stdev(diffs) / len(diffs) ** 0.5


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hands", type=int, default=20)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--pairs", type=int, default=60, help="deals for the strength comparison")
    args = p.parse_args(argv[1:])
    rules = Rules()
    seeds = list(range(args.hands))
    rows = []
    for strength, name in enumerate(("random", "basic", "good")):
        rates, refs = [], []
        for _ in range(args.repeats):
            rate, hands = hands_per_second(rules, strength, seeds)
            rates.append(rate)
            refs.append(replay_per_second(hands))
        rows.append((name, median(rates), median(refs)))
        print(f"{name}: {median(rates):.1f} hands/s (replay {median(refs):.1f})", file=sys.stderr)
    gaps = [
        ("good vs basic", *strength_gap(2, 1, list(range(args.pairs)))),
        ("basic vs random", *strength_gap(1, 0, list(range(args.pairs)))),
    ]
    cmd = f"`.venv/bin/python bench/bench_match.py --hands {args.hands} --repeats {args.repeats} --pairs {args.pairs}`"
    lines = [
        "## Match: bot hands simulated per second (2 decks)",
        "",
        f"Command: {cmd}  ",
        f"Machine: {machine_line()}",
        "",
        f"{args.hands} seeded hands (deal, bids, burial and every play) per run, "
        f"median of {args.repeats} runs. Reference: replaying the same hands' events "
        "into a fresh `Hand` (state machine and rule checks, no bot), same run.",
        "",
        "| bots | hands/s | replay hands/s (reference) | bot hand / replay time |",
        "|---|---:|---:|---:|",
    ]
    for name, rate, ref in rows:
        lines.append(f"| {name} | {rate:.1f} | {ref:.1f} | {ref / rate:.2f}× |")
    lines += [
        "",
        f"Strength, paired over {args.pairs} deals (each played twice, the sides' strengths "
        "swapped; dealer seat 0): how many points the attackers lose on average when the "
        "stronger bots defend (mean ± standard error).",
        "",
        "| pairing | attackers' score drop |",
        "|---|---:|",
    ]
    for name, mean, se in gaps:
        lines.append(f"| {name} | {mean:.1f} ± {se:.1f} |")
    write_section("match", "\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
