"""Pairings: Swiss never repeats a meeting over many rounds and pairs high against high; the
Berger tables are the published ones and meet everyone once; seating binds tables and seats."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shengji.cards import Rank
from tractor_table.competition.model import Entry, TableMatch
from tractor_table.competition.pairing import (
    Pairing,
    PairingError,
    berger,
    berger_rounds,
    met_pairs,
    swiss,
)
from tractor_table.competition.scoring import PRESETS, TOURNAMENT_LADDER
from tractor_table.competition.seating import (
    Seat,
    SeatingError,
    check_seating,
    matches_of,
    seat_round,
)
from tractor_table.competition.standings import rank


def pairs(n: int) -> list[Entry]:
    return [Entry(f"E{i:02d}", f"Pair {i}", "pair", ((f"p{i}a", f"p{i}b"),)) for i in range(n)]


def play_swiss(n: int, rounds: int, seed: int) -> tuple[list[Pairing], list[TableMatch]]:
    """A Swiss event with random results, each round paired on the standings so far."""
    entries = pairs(n)
    rnd = random.Random(seed)
    scoring = PRESETS["guangxi"]
    history: list[Pairing] = []
    matches: list[TableMatch] = []
    side0: dict[str, int] = {}
    for r in range(1, rounds + 1):
        order = rank(scoring, entries, matches).order()
        p = swiss(order, r, met=met_pairs(history), had_bye={q.bye for q in history if q.bye},
                  side0=side0, seed=seed)
        history.append(p)
        for t, (a, b) in enumerate(p.meetings):
            side0[a] = side0.get(a, 0) + 1
            la, lb = rnd.choice(TOURNAMENT_LADDER), rnd.choice(TOURNAMENT_LADDER)
            matches.append(TableMatch(f"r{r}t{t}", r, f"T{t}", (a, b), "finished", (int(la), int(lb))))
        if p.bye:
            matches.append(TableMatch(f"r{r}bye", r, "-", (p.bye, None)))
    return history, matches


@settings(max_examples=60, deadline=None)
@given(st.integers(4, 33), st.integers(0, 10**6))
def test_swiss_never_repeats_a_meeting(n: int, seed: int) -> None:
    rounds = min(7, n - 1 - (n % 2 == 0 and n < 8))
    try:
        history, _ = play_swiss(n, rounds, seed)
    except PairingError:
        # a small field can run out of new opponents; that is said, never a repeat
        assert n <= 8
        return
    seen: set[frozenset[str]] = set()
    byes: list[str] = []
    for p in history:
        assert sorted(p.entries()) == sorted(e.entry_id for e in pairs(n))
        for m in p.meetings:
            assert frozenset(m) not in seen
            seen.add(frozenset(m))
        if p.bye:
            byes.append(p.bye)
    assert len(byes) == len(set(byes)) and len(byes) == rounds * (n % 2)


def test_sixteen_tables_five_rounds_high_against_high() -> None:
    history, matches = play_swiss(32, 5, 7)
    assert len(met_pairs(history)) == 16 * 5
    # round 2 on: the leader meets the best-placed entry it has not met
    order = rank(PRESETS["guangxi"], pairs(32), [m for m in matches if m.round_no == 1]).order()
    first = history[1].meetings[0]
    assert order[0] in first and order[1] in first


def test_round_one_is_drawn_from_the_seed() -> None:
    ids = [e.entry_id for e in pairs(12)]
    a, b, c = swiss(ids, 1, seed=1), swiss(ids, 1, seed=1), swiss(ids, 1, seed=2)
    assert a == b and a != c
    assert a.meetings != tuple(zip(ids[::2], ids[1::2], strict=True))


def test_swiss_says_when_no_pairing_without_repeats_exists() -> None:
    ids = ["A", "B", "C", "D"]
    met = {frozenset(x) for x in itertools.combinations(ids, 2)}
    with pytest.raises(PairingError, match="repeat"):
        swiss(ids, 4, met=met)
    # the search is bounded: a hopeless big field fails fast within the budget
    big = [f"X{i}" for i in range(40)]
    met = {frozenset(x) for x in itertools.combinations(big[:21], 2)}
    with pytest.raises(PairingError, match="steps"):
        swiss(big, 3, met=met, budget=5000)


def test_berger_tables_are_the_published_ones() -> None:
    # FIDE Handbook C.05 Annex 1, Berger tables for 3-4 and 5-6 players
    four = [[(1, 4), (2, 3)], [(4, 3), (1, 2)], [(2, 4), (3, 1)]]
    six = [
        [(1, 6), (2, 5), (3, 4)], [(6, 4), (5, 3), (1, 2)], [(2, 6), (3, 1), (4, 5)],
        [(6, 5), (1, 4), (2, 3)], [(3, 6), (4, 2), (5, 1)],
    ]
    for n, table in ((4, four), (6, six)):
        names = [str(i) for i in range(1, n + 1)]
        got = [[(int(a), int(b)) for a, b in p.meetings] for p in berger_rounds(names)]
        assert got == table


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 30))
def test_berger_everyone_meets_everyone_once(n: int) -> None:
    names = [f"P{i}" for i in range(n)]
    rounds = berger_rounds(names)
    assert len(rounds) == n - 1 + n % 2
    seen = [frozenset(m) for p in rounds for m in p.meetings]
    assert sorted(map(sorted, seen)) == sorted(map(sorted, map(frozenset, itertools.combinations(names, 2))))
    for p in rounds:
        assert sorted(p.entries()) == sorted(names)
    byes = [p.bye for p in rounds if p.bye]
    assert sorted(byes) == (sorted(names) if n % 2 else [])
    side0 = {x: sum(1 for p in rounds for m in p.meetings if m[0] == x) for x in names}
    assert max(side0.values()) - min(side0.values()) <= 1 + n % 2
    second = berger(names, len(rounds) + 1)
    assert second.meetings == tuple((b, a) for a, b in rounds[0].meetings)


def team(i: int) -> Entry:
    return Entry(f"T{i}", f"Team {i}", "team", ((f"t{i}a", f"t{i}b"), (f"t{i}c", f"t{i}d")))


def test_seating_pairs_and_teams() -> None:
    ents = {e.entry_id: e for e in pairs(4)}
    p = Pairing(1, (("E00", "E01"), ("E02", "E03")))
    seats = seat_round(p, ents, ["T1", "T2", "T3"])
    assert [(s.table, s.seat, s.player) for s in seats[:4]] == [
        ("T1", 0, "p0a"), ("T1", 2, "p0b"), ("T1", 1, "p1a"), ("T1", 3, "p1b")]
    ms = matches_of(1, seats)
    assert [(m.table, m.entries) for m in ms] == [("T1", ("E00", "E01")), ("T2", ("E02", "E03"))]
    with pytest.raises(SeatingError, match="needs 2 tables"):
        seat_round(p, ents, ["T1"])
    teams = {t.entry_id: t for t in (team(1), team(2))}
    ts = seat_round(Pairing(1, (("T1", "T2"),)), teams, ["A", "B"])
    by = {(s.table, s.seat): s.entry for s in ts}
    # a team's pairs sit at different tables, on different sides
    assert by[("A", 0)] == "T1" and by[("B", 0)] == "T2"
    assert [m.entries for m in matches_of(1, ts)] == [("T1", "T2"), ("T2", "T1")]
    with pytest.raises(SeatingError, match="same number of pairs"):
        seat_round(Pairing(1, (("T1", "E00"),)), {**teams, **ents}, ["A", "B"])


def test_a_duplicate_seating_is_refused() -> None:
    ents = {e.entry_id: e for e in pairs(4)}
    good = seat_round(Pairing(1, (("E00", "E01"),)), ents, ["T1"])
    check_seating(good, ents)
    with pytest.raises(SeatingError, match="given twice"):
        check_seating([*good, Seat("T1", 0, "E02", "p2a")], ents)
    with pytest.raises(SeatingError, match="seated twice"):
        check_seating([*good, Seat("T2", 0, "E00", "p0a")], ents)
    with pytest.raises(SeatingError, match="opposite"):
        check_seating([Seat("T1", 0, "E00", "p0a"), Seat("T1", 1, "E00", "p0b")], ents)
    with pytest.raises(SeatingError, match="not in"):
        check_seating([Seat("T1", 0, "E00", "p1a")], ents)


def test_a_seated_round_plays_into_the_standings() -> None:
    ents = pairs(2)
    seats = seat_round(Pairing(1, (("E00", "E01"),)), {e.entry_id: e for e in ents}, ["T1"])
    (m,) = matches_of(1, seats)
    assert rank(PRESETS["club"], ents, [m]).pending == (m.match_id,)
    done = TableMatch(m.match_id, 1, m.table, m.entries, "finished", (int(Rank.ACE), int(Rank.TWO)), 0)
    assert rank(PRESETS["club"], ents, [done]).order() == ["E00", "E01"]
