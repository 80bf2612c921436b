"""A hand-made one-deck hand whose every trick is easy to follow by eye.

Each seat holds three cards of every suit: seat 0 the A, T, 6; seat 1 the K, 9,
5; seat 2 the Q, 8, 4; seat 3 the J, 7, 3. The kitty is the four 2s and both
jokers (level 2, no bid: NT). Seat 0 deals, buries the kitty as dealt and leads
every trick with the top card left in a suit; everybody follows suit, so seat 0
wins all twelve tricks. Tests change a trick or two of this script.
"""

from __future__ import annotations

from shengji.cards import parse_face
from shengji.hand import Bury, Deal, EndDraw, Event, Hand, Play
from shengji.rules import Rules

RANKS = {0: "AT6", 1: "K95", 2: "Q84", 3: "J73"}
KITTY = [parse_face(x) for x in "2S 2H 2D 2C SJ BJ".split()]


def c(text: str) -> int:
    """One card id (one deck: the face)."""
    return parse_face(text)


def deal() -> Deal:
    hands = [[c(r + s) for s in "SHDC" for r in RANKS[seat]] for seat in range(4)]
    return Deal.of(hands, KITTY)


def tricks() -> list[list[int]]:
    """The twelve tricks, each the cards of seats 0, 1, 2, 3 in order."""
    out = []
    for s in "SHDC":
        for i in range(3):
            out.append([c(RANKS[seat][i] + s) for seat in range(4)])
    return out


def rules(**options: object) -> Rules:
    return Rules(decks=1).replace(**options) if options else Rules(decks=1)


def new_hand(*, known: bool, **options: object) -> Hand:
    h = Hand(rules(**options), level=0, dealer=0, first_hand=False)
    if known:
        h.apply(deal())
    h.apply(EndDraw())
    h.apply(Bury(tuple(KITTY) if known else ()))
    return h


def play_events(script: list[list[int]]) -> list[Event]:
    return [Play(seat, (card,)) for trick in script for seat, card in enumerate(trick)]
