"""The sweep (shengji/sweep.py) against the old exponential search
(tests/engine/ladder_reference.py), on random and hypothesis-drawn inputs:
1-4 decks, every ladder shape (triples, Titanics, quads, tractors inside
throws), same_shape_only, permanent_twos, NT; and legal_follows against the
definition (every play of the suit, filtered by check_follow)."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import ladder_reference as ref
import pytest
import shengji.play as play_module
from enginehelp import f, order
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shengji import Order, Rank, Rules, Suit
from shengji.play import (
    _MODE_LADDER,
    Lead,
    Reason,
    _ladder_taken,
    _ladder_vector,
    _match_key,
    _tractor_pairs,
    check_follow,
    check_follow_counts,
    counts,
    counts_from,
    legal_follows,
)
from shengji.sweep import Sweep
from shengji.units import decompose_faces

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example],
)


def random_order(rng: random.Random, decks: int | None = None) -> Order:
    rules = Rules(
        decks=decks or rng.choice([1, 2, 3, 3, 4, 4]),
        permanent_twos=rng.random() < 0.3,
        same_shape_only=rng.random() < 0.25,
    )
    return Order(rules, Rank(rng.randrange(13)), rng.choice([None, *Suit]))


def random_cards(rng: random.Random, o: Order, es: int, size: int, wide: float) -> list[int]:
    """``size`` cards of suit ``es`` at most, drawn to make sets and runs."""
    decks = o.rules.decks
    faces_at = o.faces_at[es]
    cnt: Counter[int] = Counter()
    start = rng.randrange(len(faces_at))
    p = start
    size = min(size, decks * len(o.suit_faces[es]))
    while sum(cnt.values()) < size:
        if rng.random() < 0.3:
            p = rng.randrange(len(faces_at))
        fs = faces_at[p % len(faces_at)]
        fc = rng.choice(fs)
        want = rng.randint(1, decks) if rng.random() < wide else 1
        cnt[fc] = min(decks, cnt[fc] + want)
        p += 1
    out = [x for x, c in cnt.items() for _ in range(c)]
    rng.shuffle(out)
    return out[:size]


def random_case(
    rng: random.Random, lead_max: int = 12, hold_max: int = 18
) -> tuple[Order, Lead, dict[int, int]]:
    o = random_order(rng)
    es = rng.choice([e for e in range(5) if o.npos[e]])
    lead_faces = random_cards(rng, o, es, rng.randint(2, lead_max), 0.8)
    lead = Lead(o, lead_faces)
    held = Counter(random_cards(rng, o, es, rng.randint(1, hold_max), 0.7))
    return o, lead, dict(held)


def _ref_small(lead: Lead) -> bool:
    """Inputs on which the old search finishes quickly."""
    return sum(1 for u in lead.decomposition.units if u.width > 1) <= 4


def _compare(o: Order, lead: Lead, held: dict[int, int]) -> None:
    if lead.mode == _MODE_LADDER:
        assert _ladder_vector(o, lead, held) == ref._ladder_vector(o, lead, held)
        taken = _ladder_taken(o, lead, held)
        assert all(held.get(x, 0) >= c for x, c in taken.items())
        # the core alone reaches the holding's vector
        assert _ladder_vector(o, lead, taken) == _ladder_vector(o, lead, held)
    if lead.caps:
        # §6.2's t(X): the engine's search against the sweep's "at most" bins
        arr = counts_from(held)
        bins = [(c, False, 0, 0) for c in lead.caps]
        assert _tractor_pairs(o, lead.esuit, arr, lead.caps) == Sweep(o, lead.esuit, held).value(
            (), bins
        )
    # §7: a play of the lead's size matched against the lead
    play = [x for x, c in held.items() for _ in range(c)][: lead.size]
    if len(play) == lead.size:
        d = lead.decomposition
        assert _match_key(o, d, play) == ref._match_key(o, d, play)


def test_seeded_random_against_the_old_search() -> None:
    rng = random.Random(12)
    done = 0
    while done < 400:
        o, lead, held = random_case(rng)
        if not _ref_small(lead):
            continue
        _compare(o, lead, held)
        done += 1


@SETTINGS
@given(st.randoms(use_true_random=False))
def test_hypothesis_against_the_old_search(rng: random.Random) -> None:
    o, lead, held = random_case(rng)
    if _ref_small(lead):
        _compare(o, lead, held)


def test_three_and_four_deck_throws_against_the_old_search() -> None:
    """Throws with triples and quads, 3-4 decks, every option."""
    rng = random.Random(1212)
    done = 0
    while done < 250:
        o = random_order(rng, decks=rng.choice([3, 4]))
        es = rng.choice([e for e in range(5) if o.npos[e]])
        lead = Lead(o, random_cards(rng, o, es, rng.randint(6, 14), 0.95))
        if lead.mode != _MODE_LADDER or not _ref_small(lead):
            continue
        held = dict(Counter(random_cards(rng, o, es, rng.randint(8, 20), 0.8)))
        _compare(o, lead, held)
        done += 1


def _all_follows(o: Order, lead: Lead, hand: list[int]) -> set[tuple[int, ...]]:
    """The definition: every sub-multiset of the hand of the lead's size that
    check_follow accepts."""
    cnt = counts(hand)
    items = sorted(Counter(hand).items())
    out = set()

    def rec(i: int, left: int, acc: list[int]) -> None:
        if left == 0:
            play = tuple(sorted(acc))
            if check_follow_counts(o, lead, cnt, play):
                out.add(play)
            return
        if i == len(items):
            return
        x, c = items[i]
        for take in range(min(c, left), -1, -1):
            rec(i + 1, left - take, acc + [x] * take)

    rec(0, lead.size, [])
    return out


@pytest.mark.parametrize("few", [0, 100, 10**9], ids=["cores", "default", "left-out"])
def test_legal_follows_are_exactly_the_legal_plays(few: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both ways legal_follows builds the follows (each core filled up; each
    way to leave cards out, when there are few) give exactly the legal plays."""
    monkeypatch.setattr(play_module, "_FEW_LEFT_OUT", few)
    rng = random.Random(7)
    done = 0
    while done < 120:
        o, lead, held = random_case(rng, lead_max=8, hold_max=12)
        hand = [x for x, c in held.items() for _ in range(c)]
        # a few cards of other suits
        others = [x for x in range(54) if o.esuit[x] != lead.esuit]
        hand += rng.sample(others, rng.randint(0, 4))
        if len(hand) < lead.size:
            continue
        got = list(legal_follows(o, lead, hand))
        assert len(got) == len(set(got)), "each legal follow once"
        assert set(got) == _all_follows(o, lead, hand)
        done += 1


def test_same_shape_only_throws_legal_and_illegal() -> None:
    """docs/rules.md §6.3: with same_shape_only each unit of a throw, widest and
    longest first, is matched by the same shape if the cards left hold it."""
    o = order("2", "S", decks=3, same_shape_only=True)
    lead = f("9H 9H 9H 8H 8H 3H 3H")  # triple, pair, pair
    hand = f("KH KH KH QH QH 5H 4H 4H 2C")
    assert check_follow(o, lead, hand, f("KH KH KH QH QH 4H 4H"))
    # the triple is held: it must be played
    v = check_follow(o, lead, hand, f("KH KH QH QH 5H 4H 4H"))
    assert v.reason == Reason.MUST_PLAY_SAME_SHAPE
    # a pair cut from a second triple is the same shape as a led pair
    hand3 = f("KH KH KH QH QH QH 5H 6H 7H")
    assert check_follow(o, lead, hand3, f("KH KH KH QH QH 5H 6H"))
    v = check_follow(o, lead, hand3, f("KH KH KH QH 5H 6H 7H"))
    assert v.reason == Reason.MUST_PLAY_SAME_SHAPE


def test_the_issue_example() -> None:
    """Issue 12's case: 4 decks, level 7, trump S, a throw of 22 trumps."""
    o = order("7", "S", decks=4)
    lead = Lead(o, f("7S 7S 7S 9S 9S 9S JS JS QS QS KS KS KS AS AS AS 7D 7D 7D 7C 7C 7C"))
    hand = f("2S 2S 3S 3S 4S 4S 4S 4S 6S 6S 7S 8S 8S 9S TS TS JS JS QS QS KS AS 7D 7C SJ SJ BJ")
    play = f("SJ 2S 9S 7C 3S 7S 6S 4S AS 6S 8S SJ JS 4S 4S 2S QS TS 7D 8S 3S QS")
    assert lead.decomposition.codes == ["T4", "3", "3", "t2"]
    held = dict(Counter(hand))
    assert _ladder_vector(o, lead, held) == ref._ladder_vector(o, lead, held)
    v = check_follow(o, lead, hand, play)
    assert v.reason == Reason.MUST_PLAY_TRACTOR
    follows = legal_follows(o, lead, hand)
    first = list(itertools.islice(follows, 60))
    assert len(first) == 60 and len(set(first)) == 60
    assert all(check_follow(o, lead, hand, p) for p in first)


def test_match_key_many_units() -> None:
    """§7 on a play with many units (the old search was exponential in them)."""
    o = order("2", "H", decks=4)
    lead = f("3S 3S 3S 4S 4S 4S 6S 6S 6S 8S 8S 8S TS TS TS QS QS AS AS")
    d = decompose_faces(o, lead)
    assert d is not None
    play = f("5S 5S 5S 6S 6S 6S 7S 7S 7S 9S 9S 9S JS JS JS KS KS 4S 4S")
    assert _match_key(o, d, play) == ref._match_key(o, d, play)


@pytest.mark.parametrize("few", [0, 10**9], ids=["cores", "left-out"])
def test_legal_follows_to_two_tractors(few: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """§6.2 with two led tractors (the runs shared out between them)."""
    monkeypatch.setattr(play_module, "_FEW_LEFT_OUT", few)
    o = order("2", "S", decks=2)
    lead = Lead(o, f("KH KH QH QH 8H 8H 7H 7H"))
    hand = f("AH AH KH KH QH QH 9H 9H 6H 6H 5H 5H 3H 4C")
    got = list(legal_follows(o, lead, hand))
    assert len(got) == len(set(got))
    assert set(got) == _all_follows(o, lead, hand)
    # 4 pairs in runs are held (AKQ and 65, or 9 with neither): play them
    assert check_follow(o, lead, hand, f("AH AH KH KH 6H 6H 5H 5H"))
    v = check_follow(o, lead, hand, f("AH AH KH KH QH QH 9H 9H"))
    assert v.reason == Reason.MUST_PLAY_TRACTOR


#: The inputs that made checks visit the most sweep states in
#: ``tests/engine/ladder_timing.py``'s hill climb (4 decks, level 5, trump S),
#: kept as regression data: (lead, hand).
HARDEST = [
    (
        "2S 2S 3S 4S 4S 5S 5S 7S 9S TS TS JS JS QS QS QS KS 5H 5H 5D 5D 5D 5D SJ SJ BJ BJ",
        "2S 3S 3S 3S 4S 5S 5S 6S 7S 7S 7S 8S 8S 8S 8S TS TS JS KS KS KS AS 5H 5C 5C 5C 5C BJ BJ",
    ),
]


@pytest.mark.parametrize(("lead_text", "hand_text"), HARDEST)
def test_hardest_found_inputs_against_the_old_search(lead_text: str, hand_text: str) -> None:
    o = order("5", "S", decks=4)
    lead = Lead(o, f(lead_text))
    held = dict(Counter(f(hand_text)))
    assert _ladder_vector(o, lead, held) == ref._ladder_vector(o, lead, held)
    follows = list(itertools.islice(legal_follows(o, lead, f(hand_text)), 60))
    assert follows and all(check_follow(o, lead, f(hand_text), p) for p in follows)


def test_long_tractors_in_throws_against_the_old_search() -> None:
    """A tractor of 4-6 pairs inside a throw with a triple: its (t, q) rungs,
    with t pairs in runs split in any way (the tractor requirements)."""
    rng = random.Random(4646)
    done = 0
    while done < 150:
        o = random_order(rng, decks=rng.choice([3, 4]))
        if o.rules.same_shape_only:
            continue
        es = rng.choice([e for e in range(5) if o.npos[e] >= 8])
        faces_at = o.faces_at[es]
        k = rng.randint(4, 6)
        lo = rng.randrange(len(faces_at) - k)
        lead_faces = [rng.choice(faces_at[p]) for p in range(lo, lo + k) for _ in (0,)]
        lead_faces = [x for x in lead_faces for _ in range(2)]
        rest = [p for p in range(len(faces_at)) if p < lo - 1 or p > lo + k]
        if not rest:
            continue
        lead_faces += [rng.choice(faces_at[rng.choice(rest)])] * 3
        lead = Lead(o, lead_faces)
        if lead.mode != _MODE_LADDER or not any(
            u.width == 2 and u.length >= 4 for u in lead.decomposition.units
        ):
            continue
        # a holding rich in pairs: several short runs to share out
        held: Counter[int] = Counter()
        for _ in range(rng.randint(5, 9)):
            p = rng.randrange(len(faces_at))
            held[rng.choice(faces_at[p])] = rng.choice([2, 2, 2, 3, 4][: o.rules.decks + 1])
        _compare(o, lead, dict(held))
        done += 1


def test_two_long_tractors_in_a_throw_against_the_old_search() -> None:
    """Two tractors of 4 pairs and a triple, 4 decks: two tractor requirements
    at once (their runs may not be merged, a run of 8 may be cut 4 + 4)."""
    rng = random.Random(77)
    done = 0
    while done < 40:
        o = random_order(rng, decks=4)
        fa = o.faces_at[4]
        if o.rules.same_shape_only or len(fa) < 14:
            continue
        lead_faces = [rng.choice(fa[p]) for p in (0, 1, 2, 3, 5, 6, 7, 8) for _ in (0,)]
        lead_faces = [x for x in lead_faces for _ in range(2)] + [rng.choice(fa[11])] * 3
        lead = Lead(o, lead_faces)
        held: Counter[int] = Counter()
        for _ in range(rng.randint(6, 9)):
            held[rng.choice(fa[rng.randrange(len(fa))])] = rng.choice([2, 2, 3, 4])
        _compare(o, lead, dict(held))
        done += 1


def _hinted_agrees(o: Order, lead: Lead, held: dict[int, int], play: dict[int, int]) -> bool:
    """The play's vector with the hand's as a hint (what check_follow computes)
    is the full vector up to the first unit where it falls below the hand's;
    True when the play reaches the hand's vector."""
    vh = _ladder_vector(o, lead, held)
    full = _ladder_vector(o, lead, play)
    hinted = play_module._Ladders(o, lead, play, hint=vh).vector
    if full == vh:
        assert hinted == vh
        return True
    i = next(i for i, (a, b) in enumerate(zip(vh, full, strict=True)) if a != b)
    assert hinted == full[: i + 1]
    return False


def _follow_as_before(o: Order, lead: Lead, held: dict[int, int], play: dict[int, int]) -> None:
    """check_follow (the hand's vector cut where the play falls behind) gives
    the verdict and message of the two whole vectors compared."""
    vh = _ladder_vector(o, lead, held)
    vp = _ladder_vector(o, lead, play)
    hand = counts_from(held)
    faces = [x for x, c in play.items() for _ in range(c)]
    got = check_follow_counts(o, lead, hand, faces)
    if vh == vp:
        assert got.legal
        return
    i = next(i for i, (a, b) in enumerate(zip(vh, vp, strict=True)) if a != b)
    ladder = lead.rungs[i]
    want = play_module._ladder_reason(
        o, lead.decomposition.units[i], ladder[vh[i]][0], ladder[vp[i]][0] if vp[i] < len(ladder) else (), lead.esuit
    )
    assert (got.legal, got.reason, got.message) == (False, want.reason, want.message)


def test_the_play_vector_with_the_hand_as_hint() -> None:
    """Legal plays (a core filled up) and illegal ones (random cards of the
    hand): the hinted vector is the full one, cut after the first difference."""
    rng = random.Random(1313)
    legal = illegal = 0
    while legal + illegal < 500:
        o, lead, held = random_case(rng, lead_max=20, hold_max=30)
        if lead.mode != _MODE_LADDER or sum(held.values()) <= lead.size:
            continue
        pool = [x for x, c in held.items() for _ in range(c)]
        rng.shuffle(pool)
        core = Counter(_ladder_taken(o, lead, held))
        rest = list((Counter(pool) - core).elements())
        rng.shuffle(rest)
        fill = core + Counter(rest[: max(0, lead.size - sum(core.values()))])
        for play in (dict(fill), dict(Counter(pool[: lead.size]))):
            _follow_as_before(o, lead, held, play)
            if _hinted_agrees(o, lead, held, play):
                legal += 1
            else:
                illegal += 1
    assert legal > 100 and illegal > 100
