"""Standings are a pure function of entries, matches, adjustments and scoring: property tests
(order independence, walkovers, revoked adjustments, the tie-break chain) and an independent
recomputation of the match points."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shengji.cards import Rank
from tractor_table.competition.model import (
    Adjustment,
    CompetitionError,
    Entry,
    TableMatch,
    check_adjustments,
)
from tractor_table.competition.pairing import berger
from tractor_table.competition.scoring import (
    PRESETS,
    TIE_BREAKS,
    TOURNAMENT_LADDER,
    Scoring,
    ScoringError,
)
from tractor_table.competition.standings import Standings, lot, rank


def pair(i: int) -> Entry:
    return Entry(f"E{i:02d}", f"Pair {i}", "pair", ((f"p{i}a", f"p{i}b"),))


def played(mid: str, rnd: int, a: str, b: str, la: Rank, lb: Rank,
           passed: int | None = None, table: str = "T1") -> TableMatch:
    return TableMatch(mid, rnd, table, (a, b), "finished", (int(la), int(lb)), passed)


@st.composite
def events(draw: st.DrawFn) -> tuple[Scoring, list[Entry], list[TableMatch], list[Adjustment]]:
    """A round robin of 3..9 pairs, some rounds played, random levels on the tournament
    ladder, a few adjustments and revokes."""
    n = draw(st.integers(3, 9))
    entries = [pair(i) for i in range(n)]
    ids = [e.entry_id for e in entries]
    rounds = draw(st.integers(1, n + n % 2 - 1))
    preset = draw(st.sampled_from(sorted(PRESETS)))
    chain = draw(st.permutations([t for t in TIE_BREAKS if t != "lots"]))
    k = draw(st.integers(1, len(chain)))
    lots = draw(st.booleans())
    scoring = replace(PRESETS[preset], tie_breaks=(*chain[:k], *(["lots"] if lots else [])),
                      lots_seed=draw(st.integers(0, 10**6)))
    matches: list[TableMatch] = []
    for r in range(1, rounds + 1):
        p = berger(ids, r)
        for t, (a, b) in enumerate(p.meetings):
            la = draw(st.sampled_from(TOURNAMENT_LADDER))
            lb = draw(st.sampled_from(TOURNAMENT_LADDER))
            passed = draw(st.sampled_from([None, None, None, 0, 1]))
            matches.append(played(f"r{r}-t{t}", r, a, b, la, lb, passed, f"T{t}"))
        if p.bye is not None:
            matches.append(TableMatch(f"r{r}-bye", r, "-", (p.bye, None)))
    adjs: list[Adjustment] = []
    for i in range(draw(st.integers(0, 5))):
        m = draw(st.sampled_from(matches))
        kind = draw(st.sampled_from(["score", "penalty"] if m.is_bye else
                                    ["score", "penalty", "level", "forfeit", "walkover"]))
        value = draw(st.integers(1, 3)) if kind != "score" else draw(st.sampled_from([-2, -1, 1, 2]))
        adjs.append(Adjustment(i + 1, kind, m.match_id, m.entries[0], value, reason="test"))
    for a in list(adjs):
        if draw(st.booleans()):
            adjs.append(Adjustment(len(adjs) + 1, "revoke", revokes=a.adj_id, reason="undo"))
    check_adjustments(adjs, matches)
    return scoring, entries, matches, adjs


@settings(max_examples=150, deadline=None)
@given(events(), st.randoms(use_true_random=False))
def test_order_of_the_facts_does_not_matter(ev: tuple[Scoring, list[Entry], list[TableMatch],
                                                      list[Adjustment]], rnd: random.Random) -> None:
    scoring, entries, matches, adjs = ev
    before = rank(scoring, entries, matches, adjs)
    rnd.shuffle(entries)
    rnd.shuffle(matches)
    rnd.shuffle(adjs)
    assert rank(scoring, entries, matches, adjs) == before


@settings(max_examples=150, deadline=None)
@given(events())
def test_a_revoked_adjustment_is_as_if_never_made(
        ev: tuple[Scoring, list[Entry], list[TableMatch], list[Adjustment]]) -> None:
    scoring, entries, matches, adjs = ev
    base = rank(scoring, entries, matches, adjs)
    live = [a for a in adjs if a.kind != "revoke"
            and a.adj_id not in {x.revokes for x in adjs if x.kind == "revoke"}]
    assert rank(scoring, entries, matches, live) == base
    m = matches[0]
    extra = Adjustment(1000, "score", m.match_id, m.entries[0], 5, reason="typo")
    undo = Adjustment(1001, "revoke", revokes=1000, reason="typo undone")
    changed = rank(scoring, entries, matches, [*adjs, extra])
    assert changed.row(m.entries[0]).match_points == base.row(m.entries[0]).match_points + 5
    assert rank(scoring, entries, matches, [*adjs, extra, undo]) == base


@settings(max_examples=200, deadline=None)
@given(events())
def test_ties_are_broken_as_configured(
        ev: tuple[Scoring, list[Entry], list[TableMatch], list[Adjustment]]) -> None:
    scoring, entries, matches, adjs = ev
    s = rank(scoring, entries, matches, adjs)
    keys = [r.key(scoring) for r in s.rows]
    assert keys == sorted(keys, reverse=True)
    for i, r in enumerate(s.rows):
        ties = [x for x in s.rows if x.key(scoring) == r.key(scoring)]
        assert r.shared == (len(ties) > 1)
        assert r.rank == 1 + sum(1 for k in keys if k > r.key(scoring))
        assert r.rank <= i + 1
    if scoring.tie_breaks[-1] == "lots":
        assert sorted(r.rank for r in s.rows) == list(range(1, len(entries) + 1)) or \
            len({r.lots for r in s.rows}) < len(entries)
        for r in s.rows:
            assert r.lots == lot(scoring.lots_seed, r.entry)


def oracle(scoring: Scoring, entries: list[Entry], matches: list[TableMatch]) -> dict[str, int]:
    """TableMatch points the plain way, for pairs without adjustments: written from the rules in
    docs/club.md, not from rank()."""
    pts = {e.entry_id: 0 for e in entries}
    ladder = [int(r) for r in scoring.ladder]
    for m in matches:
        a, b = m.entries
        if b is None:
            pts[a] += scoring.bye
            continue
        assert m.levels is not None
        pa = len(ladder) if m.passed == 0 else ladder.index(m.levels[0])
        pb = len(ladder) if m.passed == 1 else ladder.index(m.levels[1])
        d = pa - pb
        if scoring.method == "base":
            c = d if scoring.cap is None else max(-scoring.cap, min(scoring.cap, d))
            pts[a] += scoring.base + c
            pts[b] += scoring.base - c
        elif d == 0:
            pts[a] += scoring.draw
            pts[b] += scoring.draw
        else:
            pts[a if d > 0 else b] += scoring.win
            pts[b if d > 0 else a] += scoring.loss
    return pts


@settings(max_examples=150, deadline=None)
@given(events())
def test_match_points_equal_an_independent_recomputation(
        ev: tuple[Scoring, list[Entry], list[TableMatch], list[Adjustment]]) -> None:
    scoring, entries, matches, _ = ev
    s = rank(scoring, entries, matches, [])
    assert {r.entry: r.match_points for r in s.rows} == oracle(scoring, entries, matches)
    assert sum(r.net_levels for r in s.rows) == 0


def test_base_fifteen_capped_at_ten_and_a_walkover_of_eighteen() -> None:
    g = PRESETS["guangxi"]
    e = [pair(i) for i in range(4)]
    full = Scoring(ladder=tuple(Rank), method="base", cap=10)
    ms = [played("m1", 1, "E00", "E01", Rank.KING, Rank.FIVE, table="T1")]
    s = rank(g, e, ms)
    # K is step 5 on 2 5 T J Q K A, 5 is step 1: four levels
    assert s.row("E00").match_points == 19 and s.row("E01").match_points == 11
    big = [played("m1", 1, "E00", "E01", Rank.TWO, Rank.ACE, passed=1)]
    s = rank(full, e, big)
    assert s.row("E01").match_points == 25 and s.row("E00").match_points == 5  # 13 capped at 10
    wo = Adjustment(1, "walkover", "m1", "E00", reason="E01 did not come")
    s = rank(g, e, big, [wo])
    assert s.row("E00").match_points == 18 and s.row("E00").rounds_won == 1
    assert s.row("E01").match_points == 12 and s.row("E01").rounds_won == 0
    assert [x.result for x in s.row("E00").rounds] == ["WO"]
    ff = Adjustment(2, "forfeit", "m1", "E01", reason="E01 left")
    assert rank(g, e, big, [ff]) == s


def test_win_draw_loss_and_a_bye() -> None:
    c = PRESETS["club"]
    e = [pair(i) for i in range(3)]
    ms = [played("a", 1, "E00", "E01", Rank.JACK, Rank.JACK), TableMatch("b", 1, "-", ("E02", None))]
    s = rank(c, e, ms)
    assert [s.row(x).match_points for x in ("E00", "E01", "E02")] == [1, 1, 3]
    assert s.row("E02").rounds[0].result == "B" and s.row("E02").rounds_won == 1


def test_a_level_adjustment_changes_the_result_and_a_penalty_takes_points() -> None:
    c = PRESETS["club"]
    e = [pair(i) for i in range(2)]
    ms = [played("a", 1, "E00", "E01", Rank.JACK, Rank.QUEEN)]
    assert rank(c, e, ms).row("E01").match_points == 3
    adj = [Adjustment(1, "level", "a", "E00", 2, reason="revoke at trick 9: two levels")]
    s = rank(c, e, ms, adj)
    assert s.row("E00").match_points == 3 and s.row("E00").net_levels == 1
    assert s.row("E00").rounds[0].adjusted
    pen = [*adj, Adjustment(2, "penalty", "a", "E00", 1, reason="slow play")]
    assert rank(c, e, ms, pen).row("E00").match_points == 2


def test_team_tables_add_up() -> None:
    def team(i: int) -> Entry:
        return Entry(f"T{i}", f"Team {i}", "team", ((f"t{i}a", f"t{i}b"), (f"t{i}c", f"t{i}d")))

    teams = [team(1), team(2)]
    ms = [
        played("m1", 1, "T1", "T2", Rank.ACE, Rank.TEN, table="1"),  # T1 +4
        played("m2", 1, "T2", "T1", Rank.KING, Rank.TWO, table="2"),  # T2 +5
    ]
    by_levels = rank(PRESETS["club"], teams, ms)
    assert by_levels.row("T2").match_points == 3 and by_levels.row("T2").net_levels == 1
    assert by_levels.row("T1").total_levels == 6 + 0 and by_levels.row("T2").total_levels == 2 + 5
    by_points = rank(replace(PRESETS["club"], team_combine="points"), teams, ms)
    assert by_points.row("T1").match_points == 3 and by_points.row("T2").match_points == 3
    base = rank(PRESETS["guangxi"], teams, ms)
    assert base.row("T2").match_points == 16 and base.row("T1").match_points == 14
    half = [ms[0], replace(ms[1], status="playing", levels=None)]
    pending = rank(PRESETS["club"], teams, half)
    assert pending.row("T1").played == 0 and set(pending.pending) == {"m1", "m2"}


def test_progressive_score_with_the_first_round_dropped() -> None:
    w = PRESETS["wuxi"]  # win 2, draw 1; chain: points, progressive cut 1, rounds won, ...
    e = [pair(i) for i in range(4)]
    # E00 wins rounds 1 and 2 and loses 3; E01 loses 1 and wins 2 and 3: both 4 points
    ms = [
        played("1a", 1, "E00", "E02", Rank.ACE, Rank.TWO), played("1b", 1, "E01", "E03", Rank.TWO, Rank.FIVE),
        played("2a", 2, "E00", "E03", Rank.ACE, Rank.TWO), played("2b", 2, "E01", "E02", Rank.FIVE, Rank.TWO),
        played("3a", 3, "E00", "E01", Rank.TWO, Rank.FIVE), played("3b", 3, "E02", "E03", Rank.TEN, Rank.TEN),
    ]
    s = rank(w, e, ms)
    assert s.row("E00").match_points == s.row("E01").match_points == 4
    # running totals E00: 2, 4, 4 -> 8; E01: 0, 2, 4 -> 6
    assert s.row("E00").progressive_cut1 == 8 and s.row("E01").progressive_cut1 == 6
    assert s.order()[:2] == ["E00", "E01"]
    flipped = replace(w, tie_breaks=("match_points", "net_levels", "lots"))
    t = rank(flipped, e, ms)
    assert t.row("E00").net_levels == 6 + 6 - 1 and t.row("E01").net_levels == -1 + 1 + 1
    assert t.order()[0] == "E00"


def test_equal_entries_share_a_rank_without_lots() -> None:
    c = replace(PRESETS["club"], tie_breaks=("match_points",))
    e = [pair(i) for i in range(4)]
    ms = [played("a", 1, "E00", "E01", Rank.JACK, Rank.TWO), played("b", 1, "E02", "E03", Rank.JACK, Rank.TWO)]
    s = rank(c, e, ms)
    assert [(r.rank, r.shared) for r in s.rows] == [(1, True), (1, True), (3, True), (3, True)]
    with_lots = rank(replace(c, tie_breaks=("match_points", "lots")), e, ms)
    assert sorted(r.rank for r in with_lots.rows) == [1, 2, 3, 4]


def test_bad_facts_are_refused_with_a_reason() -> None:
    e = [pair(i) for i in range(3)]
    ms = [played("a", 1, "E00", "E01", Rank.JACK, Rank.TWO)]
    with pytest.raises(CompetitionError, match="already meets"):
        rank(PRESETS["club"], e, [*ms, played("b", 1, "E00", "E02", Rank.TWO, Rank.TWO)])
    with pytest.raises(CompetitionError, match="not in the competition"):
        rank(PRESETS["club"], e, [played("c", 1, "E00", "X", Rank.TWO, Rank.TWO)])
    with pytest.raises(ScoringError, match="not on the ladder"):
        rank(PRESETS["club"], e, [played("c", 1, "E00", "E01", Rank.THREE, Rank.TWO)])
    for bad, why in [
        (Adjustment(1, "score", "a", "E00", 2), "reason"),
        (Adjustment(1, "score", "zz", "E00", 2, reason="x"), "does not exist"),
        (Adjustment(1, "score", "a", "E02", 2, reason="x"), "did not play"),
        (Adjustment(1, "revoke", revokes=7, reason="x"), "not an earlier"),
        (Adjustment(1, "penalty", "a", "E00", -2, reason="x"), "positive"),
        (Adjustment(1, "bonus", "a", "E00", 2, reason="x"), "kind"),
    ]:
        with pytest.raises(CompetitionError, match=why):
            check_adjustments([bad], ms)
    a = Adjustment(1, "score", "a", "E00", 2, reason="x")
    r = Adjustment(2, "revoke", revokes=1, reason="y")
    with pytest.raises(CompetitionError, match="already revoked"):
        check_adjustments([a, r, Adjustment(3, "revoke", revokes=1, reason="z")], ms)
    with pytest.raises(CompetitionError, match="cannot be revoked"):
        check_adjustments([a, r, Adjustment(3, "revoke", revokes=2, reason="z")], ms)


def test_scoring_is_data_and_checked() -> None:
    for name, s in PRESETS.items():
        assert Scoring.from_dict(s.to_dict()) == s, name
    s = Scoring.from_dict({"preset": "guangxi", "cap": 8, "ladder": ["2", "5", "10", "J", "Q", "K", "A"]})
    assert s.cap == 8 and s.walkover_win == 18 and s.ladder == TOURNAMENT_LADDER
    for bad, why in [
        ({"method": "elo"}, "method"),
        ({"tie_breaks": ["lots", "match_points"]}, "lots can only come last"),
        ({"tie_breaks": ["sonneborn"]}, "not a criterion"),
        ({"ladder": ["5", "2"]}, "rise strictly"),
        ({"capp": 3}, "not a scoring field"),
        ({"preset": "fide"}, "preset"),
        ({"win": 0, "draw": 1}, "at least a draw"),
        ({"cap": 0}, "cap"),
    ]:
        with pytest.raises(ScoringError, match=why):
            Scoring.from_dict(bad)


def test_standings_are_a_value() -> None:
    s = rank(PRESETS["club"], [pair(0), pair(1)], [])
    assert isinstance(s, Standings) and all(r.played == 0 for r in s.rows)
