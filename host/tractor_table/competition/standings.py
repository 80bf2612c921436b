"""Standings: a pure function of the entries, the table matches, the adjustments and the scoring.

``rank()`` is run every time the standings are shown (live, marked provisional) and when a
round is published (frozen into that publication); it is never stored and then patched, so a
revoked adjustment or a corrected match can never leave a stale total behind (the lesson of
docs/competition.md, "Competitions"). The result does not depend on the order of its inputs.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .model import Adjustment, CompetitionError, Entry, TableMatch
from .scoring import Scoring


@dataclass(frozen=True)
class RoundResult:
    """An entry's meeting in one round, as the standings counted it. ``result`` is ``W``,
    ``D``, ``L``, ``B`` (a bye), ``WO`` (won by walkover) or ``FF`` (forfeited)."""

    round_no: int
    opponent: str | None
    tables: tuple[str, ...]
    result: str
    points: int
    net_levels: int
    levels: int
    adjusted: bool


@dataclass(frozen=True)
class Row:
    rank: int
    shared: bool
    entry: str
    name: str
    match_points: int
    net_levels: int
    total_levels: int
    rounds_won: int
    progressive_cut1: int
    buchholz: int
    lots: int
    played: int
    rounds: tuple[RoundResult, ...] = field(default=())

    def key(self, scoring: Scoring) -> tuple[int, ...]:
        return tuple(int(getattr(self, t)) for t in scoring.tie_breaks)


@dataclass(frozen=True)
class Standings:
    rows: tuple[Row, ...]
    rounds: tuple[int, ...]
    pending: tuple[str, ...]  # matches not yet counted (playing, not played)

    def row(self, entry: str) -> Row:
        for r in self.rows:
            if r.entry == entry:
                return r
        raise KeyError(entry)

    def order(self) -> list[str]:
        return [r.entry for r in self.rows]


def lot(seed: int, entry_id: str) -> int:
    """The entry's lot: a reproducible draw, the same for a seed and an entry on any machine."""
    h = hashlib.sha256(f"{seed}:{entry_id}".encode()).digest()
    return int.from_bytes(h[:4], "big")


def effective(adjustments: Iterable[Adjustment]) -> list[Adjustment]:
    """The adjustments in force: not revokes, not revoked; sorted by id."""
    adjs = sorted(adjustments, key=lambda a: a.adj_id)
    revoked = {a.revokes for a in adjs if a.kind == "revoke"}
    return [a for a in adjs if a.kind != "revoke" and a.adj_id not in revoked]


@dataclass
class _Tally:
    points: int = 0
    net: int = 0
    levels: int = 0
    won: int = 0
    played: int = 0
    by_round: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    opponents: list[str] = field(default_factory=list)
    results: list[RoundResult] = field(default_factory=list)


def rank(
    scoring: Scoring,
    entries: Iterable[Entry],
    matches: Iterable[TableMatch],
    adjustments: Iterable[Adjustment] = (),
) -> Standings:
    """The standings, best first; equal entries on every criterion of the chain share a rank
    (unless the chain ends with ``lots``, which separates everyone)."""
    ents = {e.entry_id: e for e in entries}
    ms = sorted(matches, key=lambda m: m.match_id)
    adjs = effective(adjustments)
    by_match: dict[str, list[Adjustment]] = defaultdict(list)
    for a in adjs:
        if a.match_id is not None:
            by_match[a.match_id].append(a)

    tallies = {eid: _Tally() for eid in ents}
    meetings: dict[tuple[int, str, str], list[TableMatch]] = defaultdict(list)
    busy: dict[tuple[int, str], tuple[str, str | None]] = {}
    pending: list[str] = []
    rounds: set[int] = set()
    for m in ms:
        for e in m.entries:
            if e is not None and e not in ents:
                raise CompetitionError(f"match {m.match_id}: entry {e!r} is not in the competition")
        first, b = m.entries
        if b is None:
            pair_key: tuple[str, str | None] = (first, None)
        else:
            lo, hi = sorted((first, b))
            pair_key = (lo, hi)
        for e in m.entries:
            if e is None:
                continue
            seen = busy.setdefault((m.round_no, e), pair_key)
            if seen != pair_key:
                raise CompetitionError(
                    f"match {m.match_id}: entry {e!r} already meets someone else in round {m.round_no}"
                )
        if b is None:
            rounds.add(m.round_no)
            _bye(scoring, tallies[first], m, by_match[m.match_id])
            continue
        meetings[(m.round_no, pair_key[0], str(pair_key[1]))].append(m)

    for (round_no, lo, hi), tables in sorted(meetings.items()):
        madjs = sorted((x for t in tables for x in by_match[t.match_id]), key=lambda x: x.adj_id)
        decisive = [x for x in madjs if x.kind in ("forfeit", "walkover")]
        if decisive:
            last = decisive[-1]
            winner = last.entry if last.kind == "walkover" else (hi if last.entry == lo else lo)
            assert winner is not None
            loser = hi if winner == lo else lo
            rounds.add(round_no)
            _walkover(scoring, tallies, round_no, winner, loser, tables, madjs)
            continue
        if any(t.status != "finished" for t in tables):
            pending.extend(t.match_id for t in tables)
            continue
        rounds.add(round_no)
        _played(scoring, ents, tallies, round_no, lo, hi, tables, madjs)

    ordered = sorted(rounds)
    rows: list[Row] = []
    for eid, t in tallies.items():
        running = 0
        prog = 0
        for i, round_no in enumerate(ordered):
            running += t.by_round.get(round_no, 0)
            if i > 0:
                prog += running
        rows.append(Row(
            rank=0, shared=False, entry=eid, name=ents[eid].name,
            match_points=t.points, net_levels=t.net, total_levels=t.levels,
            rounds_won=t.won, progressive_cut1=prog, buchholz=0,
            lots=lot(scoring.lots_seed, eid), played=t.played,
            rounds=tuple(sorted(t.results, key=lambda x: x.round_no)),
        ))
    points = {r.entry: r.match_points for r in rows}
    rows = [
        _with(r, buchholz=sum(points[o] for o in tallies[r.entry].opponents)) for r in rows
    ]
    rows.sort(key=lambda r: (tuple(-k for k in r.key(scoring)), r.name, r.entry))
    out: list[Row] = []
    for i, row in enumerate(rows):
        if i and row.key(scoring) == rows[i - 1].key(scoring):
            above = out[-1]
            out[-1] = _with(above, shared=True)
            out.append(_with(row, rank=above.rank, shared=True))
        else:
            out.append(_with(row, rank=i + 1))
    return Standings(rows=tuple(out), rounds=tuple(ordered), pending=tuple(pending))


def _with(r: Row, **kw: object) -> Row:
    from dataclasses import replace

    return replace(r, **kw)  # type: ignore[arg-type]


def _extra_points(adjs: Sequence[Adjustment], entry: str) -> int:
    extra = 0
    for a in adjs:
        if a.entry != entry:
            continue
        if a.kind == "score":
            extra += a.value
        elif a.kind == "penalty":
            extra -= a.value
    return extra


def _credit(t: _Tally, round_no: int, points: int, net: int, levels: int, won: bool,
            result: RoundResult) -> None:
    t.points += points
    t.by_round[round_no] += points
    t.net += net
    t.levels += levels
    t.won += int(won)
    t.played += 1
    if result.opponent is not None:
        t.opponents.append(result.opponent)
    t.results.append(result)


def _bye(scoring: Scoring, t: _Tally, m: TableMatch, adjs: Sequence[Adjustment]) -> None:
    extra = _extra_points(adjs, m.entries[0])
    pts = scoring.bye + extra
    _credit(t, m.round_no, pts, 0, 0, True, RoundResult(
        m.round_no, None, (m.table,), "B", pts, 0, 0, bool(adjs)))


def _walkover(scoring: Scoring, tallies: dict[str, _Tally], round_no: int, winner: str,
              loser: str, tables: Sequence[TableMatch], adjs: Sequence[Adjustment]) -> None:
    names = tuple(t.table for t in tables)
    for who, other, won in ((winner, loser, True), (loser, winner, False)):
        base = scoring.walkover_win if won else scoring.walkover_loss
        pts = base + _extra_points(adjs, who)
        net = scoring.walkover_levels if won else -scoring.walkover_levels
        _credit(tallies[who], round_no, pts, net, 0, won, RoundResult(
            round_no, other, names, "WO" if won else "FF", pts, net, 0, True))


def _played(scoring: Scoring, ents: dict[str, Entry], tallies: dict[str, _Tally], round_no: int,
            lo: str, hi: str, tables: Sequence[TableMatch], adjs: Sequence[Adjustment]) -> None:
    diffs: list[int] = []  # from lo's side
    gained = {lo: 0, hi: 0}
    for m in tables:
        pos = []
        for side in (0, 1):
            assert m.levels is not None
            p = scoring.top if m.passed == side else scoring.position(m.levels[side])
            who = m.entries[side]
            p += sum(a.value for a in adjs if a.kind == "level" and a.match_id == m.match_id
                     and a.entry == who)
            pos.append(max(0, min(scoring.top, p)))
        if m.entries[0] == lo:
            d, lo_pos, hi_pos = pos[0] - pos[1], pos[0], pos[1]
        else:
            d, lo_pos, hi_pos = pos[1] - pos[0], pos[1], pos[0]
        diffs.append(d)
        gained[lo] += lo_pos
        gained[hi] += hi_pos
    if scoring.team_combine == "levels":
        total = sum(diffs)
        lo_pts, hi_pts = scoring.points(total)
        net = scoring.capped(total)
    else:
        lo_pts = hi_pts = 0
        for d in diffs:
            a, b = scoring.points(d)
            lo_pts += a
            hi_pts += b
        net = sum(scoring.capped(d) for d in diffs)
    if scoring.method == "wdl" and scoring.team_combine == "levels":
        lo_res = "W" if total > 0 else "L" if total < 0 else "D"
    else:
        lo_res = "W" if lo_pts > hi_pts else "L" if lo_pts < hi_pts else "D"
    flip = {"W": "L", "L": "W", "D": "D"}
    names = tuple(t.table for t in tables)
    touched = bool(adjs)
    for who, other, pts, n, res in ((lo, hi, lo_pts, net, lo_res),
                                    (hi, lo, hi_pts, -net, flip[lo_res])):
        pts += _extra_points(adjs, who)
        _credit(tallies[who], round_no, pts, n, gained[who], res == "W", RoundResult(
            round_no, other, names, res, pts, n, gained[who], touched))
