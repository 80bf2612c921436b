"""Small helpers shared by the engine tests (tests/engine)."""

from __future__ import annotations

from shengji import Order, Rank, Rules, Suit, parse_faces


def order(level: str = "T", trump: str = "S", decks: int = 2, **options: object) -> Order:
    """The card order of a hand: ``order("5", "H", decks=3, permanent_twos=True)``."""
    rules = Rules.from_dict({"decks": decks, **options})
    return Order(rules, Rank.parse(level), None if trump == "NT" else Suit.parse(trump))


def f(text: str) -> list[int]:
    """Faces of a card string."""
    return parse_faces(text)
