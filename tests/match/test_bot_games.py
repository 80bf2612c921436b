"""Properties of random bot games, for every preset and 1-4 decks (docs/rules.md §8-10)."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from shengji import kitty, record
from shengji.cards import FACES
from shengji.hand import Bury, Challenge, Deal, Hand, Phase, Play, Reveal, Scan
from shengji.match import Match, iter_plays, make_bots, play_hand, play_match
from shengji.rules import PRESETS, Rules
from shengji.settle import ACE

CONFIGS = [(name, {}) for name in PRESETS] + [
    ("classic", {"decks": 1}),
    ("classic", {"decks": 3}),
    ("classic", {"decks": 4}),
    ("classic", {"partners": "called"}),
    ("titanic", {"partners": "called", "permanent_twos": True}),
    ("classic", {"hand_scan": True, "throw_penalty": 10}),
]
IDS = [name + "".join(f"-{k}={v}" for k, v in o.items()) for name, o in CONFIGS]

SETTINGS = settings(
    max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)


def check_hand(h: Hand) -> None:
    rules = h.rules
    assert h.phase == Phase.DONE and not h.redeal
    # every card exactly once: played in a trick or buried
    cards = [c for t in h.tricks for _, cs in t.plays for c in cs]
    assert h.buried is not None
    assert len(cards) == len(set(cards)) == rules.card_count - rules.kitty_size
    assert set(cards) | set(h.buried) == set(range(rules.card_count))
    for seat in range(4):
        assert len(h.played_by(seat)) == rules.hand_size
    # points: tricks + kitty = 100 per deck
    r = h.result()
    by_seat = h.trick_points_by_seat()
    assert sum(by_seat) + kitty.kitty_points(h.buried) == 100 * rules.decks
    assert r.trick_points == sum(by_seat[s] for s in r.attackers)
    # the score is tricks + kitty bonus + penalties, each computed here again
    penalty = sum(p if s in r.defenders else -p for _, s, p in h.penalties)
    last = h.tricks[-1]
    bonus = 0
    if last.winner in r.attackers:
        d = h.ruling.decompose([c % FACES for c in last.lead])
        assert d is not None
        m, k = max(u.shape for u in d.units)
        mult = kitty.multiplier(m, k, rules.kitty_multiplier.value)
        win = last.cards_of(last.winner)
        if not rules.kitty_requires_trump or all(h.ruling.is_trump(c % FACES) for c in win):
            bonus = kitty.kitty_points(h.buried) * mult
    assert (r.kitty_bonus, r.penalty) == (bonus, penalty)
    assert r.score == r.trick_points + bonus + penalty
    # bots play legally: a strict hand accepted every play, and nothing was flagged
    assert h.findings == ()


def seen_replay(h: Hand) -> Hand:
    """The same hand as the table sees it: no deal and an unseen burial; then
    either the kitty turned up at the end or, with ``hand_scan``, a scan of
    every hand and the kitty before the first play."""
    s = Hand(h.rules, level=h.level, dealer=None if h.first_hand else h.dealer, first_hand=h.first_hand)
    assert h.buried is not None
    scanned = False
    for e in h.events:
        if isinstance(e, Deal):
            continue
        if isinstance(e, Play) and h.rules.hand_scan and not scanned:
            s.apply(Scan.of([h.played_by(seat) for seat in range(4)], h.buried))
            scanned = True
        s.apply(Bury(()) if isinstance(e, Bury) else e)
        t = s.current_trick()
        if isinstance(e, Play) and t is not None and len(t.plays) == 1 and not s.known:
            # a throw that failed with the hands known: its beater challenges it,
            # showing every card of the suit it held then
            real = h.tricks[len(s.tricks) - 1]
            if real.attempt:
                beater = real.forced_by[0]
                es = h.ruling.esuit(real.attempt[0] % FACES)
                held = [
                    c for t2 in h.tricks[len(s.tricks) - 1 :] for c in t2.cards_of(beater)
                ]
                shown = tuple(c for c in held if h.ruling.esuit(c % FACES) == es)
                s.apply(Challenge(beater, shown))
    if not h.rules.hand_scan:
        assert s.phase == Phase.REVEAL
        s.apply(Reveal(h.buried))
    return s


@pytest.mark.parametrize(("preset", "options"), CONFIGS, ids=IDS)
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), strength=st.integers(0, 2))
@example(seed=1, strength=0)  # random bots try throws: failed throws, penalties, challenges
def test_bot_hands(preset: str, options: dict[str, object], seed: int, strength: int) -> None:
    rules = Rules.preset(preset, **options)
    rng = random.Random(seed)
    h = play_hand(rules, make_bots(strength, seed), rng, level=rng.randrange(13), dealer=seed % 4, first_hand=False)
    check_hand(h)
    # the record replays to the identical state
    text = record.dumps(h)
    assert record.replay(text).state_hash() == h.state_hash()
    # seen card by card, a legal hand raises no finding and scores the same
    s = seen_replay(h)
    assert s.findings == ()
    assert s.result() == h.result()
    # undo restores the exact previous state, at a few points of the hand
    idx = sorted(rng.sample(range(len(h.events)), 3))
    for i in reversed(idx):
        while len(h.events) > i + 1:
            h.undo()
        after = h.state_dict()
        e = h.undo()
        before = h.state_dict()
        h.apply(e)
        assert h.state_dict() == after
        h.undo()
        assert h.state_dict() == before


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_first_hand_declares_or_redeals(seed: int) -> None:
    rules = Rules()
    h = play_hand(rules, make_bots(1, seed), random.Random(seed))
    if h.redeal:
        assert h.standing is None and h.dealer is None
    else:
        assert h.dealer is not None and h.standing is not None
        first = h.bids[0][0]
        assert h.dealer == first  # first_dealer = "first"


@pytest.mark.parametrize("preset", ["onedeck", "classic", "tournament"])
def test_matches_never_pass_ace_and_end_defending_at_ace(preset: str) -> None:
    rules = Rules.preset(preset)
    match, hands = play_match(rules, seed=7, strengths=1, max_hands=400 if preset == "onedeck" else 60)
    levels_seen = [s.levels_after for s in match.history]
    assert all(0 <= x <= ACE for lv in levels_seen for x in lv)
    if preset == "onedeck":
        assert match.winner is not None  # one-deck matches are short
    if match.winner is not None:
        last = match.history[-1]
        assert last.result is not None and last.settlement is not None
        assert not last.settlement.attackers_win
        defenders_side = last.result.dealer % 2
        assert match.winner == defenders_side and last.level == ACE


def test_match_undo() -> None:
    rules = Rules(decks=1)
    rng = random.Random(3)
    bots = make_bots(1, 3)
    match = Match(rules)
    h = play_hand(rules, bots, rng, level=match.hand_level(), dealer=match.dealer, first_hand=match.first_hand)
    before = (list(match.levels), match.dealer, match.first_hand)
    match.finish(h)
    match.undo()
    assert (list(match.levels), match.dealer, match.first_hand) == before and match.history == []


def test_iter_plays_gives_the_context() -> None:
    rules = Rules()
    cards = 0
    for ctx in iter_plays(rules, seed=11, strengths=2):
        held = list(ctx.holdings[ctx.seat])
        for f in ctx.play:
            held.remove(f)  # the play came out of the seat's holding
        if ctx.lead:
            assert len(ctx.play) == len(ctx.lead)
        if ctx.points is not None:
            assert ctx.winner is not None and len(ctx.trick_plays) == 4
            cards += sum(len(p) for p in ctx.trick_plays)
    assert cards == 4 * rules.hand_size


def test_iter_plays_probes_are_revokes() -> None:
    from shengji.cards import Rank, Suit
    from shengji.order import Order
    from shengji.play import check_follow
    from shengji.rules import Rules as R2

    rules = R2()
    probes = 0
    for ctx in iter_plays(rules, seed=3, strengths=1, probes=True):
        if ctx.illegal is None:
            continue
        probes += 1
        order = Order(rules, Rank(ctx.level), None if ctx.trump is None else Suit(ctx.trump))
        assert not check_follow(order, list(ctx.lead), list(ctx.holdings[ctx.seat]), list(ctx.illegal))
        assert check_follow(order, list(ctx.lead), list(ctx.holdings[ctx.seat]), list(ctx.play))
        assert ctx.illegal_why
    assert probes > 10
