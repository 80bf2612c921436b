"""Property tests (hypothesis): decomposition, legal follows on random deals,
points, and two brute-force oracles written straight from docs/rules.md's words
(§6.2's match vector and §7's matching) checked against the engine."""

from __future__ import annotations

import itertools
import os
import random
from collections import Counter

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from shengji import TRUMP, Order, Rank, Rules, Suit, decompose, legal_follows
from shengji.cards import POINTS
from shengji.play import Lead, check_follow_counts, counts, trick_winner_faces
from shengji.playout import deal, judge_hand, random_playout

#: ``SHENGJI_FUZZ=20`` runs twenty times as many examples (a longer fuzz run).
SCALE = int(os.environ.get("SHENGJI_FUZZ", "1"))
FAST = settings(
    max_examples=200 * SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


ANY_DECKS = st.integers(1, 4)


@st.composite
def orders(draw: st.DrawFn, decks: st.SearchStrategy[int] = ANY_DECKS) -> Order:
    rules = Rules(
        decks=draw(decks),
        permanent_twos=draw(st.booleans()),
        same_shape_only=draw(st.sampled_from([False, False, True])),
    )
    level = Rank(draw(st.integers(0, 12)))
    trump = draw(st.sampled_from([None, *Suit]))
    return Order(rules, level, trump)


# --- decomposition ---------------------------------------------------------------


@st.composite
def one_suit_plays(draw: st.DrawFn) -> tuple[Order, list[int]]:
    order = draw(orders())
    es = draw(st.integers(0, 4))
    faces = order.suit_faces[es]
    if not faces:  # pragma: no cover - every effective suit has cards
        es = TRUMP
        faces = order.suit_faces[es]
    decks = order.rules.decks
    picked = draw(st.lists(st.sampled_from(faces), min_size=1, max_size=14))
    cnt = Counter(picked)
    play = [f for f, c in cnt.items() for _ in range(min(c, decks))]
    return order, play


def _unit_is_valid(order: Order, unit: object) -> bool:
    faces = unit.faces  # type: ignore[attr-defined]
    positions = [order.pos[f] for f in faces]
    return (
        len({order.esuit[f] for f in faces}) == 1
        and positions == list(range(positions[0], positions[0] + len(faces)))
        and unit.top == positions[-1]  # type: ignore[attr-defined]
        and (unit.length == 1 or unit.width >= 2)  # type: ignore[attr-defined]
    )


@FAST
@given(one_suit_plays(), st.randoms(use_true_random=False))
def test_decomposition_uses_every_card_once_and_ignores_order(
    data: tuple[Order, list[int]], rnd: random.Random
) -> None:
    order, play = data
    d = decompose(order, play)
    assert d is not None
    used = Counter(f for u in d.units for f in u.cards)
    assert used == Counter(play)
    assert all(_unit_is_valid(order, u) for u in d.units)
    # singles are what is left: no two of one face
    singles = [u.faces[0] for u in d.units if u.width == 1]
    assert len(singles) == len(set(singles))
    # most demanding first
    keys = [(-u.width, -u.length, -u.top) for u in d.units]
    assert keys == sorted(keys)
    shuffled = list(play)
    rnd.shuffle(shuffled)
    d2 = decompose(order, shuffled)
    assert d2 is not None
    assert [(u.shape, u.top) for u in d2.units] == [(u.shape, u.top) for u in d.units]


# --- random deals ------------------------------------------------------------------


@settings(max_examples=60 * SCALE, deadline=None)
@given(orders(), st.integers(0, 2**32 - 1))
def test_random_hands_every_generated_play_is_legal_and_points_add_up(
    order: Order, seed: int
) -> None:
    rng = random.Random(seed)
    hands, kitty = deal(order.rules, rng).faces()
    leader = rng.randrange(4)
    tricks = random_playout(order, hands, leader, rng)
    judged = judge_hand(order, hands, leader, tricks)
    assert judged.faults == []
    assert sum(len(t[0]) for t in tricks) == order.rules.hand_size
    assert sum(judged.side_points) + sum(POINTS[f] for f in kitty) == 100 * order.rules.decks
    deck = [f for h in hands for f in h] + kitty
    assert sum(POINTS[f] for f in deck) == 100 * order.rules.decks


@settings(max_examples=120 * SCALE, deadline=None)
@given(orders(st.integers(2, 4)), st.integers(0, 2**32 - 1))
def test_a_legal_follow_always_exists_and_generated_follows_are_legal(
    order: Order, seed: int
) -> None:
    rng = random.Random(seed)
    hands, _ = deal(order.rules, rng).faces()
    hand = counts(hands[1])
    # a structured lead from seat 0: a random one-suit handful of its cards
    es = order.esuit[rng.choice(hands[0])]
    suit_cards = [f for f in hands[0] if order.esuit[f] == es]
    lead = rng.sample(suit_cards, rng.randint(1, min(8, len(suit_cards))))
    follows = legal_follows(order, lead, hand)
    assert follows
    first = follows.first()
    assert first is not None and first in follows
    for play in itertools.islice(follows, 40):
        assert len(play) == len(lead)
        assert check_follow_counts(order, Lead(order, lead), hand, play).legal


# --- oracle 1: §6.2's match vector, by brute force ------------------------------------


def _runs(order: Order, es: int, cnt: Counter[int]) -> list[tuple[int, ...]]:
    """Every run of pairs (length >= 2) the cards allow, as faces."""
    out = []
    cols = [[f for f in fs if cnt[f] >= 2] for fs in order.faces_at[es]]
    for lo in range(len(cols)):
        for hi in range(lo + 1, len(cols)):
            if all(cols[lo : hi + 1]):
                out.extend(itertools.product(*cols[lo : hi + 1]))
    return out


def _packable(lengths: list[int], caps: list[int]) -> bool:
    if not lengths:
        return True
    first, rest = lengths[0], lengths[1:]
    for i, c in enumerate(caps):
        if c >= first and _packable(rest, caps[:i] + [c - first] + caps[i + 1 :]):
            return True
    return False


def _t(order: Order, es: int, cnt: Counter[int], caps: list[int]) -> int:
    runs = _runs(order, es, cnt)
    best = 0

    def rec(i: int, left: Counter[int], chosen: list[int]) -> None:
        nonlocal best
        if sum(chosen) > best and _packable(sorted(chosen, reverse=True), caps):
            best = sum(chosen)
        for j in range(i, len(runs)):
            run = runs[j]
            if all(left[f] >= 2 for f in run):
                nxt = left.copy()
                for f in run:
                    nxt[f] -= 2
                rec(j + 1, nxt, chosen + [len(run)])

    rec(0, cnt, [])
    return best


def _vector(order: Order, d: object, es: int, cards: list[int]) -> tuple[int, int]:
    cnt = Counter(cards)
    caps = [u.length for u in d.units if u.width == 2 and u.length > 1]  # type: ignore[attr-defined]
    pairs_d = d.pairs  # type: ignore[attr-defined]
    return (_t(order, es, cnt, caps), min(pairs_d, sum(c // 2 for c in cnt.values())))


@st.composite
def pair_leads(draw: st.DrawFn) -> tuple[Order, list[int], list[int], list[int]]:
    """A lead of pairs/tractors/singles in one suit, a follower's holding in
    that suit (plus an off-suit card) and a play drawn from it."""
    drawn = draw(orders(st.just(2)))
    order = Order(drawn.rules.replace(same_shape_only=False), drawn.level, drawn.trump)
    es = draw(st.sampled_from([0, 1, 2, 3, TRUMP]))
    if order.trump is not None and es == order.trump:
        es = TRUMP
    columns = order.faces_at[es]
    lo = draw(st.integers(0, max(0, len(columns) - 6)))
    window = columns[lo : lo + 6]  # a few adjacent positions: runs are likely

    def cards(max_cards: int) -> list[int]:
        out: list[int] = []
        for fs in window:
            for face in fs:
                out.extend([face] * draw(st.sampled_from([0, 0, 1, 2, 2])))
        return out[:max_cards]

    lead = cards(8) or [window[0][0]]
    holding = cards(12) or [window[-1][0]]
    n = len(lead)
    off = [f for f in range(54) if order.esuit[f] != es][:n]
    hand = holding + off
    take = min(n, len(holding))
    rnd = random.Random(draw(st.integers(0, 10**6)))
    # mostly plays that follow suit as far as they can (the interesting ones)
    how = draw(st.integers(0, 2))
    if how == 2:
        # the engine's own first legal follow: the oracle must agree it is legal
        first = legal_follows(order, lead, hand).first()
        assert first is not None
        play = list(first)
    elif how == 1 or take == len(holding):
        play = rnd.sample(holding, take) + off[: n - take]
    else:
        play = rnd.sample(holding, take - 1) + off[: n - take + 1]
    return order, lead, hand, play


@settings(max_examples=400 * SCALE, deadline=None)
@given(pair_leads())
def test_follow_check_agrees_with_brute_force_match_vectors(
    data: tuple[Order, list[int], list[int], list[int]],
) -> None:
    order, lead, hand, play = data
    d = decompose(order, lead)
    assert d is not None
    es = d.esuit
    if d.max_width > 2 or len(play) != len(lead):
        return
    holding = [f for f in hand if order.esuit[f] == es]
    n = len(lead)
    got = check_follow_counts(order, Lead(order, lead), counts(hand), play).legal
    if len(holding) <= n:
        expect = sum(1 for f in play if order.esuit[f] == es) == len(holding)
    else:
        # docs/rules.md §6.2 literally: no selection X of n suit cards has a better vector
        best = max(
            _vector(order, d, es, list(x)) for x in set(itertools.combinations(sorted(holding), n))
        )
        in_suit = [f for f in play if order.esuit[f] == es]
        expect = len(in_suit) == n and _vector(order, d, es, in_suit) == best
    assert got == expect


# --- oracle 2: §7's matching and key, by brute force over orderings -----------------


def _brute_key(order: Order, d: object, play: list[int]) -> int | None:
    units = d.units  # type: ignore[attr-defined]
    top_shape = units[0].shape
    best: int | None = None
    for perm in set(itertools.permutations(play)):
        i = 0
        key = -1
        ok = True
        for u in units:
            chunk = perm[i : i + u.size]
            i += u.size
            c = Counter(chunk)
            if len(c) != u.length or any(v != u.width for v in c.values()):
                ok = False
                break
            pos = sorted(order.pos[f] for f in c)
            if pos != list(range(pos[0], pos[0] + u.length)):
                ok = False
                break
            if u.shape == top_shape:
                key = max(key, pos[-1])
        if ok and (best is None or key > best):
            best = key
    return best


@settings(max_examples=300 * SCALE, deadline=None)
@given(orders(st.integers(2, 3)), st.integers(0, 2**32 - 1))
def test_trick_winner_agrees_with_brute_force_matching(order: Order, seed: int) -> None:
    rng = random.Random(seed)
    decks = order.rules.decks
    # a lead and a candidate play of up to 6 cards, each of one effective suit
    es = rng.choice([0, 1, 2, 3, TRUMP])
    if not order.suit_faces[es]:
        return

    def window_cards(suit: int, size: int) -> list[int]:
        """Up to ``size`` cards from a few adjacent positions: sets and runs are likely."""
        cols = order.faces_at[suit]
        lo = rng.randrange(max(1, len(cols) - 3))
        out: list[int] = []
        for fs in cols[lo : lo + 4]:
            face = rng.choice(fs)
            out.extend([face] * rng.randint(0, decks))
        rng.shuffle(out)
        return out[:size]

    lead = window_cards(es, 6) or [order.suit_faces[es][-1]]
    other = rng.choice([es, TRUMP])
    cols = order.faces_at[other]
    if rng.random() < 0.5:
        # the lead's shape moved to another place of suit ``other``: often a match
        shift = rng.randrange(len(cols))
        base = min(order.pos[f] for f in lead)
        play = []
        for face, c in Counter(lead).items():
            p = (order.pos[face] - base + shift) % len(cols)
            play.extend([cols[p][0]] * c)
        play = [f for f, c in Counter(play).items() for _ in range(min(c, decks))]
    else:
        play = window_cards(other, len(lead))
    if len(play) != len(lead):
        return
    d = decompose(order, lead)
    assert d is not None
    assert _brute_key(order, d, lead) is not None  # a lead matches itself
    # two more plays: a single face repeated (matches only a lead of one set)
    filler = [order.suit_faces[es][0]] * len(lead)
    plays = [lead, play, filler, filler]
    if len(lead) > decks:
        plays = [lead, play, play, play]
    keys = []
    for p in plays:
        k = _brute_key(order, d, p)
        keys.append(None if k is None else (order.esuit[p[0]] == TRUMP, k))
    winner = 0
    for i in range(1, 4):
        k = keys[i]
        w = keys[winner]
        assert w is not None
        if k is not None and k > w:
            winner = i
    result = trick_winner_faces(order, Lead(order, lead), plays, 0)
    event(
        f"lead {'+'.join(d.codes) if len(d.units) < 4 else 'many'}; play matches: {keys[1] is not None}"
    )
    assert result.winner == winner
    assert result.key == keys[winner]


# --- oracle 3: §6.3's ladders for a led triple or Titanic of two, by brute force -------


def _adjacent(order: Order, es: int, cnt: Counter[int], width: int) -> bool:
    """Two adjacent positions each holding a set of ``width`` (carving allowed)."""
    cols = [any(cnt[f] >= width for f in fs) for fs in order.faces_at[es]]
    return any(a and b for a, b in itertools.pairwise(cols))


def _rung(order: Order, es: int, lead_shape: tuple[int, int], cards: list[int]) -> int:
    """Index of the first entry of docs/rules.md's list that ``cards`` allow."""
    cnt = Counter(cards)
    triples = sum(1 for c in cnt.values() if c >= 3)
    pairs = sum(c // 2 for c in cnt.values())
    if lead_shape == (3, 1):
        checks = [triples >= 1, pairs >= 1]
    else:
        pair_faces = [f for f, c in cnt.items() if c >= 2]
        checks = [
            _adjacent(order, es, cnt, 3),  # a Titanic
            triples >= 2,  # two triples
            _adjacent(order, es, cnt, 2),  # a tractor of two pairs
            any(cnt[t] >= 3 and any(p != t for p in pair_faces) for t in cnt),  # triple + pair
            triples >= 1,  # a triple
            pairs >= 2,  # two pairs
            pairs >= 1,  # one pair
        ]
    return next((i for i, ok in enumerate(checks) if ok), len(checks))


@st.composite
def ladder_cases(draw: st.DrawFn) -> tuple[Order, list[int], list[int], list[int]]:
    decks = draw(st.integers(3, 4))
    order = Order(
        Rules(decks=decks), Rank(draw(st.integers(0, 12))), draw(st.sampled_from([None, *Suit]))
    )
    es = draw(st.sampled_from([0, 1, 2, 3, TRUMP]))
    if order.trump is not None and es == order.trump:
        es = TRUMP
    columns = order.faces_at[es]
    lo = draw(st.integers(0, max(0, len(columns) - 5)))
    window = columns[lo : lo + 5]
    lead_col = draw(st.integers(0, len(window) - 2))
    titanic = draw(st.booleans())
    lead = [window[lead_col][0]] * 3 + ([window[lead_col + 1][0]] * 3 if titanic else [])
    holding: list[int] = []
    for fs in window:
        for face in fs:
            holding.extend([face] * draw(st.integers(0, decks)))
    holding = holding[:10] or [window[0][0]]
    n = len(lead)
    off = [f for f in range(54) if order.esuit[f] != es][:n]
    hand = holding + off
    rnd = random.Random(draw(st.integers(0, 10**6)))
    take = min(n, len(holding))
    if draw(st.booleans()):
        first = legal_follows(order, lead, hand).first()
        assert first is not None
        play = list(first)
    else:
        play = rnd.sample(holding, take) + off[: n - take]
    return order, lead, hand, play


@settings(max_examples=300 * SCALE, deadline=None)
@given(ladder_cases())
def test_ladder_follows_agree_with_brute_force(
    data: tuple[Order, list[int], list[int], list[int]],
) -> None:
    order, lead, hand, play = data
    d = decompose(order, lead)
    assert d is not None and len(d.units) == 1
    es = d.esuit
    n = len(lead)
    holding = [f for f in hand if order.esuit[f] == es]
    got = check_follow_counts(order, Lead(order, lead), counts(hand), play).legal
    if len(holding) <= n:
        expect = sum(1 for f in play if order.esuit[f] == es) == len(holding)
    else:
        best = min(
            _rung(order, es, d.top_shape, list(x))
            for x in set(itertools.combinations(sorted(holding), n))
        )
        in_suit = [f for f in play if order.esuit[f] == es]
        expect = len(in_suit) == n and _rung(order, es, d.top_shape, in_suit) == best
    assert got == expect
