"""Declaring trump during the draw (docs/rules.md §8), every class for 1-4 decks."""

from __future__ import annotations

import pytest
from shengji.bidding import BidError, Declaring, bid_kind, class_of

S, H, D, C = 0, 1, 2, 3
SJ, BJ = 52, 53


def lv(suit: int, level: int = 0) -> int:
    return suit * 13 + level


def test_class_order_weakest_first() -> None:
    order = [(S, 1), (S, 2), (4, 2), (5, 2), (S, 3), (4, 3), (5, 3), (S, 4), (4, 4), (5, 4)]
    assert [class_of(k, n) for k, n in order] == list(range(10))


@pytest.mark.parametrize("decks", [1, 2, 3, 4])
def test_every_class_up_to_the_decks(decks: int) -> None:
    for n in range(1, 5):
        for kind_faces in ([lv(H)] * n, [SJ] * n, [BJ] * n):
            d = Declaring(level=0, decks=decks)
            ok = d.bid(1, kind_faces)
            joker_single = kind_faces[0] >= 52 and n == 1
            assert ok == (n <= decks and not joker_single), (decks, kind_faces)


def test_stronger_class_needed_earlier_stands() -> None:
    d = Declaring(level=5, decks=2)
    assert d.bid(0, [lv(H, 5)])
    assert not d.bid(1, [lv(S, 5)])  # equal class: the earlier stands
    assert d.bid(1, [lv(S, 5), lv(S, 5)])
    assert not d.bid(2, [lv(C, 5), lv(C, 5)])
    assert d.bid(2, [SJ, SJ])
    assert d.bid(3, [BJ, BJ])
    assert not d.bid(0, [SJ, SJ])
    assert d.standing is not None and d.standing.trump is None and d.standing.seat == 3


def test_reinforcement_adds_the_cards() -> None:
    d = Declaring(level=0, decks=3)
    assert d.bid(2, [lv(D)])
    assert d.bid(2, [lv(D)])  # 自保: now a pair of 2D
    assert d.standing is not None and d.standing.count == 2
    assert not d.bid(1, [lv(S), lv(S)])  # a pair does not beat the reinforced pair
    assert d.bid(1, [SJ, SJ])
    assert not d.bid(2, [SJ])  # a single joker alone is nothing, but as 自保 it adds:
    d2 = Declaring(level=0, decks=3)
    assert d2.bid(1, [SJ, SJ]) and d2.bid(1, [SJ])
    assert d2.standing is not None and d2.standing.count == 3


def test_reinforcement_cannot_exceed_the_decks() -> None:
    d = Declaring(level=0, decks=2)
    assert d.bid(0, [lv(S), lv(S)])
    with pytest.raises(BidError, match="cannot exist"):
        d.check(0, [lv(S)])


def test_self_override_option() -> None:
    d = Declaring(level=0, decks=2)
    assert d.bid(0, [lv(S)]) and d.bid(0, [lv(H), lv(H)])  # 自反 allowed by default
    strict = Declaring(level=0, decks=2, allow_self_override=False)
    assert strict.bid(0, [lv(S)])
    with pytest.raises(BidError, match="self-override"):
        strict.check(0, [lv(H), lv(H)])
    assert strict.bid(0, [lv(S)])  # reinforcing is still allowed


@pytest.mark.parametrize(
    "faces",
    [[lv(S, 3)], [lv(S), lv(H)], [SJ, BJ], [], [lv(S), SJ]],
)
def test_not_a_bid(faces: list[int]) -> None:
    with pytest.raises(BidError):
        bid_kind(faces, 0)


def test_resolve_no_bid() -> None:
    d = Declaring(level=4)
    assert d.resolve(first_hand=True, dealer=None).redeal
    r = d.resolve(first_hand=False, dealer=2)
    assert (r.redeal, r.trump, r.dealer) == (False, None, 2)
    r = d.resolve(first_hand=False, dealer=2, no_bid="kitty", kitty=[lv(C, 9), lv(S, 1)])
    assert r.trump == C and r.flipped == lv(C, 9)
    r = d.resolve(first_hand=False, dealer=2, no_bid="kitty", kitty=[lv(C, 4)])
    assert r.trump is None  # a level card: NT
    r = d.resolve(first_hand=False, dealer=2, no_bid="kitty", kitty=[BJ, lv(C, 1)])
    assert r.trump is None  # a joker: NT
    with pytest.raises(BidError, match="kitty"):
        d.resolve(first_hand=False, dealer=2, no_bid="kitty")


def test_first_dealer_first_or_final() -> None:
    d = Declaring(level=0)
    d.bid(1, [lv(H)])
    d.bid(3, [SJ, SJ])
    assert d.resolve(first_hand=True, dealer=None).dealer == 1
    r = d.resolve(first_hand=True, dealer=None, first_dealer="final")
    assert (r.dealer, r.declarer, r.trump) == (3, 3, None)
    assert d.resolve(first_hand=False, dealer=0).dealer == 0  # later hands keep the dealer
