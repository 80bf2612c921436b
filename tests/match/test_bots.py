"""Bots: seeded, always legal, and what each strength does on purpose."""

from __future__ import annotations

import random

import pytest
from match_scenario import new_hand
from shengji.bots import Bot, BotError
from shengji.hand import Play
from shengji.match import make_bots, play_hand
from shengji.rules import Rules


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="seat"):
        Bot(4)
    with pytest.raises(ValueError, match="strength"):
        Bot(0, strength=3)
    with pytest.raises(ValueError, match="four"):
        make_bots([1, 1])


def test_not_its_turn() -> None:
    h = new_hand(known=True)
    with pytest.raises(BotError):
        Bot(1).play(h)


@pytest.mark.parametrize("strength", [0, 1, 2])
def test_same_seed_same_game(strength: int) -> None:
    a = play_hand(Rules(), make_bots(strength, 5), random.Random(5), dealer=1, first_hand=False)
    b = play_hand(Rules(), make_bots(strength, 5), random.Random(5), dealer=1, first_hand=False)
    assert a.events == b.events


def test_basic_bot_leads_a_sure_winner_and_follows_low() -> None:
    # scripted one-deck hand: seat 0 holds the top card of every suit
    h = new_hand(known=True)
    lead = Bot(0, 1, seed=1).play(h)
    assert len(lead) == 1 and lead[0] % 54 % 13 == 12  # an ace: nobody can beat it
    h.apply(Play(0, lead))
    follow = Bot(1, 1, seed=1).play(h)
    # seat 1 (K 9 5 of the suit) cannot beat an ace: it gives no points away, plays the 9
    assert follow[0] % 13 == 7


def test_good_bot_throws_only_what_nobody_can_beat() -> None:
    for seed in range(6):
        h = play_hand(Rules(), make_bots(2, seed), random.Random(seed), dealer=0, first_hand=False)
        assert all(not t.attempt for t in h.tricks)  # never a failed throw
