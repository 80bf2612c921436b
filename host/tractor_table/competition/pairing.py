"""Pairings: Swiss (积分编排) and round robin (Berger tables), with byes.

A pairing says who meets whom in a round; the first entry of each meeting sits on side 0
(seats 0 and 2). It is computed from facts (the standings order, who has met, who had a
bye), so the director can draw it again and get the same answer from the same seed.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

MAX_ENTRIES = 1000
#: Steps the Swiss search may take before it gives up (a few ms in practice; bounded so a
#: pathological history cannot hang the director's page).
SWISS_BUDGET = 200_000


class PairingError(ValueError):
    """No pairing within the rules: says why and what the director can do."""


@dataclass(frozen=True)
class Pairing:
    round_no: int
    meetings: tuple[tuple[str, str], ...]
    bye: str | None = None

    def entries(self) -> list[str]:
        out = [e for m in self.meetings for e in m]
        if self.bye is not None:
            out.append(self.bye)
        return out


def met_pairs(pairings: Iterable[Pairing]) -> set[frozenset[str]]:
    return {frozenset(m) for p in pairings for m in p.meetings}


def _check(entries: Sequence[str]) -> None:
    if len(set(entries)) != len(entries):
        raise PairingError("an entry is listed twice")
    if len(entries) < 2:
        raise PairingError("a round needs at least two entries")
    if len(entries) > MAX_ENTRIES:
        raise PairingError(f"at most {MAX_ENTRIES} entries")


def _sides(a: str, b: str, side0: Mapping[str, int]) -> tuple[str, str]:
    """The entry that sat on side 0 less often takes side 0; the higher-placed one if equal."""
    if side0.get(b, 0) < side0.get(a, 0):
        return (b, a)
    return (a, b)


def swiss(
    order: Sequence[str],
    round_no: int,
    *,
    met: Collection[frozenset[str]] = (),
    had_bye: Collection[str] = (),
    side0: Mapping[str, int] | None = None,
    seed: int = 0,
    budget: int = SWISS_BUDGET,
) -> Pairing:
    """A Swiss round. Round 1 is drawn (a shuffle seeded by ``seed``) and paired 1–2, 3–4, …;
    later rounds take ``order`` (the standings, best first) and pair high against high, each
    entry with the best-placed opponent it has not met, backtracking when the rest cannot be
    paired. With an odd number of entries the lowest-placed entry that has not had a bye
    sits out. Raises :class:`PairingError` when no pairing without a repeat meeting exists."""
    entries = list(order)
    _check(entries)
    side0 = side0 or {}
    if round_no == 1:
        random.Random(f"swiss:{seed}:1").shuffle(entries)
    bye_choices: list[str | None] = [None]
    if len(entries) % 2:
        bye_choices = [e for e in reversed(entries) if e not in had_bye]
        if not bye_choices:
            bye_choices = list(reversed(entries))
    steps = [0]
    for bye in bye_choices:
        rest = [e for e in entries if e != bye]
        found = _pair(rest, met, steps, budget)
        if found is not None:
            meetings = tuple(_sides(a, b, side0) for a, b in found)
            return Pairing(round_no, meetings, bye)
        if steps[0] >= budget:
            break
    why = (f"searched {steps[0]} steps without finishing" if steps[0] >= budget
           else "every way of pairing the field repeats a meeting")
    raise PairingError(
        f"round {round_no}: no Swiss pairing without a repeat meeting ({why}); "
        "seat this round by hand, or switch the competition to round robin"
    )


def _pair(rest: list[str], met: Collection[frozenset[str]], steps: list[int],
          budget: int) -> list[tuple[str, str]] | None:
    """Pairs for ``rest`` (best first), each top entry with the best-placed opponent it has
    not met. The depth of the search is half the field (at most MAX_ENTRIES / 2)."""
    if not rest:
        return []
    top, others = rest[0], rest[1:]
    for i, opp in enumerate(others):
        steps[0] += 1
        if steps[0] > budget:
            return None
        if frozenset((top, opp)) in met:
            continue
        tail = _pair(others[:i] + others[i + 1:], met, steps, budget)
        if tail is not None:
            return [(top, opp), *tail]
        if steps[0] > budget:
            return None
    return None


def berger(entries: Sequence[str], round_no: int) -> Pairing:
    """Round ``round_no`` of a round robin by the Berger tables: entry ``i`` is the
    ``i+1``-th number of the table; an odd field adds a bye as the last number. Rounds past
    one cycle repeat it with the sides swapped (a double round robin)."""
    _check(list(entries))
    field: list[str | None] = list(entries)
    if len(field) % 2:
        field.append(None)
    n = len(field)
    cycle = n - 1
    if round_no < 1:
        raise PairingError("rounds are numbered from 1")
    r = (round_no - 1) % cycle
    swap = ((round_no - 1) // cycle) % 2 == 1
    half = n // 2
    s = (r * half) % cycle
    pairs: list[tuple[str | None, str | None]] = []
    first = field[s]
    last = field[n - 1]
    pairs.append((last, first) if r % 2 else (first, last))
    for i in range(1, half):
        pairs.append((field[(s + i) % cycle], field[(s - i) % cycle]))
    meetings: list[tuple[str, str]] = []
    bye: str | None = None
    for a, b in pairs:
        if a is None or b is None:
            bye = b if a is None else a
            continue
        meetings.append((b, a) if swap else (a, b))
    return Pairing(round_no, tuple(meetings), bye)


def berger_rounds(entries: Sequence[str]) -> list[Pairing]:
    """A whole single round robin."""
    n = len(entries) + len(entries) % 2
    return [berger(entries, r) for r in range(1, n)]
