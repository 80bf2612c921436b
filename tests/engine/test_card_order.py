"""Trump and card order, effective suits (docs/rules.md §2)."""

from __future__ import annotations

import pytest
from enginehelp import f, order
from shengji import TRUMP, Card, Order, Rank, Rules, Suit


def cmp(o: Order, a: str, b: str) -> int | None:
    return o.compare(f(a)[0], f(b)[0])


def test_trump_order_high_to_low() -> None:
    o = order("T", "S")
    ladder = "BJ SJ TS TH AS KS QS JS 9S 8S 7S 6S 5S 4S 3S 2S".split()
    for hi, lo in zip(ladder, ladder[1:], strict=False):
        assert cmp(o, hi, lo) == 1, (hi, lo)
        assert cmp(o, lo, hi) == -1
    assert cmp(o, "TH", "TD") == 0 and cmp(o, "TC", "TH") == 0


def test_trump_positions_are_consecutive_integers() -> None:
    o = order("T", "S")
    assert o.npos[TRUMP] == 12 + 1 + 1 + 2  # 12 spades, off-suit T, TS, SJ, BJ
    assert o.position(f("2S")[0]) == 0
    assert o.position(f("BJ")[0]) == o.npos[TRUMP] - 1
    assert o.position(f("TH")[0]) == o.position(f("AS")[0]) + 1


def test_plain_suit_skips_the_level_and_has_no_wrap() -> None:
    o = order("5", "H")
    assert o.effective_suit(f("5S")[0]) == TRUMP
    assert o.position(f("6S")[0]) == o.position(f("4S")[0]) + 1
    assert o.position(f("2S")[0]) == 0 and o.position(f("AS")[0]) == 11
    assert cmp(o, "AS", "2S") == 1


def test_effective_suits() -> None:
    o = order("T", "S")
    assert o.is_trump(Card.parse("3S")) and o.is_trump(Card.parse("TD"))
    assert o.is_trump(Card.parse("SJ")) and not o.is_trump(Card.parse("AH"))
    assert o.effective_suit(Card.parse("AH")) == Suit.HEARTS
    assert cmp(o, "AH", "2D") is None  # different plain suits
    assert cmp(o, "2S", "AH") == 1  # any trump beats a plain card
    assert cmp(o, "AH", "2S") == -1


def test_no_trump_has_only_jokers_and_levels() -> None:
    o = order("5", "NT")
    assert o.trump is None
    assert all(o.is_trump(x) for x in f("BJ SJ 5S 5H 5D 5C"))
    assert not any(o.is_trump(x) for x in f("AS 2H KD 4C"))
    assert cmp(o, "BJ", "SJ") == 1 and cmp(o, "SJ", "5S") == 1
    assert cmp(o, "5S", "5H") == 0 and cmp(o, "5D", "5C") == 0
    assert o.npos[TRUMP] == 3


def test_permanent_twos() -> None:
    o = order("T", "S", permanent_twos=True)
    ladder = "BJ SJ TS TH 2S 2H AS KS".split()
    for hi, lo in zip(ladder, ladder[1:], strict=False):
        assert cmp(o, hi, lo) == 1, (hi, lo)
    assert cmp(o, "2H", "2D") == 0
    assert o.is_trump(f("2C")[0])
    # twos leave the plain suits: 3 is the lowest heart
    assert o.position(f("3H")[0]) == 0
    # without the option, 2H is a plain heart
    assert not order("T", "S").is_trump(f("2H")[0])


def test_permanent_twos_at_level_two_are_just_level_cards() -> None:
    o = order("2", "S", permanent_twos=True)
    assert cmp(o, "2S", "2H") == 1 and cmp(o, "2H", "2D") == 0
    assert cmp(o, "2H", "AS") == 1
    assert o.npos[TRUMP] == 12 + 1 + 1 + 2


def test_permanent_twos_in_no_trump() -> None:
    o = order("T", "NT", permanent_twos=True)
    assert [cmp(o, a, b) for a, b in [("TS", "2S"), ("2S", "2C"), ("SJ", "TS")]] == [1, 0, 1]
    assert o.npos[TRUMP] == 4


@pytest.mark.parametrize("level", list(Rank))
@pytest.mark.parametrize("trump", [None, *Suit])
def test_every_face_has_one_place(level: Rank, trump: Suit | None) -> None:
    o = Order(Rules(), level, trump)
    seen = {(o.esuit[x], o.pos[x]) for x in range(54)}
    assert sum(o.npos) == len(seen)
    for es in range(5):
        for p, faces in enumerate(o.faces_at[es]):
            assert faces and all(o.esuit[x] == es and o.pos[x] == p for x in faces)


def test_order_equality_and_repr() -> None:
    o = order("T", "S")
    assert o == Order(Rules(), Rank.TEN, Suit.SPADES)
    assert o != Order(Rules(), Rank.TEN, None)
    ns = {"Order": Order, "Rules": Rules, "Rank": Rank, "Suit": Suit}
    assert eval(repr(o), ns) == o
