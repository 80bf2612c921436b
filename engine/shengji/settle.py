"""Settling a hand: level tables, the level ladder, the next dealer, the match's end.

docs/rules.md §8.4-§8.6 (settling the hand, the next dealer, levels and the match). Everything here
is a pure function of the attackers' final score and a few options, so the
conformance kind ``settle`` and the hand/match state machines share it.

Levels are rank indices ``0 … 12`` (``2`` … ``A``), as in :mod:`shengji.cards`;
:func:`level_name` and :func:`parse_level` convert to and from notation.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

LEVEL_NAMES = "23456789TJQKA"
#: rank index of the level A, the top of every ladder.
ACE = 12
#: rank index of J (the tournament rule "a defending side at J ... goes back to 2").
JACK = 9
TWO = 0

#: ``level_ladder = "tournament"``: 2, 5, T, J, Q, K, A (docs/rules.md §8.6).
TOURNAMENT_LADDER: tuple[int, ...] = (0, 3, 8, 9, 10, 11, 12)
FULL_LADDER: tuple[int, ...] = tuple(range(13))

LEVEL_TABLES = ("classic", "lianzhong", "qq", "tournament", "onedeck", "xuwen")
LEVEL_LADDERS = ("full", "tournament")


class SettleRules(Protocol):
    """The options settling reads (a :class:`shengji.rules.Rules` has them all)."""

    @property
    def decks(self) -> int: ...
    @property
    def level_table(self) -> str: ...
    @property
    def level_ladder(self) -> str: ...
    @property
    def must_play(self) -> Sequence[object]: ...


class SettleError(ValueError):
    """A settling input that makes no sense (an unknown table, a level off the ladder, ...)."""


def parse_level(text: object) -> int:
    """``"2"`` … ``"A"`` (also ``"10"``, or an int rank index) to a rank index."""
    if isinstance(text, bool):
        raise SettleError(f"bad level {text!r}: use 2 … 9, T, J, Q, K or A")
    if isinstance(text, int):
        if 0 <= text <= ACE:
            return text
        raise SettleError(f"bad level {text!r}: a rank index is 0 (2) … 12 (A)")
    if isinstance(text, str):
        t = text.strip().upper()
        if t == "10":
            t = "T"
        if len(t) == 1 and t in LEVEL_NAMES:
            return LEVEL_NAMES.index(t)
    raise SettleError(f"bad level {text!r}: use 2 … 9, T, J, Q, K or A")


def level_name(level: int) -> str:
    return LEVEL_NAMES[level]


@dataclass(frozen=True, slots=True)
class LevelResult:
    """What a score is worth under a level table.

    ``attackers_win``: the attackers take over the deal; ``gain``: levels gained by
    the side that won (the defenders when ``attackers_win`` is false).
    """

    attackers_win: bool
    gain: int


def step_of(decks: int) -> int:
    """The score step of the classic tables: 20 points per deck."""
    return 20 * decks


def level_result(score: int, decks: int, table: str = "classic") -> LevelResult:
    """The level tables of docs/rules.md §8.4. A negative score counts as 0."""
    if decks not in (1, 2, 3, 4):
        raise SettleError(f"bad decks {decks!r}: 1, 2, 3 or 4")
    s = max(0, int(score))
    step = step_of(decks)
    if table in ("classic", "qq", "lianzhong"):
        if s == 0:
            return LevelResult(False, 3)
        if s < step:
            return LevelResult(False, 2)
        if s < 2 * step:
            return LevelResult(False, 1)
        if table == "lianzhong":
            return LevelResult(True, s // step - 1)
        gain = s // step - 2
        if table == "qq":
            gain = min(gain, 6)
        return LevelResult(True, gain)
    if table == "tournament":
        # docs/rules.md §8.4's tournament table, written for 2 decks; other deck counts scale the thresholds.
        def t(points: int) -> float:
            return points * decks / 2

        if s == 0:
            return LevelResult(False, 3)
        if s < t(40):
            return LevelResult(False, 2)
        if s < t(80):
            return LevelResult(False, 1)
        if s < t(120):
            return LevelResult(True, 0)
        if s < t(150):
            return LevelResult(True, 2)
        return LevelResult(True, 3)
    if table == "onedeck":
        if decks != 1:
            raise SettleError(
                f"level_table 'onedeck' is for 1 deck, not {decks}: pick another table"
            )
        if s == 0:
            return LevelResult(False, 2)
        if s < 40:
            return LevelResult(False, 1)
        if s < 80:
            return LevelResult(True, 0)
        if s < 100:
            return LevelResult(True, 1)
        return LevelResult(True, 2)
    if table == "xuwen":
        # docs/rules.md §8.4's xuwen table (4 decks): take over from 160, +1 per further 40; other deck
        # counts scale the thresholds by decks / 4.
        def x(points: int) -> float:
            return points * decks / 4

        if s == 0:
            return LevelResult(False, 3)
        if s < x(80):
            return LevelResult(False, 2)
        if s < x(160):
            return LevelResult(False, 1)
        return LevelResult(True, int((s - x(160)) // x(40)))
    raise SettleError(f"unknown level_table {table!r}: one of {', '.join(LEVEL_TABLES)}")


def ladder_of(name: str) -> tuple[int, ...]:
    if name == "full":
        return FULL_LADDER
    if name == "tournament":
        return TOURNAMENT_LADDER
    raise SettleError(f"unknown level_ladder {name!r}: one of {', '.join(LEVEL_LADDERS)}")


def must_play_levels(values: Iterable[object]) -> frozenset[int]:
    return frozenset(parse_level(v) for v in values)


def advance(level: int, gain: int, ladder: Sequence[int], must_play: Iterable[int] = ()) -> int:
    """Move ``gain`` rungs up ``ladder`` from ``level``, stopping at A and at each
    ``must_play`` level reached on the way: a climb cannot pass a listed level in
    one hand, and from a listed level it moves on as usual (docs/rules.md
    §8.6). A level off the ladder first moves to the next rung
    above it."""
    stops = set(must_play) | {ACE}
    current = level
    for _ in range(gain):
        if current == ACE:
            break
        current = next(r for r in ladder if r > current)
        if current in stops:
            break
    return current


@dataclass(frozen=True, slots=True)
class Settlement:
    """The outcome of one hand for the match.

    ``levels`` are per side (``[side0, side1]``) with fixed partners, or per seat
    with ``partners = "called"``. ``winner`` is the side (0/1) that won the match,
    or with per-seat levels the seats that won it, or None.
    """

    score: int
    attackers_win: bool
    gain: int
    next_dealer: int
    levels: tuple[int, ...]
    winner: int | tuple[int, ...] | None
    j_reset: bool = False


def settle(
    rules: SettleRules,
    score: int,
    dealer: int,
    levels: Sequence[int],
    *,
    defenders: Sequence[int] | None = None,
    kitty_j: bool = False,
    result: LevelResult | None = None,
) -> Settlement:
    """Settle a hand.

    ``levels``: two side levels (fixed partners: side of seat s is s % 2) or four
    seat levels (find-a-friend). ``defenders``: the seats of the dealer's side
    (default: the dealer and the dealer's partner). ``kitty_j``: the attackers won
    the last trick's kitty with a J (the tournament rule, docs/rules.md §8.6).
    ``result``: a level result decided otherwise (a forfeit) instead of the table's.
    """
    if dealer not in (0, 1, 2, 3):
        raise SettleError(f"bad dealer {dealer!r}: a seat 0 … 3")
    per_seat = len(levels) == 4
    if len(levels) not in (2, 4):
        raise SettleError(f"levels has {len(levels)} entries: give 2 (per side) or 4 (per seat)")
    if defenders is None:
        defenders = (dealer, (dealer + 2) % 4)
    defenders = tuple(sorted(set(defenders)))
    if dealer not in defenders:
        raise SettleError("the dealer must be one of the defenders")
    attackers = tuple(s for s in range(4) if s not in defenders)
    if result is None:
        result = level_result(score, rules.decks, rules.level_table)
    ladder = ladder_of(rules.level_ladder)
    stops = must_play_levels(rules.must_play)
    new = list(levels)

    def idx(seat: int) -> int:
        return seat if per_seat else seat % 2

    winners = attackers if result.attackers_win else defenders
    winner: int | tuple[int, ...] | None = None
    if not result.attackers_win:
        at_ace = tuple(s for s in defenders if levels[idx(s)] == ACE)
        if at_ace:
            winner = at_ace if per_seat else dealer % 2
    for i in sorted({idx(s) for s in winners}):
        new[i] = advance(levels[i], result.gain, ladder, stops)
    j_reset = False
    tournament = "tournament" in (rules.level_ladder, rules.level_table)
    if kitty_j and tournament:
        for i in sorted({idx(s) for s in defenders}):
            if levels[i] == JACK:
                new[i] = TWO
                j_reset = True
    if result.attackers_win:
        next_dealer = (dealer + 1) % 4
    else:
        # the dealer's partner deals next; a dealer who played alone deals again.
        partners = [s for s in defenders if s != dealer]
        next_dealer = partners[0] if partners else dealer
    return Settlement(
        score=score,
        attackers_win=result.attackers_win,
        gain=result.gain,
        next_dealer=next_dealer,
        levels=tuple(new),
        winner=winner,
        j_reset=j_reset,
    )
