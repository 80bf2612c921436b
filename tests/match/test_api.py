"""The API of ``shengji`` as docs/engine.md shows it: the example runs as
written, the names are exported, the legal plays are a lazy view whose plays
apply, cards print and parse back with their copy, one vocabulary of reasons,
the end of a hand is an Outcome, and the two random deals have one shape."""

from __future__ import annotations

import enum
import random
import re
from pathlib import Path

import pytest
import shengji
from match_scenario import c, new_hand
from shengji import (
    Card,
    CardCountError,
    Deal,
    EndDraw,
    Hand,
    HandError,
    IllegalEvent,
    Outcome,
    Phase,
    Play,
    Reason,
    Rules,
    Termination,
    check_lead,
)
from shengji import hand as hand_module
from shengji.match import deal_cards, make_bots, play_hand
from shengji.playout import deal

ROOT = Path(__file__).resolve().parents[2]

SNIPPET = """\
import random, shengji
rules = shengji.Rules.preset("tournament")
hand = shengji.Hand.deal(rules, dealer=0, rng=random.Random(1))
move = next(iter(hand.legal_plays()))
hand.apply(move)
"""


def test_the_example_runs_as_written() -> None:
    scope: dict[str, object] = {}
    exec(SNIPPET, scope)  # noqa: S102 - the documented example, literally
    hand = scope["hand"]
    assert isinstance(hand, Hand)
    assert hand.events[-1] == Play(0, scope["move"])  # type: ignore[arg-type]
    assert hand.tricks[0].plays == ((0, scope["move"]),)


@pytest.mark.parametrize("page", ["docs/engine.md", "README.md"])
def test_the_example_is_the_one_in_the_docs(page: str) -> None:
    text = (ROOT / page).read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert SNIPPET in blocks


def test_the_hand_the_match_and_the_events_are_exported() -> None:
    for name in ("Hand", "Match", "Outcome", "Termination", "Deal", "Bid", "EndDraw", "Bury",
                 "Call", "Scan", "Play", "Challenge", "Reveal", "Event", "Finding", "IllegalEvent"):
        assert name in shengji.__all__, name
    assert all(hasattr(shengji, name) for name in shengji.__all__)
    assert len(set(shengji.__all__)) == len(shengji.__all__)


# --- Hand.deal -------------------------------------------------------------


def test_deal_brings_the_hand_to_the_dealers_first_lead() -> None:
    rules = Rules.preset("tournament")
    hand = Hand.deal(rules, dealer=2, rng=random.Random(5), level=3)
    assert hand.phase == Phase.PLAY and hand.next_seat() == 2 and hand.level == 3
    assert hand.known and all(len(hand.held(s)) == rules.hand_size for s in range(4))
    assert hand.buried is not None and len(hand.buried) == rules.kitty_size
    # no bid: the kitty's first card named trump (no_bid = "kitty")
    assert hand.flipped is not None and hand.declarer is None
    again = Hand.deal(rules, dealer=2, rng=random.Random(5), level=3)
    assert again.state_hash() == hand.state_hash()  # the rng decides everything


def test_deal_with_find_a_friend_needs_the_called_face() -> None:
    rules = Rules.preset("friend")
    with pytest.raises(HandError, match="call="):
        Hand.deal(rules, dealer=0, rng=random.Random(1))
    hand = Hand.deal(rules, dealer=0, rng=random.Random(1), call=53)
    assert hand.phase == Phase.PLAY and hand.friend_face == 53


# --- legal_plays -----------------------------------------------------------


def test_legal_plays_is_a_view_with_in_count_and_bool() -> None:
    h = new_hand(known=True)
    view = h.legal_plays()
    plays = list(view)
    assert view.count() == len(plays) == len(set(plays)) and bool(view) and view.first() == plays[0]
    assert (c("AS"),) in view and [c("AS")] in view and Play(0, (c("AS"),)) in view
    assert Play(1, (c("AS"),)) not in view  # not seat 1's turn
    assert (c("AS"), c("AH")) not in view  # two suits
    assert (c("AS"), c("TS")) not in view  # a throw: not among the leads ...
    assert (c("AS"), c("TS")) in h.legal_plays(throws=True)  # ... unless asked for
    assert (c("KS"),) not in view and "AS" not in view and 12 not in view
    h.apply(Play(0, (c("AS"),)))
    # the view reads the hand: now seat 1 follows spades
    assert set(view) == {(c("5S"),), (c("9S"),), (c("KS"),)}
    assert (c("KS"),) in view and (c("KH"),) not in view  # a revoke is not a legal play


def test_every_play_the_view_yields_applies_to_the_end() -> None:
    rng = random.Random(3)
    for preset in ("classic", "titanic", "xuwen", "onedeck"):
        hand = Hand.deal(Rules.preset(preset), dealer=1, rng=rng, strict=True)
        while hand.phase == Phase.PLAY:
            plays = list(hand.legal_plays())
            move = rng.choice(plays)
            assert move in hand.legal_plays() and move == tuple(sorted(move))
            hand.apply(move)  # strict: a revoke would raise
        assert hand.findings == ()
        outcome = hand.outcome()
        assert outcome is not None and outcome.termination is Termination.COMPLETED


def test_copies_of_a_face_are_one_play_with_the_lowest_ids() -> None:
    hand = Hand.deal(Rules.preset("xuwen"), dealer=0, rng=random.Random(11))
    held = hand.held(0)
    plays = list(hand.legal_plays())
    for play in plays:
        for face in {x % 54 for x in play}:
            mine = [x for x in play if x % 54 == face]
            assert mine == sorted(x for x in held if x % 54 == face)[: len(mine)]
    faces_of = [tuple(sorted(x % 54 for x in p)) for p in plays]
    assert len(faces_of) == len(set(faces_of))  # each face multiset once
    assert any(len({x % 54 for x in p}) < len(p) for p in plays)  # pairs are among them


def test_legal_plays_outside_the_play_and_without_the_hands() -> None:
    h = Hand(Rules(decks=1), dealer=0)
    assert not h.legal_plays() and h.legal_plays().count() == 0  # the draw: nothing to play
    assert h.legal_plays().first() is None and (0,) not in h.legal_plays()
    unknown = new_hand(known=False)
    with pytest.raises(HandError, match="not known"):
        unknown.legal_plays().count()


def test_card_ids_apply_as_the_seat_to_plays_play() -> None:
    h = new_hand(known=True)
    h.apply((c("AS"),))
    assert h.events[-1] == Play(0, (c("AS"),))
    with pytest.raises(IllegalEvent) as exc:
        h.apply((c("AS"),))  # seat 1 does not hold it
    assert exc.value.findings[0].rule is Reason.SEEN_TWICE
    with pytest.raises(IllegalEvent) as exc:
        h.apply(("KS",))  # type: ignore[arg-type]
    assert exc.value.findings[0].rule is Reason.BAD_EVENT
    draw = Hand(Rules(decks=1), dealer=0)
    with pytest.raises(IllegalEvent) as exc:
        draw.apply((c("AS"),))
    assert exc.value.findings[0].rule is Reason.PHASE and draw.events == []


# --- cards -----------------------------------------------------------------


def test_card_str_round_trips_with_the_copy() -> None:
    for card_id in range(4 * 54):
        card = Card(card_id)
        assert Card.parse(str(card)) == card
    assert str(Card.parse("5H")) == "5H" and str(Card.parse("5H", copy=1)) == "5H.1"
    assert Card.parse("5H.1") != Card.parse("5H")  # two decks: copies are distinct
    assert Card.parse("5H.1", copy=1) is Card.parse("5H.1")
    with pytest.raises(CardCountError, match="given twice"):
        Card.parse("5H.1", copy=2)
    with pytest.raises(CardCountError):
        Card.parse("5H.4")


# --- one vocabulary --------------------------------------------------------


def test_one_vocabulary_for_why_a_play_is_refused() -> None:
    assert not hasattr(hand_module, "Rule")
    assert all(isinstance(m, enum.Enum) for m in Reason)
    h = new_hand(known=True)
    with pytest.raises(IllegalEvent) as exc:
        h.apply(Play(0, (c("KS"),)))  # seat 0 holds no KS
    # the same word as the play functions use for the same fault
    assert exc.value.findings[0].rule is Reason.NOT_IN_HAND
    assert check_lead(h.ruling.order, [c("AS")], [c("KS")]).reason is Reason.NOT_IN_HAND
    with pytest.raises(IllegalEvent) as exc:
        h.apply(Play(0, (c("AS"), c("AH"))))
    assert exc.value.findings[0].rule is Reason.MIXED_SUITS
    assert check_lead(h.ruling.order, [c("AS"), c("AH")], [c("AS"), c("AH")]).reason is Reason.MIXED_SUITS


# --- the end of a hand -----------------------------------------------------


def test_the_end_of_a_hand_is_an_outcome() -> None:
    done = play_hand(Rules(), make_bots(1, 4), random.Random(4), dealer=0, first_hand=False)
    out = done.outcome()
    assert out == Outcome(Termination.COMPLETED, done.result()) and out.forfeit is None
    # nobody bids on the match's first hand: a redeal, no score
    first = Hand(Rules(decks=1), first_hand=True)
    first.apply(EndDraw())
    assert first.outcome() == Outcome(Termination.REDEAL, None)
    # a revoke with revoke = "forfeit" loses the hand
    f = new_hand(known=True, revoke="forfeit")
    assert f.outcome() is None  # not over
    f.apply(Play(0, (c("AS"),)))
    f.apply(Play(1, (c("5H"),)))
    out = f.outcome()
    assert out is not None and out.termination is Termination.FORFEIT and out.forfeit == 1
    assert out.result == f.result()


def test_the_two_random_deals_have_one_shape() -> None:
    for rules in (Rules(), Rules(decks=1), Rules.preset("xuwen")):
        for d in (deal(rules, random.Random(2)), deal_cards(rules, random.Random(2))):
            assert isinstance(d, Deal)
            assert [len(h) for h in d.hands] == [rules.hand_size] * 4 and len(d.kitty) == rules.kitty_size
            assert sorted([*(x for h in d.hands for x in h), *d.kitty]) == list(range(54 * rules.decks))
            hands, kitty = d.faces()
            assert hands == [sorted(x % 54 for x in h) for h in d.hands] and len(kitty) == rules.kitty_size
        h = Hand(rules, dealer=0)
        h.apply(deal(rules, random.Random(2)))  # either deal is a Deal event
        h.apply(EndDraw())
        assert h.phase == Phase.BURY
    assert Deal.shuffled(Rules(), random.Random(9)) == deal_cards(Rules(), random.Random(9))
