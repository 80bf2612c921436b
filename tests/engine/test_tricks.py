"""Winning a trick (docs/rules.md §7) and points."""

from __future__ import annotations

from enginehelp import f, order
from shengji import Order, points, trick_winner

ORD = order("T", "S")


def win(plays: list[str], leader: int = 0, o: Order = ORD) -> int:
    return trick_winner(o, [f(p) for p in plays], leader).winner


def test_higher_card_of_the_led_suit_wins() -> None:
    assert win(["9D", "KD", "3D", "4D"]) == 1
    assert win(["9D", "8D", "3D", "4D"]) == 0


def test_other_suits_never_win() -> None:
    assert win(["3D", "AH", "AC", "2D"]) == 0


def test_trump_kills_and_higher_trump_overkills() -> None:
    assert win(["AD", "3S", "2C", "4D"]) == 1
    assert win(["AD", "3S", "4S", "4D"]) == 2
    assert win(["AD", "3S", "TH", "BJ"]) == 3


def test_equal_cards_first_played_wins() -> None:
    assert win(["TH", "TC", "3S", "TD"]) == 0
    assert win(["3S", "TC", "TH", "9S"]) == 1


def test_winner_is_a_seat_counted_from_the_leader() -> None:
    assert win(["9D", "KD", "3D", "4D"], leader=2) == 3
    assert win(["9D", "KD", "3D", "AD"], leader=3) == 2


def test_pair_is_beaten_only_by_a_pair() -> None:
    assert win(["KD KD", "3S 4S", "2D 3D", "6D 7D"]) == 0
    assert win(["KD KD", "3S 3S", "2D 3D", "6D 7D"]) == 1
    assert win(["KD KD", "AD AD", "2D 3D", "6D 7D"]) == 1


def test_tractor_is_beaten_only_by_a_tractor() -> None:
    assert win(["5D 5D 4D 4D", "9D 9D 7D 7D", "2C 3C 4C 6C", "3S 3S 5S 5S"]) == 0
    assert win(["5D 5D 4D 4D", "9D 9D 8D 8D", "2C 3C 4C 6C", "3S 3S 5S 5S"]) == 1
    assert win(["5D 5D 4D 4D", "9D 9D 8D 8D", "3S 3S 4S 4S", "2C 3C 4C 6C"]) == 2


def test_kill_must_match_every_unit_of_a_throw() -> None:
    # docs/rules.md §7: trump 9988 72 kills AK5544; it cannot kill AA5544
    assert (
        win(["AD KD 5D 5D 4D 4D", "3D 3D 6D 7D 8D 9D", "9S 9S 8S 8S 7S 2S", "2C 3C 4C 5C 6C 7C"])
        == 2
    )
    assert (
        win(["AD AD 5D 5D 4D 4D", "3D 3D 6D 7D 8D 9D", "9S 9S 8S 8S 7S 2S", "2C 3C 4C 6C 7C 8C"])
        == 0
    )


def test_key_is_the_strongest_unit_of_the_top_category() -> None:
    # docs/rules.md §7: trump 884 over-kills 977 on a led 544 (pair 88 > pair 77)...
    assert win(["5D 4D 4D", "9S 7S 7S", "8S 8S 4S", "2D 3D 3D"]) == 2
    # ...but not on led singles 567 (9 > 8)
    assert win(["5D 6D 7D", "9S 7S 7S", "8S 8S 4S", "2D 3D 4D"]) == 1


def test_a_unit_may_be_carved_from_a_longer_run() -> None:
    # docs/rules.md §7: trump 7 7 8 8 9 9 matches 4455AA as tractor + pair; key = best tractor 8899
    assert (
        win(["4D 4D 5D 5D AD AD", "7S 7S 8S 8S 9S 9S", "2C 3C 4C 6C 7C 8C", "2S 2S 3S 3S JS JS"])
        == 1
    )
    assert (
        win(["4D 4D 5D 5D AD AD", "3S 3S 4S 4S 2S 2S", "7S 7S 8S 8S 6S 6S", "2C 3C 4C 6C 7C 8C"])
        == 2
    )
    assert (
        win(["4D 4D 5D 5D AD AD", "3S 3S 4S 4S 2S 2S", "6S 6S 7S 7S 8S 8S", "2C 3C 4C 6C 7C 8C"])
        == 2
    )


def test_mixed_play_never_wins() -> None:
    # void in diamonds, plays trump and a club: a discard
    assert win(["AD", "BJ", "3D", "4D"]) == 1
    assert win(["AD AD", "BJ 2C", "3D 4D", "5D 6D"]) == 0


def test_following_in_suit_does_not_beat_a_kill() -> None:
    assert win(["9D", "2S", "AD", "3D"]) == 1


def test_triples_and_titanics() -> None:
    o3 = order("5", "H", 3)
    assert win(["4C 4C 4C", "8C 8C 8C", "9C 9C 2C", "3H 3H 3H"], o=o3) == 3
    assert win(["4C 4C 4C", "8C 8C 8C", "9C 9C 2C", "3H 3H 4H"], o=o3) == 1
    titanic = "4C 4C 4C 6C 6C 6C"
    assert win([titanic, "8C 8C 8C 7C 7C 7C", "AC AC AC KC KC KC", "2D 3D 4D 6D 7D 8D"], o=o3) == 2
    # two triples do not match a Titanic
    assert win([titanic, "8C 8C 8C JC JC JC", "2D 3D 4D 6D 7D 8D", "2S 3S 4S 6S 7S 8S"], o=o3) == 0


def test_points() -> None:
    assert points(f("5D KD TH 3C SJ")) == 25
    assert trick_winner(ORD, [f("KD KD"), f("5D 5C"), f("TD 2D"), f("3D 4D")]).points == 40
