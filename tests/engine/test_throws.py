"""Leading and throwing (docs/rules.md §5)."""

from __future__ import annotations

import pytest
from enginehelp import f, order
from shengji import IllegalPlayError, Reason, check_lead, check_throw, decompose
from shengji.play import forced_unit

ORD = order("T", "S")


def throw(lead: str, *others: str, o: object = ORD) -> tuple[bool, list[int], int | None]:
    hands = [f(lead), *[f(h) for h in others]]
    r = check_throw(o, 0, f(lead), hands)  # type: ignore[arg-type]
    return r.ok, sorted(r.play), r.seat


def test_a_lead_is_one_effective_suit() -> None:
    assert check_lead(ORD, f("AD KD 3C"), f("AD KD"))
    v = check_lead(ORD, f("AD KD 3C"), f("AD 3C"))
    assert not v and v.reason is Reason.MIXED_SUITS
    # trump of several printed suits is one effective suit
    assert check_lead(ORD, f("TH 3S SJ"), f("TH 3S SJ"))


def test_a_lead_must_come_from_the_hand_and_not_be_empty() -> None:
    assert check_lead(ORD, f("AD"), f("AD"))
    assert check_lead(ORD, f("AD"), f("AD AD")).reason is Reason.NOT_IN_HAND
    assert check_lead(ORD, f("AD"), []).reason is Reason.EMPTY


def test_one_unit_always_stands() -> None:
    assert throw("3D", "AD AD KD")[0]
    assert throw("3D 3D 4D 4D", "AD AD KD KD QD QD")[0]


def test_throw_stands_when_nobody_can_beat_a_unit() -> None:
    assert throw("AD KD KD", "QD QD JD", "9D", "2D") == (True, sorted(f("AD KD KD")), None)


def test_throw_fails_on_a_higher_single() -> None:
    ok, play, seat = throw("KD QD QD", "AD", "", "")
    assert not ok and play == f("KD") and seat == 1


def test_trumping_a_throw_is_not_beating_it() -> None:
    assert throw("AD KD KD", "BJ BJ SJ SJ", "TS TS", "")[0]


def test_pair_inside_a_triple_beats_a_pair() -> None:
    o3 = order("T", "S", 3)
    ok, play, _ = throw("AD KD KD", "QD QD", "", "", o=o3)
    assert ok
    ok, play, _ = throw("AD 9D 9D", "JD JD JD", "", "", o=o3)
    assert not ok and play == f("9D 9D")


def test_tractor_beaten_by_a_higher_tractor_even_inside_a_longer_run() -> None:
    ok, play, _ = throw("AD 5D 5D 4D 4D", "9D 9D 8D 8D 7D 7D", "", "")
    assert not ok and play == sorted(f("5D 5D 4D 4D"))
    # a lower run does not beat it
    assert throw("AD 9D 9D 8D 8D", "5D 5D 4D 4D 3D 3D", "", "")[0]


def test_most_demanding_category_first_then_weakest_unit() -> None:
    # pairs are checked before singles; the weakest pair is forced
    ok, play, _ = throw("9D 8D 8D 4D 4D", "QD QD JD", "3H", "6C")
    assert not ok and play == f("4D 4D")
    # only the single is beaten
    ok, play, _ = throw("9D 8D 8D 4D 4D", "JD 2C 2C", "3D 3D 7H", "6C")
    assert not ok and play == f("9D")


def test_the_weakest_unit_of_the_category_even_if_another_was_beaten() -> None:
    # KD can be beaten by AD; the weakest single (3D) is forced
    ok, play, _ = throw("KD QD 3D", "AD", "", "")
    assert not ok and play == f("3D")


def test_three_deck_categories() -> None:
    o3 = order("2", "H", 3)
    # 33344: a higher triple forces 333
    ok, play, _ = throw("3S 3S 3S 4S 4S", "9S 9S 9S", "", "", o=o3)
    assert not ok and play == f("3S 3S 3S")
    # a higher pair and no higher triple: 44 is forced
    ok, play, _ = throw("3S 3S 3S 4S 4S", "9S 9S", "", "", o=o3)
    assert not ok and play == f("4S 4S")


def test_throw_penalty_comes_from_the_rules() -> None:
    ot = order("T", "S", throw_penalty=10)
    r = check_throw(ot, 0, f("KD QD"), [f("KD QD"), f("AD"), [], []])
    assert not r.ok and r.penalty == 10 and r.verdict.reason is Reason.THROW_FAILED
    r = check_throw(ot, 0, f("AD KD"), [f("AD KD"), f("QD"), [], []])
    assert r.ok and r.penalty == 0


def test_a_mixed_lead_cannot_be_checked_as_a_throw() -> None:
    with pytest.raises(IllegalPlayError) as info:
        check_throw(ORD, 0, f("AD AH"), [[], [], [], []])
    assert info.value.reason is Reason.MIXED_SUITS


def test_forced_unit_over_proven_categories() -> None:
    d = decompose(ORD, f("9D 8D 8D 4D 4D"))
    assert d is not None
    assert forced_unit(d, [(1, 1)]).cards == f("9D")
    assert forced_unit(d, [(1, 1), (2, 1)]).cards == f("4D 4D")


def test_seats_that_could_challenge_in_play_order() -> None:
    hands = [f("2C"), f("KD QD 3D"), f("AD"), f("4D")]
    r = check_throw(ORD, 1, f("KD QD 3D"), hands)
    # seat 1 leads; seat 2 (AD beats KD) and seat 3 (4D beats 3D) could challenge
    assert not r.ok and r.beaters == (2, 3)
    # the most demanding category is singles; the weakest single is forced
    assert list(r.play) == f("3D") and r.seat == 2
    assert check_throw(ORD, 0, f("AD KD"), [f("AD KD"), f("2C"), f("QD"), f("")]).beaters == ()


def test_judge_hand_reports_revokes_and_throws_that_should_have_failed() -> None:
    from shengji.playout import judge_hand

    o = order("T", "S", 1)  # one deck: 12 cards each; here two tricks' worth
    hands = [f("KD QD 3C"), f("AD 4D 5C"), f("2D 6D 7C"), f("8C 9C 4S")]
    tricks = [
        # seat 0 throws KD QD although seat 1 holds AD; seat 3 discards (void, legal)
        [f("KD QD"), f("AD 5C"), f("2D 6D"), f("8C 9C")],  # seat 1 revokes: 4D held
    ]
    j = judge_hand(o, hands, 0, tricks)
    faults = [(t, seat, v.reason) for t, seat, v in j.faults]
    assert (0, 0, Reason.THROW_FAILED) in faults
    assert (0, 1, Reason.MUST_FOLLOW_SUIT) in faults
    assert len(faults) == 2
    # a mixed follow never wins: the lead (two singles, as played) takes the trick
    assert j.tricks[0].winner == 0 and j.side_points == (15, 0)
    with pytest.raises(ValueError, match="cannot lead"):
        judge_hand(o, hands, 0, [[f("KD 3C"), f("AD 4D"), f("2D 6D"), f("8C 9C")]])
