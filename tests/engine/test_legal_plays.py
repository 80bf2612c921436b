""" "What may this seat play?": the lazy legal-follow view and the leads."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest
from enginehelp import f, order
from shengji import Card, Order, decompose, legal_follows, legal_leads, parse_cards
from shengji.play import Lead, check_follow_counts, counts, single_unit_leads
from shengji.playout import deal

ORD = order("T", "S")


def sub_multisets(hand: list[int], size: int) -> set[tuple[int, ...]]:
    return {tuple(sorted(x)) for x in itertools.combinations(sorted(hand), size)}


def test_view_answers_in_count_bool_and_iterates_legal_plays_once() -> None:
    follows = legal_follows(ORD, f("KH KH QH QH"), f("9H 9H 8H 8H 7H 7H 3H 2C"))
    plays = list(follows)
    assert sorted(plays) == sorted(
        [tuple(sorted(f("9H 9H 8H 8H"))), tuple(sorted(f("8H 8H 7H 7H")))]
    )
    assert follows.count() == 2 and bool(follows)
    assert f("8H 8H 9H 9H") in follows
    assert f("9H 9H 7H 7H") not in follows
    assert parse_cards("9H 9H 8H 8H") in follows  # cards work too
    assert 5 not in follows


def test_void_follower_may_play_anything() -> None:
    hand = f("2S 3C 4C 5D")
    follows = legal_follows(ORD, f("AH AH"), hand)
    assert follows.count() == len(sub_multisets(hand, 2))


def test_too_few_cards_means_no_follow() -> None:
    follows = legal_follows(ORD, f("AH AH"), f("3H"))
    assert not follows and follows.first() is None and follows.count() == 0


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("decks", [2, 3])
def test_generation_is_complete_against_brute_force(seed: int, decks: int) -> None:
    """Every legal follow, and only those, for random small hands."""
    rng = random.Random(seed * 10 + decks)
    o = order(rng.choice("2579TQA"), rng.choice(["S", "H", "NT"]), decks)
    hands, _ = deal(o.rules, rng).faces()
    hand = rng.sample(hands[1], 12)
    suit = o.esuit[rng.choice(hands[0])]
    lead_cards = [x for x in hands[0] if o.esuit[x] == suit]
    d = decompose(o, lead_cards[:6])
    assert d is not None
    lead = Lead(o, lead_cards[:6])
    follows = set(legal_follows(o, lead, hand))
    cnt = counts(hand)
    brute = {p for p in sub_multisets(hand, lead.size) if check_follow_counts(o, lead, cnt, p)}
    assert follows == brute
    assert follows  # a legal follow exists


def test_single_unit_leads() -> None:
    hand = f("9H 9H 8H 8H 7H 3S SJ SJ BJ")
    leads = set(map(lambda p: tuple(sorted(p)), single_unit_leads(ORD, counts(hand))))
    assert tuple(sorted(f("9H 9H 8H 8H"))) in leads
    assert tuple(sorted(f("SJ SJ"))) in leads
    assert tuple(sorted(f("9H 8H"))) not in leads  # two singles are a throw
    for play in leads:
        d = decompose(ORD, play)
        assert d is not None and len(d.units) == 1


@pytest.mark.parametrize("seed", range(6))
def test_leads_are_every_one_suit_combination(seed: int) -> None:
    rng = random.Random(seed)
    o: Order = order("T", "S", 2)
    hands, _ = deal(o.rules, rng).faces()
    hand = rng.sample(hands[0], 9)
    all_plays = set(legal_leads(o, hand))
    one_suit = {
        p
        for size in range(1, len(hand) + 1)
        for p in sub_multisets(hand, size)
        if len({o.esuit[x] for x in p}) == 1
    }
    assert all_plays == one_suit
    units = set(legal_leads(o, hand, throws=False))
    assert units == {p for p in one_suit if len(decompose(o, p).units) == 1}  # type: ignore[union-attr]
    assert Counter(len(p) for p in units)[1] == len(set(hand))


def test_cards_in_and_out() -> None:
    hand = [Card.parse("5H"), Card.parse("5H", copy=1), Card.parse("2C")]
    follows = legal_follows(ORD, parse_cards("KH KH"), hand)
    assert list(follows) == [tuple(f("5H 5H"))]
