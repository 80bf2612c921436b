"""The table's game events, decoded once: a frozen, typed value per kind.

The kinds are ``firmware/events.py``'s; each kind's fields, by name and in
wire order, are ``firmware/evlayout.py``'s (the table never loads it; the
table of kinds in docs/firmware.md, "Game events", lists the same names).
This module is the only host code that knows where a field sits in the list
the link carries: everything else reads ``event.seat``, ``event.cards``.

>>> ev = decode([6, 0, 2, 12, 66], index=7, hash=0x1234)
>>> ev
Play(index=7, hash=4660, trick=0, seat=2, cards=(Card.parse('AS'), Card.parse('AS', copy=1)))
>>> ev.raw(), ev.kind.name, describe(ev)
([6, 0, 2, 12, 66], 'PLAY', 'trick 1: S2 plays AS AS.1')

As with h11's events: :func:`decode` turns the table's list (``[kind,
field, ...]``, small ints) into a :class:`Event` (a :class:`Play`, a
:class:`Bid`, ...; a kind this host does not know is :class:`Unknown`),
``event.raw()`` gives the very list back (the link's state hash is taken over
it), and a malformed list raises :class:`EventError`, saying what is wrong.
Cards are :class:`shengji.cards.Card` values (``event.ids``: their ids);
``index`` and ``hash`` are the event's place in the game log and the state
hash after it (-1 and 0 for an event the host built, such as a rules
engine's own version), and are not compared: two events are equal when
their kind and fields are.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from shengji.cards import Card, card_id_name

from .vocab.enums import TRUMP_NAMES, EventKind, RulesCode
from .vocab.loader import firmware

__all__ = [
    "EV",
    "RANKS",
    "TRUMPS",
    "Audit",
    "Bid",
    "Call",
    "Challenge",
    "Event",
    "EventError",
    "Forced",
    "Forfeit",
    "HandEnd",
    "HandStart",
    "KittyUp",
    "Kitty",
    "Partner",
    "Play",
    "Redeal",
    "Reject",
    "Revoke",
    "Scan",
    "Trick",
    "Trump",
    "Undo",
    "Unknown",
    "card_name",
    "cards_of",
    "cards_text",
    "decode",
    "describe",
    "face_name",
    "layout",
    "levels_text",
    "reason",
    "rule_words",
]

#: the firmware's constants module (events.py), for code that drives the
#: table core itself (tests, the virtual table's taps)
EV: Any = firmware("events")

RANKS = "23456789TJQKA"
#: the TRUMP event's trump field in letters (firmware/display.py's)
TRUMPS = TRUMP_NAMES


class EventError(ValueError):
    """A list that is not a game event of the table (says what is wrong)."""


# --- the values ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Event:
    """A game event; a subclass per kind (``KIND``), its fields by name."""

    KIND: ClassVar[EventKind]
    index: int = field(default=-1, kw_only=True, compare=False)
    hash: int = field(default=0, kw_only=True, compare=False)

    def __post_init__(self) -> None:
        # card ids given where cards go (an engine's own version): as Cards
        cards = getattr(self, "cards", None)
        if cards is not None and not all(isinstance(c, Card) for c in cards):
            object.__setattr__(self, "cards", cards_of(cards))

    @property
    def kind(self) -> int:
        """The kind (an :class:`~tractor_table.vocab.EventKind`; a bare int for :class:`Unknown`)."""
        return self.KIND

    @property
    def name(self) -> str:
        """The kind's name, as the firmware spells it (``PLAY``)."""
        return self.KIND.name

    @property
    def ids(self) -> tuple[int, ...]:
        """The card ids the event carries (empty when its kind carries none)."""
        cards: tuple[Card, ...] = getattr(self, "cards", ())
        return tuple(c.id for c in cards)

    def raw(self) -> list[int]:
        """The event as the table sends it (``[kind, field, ...]``)."""
        return _encode(self)

    def at(self: _E, index: int, hash: int = 0) -> _E:  # noqa: A002 - the event's field
        """The same event placed in the log (its index and state hash)."""
        return dataclasses.replace(self, index=index, hash=hash)

    def describe(self) -> str:
        """One line, in the game's terms (:func:`describe`)."""
        return describe(self)

    def differing(self, other: Event) -> tuple[str, ...]:
        """The names of the fields where ``other`` differs (``kind`` first
        when the kinds do): what a verifier shows."""
        if type(self) is not type(other):
            return ("kind",)
        return tuple(
            f.name for f in dataclasses.fields(self) if f.compare and getattr(self, f.name) != getattr(other, f.name)
        )


_E = TypeVar("_E", bound=Event)


def cards_of(cards: Iterable[int | Card]) -> tuple[Card, ...]:
    """Card ids (or Cards) as the :class:`shengji.cards.Card` values an event carries."""
    return tuple(c if isinstance(c, Card) else Card(c) for c in cards)


@dataclass(frozen=True, slots=True)
class HandStart(Event):
    """A hand begins. ``levels``: per side (2), or per seat with ``partners =
    "called"`` (4); ranks 0 (= 2) ... 12 (= A). dealer -1 on the match's first
    hand (the first bid decides)."""

    KIND = EventKind.HAND_START
    hand_no: int
    dealer: int
    decks: int
    levels: tuple[int, ...]
    first_hand: bool


@dataclass(frozen=True, slots=True)
class Bid(Event):
    """A declaration shown during the draw."""

    KIND = EventKind.BID
    seat: int
    accepted: bool
    reason: int
    cards: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class Trump(Event):
    """The end of the draw: trump 0-3 = S H D C, 4 = NT; declarer -1 if nobody bid."""

    KIND = EventKind.TRUMP
    trump: int
    declarer: int
    dealer: int


@dataclass(frozen=True, slots=True)
class Redeal(Event):
    """Nobody bid on the match's first hand."""

    KIND = EventKind.REDEAL
    hand_no: int


@dataclass(frozen=True, slots=True)
class Kitty(Event):
    """The cards the dealer buried."""

    KIND = EventKind.KITTY
    dealer: int
    points: int
    cards: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class Play(Event):
    """An accepted lead or follow."""

    KIND = EventKind.PLAY
    trick: int
    seat: int
    cards: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class Reject(Event):
    """A play, bid or burial refused; the cards go back."""

    KIND = EventKind.REJECT
    trick: int
    seat: int
    reason: int
    cards: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class Challenge(Event):
    """Cards shown against a throw; accepted when they beat it."""

    KIND = EventKind.CHALLENGE
    trick: int
    seat: int
    accepted: bool
    cards: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class Forced(Event):
    """A failed throw: these cards stand as the lead."""

    KIND = EventKind.FORCED
    trick: int
    leader: int
    penalty: int
    cards: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class Trick(Event):
    """A trick complete; attackers_score -1 while a called partner is unknown."""

    KIND = EventKind.TRICK
    trick: int
    winner: int
    points: int
    attackers_score: int


@dataclass(frozen=True, slots=True)
class Audit(Event):
    """A rule broken, found at the hand's end (rules_reason: the device
    engine's code, 0 for a throw)."""

    KIND = EventKind.AUDIT
    trick: int
    seat: int
    reason: int
    rules_reason: int


@dataclass(frozen=True, slots=True)
class HandEnd(Event):
    """The hand settled. ``levels`` as :class:`HandStart`'s; match_winner -1
    while the match goes on (with ``partners = "called"`` a bit mask of the
    seats that won)."""

    KIND = EventKind.HAND_END
    attackers_score: int
    kitty_points: int
    multiplier: int
    bonus: int
    next_dealer: int
    levels: tuple[int, ...]
    match_winner: int


@dataclass(frozen=True, slots=True)
class Revoke(Event):
    """A play just made proves the seat's follow in earlier_trick broke §6."""

    KIND = EventKind.REVOKE
    trick: int
    seat: int
    earlier_trick: int
    rules_reason: int


@dataclass(frozen=True, slots=True)
class Scan(Event):
    """hand_scan mode: a seat's whole hand as scanned after the draw."""

    KIND = EventKind.SCAN
    seat: int
    cards: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class Forfeit(Event):
    """``revoke = "forfeit"``: the seat's revoke in trick loses the hand."""

    KIND = EventKind.FORFEIT
    trick: int
    seat: int


@dataclass(frozen=True, slots=True)
class KittyUp(Event):
    """``no_bid = "kitty"``: the kitty turned up, in order (its first card names trump)."""

    KIND = EventKind.KITTY_UP
    dealer: int
    cards: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class Call(Event):
    """``partners = "called"``: the face (0-53, not a card id) the dealer named."""

    KIND = EventKind.CALL
    dealer: int
    face: int


@dataclass(frozen=True, slots=True)
class Partner(Event):
    """``partners = "called"``: the partner is known (-1: the dealer plays
    alone; -2 in the host's view: not known here)."""

    KIND = EventKind.PARTNER
    trick: int
    partner: int
    attackers_score: int


@dataclass(frozen=True, slots=True)
class Undo(Event):
    """A long press took back the seat's last play (those cards)."""

    KIND = EventKind.UNDO
    trick: int
    seat: int
    cards: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class Unknown(Event):
    """A kind this host does not know (a newer table): its number and fields."""

    code: int
    values: tuple[Any, ...] = ()
    #: why it was not decoded, when its kind is known (a malformed event)
    problem: str = field(default="", compare=False)

    @property
    def kind(self) -> int:
        return self.code

    @property
    def name(self) -> str:
        known = _BY_KIND.get(self.code)
        return known.KIND.name if known is not None else f"kind {self.code}"


_CLASSES: tuple[type[Event], ...] = (
    HandStart, Bid, Trump, Redeal, Kitty, Play, Reject, Challenge, Forced, Trick, Audit,
    HandEnd, Revoke, Scan, Forfeit, KittyUp, Call, Partner, Undo,
)  # fmt: skip
_BY_KIND: dict[int, type[Event]] = {int(c.KIND): c for c in _CLASSES}
_FLAGS = frozenset(("accepted", "first_hand"))


# --- the layout (firmware/evlayout.py) ----------------------------------------


@dataclass(frozen=True)
class Layout:
    """One kind's wire layout, read from firmware/evlayout.py: the fields
    every event carries (``(name, k)``: ``k`` is the place in a tuple field,
    -1 for a plain one), those only some carry, and whether cards end it."""

    kind: int
    fixed: tuple[tuple[str, int], ...]
    optional: tuple[tuple[str, int], ...]
    cards: bool
    notation: str  # as firmware/evlayout.py writes it

    def text(self) -> str:
        """The layout in evlayout.py's notation (docs/firmware.md's table shows it)."""
        return " ".join(self.notation.split())

    def names(self) -> tuple[str, ...]:
        """The distinct field names in wire order (a tuple field once)."""
        out: list[str] = []
        for name, _ in (*self.fixed, *self.optional):
            if name not in out:
                out.append(name)
        return (*out, "cards") if self.cards else tuple(out)

    def wire_names(self) -> tuple[str, ...]:
        """The names of the wire's places after the kind (``levels:0`` ...)."""
        one = [n if k < 0 else f"{n}:{k}" for n, k in self.fixed]
        opt = [n if k < 0 else f"{n}:{k}" for n, k in self.optional]
        return (*one, *(f"[{x}]" for x in opt), *(("cards*",) if self.cards else ()))


def _parse_layout(kind: int, text: str) -> Layout:
    fixed: list[tuple[str, int]] = []
    optional: list[tuple[str, int]] = []
    cards = False
    into = fixed
    for tok in text.split():
        if cards:
            raise ImportError(f"firmware/evlayout.py, kind {kind}: the cards ({text!r}) must come last")
        if tok.startswith("["):
            into, tok = optional, tok[1:]
        closing = tok.endswith("]")
        tok = tok.rstrip("]")
        if tok.endswith("*"):
            cards = True
        else:
            name, _, k = tok.partition(":")
            into.append((name, int(k) if k else -1))
        if closing:
            into = fixed
    return Layout(kind, tuple(fixed), tuple(optional), cards, text)


@functools.cache
def layouts() -> dict[int, Layout]:
    """Every kind's layout, by kind (firmware/evlayout.py)."""
    return {int(kind): _parse_layout(int(kind), text) for kind, text in firmware("evlayout").LAYOUT}


def layout(kind: int) -> Layout:
    """The layout of one kind (KeyError for a kind the firmware does not have)."""
    return layouts()[kind]


def _check_classes() -> None:
    # every kind has its class, with exactly the layout's fields (by name and
    # order): a field added to the firmware's layout stops the host here
    lay = layouts()
    missing = sorted(EventKind(k).name for k in lay if k not in _BY_KIND)
    if missing or set(_BY_KIND) != set(lay):
        raise ImportError(f"tractor_table.events has no class for the kinds {missing} of firmware/evlayout.py")
    for k, cls in _BY_KIND.items():
        ours = tuple(f.name for f in dataclasses.fields(cls) if f.name not in ("index", "hash"))
        if ours != lay[k].names():
            raise ImportError(
                f"tractor_table.events.{cls.__name__} has the fields {ours}, firmware/evlayout.py "
                f"{lay[k].names()}: change the one with the other"
            )


_check_classes()


# --- decode and encode ----------------------------------------------------------


def decode(raw: Event | Sequence[Any], *, index: int = -1, hash: int = 0, lenient: bool = False) -> Event:  # noqa: A002
    """The typed value of one event as the table sends it (``[kind, field,
    ...]``). Raises :class:`EventError` naming what is wrong with a list that
    is not an event (``lenient``: returns it as :class:`Unknown` with the
    problem, its ``raw()`` the list as it came: what the link does, which must
    not stop on a table's bad event); a kind this host does not know is
    :class:`Unknown`."""
    if isinstance(raw, Event):
        return raw if index < 0 else raw.at(index, hash)
    if lenient:
        try:
            ev = decode(raw, index=index, hash=hash)
            if ev.raw() != list(raw):  # never: the layout reads back what it wrote
                raise EventError(f"{list(raw)!r} does not read back as itself ({ev.raw()!r})")
            return ev
        except EventError as exc:
            if isinstance(raw, (list, tuple)) and raw and isinstance(raw[0], int):
                return Unknown(raw[0], tuple(raw[1:]), str(exc), index=index, hash=hash)
            return Unknown(-1, tuple(raw) if isinstance(raw, (list, tuple)) else (raw,), str(exc),
                           index=index, hash=hash)
    if not isinstance(raw, (list, tuple)) or not raw:
        raise EventError(f"a game event is a non-empty list of ints, not {raw!r}")
    for x in raw:
        if not isinstance(x, int) or isinstance(x, bool):
            raise EventError(f"a game event is a list of ints; {raw!r} holds {x!r}")
    kind = raw[0]
    cls = _BY_KIND.get(kind)
    if cls is None:
        return Unknown(kind, tuple(raw[1:]), index=index, hash=hash)
    lay = layouts()[kind]
    values = raw[1:]
    n = len(lay.fixed)
    places = list(lay.fixed)
    rest = values[n:]
    if lay.optional:
        if len(rest) == len(lay.optional):
            places += lay.optional
            rest = ()
        elif rest:
            raise EventError(f"{cls.KIND.name} {list(raw)!r}: {len(values)} fields, not {n} or {n + len(lay.optional)}")
    if len(values) < n or (rest and not lay.cards):
        want = f"at least {n}" if lay.cards else f"{n}"
        raise EventError(f"{cls.KIND.name} {list(raw)!r}: {len(values)} fields, not {want} ({' '.join(lay.wire_names())})")
    args: dict[str, Any] = {}
    tuples: dict[str, list[int]] = {}
    for (name, k), v in zip(places, values, strict=False):
        if k >= 0:
            tuples.setdefault(name, []).append(v)
        elif name in _FLAGS:
            if v not in (0, 1):
                raise EventError(f"{cls.KIND.name} {list(raw)!r}: {name} is 0 or 1, not {v}")
            args[name] = bool(v)
        else:
            args[name] = v
    for name, vs in tuples.items():
        args[name] = tuple(vs)
    if lay.cards:
        try:
            args["cards"] = cards_of(rest)
        except ValueError as exc:
            raise EventError(f"{cls.KIND.name} {list(raw)!r}: {exc}") from None
    return cls(**args, index=index, hash=hash)


def _encode(ev: Event) -> list[int]:
    if isinstance(ev, Unknown):
        return [*((ev.code,) if ev.code >= 0 or not ev.problem else ()), *ev.values]
    lay = layouts()[int(ev.KIND)]
    out: list[int] = [int(ev.KIND)]
    places = list(lay.fixed)
    if lay.optional:
        name, k = lay.optional[-1]
        value = getattr(ev, name)
        if k < len(value):
            places += lay.optional
    for name, k in places:
        value = getattr(ev, name)
        out.append(int(value[k] if k >= 0 else value))
    if lay.cards:
        carried: tuple[Card, ...] = getattr(ev, "cards", ())
        out.extend(c.id for c in carried)
    return out


def as_event(ev: Event | Sequence[Any]) -> Event:
    """An event, decoded if it is still the table's list."""
    return ev if isinstance(ev, Event) else decode(ev)


# --- in words ------------------------------------------------------------------


def card_name(card: int | Card) -> str:
    """The one notation of a physical card: ``AS``, ``AS.1`` for the second
    deck's (``shengji.cards.card_id_name``, as the records write it)."""
    return card_id_name(card.id if isinstance(card, Card) else card)


def face_name(face: int) -> str:
    """A called face 0..53 (CALL carries a face, not a card id)."""
    return card_name(face) if 0 <= face < 54 else f"face {face}"


def cards_text(cards: Iterable[int | Card]) -> str:
    """Cards in the one notation, space separated (``-`` for none)."""
    return " ".join(card_name(c) for c in cards) or "-"


def levels_text(levels: Sequence[int]) -> str:
    """'2/3' per side, or '2 3 2 3' per seat (S0 .. S3)."""
    return ("/" if len(levels) == 2 else " ").join(RANKS[x] if 0 <= x < 13 else "?" for x in levels)


def reason(code: int) -> str:
    """The table's reason (REJECT, BID, AUDIT) in words."""
    names: tuple[str, ...] = EV.REASONS
    return names[code] if 0 <= code < len(names) else f"reason {code}"


#: The device rules engine's codes (firmware/drules.py, R_*), the rules of
#: following in docs/rules.md §6, in words.
RULE_WORDS = {
    RulesCode.EMPTY: "an empty play",
    RulesCode.NOT_IN_HAND: "a card the seat does not hold",
    RulesCode.MIXED_SUIT: "a lead of several suits",
    RulesCode.WRONG_COUNT: "a follow of the wrong number of cards",
    RulesCode.FOLLOW_SUIT: "did not follow the led suit while holding it",
    RulesCode.PAIRS: "did not play the pairs it held in the led suit",
    RulesCode.TRACTOR: "did not play the tractor it held in the led suit",
    RulesCode.TRIPLES: "did not play the triples it held in the led suit",
    RulesCode.TITANIC: "did not play the Titanic it held in the led suit",
    RulesCode.SAME_SHAPE: "did not play the led shape it held (same_shape_only)",
    RulesCode.THROW_FAILED: "a throw another seat could beat",
}


def rule_words(code: int) -> str:
    """A rules engine code (AUDIT, REVOKE) in words; an unknown one as its number."""
    try:
        return RULE_WORDS[RulesCode(code)]
    except (ValueError, KeyError):
        return f"rules code {code}"


def describe(event: Event | Sequence[Any]) -> str:
    """One line, in the game's terms, for an event (typed, or as the table sent it)."""
    try:
        ev = as_event(event)
    except EventError:
        return f"event {event!r}"
    return _describe(ev)


def _describe(ev: Event) -> str:  # noqa: C901, PLR0911, PLR0912 - one line per kind
    cards = cards_text(ev.ids) if ev.ids else ""
    match ev:
        case HandStart():
            dealer = f"S{ev.dealer}" if ev.dealer >= 0 else "decided by the first bid"
            return f"hand {ev.hand_no}: {ev.decks} deck(s), levels {levels_text(ev.levels)}, dealer {dealer}"
        case Call():
            return f"S{ev.dealer} calls {face_name(ev.face)} (find-a-friend)"
        case Partner():
            if ev.partner == -2:  # the host's view: the partner is not known here
                return f"trick {ev.trick + 1}: the partner is not known yet"
            who = f"S{ev.partner} is the dealer's partner" if ev.partner >= 0 else "the dealer plays alone"
            return f"trick {ev.trick + 1}: {who}; attackers {ev.attackers_score}"
        case Bid():
            verdict = "accepted" if ev.accepted else f"refused ({reason(ev.reason)})"
            return f"S{ev.seat} bids {cards}: {verdict}"
        case Trump():
            who = f"declared by S{ev.declarer}" if ev.declarer >= 0 else "nobody bid"
            suit = TRUMPS[ev.trump] if 0 <= ev.trump < len(TRUMPS) else f"trump {ev.trump}"
            return f"trump {suit} ({who}), dealer S{ev.dealer}"
        case Redeal():
            return f"hand {ev.hand_no}: nobody bid, redeal"
        case Kitty():
            return f"S{ev.dealer} buries {cards} ({ev.points} points)"
        case Play():
            return f"trick {ev.trick + 1}: S{ev.seat} plays {cards}"
        case Undo():
            if not ev.cards:  # the host's view: the table took back a play it must not
                return f"trick {ev.trick + 1}: S{ev.seat} has no play to take back here"
            return f"trick {ev.trick + 1}: S{ev.seat} takes back {cards}; S{ev.seat} to play"
        case Reject():
            return f"trick {ev.trick + 1}: S{ev.seat} refused: {reason(ev.reason)} {cards}".rstrip()
        case Challenge():
            verdict = "the throw fails" if ev.accepted else "does not beat it"
            return f"trick {ev.trick + 1}: S{ev.seat} challenges with {cards}: {verdict}"
        case Forced():
            return f"trick {ev.trick + 1}: S{ev.leader} must lead {cards} (penalty {ev.penalty})"
        case Trick():
            score = "partner unknown" if ev.attackers_score == -1 else f"attackers {ev.attackers_score}"
            return f"trick {ev.trick + 1}: S{ev.winner} wins {ev.points} points; {score}"
        case Audit():
            why = f": {rule_words(ev.rules_reason)}" if ev.rules_reason else ""
            return f"audit: trick {ev.trick + 1}, S{ev.seat}: {reason(ev.reason)}{why}"
        case Revoke():
            # the host's view of a revoke it finds unproven carries reason 0
            if ev.rules_reason == 0:
                return f"trick {ev.trick + 1}: no revoke of S{ev.seat} in trick {ev.earlier_trick + 1} is proven"
            return (
                f"trick {ev.trick + 1}: S{ev.seat} is proven to have revoked in trick "
                f"{ev.earlier_trick + 1} ({rule_words(ev.rules_reason)})"
            )
        case Forfeit():
            if ev.seat < 0:
                return "no revoke loses the hand"
            where = f" in trick {ev.trick + 1}" if ev.trick >= 0 else ""
            return f"S{ev.seat}'s revoke{where} loses the hand for side {ev.seat & 1}"
        case KittyUp():
            if ev.dealer < 0:  # the host's view: the rules want no reveal here
                return (
                    "the kitty is not to be turned up here (a bid stands, the match's first hand, "
                    f"or no_bid is not kitty): {cards or '-'}"
                )
            if not ev.cards:  # the host's view: the table named trump without the reveal
                return f"nobody bid: S{ev.dealer} must turn the kitty up before trump is named"
            return f"nobody bid: S{ev.dealer} turns the kitty up: {cards} (the first card names trump)"
        case HandEnd():
            if len(ev.levels) == 4:  # partners = "called": the winners a bit mask
                won = " ".join(f"S{s}" for s in range(4) if ev.match_winner >= 0 and ev.match_winner >> s & 1)
                winner = f"; {won} win the match" if won else ""
            else:
                winner = "" if ev.match_winner < 0 else f"; side {ev.match_winner} wins the match"
            return (
                f"hand over: attackers {ev.attackers_score} (kitty {ev.kitty_points} x{ev.multiplier} = "
                f"{ev.bonus}); levels {levels_text(ev.levels)}, next dealer S{ev.next_dealer}{winner}"
            )
        case Scan():
            return f"S{ev.seat} scans {len(ev.cards)} cards: {cards}"
    return f"event {ev.raw()!r}"

