"""Level tables, the ladder, the next dealer and the match's end (docs/rules.md §8)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shengji.settle import (
    SettleError,
    advance,
    ladder_of,
    level_name,
    level_result,
    parse_level,
    settle,
)


@dataclass
class R:
    decks: int = 2
    level_table: str = "classic"
    level_ladder: str = "full"
    must_play: tuple[object, ...] = ()


def outcome(score: int, decks: int, table: str) -> tuple[str, int]:
    r = level_result(score, decks, table)
    return ("attackers" if r.attackers_win else "defenders", r.gain)


# (score, side, gain): the source's own thresholds, both edges of every band.
CLASSIC_2 = [  # docs/rules.md §8.4 classic, 2 decks
    (0, "defenders", 3), (5, "defenders", 2), (35, "defenders", 2), (40, "defenders", 1),
    (75, "defenders", 1), (80, "attackers", 0), (115, "attackers", 0), (120, "attackers", 1),
    (155, "attackers", 1), (160, "attackers", 2), (195, "attackers", 2), (200, "attackers", 3),
    (240, "attackers", 4), (400, "attackers", 8),
]


@pytest.mark.parametrize(("score", "side", "gain"), CLASSIC_2)
def test_classic_two_decks(score: int, side: str, gain: int) -> None:
    assert outcome(score, 2, "classic") == (side, gain)


@pytest.mark.parametrize(
    ("decks", "score", "side", "gain"),
    [  # 1 deck: step 20; 3 decks: step 60 (docs/rules.md §8.4); 4: 80
        (1, 0, "defenders", 3), (1, 15, "defenders", 2), (1, 20, "defenders", 1),
        (1, 35, "defenders", 1), (1, 40, "attackers", 0), (1, 55, "attackers", 0),
        (1, 60, "attackers", 1), (1, 80, "attackers", 2),
        (3, 55, "defenders", 2), (3, 60, "defenders", 1), (3, 115, "defenders", 1),
        (3, 120, "attackers", 0), (3, 175, "attackers", 0), (3, 180, "attackers", 1),
        (3, 240, "attackers", 2),  # docs/rules.md §8.4: 120 take over, 180 +1, 240 +2
        (4, 75, "defenders", 2), (4, 80, "defenders", 1), (4, 160, "attackers", 0),
        (4, 240, "attackers", 1),
    ],
)
def test_classic_other_decks(decks: int, score: int, side: str, gain: int) -> None:
    assert outcome(score, decks, "classic") == (side, gain)


@pytest.mark.parametrize(
    ("score", "side", "gain"),
    [  # docs/rules.md §8.4 lianzhong, 2 decks: 80-115 +1, 120-155 +2, then +1 per 40
        (0, "defenders", 3), (35, "defenders", 2), (40, "defenders", 1), (75, "defenders", 1),
        (80, "attackers", 1), (115, "attackers", 1), (120, "attackers", 2),
        (155, "attackers", 2), (160, "attackers", 3),
    ],
)
def test_lianzhong(score: int, side: str, gain: int) -> None:
    assert outcome(score, 2, "lianzhong") == (side, gain)


@pytest.mark.parametrize(
    ("score", "side", "gain"),
    [  # docs/rules.md §8.4 qq: ... >200 +3, >240 +4, >280 +5, >320 +6 (cap)
        (0, "defenders", 3), (80, "attackers", 0), (120, "attackers", 1), (200, "attackers", 3),
        (280, "attackers", 5), (320, "attackers", 6), (360, "attackers", 6), (600, "attackers", 6),
    ],
)
def test_qq_caps_at_six(score: int, side: str, gain: int) -> None:
    assert outcome(score, 2, "qq") == (side, gain)
    if score >= 360:
        assert outcome(score, 2, "classic")[1] > 6  # the cap is what differs


@pytest.mark.parametrize(
    ("score", "side", "gain"),
    [  # docs/rules.md §8.4 tournament: 0 +3; 5-35 +2; 40-75 +1; 80-115 倒庄; 120-145 +2; >=150 +3
        (0, "defenders", 3), (5, "defenders", 2), (35, "defenders", 2), (40, "defenders", 1),
        (75, "defenders", 1), (80, "attackers", 0), (115, "attackers", 0),
        (120, "attackers", 2), (145, "attackers", 2), (150, "attackers", 3),
        (200, "attackers", 3),
    ],
)
def test_tournament(score: int, side: str, gain: int) -> None:
    assert outcome(score, 2, "tournament") == (side, gain)


@pytest.mark.parametrize(
    ("score", "side", "gain"),
    [  # docs/rules.md §8.4 onedeck, 1 deck: 0 +2; <40 +1; 40-75 轮换; 80-95 +1; 100 +2
        (0, "defenders", 2), (5, "defenders", 1), (35, "defenders", 1), (40, "attackers", 0),
        (75, "attackers", 0), (80, "attackers", 1), (95, "attackers", 1), (100, "attackers", 2),
    ],
)
def test_onedeck(score: int, side: str, gain: int) -> None:
    assert outcome(score, 1, "onedeck") == (side, gain)


def test_onedeck_refuses_two_decks() -> None:
    with pytest.raises(SettleError, match="1 deck"):
        level_result(50, 2, "onedeck")


@pytest.mark.parametrize(
    ("score", "side", "gain"),
    [  # docs/rules.md §8.4 xuwen (4 decks): 160 take over, +1 per 40
        (0, "defenders", 3), (75, "defenders", 2), (80, "defenders", 1), (155, "defenders", 1),
        (160, "attackers", 0), (195, "attackers", 0), (200, "attackers", 1),
        (240, "attackers", 2),
    ],
)
def test_xuwen(score: int, side: str, gain: int) -> None:
    assert outcome(score, 4, "xuwen") == (side, gain)


def test_negative_score_counts_as_zero() -> None:
    assert outcome(-10, 2, "classic") == ("defenders", 3)


def test_unknown_table_is_an_error() -> None:
    with pytest.raises(SettleError, match="unknown level_table"):
        level_result(50, 2, "nope")


def test_levels_notation_round_trips() -> None:
    for i in range(13):
        assert parse_level(level_name(i)) == i
    assert parse_level("10") == 8
    with pytest.raises(SettleError):
        parse_level("1")


def test_ladder_and_stops() -> None:
    full, tour = ladder_of("full"), ladder_of("tournament")
    assert advance(0, 3, full) == 3
    assert advance(10, 5, full) == 12  # never past A
    assert advance(0, 2, tour) == 8  # 2 -> 5 -> T
    assert advance(6, 1, tour) == 8  # off the ladder: next rung up
    assert advance(0, 5, full, {4}) == 4  # must-play level 6 stops the climb
    assert advance(4, 2, full, {4}) == 6  # leaving a must-play level is free


def test_settle_keeps_and_takes_over() -> None:
    r = R()
    s = settle(r, 35, 1, [0, 0])
    assert (s.next_dealer, s.levels, s.winner) == (3, (0, 2), None)
    s = settle(r, 125, 1, [0, 0])
    assert (s.next_dealer, s.levels, s.winner) == (2, (1, 0), None)


def test_match_won_only_defending_at_ace() -> None:
    r = R()
    assert settle(r, 0, 1, [5, 12]).winner == 1
    assert settle(r, 80, 1, [5, 12]).winner is None  # lost the deal at A
    s = settle(r, 0, 1, [5, 11])  # K + 3 stops at A, not a win yet
    assert (s.levels, s.winner) == ((5, 12), None)
    assert settle(r, 500, 0, [12, 12]).levels == (12, 12)


def test_tournament_j_rule() -> None:
    r = R(level_table="tournament", level_ladder="tournament")
    s = settle(r, 90, 0, [9, 3], kitty_j=True)
    assert s.j_reset and s.levels == (0, 3)
    assert settle(r, 90, 0, [9, 3], kitty_j=False).levels == (9, 3)
    assert settle(R(), 90, 0, [9, 3], kitty_j=True).levels == (9, 3)  # not tournament


def test_per_seat_levels_find_a_friend() -> None:
    r = R()
    # dealer 0 with friend 3 keep the deal with 20 points: +2 each, friend deals next
    s = settle(r, 20, 0, [0, 1, 2, 3], defenders=(0, 3))
    assert s.levels == (2, 1, 2, 5) and s.next_dealer == 3
    # dealer alone against three, attackers take over with 130: +1 to seats 1, 2, 3
    s = settle(r, 130, 0, [0, 0, 0, 0], defenders=(0,))
    assert s.levels == (0, 1, 1, 1) and s.next_dealer == 1


@given(
    score=st.integers(-50, 900),
    dealer=st.integers(0, 3),
    levels=st.lists(st.integers(0, 12), min_size=2, max_size=2),
    table=st.sampled_from(["classic", "lianzhong", "qq", "tournament", "onedeck", "xuwen"]),
    ladder=st.sampled_from(["full", "tournament"]),
    must=st.lists(st.sampled_from([0, 3, 8, 9, 10, 11]), max_size=3, unique=True),
    kitty_j=st.booleans(),
)
@settings(max_examples=300, deadline=None)
def test_settle_properties(
    score: int, dealer: int, levels: list[int], table: str, ladder: str, must: list[int], kitty_j: bool
) -> None:
    decks = {"onedeck": 1, "xuwen": 4, "tournament": 2}.get(table, 2)
    r = R(decks=decks, level_table=table, level_ladder=ladder, must_play=tuple(must))
    s = settle(r, score, dealer, levels, kitty_j=kitty_j)
    assert all(0 <= x <= 12 for x in s.levels)  # no level passes A
    defending, attacking = dealer % 2, 1 - dealer % 2
    # the winner of the match defended at A and kept the deal
    if s.winner is not None:
        assert s.winner == defending and levels[defending] == 12 and not s.attackers_win
    # only the side that won the hand goes up (or the J rule sends defenders to 2)
    if s.attackers_win:
        assert s.levels[attacking] >= levels[attacking]
        assert s.next_dealer == (dealer + 1) % 4
    else:
        assert s.levels[attacking] == levels[attacking] and s.next_dealer == (dealer + 2) % 4
    if not s.j_reset:
        assert s.levels[defending] >= levels[defending] if not s.attackers_win else s.levels[defending] == levels[defending]
    # a climb never jumps over a must-play level or A
    for side in (0, 1):
        lo, hi = levels[side], s.levels[side]
        assert not any(lo < m < hi for m in (*must, 12))
