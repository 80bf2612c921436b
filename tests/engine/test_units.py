"""Units and canonical decomposition (docs/rules.md §3-4)."""

from __future__ import annotations

import pytest
from enginehelp import f, order
from shengji import decompose


def shape(cards: str, level: str = "T", trump: str = "S", decks: int = 2, **kw: object) -> object:
    d = decompose(order(level, trump, decks, **kw), f(cards))
    return None if d is None else (d.suit_name, d.codes)


@pytest.mark.parametrize(
    "cards,level,trump,expect",
    [
        # tractors (§3 examples)
        ("4H 4H 6H 6H", "5", "S", ("H", ["t2"])),
        ("AH AH 5S 5S", "5", "H", ("trump", ["t2"])),
        ("5S 5S 5H 5H", "5", "H", ("trump", ["t2"])),
        ("5H 5H SJ SJ", "5", "H", ("trump", ["t2"])),
        ("SJ SJ BJ BJ", "5", "H", ("trump", ["t2"])),
        ("SJ SJ BJ BJ", "5", "NT", ("trump", ["t2"])),
        ("KS KS QS QS JS JS", "5", "H", ("S", ["t3"])),
        # not tractors
        ("5S 5S 5C 5C", "5", "H", ("trump", ["p", "p"])),
        ("AH AH 2H 2H", "5", "H", ("trump", ["p", "p"])),
        ("5H 5H 6H 6H", "5", "H", ("trump", ["p", "p"])),
        ("5S 5S 5C 5C", "5", "NT", ("trump", ["p", "p"])),
        ("5S 5S SJ SJ", "5", "H", ("trump", ["p", "p"])),
        ("5S 5C", "5", "H", ("trump", ["s", "s"])),
        ("3D 3D 5D 5D", "T", "S", ("D", ["p", "p"])),
    ],
)
def test_runs_and_non_runs(cards: str, level: str, trump: str, expect: object) -> None:
    assert shape(cards, level, trump) == expect


def test_mixed_suits_have_no_decomposition() -> None:
    assert shape("JH JH TH TH") is None  # TH is trump at level T
    assert shape("3D 3D 4C 4C") is None
    assert shape("") is None


def test_widest_first_then_longest_then_strongest() -> None:
    assert shape("3S 3S 3S 4S 4S", "2", "H", 3) == ("S", ["3", "p"])
    assert shape("9S 9S TS TS JS JS JS", "2", "H", 3) == ("S", ["3", "t2"])
    assert shape("9S 9S 9S TS TS JS JS JS", "2", "H", 3) == ("S", ["3", "3", "p"])
    assert shape("4C 4C 4C 6C 6C 6C", "5", "H", 3) == ("C", ["T2"])
    assert shape("5H 5H 5H 6H 6H 6H", "5", "H", 3) == ("trump", ["3", "3"])
    assert shape("4C 4C 4C 4C 3C 3C 3C 3C", "5", "H", 4) == ("C", ["Q2"])
    assert shape("4C 4C 4C 4C 3C 3C 3C", "5", "H", 4) == ("C", ["4", "3"])
    # longest first: t3 then a pair, not two tractors of 2
    d = decompose(order("5", "H"), f("AH AH 5S 5S 5C 5C 5H 5H"))
    assert d is not None and d.codes == ["t3", "p"]


def test_strongest_first_among_equal_shapes_and_unit_details() -> None:
    o = order("T", "S")
    d = decompose(o, f("3D 3D 4D 4D 8D 8D 9D 9D AD"))
    assert d is not None
    assert d.codes == ["t2", "t2", "s"]
    assert d.units[0].top > d.units[1].top
    assert str(d.units[0]) == "8D 8D 9D 9D"
    assert d.pairs == 4 and d.size == 9 and d.is_throw and d.top_shape == (2, 2)


def test_decomposition_ignores_card_order() -> None:
    o = order("T", "S")
    a = decompose(o, f("5D 4D 5D 4D 3D 3D"))
    b = decompose(o, f("3D 4D 5D 3D 4D 5D"))
    assert a is not None and b is not None and a.codes == b.codes == ["t3"]
