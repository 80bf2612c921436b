"""Leading, throwing, following and winning tricks (docs/rules.md §5-§7).

Everything here works on **faces** (ints 0-53) and **count arrays** (a list of
54 ints: how many cards of each face a seat holds) for speed; the public
functions also take :class:`~shengji.cards.Card` objects. A :class:`Lead`
holds what every follower of a trick is checked against (decomposition,
effective suit, the structure the lead demands), computed once per trick.

The follow check is the hot path (the verifier checks every play of every
hand): it costs a few array look-ups for singles and pairs, and a memoised
search only when tractors, triples or Titanics are led.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Final

from .cards import FACES, POINTS, Card, format_faces
from .order import SUIT_NAMES, TRUMP, Order
from .sweep import NEG, Demand, Flex, Sweep, demand_of
from .units import Decomposition, Unit, decompose_faces, single

__all__ = [
    "IllegalPlayError",
    "Lead",
    "LegalFollows",
    "Reason",
    "ThrowResult",
    "TrickResult",
    "Verdict",
    "check_follow",
    "check_lead",
    "check_throw",
    "counts",
    "legal_follows",
    "legal_leads",
    "play_key",
    "points",
    "trick_winner",
]

CardsLike = Iterable[Card] | Iterable[int]


class Reason(enum.Enum):
    """Why a play (or another event of a hand) is not allowed: the engine's one
    vocabulary, machine-readable; values are stable strings.

    A :class:`Verdict` of the play functions carries one (``EMPTY`` …
    ``THROW_FAILED``); so does a :class:`shengji.hand.Finding` of the hand's
    state machine (``Finding.rule``), which adds what only a hand can tell
    (``PHASE`` … ``THROW_SHOULD_FAIL``) and says ``NOT_IN_HAND``,
    ``MIXED_SUITS`` and ``WRONG_COUNT`` for the same faults as the play
    functions (a revoke is ``REVOKE``, the sentence saying which rule of
    docs/rules.md §6 it breaks)."""

    EMPTY = "empty"
    NOT_IN_HAND = "not_in_hand"  #: a card the seat does not hold (or is known not to)
    MIXED_SUITS = "mixed_suits"  #: a lead spanning several effective suits
    WRONG_COUNT = "wrong_count"  #: not as many cards as the lead (or as a burial takes)
    MUST_FOLLOW_SUIT = "must_follow_suit"
    MUST_PLAY_PAIRS = "must_play_pairs"
    MUST_PLAY_TRACTOR = "must_play_tractor"
    MUST_PLAY_TRIPLES = "must_play_triples"
    MUST_PLAY_TITANIC = "must_play_titanic"
    MUST_PLAY_SAME_SHAPE = "must_play_same_shape"
    THROW_FAILED = "throw_failed"
    # what the hand's state machine finds besides (shengji.hand.Finding)
    PHASE = "phase"  #: the event does not belong in this phase
    BAD_EVENT = "bad_event"  #: malformed (a bad card id, a bad seat, wrong sizes)
    SEEN_TWICE = "seen_twice"  #: a card that was already played (or buried)
    OUT_OF_TURN = "out_of_turn"
    BAD_BID = "bad_bid"
    BAD_CHALLENGE = "bad_challenge"
    REVOKE = "revoke"  #: a follow that breaks a rule of docs/rules.md §6
    THROW_SHOULD_FAIL = "throw_should_have_failed"  #: an unchallenged throw that fails

    def __repr__(self) -> str:
        return f"Reason.{self.name}"


@dataclasses.dataclass(frozen=True, slots=True)
class Verdict:
    """The judgement of one play: ``bool(verdict)`` is whether it is legal.

    ``reason`` is ``None`` for a legal play, else a :class:`Reason`;
    ``message`` is a sentence for the player.
    """

    legal: bool
    reason: Reason | None = None
    message: str = ""

    def __bool__(self) -> bool:
        return self.legal


LEGAL: Final = Verdict(True)


class IllegalPlayError(ValueError):
    """A play that breaks the rules; ``verdict`` says why."""

    def __init__(self, verdict: Verdict) -> None:
        super().__init__(verdict.message)
        self.verdict = verdict
        self.reason = verdict.reason


# --- small helpers ----------------------------------------------------------


def _faces(cards: CardsLike) -> list[int]:
    return [c if isinstance(c, int) else c.face for c in cards]


def counts(cards: CardsLike) -> list[int]:
    """The count array (54 ints) of some cards (ints are faces)."""
    out = [0] * FACES
    for c in cards:
        out[c if isinstance(c, int) else c.face] += 1
    return out


def points(cards: CardsLike) -> int:
    """Points in some cards: 5 per five, 10 per ten and king."""
    return sum(POINTS[c if isinstance(c, int) else c.face] for c in cards)


def _suit_word(es: int) -> str:
    return ("spades", "hearts", "diamonds", "clubs", "trump")[es]


def _cards_of(n: int, es: int) -> str:
    """``3 hearts``, ``1 heart``, ``2 trumps``."""
    word = ("spade", "heart", "diamond", "club", "trump")[es]
    return f"{n} {word}{'s' if n != 1 else ''}"


def _in_hand(hand: Sequence[int], play: Sequence[int]) -> bool:
    need: dict[int, int] = {}
    for f in play:
        n = need.get(f, 0) + 1
        if n > hand[f]:
            return False
        need[f] = n
    return True


# --- the lead ----------------------------------------------------------------

#: Follow-structure modes of a lead.
_MODE_FREE: Final = 0  # singles only: any cards of the suit
_MODE_PAIRS: Final = 1  # pairs/tractors, no wider sets: the (t, q) vector
_MODE_LADDER: Final = 2  # triples, quads or same_shape_only: per-unit ladders


class Lead:
    """A trick's lead, with what a follower is checked against.

    >>> from shengji import Rules, Rank, Suit, parse_faces
    >>> o = Order(Rules(), Rank.TEN, Suit.SPADES)
    >>> lead = Lead(o, parse_faces("KH KH QH QH"))
    >>> lead.decomposition.codes, lead.size
    (['t2'], 4)
    """

    __slots__ = (
        "order",
        "faces",
        "decomposition",
        "esuit",
        "size",
        "pairs",
        "caps",
        "mode",
        "rungs",
    )

    order: Order
    faces: tuple[int, ...]
    decomposition: Decomposition
    esuit: int
    size: int
    pairs: int
    caps: tuple[int, ...]
    mode: int
    rungs: tuple[tuple[tuple[tuple[tuple[int, int], ...], ...], ...], ...]

    def __init__(self, order: Order, cards: CardsLike) -> None:
        faces = _faces(cards)
        if len(faces) == 1:
            # one card (most tricks' lead): a single, demanding only the suit;
            # the same fields as below, without the general decomposition
            f = faces[0]
            es = order.esuit[f]
            self.order = order
            self.faces = (f,)
            self.decomposition = single(f, order.pos[f], es)
            self.esuit = es
            self.size = 1
            self.pairs = 0
            self.caps = ()
            self.mode = _MODE_FREE
            self.rungs = ()
            return
        d = decompose_faces(order, faces)
        if d is None:
            if not faces:
                raise IllegalPlayError(
                    Verdict(False, Reason.EMPTY, "A lead needs at least one card.")
                )
            raise IllegalPlayError(
                Verdict(
                    False,
                    Reason.MIXED_SUITS,
                    f"A lead must be of one suit: {format_faces(faces)} mixes "
                    + " and ".join(sorted({_suit_word(order.esuit[f]) for f in faces})),
                )
            )
        self.order = order
        self.faces = tuple(faces)
        self.decomposition = d
        self.esuit = d.esuit
        self.size = len(faces)
        self.pairs = d.pairs
        self.caps = tuple(
            sorted((u.length for u in d.units if u.width == 2 and u.length > 1), reverse=True)
        )
        width = d.max_width
        if width > 1 and (order.rules.same_shape_only or width >= 3):
            self.mode = _MODE_LADDER
            self.rungs = tuple(
                _rungs(u.width, u.length, order.rules.same_shape_only) for u in d.units
            )
        else:
            self.mode = _MODE_FREE if width == 1 else _MODE_PAIRS
            self.rungs = ()

    def __repr__(self) -> str:
        return f"Lead({self.order!r}, parse_faces({format_faces(self.faces)!r}))"


def _lead(order: Order, lead: Lead | CardsLike) -> Lead:
    return lead if isinstance(lead, Lead) else Lead(order, lead)


# --- following (docs/rules.md §6) -------------------------------------------


def check_follow(order: Order, lead: Lead | CardsLike, hand: CardsLike, play: CardsLike) -> Verdict:
    """Is ``play`` a legal follow to ``lead`` from ``hand`` (the follower's
    whole hand, holding the play)? docs/rules.md §6.

    >>> from shengji import Rules, Rank, Suit, parse_faces as p
    >>> o = Order(Rules(), Rank.TEN, Suit.SPADES)
    >>> v = check_follow(o, p("KH KH"), p("3H 3H 5H 2C"), p("3H 5H"))
    >>> v.legal, v.reason
    (False, Reason.MUST_PLAY_PAIRS)
    """
    return check_follow_counts(order, _lead(order, lead), counts(hand), _faces(play))


def check_follow_counts(
    order: Order, lead: Lead, hand: Sequence[int], play: Sequence[int]
) -> Verdict:
    """:func:`check_follow` on a count array ``hand`` and the faces of ``play`` (fast path)."""
    n = lead.size
    if n == 1 and len(play) == 1:
        # one card led, one card of its suit played from the hand: legal
        # (the usual follow); any other single goes through the checks below
        f = play[0]
        if hand[f] and order.esuit[f] == lead.esuit:
            return LEGAL
    if len(play) != n:
        return Verdict(
            False,
            Reason.WRONG_COUNT,
            f"Play {n} card{'s' if n > 1 else ''}, as many as the lead; you played {len(play)}.",
        )
    if not _in_hand(hand, play):
        return Verdict(False, Reason.NOT_IN_HAND, f"{format_faces(play)} is not in your hand.")
    s = lead.esuit
    esuit = order.esuit
    suit_faces = order.suit_faces[s]
    h = 0
    for f in suit_faces:
        h += hand[f]
    ps = 0
    for f in play:
        if esuit[f] == s:
            ps += 1
    need = n if h > n else h
    if ps < need:
        word = _suit_word(s)
        return Verdict(
            False,
            Reason.MUST_FOLLOW_SUIT,
            f"You must follow {word}: you hold {_cards_of(h, s)} and must play "
            f"{f'{need} of them' if need < h else 'all of them' if h > 1 else 'it'}; "
            f"you played {ps}.",
        )
    if h <= n or lead.mode == _MODE_FREE:
        return LEGAL
    # h > n: every card of the play is of suit s
    if lead.mode == _MODE_PAIRS:
        return _check_pairs(order, lead, hand, play, suit_faces)
    return _check_ladder(order, lead, hand, play)


def _check_pairs(
    order: Order, lead: Lead, hand: Sequence[int], play: Sequence[int], suit_faces: Sequence[int]
) -> Verdict:
    """The (t, q) vector of docs/rules.md §6.2: play's vector must equal the holding's."""
    pairs_d = lead.pairs
    hq = 0
    for f in suit_faces:
        hq += hand[f] >> 1
    pc: dict[int, int] = {}
    for f in play:
        pc[f] = pc.get(f, 0) + 1
    pq = 0
    for c in pc.values():
        pq += c >> 1
    caps = lead.caps
    if caps:
        th = _tractor_pairs(order, lead.esuit, hand, caps)
        if th:
            tp = _tractor_pairs(order, lead.esuit, counts_from(pc), caps)
            if tp < th:
                return Verdict(
                    False,
                    Reason.MUST_PLAY_TRACTOR,
                    f"The lead has a tractor and you hold one in {_suit_word(lead.esuit)}: "
                    f"play it (you can put {th} pairs in tractors; you played {tp}).",
                )
    if min(pq, pairs_d) < min(hq, pairs_d):
        want = min(hq, pairs_d)
        return Verdict(
            False,
            Reason.MUST_PLAY_PAIRS,
            f"The lead has {pairs_d} pair{'s' if pairs_d > 1 else ''} and you hold pairs in "
            f"{_suit_word(lead.esuit)}: play {want} pair{'s' if want > 1 else ''}; you played {pq}.",
        )
    return LEGAL


def counts_from(pc: dict[int, int]) -> list[int]:
    out = [0] * FACES
    for f, c in pc.items():
        out[f] = c
    return out


def _tractor_pairs(order: Order, es: int, cnt: Sequence[int], caps: tuple[int, ...]) -> int:
    """t(X): most pairs of ``cnt`` (suit ``es``) in disjoint runs of pairs that
    fit the led tractors ``caps`` (each takes runs of at most its length)."""
    prof = []
    any_adjacent = False
    prev = 0
    for fs in order.faces_at[es]:
        tok = 0
        for f in fs:
            tok += cnt[f] >> 1
        if tok and prev:
            any_adjacent = True
        prof.append(tok)
        prev = tok
    if not any_adjacent:
        return 0
    return _fill(tuple(prof), caps)


@functools.lru_cache(maxsize=1 << 16)
def _fill(profile: tuple[int, ...], caps: tuple[int, ...]) -> int:
    """Most pair tokens placed in runs (length >= 2, consecutive positions, one
    token per position) packed into bins of sizes ``caps`` (sorted descending).

    Each call works at the first position ``p`` holding a token: drop one
    token there, or start a run there of some length in some bin, the whole run
    taken at once. So what a call sees ahead of ``p`` is the profile less the
    runs still going through ``p`` (fixed by their ends) and the caps left:
    polynomial, the bound in docs/engine-bounds.md."""
    if not caps:
        return 0
    n = len(profile)
    p = 0
    while p < n and profile[p] == 0:
        p += 1
    if p >= n - 1:
        return 0
    if profile[p + 1] == 0:
        return _fill(profile[p + 2 :], caps)
    prof = profile[p:]
    total = sum(caps)
    best = _fill((prof[0] - 1,) + prof[1:], caps)
    if best == total:
        return best
    longest = 1
    while longest < len(prof) and prof[longest] > 0:
        longest += 1
    for ci, c in enumerate(caps):
        if ci and caps[ci - 1] == c:
            continue
        for length in range(min(c, longest), 1, -1):
            newprof = tuple(x - 1 for x in prof[:length]) + prof[length:]
            rest = caps[:ci] + caps[ci + 1 :]
            if c - length >= 2:
                rest = tuple(sorted(rest + (c - length,), reverse=True))
            val = length + _fill(newprof, rest)
            if val > best:
                best = val
                if best == total:
                    return best
    return best


# --- ladders (3-4 decks, same_shape_only) ------------------------------------

Pattern = tuple[tuple[int, int], ...]


def _partitions(t: int) -> list[tuple[int, ...]]:
    """Partitions of t into parts >= 2, parts descending."""
    out: list[tuple[int, ...]] = []

    def rec(rest: int, maxpart: int, acc: tuple[int, ...]) -> None:
        if rest == 0:
            out.append(acc)
            return
        for part in range(min(rest, maxpart), 1, -1):
            rec(rest - part, part, acc + (part,))

    rec(t, t, ())
    return out


@functools.lru_cache(maxsize=256)
def _rungs(m: int, k: int, same_shape_only: bool) -> tuple[tuple[Pattern, ...], ...]:
    """The ladder of a led unit ``(m, k)``: rungs best first, each a tuple of
    alternative patterns (sub-units to find); below the last rung: anything."""
    if m == 1:
        return ()
    if same_shape_only or m >= 4:
        return (((((m, k),)),),)
    if m == 2:
        if k == 1:
            return ((((2, 1),),),)
        rungs: list[tuple[Pattern, ...]] = []
        for t in [*range(k, 1, -1), 0]:
            for q in range(k, t - 1, -1):
                if q == 0:
                    continue
                pats = tuple(
                    tuple((2, part) for part in parts) + ((2, 1),) * (q - t)
                    for parts in _partitions(t)
                )
                rungs.append(pats)
        return tuple(rungs)
    # m == 3
    if k == 1:
        return ((((3, 1),),), (((2, 1),),))
    ladder: list[tuple[Pattern, ...]] = [(((3, k),),), (((3, 1),) * k,), (((2, k),),)]
    for j in range(k - 1, -1, -1):
        for i in range(k - j, -1, -1):
            if j == 0 and i == 0:
                continue
            ladder.append((((3, 1),) * j + ((2, 1),) * i,))
    return tuple(ladder)


@functools.lru_cache(maxsize=64)
def _tq_index(k: int) -> dict[tuple[int, int], int]:
    """Rung index of ``(t, q)`` in the ladder of a tractor of ``k`` pairs (:func:`_rungs`)."""
    out: dict[tuple[int, int], int] = {}
    for t in [*range(k, 1, -1), 0]:
        for q in range(k, t - 1, -1):
            if q:
                out[(t, q)] = len(out)
    return out


@functools.lru_cache(maxsize=64)
def _ji_index(k: int) -> dict[tuple[int, int], int]:
    """Rung index of ``j`` triples and ``i`` pairs in the ladder of a Titanic of ``k``."""
    out: dict[tuple[int, int], int] = {}
    for j in range(k - 1, -1, -1):
        for i in range(k - j, -1, -1):
            if j or i:
                out[(j, i)] = 3 + len(out)
    return out


@functools.lru_cache(maxsize=64)
def _tq_of(k: int) -> dict[int, tuple[int, int]]:
    """``(t, q)`` of each rung index of a tractor of ``k`` pairs (:func:`_tq_index` inverted)."""
    return {r: tq for tq, r in _tq_index(k).items()}


@functools.lru_cache(maxsize=64)
def _ji_of(k: int) -> dict[int, tuple[int, int]]:
    """``(j, i)`` of each tail rung index of a Titanic of ``k`` (:func:`_ji_index` inverted)."""
    return {r: ji for ji, r in _ji_index(k).items()}


def _rung_demand(
    m: int, k: int, sso: bool, ladder: tuple[tuple[Pattern, ...], ...], r: int
) -> tuple[list[tuple[int, int]], list[Flex]]:
    """What :class:`_Ladders` fixes when unit ``(m, k)`` takes rung ``r`` (not
    the last): the sub-units, and a tractor requirement of 4 or more pairs in runs."""
    if m == 2 and k > 1 and not sso:
        t, q = _tq_of(k)[r]
        runs, more = _in_runs(t) if t >= 2 else ([], [])
        return runs + [(2, 1)] * (q - t), more
    if m == 3 and k > 1 and not sso and r >= 3:
        j, i = _ji_of(k)[r]
        return [(3, 1)] * j + [(2, 1)] * i, []
    return list(ladder[r][0]), []


def _in_runs(t: int) -> tuple[list[tuple[int, int]], list[Flex]]:
    """The demand "t pairs in runs of pairs": one run for 2 or 3 pairs (the only
    partition), else a tractor requirement (any partition into runs >= 2)."""
    return ([(2, t)], []) if t <= 3 else ([], [(t, True, 0, 0)])


class _Ladders:
    """The ladder vector of one holding (docs/rules.md §6.3 and its "How the
    table reads it"): the lexicographically least vector of rungs over every
    joint placement of the led units, found unit by unit. Unit ``i`` gets the
    best rung ``r`` such that the rungs already fixed for units ``0..i-1`` and
    ``r`` can be placed together (one :class:`~shengji.sweep.Sweep` question
    each, on one memo). A tractor's ``t`` is tried from ``k`` down and its
    extra pairs come from one capped "spare pairs" question; a Titanic's tail
    takes a binary search on the triples (dropping a sub-unit never makes a
    placement impossible), then one such question for the pairs. The bound:
    docs/engine-bounds.md."""

    __slots__ = ("vector", "fixed", "flex", "sweep", "stopped")

    def __init__(
        self,
        order: Order,
        lead: Lead,
        cnt: dict[int, int],
        hint: tuple[int, ...] | None = None,
        sweep: Sweep | None = None,
        stop: Callable[[Demand, int, Sequence[Flex]], bool] | None = None,
    ) -> None:
        # ``sweep``: the holding's spare-pairs Sweep, when made already (its memo shared).
        # ``stop(fixed, pairs, flex)``: asked after each unit with what is fixed
        # so far; True cuts the vector there.
        # ``hint``: the vector of a holding that holds ``cnt`` (a follower's
        # hand, ``cnt`` its play). ``cnt``'s rung of a unit is then never
        # better than the hint's, and equal exactly when the rungs fixed so far
        # and the hint's can be placed together (one question); the vector is
        # cut after the first unit where they differ (all a follow check needs).
        # feasibility questions go to a "spare pairs" sweep: single pairs are
        # not placed, but counted in what the rest leaves
        sw = Sweep(order, lead.esuit, cnt, spare=True) if sweep is None else sweep
        self.sweep = sw
        self.stopped = False
        fixed: dict[tuple[int, int], int] = {}
        flex: list[Flex] = []
        vec: list[int] = []
        sso = order.rules.same_shape_only

        def demand(extra: Iterable[tuple[int, int]]) -> tuple[Demand, int]:
            # the fixed sub-units, and the single pairs apart
            d = dict(fixed)
            for s in extra:
                d[s] = d.get(s, 0) + 1
            n = d.pop((2, 1), 0)
            return tuple(sorted(d.items())), n

        def spare(extra: Sequence[tuple[int, int]], more: Sequence[Flex] = (), cap: int = 0) -> int:
            # pairs still free (up to cap) once extra is placed too (< 0: it
            # cannot be)
            d, n = demand(extra)
            v = sw.spare_at_least(d, [*flex, *more], n + cap)
            return -1 if v == NEG else v - n

        def ok(extra: Sequence[tuple[int, int]], more: Sequence[Flex] = ()) -> bool:
            return spare(extra, more) >= 0

        def most(hi: int, base: list[tuple[int, int]], unit: tuple[int, int]) -> int:
            # the largest x <= hi such that base + x units can be placed (base
            # can): a binary search, as dropping a unit keeps a placement
            lo = 0
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if ok(base + [unit] * mid):
                    lo = mid
                else:
                    hi = mid - 1
            return lo

        def commit(extra: Sequence[tuple[int, int]]) -> None:
            for s in extra:
                fixed[s] = fixed.get(s, 0) + 1

        for i_unit, (u, ladder) in enumerate(zip(lead.decomposition.units, lead.rungs, strict=True)):
            m, k = u.width, u.length
            if not ladder:
                vec.append(0)
                continue
            t_top = k  # the most pairs in runs to try (a tractor's ladder)
            j_top = k - 1  # the most triples to try (a Titanic's tail)
            r_from = 0  # the first rung to try (the others' ladders)
            if hint is not None:
                r = hint[i_unit]
                if r == len(ladder):
                    vec.append(r)  # the hint's rung is the last: so is this one's
                    continue
                extra, more_h = _rung_demand(m, k, sso, ladder, r)
                if ok(extra, more_h):
                    vec.append(r)
                    commit(extra)
                    flex.extend(more_h)
                    continue
                # a worse rung than the hint's: find it (none better than the
                # hint's can be placed), and stop there
                r_from = r + 1
                if m == 2 and k > 1 and not sso:
                    t_top = _tq_of(k)[r][0]
                elif m == 3 and not sso and k > 1 and r >= 3:
                    j_top = _ji_of(k)[r][0]
            self._unit(m, k, sso, ladder, t_top, j_top, r_from, ok, spare, most, commit, flex, vec)
            if hint is not None and len(vec) == i_unit + 1 and vec[-1] != hint[i_unit]:
                break
            if stop is not None and stop(*demand(()), flex):
                self.stopped = True
                break
        self.vector = tuple(vec)
        self.fixed: Demand = tuple(sorted(fixed.items()))
        self.flex: tuple[Flex, ...] = tuple(flex)

    @staticmethod
    def _unit(
        m: int,
        k: int,
        sso: bool,
        ladder: tuple[tuple[Pattern, ...], ...],
        t_top: int,
        j_top: int,
        r_from: int,
        ok: Callable[..., bool],
        spare: Callable[..., int],
        most: Callable[[int, list[tuple[int, int]], tuple[int, int]], int],
        commit: Callable[[Sequence[tuple[int, int]]], None],
        flex: list[Flex],
        vec: list[int],
    ) -> None:
        """The best rung of one unit ``(m, k)`` given what is fixed: appended to ``vec``."""
        while True:  # one pass (a block that can be left early)
            if m == 2 and k > 1 and not sso:
                # t: the most pairs in runs, tried from k down; then the most
                # extra pairs (one capped spare-pairs sweep)
                t = next((x for x in range(t_top, 1, -1) if ok(*_in_runs(x))), 0)
                more: list[Flex] = [(t, True, 0, 0)] if t >= 4 else []
                runs = [(2, t)] if 2 <= t <= 3 else []
                e = spare(runs, more, k - t)
                if t + e == 0:
                    vec.append(len(ladder))
                    return
                vec.append(_tq_index(k)[(t, t + e)])
                commit(runs + [(2, 1)] * e)
                flex.extend(more)
                return
            head = ladder if m != 3 or sso or k == 1 else ladder[:3]
            for r in range(r_from, len(head)):
                pattern = head[r][0]
                if ok(pattern):
                    vec.append(r)
                    commit(pattern)
                    return
            if len(head) == len(ladder):
                vec.append(len(ladder))
                return
            # a Titanic's tail: j triples and i pairs, more triples first
            j = most(j_top, [], (3, 1))
            i = spare([(3, 1)] * j, (), k - j)
            if i == j == 0:
                vec.append(len(ladder))
                return
            vec.append(_ji_index(k)[(j, i)])
            commit([(3, 1)] * j + [(2, 1)] * i)
            return

    def cores(self) -> Iterator[dict[int, int]]:
        """Every distinct set of cards (face -> copies) that realises the
        vector: a play is legal iff its suit cards hold one of them."""
        d = dict(self.fixed)
        pairs = d.pop((2, 1), 0)
        return self.sweep.spare_placements(tuple(sorted(d.items())), self.flex, pairs)


def _ladder_vector(order: Order, lead: Lead, cnt: dict[int, int]) -> tuple[int, ...]:
    """Rung reached by each led unit in turn (0 = best), each unit taking its
    best rung from what the earlier units left; among ways to take a rung,
    the one best for the later units (:class:`_Ladders`)."""
    return _Ladders(order, lead, cnt).vector


def _ladder_taken(order: Order, lead: Lead, cnt: dict[int, int]) -> dict[int, int]:
    """The cards (face -> count) the led units take from ``cnt`` on a best path
    of :func:`_ladder_vector`: the structured core of a legal follow."""
    return next(_Ladders(order, lead, cnt).cores())


def _structure_vector(order: Order, lead: Lead, cnt: dict[int, int]) -> tuple[int, ...]:
    """The match vector of some suit cards against the lead (docs/rules.md §6.2-§6.3):
    ``(t, q)`` for leads without triples, else the rungs of the ladders."""
    if lead.mode == _MODE_LADDER:
        return _ladder_vector(order, lead, cnt)
    q = min(lead.pairs, sum(c >> 1 for c in cnt.values()))
    t = _tractor_pairs(order, lead.esuit, counts_from(cnt), lead.caps) if lead.caps else 0
    return (-t, -q)


def _check_ladder(order: Order, lead: Lead, hand: Sequence[int], play: Sequence[int]) -> Verdict:
    es = lead.esuit
    held = {f: hand[f] for f in order.suit_faces[es] if hand[f]}
    played: dict[int, int] = {}
    for f in play:
        played[f] = played.get(f, 0) + 1
    # The hand's vector unit by unit; after each unit, can the play place what
    # the hand's rungs fix so far? It can exactly while its vector agrees with
    # the hand's (it holds no more than the hand), so the first unit where it
    # cannot is where the vectors first differ, and the hand's need not go on.
    sp = Sweep(order, es, played, spare=True)

    def behind(fixed: Demand, pairs: int, flex: Sequence[Flex]) -> bool:
        v = sp.spare_at_least(fixed, flex, pairs)
        return v == NEG or v < pairs

    lh = _Ladders(order, lead, held, stop=behind)
    if not lh.stopped:
        return LEGAL
    vh = lh.vector
    # the play's vector, cut after the first unit where it falls below the
    # hand's (the questions before it are in sp's memo already)
    vp = _Ladders(order, lead, played, hint=vh, sweep=sp).vector
    for i, (a, b) in enumerate(zip(vh, vp, strict=False)):
        if a != b:
            unit = lead.decomposition.units[i]
            ladder = lead.rungs[i]
            need = ladder[a][0]
            got: Pattern = ladder[b][0] if b < len(ladder) else ()
            return _ladder_reason(order, unit, need, got, es)
    return LEGAL  # pragma: no cover - vectors differ somewhere


def _pattern_words(pattern: Pattern) -> str:
    parts = []
    for (m, k), n in sorted(
        {(m, k): pattern.count((m, k)) for m, k in pattern}.items(),
        key=lambda x: (-x[0][0], -x[0][1]),
    ):
        parts.append(_count_words(n, m, k))
    return " and ".join(parts) if parts else "any cards"


def _ladder_reason(order: Order, unit: Unit, need: Pattern, got: Pattern, es: int) -> Verdict:
    """Why a play reached a lower rung (``got``) than the hand allows (``need``)."""
    word = _suit_word(es)
    want = _pattern_words(need)
    led = f"the lead's {_shape_words(unit.width, unit.length)}"
    if order.rules.same_shape_only or unit.width >= 4:
        return Verdict(
            False,
            Reason.MUST_PLAY_SAME_SHAPE,
            f"You hold the same shape as {led} in {word}: play it ({want}).",
        )

    def features(p: Pattern) -> tuple[int, int, int, int]:
        # triples in runs, triples, pairs in runs, pairs
        return (
            sum(k for m, k in p if m == 3 and k > 1),
            sum(k for m, k in p if m == 3),
            sum(k for m, k in p if m == 2 and k > 1),
            sum(k for m, k in p if m == 2),
        )

    n_titanic, n_triples, n_tractor, _n_pairs = features(need)
    g_titanic, g_triples, g_tractor, _g_pairs = features(got)
    if n_titanic > g_titanic:
        reason = Reason.MUST_PLAY_TITANIC
    elif n_triples > g_triples:
        reason = Reason.MUST_PLAY_TRIPLES
    elif n_tractor > g_tractor:
        reason = Reason.MUST_PLAY_TRACTOR
    else:
        reason = Reason.MUST_PLAY_PAIRS
    return Verdict(False, reason, f"To follow {led} in {word} you must play {want}: you hold it.")


def _count_words(n: int, m: int, k: int) -> str:
    """``n`` units of width ``m`` and length ``k`` in words: "a pair", "2 pairs",
    "a tractor of 3", "2 Titanics of 2"."""
    if k == 1:
        noun = {1: "single", 2: "pair", 3: "triple", 4: "quad"}[m]
        return f"a {noun}" if n == 1 else f"{n} {noun}s"
    noun = {2: "tractor", 3: "Titanic", 4: "run"}[m]
    of = " of quads" if m == 4 else ""
    return f"a {noun}{of} of {k}" if n == 1 else f"{n} {noun}s{of} of {k}"


def _shape_words(m: int, k: int) -> str:
    if k == 1:
        return {1: "single", 2: "pair", 3: "triple", 4: "quad"}[m]
    return {2: "tractor", 3: "Titanic", 4: "run of quads"}[m] + f" of {k}"


# --- leading and throwing (docs/rules.md §5) --------------------------------


def check_lead(order: Order, hand: CardsLike, play: CardsLike) -> Verdict:
    """May this play lead a trick (non-empty, in hand, one effective suit)?
    Whether a throw stands is :func:`check_throw`'s question."""
    return check_lead_counts(order, counts(hand), _faces(play))


def check_lead_counts(order: Order, hand: Sequence[int], play: Sequence[int]) -> Verdict:
    if not play:
        return Verdict(False, Reason.EMPTY, "A lead needs at least one card.")
    if not _in_hand(hand, play):
        return Verdict(False, Reason.NOT_IN_HAND, f"{format_faces(play)} is not in your hand.")
    esuit = order.esuit
    s = esuit[play[0]]
    for f in play:
        if esuit[f] != s:
            words = " and ".join(sorted({_suit_word(esuit[x]) for x in play}))
            return Verdict(
                False, Reason.MIXED_SUITS, f"A lead must be of one suit; this mixes {words}."
            )
    return LEGAL


@dataclasses.dataclass(frozen=True, slots=True)
class ThrowResult:
    """The outcome of a lead (docs/rules.md §5).

    ``ok``: the play stands as led. Otherwise ``play`` is the forced unit's
    faces (the weakest unit of the most demanding beaten category),
    ``beaten`` the unit that can be beaten and ``seat`` who can beat it (the
    first in play order after the leader). ``beaters``: every seat that can
    beat some unit of the throw, in play order (who could challenge it, docs/rules.md §10.1).
    ``penalty`` is the rules' ``throw_penalty`` for a failed throw, else 0.
    """

    ok: bool
    play: tuple[int, ...]
    forced: Unit | None = None
    beaten: Unit | None = None
    seat: int | None = None
    penalty: int = 0
    beaters: tuple[int, ...] = ()

    @property
    def verdict(self) -> Verdict:
        if self.ok:
            return LEGAL
        assert self.beaten is not None and self.forced is not None
        return Verdict(
            False,
            Reason.THROW_FAILED,
            f"The throw fails: seat {self.seat} can beat {format_faces(self.beaten.cards)}; "
            f"play {format_faces(self.forced.cards)} instead.",
        )


def _width_profile(order: Order, es: int, hand: Sequence[int]) -> list[int]:
    """Per position of ``es``: the widest set the hand holds there."""
    out = []
    for fs in order.faces_at[es]:
        w = 0
        for f in fs:
            c = hand[f]
            if c > w:
                w = c
        out.append(w)
    return out


def can_beat(profile: Sequence[int], m: int, k: int, top: int) -> bool:
    """Does a holding (width profile of one effective suit) hold ``k`` sets
    of width >= ``m`` at consecutive positions with top above ``top``?"""
    run = 0
    for p, w in enumerate(profile):
        run = run + 1 if w >= m else 0
        if p > top and run >= k:
            return True
    return False


def check_throw(
    order: Order, leader: int, lead: CardsLike, hands: Sequence[CardsLike | Sequence[int]]
) -> ThrowResult:
    """Does a lead stand? ``hands`` are the four seats' hands (the leader's is
    not looked at). A one-unit lead always stands; a throw fails if another
    seat can beat one of its units in its effective suit, and then the
    weakest unit of the most demanding beaten category is forced.

    Hands given as count arrays (54 ints) are used as they are.
    """
    faces = _faces(lead)
    d = decompose_faces(order, faces)
    if d is None:
        raise IllegalPlayError(
            Verdict(
                False,
                Reason.MIXED_SUITS if faces else Reason.EMPTY,
                "A lead must be non-empty and of one suit.",
            )
        )
    if not d.is_throw:
        return ThrowResult(True, tuple(faces))
    others: list[tuple[int, list[int]]] = []
    for i in range(1, len(hands)):
        seat = (leader + i) % len(hands)
        cnt = _hand_counts(hands[seat])
        others.append((seat, _width_profile(order, d.esuit, cnt)))
    return _throw_outcome(order, d, faces, others)


def _hand_counts(hand: object) -> list[int]:
    """A count array from cards, faces, or a count array (54 ints, each 0-4:
    no list of faces looks like that, as 54 cards need faces above 4)."""
    if isinstance(hand, list) and _is_counts(hand):
        return [int(x) for x in hand]
    return counts(hand)  # type: ignore[arg-type]


def _is_counts(hand: object) -> bool:
    return (
        isinstance(hand, list)
        and len(hand) == FACES
        and all(isinstance(x, int) and x < 5 for x in hand)
    )


def _throw_outcome(
    order: Order,
    d: Decomposition,
    faces: Sequence[int],
    others: Sequence[tuple[int, Sequence[int]]],
) -> ThrowResult:
    shapes: list[tuple[int, int]] = []
    for u in d.units:
        if u.shape not in shapes:
            shapes.append(u.shape)
    beaters = tuple(
        seat
        for seat, prof in others
        if any(can_beat(prof, u.width, u.length, u.top) for u in d.units)
    )
    if not beaters:
        return ThrowResult(True, tuple(faces))
    for shape in shapes:  # units are sorted most demanding first
        members = [u for u in d.units if u.shape == shape]
        for u in members:
            for seat, prof in others:
                if can_beat(prof, u.width, u.length, u.top):
                    weakest = min(members, key=lambda x: x.top)
                    return ThrowResult(
                        False,
                        tuple(weakest.cards),
                        forced=weakest,
                        beaten=u,
                        seat=seat,
                        penalty=order.rules.throw_penalty,
                        beaters=beaters,
                    )
    raise AssertionError("a beater beats some unit")  # pragma: no cover


def forced_unit(d: Decomposition, shapes: Iterable[tuple[int, int]]) -> Unit:
    """The unit a failed throw must play when units of ``shapes`` are proven
    beaten (docs/rules.md §5.2, §10.1): the weakest unit of the most demanding of them."""
    wanted = set(shapes)
    for u in d.units:
        if u.shape in wanted:
            return min((x for x in d.units if x.shape == u.shape), key=lambda x: x.top)
    raise ValueError(f"no unit of shapes {sorted(wanted)} in the throw")


# --- winning a trick (docs/rules.md §7) --------------------------------------


def play_key(order: Order, lead: Lead, play: Sequence[int]) -> tuple[int, int] | None:
    """``(trump?, key)`` of a play that may take the trick, or ``None`` when it
    cannot (wrong suit, mixed, or not matching the lead's structure)."""
    esuit = order.esuit
    es = esuit[play[0]]
    for f in play:
        if esuit[f] != es:
            return None
    if es != lead.esuit and es != TRUMP:
        return None
    if len(play) != lead.size:
        return None
    key = _match_key(order, lead.decomposition, play)
    if key is None:
        return None
    return (1 if es == TRUMP else 0, key)


def _match_key(order: Order, d: Decomposition, play: Sequence[int]) -> int | None:
    """Strength of the strongest unit of ``play`` matched to the lead's top
    category, over all ways to cover the lead's units; ``None`` if none."""
    pos = order.pos
    units = d.units
    top_shape = units[0].shape
    if top_shape == (1, 1):
        return max(pos[f] for f in play)
    if len(units) == 1:
        pd = decompose_faces(order, play)
        if pd is None or len(pd.units) != 1 or pd.units[0].shape != top_shape:
            return None
        return pd.units[0].top
    cnt: dict[int, int] = {}
    for f in play:
        cnt[f] = cnt.get(f, 0) + 1
    es = order.esuit[play[0]]
    if d.max_width == 2 and all(u.length == 1 for u in units):
        # pairs and singles only: enough disjoint pairs, key = strongest pair
        need = sum(1 for u in units if u.width == 2)
        have = sum(c >> 1 for c in cnt.values())
        if have < need:
            return None
        return max(pos[f] for f, c in cnt.items() if c >= 2)
    shapes = [u.shape for u in units if u.shape != (1, 1)]
    # one "best top" sweep over every placement of the led shapes
    key = Sweep(order, es, cnt, top_shape=top_shape).value(demand_of(shapes))
    return None if key == NEG else key


@dataclasses.dataclass(frozen=True, slots=True)
class TrickResult:
    """Who won a trick: ``winner`` is the index into the plays (0 = the lead)
    or the seat when the trick was judged with a leader seat; ``points`` in it."""

    winner: int
    points: int
    key: tuple[int, int]


def trick_winner(order: Order, plays: Sequence[CardsLike], leader: int = 0) -> TrickResult:
    """The winner of a trick: ``plays`` in play order, the lead first; the
    winner is given as a seat, counting from ``leader`` (docs/rules.md §7)."""
    faces = [_faces(p) for p in plays]
    lead = Lead(order, faces[0])
    return trick_winner_faces(order, lead, faces, leader)


def single_trick(order: Order, plays: Sequence[Sequence[int]]) -> tuple[int, int, tuple[int, int]]:
    """``(index of the winning play, points, its key)`` of a trick led by one
    card (``plays`` as faces, the lead first): a play of one card of the led
    suit or of trump is keyed by its position, as :func:`play_key` would key
    it; any other play cannot win (docs/rules.md §7)."""
    esuit = order.esuit
    pos = order.pos
    f = plays[0][0]
    led = esuit[f]
    best = (1 if led == TRUMP else 0, pos[f])
    win = 0
    total = POINTS[f]
    for i in range(1, len(plays)):
        p = plays[i]
        if len(p) != 1:
            for f in p:
                total += POINTS[f]
            continue
        f = p[0]
        total += POINTS[f]
        es = esuit[f]
        if es == TRUMP:
            k = (1, pos[f])
        elif es == led:
            k = (0, pos[f])
        else:
            continue
        if k > best:
            best = k
            win = i
    return win, total, best


def trick_winner_faces(
    order: Order, lead: Lead, plays: Sequence[Sequence[int]], leader: int = 0
) -> TrickResult:
    """:func:`trick_winner` with the lead already built and plays as faces."""
    if lead.size == 1:
        # a one-card lead (most tricks): see single_trick
        at, pts, key = single_trick(order, plays)
        return TrickResult((leader + at) % 4, pts, key)
    best = play_key(order, lead, plays[0])
    assert best is not None
    win = 0
    total = 0
    for i, p in enumerate(plays):
        for f in p:
            total += POINTS[f]
        if i == 0 or not p:
            continue
        k = play_key(order, lead, p)
        if k is not None and k > best:
            best = k
            win = i
    return TrickResult((leader + win) % 4, total, best)


# --- what may this seat play? -------------------------------------------------


def _multiset_combinations(
    items: Sequence[tuple[int, int]], size: int
) -> Iterator[tuple[int, ...]]:
    """Sub-multisets of ``size`` cards from (face, count) pairs, as face tuples."""
    if size == 0:
        yield ()
        return
    if not items:
        return
    total = sum(c for _f, c in items)
    if total < size:
        return
    f, c = items[0]
    rest = items[1:]
    for take in range(min(c, size), -1, -1):
        for tail in _multiset_combinations(rest, size - take):
            yield (f,) * take + tail


#: Below this many ways to leave suit cards out, legal follows are found by
#: trying each (the cores would give each follow many times).
_FEW_LEFT_OUT: Final = 100


def _count_choices(counts_: Sequence[int], size: int, stop: int) -> int:
    """How many sub-multisets of ``size`` the counts allow (counting stops at ``stop``)."""
    ways = [1] + [0] * size
    for c in counts_:
        new = [0] * (size + 1)
        for s in range(size + 1):
            if ways[s]:
                for take in range(min(c, size - s) + 1):
                    new[s + take] = min(stop, new[s + take] + ways[s])
        ways = new
    return ways[size]


def _complements(items: Sequence[tuple[int, int]], out: int) -> Iterator[tuple[int, ...]]:
    """What is left of ``items`` ((face, count) pairs) once ``out`` cards are
    left out, for each way to leave them out."""
    for left_out in _multiset_combinations(items, out):
        rest = dict(items)
        for f in left_out:
            rest[f] -= 1
        yield tuple(f for f, c in rest.items() for _ in range(c))


#: How many cores :meth:`_Core.held_by` looks for in a play before asking a sweep.
_KNOWN_CORES: Final = 4


class _Core:
    """What a legal follow's suit cards must hold, for a holding of the led suit
    larger than the lead (docs/rules.md §6.2-§6.3): a placement of the holding's match
    vector, its *core*. A play is legal iff its suit cards hold a core."""

    def __init__(self, order: Order, lead: Lead, held: dict[int, int]) -> None:
        self.order = order
        self.esuit = lead.esuit
        self.held = held
        self._known: list[dict[int, int]] | None = None
        self.fixed: Demand
        self.flex: list[Flex]
        self.pairs: int
        # bins: several led tractors share out the runs ("at most" each)
        self.bins: list[Flex] = []
        if lead.mode == _MODE_LADDER:
            lad = _Ladders(order, lead, held)
            d = dict(lad.fixed)
            self.pairs = d.pop((2, 1), 0)
            self.fixed = tuple(sorted(d.items()))
            self.flex = list(lad.flex)
            self.sweep = lad.sweep
            return
        # (t, q): t pairs in runs shared out among the led tractors, then q - t
        # more pairs
        q = min(lead.pairs, sum(c >> 1 for c in held.values()))
        t = _tractor_pairs(order, lead.esuit, counts_from(held), lead.caps) if lead.caps else 0
        self.pairs = q - t
        self.sweep = Sweep(order, lead.esuit, held, spare=True)
        if len(lead.caps) > 1 and t:
            self.fixed = ()
            self.flex = []
            self.bins = [(c, False, 0, 0) for c in lead.caps]
            self.t = t
            self.caps = lead.caps
            self.lead_pairs = lead.pairs
            return
        # at most one led tractor: its t pairs in runs are one run (t <= 3)
        # or a requirement
        self.fixed = (((2, t), 1),) if 2 <= t <= 3 else ()
        self.flex = [(t, True, 0, 0)] if t >= 4 else []

    def cores(self) -> Iterator[dict[int, int]]:
        """Every distinct core, each once."""
        if self.bins:
            fixed: Demand = (((2, 1), self.pairs),) if self.pairs else ()
            yield from Sweep(self.order, self.esuit, self.held).placements(fixed, self.bins)
            return
        yield from self.sweep.spare_placements(self.fixed, self.flex, self.pairs)

    def held_by(self, cnt: dict[int, int]) -> bool:
        """Do these suit cards hold a core? (one sweep question)"""
        if self.bins:
            # several led tractors: the (t, q) of §6.2, as check_follow reads
            # it (t from the search cached on the pair profile): these cards
            # hold a core iff they reach the holding's t and q
            if min(self.lead_pairs, sum(c >> 1 for c in cnt.values())) < self.pairs + self.t:
                return False
            return _tractor_pairs(self.order, self.esuit, counts_from(cnt), self.caps) >= self.t
        # a few cores known: cards that hold one of them hold a core (most
        # candidates leave out only cards that a core does not need)
        known = self._known
        if known is None:
            known = self._known = list(itertools.islice(self.cores(), _KNOWN_CORES))
        for core in known:
            if all(cnt.get(f, 0) >= c for f, c in core.items()):
                return True
        sw = Sweep(self.order, self.esuit, cnt, spare=True)
        return sw.spare_at_least(self.fixed, self.flex, self.pairs) >= self.pairs


class LegalFollows:
    """The legal follows of one seat to a lead (lazy, python-chess style).

    ``play in follows`` is the fast check (faces or cards, any order);
    iterating yields every legal follow once as a sorted tuple of faces
    (copies of a face are interchangeable); ``bool(follows)`` is whether any
    exists (always, when the hand has enough cards); ``count()`` counts them.
    """

    def __init__(self, order: Order, lead: Lead, hand: Sequence[int]) -> None:
        self.order = order
        self.lead = lead
        self.hand = list(hand)

    def check(self, play: CardsLike) -> Verdict:
        return check_follow_counts(self.order, self.lead, self.hand, _faces(play))

    def __contains__(self, play: object) -> bool:
        if not isinstance(play, Iterable):
            return False
        return bool(self.check(play))

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        order, lead, hand = self.order, self.lead, self.hand
        n = lead.size
        s = lead.esuit
        esuit = order.esuit
        # suit cards first: faces with more copies first, strongest first, so
        # structured (legal) candidates come early
        in_suit = sorted(
            ((f, hand[f]) for f in order.suit_faces[s] if hand[f]),
            key=lambda fc: (-fc[1], -order.pos[fc[0]]),
        )
        other = [(f, hand[f]) for f in range(FACES) if hand[f] and esuit[f] != s]
        h = sum(c for _f, c in in_suit)
        if h + sum(c for _f, c in other) < n:
            return
        take = min(n, h)
        structured = take == n and h > n and lead.mode != _MODE_FREE
        if not structured:
            for part in _multiset_combinations(in_suit, take):
                for fill in _multiset_combinations(other, n - take):
                    yield tuple(sorted(part + fill))
            return
        # docs/rules.md §6.2-§6.3: a play is legal iff its suit cards reach the vector
        # of the whole holding, i.e. iff they hold a "core" (a placement of
        # what the holding's vector demands). So: each distinct core, then
        # every way to fill it up with the other suit cards, weakest first;
        # each play once. No candidate is generated and then refused.
        held = dict(in_suit)
        pos = order.pos
        out = h - n  # suit cards a legal follow leaves in the hand
        if _count_choices([c for _f, c in in_suit], out, _FEW_LEFT_OUT + 1) <= _FEW_LEFT_OUT:
            # few ways to leave cards out: try each (weakest first), one sweep
            # question each (does what is played hold a core?)
            need_core = _Core(order, lead, held)
            low_first = sorted(in_suit, key=lambda fc: (pos[fc[0]], fc[0]))
            for left_out in _multiset_combinations(low_first, out):
                rest = dict(held)
                for f in left_out:
                    rest[f] -= 1
                if need_core.held_by(rest):
                    yield tuple(sorted(f for f, c in rest.items() for _ in range(c)))
            return
        seen: set[tuple[int, ...]] = set()
        for core in _Core(order, lead, held).cores():
            core_cards = [f for f, c in core.items() for _ in range(c)]
            spare = sorted(
                ((f, c - core.get(f, 0)) for f, c in in_suit if c > core.get(f, 0)),
                key=lambda fc: (pos[fc[0]], fc[0]),
            )
            need = n - len(core_cards)
            if 2 * need > len(spare):
                # fewer to leave out than to add: choose what stays out
                fills = _complements(spare, sum(c for _f, c in spare) - need)
            else:
                fills = _multiset_combinations(spare, need)
            for fill in fills:
                play = tuple(sorted(core_cards + list(fill)))
                if play not in seen:
                    seen.add(play)
                    yield play

    def __bool__(self) -> bool:
        return next(iter(self), None) is not None

    def first(self) -> tuple[int, ...] | None:
        """One legal follow (the first generated), or ``None``."""
        return next(iter(self), None)

    def count(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return f"<LegalFollows to {format_faces(self.lead.faces)!r}>"


def legal_follows(
    order: Order, lead: Lead | CardsLike, hand: CardsLike | Sequence[int]
) -> LegalFollows:
    """The legal follows of a hand (cards, or a count array) to a lead."""
    cnt = _hand_counts(hand)
    return LegalFollows(order, _lead(order, lead), cnt)


def single_unit_leads(order: Order, hand: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """Every one-unit lead of a hand (count array): each set of each width
    the hand allows, and each run, one face chosen per position."""
    for es in range(5):
        faces_at = order.faces_at[es]
        for fs in faces_at:
            for f in fs:
                for m in range(1, hand[f] + 1):
                    yield (f,) * m
        maxw = max((hand[f] for f in order.suit_faces[es]), default=0)
        for m in range(2, maxw + 1):
            avail = [[f for f in fs if hand[f] >= m] for fs in faces_at]
            for lo in range(len(faces_at)):
                if not avail[lo]:
                    continue
                hi = lo + 1
                while hi < len(faces_at) and avail[hi]:
                    for combo in itertools.product(*avail[lo : hi + 1]):
                        yield tuple(f for f in combo for _ in range(m))
                    hi += 1


def legal_leads(
    order: Order, hand: CardsLike | Sequence[int], throws: bool = True
) -> Iterator[tuple[int, ...]]:
    """Every lead a hand may make, lazily: first the one-unit leads, then (with
    ``throws``) every other one-suit combination (a throw; whether it stands
    is :func:`check_throw`'s question). Plays are sorted tuples of faces."""
    cnt = _hand_counts(hand)
    singles = set()
    for play in single_unit_leads(order, cnt):
        key = tuple(sorted(play))
        if key not in singles:
            singles.add(key)
            yield key
    if not throws:
        return
    for es in range(5):
        items = [(f, cnt[f]) for f in order.suit_faces[es] if cnt[f]]
        total = sum(c for _f, c in items)
        for size in range(2, total + 1):
            for combo in _multiset_combinations(items, size):
                key = tuple(sorted(combo))
                if key not in singles:
                    yield key


def suit_name(es: int) -> str:
    """``S H D C`` or ``trump``."""
    return SUIT_NAMES[es]
