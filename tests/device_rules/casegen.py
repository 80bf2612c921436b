"""Random conformance cases (docs/rules.md §13) of every kind, for comparing the
device engine's judge with the full engine's. Inputs only: the answers come
from the engines. CPython only."""

from __future__ import annotations

import random
from typing import Any

RANKS = "23456789TJQKA"
SUITS = "SHDC"
NAMES = [r + s for s in SUITS for r in RANKS] + ["SJ", "BJ"]


def _rules(rng: random.Random) -> dict[str, Any]:
    decks = rng.choice((1, 2, 2, 2, 3, 4))
    rules: dict[str, Any] = {
        "decks": decks,
        "level": rng.choice(RANKS),
        "trump": rng.choice(("S", "H", "D", "C", "NT")),
    }
    if rng.random() < 0.3:
        rules["permanent_twos"] = True
    if rng.random() < 0.15:
        rules["same_shape_only"] = True
    return rules


def _pool(decks: int) -> list[str]:
    return [n for n in NAMES for _ in range(decks)]


def _suit_of(name: str, rules: dict[str, Any]) -> str:
    """The effective suit (for biasing the draws; the engines decide)."""
    if name in ("SJ", "BJ"):
        return "trump"
    r, s = name[0], name[1]
    if r == rules["level"] or s == rules["trump"] or (rules.get("permanent_twos") and r == "2"):
        return "trump"
    return s


def _suit_cards(pool: list[str], rules: dict[str, Any], suit: str) -> list[str]:
    return [c for c in pool if _suit_of(c, rules) == suit]


def _structured(rng: random.Random, cards: list[str], n: int) -> list[str]:
    """n cards of a suit, favouring sets and neighbours (pairs, tractors)."""
    cards = sorted(cards, key=lambda c: (NAMES.index(c)))
    if not cards:
        return []
    out: list[str] = []
    left = list(cards)
    while len(out) < n and left:
        i = rng.randrange(len(left))
        face = left[i]
        same = [c for c in left if c == face]
        take = min(len(same), n - len(out), rng.choice((1, 2, 2, 3)))
        for _ in range(take):
            out.append(face)
            left.remove(face)
    return out


def random_case(rng: random.Random, kind: str, i: int) -> dict[str, Any]:
    rules = _rules(rng)
    decks = rules["decks"]
    pool = _pool(decks)
    rng.shuffle(pool)
    case: dict[str, Any] = {"id": f"{kind}-{i}", "rules": rules, "kind": kind}
    suits = ["S", "H", "D", "C", "trump"]
    if kind == "compare":
        case["a"], case["b"] = pool[0], pool[1]
    elif kind == "shape":
        s = rng.choice(suits)
        cards = _structured(rng, _suit_cards(pool, rules, s), rng.randint(1, 9))
        if rng.random() < 0.1:
            cards.append(pool[0])
        case["cards"] = " ".join(cards) or pool[0]
    elif kind in ("follow", "throw", "trick"):
        s = rng.choice(suits)
        suit = _suit_cards(pool, rules, s)
        lead = _structured(rng, suit, rng.randint(1, 6 if kind != "throw" else 8)) or [pool[0]]
        rest = list(pool)
        for c in lead:
            rest.remove(c)
        if kind == "follow":
            n = len(lead)
            mine = _structured(rng, _suit_cards(rest, rules, s), rng.randint(0, n + 5))
            for c in mine:
                rest.remove(c)
            mine += rest[: rng.randint(max(0, n - len(mine)), n + 2)]
            play = list(mine)
            rng.shuffle(play)
            in_suit = [c for c in mine if _suit_of(c, rules) == s]
            if in_suit and rng.random() < 0.6:
                # a play that follows suit as far as it can, structured or not
                take = min(n, len(in_suit))
                play = _structured(rng, in_suit, take)
                others = [c for c in mine if c not in play] if len(play) < n else []
                play += others[: n - len(play)]
            play = play[:n]
            case.update(lead=" ".join(lead), hand=" ".join(mine), play=" ".join(play))
        elif kind == "throw":
            hands = []
            for _ in range(3):
                k = rng.randint(0, 10)
                h = _structured(rng, _suit_cards(rest, rules, s), k // 2) + rest[: k // 2]
                for c in h:
                    if c in rest:
                        rest.remove(c)
                hands.append(" ".join(h))
            leader = rng.randrange(4)
            hands.insert(leader, " ".join(lead + rest[:2]))
            case.update(leader=leader, lead=" ".join(lead), hands=hands)
        else:
            n = len(lead)
            plays = [" ".join(lead)]
            for _ in range(3):
                s2 = s if rng.random() < 0.6 else rng.choice(suits)
                cand = _structured(rng, _suit_cards(rest, rules, s2), n)
                if len(cand) < n:
                    cand += [c for c in rest if c not in cand][: n - len(cand)]
                for c in cand:
                    rest.remove(c)
                plays.append(" ".join(cand))
            case.update(leader=rng.randrange(4), plays=plays)
    elif kind == "kitty":
        s = rng.choice(suits)
        lead = _structured(rng, _suit_cards(pool, rules, s), rng.randint(1, 6)) or [pool[0]]
        rest = [c for c in pool]
        for c in lead:
            rest.remove(c)
        case.update(
            lead=" ".join(lead),
            winner_play=" ".join(rest[: len(lead)]),
            kitty=" ".join(rest[len(lead) : len(lead) + rng.choice((6, 8))]),
        )
        rules["kitty_multiplier"] = rng.choice(("structure", "linear", "cards"))
        rules["kitty_requires_trump"] = rng.random() < 0.3
    elif kind == "settle":
        table = rng.choice(("classic", "lianzhong", "qq", "tournament", "onedeck", "xuwen"))
        rules["decks"] = {"onedeck": 1, "tournament": 2, "xuwen": 4}.get(table, decks)
        rules["level_table"] = table
        ladder = "tournament" if rng.random() < 0.3 else "full"
        rules["level_ladder"] = ladder
        rungs = "25TJQKA" if ladder == "tournament" else RANKS
        if rng.random() < 0.3:
            rules["must_play"] = rng.sample(list(rungs), 2)
        per_seat = rng.random() < 0.2
        case.update(
            score=rng.randrange(0, 100 * rules["decks"] + 60, 5),
            dealer=rng.randrange(4),
            levels=[rng.choice(rungs) for _ in range(4 if per_seat else 2)],
        )
        if rng.random() < 0.3:
            case["kitty_j"] = True
    elif kind == "declare":
        level = rules["level"]
        bids = []
        for _ in range(rng.randint(0, 5)):
            what = rng.choice(("L", "L", "SJ", "BJ", "junk"))
            n = rng.randint(1, min(decks, 3) + (1 if rng.random() < 0.1 else 0))
            if what == "L":
                cards = [level + rng.choice(SUITS)] * n
            elif what == "junk":
                cards = [rng.choice(NAMES) for _ in range(n)]
            else:
                cards = [what] * n
            bids.append({"seat": rng.randrange(4), "cards": " ".join(cards)})
        first = rng.random() < 0.4
        case.update(first_hand=first, dealer=None if first else rng.randrange(4), bids=bids)
        if rng.random() < 0.3:
            rules["no_bid"] = "kitty"
            case["kitty"] = " ".join(pool[:8])
        if rng.random() < 0.3:
            rules["first_dealer"] = "final"
        if rng.random() < 0.3:
            rules["allow_self_override"] = False
    return case


KINDS = ("compare", "shape", "follow", "throw", "trick", "kitty", "settle", "declare")


def random_cases(n: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    return [random_case(rng, KINDS[i % len(KINDS)], i) for i in range(n)]
