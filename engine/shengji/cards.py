"""Cards, faces and the card notation (docs/rules.md §1).

A *face* is what is printed on a card: ``face = suit * 13 + rank`` for the
suits S=0 H=1 D=2 C=3 and ranks 2=0 … A=12, then ``SJ`` (small joker) = 52 and
``BJ`` (big joker) = 53. A *card* is one physical card: with several decks
there are several copies of each face, ``card id = copy * 54 + face``
(docs/rules.md §1: ids ``0 … 54 * decks - 1``). Two copies of ``5H`` are
different cards with equal faces: ``Card.parse("5H") != Card.parse("5H", copy=1)``
but their ``face`` is the same.

Notation (docs/rules.md, at its top): rank then suit, ``A K Q J T 9 … 2`` (``T`` = ten, ``10``
accepted), suits ``S H D C``; jokers ``SJ`` and ``BJ``. The parser also takes
suit symbols on either side (``♠A``, ``A♠``, ``10♥``), any letter case, and
``小王``/``大王`` for the jokers. Printing always gives the canonical form
(``AS``); a :class:`Card` prints its copy too (``AS.1``: the second deck's
ace of spades), so ``Card.parse(str(c)) == c``.

Engine internals work on faces (small ints) and count arrays for speed; a
:class:`Card` is the value object of the API (ids, notation, ``repr``).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import ClassVar, Final

__all__ = [
    "BIG_JOKER",
    "FACES",
    "MAX_DECKS",
    "POINTS",
    "SMALL_JOKER",
    "Card",
    "CardCountError",
    "CardNotationError",
    "InvalidCardError",
    "Rank",
    "Suit",
    "card_id_name",
    "face_name",
    "face_counts",
    "face_name_zh",
    "face_points",
    "face_rank",
    "face_suit",
    "format_cards",
    "format_faces",
    "parse_card",
    "parse_card_id",
    "parse_cards",
    "parse_face",
    "parse_faces",
]

#: Faces per deck (52 + two jokers).
FACES: Final = 54
#: Face number of the small joker (小王) and the big joker (大王).
SMALL_JOKER: Final = 52
BIG_JOKER: Final = 53
#: Most decks any rule allows.
MAX_DECKS: Final = 4


class Suit(enum.IntEnum):
    """The four suits, numbered as in the card ids (S=0 H=1 D=2 C=3)."""

    SPADES = 0
    HEARTS = 1
    DIAMONDS = 2
    CLUBS = 3

    @property
    def letter(self) -> str:
        """``S``, ``H``, ``D`` or ``C``."""
        return "SHDC"[self]

    @property
    def symbol(self) -> str:
        """``♠``, ``♥``, ``♦`` or ``♣``."""
        return "♠♥♦♣"[self]

    @classmethod
    def parse(cls, text: str) -> Suit:
        """A suit from its letter or symbol, any case: ``Suit.parse("h") is Suit.HEARTS``."""
        try:
            return cls(_SUIT_TOKENS[text.strip().upper()])
        except KeyError:
            raise CardNotationError(text, "not a suit; use S H D C or ♠ ♥ ♦ ♣") from None

    def __repr__(self) -> str:
        return f"Suit.{self.name}"


class Rank(enum.IntEnum):
    """The thirteen ranks, numbered as in the card ids (2=0 … A=12)."""

    TWO = 0
    THREE = 1
    FOUR = 2
    FIVE = 3
    SIX = 4
    SEVEN = 5
    EIGHT = 6
    NINE = 7
    TEN = 8
    JACK = 9
    QUEEN = 10
    KING = 11
    ACE = 12

    @property
    def letter(self) -> str:
        """``2`` … ``9``, ``T``, ``J``, ``Q``, ``K``, ``A``."""
        return _RANK_LETTERS[self]

    @classmethod
    def parse(cls, text: str) -> Rank:
        """A rank from ``2``…``9``, ``T``/``10``, ``J``, ``Q``, ``K``, ``A`` (any case)."""
        try:
            return cls(_RANK_TOKENS[text.strip().upper()])
        except KeyError:
            raise CardNotationError(text, "not a rank; use 2-9, T (or 10), J, Q, K, A") from None

    def __repr__(self) -> str:
        return f"Rank.{self.name}"


_RANK_LETTERS: Final = "23456789TJQKA"
_RANK_TOKENS: Final[dict[str, int]] = {c: i for i, c in enumerate(_RANK_LETTERS)} | {"10": 8}
_SUIT_TOKENS: Final[dict[str, int]] = {
    "S": 0, "H": 1, "D": 2, "C": 3,
    "♠": 0, "♥": 1, "♦": 2, "♣": 3,
    "♤": 0, "♡": 1, "♢": 2, "♧": 3,
}  # fmt: skip
_SUIT_SYMBOLS: Final = "♠♥♦♣♤♡♢♧"
#: Chinese suit names (suit first: 红桃A, 黑桃10); 方片 and 草花 are other names in use
_SUIT_ZH: Final[dict[str, int]] = {"黑桃": 0, "红桃": 1, "方块": 2, "梅花": 3, "方片": 2, "草花": 3}
_SUIT_ZH_NAMES: Final = ("黑桃", "红桃", "方块", "梅花")
_JOKER_ZH_NAMES: Final = ("小王", "大王")
_JOKER_TOKENS: Final[dict[str, int]] = {
    "SJ": SMALL_JOKER, "BJ": BIG_JOKER, "小王": SMALL_JOKER, "大王": BIG_JOKER,
}  # fmt: skip


class InvalidCardError(ValueError):
    """Base of the card errors; ``token`` is the text that was wrong."""

    def __init__(self, token: str, why: str) -> None:
        super().__init__(f"{token!r}: {why}")
        self.token = token
        self.why = why


class CardNotationError(InvalidCardError):
    """A token that is not a card in any accepted notation."""


class CardCountError(InvalidCardError):
    """More copies of a face than the decks in play hold, or a bad card id."""


def _face_table() -> tuple[str, ...]:
    names = [r + s for s in "SHDC" for r in _RANK_LETTERS]
    return (*names, "SJ", "BJ")


_FACE_NAMES: Final = _face_table()
_FACE_BY_NAME: Final[dict[str, int]] = {n: i for i, n in enumerate(_FACE_NAMES)}


def face_name(face: int) -> str:
    """The canonical notation of a face: ``face_name(12) == "AS"``."""
    return _FACE_NAMES[face]


def face_suit(face: int) -> Suit | None:
    """The printed suit of a face (``None`` for a joker)."""
    return None if face >= SMALL_JOKER else Suit(face // 13)


def face_rank(face: int) -> Rank | None:
    """The printed rank of a face (``None`` for a joker)."""
    return None if face >= SMALL_JOKER else Rank(face % 13)


#: Points of each face: 5 = 5, T = 10, K = 10 (docs/rules.md §1).
POINTS: Final[tuple[int, ...]] = tuple(
    (5 if f % 13 == 3 else 10 if f % 13 in (8, 11) else 0) if f < 52 else 0 for f in range(FACES)
)


def face_points(face: int) -> int:
    """Points a face is worth: 5 for a five, 10 for a ten or a king, else 0."""
    return POINTS[face]


def face_counts(faces: Iterable[int]) -> list[int]:
    """The count array of some faces: 54 ints, how many of each face.

    >>> face_counts([12, 12, 53])[12], face_counts([12, 12, 53])[53], len(face_counts([]))
    (2, 1, 54)
    """
    out = [0] * FACES
    for f in faces:
        out[f] += 1
    return out


def parse_face(token: str) -> int:
    """The face of one card token, in any accepted notation.

    >>> parse_face("AS"), parse_face("10♥"), parse_face("♠a"), parse_face("bj")
    (12, 21, 12, 53)
    >>> parse_face("红桃A"), parse_face("黑桃10"), parse_face("大王"), parse_face("小王")
    (25, 8, 53, 52)
    """
    raw = token
    text = token.strip().upper()
    if not text:
        raise CardNotationError(raw, "empty card")
    face = _FACE_BY_NAME.get(text)
    if face is not None:
        return face
    joker = _JOKER_TOKENS.get(text)
    if joker is not None:
        return joker
    if text[:2] in _SUIT_ZH:
        rank = _RANK_TOKENS.get(text[2:])
        if rank is None:
            raise CardNotationError(raw, f"{text[2:]!r} is not a rank; write e.g. '红桃A', '黑桃10'")
        return _SUIT_ZH[text[:2]] * 13 + rank
    if text[0] in _SUIT_SYMBOLS:
        suit_txt, rank_txt = text[0], text[1:]
    elif text[-1] in _SUIT_SYMBOLS or text[-1] in "SHDC":
        suit_txt, rank_txt = text[-1], text[:-1]
    elif text[0] in "SHDC" and text[1:] in _RANK_TOKENS:
        raise CardNotationError(raw, "rank comes first: write e.g. 'AS' (or '♠A' with a symbol)")
    else:
        raise CardNotationError(
            raw, "not a card; write rank then suit, e.g. 'AS', 'TH', '10♥', 'SJ'"
        )
    rank = _RANK_TOKENS.get(rank_txt)
    if rank is None:
        raise CardNotationError(raw, f"{rank_txt!r} is not a rank; use 2-9, T (or 10), J, Q, K, A")
    return _SUIT_TOKENS[suit_txt] * 13 + rank


def face_name_zh(face: int) -> str:
    """The face's Chinese name: 红桃A, 黑桃10, 小王, 大王."""
    if face >= 52:
        return _JOKER_ZH_NAMES[face - 52]
    rank = _RANK_LETTERS[face % 13]
    return _SUIT_ZH_NAMES[face // 13] + ("10" if rank == "T" else rank)


def card_id_name(card_id: int, lang: str = "en") -> str:
    """The one notation of a physical card: its face, then the copy after a
    dot when it is not the first deck's: ``AS`` (id 12), ``AS.1`` (id 66),
    ``红桃A.1`` with ``lang="zh"``. :func:`parse_card_id` reads it back."""
    face, copy = card_id % FACES, card_id // FACES
    name = face_name_zh(face) if lang == "zh" else _FACE_NAMES[face]
    return name if copy == 0 else f"{name}.{copy}"


def parse_card_id(token: str, decks: int = MAX_DECKS) -> int:
    """A card id from :func:`card_id_name`'s notation (any face notation,
    Chinese too): ``AS`` is 12, ``AS.1`` 66; the copy is 0 to ``decks - 1``."""
    name, dot, copy_text = token.strip().partition(".")
    if "#" in name:
        raise CardNotationError(token, "the copy goes after a dot: write e.g. 'AS.1' for the second deck's")
    face = parse_face(name)
    if not dot:
        return face
    if not copy_text.isdigit() or int(copy_text) >= decks:
        last = f"0-{decks - 1}" if decks > 1 else "0"
        raise CardCountError(
            token, f"the copy after the dot is the deck, {last} with {decks} deck(s) (0 is the first)"
        )
    return int(copy_text) * FACES + face


def _tokens(text: str) -> list[str]:
    return text.replace(",", " ").split()


def parse_faces(text: str | Iterable[str]) -> list[int]:
    """The faces of a space (or comma) separated list of cards, in order."""
    tokens = _tokens(text) if isinstance(text, str) else list(text)
    return [parse_face(t) for t in tokens]


def format_faces(faces: Iterable[int]) -> str:
    """Faces in canonical notation, space separated, in the order given."""
    return " ".join(_FACE_NAMES[f] for f in faces)


class Card:
    """One physical card: a face and the copy (deck) it comes from.

    Cards are immutable and interned (``Card(5) is Card(5)``); equality and
    hashing go by the card id, so two copies of ``5H`` are different cards.
    ``str`` is :func:`card_id_name`'s notation, the copy after a dot when it is
    not the first deck's, and :meth:`parse` reads it back:
    ``Card.parse(str(c)) == c`` for every card.

    >>> c = Card.parse("10♥", copy=1)
    >>> c, str(c), c.id, c.face, c.points
    (Card.parse('TH', copy=1), 'TH.1', 75, 21, 10)
    >>> Card.parse(str(c)) is c, str(Card.parse("AS")), c.notation()
    (True, 'AS', 'TH')
    """

    __slots__ = ("id", "face", "copy")
    id: int
    face: int
    copy: int

    _interned: ClassVar[dict[int, Card]] = {}

    def __new__(cls, card_id: int) -> Card:
        card = cls._interned.get(card_id)
        if card is not None:
            return card
        if not isinstance(card_id, int) or isinstance(card_id, bool):
            raise CardCountError(repr(card_id), "a card id is an int")
        if not 0 <= card_id < FACES * MAX_DECKS:
            raise CardCountError(str(card_id), f"card ids run from 0 to {FACES * MAX_DECKS - 1}")
        card = object.__new__(cls)
        object.__setattr__(card, "id", card_id)
        object.__setattr__(card, "face", card_id % FACES)
        object.__setattr__(card, "copy", card_id // FACES)
        cls._interned[card_id] = card
        return card

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    def __reduce__(self) -> tuple[type[Card], tuple[int]]:
        return (Card, (self.id,))

    @classmethod
    def from_face(cls, face: int, copy: int = 0) -> Card:
        """The card of ``face`` from deck ``copy``."""
        if not 0 <= face < FACES:
            raise CardCountError(str(face), f"faces run from 0 to {FACES - 1}")
        if not 0 <= copy < MAX_DECKS:
            raise CardCountError(str(copy), f"copies run from 0 to {MAX_DECKS - 1}")
        return cls(copy * FACES + face)

    @classmethod
    def parse(cls, token: str, copy: int | None = None) -> Card:
        """One card from its notation (see :func:`parse_face`), the copy after a
        dot as ``str`` writes it (``AS.1``: the second deck's) or given as
        ``copy`` (0, the first deck's, when neither says)."""
        _name, dot, copy_text = token.partition(".")
        if not dot:
            return cls.from_face(parse_face(token), 0 if copy is None else copy)
        card = cls(parse_card_id(token))
        if copy is not None and copy != card.copy:
            raise CardCountError(
                token, f"the copy is given twice: .{copy_text.strip()} in the notation and copy={copy}; give one"
            )
        return card

    @property
    def suit(self) -> Suit | None:
        """The printed suit (``None`` for a joker)."""
        return face_suit(self.face)

    @property
    def rank(self) -> Rank | None:
        """The printed rank (``None`` for a joker)."""
        return face_rank(self.face)

    @property
    def is_joker(self) -> bool:
        return self.face >= SMALL_JOKER

    @property
    def points(self) -> int:
        """5 for a five, 10 for a ten or king, else 0."""
        return POINTS[self.face]

    def notation(self) -> str:
        """Canonical notation of the face (``AS``, ``TH``, ``SJ``)."""
        return _FACE_NAMES[self.face]

    def pretty(self) -> str:
        """With a suit symbol: ``A♠``, ``10♥``, ``SJ``."""
        if self.face >= SMALL_JOKER:
            return _FACE_NAMES[self.face]
        rank = "10" if self.face % 13 == 8 else _RANK_LETTERS[self.face % 13]
        return rank + "♠♥♦♣"[self.face // 13]

    def __str__(self) -> str:
        name = _FACE_NAMES[self.face]
        return name if self.copy == 0 else f"{name}.{self.copy}"

    def __repr__(self) -> str:
        if self.copy:
            return f"Card.parse({self.notation()!r}, copy={self.copy})"
        return f"Card.parse({self.notation()!r})"

    def __lt__(self, other: Card) -> bool:
        return self.id < other.id

    def __index__(self) -> int:
        return self.id


def parse_card(token: str, copy: int | None = None) -> Card:
    """Same as :meth:`Card.parse`."""
    return Card.parse(token, copy)


def parse_cards(text: str | Iterable[str], decks: int = MAX_DECKS) -> list[Card]:
    """Cards from notation, each repeated face taking the next copy.

    ``parse_cards("5H 5H")`` gives copies 0 and 1 of ``5H``. A face repeated
    more often than ``decks`` allows raises :class:`CardCountError`.
    """
    if not 1 <= decks <= MAX_DECKS:
        raise CardCountError(str(decks), f"decks must be 1 to {MAX_DECKS}")
    tokens = _tokens(text) if isinstance(text, str) else list(text)
    seen = [0] * FACES
    cards: list[Card] = []
    for token in tokens:
        face = parse_face(token)
        copy = seen[face]
        if copy >= decks:
            raise CardCountError(
                token, f"{_FACE_NAMES[face]} appears more than {decks} time(s) with {decks} deck(s)"
            )
        seen[face] = copy + 1
        cards.append(Card.from_face(face, copy))
    return cards


def format_cards(cards: Iterable[Card]) -> str:
    """Cards in canonical notation, space separated, in the order given."""
    return " ".join(_FACE_NAMES[c.face] for c in cards)
