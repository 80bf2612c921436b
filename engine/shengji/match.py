"""The match: hands one after another, levels, dealers, the end (docs/rules.md §8-§9);
and the drivers that play hands with bots.

- :class:`Match` keeps the levels (per side, or per seat with find-a-friend),
  the next dealer and the history; ``match.new_hand()`` gives the next
  :class:`~shengji.hand.Hand`, ``match.finish(hand)`` settles it (a redeal changes
  nothing), ``match.undo()`` takes the last settlement back.
- :func:`iter_hand` plays one hand with bots and yields every event *before* it
  is applied, with the hand as it stands (:class:`Step`); :func:`play_hand` runs
  it to the end. :func:`iter_plays` yields each play with everything a second
  rules engine needs to judge it (:class:`PlayContext`) — the differential
  fuzzers use it.
- :func:`play_match` plays a whole match (or some hands) and returns the
  :class:`Match`.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from . import settle
from .bots import Bot
from .cards import FACES
from .hand import (
    Bid,
    Bury,
    Call,
    Deal,
    EndDraw,
    Event,
    Hand,
    HandError,
    HandResult,
    Phase,
    Play,
)
from .rules import Partners, Rules

__all__ = [
    "HandSummary",
    "Match",
    "PlayContext",
    "Step",
    "deal_cards",
    "iter_hand",
    "iter_plays",
    "make_bots",
    "play_hand",
    "play_match",
]


def deal_cards(rules: Rules, rng: random.Random) -> Deal:
    """A shuffled deal: every card id once, in draw order per seat, then the
    kitty (:meth:`Deal.shuffled`; the same shape as :func:`shengji.playout.deal`)."""
    return Deal.shuffled(rules, rng)


def make_bots(strengths: Sequence[int] | int = 1, seed: int = 0) -> list[Bot]:
    """Four bots, seeded from ``seed`` (strengths: one for all, or one per seat)."""
    if isinstance(strengths, int):
        strengths = [strengths] * 4
    if len(strengths) != 4:
        raise ValueError("give one strength, or four (one per seat)")
    return [Bot(s, strengths[s], seed=seed * 4 + s) for s in range(4)]


@dataclass(frozen=True, slots=True)
class Step:
    """One event of a bot-played hand, yielded before it is applied to ``hand``."""

    hand: Hand
    event: Event


def iter_hand(
    rules: Rules,
    bots: Sequence[Bot],
    rng: random.Random,
    *,
    level: int = 0,
    dealer: int | None = None,
    first_hand: bool | None = None,
    strict: bool = True,
) -> Iterator[Step]:
    """Play one hand with ``bots`` (one per seat), yielding each event before
    applying it. The deal comes from ``rng``. A redeal (no bid on the first hand)
    ends the hand after :class:`EndDraw`."""
    hand = Hand(rules, level=level, dealer=dealer, first_hand=first_hand, strict=strict)
    deal = deal_cards(rules, rng)
    yield Step(hand, deal)
    hand.apply(deal)
    start = 0 if dealer is None else dealer
    drawn: list[list[int]] = [[] for _ in range(4)]
    n = rules.hand_size
    for i in range(4 * n):
        seat = (start + i) % 4
        drawn[seat].append(deal.hands[seat][len(drawn[seat])])
        show = bots[seat].bid(hand, drawn[seat], n)
        if show is not None:
            ev: Event = Bid(seat, show)
            yield Step(hand, ev)
            hand.apply(ev)
    ev = EndDraw()
    yield Step(hand, ev)
    hand.apply(ev)
    if hand.redeal:
        return
    assert hand.dealer is not None
    ev = Bury(bots[hand.dealer].bury(hand))
    yield Step(hand, ev)
    hand.apply(ev)
    if hand.phase == Phase.CALL:
        ev = Call(bots[hand.dealer].call(hand))
        yield Step(hand, ev)
        hand.apply(ev)
    while hand.phase == Phase.PLAY:
        turn = hand.next_seat()
        assert turn is not None
        ev = Play(turn, bots[turn].play(hand))
        yield Step(hand, ev)
        hand.apply(ev)


def play_hand(
    rules: Rules,
    bots: Sequence[Bot],
    rng: random.Random,
    *,
    level: int = 0,
    dealer: int | None = None,
    first_hand: bool | None = None,
    strict: bool = True,
) -> Hand:
    """:func:`iter_hand` to the end; the finished hand."""
    hand: Hand | None = None
    for step in iter_hand(
        rules, bots, rng, level=level, dealer=dealer, first_hand=first_hand, strict=strict
    ):
        hand = step.hand
    assert hand is not None
    return hand


@dataclass(frozen=True, slots=True)
class PlayContext:
    """A play of a bot hand with what judging it takes, all as faces.

    ``holdings``: the four seats' cards before the play; ``lead``: the trick's
    lead (empty when this play leads); ``plays``: the trick's plays so far.
    After the play: ``trick_plays`` is the trick as it stands (the lead replaced by
    the forced cards if the throw failed), ``winner``/``points`` set when the
    play completed the trick.
    """

    rules: Rules
    level: int
    trump: int | None
    trick: int
    seat: int
    leader: int
    holdings: tuple[tuple[int, ...], ...]
    lead: tuple[int, ...]
    plays: tuple[tuple[int, ...], ...]
    play: tuple[int, ...]
    forced: tuple[int, ...] | None
    trick_plays: tuple[tuple[int, ...], ...]
    winner: int | None
    points: int | None
    #: with ``probes``: a follow of the same size from the same holding that docs/rules.md §6
    #: forbids (a revoke), with the engine's sentence why; None when none was found
    illegal: tuple[int, ...] | None = None
    illegal_why: str = ""


def _illegal_follow(
    hand: Hand, rng: random.Random, lead: Sequence[int], holding: Sequence[int]
) -> tuple[tuple[int, ...] | None, str]:
    """A random same-size play from ``holding`` that is not a legal follow."""
    n = len(lead)
    if len(holding) <= n:
        return None, ""
    ruling = hand.ruling
    suit = [f for f in holding if ruling.esuit(f) == ruling.esuit(lead[0])]
    pools = [list(holding), [f for f in holding if f not in suit] + suit[: max(0, n - 1)]]
    for _ in range(30):
        pool = rng.choice(pools)
        if len(pool) < n:
            continue
        play = tuple(sorted(rng.sample(pool, n)))
        ok, why = ruling.follow(lead, holding, play)
        if not ok:
            return play, why
    return None, ""


def iter_plays(
    rules: Rules,
    seed: int,
    *,
    strengths: Sequence[int] | int = 1,
    level: int = 0,
    dealer: int = 0,
    probes: bool = False,
) -> Iterator[PlayContext]:
    """Play one bot hand (deal and bots from ``seed``) and yield every play with
    its context (for differential testing against another rules engine). With
    ``probes`` each follow also carries an illegal alternative (``illegal``), so
    both engines can be asked to refuse the same revoke."""
    rng = random.Random(seed)
    probe_rng = random.Random(seed ^ 0x5EED)
    bots = make_bots(strengths, seed)
    for step in iter_hand(rules, bots, rng, level=level, dealer=dealer, first_hand=False):
        ev = step.event
        hand = step.hand
        if not isinstance(ev, Play):
            continue
        t = hand.current_trick()
        holdings = tuple(tuple(c % FACES for c in hand.held(s)) for s in range(4))
        lead = tuple(c % FACES for c in t.lead) if t is not None else ()
        plays = tuple(tuple(c % FACES for c in cs) for _, cs in t.plays) if t is not None else ()
        leader = t.leader if t is not None else ev.seat
        trick_no = hand._trick_index()
        illegal: tuple[int, ...] | None = None
        why = ""
        if probes and lead:
            illegal, why = _illegal_follow(hand, probe_rng, lead, holdings[ev.seat])
        hand.apply(ev)
        after = hand.tricks[trick_no]
        forced = tuple(c % FACES for c in after.lead) if after.attempt and t is None else None
        yield PlayContext(
            rules=rules,
            level=hand.level,
            trump=hand.trump,
            trick=trick_no,
            seat=ev.seat,
            leader=leader,
            holdings=holdings,
            lead=lead,
            plays=plays,
            play=tuple(c % FACES for c in ev.cards),
            forced=forced,
            trick_plays=tuple(tuple(c % FACES for c in cs) for _, cs in after.plays),
            winner=after.winner,
            points=after.points if after.complete else None,
            illegal=illegal,
            illegal_why=why,
        )
        hand.undo()  # the driver applies it again


@dataclass(frozen=True, slots=True)
class HandSummary:
    """One line of the score sheet."""

    number: int
    dealer: int | None
    declarer: int | None
    level: int
    trump: int | None
    redeal: bool
    result: HandResult | None
    settlement: settle.Settlement | None
    levels_after: tuple[int, ...]
    findings: int


@dataclass
class Match:
    """Levels, dealers and history of a match (docs/rules.md §8.4-§8.6; §9 levels per seat)."""

    rules: Rules
    levels: list[int] = field(default_factory=list)
    dealer: int | None = None
    first_hand: bool = True
    winner: int | tuple[int, ...] | None = None
    history: list[HandSummary] = field(default_factory=list)
    _stack: list[tuple[list[int], int | None, bool, int | tuple[int, ...] | None]] = field(
        default_factory=list, repr=False
    )

    def __post_init__(self) -> None:
        if not self.levels:
            self.levels = [0] * (4 if self.per_seat else 2)
        if len(self.levels) != (4 if self.per_seat else 2):
            raise ValueError("levels: two per side, or four per seat with partners = 'called'")

    @property
    def per_seat(self) -> bool:
        return self.rules.partners == Partners.CALLED

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    def level_of(self, seat: int) -> int:
        return self.levels[seat if self.per_seat else seat % 2]

    def hand_level(self) -> int:
        """The level the next hand is played at: the dealer's (2 on the first hand)."""
        if self.dealer is None:
            return min(self.levels)
        return self.level_of(self.dealer)

    def new_hand(self, *, strict: bool = False) -> Hand:
        if self.is_over:
            raise HandError("the match is over")
        return Hand(
            self.rules,
            level=self.hand_level(),
            dealer=self.dealer,
            first_hand=self.first_hand,
            strict=strict,
        )

    def finish(self, hand: Hand) -> HandSummary:
        """Settle a finished hand into the match (a redeal only counts the hand)."""
        outcome = hand.outcome()
        if outcome is None:
            raise HandError("the hand is not over")
        self._stack.append((list(self.levels), self.dealer, self.first_hand, self.winner))
        number = len(self.history) + 1
        if outcome.result is None:  # Termination.REDEAL
            s = HandSummary(number, None, None, hand.level, None, True, None, None, tuple(self.levels), 0)
            self.history.append(s)
            return s
        result = outcome.result
        st = settle.settle(
            self.rules,
            result.score,
            result.dealer,
            self.levels,
            defenders=result.defenders,
            kitty_j=result.kitty_j,
            result=result.forced_result,
        )
        self.levels = list(st.levels)
        self.dealer = st.next_dealer
        self.first_hand = False
        self.winner = st.winner
        s = HandSummary(
            number,
            hand.dealer,
            hand.declarer,
            hand.level,
            hand.trump,
            False,
            result,
            st,
            tuple(self.levels),
            len(hand.findings),
        )
        self.history.append(s)
        return s

    def undo(self) -> HandSummary:
        """Take back the last :meth:`finish`."""
        if not self._stack:
            raise HandError("nothing to undo")
        self.levels, self.dealer, self.first_hand, self.winner = self._stack.pop()
        return self.history.pop()


def play_match(
    rules: Rules,
    *,
    seed: int = 0,
    hands: int | None = None,
    strengths: Sequence[int] | int = 1,
    max_hands: int = 500,
) -> tuple[Match, list[Hand]]:
    """Play ``hands`` hands (or until the match is won, at most ``max_hands``)
    with bots; returns the match and the hands played."""
    rng = random.Random(seed)
    bots = make_bots(strengths, seed)
    match = Match(rules)
    played: list[Hand] = []
    limit = hands if hands is not None else max_hands
    while len(played) < limit and not match.is_over:
        hand = play_hand(
            rules,
            bots,
            rng,
            level=match.hand_level(),
            dealer=match.dealer,
            first_hand=match.first_hand,
        )
        match.finish(hand)
        played.append(hand)
    return match, played
