"""Whole hands of card play on faces: judging a recorded hand, random playouts.

:func:`judge_hand` checks every play of a hand whose four hands are known
(every lead, every throw against the other hands at that moment, every follow)
and finds each trick's winner and points: the inner loop of a verifier or an
end-of-hand audit, and what ``bench/bench_engine.py`` times.

:func:`deal` and :func:`random_playout` make random hands and random legal
play for tests and benchmarks (they are not bots: no strategy at all);
``deal(rules, rng).faces()`` is the deal as the face functions take it.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence

from .cards import FACES, face_counts
from .hand import Deal
from .order import Order
from .play import (
    Lead,
    LegalFollows,
    ThrowResult,
    Verdict,
    check_follow_counts,
    check_lead_counts,
    check_throw,
    single_unit_leads,
    trick_winner_faces,
)
from .rules import Rules
from .units import decompose_faces

__all__ = [
    "HandJudgement",
    "TrickJudgement",
    "deal",
    "judge_hand",
    "random_follow",
    "random_playout",
]


def deal(rules: Rules, rng: random.Random) -> Deal:
    """A random deal: four hands and the kitty, card ids (sorted), the same
    shape as :func:`shengji.match.deal_cards`; ``deal(...).faces()`` gives
    them as faces. Its own shuffle: the seeded tests and benchmarks get the
    hands they always had (the faces of the same seed are the same)."""
    ids = [copy * FACES + f for f in range(FACES) for copy in range(rules.decks)]
    rng.shuffle(ids)
    n = rules.hand_size
    return Deal(tuple(tuple(sorted(ids[i * n : (i + 1) * n])) for i in range(4)), tuple(sorted(ids[4 * n :])))


@dataclasses.dataclass(frozen=True, slots=True)
class TrickJudgement:
    """One trick: who led, the plays (seat order from the leader), the
    throw's outcome if the lead was a throw, each illegal play, the winner."""

    leader: int
    plays: tuple[tuple[int, ...], ...]
    throw: ThrowResult | None
    faults: tuple[tuple[int, Verdict], ...]
    winner: int
    points: int


@dataclasses.dataclass(frozen=True, slots=True)
class HandJudgement:
    tricks: tuple[TrickJudgement, ...]
    #: points taken by side 0 (seats 0, 2) and side 1 (seats 1, 3)
    side_points: tuple[int, int]

    @property
    def faults(self) -> list[tuple[int, int, Verdict]]:
        """``(trick index, seat, verdict)`` of every illegal play or failed throw."""
        out = []
        for i, t in enumerate(self.tricks):
            for seat, v in t.faults:
                out.append((i, seat, v))
        return out


def judge_hand(
    order: Order,
    hands: Sequence[Sequence[int]],
    leader: int,
    tricks: Sequence[Sequence[Sequence[int]]],
) -> HandJudgement:
    """Check every play of a hand and score it.

    ``hands``: each seat's faces at the start of play; ``tricks``: for each
    trick the four plays in play order starting from that trick's leader
    (the first trick's leader is ``leader``; later ones are the winners).
    A throw that should have failed and each illegal follow are reported as
    faults; play goes on with the cards as played (as the table does when
    nobody challenges).
    """
    held = [face_counts(h) for h in hands]
    side = [0, 0]
    out: list[TrickJudgement] = []
    for plays in tricks:
        faults: list[tuple[int, Verdict]] = []
        lead_faces = list(plays[0])
        v = check_lead_counts(order, held[leader], lead_faces)
        throw: ThrowResult | None = None
        if not v.legal:
            raise ValueError(f"trick {len(out) + 1}: seat {leader} cannot lead this: {v.message}")
        lead = Lead(order, lead_faces)
        if lead.decomposition.is_throw:
            throw = check_throw(order, leader, lead_faces, held)
            if not throw.ok:
                faults.append((leader, throw.verdict))
        for i in range(1, 4):
            seat = (leader + i) % 4
            fv = check_follow_counts(order, lead, held[seat], plays[i])
            if not fv.legal:
                faults.append((seat, fv))
        result = trick_winner_faces(order, lead, plays, leader)
        for i in range(4):
            h = held[(leader + i) % 4]
            for f in plays[i]:
                h[f] -= 1
        side[result.winner & 1] += result.points
        out.append(
            TrickJudgement(
                leader,
                tuple(tuple(p) for p in plays),
                throw,
                tuple(faults),
                result.winner,
                result.points,
            )
        )
        leader = result.winner
    return HandJudgement(tuple(out), (side[0], side[1]))


def random_follow(order: Order, lead: Lead, hand: list[int], rng: random.Random) -> tuple[int, ...]:
    """A random legal follow: random draws checked by the rules, else the
    first legal follow generated."""
    n = lead.size
    s = lead.esuit
    esuit = order.esuit
    suit_cards = [f for f in order.suit_faces[s] for _ in range(hand[f])]
    other = [f for f in range(FACES) if esuit[f] != s for _ in range(hand[f])]
    take = min(n, len(suit_cards))
    for _ in range(4):
        play = rng.sample(suit_cards, take) + rng.sample(other, n - take)
        if check_follow_counts(order, lead, hand, play).legal:
            return tuple(play)
    first = LegalFollows(order, lead, hand).first()
    if first is None:
        raise ValueError("no legal follow: the hand has too few cards")
    return first


def random_playout(
    order: Order,
    hands: Sequence[Sequence[int]],
    leader: int,
    rng: random.Random,
    throw_rate: float = 0.1,
    structured: float = 0.0,
) -> list[list[tuple[int, ...]]]:
    """Random legal play of a whole hand: single-unit leads (now and then a
    random throw, replaced by its forced unit when it fails) and random legal
    follows. With probability ``structured`` a lead is one of the biggest
    units the hand holds (tractors and pairs: the follows that cost most to
    check). Returns the tricks, each as four plays from its leader."""
    held = [face_counts(h) for h in hands]
    tricks: list[list[tuple[int, ...]]] = []
    while any(held[leader]):
        hand = held[leader]
        lead_faces: tuple[int, ...]
        if rng.random() < throw_rate:
            suits = sorted({order.esuit[f] for f in range(FACES) if hand[f]})
            s = rng.choice(suits)
            cards = [f for f in order.suit_faces[s] for _ in range(hand[f])]
            lead_faces = tuple(rng.sample(cards, rng.randint(1, min(6, len(cards)))))
            d = decompose_faces(order, lead_faces)
            assert d is not None
            if d.is_throw:
                r = check_throw(order, leader, lead_faces, held)
                lead_faces = r.play
        else:
            options = list(single_unit_leads(order, hand))
            if rng.random() < structured:
                # the biggest unit the hand holds (tractors, pairs): hard follows
                size = max(len(o) for o in options)
                options = [o for o in options if len(o) == size]
            lead_faces = rng.choice(options)
        lead = Lead(order, lead_faces)
        plays = [lead_faces]
        for i in range(1, 4):
            plays.append(random_follow(order, lead, held[(leader + i) % 4], rng))
        result = trick_winner_faces(order, lead, plays, leader)
        for i in range(4):
            h = held[(leader + i) % 4]
            for f in plays[i]:
                h[f] -= 1
        tricks.append(plays)
        leader = result.winner
    return tricks
