"""Following (docs/rules.md §6): each rule with a legal and an illegal play."""

from __future__ import annotations

import pytest
from enginehelp import f, order
from shengji import Order, Reason, check_follow

ORD = order("T", "S")
O3 = order("5", "H", 3)
O4 = order("5", "H", 4)
OX = order("5", "H", 4, same_shape_only=True)


def judge(lead: str, hand: str, play: str, o: Order = ORD) -> Reason | None:
    v = check_follow(o, f(lead), f(hand), f(play))
    assert v.legal == (v.reason is None)
    if not v.legal:
        assert v.message  # a sentence for the player
    return v.reason


# -- count and suit -----------------------------------------------------------


def test_follow_has_the_lead_size() -> None:
    assert judge("AH AH", "3H 4H 5C", "3H 4H") is None
    assert judge("AH AH", "3H 4H 5C", "3H 4H 5C") is Reason.WRONG_COUNT
    assert judge("AH AH", "3H 4H 5C", "3H") is Reason.WRONG_COUNT


def test_follow_cards_come_from_the_hand() -> None:
    assert judge("AH", "3H", "3H") is None
    assert judge("AH", "3H", "4H") is Reason.NOT_IN_HAND


def test_must_follow_suit() -> None:
    assert judge("AH", "3H 2S", "3H") is None
    assert judge("AH", "3H 2S", "2S") is Reason.MUST_FOLLOW_SUIT


def test_all_suit_cards_when_short() -> None:
    assert judge("AH AH KH", "3H 2S 4C", "3H 2S 4C") is None
    assert judge("AH AH", "3H 2C 2C", "3H 2C") is None
    assert judge("AH AH KH", "3H 4H 2S 4C", "3H 2S 4C") is Reason.MUST_FOLLOW_SUIT


def test_void_may_trump_or_discard() -> None:
    assert judge("AH", "2S 3C", "2S") is None
    assert judge("AH", "2S 3C", "3C") is None


def test_trump_lead_is_followed_with_trump_of_any_printed_suit() -> None:
    assert judge("3S", "TH 4D", "TH") is None  # TH is trump at level T
    assert judge("3S", "TH 4D", "4D") is Reason.MUST_FOLLOW_SUIT


# -- pairs and tractors (no triples led) ------------------------------------------


def test_pair_must_be_followed_with_a_pair() -> None:
    assert judge("KH KH", "3H 3H 5H 2C", "3H 3H") is None
    assert judge("KH KH", "3H 3H 5H 2C", "3H 5H") is Reason.MUST_PLAY_PAIRS


def test_off_suit_level_cards_of_two_suits_are_no_pair() -> None:
    assert judge("KS KS", "TH TC 3S", "TH TC") is None
    assert judge("KS KS", "TH TH 3S", "TH 3S") is Reason.MUST_PLAY_PAIRS


def test_tractor_must_be_followed_with_a_tractor() -> None:
    assert judge("KH KH QH QH", "9H 9H 8H 8H 3H 2C", "9H 9H 8H 8H") is None
    assert judge("KH KH QH QH", "9H 9H 8H 8H 3H 2C", "9H 9H 8H 3H") is Reason.MUST_PLAY_TRACTOR


def test_tractor_across_the_removed_level_must_be_played() -> None:
    assert judge("KH KH QH QH", "JH JH 9H 9H 3H", "JH JH 9H 9H") is None
    assert judge("KH KH QH QH", "JH JH 9H 9H 3H 3H", "JH JH 3H 3H") is Reason.MUST_PLAY_TRACTOR


def test_no_tractor_then_as_many_pairs_as_held() -> None:
    assert judge("KH KH QH QH", "9H 9H 7H 7H 5H 2C", "9H 9H 7H 7H") is None
    assert judge("KH KH QH QH", "9H 9H 7H 7H 5H 2C", "9H 9H 7H 5H") is Reason.MUST_PLAY_PAIRS
    # one pair held: that pair and anything in the suit
    assert judge("KH KH QH QH", "9H 9H 7H 5H 4H", "9H 9H 4H 5H") is None
    assert judge("KH KH QH QH", "9H 9H 7H 5H 4H", "9H 7H 5H 4H") is Reason.MUST_PLAY_PAIRS


def test_shorter_tractor_must_be_played_when_a_longer_one_is_led() -> None:
    lead = "AH AH KH KH QH QH"
    assert judge(lead, "9H 9H 8H 8H 4H 4H 3H", "9H 9H 8H 8H 4H 4H") is None
    assert judge(lead, "9H 9H 8H 8H 4H 4H 3H", "9H 9H 4H 4H 8H 3H") is Reason.MUST_PLAY_TRACTOR
    assert judge(lead, "9H 9H 8H 8H 4H 4H 3H", "9H 9H 8H 8H 4H 3H") is Reason.MUST_PLAY_PAIRS


def test_longer_tractor_held_gives_a_sub_run() -> None:
    assert judge("KH KH QH QH", "9H 9H 8H 8H 7H 7H", "9H 9H 8H 8H") is None
    assert judge("KH KH QH QH", "9H 9H 8H 8H 7H 7H", "9H 9H 7H 7H") is Reason.MUST_PLAY_TRACTOR


def test_two_led_tractors_share_out_a_long_run() -> None:
    lead = "AH AH KH KH 7H 7H 6H 6H"
    hand = "9H 9H 8H 8H 6H 6H 5H 5H 3H"  # 9 8 7(=level? no) ... level T: 9 8 6 5 not a run
    o = order("7", "S")  # level 7: 8H and 6H are adjacent, so 9 8 6 5 is a run of four pairs
    assert (
        judge(lead.replace("7H 7H 6H 6H", "5H 5H 4H 4H"), hand, "9H 9H 8H 8H 6H 6H 5H 5H", o)
        is None
    )
    assert (
        judge(lead.replace("7H 7H 6H 6H", "5H 5H 4H 4H"), hand, "9H 9H 8H 8H 6H 6H 5H 3H", o)
        is Reason.MUST_PLAY_TRACTOR
    )


def test_one_led_tractor_takes_runs_up_to_its_length() -> None:
    # a tractor of 4 led; the follower has two tractors of 2: both must go
    lead = "AH AH KH KH QH QH JH JH"
    hand = "9H 9H 8H 8H 5H 5H 4H 4H 3H"
    assert judge(lead, hand, "9H 9H 8H 8H 5H 5H 4H 4H") is None
    assert judge(lead, hand, "9H 9H 8H 8H 5H 5H 4H 3H") is Reason.MUST_PLAY_TRACTOR


def test_pairs_taken_from_triples_count() -> None:
    assert judge("KH KH", "9H 9H 9H 3H", "9H 9H", O3) is None
    assert judge("KH KH", "9H 9H 9H 3H", "9H 3H", O3) is Reason.MUST_PLAY_PAIRS


def test_trump_tractor_through_level_cards_and_jokers() -> None:
    lead = "AS AS KS KS"
    assert judge(lead, "TH TH AS AS 3S 4S", "TH TH AS AS") is None
    assert judge(lead, "TH TH AS AS 3S 4S", "TH TH 3S 4S") is Reason.MUST_PLAY_TRACTOR


# -- three and four decks: ladders ---------------------------------------------


def test_triple_led_triple_held() -> None:
    assert judge("4C 4C 4C", "8C 8C 8C 2C", "8C 8C 8C", O3) is None
    assert judge("4C 4C 4C", "8C 8C 8C 2C", "8C 8C 2C", O3) is Reason.MUST_PLAY_TRIPLES


def test_triple_led_pair_held() -> None:
    assert judge("4C 4C 4C", "8C 8C 9C 9C 2C", "9C 9C 2C", O3) is None
    assert judge("4C 4C 4C", "8C 8C 9C 9C 2C", "9C 8C 2C", O3) is Reason.MUST_PLAY_PAIRS


TITANIC = "4C 4C 4C 6C 6C 6C"


@pytest.mark.parametrize(
    "hand,legal,illegal,reason",
    [
        # a Titanic (at level 5, 6 and 4 are adjacent)
        (
            "8C 8C 8C 7C 7C 7C 2C",
            "8C 8C 8C 7C 7C 7C",
            "8C 8C 8C 7C 7C 2C",
            Reason.MUST_PLAY_TITANIC,
        ),
        # two triples
        (
            "8C 8C 8C JC JC JC 2C 3C",
            "8C 8C 8C JC JC JC",
            "8C 8C 8C JC JC 3C",
            Reason.MUST_PLAY_TRIPLES,
        ),
        # a tractor of two pairs beats a triple and a pair
        (
            "8C 8C 9C 9C JC JC JC 2C",
            "8C 8C 9C 9C 2C JC",
            "JC JC JC 8C 8C 2C",
            Reason.MUST_PLAY_TRACTOR,
        ),
        # a triple and a pair
        ("8C 8C JC JC JC 2C 3C", "JC JC JC 8C 8C 2C", "JC JC JC 8C 2C 3C", Reason.MUST_PLAY_PAIRS),
        # a triple
        (
            "8C JC JC JC 2C 3C 7C",
            "JC JC JC 8C 2C 3C",
            "JC JC 8C 2C 3C 7C",
            Reason.MUST_PLAY_TRIPLES,
        ),
        # two pairs
        ("8C 8C JC JC 2C 3C 7C", "8C 8C JC JC 2C 3C", "8C 8C JC 2C 3C 7C", Reason.MUST_PLAY_PAIRS),
        # one pair
        ("8C 8C JC QC 2C 3C 7C", "8C 8C JC QC 2C 3C", "8C JC QC 2C 3C 7C", Reason.MUST_PLAY_PAIRS),
    ],
)
def test_titanic_ladder(hand: str, legal: str, illegal: str, reason: Reason) -> None:
    assert judge(TITANIC, hand, legal, O3) is None
    assert judge(TITANIC, hand, illegal, O3) is reason


def test_titanic_ladder_anything_in_suit_at_the_bottom() -> None:
    assert judge(TITANIC, "8C 9C JC QC 2C 3C 7C", "9C JC QC 2C 3C 7C", O3) is None
    assert (
        judge(TITANIC, "8C 9C JC QC 2C 3C 7C AS", "9C JC QC 2C 3C AS", O3)
        is Reason.MUST_FOLLOW_SUIT
    )


def test_throw_with_triples_each_unit_takes_its_rung() -> None:
    lead = "3S 3S 3S 4S 4S"  # triple + pair at level 2 (3 decks)
    o = order("2", "H", 3)
    assert judge(lead, "9S 9S 9S JS JS 5S", "9S 9S 9S JS JS", o) is None
    assert judge(lead, "9S 9S 9S JS JS 5S", "9S 9S 9S JS 5S", o) is Reason.MUST_PLAY_PAIRS
    assert judge(lead, "9S 9S 9S JS JS 5S", "9S 9S JS JS 5S", o) is Reason.MUST_PLAY_TRIPLES


def test_quads_are_followed_by_shape_only() -> None:
    lead = "4C 4C 4C 4C"
    assert judge(lead, "8C 8C 8C 8C 9C 9C 9C 2C", "8C 8C 8C 8C", O4) is None
    assert judge(lead, "8C 8C 8C 8C 9C 9C 9C 2C", "9C 9C 9C 2C", O4) is Reason.MUST_PLAY_SAME_SHAPE
    # no quad held: anything in the suit, even with a triple held
    assert judge(lead, "9C 9C 9C 2C 3C", "9C 2C 3C 9C", O4) is None
    assert judge(lead, "9C 9C 9C 2C 3C", "9C 2C 3C 3C", O4) is Reason.NOT_IN_HAND


def test_same_shape_only() -> None:
    # a tractor led: a tractor if held...
    assert judge("KS KS QS QS", "9S 9S 8S 8S 3S 2S", "9S 9S 8S 8S", OX) is None
    assert (
        judge("KS KS QS QS", "9S 9S 8S 8S 3S 2S", "9S 9S 3S 2S", OX) is Reason.MUST_PLAY_SAME_SHAPE
    )
    # ...else anything in the suit: pairs are not required
    assert judge("KS KS QS QS", "9S 9S 7S 7S 3S 2S", "9S 3S 2S 7S", OX) is None
    assert judge("KS KS", "9S 9S 7S 7S 3S 2S", "9S 3S", OX) is Reason.MUST_PLAY_SAME_SHAPE
    assert judge("KS KS", "9S 9S 7S 7S 3S 2S", "7S 7S", OX) is None


def test_same_shape_only_in_two_decks() -> None:
    o = order("T", "S", same_shape_only=True)
    assert judge("KH KH QH QH", "9H 9H 7H 7H 5H", "9H 5H 7H 7H", o) is None
    assert judge("KH KH QH QH", "9H 9H 8H 8H 5H", "9H 9H 5H 8H", o) is Reason.MUST_PLAY_SAME_SHAPE


def test_one_deck_singles_only() -> None:
    o1 = order("2", "S", 1)
    assert judge("AH KH", "3H 4H 5H", "3H 5H", o1) is None
    assert judge("AH KH", "3H 4H 5C", "3H 5C", o1) is Reason.MUST_FOLLOW_SUIT


def test_throw_of_a_triple_and_a_tractor() -> None:
    o = order("2", "H", 3)
    lead = "9S 9S TS TS JS JS JS"  # triple + tractor (docs/rules.md §4)
    hand = "QS QS QS 5S 5S 6S 6S 2S 3S"
    assert judge(lead, hand, "QS QS QS 5S 5S 6S 6S", o) is None
    assert judge(lead, hand, "QS QS QS 5S 5S 6S 3S", o) is Reason.MUST_PLAY_TRACTOR
    assert judge(lead, hand, "QS QS 5S 5S 6S 6S 3S", o) is Reason.MUST_PLAY_TRIPLES
    # the triple takes its triple first; the tractor then wants the pair left
    hand2 = "QS QS QS KS KS 3S 4S 6S"  # (2S is trump at level 2)
    assert judge(lead, hand2, "QS QS QS KS KS 3S 4S", o) is None
    assert judge(lead, hand2, "QS QS QS KS 3S 4S 6S", o) is Reason.MUST_PLAY_PAIRS
    assert judge(lead, hand2, "QS QS KS KS 3S 4S 6S", o) is Reason.MUST_PLAY_TRIPLES


def test_throw_of_a_triple_and_a_long_tractor_takes_two_short_ones() -> None:
    o = order("2", "H", 3)
    lead = "3S 3S 3S 5S 5S 6S 6S 7S 7S 8S 8S"  # triple + tractor of 4
    hand = "AS AS AS 9S 9S TS TS QS QS KS KS 4S"
    assert judge(lead, hand, "AS AS AS 9S 9S TS TS QS QS KS KS", o) is None
    assert judge(lead, hand, "AS AS AS 9S 9S TS TS QS QS KS 4S", o) is Reason.MUST_PLAY_TRACTOR


def test_a_ladder_refusal_says_what_to_play_in_words() -> None:
    # one unit with its article, several counted (docs/rules.md §6.3)
    v = check_follow(O3, f("AS AS AS"), f("3S 3S 3S 4S"), f("3S 3S 4S"))
    assert v.reason is Reason.MUST_PLAY_TRIPLES
    assert v.message == "To follow the lead's triple in spades you must play a triple: you hold it."
    v = check_follow(O3, f("AS AS AS KS KS KS"), f("3S 3S 3S 4S 4S 4S 7S"), f("3S 3S 3S 4S 4S 7S"))
    assert v.reason is Reason.MUST_PLAY_TITANIC
    assert v.message.endswith("you must play a Titanic of 2: you hold it.")
