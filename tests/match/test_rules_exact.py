"""Four rules of docs/rules.md made exact, each with a case where it applies and
one where it does not, in the full engine's hand and match and, through the
conformance cases of ``data/rules_exact.jsonl``, in both engines:

1. ``no_bid = "kitty"`` with ``permanent_twos``: a 2 turned up first gives NT
   (a card trump in every suit names no suit, like a joker or a level card);
2. self-override (自反): any bid by the standing declarer that is not a
   reinforcement (another suit, or NT by jokers), refused with
   ``allow_self_override = false``;
3. ``must_play``: a climb stops at each listed level, and moves on from it;
4. ``kitty_requires_trump``: an off-suit win voids the bonus, but the
   multiplier is still the table's.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from match_scenario import KITTY, c, deal, rules, tricks
from shengji.bidding import SelfOverrideError
from shengji.hand import Bid, Bury, Deal, EndDraw, Hand, IllegalEvent, Phase, Play
from shengji.match import Match
from shengji.play import Reason

CASES = Path(__file__).resolve().parent / "data" / "rules_exact.jsonl"


def _cases() -> list[dict[str, Any]]:
    return [json.loads(x) for x in CASES.read_text(encoding="utf-8").splitlines() if x.strip()]


def _judge(engine: str) -> list[dict[str, Any]]:
    script = Path(sys.executable).parent / "tractor-table"
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "tractor_table.cli"]
    proc = subprocess.run(
        [*cmd, "judge", "--engine", engine],
        input=CASES.read_text(encoding="utf-8"),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return [json.loads(x) for x in proc.stdout.splitlines()]


@pytest.mark.parametrize("engine", ["full", "device"])
def test_both_engines_answer_every_case_as_the_rules_say(engine: str) -> None:
    cases = _cases()
    answers = _judge(engine)
    assert [a["id"] for a in answers] == [x["id"] for x in cases]
    wrong = [
        (x["id"], {k: a.get(k) for k in x["expect"]}, x["expect"])
        for x, a in zip(cases, answers, strict=True)
        if {k: a.get(k) for k in x["expect"]} != x["expect"]
    ]
    assert wrong == []


def test_the_cases_hold_an_applying_and_a_contrasting_case_for_each_rule() -> None:
    ids = [x["id"] for x in _cases()]
    groups = {
        "kitty": ["x-kitty-twos-2-first-is-nt", "x-kitty-no-twos-2-first-names-its-suit"],
        "self-override": ["x-self-override-nt-by-jokers-allowed", "x-self-override-nt-by-jokers-refused"],
        "must_play": ["x-must-play-defenders-stop", "x-must-play-defenders-no-stop-without-it"],
        "requires_trump": ["x-requires-trump-pair-offsuit-win", "x-requires-trump-pair-trump-win"],
    }
    for pair in groups.values():
        assert set(pair) <= set(ids)
    # and the two answers of each pair differ: the rule decides
    by_id = {x["id"]: x["expect"] for x in _cases()}
    for a, b in groups.values():
        assert by_id[a] != by_id[b]


# --- 1. the kitty turned up: a permanent 2 first gives NT ---------------------------------------


def _kitty_first(card: str, **options: object) -> Hand:
    """Level 5, no bid, the kitty turned up with ``card`` first (swapped with
    the 2S of the scenario's kitty)."""
    h = Hand(rules(no_bid="kitty", **options), level=3, dealer=2, first_hand=False)
    hands = [list(x) for x in deal().hands]
    kitty = list(KITTY)
    for s in range(4):
        if c(card) in hands[s]:
            hands[s][hands[s].index(c(card))] = kitty[0]
            kitty[0] = c(card)
    h.apply(Deal.of(hands, kitty))
    h.apply(EndDraw())
    return h


def test_a_two_turned_up_with_permanent_twos_is_no_trump() -> None:
    assert _kitty_first("2S", permanent_twos=True).trump is None
    assert _kitty_first("2S").trump == 0  # without the option a 2 is a spade
    assert _kitty_first("9D", permanent_twos=True).trump == 2  # a plain card names its suit
    h = _kitty_first("2S", permanent_twos=True)
    assert h.flipped == c("2S") and h.declarer is None and h.dealer == 2


def test_the_kitty_names_trump_only_when_nobody_bid() -> None:
    h = Hand(rules(no_bid="kitty", permanent_twos=True), level=3, dealer=2, first_hand=False)
    hands = [list(x) for x in deal().hands]
    hands[1][hands[1].index(c("5H"))] = KITTY[0]  # seat 1 holds 2S and bids the 5D ...
    h.apply(Deal.of(hands, [c("5H"), *KITTY[1:]]))
    h.apply(Bid(1, (c("5D"),)))
    h.apply(EndDraw())
    assert (h.trump, h.declarer) == (2, 1)  # ... and the 5H turned up does not count


# --- 2. self-override ---------------------------------------------------------------------------


def _three_decks(special: dict[int, list[int]], **options: object) -> Hand:
    """Three decks, level 2, seat 0 dealing a later hand; seat s holds special[s]."""
    taken = {x for v in special.values() for x in v}
    rest = iter([i for i in range(162) if i not in taken])
    hands = [special.get(s, []) + [next(rest) for _ in range(39 - len(special.get(s, [])))] for s in range(4)]
    kitty = [next(rest) for _ in range(6)]
    h = Hand(rules().replace(decks=3, **options), level=0, dealer=0, first_hand=False)
    h.apply(Deal.of(hands, kitty))
    return h


S2, H2, H2B, SJ, SJB = 0, 13, 13 + 54, 52, 52 + 54


@pytest.mark.parametrize(
    ("second", "trump"),
    [((H2, H2B), 1), ((SJ, SJB), None)],  # another suit; NT by jokers
    ids=["another suit", "NT by jokers"],
)
def test_self_override_allowed_by_default(second: tuple[int, int], trump: int | None) -> None:
    h = _three_decks({1: [S2, H2, H2B, SJ, SJB]})
    h.apply(Bid(1, (S2,)))
    h.apply(Bid(1, second))
    h.apply(EndDraw())
    assert (h.trump, h.declarer) == (trump, 1)


@pytest.mark.parametrize("second", [(H2, H2B), (SJ, SJB)], ids=["another suit", "NT by jokers"])
def test_self_override_refused_names_the_option_and_changes_nothing(second: tuple[int, int]) -> None:
    h = _three_decks({1: [S2, H2, H2B, SJ, SJB]}, allow_self_override=False)
    h.apply(Bid(1, (S2,)))
    before = h.state_hash()
    assert not h.would_accept_bid(1, second)
    with pytest.raises(IllegalEvent, match="self-override") as exc:
        h.apply(Bid(1, second))
    assert exc.value.findings[0].rule == Reason.BAD_BID
    assert h.state_hash() == before
    assert isinstance(h.bid_refusal(1, second), SelfOverrideError)
    assert not isinstance(h.bid_refusal(2, (S2 + 54,)), SelfOverrideError)  # weak, not 自反
    assert h.bid_refusal(1, (S2 + 54,)) is None  # reinforcing is allowed
    h.apply(EndDraw())
    assert (h.trump, h.declarer) == (0, 1)  # the first bid stands


def test_without_self_override_reinforcing_and_other_seats_still_bid() -> None:
    BJ, BJB = 53, 53 + 54
    h = _three_decks({1: [S2, S2 + 54, SJ, SJB], 2: [BJ, BJB]}, allow_self_override=False)
    h.apply(Bid(1, (S2,)))
    h.apply(Bid(1, (S2 + 54,)))  # 自保: a pair of 2S now
    assert h.standing is not None and (h.standing.kind, h.standing.count) == (0, 2)
    assert not h.would_accept_bid(1, (SJ, SJB))  # the standing declarer's NT: a self-override
    h.apply(Bid(2, (BJ, BJB)))  # any other seat bids as usual
    assert not h.would_accept_bid(1, (SJ, SJB))  # SJ SJ is weaker than BJ BJ
    h.apply(EndDraw())
    assert (h.trump, h.declarer) == (None, 2)


# --- 3. must_play, through the match ------------------------------------------------------------


def _played_hand(**options: object) -> Hand:
    """The scenario's hand, seat 0 dealing at level 2: the defenders take every
    trick (score 0: +3)."""
    h = Hand(rules(**options), level=0, dealer=0, first_hand=False)
    h.apply(deal())
    h.apply(EndDraw())
    h.apply(Bury(tuple(KITTY)))
    for trick in tricks():
        for seat, card in enumerate(trick):
            h.apply(Play(seat, (card,)))
    assert h.phase == Phase.DONE
    return h


@pytest.mark.parametrize(
    ("must_play", "levels", "after"),
    [
        ((), [0, 0], [3, 0]),  # 2 + 3 = 5
        (("4",), [0, 0], [2, 0]),  # stops at 4
        (("4",), [2, 5], [5, 5]),  # from 4 it moves on: 7
        (("3", "4"), [1, 5], [2, 5]),  # 3 -> 4, and stops again
        (("K",), [10, 0], [11, 0]),  # Q -> K
        (("K",), [11, 0], [12, 0]),  # K -> A: never past it
        ((), [11, 0], [12, 0]),
    ],
)
def test_must_play_stops_the_defenders_climb_in_the_match(
    must_play: tuple[str, ...], levels: list[int], after: list[int]
) -> None:
    h = _played_hand(must_play=list(must_play))
    m = Match(h.rules, levels=list(levels), dealer=0, first_hand=False)
    s = m.finish(h)
    assert s.settlement is not None and s.settlement.gain == 3 and not s.settlement.attackers_win
    assert m.levels == after and m.dealer == 2 and m.winner is None


# --- 4. kitty_requires_trump: the multiplier stays, the bonus is 0 -------------------------------


def _kitty_won_offsuit(**options: object) -> Hand:
    """Seat 0 deals at level 2 (NT), buries TS (10 points) and keeps 2S; the
    attackers' seat 1 takes the last trick with KC over the 6C led (no trump)."""
    h = Hand(rules(**options), level=0, dealer=0, first_hand=False)
    h.apply(deal())
    h.apply(EndDraw())
    h.apply(Bury(tuple(c(x) for x in "TS 2H 2D 2C SJ BJ".split())))
    script = tricks()
    script[1][0] = c("2S")  # seat 0 leads its 2S (trump) where it led TS
    for i, k in enumerate(("5C", "9C", "KC")):  # seat 1 keeps KC for the last trick
        script[9 + i][1] = c(k)
    for trick in script:
        for seat, card in enumerate(trick):
            h.apply(Play(seat, (card,)))
    assert h.phase == Phase.DONE and h.tricks[-1].winner == 1
    return h


def test_an_offsuit_last_trick_keeps_the_multiplier_and_voids_the_bonus() -> None:
    r = _kitty_won_offsuit(kitty_requires_trump=True).result()
    assert (r.kitty_points, r.multiplier, r.kitty_bonus) == (10, 2, 0)
    assert r.score == r.trick_points == 10  # KC
    plain = _kitty_won_offsuit().result()  # without the option the bonus counts
    assert (plain.kitty_points, plain.multiplier, plain.kitty_bonus) == (10, 2, 20)
    assert plain.score == 30
    # and the match settles on the score with the bonus voided (10 < 40: defenders +2)
    m = Match(rules(kitty_requires_trump=True), levels=[0, 0], dealer=0, first_hand=False)
    s = m.finish(_kitty_won_offsuit(kitty_requires_trump=True))
    assert s.settlement is not None and s.settlement.gain == 2 and m.levels == [2, 0]
