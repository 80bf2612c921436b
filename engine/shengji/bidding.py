"""Declaring trump (亮主) during the draw: docs/rules.md §8.1.

A bid shows level cards of one suit, or jokers of one kind. Bid classes, weakest
first: one ``L``; a pair of ``L``; ``SJ SJ`` (NT); ``BJ BJ`` (NT); with 3+ decks a
triple of ``L``, three ``SJ``, three ``BJ``; with 4 decks the quads likewise.

- A bid must be of a strictly stronger class than the standing bid (among equal
  classes the earlier stands).
- The standing declarer may reinforce (自保): a bid in the suit (or joker kind) it
  already bid adds its cards to those shown, reaching a stronger class.
- Self-override (自反) is any bid by the standing declarer that is not a
  reinforcement (another suit, or NT by jokers, or the other kind of joker):
  allowed unless ``allow_self_override`` is false, and like any bid
  it must be of a stronger class. Only the standing declarer is concerned.
- At the end of the draw (:meth:`Declaring.resolve`): no bid on the match's first
  hand is a redeal; later, ``no_bid = "nt"`` plays NT and ``no_bid = "kitty"`` turns
  up the kitty, whose first card names trump (a joker, a level card, or with
  ``permanent_twos`` a 2: NT; 常主 gives 无主).
- The first hand's dealer is the first declarer (``first_dealer = "first"``) or the
  final one (``"final"``).

Cards are faces (``suit * 13 + rank``, ``52`` = SJ, ``53`` = BJ): copies do not
matter to a bid. Suits are ``0 … 3`` (S H D C); ``None`` stands for NT.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

SMALL_JOKER = 52
BIG_JOKER = 53
#: bid kinds: 0 … 3 level cards of that suit, then the two jokers.
KIND_SJ = 4
KIND_BJ = 5
KIND_NAMES = ("S", "H", "D", "C", "SJ", "BJ")

_BASE = {1: 0, 2: 1, 3: 4, 4: 7}


class BidError(ValueError):
    """A bid that is not accepted; the message says why."""


class SelfOverrideError(BidError):
    """A self-override (自反) where ``allow_self_override`` is false."""


@dataclass(frozen=True, slots=True)
class StandingBid:
    """A standing (possibly reinforced) bid: ``count`` cards of one ``kind``."""

    seat: int
    kind: int
    count: int

    @property
    def strength(self) -> int:
        """The bid's class, 0 (one level card) … 9 (four big jokers)."""
        return class_of(self.kind, self.count)

    @property
    def trump(self) -> int | None:
        """The trump suit the bid names, or None for NT (a joker bid)."""
        return self.kind if self.kind < 4 else None

    def describe(self) -> str:
        names = {1: "one", 2: "a pair of", 3: "three", 4: "four"}
        what = KIND_NAMES[self.kind]
        if self.kind < 4:
            return f"{names[self.count]} level card{'s' if self.count > 1 else ''} of {what}"
        return f"{names[self.count]} {what}"


def class_of(kind: int, count: int) -> int:
    return _BASE[count] + (0 if kind < 4 else kind - 3)


def bid_kind(faces: Sequence[int], level: int) -> tuple[int, int]:
    """``(kind, count)`` of the cards shown, or :class:`BidError` if they are not level
    cards of one suit or jokers of one kind."""
    if not faces:
        raise BidError("a bid shows at least one card")
    kinds = set()
    for f in faces:
        if f == SMALL_JOKER:
            kinds.add(KIND_SJ)
        elif f == BIG_JOKER:
            kinds.add(KIND_BJ)
        elif 0 <= f < 52 and f % 13 == level:
            kinds.add(f // 13)
        elif 0 <= f < 52:
            raise BidError("a bid shows only level cards or jokers")
        else:
            raise BidError(f"no such card face {f}")
    if len(kinds) != 1:
        raise BidError("a bid shows level cards of one suit or jokers of one kind, not a mix")
    return kinds.pop(), len(faces)


@dataclass(slots=True)
class Declaring:
    """The bids of one draw."""

    level: int
    decks: int = 2
    allow_self_override: bool = True
    standing: StandingBid | None = None
    first: StandingBid | None = None
    #: every bid tried, in time order: (seat, faces, accepted)
    history: list[tuple[int, tuple[int, ...], bool]] = field(default_factory=list)

    def check(self, seat: int, faces: Sequence[int]) -> StandingBid:
        """The standing bid that ``seat`` showing ``faces`` would make, or BidError."""
        if seat not in (0, 1, 2, 3):
            raise BidError(f"bad seat {seat!r}: 0 … 3")
        kind, count = bid_kind(faces, self.level)
        st = self.standing
        if st is not None and st.seat == seat and st.kind == kind:
            count += st.count  # reinforcement (自保): the cards add up
        elif st is not None and st.seat == seat and not self.allow_self_override:
            raise SelfOverrideError("self-override (自反) is not allowed: reinforce your own bid instead")
        if count > self.decks:
            raise BidError(
                f"{count} identical cards cannot exist with {self.decks} deck"
                f"{'s' if self.decks > 1 else ''}"
            )
        if kind >= 4 and count == 1:
            raise BidError("a single joker is no bid: show a pair of jokers (NT)")
        bid = StandingBid(seat, kind, count)
        if st is not None and bid.strength <= st.strength:
            raise BidError(f"{bid.describe()} is no stronger than the standing {st.describe()}")
        return bid

    def bid(self, seat: int, faces: Sequence[int]) -> bool:
        """Try a bid; True when it is accepted (and then it stands)."""
        try:
            b = self.check(seat, faces)
        except BidError:
            self.history.append((seat, tuple(faces), False))
            return False
        self.history.append((seat, tuple(faces), True))
        self.standing = b
        if self.first is None:
            self.first = b
        return True

    def resolve(
        self,
        *,
        first_hand: bool,
        dealer: int | None,
        no_bid: str = "nt",
        first_dealer: str = "first",
        kitty: Iterable[int] | None = None,
        permanent_twos: bool = False,
    ) -> Declaration:
        """Trump, declarer and dealer at the end of the draw."""
        return resolve(
            self.standing,
            self.first,
            level=self.level,
            first_hand=first_hand,
            dealer=dealer,
            no_bid=no_bid,
            first_dealer=first_dealer,
            kitty=kitty,
            permanent_twos=permanent_twos,
        )


@dataclass(frozen=True, slots=True)
class Declaration:
    """The end of the draw. ``redeal``: nobody bid on the first hand (then ``trump``,
    ``declarer`` and ``dealer`` mean nothing and are None). ``trump`` None: NT.
    ``flipped``: the face of the kitty card that named trump (``no_bid = "kitty"``)."""

    redeal: bool
    trump: int | None
    declarer: int | None
    dealer: int | None
    flipped: int | None = None


def resolve(
    standing: StandingBid | None,
    first: StandingBid | None,
    *,
    level: int,
    first_hand: bool,
    dealer: int | None,
    no_bid: str = "nt",
    first_dealer: str = "first",
    kitty: Iterable[int] | None = None,
    permanent_twos: bool = False,
) -> Declaration:
    """The end of the draw (docs/rules.md §8.1). With ``no_bid = "kitty"`` the kitty's
    first card names trump: its suit, or NT for a card that is trump in every
    suit (常主: a joker, a level card, and with ``permanent_twos`` a 2)."""
    if first_dealer not in ("first", "final"):
        raise BidError(f"bad first_dealer {first_dealer!r}: 'first' or 'final'")
    if no_bid not in ("nt", "kitty"):
        raise BidError(f"bad no_bid {no_bid!r}: 'nt' or 'kitty'")
    if standing is not None:
        assert first is not None
        if first_hand:
            dealer = first.seat if first_dealer == "first" else standing.seat
        if dealer is None:
            raise BidError("a later hand needs its dealer")
        return Declaration(False, standing.trump, standing.seat, dealer)
    if first_hand:
        return Declaration(True, None, None, None)
    if dealer is None:
        raise BidError("a later hand needs its dealer")
    if no_bid == "nt":
        return Declaration(False, None, None, dealer)
    cards = list(kitty) if kitty is not None else []
    if not cards:
        raise BidError("no_bid = 'kitty' needs the kitty's cards, in the order they are turned up")
    top = cards[0] % 54
    always_trump = top >= 52 or top % 13 == level or (permanent_twos and top % 13 == 0)
    trump = None if always_trump else top // 13
    return Declaration(False, trump, None, dealer, flipped=top)
