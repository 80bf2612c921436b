"""Rules: every option, presets, validation (docs/rules.md §1-10)."""

from __future__ import annotations

import dataclasses

import pytest
from shengji import (
    PRESETS,
    InvalidRulesError,
    KittyMultiplier,
    LevelLadder,
    LevelTable,
    NoBid,
    Rank,
    Rules,
)
from shengji.rules import FirstDealer, Partners, Revoke

EVERY_OPTION = {
    "decks",
    "permanent_twos",
    "same_shape_only",
    "throw_penalty",
    "kitty_multiplier",
    "kitty_requires_trump",
    "level_table",
    "level_ladder",
    "must_play",
    "allow_self_override",
    "no_bid",
    "first_dealer",
    "partners",
    "hand_scan",
    "revoke",
}


def test_rules_hold_every_option_with_the_classic_defaults() -> None:
    r = Rules()
    assert {f.name for f in dataclasses.fields(r)} == EVERY_OPTION
    assert r.decks == 2 and not r.permanent_twos and not r.same_shape_only
    assert r.throw_penalty == 0
    assert r.kitty_multiplier is KittyMultiplier.STRUCTURE and not r.kitty_requires_trump
    assert r.level_table is LevelTable.CLASSIC and r.level_ladder is LevelLadder.FULL
    assert r.must_play == () and r.allow_self_override and r.no_bid is NoBid.NT
    assert r.first_dealer is FirstDealer.FIRST and r.partners is Partners.FIXED
    assert not r.hand_scan and r.revoke is Revoke.FLAG


@pytest.mark.parametrize("decks,hand,kitty", [(1, 12, 6), (2, 25, 8), (3, 39, 6), (4, 52, 8)])
def test_deal_sizes(decks: int, hand: int, kitty: int) -> None:
    r = Rules(decks=decks)
    assert (r.hand_size, r.kitty_size) == (hand, kitty)
    assert 4 * hand + kitty == r.card_count == 54 * decks
    assert r.total_points == 100 * decks and r.step == 20 * decks


def test_presets() -> None:
    assert set(PRESETS) == {
        "classic",
        "qq",
        "lianzhong",
        "tournament",
        "onedeck",
        "titanic",
        "friend",
        "xuwen",
    }
    assert Rules.preset("friend") == Rules.from_dict({"partners": "called"})
    assert Rules.preset("classic") == Rules()
    t = Rules.preset("tournament")
    assert t.throw_penalty == 10 and t.level_ladder is LevelLadder.TOURNAMENT
    assert t.revoke is Revoke.FORFEIT and t.must_play == (Rank.TWO, Rank.ACE)
    assert Rules.preset("onedeck").decks == 1
    assert Rules.preset("titanic").decks == 3
    x = Rules.preset("xuwen")
    assert x.decks == 4 and x.same_shape_only and x.kitty_multiplier is KittyMultiplier.CARDS
    assert x.kitty_requires_trump and not x.allow_self_override
    q = Rules.preset("qq")
    assert q.kitty_multiplier is KittyMultiplier.LINEAR and q.first_dealer is FirstDealer.FINAL
    assert Rules.preset("lianzhong").level_table is LevelTable.LIANZHONG


@pytest.mark.parametrize(
    "make,option,words",
    [
        (lambda: Rules.preset("onedeck", decks=2), "level_table", "one-deck"),
        (lambda: Rules.preset("xuwen", decks=3), "level_table", "four-deck"),
        (lambda: Rules.preset("tournament", decks=3), "level_table", "two-deck"),
        (lambda: Rules(decks=5), "decks", "1-4"),
        (lambda: Rules(decks=0), "decks", "1-4"),
        (lambda: Rules(throw_penalty=7), "throw_penalty", "multiple of 5"),
        (lambda: Rules(throw_penalty=-10), "throw_penalty", "multiple of 5"),
        (
            lambda: Rules.from_dict({"must_play": ["3"], "level_ladder": "tournament"}),
            "must_play",
            "not on",
        ),
        (lambda: Rules.from_dict({"must_play": ["X"]}), "must_play", "not a level"),
        (lambda: Rules.from_dict({"must_play": ["5", "5"]}), "must_play", "twice"),
        (lambda: Rules.from_dict({"kitty_multiplier": "double"}), "kitty_multiplier", "one of"),
        (lambda: Rules.from_dict({"permanent_twos": "yes"}), "permanent_twos", "true or false"),
        (lambda: Rules.from_dict({"colour": "red"}), "colour", "unknown option"),
        (lambda: Rules.preset("bridge"), "preset", "unknown preset"),
    ],
)
def test_impossible_options_are_errors_that_say_why(make: object, option: str, words: str) -> None:
    with pytest.raises(InvalidRulesError) as info:
        make()  # type: ignore[operator]
    assert info.value.option == option
    assert words in str(info.value)


def test_possible_variants_of_the_same_options_are_accepted() -> None:
    assert Rules(decks=1, level_table=LevelTable.ONEDECK).decks == 1
    assert Rules.preset("xuwen").decks == 4
    assert Rules.from_dict({"must_play": ["5", "T"], "level_ladder": "tournament"}).must_play == (
        Rank.FIVE,
        Rank.TEN,
    )
    assert Rules(throw_penalty=10).throw_penalty == 10


def test_dict_round_trip_and_repr() -> None:
    for name in PRESETS:
        r = Rules.preset(name)
        assert Rules.from_dict(r.to_dict()) == r
        namespace = {
            "Rules": Rules,
            "KittyMultiplier": KittyMultiplier,
            "LevelTable": LevelTable,
            "LevelLadder": LevelLadder,
            "NoBid": NoBid,
            "FirstDealer": FirstDealer,
            "Partners": Partners,
            "Revoke": Revoke,
            "Rank": Rank,
        }
        assert eval(repr(r), namespace) == r


def test_rules_are_immutable_and_replace_validates() -> None:
    r = Rules()
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.decks = 3  # type: ignore[misc]
    assert r.replace(decks=3).decks == 3 and r.decks == 2
    assert r.replace(partners="called").partners is Partners.CALLED
    with pytest.raises(InvalidRulesError):
        r.replace(level_table="onedeck")
    assert hash(Rules.preset("qq")) == hash(Rules.preset("qq"))
