"""The card order of one hand: level, trump suit, effective suits, positions.

docs/rules.md §2. A hand is played at a level ``L`` with a trump suit ``T`` (or no
trump, ``NT``). Every face gets an **effective suit** (``TRUMP`` = 4 for trump
cards, else its own suit 0-3) and a **position** inside that effective suit,
0 for the lowest, counting up by one per step of §2's order. Faces at the same
position are equally strong (the off-suit level cards, the off-suit twos with
``permanent_twos``); *consecutive* in §3 means positions differing by one.

:class:`Order` precomputes all of it as plain tuples, so every later question
(``is this a tractor?``, ``who wins?``) is table look-ups on small ints.
The per-hand context of the engine is this object: ``Rules`` (options that
hold for a whole match) plus ``level`` and ``trump``.
"""

from __future__ import annotations

from typing import Final

from .cards import BIG_JOKER, FACES, SMALL_JOKER, Card, Rank, Suit
from .rules import Rules

__all__ = ["SUIT_NAMES", "TRUMP", "Order"]

#: Effective suit of trump cards (plain suits keep 0-3).
TRUMP: Final = 4
#: Names of the effective suits as in the conformance cases.
SUIT_NAMES: Final = ("S", "H", "D", "C", "trump")


class Order:
    """The order of the cards for one hand (docs/rules.md §2).

    >>> from shengji import Rules, Rank, Suit, Card
    >>> o = Order(Rules(), Rank.TEN, Suit.SPADES)
    >>> o.compare(Card.parse("TS"), Card.parse("TH"))
    1
    >>> o.compare(Card.parse("AH"), Card.parse("2D")) is None
    True
    """

    __slots__ = (
        "rules",
        "level",
        "trump",
        "esuit",
        "pos",
        "npos",
        "faces_at",
        "suit_faces",
        "is_trump_face",
    )

    rules: Rules
    level: Rank
    trump: Suit | None
    #: Effective suit of each face (0-3, or TRUMP).
    esuit: tuple[int, ...]
    #: Position of each face within its effective suit (0 = lowest).
    pos: tuple[int, ...]
    #: Number of positions of each effective suit.
    npos: tuple[int, ...]
    #: ``faces_at[esuit][pos]``: the faces at that position.
    faces_at: tuple[tuple[tuple[int, ...], ...], ...]
    #: Faces of each effective suit, lowest position first.
    suit_faces: tuple[tuple[int, ...], ...]
    is_trump_face: tuple[bool, ...]

    def __init__(self, rules: Rules, level: Rank, trump: Suit | None) -> None:
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a Rules, not {type(rules).__name__}")
        level = Rank(level)
        trump = None if trump is None else Suit(trump)
        self.rules = rules
        self.level = level
        self.trump = trump
        twos = rules.permanent_twos and level != Rank.TWO
        groups: list[list[list[int]]] = [[] for _ in range(5)]
        for s in Suit:
            if s == trump:
                continue
            for r in Rank:
                if r == level or (twos and r == Rank.TWO):
                    continue
                groups[s].append([s * 13 + r])
        trump_groups = groups[TRUMP]
        if trump is not None:
            for r in Rank:
                if r == level or (twos and r == Rank.TWO):
                    continue
                trump_groups.append([trump * 13 + r])
        others = [s for s in Suit if s != trump]
        if twos:
            trump_groups.append([s * 13 + Rank.TWO for s in others])
            if trump is not None:
                trump_groups.append([trump * 13 + Rank.TWO])
        trump_groups.append([s * 13 + level for s in others])
        if trump is not None:
            trump_groups.append([trump * 13 + level])
        trump_groups.append([SMALL_JOKER])
        trump_groups.append([BIG_JOKER])
        esuit = [0] * FACES
        pos = [0] * FACES
        for es, glist in enumerate(groups):
            for p, faces in enumerate(glist):
                for f in faces:
                    esuit[f] = es
                    pos[f] = p
        self.esuit = tuple(esuit)
        self.pos = tuple(pos)
        self.npos = tuple(len(g) for g in groups)
        self.faces_at = tuple(tuple(tuple(fs) for fs in g) for g in groups)
        self.suit_faces = tuple(tuple(f for fs in g for f in fs) for g in groups)
        self.is_trump_face = tuple(e == TRUMP for e in esuit)

    # --- questions about single cards -------------------------------------

    def effective_suit(self, card: Card | int) -> int:
        """0-3 for a plain suit, :data:`TRUMP` for a trump card (ints are faces)."""
        return self.esuit[_face(card)]

    def is_trump(self, card: Card | int) -> bool:
        return self.is_trump_face[_face(card)]

    def position(self, card: Card | int) -> int:
        """The position within the effective suit, 0 for the lowest."""
        return self.pos[_face(card)]

    def compare(self, a: Card | int, b: Card | int) -> int | None:
        """1 if ``a`` is stronger, 0 if equal, -1 if weaker; ``None`` when the
        two are of different non-trump suits (neither beats the other)."""
        fa, fb = _face(a), _face(b)
        ea, eb = self.esuit[fa], self.esuit[fb]
        if ea != eb:
            if ea == TRUMP:
                return 1
            if eb == TRUMP:
                return -1
            return None
        pa, pb = self.pos[fa], self.pos[fb]
        return (pa > pb) - (pa < pb)

    def sort_key(self, card: Card | int) -> tuple[int, int, int]:
        """A key that sorts cards for display: by effective suit, then strength."""
        f = _face(card)
        return (self.esuit[f], self.pos[f], f)

    def __repr__(self) -> str:
        trump = "None" if self.trump is None else repr(self.trump)
        return f"Order({self.rules!r}, {self.level!r}, {trump})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Order):
            return NotImplemented
        return (self.rules, self.level, self.trump) == (other.rules, other.level, other.trump)

    def __hash__(self) -> int:
        return hash((self.rules, self.level, self.trump))


def _face(card: Card | int) -> int:
    return card if isinstance(card, int) else card.face
