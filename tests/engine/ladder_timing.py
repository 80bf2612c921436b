"""Timing of the rules checks on hard inputs (issue 12): not a test, run as

    .venv/bin/python tests/engine/ladder_timing.py [CASES [ROUNDS [STEPS]]]

Prints, for issue 12's example and for CASES random big throws with 3-4 decks
(triples, Titanics, quads, tractors; every option), the time of check_follow,
of trick_winner, of check_throw and of LegalFollows' first 60 candidates:
median and worst (each the median of 3 runs, CPU time), the sweep states a
check visits, and the old search (tests/engine/ladder_reference.py) on the
example in the same run; then ROUNDS hill climbs of STEPS mutations each over
leads and holdings for the checks that visit the most sweep states.
"""

from __future__ import annotations

import itertools
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import ladder_reference as ref  # noqa: E402
from enginehelp import f, order  # noqa: E402
from shengji import Order, Rank, Rules, Suit  # noqa: E402
from shengji.play import (  # noqa: E402
    Lead,
    check_follow_counts,
    check_throw,
    counts,
    legal_follows,
    trick_winner_faces,
)
from shengji.sweep import VISITED  # noqa: E402

REPS = 3


def timed(fn: Callable[..., object], *args: object, reps: int = REPS) -> float:
    """Median of ``reps`` runs of ``fn(*args)`` (every check timed the same
    way), in CPU time of this process: the machine is shared, and wall time
    also counts the other processes' turns."""
    times = []
    for _ in range(reps):
        t = time.process_time()
        fn(*args)
        times.append(time.process_time() - t)
    return statistics.median(times)


def _first60(o: Order, lead: Lead, hand: list[int]) -> list[tuple[int, ...]]:
    return list(itertools.islice(legal_follows(o, lead, hand), 60))


def first60(o: Order, lead: Lead, hand: list[int]) -> float:
    return timed(_first60, o, lead, hand)


def _old_check(o: Order, lead: Lead, held: dict[int, int], pc: dict[int, int]) -> None:
    ref._ladder_vector(o, lead, held)
    ref._ladder_vector(o, lead, pc)


def example() -> None:
    o = order("7", "S", decks=4)
    lead_faces = f("7S 7S 7S 9S 9S 9S JS JS QS QS KS KS KS AS AS AS 7D 7D 7D 7C 7C 7C")
    hand = f("2S 2S 3S 3S 4S 4S 4S 4S 6S 6S 7S 8S 8S 9S TS TS JS JS QS QS KS AS 7D 7C SJ SJ BJ")
    play = f("SJ 2S 9S 7C 3S 7S 6S 4S AS 6S 8S SJ JS 4S 4S 2S QS TS 7D 8S 3S QS")
    lead = Lead(o, lead_faces)
    cnt = counts(hand)
    t_new = timed(check_follow_counts, o, lead, cnt, play, reps=21)
    held = dict(Counter(hand))
    pc = dict(Counter(play))
    t_old = timed(_old_check, o, lead, held, pc, reps=5)
    print(f"example: check_follow {t_new * 1e3:.2f} ms (old search: {t_old * 1e3:.1f} ms, "
          f"x{t_old / t_new:.0f}); LegalFollows first 60: {first60(o, lead, hand) * 1e3:.1f} ms")


def random_case(rng: random.Random) -> tuple[Order, list[int], list[list[int]]]:
    rules = Rules(
        decks=rng.choice([3, 4]),
        permanent_twos=rng.random() < 0.3,
        same_shape_only=rng.random() < 0.2,
    )
    o = Order(rules, Rank(rng.randrange(13)), rng.choice([None, *Suit]))
    deck = [x for x in range(54) for _ in range(rules.decks)]
    rng.shuffle(deck)
    es = 4  # trump: the longest suit, the most positions and faces at one position
    suit = [x for x in deck if o.esuit[x] == es]
    # the leader's trumps: as wide as the deck allows
    by_face = Counter(suit)
    faces = [x for x in by_face]
    rng.shuffle(faces)
    lead: list[int] = []
    size = rng.randint(10, 26)
    for x in faces:
        w = rng.choice([1, 2, 3, 3, 4][: rules.decks + 1])
        w = min(w, by_face[x])
        lead += [x] * w
        by_face[x] -= w
        if len(lead) >= size:
            break
    rest = [x for x, c in by_face.items() for _ in range(c)]
    rng.shuffle(rest)
    others = [x for x in deck if o.esuit[x] != es]
    hands = []
    for _seat in range(3):
        # each follower's trumps drawn from what the lead left (independently:
        # the seats need not be one deal for timing the checks)
        k = rng.randint(min(len(rest), len(lead) + 1), min(len(rest), len(lead) + 16, 50))
        hands.append(rng.sample(rest, k) + others[:2])
        others = others[2:]
    return o, lead, hands


def random_throws(cases: int) -> None:
    rng = random.Random(2026)
    checks: list[float] = []
    tricks: list[float] = []
    throws: list[float] = []
    lf: list[float] = []
    states: list[int] = []
    worst = None
    for _ in range(cases):
        o, lead_faces, hands = random_case(rng)
        lead = Lead(o, lead_faces)
        plays = [lead_faces]
        for h in hands:
            cnt = counts(h)
            suit = [x for x in h if o.esuit[x] == lead.esuit]
            play = rng.sample(suit, lead.size) if len(suit) >= lead.size else suit
            before = VISITED[0]
            t = timed(check_follow_counts, o, lead, cnt, play)
            states.append((VISITED[0] - before) // REPS)
            checks.append(t)
            if worst is None or t > worst[0]:
                worst = (t, lead_faces, h, play, o)
            lf.append(first60(o, lead, h))
            plays.append(play)
        if all(len(p) == lead.size for p in plays):
            tricks.append(timed(trick_winner_faces, o, lead, plays))
        throws.append(timed(check_throw, o, 0, lead_faces, [[], *hands]))

    def line(name: str, xs: list[float]) -> str:
        return (f"{name}: median {statistics.median(xs) * 1e3:.3f} ms, "
                f"worst {max(xs) * 1e3:.3f} ms over {len(xs)}")

    print(f"{cases} random 3-4 deck trump throws of 10-26 cards:")
    print("  " + line("check_follow", checks))
    print("  " + line("trick_winner (4 plays)", tricks))
    print("  " + line("check_throw", throws))
    print("  " + line("LegalFollows first 60", lf))
    print(f"  sweep states per check: median {statistics.median(states):.0f}, most {max(states)}")
    assert worst is not None
    print(f"  slowest check: {worst[4]!r} lead {sorted(worst[1])} hand {sorted(worst[2])} play {sorted(worst[3])}")


def work(o: Order, lead: Lead, hand: list[int], play: list[int]) -> int:
    """Sweep states a follow check visits (deterministic, unlike time)."""
    before = VISITED[0]
    check_follow_counts(o, lead, counts(hand), play)
    return VISITED[0] - before


def _score(o: Order, lf: list[int], h: list[int]) -> tuple[int, list[int]]:
    """The work of a check of the weakest trumps of ``h`` against lead ``lf``."""
    lead = Lead(o, lf)
    suit = [x for x in h if o.esuit[x] == 4]
    play = sorted(suit, key=lambda x: o.pos[x])[: lead.size]
    return work(o, lead, h, play), play


def hill_climb(rounds: int, steps: int) -> None:
    """Search for the checks that visit the most sweep states: mutate the lead,
    the holding and the play a card at a time, keep what does not lower it."""
    rng = random.Random(99)
    best_overall = (0, 0.0, "")
    for _ in range(rounds):
        o, lead_faces, hands = random_case(rng)
        hand = hands[0]
        suit_faces = o.suit_faces[4]
        decks = o.rules.decks

        cur, _ = _score(o, lead_faces, hand)
        for _ in range(steps):
            lf, h = list(lead_faces), list(hand)
            target = lf if rng.random() < 0.5 else h
            if target and rng.random() < 0.5:
                target.remove(rng.choice(target))
            else:
                x = rng.choice(suit_faces)
                if target.count(x) < decks and lf.count(x) + h.count(x) < decks:
                    target.append(x)
            if not lf or len([x for x in h if o.esuit[x] == 4]) <= len(lf):
                continue
            val, _ = _score(o, lf, h)
            if val >= cur:
                cur, lead_faces, hand = val, lf, h
        lead = Lead(o, lead_faces)
        _val, play = _score(o, lead_faces, hand)
        t = timed(check_follow_counts, o, lead, counts(hand), play, reps=5)
        if cur > best_overall[0]:
            best_overall = (cur, t, f"{o!r} lead {sorted(lead_faces)} hand {sorted(hand)}")
    print(f"hill climb ({rounds} x {steps} steps) on sweep states: most {best_overall[0]} "
          f"states in one check, {best_overall[1] * 1e3:.2f} ms: {best_overall[2]}")


if __name__ == "__main__":
    example()
    random_throws(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
    hill_climb(int(sys.argv[2]) if len(sys.argv) > 2 else 10, int(sys.argv[3]) if len(sys.argv) > 3 else 150)
