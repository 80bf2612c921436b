"""Adversarial inputs for the rules checks: a search for the slowest ones.

The differential fuzzer (:mod:`tractor_table.difffuzz`) judges what the bots
play, and bots never reach the hard inputs: a long throw of tractors and
triples followed from a hand full of pairs, with several faces at one position.
This module searches for them. A *case* is a conformance case (docs/rules.md §13,
plain JSON) of one of the checks the table makes:

- ``follow``: a follower's play against a lead, given the follower's hand
  (the device's ``check_follow``; the full engine's ``Lead`` + ``check_follow_counts``);
- ``throw``: a lead checked against the other three hands (``check_lead`` with
  the hands known; ``check_throw``); a *challenge* is the same check with one
  hand holding only the unit shown;
- ``trick``: a trick's four plays (``trick_winner``).

The search starts from random cases of every *family* (a check and a shape:
tractors, triples and Titanics, quads, long throws of mixed units, off-suit
level cards at one position, ``permanent_twos``, NT, ``same_shape_only``; 1-4
decks) and hill-climbs: each round the worst cases of each family are mutated
(a card added to or taken from the hand or the lead, a card moved to the next
position, the play re-drawn) and the worst survive. The cost of a case is one of

- ``device``: the device engine's time under MicroPython's unix port
  (``sim/engine/mpy/adversary_mp.py``, one process for the whole search; each
  check called R times, the median kept; a check slower than the cap is timed
  once);
- ``host``: the full engine's time (median of R calls, its caches cleared
  before each call: an input is judged cold);
- ``work``: a deterministic work counter: the number of Python function calls
  and generator steps the full engine makes for the check (``sys.setprofile``,
  caches cleared), the same on every run and machine; the seeded sample that
  ``make test`` runs uses it, so it finds the same cases every time.

Every case evaluated is judged by both engines; the answers (a follow's verdict
and reason, a throw's outcome and forced unit, a trick's winner and points)
must agree. A failed throw's forced unit agrees when it is the same cards or an
equally weak unit (docs/rules.md §5.2: either is the
weakest). A disagreement is written as a replayable case file
(``tractor-table fuzz-rules --replay FILE``). The worst cases are kept as
regression data (``tests/device_rules/data/adversarial.jsonl``).
"""

from __future__ import annotations

import functools
import gc
import json
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from shengji import play as _play
from shengji.cards import FACES, format_faces, parse_faces
from shengji.conformance import CaseError, case_order
from shengji.order import TRUMP, Order
from shengji.play import Lead, check_follow_counts, check_throw, counts, trick_winner_faces
from shengji.units import decompose_faces

from .errors import CommandError
from .paths import FIRMWARE_DIR
from .sim.engine import EngineProcess

#: The full engine's code: what the work counter counts.
_ENGINE_DIR = str(Path(_play.__file__).resolve().parent)

#: Heap of the device process (JSON parsing of the cases needs the room).
HEAP = "4M"

#: Cost kinds (see the module docs).
COSTS = ("device", "host", "work")

LEVELS = "23456789TJQKA"
TRUMPS = ("S", "H", "D", "C", "NT")

#: The issue's example (docs/performance.md): 4 decks, level 7, trump S.
ISSUE_CASE: dict[str, Any] = {
    "id": "issue-12",
    "kind": "follow",
    "family": "issue-12",
    "rules": {"decks": 4, "level": "7", "trump": "S"},
    "lead": "7S 7S 7S 9S 9S 9S JS JS QS QS KS KS KS AS AS AS 7D 7D 7D 7C 7C 7C",
    "hand": "2S 2S 3S 3S 4S 4S 4S 4S 6S 6S 7S 8S 8S 9S TS TS JS JS QS QS KS AS 7D 7C SJ SJ BJ",
    "play": "SJ 2S 9S 7C 3S 7S 6S 4S AS 6S 8S SJ JS 4S 4S 2S QS TS 7D 8S 3S QS",
}


@dataclass(frozen=True)
class Family:
    """A region of the search: a check, the decks, the widths of the led
    units, how many units and how long their runs, and the options."""

    name: str
    kind: str  # follow | throw | challenge | trick
    decks: tuple[int, ...]
    widths: tuple[int, ...]
    units: tuple[int, int]  # how many runs the lead is built from (min, max)
    length: tuple[int, int]  # run length (min, max)
    singles: tuple[int, int] = (0, 2)
    trump_lead: float = 0.5  # chance that the lead is of trump
    nt: float = 0.2  # chance of no trump
    permanent_twos: float = 0.0
    same_shape_only: float = 0.0
    level_lead: bool = False  # lead the level cards' position (several faces at one position)
    #: built as a near miss (:func:`near_miss_case`): a long trump throw of
    #: interleaved pair tractors, triples and singles against a hand that holds
    #: a near miss of every led unit; ``lead_cards`` and ``hand_cards`` its sizes
    near_miss: bool = False
    lead_cards: tuple[int, int] = (27, 28)
    hand_cards: tuple[int, int] = (44, 46)
    friend: float = 0.0  # chance of find-a-friend (partners "called")


FAMILIES: tuple[Family, ...] = (
    Family("follow tractors (2 decks)", "follow", (2,), (2,), (1, 4), (2, 6)),
    Family("follow long throw of pairs (1-2 decks)", "follow", (1, 2), (2, 1), (3, 6), (1, 3), (0, 4)),
    Family("follow triples, Titanics (3 decks)", "follow", (3,), (3, 2), (1, 4), (1, 4)),
    Family("follow quads (4 decks)", "follow", (4,), (4, 3, 2), (1, 4), (1, 3)),
    Family("follow long throw (4 decks)", "follow", (4,), (3, 2, 3), (3, 7), (1, 3), (0, 3)),
    Family("follow level cards at one position", "follow", (3, 4), (3, 2), (2, 5), (1, 3), (0, 2), 1.0, 0.0, level_lead=True),
    Family("follow permanent_twos", "follow", (2, 3, 4), (3, 2), (2, 5), (1, 3), (0, 2), 1.0, 0.0, permanent_twos=1.0),
    Family("follow NT", "follow", (3, 4), (3, 2), (2, 5), (1, 3), (0, 2), 0.6, 1.0),
    Family("follow same_shape_only", "follow", (3, 4), (4, 3, 2), (2, 5), (1, 3), (0, 2), same_shape_only=1.0),
    # near misses (issue 21): what the sweep finds hardest, built first, then climbed
    Family("follow near miss (4 decks)", "follow", (4,), (2, 3), (1, 4), (2, 4), (2, 4), 1.0, 0.0, near_miss=True),
    Family(
        "follow near miss, find-a-friend, permanent_twos", "follow", (4,), (2, 3), (1, 4), (2, 4), (2, 4), 1.0, 0.0,
        permanent_twos=1.0, near_miss=True, friend=1.0,
    ),
    Family(
        "follow near miss, permanent_twos", "follow", (4,), (2, 3), (1, 4), (2, 4), (2, 4), 1.0, 0.0,
        permanent_twos=1.0, near_miss=True,
    ),
    Family(
        "follow near miss, same_shape_only", "follow", (4,), (2, 3), (1, 4), (2, 4), (2, 4), 1.0, 0.0,
        same_shape_only=1.0, near_miss=True,
    ),
    Family("throw against the hands (3-4 decks)", "throw", (3, 4), (3, 2), (3, 6), (1, 3), (0, 3)),
    Family("throw against the hands (1-2 decks)", "throw", (1, 2), (2, 1), (3, 6), (1, 3), (0, 3)),
    Family("challenge (one unit shown)", "challenge", (2, 3, 4), (3, 2), (2, 5), (1, 3), (0, 2)),
    Family("trick (4 plays)", "trick", (2, 3, 4), (3, 2), (1, 5), (1, 3), (0, 3)),
)


# --- cases --------------------------------------------------------------------


def _hand_size(decks: int) -> int:
    return {1: 12, 2: 25, 3: 39, 4: 52}[decks] + {1: 6, 2: 8, 3: 6, 4: 8}[decks]


def _order(case: dict[str, Any]) -> Order:
    return case_order(case)


def _faces(text: str) -> list[int]:
    return parse_faces(text)


def _text(faces: Iterable[int]) -> str:
    return format_faces(sorted(faces))


def _cnt(faces: Iterable[int]) -> list[int]:
    out = [0] * FACES
    for f in faces:
        out[f] += 1
    return out


def _multiset(cnt: Sequence[int]) -> list[int]:
    return [f for f in range(FACES) for _ in range(cnt[f])]


def _rules(fam: Family, rng: random.Random) -> dict[str, Any]:
    decks = rng.choice(fam.decks)
    rules: dict[str, Any] = {
        "decks": decks,
        "level": rng.choice(LEVELS),
        "trump": "NT" if rng.random() < fam.nt else rng.choice(TRUMPS[:4]),
    }
    if rng.random() < fam.permanent_twos:
        rules["permanent_twos"] = True
        if rules["level"] == "2":
            rules["level"] = rng.choice(LEVELS[1:])
    if rng.random() < fam.same_shape_only:
        rules["same_shape_only"] = True
    if rng.random() < fam.friend:
        rules["partners"] = "called"
    return rules


def _put(cnt: list[int], room: Sequence[int], cols: Sequence[Sequence[int]], p: int, m: int, rng: random.Random) -> bool:
    """m copies of a face at position p that has room for them (room[f]: how many
    the decks allow besides what is counted elsewhere), at random among the
    position's faces; False if none has."""
    fs = [f for f in cols[p] if room[f] - cnt[f] >= m]
    if not fs:
        return False
    cnt[rng.choice(fs)] += m
    return True


def near_miss_case(fam: Family, rng: random.Random, limit: int = 0) -> dict[str, Any] | None:
    """A follow built as a near miss (issue 21's shape, the sweep's hardest):
    a long trump throw (``fam.lead_cards``) of pair tractors laid over each
    other's positions, one of them running up through the level and joker
    columns, with triples (at least one whenever 3 or more decks leave a face
    free) and singles; against a hand of ``fam.hand_cards``
    holding, for every led unit, one that almost matches it: at the same or a
    neighbouring position, as wide or one narrower, as long or one shorter, and
    a led pair's faces now and then as a quad (which can be cut into two pairs).
    None when the decks leave no room for the shape."""
    rules = _rules(fam, rng)
    decks = rules["decks"]
    case: dict[str, Any] = {"kind": "follow", "family": fam.name, "rules": rules}
    order = _order(case)
    es = TRUMP if order.faces_at[TRUMP] else 0
    cols = order.faces_at[es]
    npos = len(cols)
    full = [decks] * FACES
    want = rng.randint(*fam.lead_cards)
    if limit:
        want = min(want, limit)
    lead = [0] * FACES
    # one pair tractor up through the top columns (level cards, jokers)
    k = min(npos, rng.randint(3, 5))
    for p in range(npos - k, npos):
        _put(lead, full, cols, p, 2, rng)
    # pair tractors laid over each other: each starts inside the one before;
    # they leave room for a triple when the decks have one (issue 21's shape
    # always has triples)
    keep = 3 if decks >= 3 else 0
    guard = 0
    start = rng.randrange(max(1, npos - 6))
    while sum(lead) < want - 8 and guard < 50:
        guard += 1
        k = rng.randint(*fam.length)
        start = max(0, min(npos - k, start + rng.randint(-1, 2)))
        for p in range(start, start + k):
            if sum(lead) + 2 > want - keep:
                break
            _put(lead, [min(decks, 2 + lead[f]) if lead[f] == 0 else 0 for f in range(FACES)], cols, p, 2, rng)
    # triples, then singles, to the size wanted
    free = [decks if lead[f] == 0 else 0 for f in range(FACES)]
    for _ in range(rng.randint(1, 3)):
        if sum(lead) + 3 <= want:
            _put(lead, free, cols, rng.randrange(npos), 3, rng)
            free = [decks if lead[f] == 0 else 0 for f in range(FACES)]
    if keep and not any(c >= 3 for c in lead):
        # none of the random positions had a face free: one at a position that has
        ps = [p for p in range(npos) if any(free[f] >= 3 for f in cols[p])]
        if ps and sum(lead) + 3 <= want:
            _put(lead, free, cols, rng.choice(ps), 3, rng)
    guard = 0
    while sum(lead) < want and guard < 200:
        guard += 1
        _put(lead, [decks if lead[f] == 0 else 0 for f in range(FACES)], cols, rng.randrange(npos), 1, rng)
    n = sum(lead)
    dec = decompose_faces(order, _multiset(lead))
    if dec is None or n < 4:
        return None
    room = [decks - lead[f] for f in range(FACES)]
    hand = [0] * FACES
    size = rng.randint(*fam.hand_cards)
    size = max(size, n)
    # a near miss of every led unit (sets and runs of width >= 2)
    for u in dec.units:
        if u.width < 2:
            continue
        m = u.width if rng.random() < 0.5 else max(2, u.width - 1)
        kk = u.length if rng.random() < 0.5 else max(1, u.length - 1)
        top = max(kk - 1, min(npos - 1, u.top + rng.choice((-1, 0, 0, 1))))
        for p in range(top - kk + 1, top + 1):
            w = 4 if m == 2 and decks >= 4 and rng.random() < 0.25 else m
            if not _put(hand, room, cols, p, w, rng) and w != m:
                _put(hand, room, cols, p, m, rng)
        if sum(hand) >= size:
            break
    # the rest: trump pairs and singles, then other suits' cards
    guard = 0
    while sum(hand) < size and guard < 400:
        guard += 1
        w = 2 if rng.random() < 0.5 else 1
        if guard > 200:
            f = rng.randrange(FACES)
            if room[f] - hand[f] >= 1:
                hand[f] += 1
            continue
        _put(hand, room, cols, rng.randrange(npos), w, rng)
    while sum(hand) > size:
        hand[rng.choice([f for f in range(FACES) if hand[f]])] -= 1
    if sum(hand) < n or sum(hand) > _hand_size(decks):
        return None
    case.update(lead=_text(_multiset(lead)), hand=_text(_multiset(hand)))
    case["play"] = _text(_follow_play(order, es, hand, n, rng))
    return case


def _lead(fam: Family, order: Order, decks: int, rng: random.Random) -> tuple[int, list[int]]:
    """(effective suit, counts) of a random lead built from runs of sets."""
    suits = [s for s in range(5) if order.faces_at[s]]
    trump_ok = TRUMP in suits
    if trump_ok and rng.random() < fam.trump_lead:
        es = TRUMP
    else:
        es = rng.choice([s for s in suits if s != TRUMP] or suits)
    cols = order.faces_at[es]
    cnt = [0] * FACES
    for _ in range(rng.randint(*fam.units)):
        m = min(decks, rng.choice(fam.widths))
        k = min(len(cols), rng.randint(*fam.length))
        start = rng.randrange(len(cols) - k + 1)
        for p in range(start, start + k):
            f = rng.choice(cols[p])
            cnt[f] = min(decks, cnt[f] + m)
    if fam.level_lead and es == TRUMP:
        multi = [c for c in cols if len(c) > 1]
        for col in multi:
            for f in col:
                if rng.random() < 0.7:
                    cnt[f] = min(decks, cnt[f] + rng.randint(1, decks))
    for _ in range(rng.randint(*fam.singles)):
        f = rng.choice(rng.choice(cols))
        cnt[f] = min(decks, cnt[f] + 1)
    if not any(cnt):
        cnt[cols[0][0]] = 1
    return es, cnt


def _holding(
    order: Order, es: int, decks: int, room: Sequence[int], size: int, suit_share: float, rng: random.Random
) -> list[int]:
    """Counts of a random hand of ``size`` cards, ``suit_share`` of them of suit
    ``es``, in sets (pairs, triples) as often as singles; at most ``room[f]`` of a face."""
    cnt = [0] * FACES
    suit = list(order.suit_faces[es])
    other = [f for f in range(FACES) if order.esuit[f] != es]
    want_suit = min(int(size * suit_share), sum(room[f] for f in suit))
    n = 0
    guard = 0
    while n < want_suit and guard < 1000:
        guard += 1
        f = rng.choice(suit)
        k = min(room[f] - cnt[f], rng.choice((1, 2, 2, 3, decks)), want_suit - n)
        if k > 0:
            cnt[f] += k
            n += k
    guard = 0
    while n < size and guard < 1000:
        guard += 1
        f = rng.choice(other)
        if cnt[f] < room[f]:
            cnt[f] += 1
            n += 1
    return cnt


def _follow_play(order: Order, es: int, hand: Sequence[int], n: int, rng: random.Random) -> list[int]:
    """A follow of ``n`` cards from ``hand``: random suit cards, the widest
    sets first, or now and then an off-suit card among them."""
    suit = [f for f in order.suit_faces[es] for _ in range(hand[f])]
    other = [f for f in range(FACES) if order.esuit[f] != es for _ in range(hand[f])]
    r = rng.random()
    if r < 0.4 or len(suit) <= n:
        take = rng.sample(suit, min(n, len(suit)))
    elif r < 0.8:
        # structured: sets of the suit, widest first (with random ties), then singles
        faces = [f for f in order.suit_faces[es] if hand[f]]
        rng.shuffle(faces)
        faces.sort(key=lambda f: -hand[f])
        take = []
        for f in faces:
            k = min(hand[f], n - len(take), rng.randint(1, hand[f]))
            take += [f] * k
            if len(take) >= n:
                break
    else:
        take = rng.sample(suit, min(n - 1, len(suit)))
    rest = _cnt(suit + other)
    for f in take:
        rest[f] -= 1
    pool = _multiset(rest)
    if len(take) < n:
        # fill: suit cards first (the must-follow rule), then any
        left_suit = [f for f in pool if order.esuit[f] == es]
        extra = rng.sample(left_suit, min(n - len(take), len(left_suit)))
        take += extra
        for f in extra:
            pool.remove(f)
        if len(take) < n:
            take += rng.sample(pool, n - len(take))
    return take


def random_case(fam: Family, rng: random.Random, limit: int = 0) -> dict[str, Any]:
    """A random case of family ``fam``. ``limit`` (> 0) caps the lead's size."""
    for _ in range(100):
        if fam.near_miss:
            built = near_miss_case(fam, rng, limit)
            if built is not None and _valid(built, limit):
                return built
            continue
        rules = _rules(fam, rng)
        decks = rules["decks"]
        case: dict[str, Any] = {"kind": "follow" if fam.kind == "follow" else fam.kind, "family": fam.name, "rules": rules}
        if fam.kind == "challenge":
            case["kind"] = "throw"
        order = _order(case)
        es, lead = _lead(fam, order, decks, rng)
        while limit and sum(lead) > limit:  # the sample's cap: cards taken out at random
            lead[rng.choice([f for f in range(FACES) if lead[f]])] -= 1
        n = sum(lead)
        if fam.kind in ("throw", "challenge") and n < 2:
            continue
        hs = _hand_size(decks)
        if n > hs:
            continue
        room = [decks - lead[f] for f in range(FACES)]
        if fam.kind == "follow":
            size = rng.randint(n, max(n, min(hs, 3 * n)))
            hand = _holding(order, es, decks, room, size, rng.uniform(0.5, 1.0), rng)
            if sum(hand) < n:
                continue
            case.update(lead=_text(_multiset(lead)), hand=_text(_multiset(hand)))
            case["play"] = _text(_follow_play(order, es, hand, n, rng))
        elif fam.kind == "throw":
            hands = []
            for _s in range(3):
                h = _holding(order, es, decks, room, rng.randint(n, min(hs, 2 * n + 4)), rng.uniform(0.2, 0.8), rng)
                room = [room[f] - h[f] for f in range(FACES)]
                hands.append(_text(_multiset(h)))
            case.update(leader=0, lead=_text(_multiset(lead)), hands=["", *hands])
        elif fam.kind == "challenge":
            seat = rng.randrange(1, 4)
            shown = [0] * FACES
            col = order.faces_at[es]
            m = rng.randint(2, decks)
            k = rng.randint(1, min(3, len(col)))
            start = rng.randrange(len(col) - k + 1)
            for p in range(start, start + k):
                f = rng.choice(col[p])
                shown[f] = min(room[f], m)
            hands = ["", "", "", ""]
            hands[seat] = _text(_multiset(shown))
            case.update(leader=0, lead=_text(_multiset(lead)), hands=hands)
        else:  # trick
            plays = [_multiset(lead)]
            for _s in range(3):
                h = _holding(order, es, decks, room, min(hs, n + rng.randint(0, 6)), rng.uniform(0.3, 1.0), rng)
                if sum(h) < n:
                    break
                fp = _follow_play(order, es, h, n, rng)
                for f in fp:
                    room[f] -= 1
                plays.append(fp)
            if len(plays) != 4:
                continue
            case.update(leader=rng.randrange(4), plays=[_text(p) for p in plays])
        return case
    raise RuntimeError(f"no case for family {fam.name!r}")  # pragma: no cover


def _valid(case: dict[str, Any], limit: int = 0) -> bool:
    """Physically possible (no face more often than the decks), the play in the
    hand, one-suit lead, sizes right: then both engines must answer it."""
    try:
        order = _order(case)
    except (CaseError, ValueError):
        return False
    decks = order.rules.decks
    kind = case["kind"]
    if kind == "trick":
        plays = [_faces(p) for p in case["plays"]]
        lead = plays[0]
        every = [f for p in plays for f in p]
        if any(len(p) != len(lead) for p in plays):
            return False
    else:
        lead = _faces(case["lead"])
        if kind == "follow":
            hand = _faces(case["hand"])
            play = _faces(case["play"])
            if len(play) != len(lead) or any(c > h for c, h in zip(_cnt(play), _cnt(hand), strict=True)):
                return False
            if len(hand) > _hand_size(decks):
                return False
            every = lead + hand
        else:
            hands = [_faces(h) for h in case["hands"]]
            every = lead + [f for h in hands for f in h]
    if not lead or (limit and len(lead) > limit):
        return False
    if decompose_faces(order, lead) is None:
        return False
    return max(_cnt(every)) <= decks


def mutate(case: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A neighbour of ``case``: one card added, removed or moved to the next
    position (in the hand, the lead, another seat's hand or a play), or the
    follow re-drawn. May be invalid (``_valid`` tells)."""
    order = _order(case)
    out: dict[str, Any] = json.loads(json.dumps(case))
    out.pop("id", None)
    kind = case["kind"]
    if kind == "trick":
        plays = [_faces(p) for p in case["plays"]]
        es = order.esuit[plays[0][0]]
        i = rng.randrange(1, 4)
        j = rng.randrange(len(plays[i]))
        plays[i][j] = _neighbour(order, plays[i][j], rng, es)
        if rng.random() < 0.3:
            k = rng.randrange(len(plays[0]))
            plays[0][k] = _neighbour(order, plays[0][k], rng, es)
        out["plays"] = [_text(p) for p in plays]
        return out
    lead = _faces(case["lead"])
    es = order.esuit[lead[0]]
    what = rng.random()
    if kind == "follow":
        hand = _faces(case["hand"])
        play = _faces(case["play"])
        if what < 0.35:  # the hand
            op = rng.random()
            if op < 0.4 or len(hand) <= len(lead):
                hand.append(rng.choice(order.suit_faces[es]) if rng.random() < 0.8 else rng.randrange(FACES))
            elif op < 0.7:
                j = rng.randrange(len(hand))
                hand[j] = _neighbour(order, hand[j], rng, es)
            else:
                hand.pop(rng.randrange(len(hand)))
        elif what < 0.6:  # the lead
            op = rng.random()
            if op < 0.4:
                lead.append(rng.choice(order.suit_faces[es]))
            elif op < 0.7 or len(lead) < 2:
                j = rng.randrange(len(lead))
                lead[j] = _neighbour(order, lead[j], rng, es)
            else:
                lead.pop(rng.randrange(len(lead)))
        # the play: re-drawn from the hand, or one card swapped
        hc = _cnt(hand)
        if what >= 0.6 and rng.random() < 0.5 and len(play) == len(lead):
            j = rng.randrange(len(play))
            rest = hc[:]
            for f in play:
                rest[f] -= 1
            pool = [f for f in range(FACES) if rest[f] > 0]
            if pool:
                play[j] = rng.choice(pool)
        elif len(hand) >= len(lead):
            play = _follow_play(order, es, hc, len(lead), rng)
        out.update(lead=_text(lead), hand=_text(hand), play=_text(play))
        return out
    hands = [_faces(h) for h in case["hands"]]
    if what < 0.4:
        j = rng.randrange(len(lead))
        if rng.random() < 0.5:
            lead[j] = _neighbour(order, lead[j], rng, es)
        else:
            lead.append(lead[j])
    else:
        s = rng.choice([i for i in range(1, 4) if hands[i]] or [1])
        if hands[s] and rng.random() < 0.5:
            j = rng.randrange(len(hands[s]))
            hands[s][j] = _neighbour(order, hands[s][j], rng, es)
        elif case.get("family", "").startswith("challenge") and hands[s]:
            hands[s].append(rng.choice(hands[s]))
        else:
            hands[s].append(rng.choice(order.suit_faces[es]))
    out.update(lead=_text(lead), hands=[_text(h) for h in hands])
    return out


def _neighbour(order: Order, f: int, rng: random.Random, es: int) -> int:
    """A face of suit ``es`` at the position next to ``f``'s (or any of the suit)."""
    cols = order.faces_at[es]
    if order.esuit[f] != es:
        return rng.choice(order.suit_faces[es])
    p = next(i for i, c in enumerate(cols) if f in c)
    q = max(0, min(len(cols) - 1, p + rng.choice((-1, 1, 0))))
    return rng.choice(cols[q])


# --- the two engines ------------------------------------------------------------


def full_answer(case: dict[str, Any]) -> list[Any]:
    """The full engine's answer: [reason] of a follow; ["ok"] or
    ["throw_failed", forced cards] of a throw; [winner, points] of a trick."""
    order = _order(case)
    kind = case["kind"]
    if kind == "follow":
        lead = Lead(order, _faces(case["lead"]))
        v = check_follow_counts(order, lead, counts(_faces(case["hand"])), _faces(case["play"]))
        return ["ok" if v.reason is None else str(v.reason.value)]
    if kind == "throw":
        hands = [counts(_faces(h)) for h in case["hands"]]
        r = check_throw(order, int(case["leader"]), _faces(case["lead"]), hands)
        return ["ok"] if r.ok else ["throw_failed", _text(r.play)]
    if kind == "trick":
        plays = [_faces(p) for p in case["plays"]]
        res = trick_winner_faces(order, Lead(order, plays[0]), plays, int(case["leader"]))
        return [res.winner, res.points]
    raise CaseError(f"kind: {kind!r} is not follow, throw or trick")


def _check_fn(case: dict[str, Any]) -> Callable[[], object]:
    """The full engine's check of ``case``, inputs parsed beforehand."""
    order = _order(case)
    kind = case["kind"]
    if kind == "follow":
        lead_faces = _faces(case["lead"])
        hand = counts(_faces(case["hand"]))
        play = _faces(case["play"])
        return lambda: check_follow_counts(order, Lead(order, lead_faces), hand, play)
    if kind == "throw":
        hands = [counts(_faces(h)) for h in case["hands"]]
        lead = _faces(case["lead"])
        leader = int(case["leader"])
        return lambda: check_throw(order, leader, lead, hands)
    plays = [_faces(p) for p in case["plays"]]
    leader = int(case["leader"])
    return lambda: trick_winner_faces(order, Lead(order, plays[0]), plays, leader)


def clear_caches() -> None:
    """Empty the full engine's memo caches (``functools.lru_cache``): an input
    judged cold, as a new hand's would be."""
    for value in vars(_play).values():
        if isinstance(value, functools._lru_cache_wrapper):
            value.cache_clear()


def host_time(case: dict[str, Any], repeat: int = 5) -> float:
    """The full engine's time for the check, µs: the median of ``repeat``
    calls, its caches cleared before each."""
    fn = _check_fn(case)
    ts = []
    for _ in range(repeat):
        clear_caches()
        t0 = time.perf_counter_ns()
        fn()
        ts.append(time.perf_counter_ns() - t0)
    return statistics.median(ts) / 1000.0


def work(case: dict[str, Any]) -> int:
    """Deterministic work of the full engine's check: its Python calls and
    generator steps (``sys.setprofile`` "call" events of code in ``shengji``),
    caches cleared, the cyclic garbage collector held off (a finalizer it ran
    would count)."""
    fn = _check_fn(case)
    clear_caches()
    gc.collect()
    calls = 0

    def prof(frame: FrameType, event: str, _arg: object) -> None:
        nonlocal calls
        if event == "call" and frame.f_code.co_filename.startswith(_ENGINE_DIR):
            calls += 1

    was = gc.isenabled()
    gc.disable()
    sys.setprofile(prof)
    try:
        fn()
    finally:
        sys.setprofile(None)
        if was:
            gc.enable()
    return calls


def agree(case: dict[str, Any], full: list[Any], device: list[Any] | None) -> bool:
    """Do the answers agree? A failed throw's forced units agree when they are
    the same cards or equally weak (same shape, suit and strength: docs/rules.md §5.2)."""
    if device is None:
        return False
    if full == device:
        return True
    if full[:1] == ["throw_failed"] and device[:1] == ["throw_failed"] and len(device) == 2:
        order = _order(case)
        a = decompose_faces(order, _faces(str(full[1])))
        try:
            b = decompose_faces(order, _faces(str(device[1])))
        except ValueError:
            return False
        if a is None or b is None or len(a.units) != 1 or len(b.units) != 1:
            return False
        ua, ub = a.units[0], b.units[0]
        return (ua.shape, ua.esuit, ua.top) == (ub.shape, ub.esuit, ub.top)
    return False


def engine_methods(fw_dir: Path = FIRMWARE_DIR) -> tuple[list[str], list[str]]:
    """The device engine's methods (``firmware/drules*.py``'s classes) that
    time by kind must watch (``sim/engine/mpy/kindtime_mp.py``): the
    ``@micropython.native`` and ``@micropython.viper`` ones (machine code on
    the chip: both are charged the native factor), and the bytecode
    ones that native code calls (a stretch of bytecode inside a native call;
    bytecode called from bytecode is charged right without a watch)."""
    import ast

    native: list[str] = []
    calls: dict[str, set[str]] = {}
    methods: set[str] = set()
    for p in sorted(fw_dir.glob("drules*.py")):
        for cls in ast.parse(p.read_text(encoding="utf-8")).body:
            if not isinstance(cls, ast.ClassDef):
                continue
            for node in cls.body:
                if isinstance(node, ast.FunctionDef) and not node.name.startswith("__"):
                    methods.add(node.name)
                    if any(isinstance(d, ast.Attribute) and d.attr in ("native", "viper") for d in node.decorator_list):
                        native.append(node.name)
                    calls.setdefault(node.name, set()).update(
                        n.func.attr for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                    )
    inner = sorted({c for n in native for c in calls[n] if c in methods and c not in native})
    return native, inner


def device_checker(repeat: int = 5, cap_us: int = 0, heapsize: str = HEAP, by_kind: bool = False) -> EngineProcess:
    """The device engine in one MicroPython process (the "adversary" runner):
    ``ask(case)`` gives {"answer": [...], "us": median µs, "n": calls} or
    {"error": ...}; its death stops the search with a CommandError. ``by_kind``:
    each answer's time also split into native code and bytecode ("native_us":
    the native part of "us"; ``kindtime_mp.py``)."""
    args = [str(repeat), str(cap_us)]
    if by_kind:
        native, bytecode = engine_methods()
        args += [",".join(native), ",".join(bytecode)]
    return EngineProcess("adversary", args=args, heapsize=heapsize, drop=_NOT_FOR_DEVICE)


#: Fields of a stored case that are ours, not the runner's.
_NOT_FOR_DEVICE = ("family", "expect", "device", "device_us", "host_us", "work", "cost", "note")


# --- the search -----------------------------------------------------------------


@dataclass
class Scored:
    case: dict[str, Any]
    cost: float
    full: list[Any]
    device: list[Any] | None
    device_us: float | None
    host_us: float | None
    work: int | None

    def record(self) -> dict[str, Any]:
        """The case as plain data, with both engines' answers and its costs."""
        rec = dict(self.case)
        rec["expect"] = self.full
        rec["device"] = self.device
        for k in ("device_us", "host_us", "work"):
            v = getattr(self, k)
            if v is not None:
                rec[k] = round(v, 1) if isinstance(v, float) else v
        return rec


@dataclass
class SearchReport:
    evaluated: int = 0
    seconds: float = 0.0
    cost: str = "device"
    best: dict[str, list[Scored]] = field(default_factory=dict)
    #: cases slower on the device than the ceiling: reported, not climbed from
    beyond: list[Scored] = field(default_factory=list)
    disagreements: list[Scored] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)

    def worst(self) -> list[Scored]:
        """The worst case of each family, worst first."""
        out = [v[0] for v in self.best.values() if v]
        return sorted(out, key=lambda s: -s.cost)


def evaluate(
    case: dict[str, Any], dev: EngineProcess | None, cost: str, repeat: int = 5
) -> Scored:
    """Both engines' answers on ``case`` and its cost."""
    full = full_answer(case)
    device = dev_us = None
    if dev is not None:
        got = dev.ask(case)
        device = got.get("answer")
        dev_us = float(got["us"]) if "us" in got else None
        if device is None:
            device = [f"error: {got.get('error')}"]
    host_us = host_time(case, repeat) if cost == "host" else None
    w = work(case) if cost == "work" else None
    value = {"device": dev_us, "host": host_us, "work": w}[cost]
    return Scored(case, float(value or 0.0), full, device, dev_us, host_us, w)


def search(
    evaluations: int,
    seed: int = 0,
    cost: str = "device",
    keep: int = 3,
    families: Sequence[Family] = FAMILIES,
    repeat: int = 5,
    cap_us: int = 400_000,
    limit: int = 0,
    out_dir: Path | None = None,
    progress: Callable[[SearchReport], None] | None = None,
    ceiling_us: float = 2_000_000.0,
) -> SearchReport:
    """Hill-climb over ``evaluations`` cases (about as many per family),
    seeded; the ``keep`` worst of each family survive each round. Every case is
    judged by both engines (the device answers even when the cost is not its
    time). ``limit`` > 0 caps the lead's size (the quick sample). A case whose
    device check takes more than ``ceiling_us`` (unix port) is set apart in
    ``report.beyond`` and not mutated further: the search would otherwise climb
    into checks of minutes (the checks are exponential today: issue 12)."""
    if cost not in COSTS:
        raise CommandError(f"cost {cost!r}: give one of {', '.join(COSTS)}")
    rng = random.Random(seed)
    report = SearchReport(cost=cost)
    t0 = time.perf_counter()
    pop: dict[str, list[Scored]] = {f.name: [] for f in families}
    report.best = pop  # live: a progress callback sees the worst so far
    seen: set[str] = set()
    dev_repeat = repeat if cost == "device" else 1
    with device_checker(dev_repeat, cap_us if cost == "device" else 0) as dev:
        rnd = 0
        while report.evaluated < evaluations:
            for fam in families:
                if report.evaluated >= evaluations:
                    break
                cur = pop[fam.name]
                # a round: fresh cases first, then mutants of the worst (a fresh one now and then)
                if len(cur) < keep or rng.random() < 0.15:
                    cand = random_case(fam, rng, limit)
                else:
                    parent = cur[min(int(rng.expovariate(1.0)), len(cur) - 1)].case
                    cand = parent
                    for _ in range(1 + int(rng.expovariate(1.5))):
                        cand = mutate(cand, rng)
                    if not _valid(cand, limit):
                        continue
                key = json.dumps(cand, sort_keys=True)
                if key in seen:
                    continue
                seen.add(key)
                cand["id"] = f"adv-{seed}-{report.evaluated}"
                s = evaluate(cand, dev, cost, repeat)
                report.evaluated += 1
                if not agree(cand, s.full, s.device):
                    report.disagreements.append(s)
                    if out_dir is not None:
                        report.files.append(write_cases(out_dir / f"adversarial-disagreement-{seed}-{report.evaluated}.jsonl", [s]))
                if s.device_us is not None and s.device_us > ceiling_us:
                    report.beyond.append(s)
                    continue
                cur.append(s)
                cur.sort(key=lambda x: -x.cost)
                del cur[keep:]
            rnd += 1
            if progress is not None and rnd % 20 == 0:
                progress(report)
    report.best = {k: v for k, v in pop.items() if v}
    report.seconds = time.perf_counter() - t0
    return report


def write_cases(path: Path, scored: Iterable[Scored]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(s.record()) + "\n" for s in scored)
    path.write_text(text, encoding="utf-8")
    return path


def read_cases(path: Path) -> list[dict[str, Any]]:
    """The cases of a file written by :func:`write_cases` (or the regression data)."""
    out: list[dict[str, Any]] = []
    for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError:
            raise CommandError(f"{path}, line {no}: not JSON") from None
        if not isinstance(rec, dict) or rec.get("kind") not in ("follow", "throw", "trick"):
            raise CommandError(f"{path}, line {no}: not an adversarial case (kind follow, throw or trick)")
        out.append(rec)
    return out


def is_case_file(path: Path) -> bool:
    """Does the file hold adversarial cases (rather than hand scripts)?"""
    try:
        first = next(ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip())
        return json.loads(first).get("kind") in ("follow", "throw", "trick")
    except (StopIteration, ValueError, AttributeError, OSError, UnicodeDecodeError):
        return False


def replay(path: Path, repeat: int = 1) -> list[tuple[str, list[Any], list[Any] | None, float | None]]:
    """Judge every case of ``path`` with both engines: (id, full answer,
    device answer, device µs) each; the caller checks ``agree``."""
    out: list[tuple[str, list[Any], list[Any] | None, float | None]] = []
    with device_checker(repeat) as dev:
        for case in read_cases(path):
            got = dev.ask(case)
            out.append((str(case.get("id")), full_answer(case), got.get("answer"), got.get("us")))
    return out
