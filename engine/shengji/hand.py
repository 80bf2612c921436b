"""One hand of Tractor as a state machine: :class:`Hand` with ``apply(event)`` / ``undo()``.

docs/rules.md §8-§10. A hand goes through the phases

    draw ─► bury ─► [call] ─► play ─► [reveal] ─► done        (or draw ─► done: redeal)

driven by events (small frozen value objects, see :data:`Event`):

- :class:`Deal` — every hand and the kitty, when they are known (a simulation,
  or the table's ``hand_scan`` mode). Without it the hand knows only the cards it
  sees: bids, plays, challenges and the kitty turned up at the end (§10.1).
- :class:`Bid` — a seat shows level cards or jokers during the draw (§8.1).
- :class:`EndDraw` — the draw is over: trump, declarer and dealer are fixed
  (or, on the match's first hand with no bid, a redeal).
- :class:`Bury` — the dealer buries the kitty (cards known or not).
- :class:`Call` — find-a-friend: the dealer names a card (§9.1).
- :class:`Scan` — ``hand_scan`` mode: every hand after the burial and the buried
  kitty, read before the first play (then every rule is checked at the play).
- :class:`Play` — a seat plays cards; a throw that fails is forced at once when
  the hands are known (§5.2), and its penalty recorded.
- :class:`Challenge` — right after a throw, a seat shows a unit that beats one of
  its units: the throw is forced over the categories proven beaten (§10.1).
- :class:`Reveal` — the buried kitty, turned up after the last trick when it was
  not seen before.

An event that cannot happen (wrong phase, a card seen twice, out of turn, the
wrong number of cards, a mixed-suit lead, a card the seat does not hold) raises
:class:`IllegalEvent` carrying :class:`Finding` objects, and the state does not
change. A revoke is a :class:`Finding` recorded in ``hand.findings`` (with
``strict=True`` it raises instead): with the hands known it is found at the play;
without, as soon as a later card proves it, and by the audit of every trick when
the hand ends. ``undo()`` pops a saved-state stack (every state field is an
immutable value, so a snapshot is a tuple of references).
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import operator
import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from . import bidding, kitty, settle
from . import play as _play
from .cards import FACES, Rank, face_name, format_faces
from .play import Lead as _Lead
from .play import Reason
from .rules import Partners, Revoke, Rules
from .ruling import Ruling

__all__ = [
    "Bid",
    "Bury",
    "Call",
    "Challenge",
    "Deal",
    "EndDraw",
    "Event",
    "Finding",
    "Hand",
    "HandError",
    "HandResult",
    "IllegalEvent",
    "LegalPlays",
    "Outcome",
    "Phase",
    "Play",
    "Reveal",
    "Scan",
    "Termination",
    "Trick",
]

SEATS = 4


class Phase(enum.StrEnum):
    DRAW = "draw"
    BURY = "bury"
    CALL = "call"
    PLAY = "play"
    REVEAL = "reveal"
    DONE = "done"


@dataclass(frozen=True, slots=True)
class Finding:
    """A rule broken (or an event refused): which trick (0-based; None before
    play), which seat, why (``rule``, a :class:`~shengji.play.Reason`), and a
    sentence for people. ``at`` is ``"play"`` (found when the event came) or
    ``"audit"`` (the end-of-hand audit)."""

    trick: int | None
    seat: int | None
    rule: Reason
    message: str
    at: str = "play"

    def __str__(self) -> str:
        where = f"trick {self.trick + 1}" if self.trick is not None else "before play"
        who = f"seat {self.seat}" if self.seat is not None else "table"
        return f"{where}, {who}: {self.message} [{self.rule.value}]"


class HandError(ValueError):
    """Base of the hand's errors."""


class IllegalEvent(HandError):
    """An event the hand refuses; ``findings`` say why. The state is unchanged."""

    def __init__(self, findings: Sequence[Finding]) -> None:
        self.findings = tuple(findings)
        super().__init__("; ".join(str(f) for f in self.findings))


# --- events ---------------------------------------------------------------


def _ids(cards: Iterable[int]) -> tuple[int, ...]:
    return tuple(int(c) for c in cards)


@dataclass(frozen=True, slots=True)
class Deal:
    """Every seat's hand and the kitty (card ids), as dealt."""

    hands: tuple[tuple[int, ...], ...]
    kitty: tuple[int, ...]

    @classmethod
    def of(cls, hands: Sequence[Iterable[int]], kitty: Iterable[int]) -> Deal:
        return cls(tuple(_ids(h) for h in hands), _ids(kitty))

    @classmethod
    def shuffled(cls, rules: Rules, rng: random.Random) -> Deal:
        """A shuffled deal: every card id once, each seat's in draw order (the
        draw hands out one card at a time in turn: seat i gets cards i, i+4,
        ...), then the kitty."""
        ids = list(range(FACES * rules.decks))
        rng.shuffle(ids)
        n = rules.hand_size
        return cls.of([ids[i : 4 * n : 4] for i in range(SEATS)], ids[4 * n :])

    def faces(self) -> tuple[list[list[int]], list[int]]:
        """The deal as faces: each seat's hand and the kitty, sorted (what
        :func:`shengji.playout.judge_hand`, :func:`~shengji.playout.random_playout`
        and the face functions of :mod:`shengji.play` take)."""
        return [sorted(c % FACES for c in h) for h in self.hands], sorted(c % FACES for c in self.kitty)


@dataclass(frozen=True, slots=True)
class Bid:
    seat: int
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class EndDraw:
    """The end of the draw. ``kitty``: the kitty turned up in order, needed only
    with ``no_bid = "kitty"`` when the deal is not known."""

    kitty: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Bury:
    """The dealer's buried cards; empty when the table cannot see them."""

    cards: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Call:
    """Find-a-friend: the face the dealer names."""

    face: int


@dataclass(frozen=True, slots=True)
class Play:
    seat: int
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Challenge:
    """A seat shows cards that beat a unit of the throw just led."""

    seat: int
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Scan:
    """``hand_scan`` mode: every seat's hand after the burial, and the buried cards,
    read by the table before the first play."""

    hands: tuple[tuple[int, ...], ...]
    buried: tuple[int, ...]

    @classmethod
    def of(cls, hands: Sequence[Iterable[int]], buried: Iterable[int]) -> Scan:
        return cls(tuple(_ids(h) for h in hands), _ids(buried))


@dataclass(frozen=True, slots=True)
class Reveal:
    """The buried kitty, turned up after the last trick."""

    cards: tuple[int, ...]


Event = Deal | Bid | EndDraw | Bury | Call | Scan | Play | Challenge | Reveal


@dataclass(frozen=True, slots=True)
class Trick:
    """One trick. ``plays`` are ``(seat, card ids)`` in play order, the lead first
    (after a failed throw, the forced cards; ``attempt`` then holds the throw as
    tried and ``forced_by`` the seats whose cards beat it)."""

    leader: int
    plays: tuple[tuple[int, tuple[int, ...]], ...]
    attempt: tuple[int, ...] = ()
    forced_by: tuple[int, ...] = ()
    winner: int | None = None
    points: int = 0
    #: the cards a challenger showed (without hand knowledge), checked at the audit
    shown: tuple[int, ...] = ()

    @property
    def lead(self) -> tuple[int, ...]:
        return self.plays[0][1]

    @property
    def complete(self) -> bool:
        return len(self.plays) == SEATS

    def cards_of(self, seat: int) -> tuple[int, ...]:
        for s, cards in self.plays:
            if s == seat:
                return cards
        return ()


@dataclass(frozen=True, slots=True)
class HandResult:
    """The score of a finished hand (docs/rules.md §8.3-§8.4).

    ``score = trick_points + kitty_bonus + penalty`` (``penalty`` is the net of the
    failed throws: + when defenders failed, - when attackers did). ``forfeit``: the
    seat whose revoke lost the hand (``revoke = "forfeit"``), else None.
    """

    dealer: int
    level: int
    trump: int | None
    defenders: tuple[int, ...]
    attackers: tuple[int, ...]
    trick_points: int
    kitty_points: int
    multiplier: int
    kitty_bonus: int
    penalty: int
    score: int
    last_winner: int | None
    kitty_j: bool
    forfeit: int | None

    @property
    def forced_result(self) -> settle.LevelResult | None:
        """A forfeit's level result: the defenders revoked → the attackers take
        over (+0); the attackers revoked → the defenders go up one (docs/rules.md §10.3)."""
        if self.forfeit is None:
            return None
        if self.forfeit in self.defenders:
            return settle.LevelResult(True, 0)
        return settle.LevelResult(False, 1)


class Termination(enum.Enum):
    """How a hand ended (:class:`Outcome`)."""

    COMPLETED = "completed"  #: every card played (and the kitty turned up when it was not seen)
    REDEAL = "redeal"  #: nobody bid on the match's first hand: the cards are dealt again
    FORFEIT = "forfeit"  #: a revoke lost the hand (``revoke = "forfeit"``)


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a hand (:meth:`Hand.outcome`): how it ended and its score
    (``result``; None for a redeal, which has none)."""

    termination: Termination
    result: HandResult | None

    @property
    def forfeit(self) -> int | None:
        """The seat whose revoke lost the hand (:attr:`Termination.FORFEIT`), else None."""
        return None if self.result is None else self.result.forfeit


_STATE = (
    "phase",
    "hands",
    "dealt_kitty",
    "standing",
    "first_bid",
    "bids",
    "dealer",
    "declarer",
    "trump",
    "redeal",
    "flipped",
    "buried",
    "friend_face",
    "defenders",
    "tricks",
    "played",
    "penalties",
    "findings",
    "forfeit",
    "seen_kitty",
)

#: One C-level call reads every state field (``Hand._save``, once per event).
_GET_STATE = operator.attrgetter(*_STATE)


class LegalPlays:
    """The plays the seat to play may make (:meth:`Hand.legal_plays`), a lazy
    view as python-chess's ``board.legal_moves`` and :class:`~shengji.play.LegalFollows`.

    Iterating yields each legal play once, as a sorted tuple of the seat's card
    ids (copies of a face are interchangeable: a play takes the seat's lowest
    ids of each face), which ``hand.apply(play)`` plays. ``play in view`` is
    the fast check (card ids or :class:`~shengji.cards.Card` objects, any
    order, or a :class:`Play` event); ``bool(view)`` and ``view.count()``. The
    view reads the hand when asked: after an event it is the next seat's.
    Outside the play phase it is empty; without the hands known (no
    :class:`Deal` or :class:`Scan`) asking raises :class:`HandError`.
    """

    __slots__ = ("hand", "throws")

    def __init__(self, hand: Hand, throws: bool = False) -> None:
        self.hand = hand
        self.throws = throws

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        hand = self.hand
        seat = hand.next_seat()
        if seat is None:
            return
        held = hand.held(seat)
        counts = _id_counts(held)
        trick = hand.current_trick()
        ruling = hand.ruling
        if trick is None:
            plays: Iterable[tuple[int, ...]] = _play.legal_leads(ruling.order, counts, throws=self.throws)
        else:
            plays = _play.LegalFollows(ruling.order, hand._lead_of(trick.lead), counts)
        for faces in plays:
            yield tuple(sorted(_pick(held, faces)))

    def __contains__(self, play: object) -> bool:
        hand = self.hand
        seat = hand.next_seat()
        if seat is None:
            return False
        if isinstance(play, Play):
            if play.seat != seat:
                return False
            play = play.cards
        if not isinstance(play, Iterable) or isinstance(play, str):
            return False
        ids = []
        for c in play:
            if isinstance(c, bool):
                return False
            try:
                ids.append(operator.index(c))
            except TypeError:
                return False
        held = hand.held(seat)
        if not ids or len(set(ids)) != len(ids) or not set(held).issuperset(ids):
            return False
        faces = [c % FACES for c in ids]
        ruling = hand.ruling
        trick = hand.current_trick()
        if trick is None:
            return ruling.one_suit(faces) and (self.throws or not ruling.is_throw(faces))
        lead = hand._lead_of(trick.lead)
        return len(ids) == lead.size and _play.check_follow_counts(ruling.order, lead, _id_counts(held), faces).legal

    def __bool__(self) -> bool:
        return next(iter(self), None) is not None

    def first(self) -> tuple[int, ...] | None:
        """One legal play (the first generated), or ``None``."""
        return next(iter(self), None)

    def count(self) -> int:
        """How many legal plays there are."""
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return f"<LegalPlays of seat {self.hand.next_seat()}>"


class Hand:
    """One hand (see the module docs). ``level`` is the rank the hand is played at
    (the dealer's level); ``dealer`` is None only on the match's first hand, where
    declaring picks it (``first_hand=True``). ``strict``: refuse revokes instead of
    recording them (simulations and bots)."""

    rules: Rules
    level: int
    first_hand: bool
    strict: bool
    # state (immutable values only; see _STATE)
    phase: Phase
    hands: tuple[tuple[int, ...], ...] | None
    dealt_kitty: tuple[int, ...] | None
    standing: bidding.StandingBid | None
    first_bid: bidding.StandingBid | None
    bids: tuple[tuple[int, tuple[int, ...]], ...]
    dealer: int | None
    declarer: int | None
    trump: int | None
    redeal: bool
    flipped: int | None
    buried: tuple[int, ...] | None
    friend_face: int | None
    defenders: tuple[int, ...] | None
    tricks: tuple[Trick, ...]
    played: frozenset[int]
    penalties: tuple[tuple[int, int, int], ...]
    findings: tuple[Finding, ...]
    forfeit: int | None
    seen_kitty: tuple[int, ...] | None

    def __init__(
        self,
        rules: Rules,
        *,
        level: int = 0,
        dealer: int | None = None,
        first_hand: bool | None = None,
        strict: bool = False,
    ) -> None:
        if dealer is not None and dealer not in range(SEATS):
            raise HandError(f"bad dealer {dealer!r}: a seat 0-3 or None")
        self.rules = rules
        self.level = int(Rank(level))
        self.first_hand = dealer is None if first_hand is None else first_hand
        if not self.first_hand and dealer is None:
            raise HandError("a hand other than the match's first needs its dealer")
        self.strict = strict
        self.phase = Phase.DRAW
        self.hands = None
        self.dealt_kitty = None
        self.standing = None
        self.first_bid = None
        self.bids = ()
        self.dealer = dealer
        self.declarer = None
        self.trump = None
        self.redeal = False
        self.flipped = None
        self.buried = None
        self.friend_face = None
        self.defenders = None
        self.tricks = ()
        self.played = frozenset()
        self.penalties = ()
        self.findings = ()
        self.forfeit = None
        self.seen_kitty = None
        self.events: list[Event] = []
        self._stack: list[tuple[Any, ...]] = []
        self._ruling: Ruling | None = None
        self._matching: dict[tuple[int | None, tuple[int, ...], tuple[int, ...]], bool] = {}
        #: the last trick's lead (card ids, by identity) and its Lead: a cache
        self._last_lead: tuple[tuple[int, ...], Ruling, _Lead] | None = None
        #: seat -> (its known hand, that hand's face counts): a cache, no state
        #: (a hand is an immutable tuple: ``is`` tells that the counts are its)
        self._counts_of: dict[int, tuple[tuple[int, ...], list[int]]] = {}
        #: seat -> (the finished tricks looked at, the follows among them that
        #: later cards may prove revokes): a cache, no state (_follows_to_prove)
        self._scans: dict[int, tuple[list[Trick], list[tuple[int, int]]]] = {}

    @classmethod
    def deal(
        cls,
        rules: Rules,
        *,
        dealer: int,
        rng: random.Random | None = None,
        level: int = 0,
        call: int | None = None,
        strict: bool = False,
    ) -> Hand:
        """A hand dealt at random and brought to its first lead, for simulations
        and examples: the cards dealt by ``rng`` (:meth:`Deal.shuffled`), the
        draw over with no bid (trump as ``rules.no_bid`` says: NT, or the
        kitty's first card), the dealer burying the kitty it picked up, and with
        find-a-friend (``partners = "called"``) the dealer calling the face
        ``call``. ``dealer`` leads; ``level`` is the rank played at (0 = 2).

        >>> import random
        >>> hand = Hand.deal(Rules.preset("tournament"), dealer=0, rng=random.Random(1))
        >>> move = next(iter(hand.legal_plays()))
        >>> hand.apply(move)
        >>> hand.tricks[0].plays == ((0, move),)
        True

        Bids, other burials and calls: apply the events yourself
        (``Hand(rules, dealer=0)``, then :class:`Deal`, :class:`Bid`,
        :class:`EndDraw`, :class:`Bury`, :class:`Call`).
        """
        if rules.partners == Partners.CALLED and call is None:
            raise HandError(
                'find-a-friend (partners = "called"): give call=, the face the dealer calls (0-53)'
            )
        hand = cls(rules, level=level, dealer=dealer, first_hand=False, strict=strict)
        dealt = Deal.shuffled(rules, rng if rng is not None else random.Random())
        hand.apply(dealt)
        hand.apply(EndDraw())
        hand.apply(Bury(dealt.kitty))
        if call is not None and hand.phase == Phase.CALL:
            hand.apply(Call(call))
        return hand

    # --- the state machine ------------------------------------------------

    def apply(self, event: Event | Sequence[int]) -> None:
        """Apply one event, or raise :class:`IllegalEvent` leaving the state as it was.

        A play may be given as its card ids alone (what :meth:`legal_plays`
        yields): the seat to play plays them."""
        saved: tuple[Any, ...] = _GET_STATE(self)  # self._save()
        try:
            if type(event) is Play:  # the usual event, without the dispatch
                self._play(event)
            else:
                event = self._apply(event)
        except BaseException:
            self._restore(saved)
            raise
        self._stack.append(saved)
        self.events.append(event)

    def undo(self) -> Event:
        """Take back the last event; returns it."""
        if not self._stack:
            raise HandError("nothing to undo")
        self._restore(self._stack.pop())
        return self.events.pop()

    def _save(self) -> tuple[Any, ...]:
        state: tuple[Any, ...] = _GET_STATE(self)
        return state

    def _restore(self, saved: tuple[Any, ...]) -> None:
        for name, value in zip(_STATE, saved, strict=True):
            setattr(self, name, value)

    def _apply(self, event: Event | Sequence[int]) -> Event:
        """Apply an event other than a :class:`Play` as fast; the event applied."""
        if isinstance(event, (tuple, list)):
            event = self._as_play(event)
        if isinstance(event, Play):
            self._play(event)
        elif isinstance(event, Deal):
            self._deal(event)
        elif isinstance(event, Bid):
            self._bid(event)
        elif isinstance(event, EndDraw):
            self._end_draw(event)
        elif isinstance(event, Bury):
            self._bury(event)
        elif isinstance(event, Call):
            self._call(event)
        elif isinstance(event, Challenge):
            self._challenge(event)
        elif isinstance(event, Reveal):
            self._reveal(event)
        elif isinstance(event, Scan):
            self._scan(event)
        else:
            raise HandError(f"not a hand event (nor the card ids of a play): {event!r}")
        return event

    def _as_play(self, cards: Sequence[int]) -> Play:
        """The :class:`Play` of card ids by the seat to play."""
        self._need(Phase.PLAY)
        seat = self.next_seat()
        assert seat is not None
        ids = []
        for c in cards:
            try:
                ids.append(operator.index(c))
            except TypeError:
                raise self._refuse(Reason.BAD_EVENT, f"{c!r} is not a card id", seat) from None
        return Play(seat, tuple(ids))

    # --- helpers ------------------------------------------------------------

    @property
    def ruling(self) -> Ruling:
        """The rules of this hand's level and trump (after the draw)."""
        if self._ruling is None or self._ruling.trump != self.trump:
            self._ruling = Ruling(self.rules, self.level, self.trump)
        return self._ruling

    @property
    def known(self) -> bool:
        """True when every hand is known (a :class:`Deal` was applied)."""
        return self.hands is not None

    def _refuse(self, rule: Reason, message: str, seat: int | None = None) -> IllegalEvent:
        trick = len(self.tricks) - 1 if self.tricks else None
        if self.phase == Phase.PLAY:
            trick = self._trick_index()
        return IllegalEvent([Finding(trick, seat, rule, message)])

    def _need(self, *phases: Phase) -> None:
        if self.phase not in phases:
            raise self._refuse(
                Reason.PHASE,
                f"not now: the hand is in the {self.phase.value} phase "
                f"(expected {' or '.join(p.value for p in phases)})",
            )

    def _check_cards(self, cards: Sequence[int], seat: int | None = None) -> None:
        limit = FACES * self.rules.decks
        for c in cards:
            if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < limit:
                raise self._refuse(
                    Reason.BAD_EVENT,
                    f"{c!r} is not a card id of a {self.rules.decks}-deck game (0-{limit - 1})",
                    seat,
                )
        if len(set(cards)) != len(cards):
            raise self._refuse(Reason.SEEN_TWICE, "the same physical card appears twice", seat)

    def _check_seat(self, seat: int) -> None:
        if isinstance(seat, bool) or seat not in range(SEATS):
            raise self._refuse(Reason.BAD_EVENT, f"bad seat {seat!r}: 0-3")

    def _faces(self, cards: Iterable[int]) -> list[int]:
        return [c % FACES for c in cards]

    def _trick_index(self) -> int:
        if self.tricks and not self.tricks[-1].complete:
            return len(self.tricks) - 1
        return len(self.tricks)

    def next_seat(self) -> int | None:
        """Whose turn it is to play (None outside the play phase)."""
        if self.phase != Phase.PLAY:
            return None
        if not self.tricks:
            return self.dealer
        t = self.tricks[-1]
        if t.complete:
            return t.winner
        return (t.plays[-1][0] + 1) % SEATS

    def current_trick(self) -> Trick | None:
        """The trick being played, if one is started and not complete."""
        if self.tricks and not self.tricks[-1].complete:
            return self.tricks[-1]
        return None

    def held(self, seat: int) -> tuple[int, ...]:
        """The seat's cards (known hands only)."""
        if self.hands is None:
            raise HandError("the hands are not known (no Deal event)")
        return self.hands[seat]

    def legal_plays(self, throws: bool = False) -> LegalPlays:
        """What the seat to play may play now (known hands only): a lazy view
        (:class:`LegalPlays`: ``in``, ``count()``, ``bool``, iteration) of sorted
        tuples of card ids, each of which :meth:`apply` takes. Every follow
        docs/rules.md §6 allows, or every lead (one-unit leads, and with
        ``throws`` every one-suit combination too; whether a throw stands is then
        the hand's question when it is played)."""
        return LegalPlays(self, throws)

    def is_legal(self, seat: int, cards: Sequence[int]) -> tuple[bool, str]:
        """Would :class:`Play` ``(seat, cards)`` be accepted now without a finding?
        ``(ok, why)``; the state does not change."""
        try:
            saved_strict = self.strict
            self.strict = True
            self.apply(Play(seat, tuple(cards)))
        except IllegalEvent as exc:
            return False, str(exc)
        finally:
            self.strict = saved_strict
        self.undo()
        return True, ""

    def played_by(self, seat: int) -> list[int]:
        return [c for t in self.tricks for c in t.cards_of(seat)]

    def _set_hand(self, seat: int, cards: Iterable[int]) -> None:
        assert self.hands is not None
        hands = list(self.hands)
        hands[seat] = tuple(sorted(cards))
        self.hands = tuple(hands)

    def _finding(self, f: Finding) -> None:
        if self.strict:
            raise IllegalEvent([f])
        self.findings = (*self.findings, f)

    # --- draw ---------------------------------------------------------------

    def _deal(self, e: Deal) -> None:
        self._need(Phase.DRAW)
        if self.hands is not None:
            raise self._refuse(Reason.BAD_EVENT, "the hand is already dealt")
        r = self.rules
        if len(e.hands) != SEATS:
            raise self._refuse(Reason.BAD_EVENT, "a deal has four hands")
        for s, h in enumerate(e.hands):
            if len(h) != r.hand_size:
                raise self._refuse(
                    Reason.BAD_EVENT, f"seat {s} has {len(h)} cards; a hand has {r.hand_size}"
                )
        if len(e.kitty) != r.kitty_size:
            raise self._refuse(
                Reason.BAD_EVENT, f"the kitty has {len(e.kitty)} cards; it has {r.kitty_size}"
            )
        every = [c for h in e.hands for c in h] + list(e.kitty)
        self._check_cards(every)
        if len(every) != r.card_count:
            raise self._refuse(Reason.BAD_EVENT, "the deal does not hold every card once")
        for seat, cards in self.bids:
            if not set(cards) <= set(e.hands[seat]):
                raise self._refuse(Reason.NOT_IN_HAND, f"seat {seat} bid with cards it was not dealt")
        self.hands = tuple(tuple(sorted(h)) for h in e.hands)
        self.dealt_kitty = e.kitty

    def _declaring(self) -> bidding.Declaring:
        d = bidding.Declaring(
            level=self.level,
            decks=self.rules.decks,
            allow_self_override=self.rules.allow_self_override,
        )
        d.standing, d.first = self.standing, self.first_bid
        return d

    def _bid(self, e: Bid) -> None:
        self._need(Phase.DRAW)
        self._check_seat(e.seat)
        self._check_cards(e.cards, e.seat)
        if self.hands is not None and not set(e.cards) <= set(self.hands[e.seat]):
            raise self._refuse(Reason.NOT_IN_HAND, "a bid with cards the seat does not hold", e.seat)
        d = self._declaring()
        try:
            b = d.check(e.seat, self._faces(e.cards))
        except bidding.BidError as exc:
            raise self._refuse(Reason.BAD_BID, str(exc), e.seat) from None
        self.standing = b
        if self.first_bid is None:
            self.first_bid = b
        self.bids = (*self.bids, (e.seat, e.cards))

    def would_accept_bid(self, seat: int, cards: Sequence[int]) -> bool:
        """Whether :class:`Bid` ``(seat, cards)`` would be accepted now."""
        if self.phase != Phase.DRAW:
            return False
        return self.bid_refusal(seat, cards) is None

    def bid_refusal(self, seat: int, cards: Sequence[int]) -> bidding.BidError | None:
        """Why :class:`Bid` ``(seat, cards)`` would be refused now, or None if it
        would be accepted (:class:`shengji.bidding.SelfOverrideError` for a
        self-override that ``allow_self_override = false`` forbids)."""
        if self.phase != Phase.DRAW:
            return bidding.BidError("bids are made during the draw")
        try:
            self._declaring().check(seat, self._faces(cards))
        except bidding.BidError as exc:
            return exc
        return None

    def _end_draw(self, e: EndDraw) -> None:
        self._need(Phase.DRAW)
        kitty_order = self.dealt_kitty if self.dealt_kitty is not None else e.kitty
        try:
            r = bidding.resolve(
                self.standing,
                self.first_bid,
                level=self.level,
                first_hand=self.first_hand,
                dealer=self.dealer,
                no_bid=self.rules.no_bid.value,
                first_dealer=self.rules.first_dealer.value,
                kitty=self._faces(kitty_order) if kitty_order else None,
                permanent_twos=self.rules.permanent_twos,
            )
        except bidding.BidError as exc:
            raise self._refuse(Reason.BAD_EVENT, str(exc)) from None
        if r.redeal:
            self.redeal = True
            self.phase = Phase.DONE
            return
        self.dealer, self.declarer, self.trump, self.flipped = (
            r.dealer,
            r.declarer,
            r.trump,
            r.flipped,
        )
        if self.hands is not None and self.dealt_kitty is not None:
            assert r.dealer is not None
            self._set_hand(r.dealer, self.hands[r.dealer] + self.dealt_kitty)
        self.phase = Phase.BURY

    # --- kitty and friend ---------------------------------------------------

    def _bury(self, e: Bury) -> None:
        self._need(Phase.BURY)
        assert self.dealer is not None
        self._check_cards(e.cards, self.dealer)
        size = self.rules.kitty_size
        if self.hands is not None:
            if len(e.cards) != size:
                raise self._refuse(
                    Reason.WRONG_COUNT, f"the dealer buries {size} cards, not {len(e.cards)}", self.dealer
                )
            hand = self.hands[self.dealer]
            if not set(e.cards) <= set(hand):
                raise self._refuse(Reason.NOT_IN_HAND, "buried cards the dealer does not hold", self.dealer)
            self._set_hand(self.dealer, [c for c in hand if c not in set(e.cards)])
            self.buried = tuple(e.cards)
        elif e.cards:
            if len(e.cards) != size:
                raise self._refuse(
                    Reason.WRONG_COUNT, f"the dealer buries {size} cards, not {len(e.cards)}", self.dealer
                )
            self.buried = tuple(e.cards)
        if self.rules.partners == Partners.CALLED:
            self.phase = Phase.CALL
        else:
            self.defenders = tuple(sorted((self.dealer, (self.dealer + 2) % SEATS)))
            self.phase = Phase.PLAY

    def _call(self, e: Call) -> None:
        self._need(Phase.CALL)
        if isinstance(e.face, bool) or not isinstance(e.face, int) or not 0 <= e.face < FACES:
            raise self._refuse(Reason.BAD_EVENT, f"{e.face!r} is not a face 0-53", self.dealer)
        self.friend_face = e.face
        self.phase = Phase.PLAY
        self._resolve_friend()

    def _resolve_friend(self) -> None:
        """Find-a-friend (docs/rules.md §9.1): the partner is the nearest seat after the dealer in
        play order that holds a copy of the called face after the burial (the holder
        of "the other copy" when the dealer holds one); nobody: the dealer is alone.
        Without known hands, it is settled once every copy is located."""
        if self.defenders is not None or self.friend_face is None:
            return
        assert self.dealer is not None
        d, face = self.dealer, self.friend_face
        order = [(d + i) % SEATS for i in range(1, SEATS)]
        if self.hands is not None:
            holders = {s for s in range(SEATS) if any(c % FACES == face for c in self.hands[s])}
            holders |= {s for t in self.tricks for s, cs in t.plays if any(c % FACES == face for c in cs)}
        else:
            holders = {s for t in self.tricks for s, cs in t.plays if any(c % FACES == face for c in cs)}
            located = sum(1 for t in self.tricks for _, cs in t.plays for c in cs if c % FACES == face)
            located += sum(1 for c in (self.buried or self.seen_kitty or ()) if c % FACES == face)
            nearest = order[0] in holders
            if not nearest and located < self.rules.decks and self.phase != Phase.DONE:
                return
        partner = next((s for s in order if s in holders), None)
        self.defenders = (d,) if partner is None else tuple(sorted((d, partner)))

    def _scan(self, e: Scan) -> None:
        self._need(Phase.CALL, Phase.PLAY)
        if self.tricks:
            raise self._refuse(Reason.PHASE, "hands are scanned before the first play")
        if self.hands is not None:
            raise self._refuse(Reason.BAD_EVENT, "the hands are known already")
        r = self.rules
        if len(e.hands) != SEATS or any(len(h) != r.hand_size for h in e.hands):
            raise self._refuse(Reason.BAD_EVENT, f"a scan has four hands of {r.hand_size} cards")
        if len(e.buried) != r.kitty_size:
            raise self._refuse(Reason.BAD_EVENT, f"a scan has the {r.kitty_size} buried cards")
        every = [c for h in e.hands for c in h] + list(e.buried)
        self._check_cards(every)
        if len(every) != r.card_count:
            raise self._refuse(Reason.BAD_EVENT, "the scan does not hold every card once")
        if self.buried is not None and set(self.buried) != set(e.buried):
            raise self._refuse(Reason.BAD_EVENT, "the scanned kitty is not the one buried")
        self.hands = tuple(tuple(sorted(h)) for h in e.hands)
        self.buried = tuple(e.buried)
        self._resolve_friend()

    # --- play ---------------------------------------------------------------

    def _play(self, e: Play) -> None:
        # The checks in this order; each fast test falls back on the full one,
        # which names what is wrong (a play is the hot path: docs/performance.md).
        if self.phase is not Phase.PLAY:
            self._need(Phase.PLAY)
        seat, cards = e.seat, tuple(e.cards)
        if type(seat) is not int or not 0 <= seat < SEATS:
            self._check_seat(seat)
        if self.rules.hand_scan and self.hands is None:
            raise self._refuse(
                Reason.PHASE, "hand_scan: scan every hand and the buried kitty before the first play", seat
            )
        # next_seat(), current_trick() and _trick_index() in one look at the last trick
        tricks = self.tricks
        trick: Trick | None = None
        if not tricks:
            turn, t_index = self.dealer, 0
        elif len(tricks[-1].plays) == SEATS:
            turn, t_index = tricks[-1].winner, len(tricks)
        else:
            trick = tricks[-1]
            turn, t_index = (trick.plays[-1][0] + 1) % SEATS, len(tricks) - 1
        if seat != turn:
            raise self._refuse(Reason.OUT_OF_TURN, f"it is seat {turn}'s turn, not seat {seat}'s", seat)
        if not cards:
            raise self._refuse(Reason.WRONG_COUNT, "a play has at least one card", seat)
        limit = FACES * self.rules.decks
        for c in cards:
            if type(c) is not int or not 0 <= c < limit:
                self._check_cards(cards, seat)  # names what is wrong
        if len(cards) > 1 and len(set(cards)) != len(cards):
            self._check_cards(cards, seat)
        self._check_unseen(cards, seat)
        faces = [c % FACES for c in cards]
        ruling = self.ruling
        if trick is None:
            # a lead: every trick before it is finished, each seat played as
            # many cards in each, every card once (without the hands, the
            # count of cards played tells how many each seat has left)
            played = len(self.played)
            if self.hands is None and played % SEATS == 0:
                left = self.rules.hand_size - played // SEATS
            else:
                left = self._cards_left(seat)
            if len(cards) > left:
                raise self._refuse(Reason.WRONG_COUNT, f"seat {seat} has only {left} cards left", seat)
            if not ruling.one_suit(faces):
                raise self._refuse(
                    Reason.MIXED_SUITS, "a lead must be of one effective suit (all trump, or one suit)", seat
                )
            new = _new_trick(seat, ((seat, cards),))
            # (the trick's Lead, built here once: its decomposition tells a throw)
            if self.hands is not None and len(faces) > 1 and ruling.lead(faces).decomposition.is_throw:
                ok, forced, beaters = ruling.throw(
                    seat, faces, [self._faces(h) for h in self.hands]
                )
                if not ok:
                    forced_ids = _pick(cards, forced)
                    new = Trick(
                        leader=seat,
                        plays=((seat, forced_ids),),
                        attempt=cards,
                        forced_by=tuple(beaters),
                    )
                    self._penalise(t_index, seat)
                    cards = forced_ids
            self.tricks = (*self.tricks, new)
        else:
            lead = trick.lead
            if len(cards) != len(lead):
                raise self._refuse(
                    Reason.WRONG_COUNT,
                    f"the lead has {len(lead)} card{'s' if len(lead) > 1 else ''}; "
                    f"seat {seat} played {len(cards)}",
                    seat,
                )
            if self.hands is not None:
                # ruling.follow(lead faces, hand faces, faces), the hand counted from its ids
                v = _play.check_follow_counts(ruling.order, self._lead_of(lead), self._hand_counts(seat), faces)
                if not v.legal:
                    self._revoke(t_index, seat, v.message, "play")
            self.tricks = (*self.tricks[:-1], _with_plays(trick, (*trick.plays, (seat, cards))))
        if self.hands is not None:
            hands = list(self.hands)
            was = hands[seat]
            kept = list(was)
            for c in cards:  # each is held once (_check_unseen): the rest stays sorted
                kept.remove(c)
            hands[seat] = now = tuple(kept)
            self.hands = tuple(hands)
            cached = self._counts_of.get(seat)
            if cached is not None and cached[0] is was:
                cnt = cached[1][:]
                for c in cards:
                    cnt[c % FACES] -= 1
                self._counts_of[seat] = (now, cnt)
        self.played = self.played.union(cards)
        if self.hands is None:
            self._prove_revokes(seat)
        if self.defenders is None:
            self._resolve_friend()
        if len(self.tricks[-1].plays) == SEATS:
            self._finish_trick()
        if self.forfeit is not None and self.phase == Phase.PLAY:
            self.phase = Phase.DONE
            self._resolve_friend()  # as far as the cards seen tell

    def _lead_of(self, lead: tuple[int, ...]) -> _Lead:
        """The Lead of a trick's lead (card ids), kept for the trick's follows."""
        last = self._last_lead
        ruling = self.ruling
        if last is not None and last[0] is lead and last[1] is ruling:
            return last[2]
        got = ruling.lead([c % FACES for c in lead])
        self._last_lead = (lead, ruling, got)
        return got

    def _hand_counts(self, seat: int) -> list[int]:
        """The face counts of the seat's known hand (kept up to date by the plays)."""
        assert self.hands is not None
        hand = self.hands[seat]
        cached = self._counts_of.get(seat)
        if cached is not None and cached[0] is hand:
            return cached[1]
        cnt = _id_counts(hand)
        self._counts_of[seat] = (hand, cnt)
        return cnt

    def _check_unseen(self, cards: Sequence[int], seat: int) -> None:
        buried = self.buried
        if (
            self.played.isdisjoint(cards)
            and (not buried or (cards[0] not in buried if len(cards) == 1 else buried_disjoint(buried, cards)))
            and (
                self.hands is None
                or (cards[0] in self.hands[seat] if len(cards) == 1 else set(self.hands[seat]).issuperset(cards))
            )
        ):
            return  # the usual case, in C; the lists below name what is wrong
        again = [c for c in cards if c in self.played or (self.buried and c in self.buried)]
        if again:
            raise self._refuse(
                Reason.SEEN_TWICE,
                f"{format_faces(self._faces(again))} (card id {', '.join(map(str, again))}) "
                "was already played or buried",
                seat,
            )
        if self.hands is not None:
            mine = set(self.hands[seat])
            missing = [c for c in cards if c not in mine]
            if missing:
                raise self._refuse(
                    Reason.NOT_IN_HAND,
                    f"seat {seat} does not hold {format_faces(self._faces(missing))}",
                    seat,
                )

    def _cards_left(self, seat: int) -> int:
        if self.hands is not None:
            return len(self.hands[seat])
        played = 0
        for t in self.tricks:  # _cards_in(t, seat), inlined (a lead's hot path)
            plays = t.plays
            i = (seat - t.leader) % SEATS
            if i < len(plays) and plays[i][0] == seat:
                played += len(plays[i][1])
            else:
                played += len(t.cards_of(seat))
        return self.rules.hand_size - played

    def _penalise(self, trick: int, seat: int) -> None:
        if self.rules.throw_penalty:
            self.penalties = (*self.penalties, (trick, seat, self.rules.throw_penalty))

    def _revoke(self, trick: int, seat: int, why: str, at: str) -> None:
        f = Finding(trick, seat, Reason.REVOKE, why, at)
        if any(x.rule == Reason.REVOKE and x.trick == trick and x.seat == seat for x in self.findings):
            return
        self._finding(f)
        if self.rules.revoke == Revoke.FORFEIT and self.forfeit is None:
            self.forfeit = seat

    def _finish_trick(self) -> None:
        t = self.tricks[-1]
        # ruling.winner and ruling.points in one pass (the trick's Lead is the followers')
        ruling = self.ruling
        faces = [[c % FACES for c in cards] for _, cards in t.plays]
        if len(faces[0]) == 1:
            win, points, _key = _play.single_trick(ruling.order, faces)
            winner = (t.leader + win) % SEATS
        else:
            won = _play.trick_winner_faces(ruling.order, self._lead_of(t.plays[0][1]), faces, t.leader)
            winner, points = won.winner, won.points
        self.tricks = (
            *self.tricks[:-1],
            _new_trick(t.leader, t.plays, t.attempt, t.forced_by, winner, points, t.shown),
        )
        hands = self.hands
        if (
            (not any(hands))
            if hands is not None
            # (every card played is played once: the hands are empty only when
            # as many cards as they held are played)
            else len(self.played) == SEATS * self.rules.hand_size
            and all(self._cards_left(s) == 0 for s in range(SEATS))
        ):
            self._end_of_play()

    def _end_of_play(self) -> None:
        if self.hands is None:
            self._audit()
        if self.buried is None and self.forfeit is None:
            self.phase = Phase.REVEAL
        else:
            self.phase = Phase.DONE
            self._resolve_friend()

    def _challenge(self, e: Challenge) -> None:
        self._need(Phase.PLAY)
        self._check_seat(e.seat)
        self._check_cards(e.cards, e.seat)
        trick = self.current_trick()
        if trick is None or len(trick.plays) != 1:
            raise self._refuse(
                Reason.BAD_CHALLENGE, "a throw is challenged right after it is led, before the next play", e.seat
            )
        if trick.attempt:
            raise self._refuse(Reason.BAD_CHALLENGE, "this throw was already forced", e.seat)
        if e.seat == trick.leader:
            raise self._refuse(Reason.BAD_CHALLENGE, "the leader cannot challenge its own throw", e.seat)
        lead = trick.lead
        faces = self._faces(lead)
        ruling = self.ruling
        if not ruling.is_throw(faces):
            raise self._refuse(Reason.BAD_CHALLENGE, "the lead is one unit, not a throw", e.seat)
        self._check_unseen(e.cards, e.seat)
        hands: list[list[int]] = [[] for _ in range(SEATS)]
        hands[e.seat] = self._faces(e.cards)
        ok, forced, _ = ruling.throw(trick.leader, faces, hands)
        if ok:
            raise self._refuse(
                Reason.BAD_CHALLENGE,
                f"{format_faces(hands[e.seat])} beats no unit of the throw {format_faces(faces)}",
                e.seat,
            )
        forced_ids = _pick(lead, forced)
        t_index = self._trick_index()
        back = set(lead) - set(forced_ids)
        self.tricks = (
            *self.tricks[:-1],
            Trick(
                leader=trick.leader,
                plays=((trick.leader, forced_ids),),
                attempt=lead,
                forced_by=(e.seat,),
                shown=tuple(e.cards),
            ),
        )
        self.played = self.played - back
        if self.hands is not None:
            self._set_hand(trick.leader, self.hands[trick.leader] + tuple(back))
        self._penalise(t_index, trick.leader)

    def _reveal(self, e: Reveal) -> None:
        self._need(Phase.REVEAL)
        self._check_cards(e.cards)
        if len(e.cards) != self.rules.kitty_size:
            raise self._refuse(
                Reason.WRONG_COUNT, f"the kitty has {self.rules.kitty_size} cards, not {len(e.cards)}"
            )
        again = [c for c in e.cards if c in self.played]
        if again:
            raise self._refuse(Reason.SEEN_TWICE, f"{format_faces(self._faces(again))} was played")
        self.seen_kitty = tuple(e.cards)
        self.buried = tuple(e.cards)
        self.phase = Phase.DONE
        self._resolve_friend()

    # --- partial knowledge (docs/rules.md §10.1) ----------------------------

    def _holding(self, seat: int, t_index: int) -> list[int]:
        """The seat's cards at the start of trick ``t_index`` as far as the cards
        seen prove them: every card it played from that trick on (no cards are
        drawn during play), the whole attempted throw included."""
        out: list[int] = []
        for t in self.tricks[t_index:]:
            if t.leader == seat and t.attempt:
                out.extend(t.attempt)
            else:
                out.extend(t.cards_of(seat))
        # cards of a forced throw returned to the hand are played later: no double count
        return sorted(set(out))

    def _prove_revokes(self, seat: int) -> None:
        """After a play by ``seat``: every earlier follow of that seat that the
        cards seen so far prove illegal.

        A follow's verdict depends only on the follower's cards of the led suit
        (docs/rules.md §6: every rule is about "your cards of the led
        suit"), so only the follows whose led suit this play brings cards of are
        checked again. For the others the holding of that suit is the one the
        seat's previous play left, already checked (legal, or its revoke
        recorded), or the follow itself (all its cards of the suit: legal).
        The same findings as checking every earlier follow, in far less time.
        """
        tricks = self.tricks
        current = len(tricks) - 1
        last = tricks[current]
        new = last.attempt if last.leader == seat and last.attempt else _cards_in(last, seat)
        # the follows to check again, earliest first: of the seat's follows in
        # the finished tricks, those not legal by themselves (kept per seat)
        maybe = self._follows_to_prove(seat, current)
        if not maybe:
            return
        ruling = self.ruling
        esuit = ruling.order.esuit
        suits = {esuit[c % FACES] for c in new}
        todo = [i for i, led in maybe if led in suits]
        if not todo:
            return
        # their holdings (_holding(seat, i)), built from the last trick back in one pass
        held = set(new)
        holdings: dict[int, list[int]] = {}
        j = current - 1
        for i in reversed(todo):
            while j >= i:
                t = tricks[j]
                held.update(t.attempt if t.leader == seat and t.attempt else _cards_in(t, seat))
                j -= 1
            holdings[i] = sorted(held)
        for i in todo:
            self._check_follow_at(i, tricks[i], seat, "play", holdings[i])

    def _follows_to_prove(self, seat: int, current: int) -> list[tuple[int, int]]:
        """(trick index, led suit) of the seat's follows in the tricks before
        ``current`` that are not legal by themselves (all of the led suit, the
        lead's own structure: :meth:`_matches_lead`); only those may be proven
        revokes by later cards. A finished trick never changes, so the list is
        kept per seat and grown by the tricks finished since (a cache, no
        state: the tricks it was made from are kept and compared by identity,
        so an undo that replaced them is seen)."""
        tricks = self.tricks
        scan = self._scans.get(seat)
        if scan is None:
            scan = self._scans[seat] = ([], [])
        objs, found = scan
        n = len(objs)
        if n:
            last = min(n, current) - 1
            if last >= 0 and objs[last] is not tricks[last]:
                # tricks replaced (an undo, then other events): from where they differ
                k = 0
                while k <= last and objs[k] is tricks[k]:
                    k += 1
                last = k - 1
            if last + 1 < n:
                del objs[last + 1 :]
                found[:] = [x for x in found if x[0] <= last]
        if len(objs) >= current:
            return found
        esuit = self.ruling.order.esuit
        for i in range(len(objs), current):
            t = tricks[i]
            objs.append(t)
            if t.leader == seat:
                continue
            lead = t.plays[0][1]
            led = esuit[lead[0] % FACES]
            mine = _cards_in(t, seat)
            if not mine:
                continue
            if all(esuit[c % FACES] == led for c in mine) and self._matches_lead(lead, mine):
                continue
            found.append((i, led))
        return found

    def _matches_lead(self, lead: tuple[int, ...], play: tuple[int, ...]) -> bool:
        """Does a follow all of the led suit have the lead's own structure
        (single cards to single cards; the lead's units, shape for shape: what
        may win the trick, ``Ruling.key``)? Then it is legal whatever else the
        follower holds: it is the best each rule of docs/rules.md §6
        asks for. Kept per (trump, lead, play): a cache, no state."""
        key = (self.trump, lead, play)
        got = self._matching.get(key)
        if got is None:
            faces = [c % FACES for c in lead]
            got = self.ruling.lead(faces).decomposition.max_width == 1 or (
                self.ruling.key(faces, [c % FACES for c in play]) is not None
            )
            self._matching[key] = got
        return got

    def _check_follow_at(
        self, i: int, t: Trick, seat: int, at: str, holding: list[int] | None = None
    ) -> None:
        """``holding``: ``_holding(seat, i)`` when the caller has it."""
        if any(x.rule == Reason.REVOKE and x.trick == i and x.seat == seat for x in self.findings):
            return
        if holding is None:
            holding = self._holding(seat, i)
        ok, why = self.ruling.follow(
            self._faces(t.lead), self._faces(holding), self._faces(t.cards_of(seat))
        )
        if not ok:
            proof = "" if at == "audit" else " (proven by cards played later)"
            self._revoke(i, seat, why + proof, at)

    def _audit(self) -> None:
        """The end of the hand: every hand is now known; audit every trick."""
        for seat, cards in self.bids:
            if seat == self.dealer or not self.tricks:
                continue  # the dealer may have buried its bid cards
            foreign = [c for c in cards if c not in set(self._holding(seat, 0))]
            if foreign:
                self._finding(
                    Finding(
                        None,
                        seat,
                        Reason.BAD_BID,
                        f"seat {seat} bid with {format_faces(self._faces(foreign))}, "
                        "which it never played: it was not in its hand",
                        "audit",
                    )
                )
        for i, t in enumerate(self.tricks):
            if t.shown:
                seat = t.forced_by[0]
                foreign = [c for c in t.shown if c not in set(self._holding(seat, i))]
                if foreign:
                    self._finding(
                        Finding(
                            i,
                            seat,
                            Reason.BAD_CHALLENGE,
                            f"seat {seat} challenged the throw with "
                            f"{format_faces(self._faces(foreign))}, which it did not hold",
                            "audit",
                        )
                    )
            for seat, _ in t.plays[1:]:
                self._check_follow_at(i, t, seat, "audit")
            faces = self._faces(t.attempt or t.lead)
            if not t.attempt and self.ruling.is_throw(faces):
                hands = [self._faces(self._holding(s, i)) for s in range(SEATS)]
                ok, forced, beaters = self.ruling.throw(t.leader, faces, hands)
                if not ok:
                    self._finding(
                        Finding(
                            i,
                            t.leader,
                            Reason.THROW_SHOULD_FAIL,
                            f"the throw {format_faces(faces)} should have failed "
                            f"(seat {', '.join(map(str, beaters))} could beat it; "
                            f"{format_faces(forced)} would have been forced); nobody challenged it",
                            "audit",
                        )
                    )

    # --- results --------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.phase == Phase.DONE

    def attackers(self) -> tuple[int, ...] | None:
        if self.defenders is None:
            return None
        return tuple(s for s in range(SEATS) if s not in self.defenders)

    def trick_points_by_seat(self) -> list[int]:
        out = [0] * SEATS
        for t in self.tricks:
            if t.winner is not None:
                out[t.winner] += t.points
        return out

    def result(self) -> HandResult:
        """The score of the finished hand (not for a redeal)."""
        if self.phase != Phase.DONE or self.redeal:
            raise HandError("the hand is not over" if not self.redeal else "a redeal has no result")
        assert self.dealer is not None
        defenders = self.defenders or (self.dealer, (self.dealer + 2) % SEATS)
        attackers = tuple(s for s in range(SEATS) if s not in defenders)
        by_seat = self.trick_points_by_seat()
        trick_points = sum(by_seat[s] for s in attackers)
        penalty = 0
        for _, seat, pts in self.penalties:
            penalty += pts if seat in defenders else -pts
        last = self.tricks[-1] if self.tricks and self.tricks[-1].complete else None
        kitty_cards = self.buried or ()
        kpoints = kitty.kitty_points(kitty_cards)
        mult = bonus = 0
        kitty_j = False
        last_winner = last.winner if last is not None else None
        complete = last is not None and all(self._cards_left(s) == 0 for s in range(SEATS))
        if complete and last is not None and last_winner in attackers:
            d = self.ruling.decompose(self._faces(last.lead))
            assert d is not None
            win_faces = self._faces(last.cards_of(last_winner))
            mult, bonus = kitty.bonus(
                kitty_cards,
                [u.shape for u in d.units],
                policy=self.rules.kitty_multiplier.value,
                requires_trump=self.rules.kitty_requires_trump,
                winner_is_trump=all(self.ruling.is_trump(f) for f in win_faces),
            )
            kitty_j = any(f < 52 and f % 13 == settle.JACK for f in win_faces)
        return HandResult(
            dealer=self.dealer,
            level=self.level,
            trump=self.trump,
            defenders=tuple(defenders),
            attackers=attackers,
            trick_points=trick_points,
            kitty_points=kpoints,
            multiplier=mult,
            kitty_bonus=bonus,
            penalty=penalty,
            score=trick_points + bonus + penalty,
            last_winner=last_winner,
            kitty_j=kitty_j,
            forfeit=self.forfeit,
        )

    def outcome(self) -> Outcome | None:
        """How the hand ended and its score, or None while it is not over."""
        if self.phase != Phase.DONE:
            return None
        if self.redeal:
            return Outcome(Termination.REDEAL, None)
        result = self.result()
        termination = Termination.COMPLETED if result.forfeit is None else Termination.FORFEIT
        return Outcome(termination, result)

    # --- identity ------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """The whole state as plain JSON values (sorted where order is no part of it)."""

        def bid(b: bidding.StandingBid | None) -> list[int] | None:
            return None if b is None else [b.seat, b.kind, b.count]

        return {
            "rules": self.rules.to_dict(),
            "level": self.level,
            "first_hand": self.first_hand,
            "phase": self.phase.value,
            "hands": None if self.hands is None else [sorted(h) for h in self.hands],
            "dealt_kitty": None if self.dealt_kitty is None else list(self.dealt_kitty),
            "standing": bid(self.standing),
            "first_bid": bid(self.first_bid),
            "bids": [[s, list(c)] for s, c in self.bids],
            "dealer": self.dealer,
            "declarer": self.declarer,
            "trump": self.trump,
            "redeal": self.redeal,
            "flipped": self.flipped,
            "buried": None if self.buried is None else sorted(self.buried),
            "friend_face": self.friend_face,
            "defenders": None if self.defenders is None else list(self.defenders),
            "tricks": [
                {
                    "leader": t.leader,
                    "plays": [[s, list(c)] for s, c in t.plays],
                    "attempt": list(t.attempt),
                    "forced_by": list(t.forced_by),
                    "winner": t.winner,
                    "points": t.points,
                    "shown": list(t.shown),
                }
                for t in self.tricks
            ],
            "played": sorted(self.played),
            "penalties": [list(p) for p in self.penalties],
            "findings": [[f.trick, f.seat, f.rule.value, f.message, f.at] for f in self.findings],
            "forfeit": self.forfeit,
            "seen_kitty": None if self.seen_kitty is None else list(self.seen_kitty),
        }

    def state_hash(self) -> str:
        """SHA-256 (hex, 16 digits) of the canonical JSON of :meth:`state_dict`."""
        text = json.dumps(self.state_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def __repr__(self) -> str:
        trump = "NT" if self.trump is None else "SHDC"[self.trump]
        return (
            f"<Hand {self.phase.value} level={settle.level_name(self.level)} "
            f"dealer={self.dealer} trump={trump if self.phase != Phase.DRAW else '?'} "
            f"tricks={len(self.tricks)}>"
        )


_TRICK_FIELDS = ("leader", "plays", "attempt", "forced_by", "winner", "points", "shown")
# a field added to Trick must be set by _with_plays too
assert tuple(f.name for f in dataclasses.fields(Trick)) == _TRICK_FIELDS, "update _with_plays"
_SLOTS = {name: getattr(Trick, name).__set__ for name in _TRICK_FIELDS}
_SET_LEADER, _SET_PLAYS, _SET_ATTEMPT, _SET_FORCED_BY, _SET_WINNER, _SET_POINTS, _SET_SHOWN = _SLOTS.values()


def _cards_in(t: Trick, seat: int) -> tuple[int, ...]:
    """``t.cards_of(seat)`` without the search: the plays go round the table
    from the leader, so a seat's is at (seat - leader) mod 4, once."""
    i = (seat - t.leader) % SEATS
    plays = t.plays
    if i < len(plays) and plays[i][0] == seat:
        return plays[i][1]
    return t.cards_of(seat)  # not in turn order (never made by Hand): search


def _new_trick(
    leader: int,
    plays: tuple[tuple[int, tuple[int, ...]], ...],
    attempt: tuple[int, ...] = (),
    forced_by: tuple[int, ...] = (),
    winner: int | None = None,
    points: int = 0,
    shown: tuple[int, ...] = (),
) -> Trick:
    """``Trick(...)`` on a play's hot path: the frozen Trick's slots set
    directly (its own __init__ sets each through object.__setattr__, about
    twice the time); the same fields, the same defaults."""
    new: Trick = object.__new__(Trick)
    _SET_LEADER(new, leader)
    _SET_PLAYS(new, plays)
    _SET_ATTEMPT(new, attempt)
    _SET_FORCED_BY(new, forced_by)
    _SET_WINNER(new, winner)
    _SET_POINTS(new, points)
    _SET_SHOWN(new, shown)
    return new


def _with_plays(t: Trick, plays: tuple[tuple[int, tuple[int, ...]], ...]) -> Trick:
    """``dataclasses.replace(t, plays=plays)`` on a play's hot path."""
    return _new_trick(t.leader, plays, t.attempt, t.forced_by, t.winner, t.points, t.shown)


def buried_disjoint(buried: tuple[int, ...], cards: Sequence[int]) -> bool:
    for c in cards:
        if c in buried:
            return False
    return True


def _id_counts(cards: Iterable[int]) -> list[int]:
    """The face counts of card ids."""
    out = [0] * FACES
    for c in cards:
        out[c % FACES] += 1
    return out


def _pick(cards: Sequence[int], faces: Sequence[int]) -> tuple[int, ...]:
    """Card ids out of ``cards`` with the given faces (multiset)."""
    pool = list(cards)
    out = []
    for f in faces:
        for i, c in enumerate(pool):
            if c % FACES == f:
                out.append(pool.pop(i))
                break
        else:
            raise HandError(f"{face_name(f)} is not among the cards")
    return tuple(out)
