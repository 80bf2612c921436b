"""Conformance kinds of the hand and the match: ``kitty``, ``settle``, ``declare``.

``HANDLERS`` maps a kind to a function taking one case (a dict, in the format
``tractor-table judge --help`` describes) and returning the answer dict (without ``id``;
the dispatcher in :mod:`shengji.conformance` adds it and turns exceptions into
``{"error": ...}`` answers). Every handler raises ``ValueError`` (or a subclass)
naming the field at fault when a case is malformed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from . import bidding, kitty, settle
from .cards import Rank, Suit, parse_faces
from .caseerror import CaseError
from .order import Order
from .rules import Rules
from .units import decompose_faces

__all__ = ["HANDLERS", "answer_declare", "answer_kitty", "answer_settle", "case_rules"]

_NOT_OPTIONS = ("level", "trump")


def case_rules(case: Mapping[str, Any]) -> tuple[Rules, int, int | None]:
    """``(rules, level, trump)`` of a case: level a rank index, trump a suit index
    or None for NT (or when the case gives none)."""
    raw = case.get("rules", {})
    if not isinstance(raw, Mapping):
        raise CaseError("rules: must be an object of options")
    rules = Rules.from_dict(raw, ignore=_NOT_OPTIONS)
    level = settle.parse_level(raw.get("level", "2"))
    trump_raw = raw.get("trump", "NT")
    if not isinstance(trump_raw, str) or trump_raw.upper() not in ("S", "H", "D", "C", "NT"):
        raise CaseError(f"rules.trump: {trump_raw!r} is not S, H, D, C or NT")
    trump = None if trump_raw.upper() == "NT" else "SHDC".index(trump_raw.upper())
    return rules, level, trump


def _field(case: Mapping[str, Any], name: str, kind: type | tuple[type, ...]) -> Any:
    if name not in case:
        raise CaseError(f"{name}: missing")
    value = case[name]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is int:
        raise CaseError(f"{name}: {value!r} has the wrong type")
    return value


def _suit_name(trump: int | None) -> str:
    return "NT" if trump is None else "SHDC"[trump]


def answer_declare(case: Mapping[str, Any]) -> dict[str, Any]:
    rules, level, _ = case_rules(case)
    first_hand = _field(case, "first_hand", bool)
    dealer = case.get("dealer")
    if dealer is not None and (isinstance(dealer, bool) or dealer not in (0, 1, 2, 3)):
        raise CaseError(f"dealer: {dealer!r} is not a seat 0-3 or null")
    bids = _field(case, "bids", list)
    d = bidding.Declaring(
        level=level, decks=rules.decks, allow_self_override=rules.allow_self_override
    )
    accepted: list[bool] = []
    for i, b in enumerate(bids):
        if not isinstance(b, Mapping) or "seat" not in b or "cards" not in b:
            raise CaseError(f"bids[{i}]: needs 'seat' and 'cards'")
        seat = b["seat"]
        if isinstance(seat, bool) or seat not in (0, 1, 2, 3):
            raise CaseError(f"bids[{i}].seat: {seat!r} is not a seat 0-3")
        accepted.append(d.bid(seat, parse_faces(str(b["cards"]))))
    kitty_cards = parse_faces(str(case["kitty"])) if "kitty" in case else None
    r = d.resolve(
        first_hand=first_hand,
        dealer=dealer,
        no_bid=rules.no_bid.value,
        first_dealer=rules.first_dealer.value,
        kitty=kitty_cards,
        permanent_twos=rules.permanent_twos,
    )
    if r.redeal:
        return {"accepted": accepted, "trump": None, "declarer": None, "dealer": None}
    return {
        "accepted": accepted,
        "trump": _suit_name(r.trump),
        "declarer": r.declarer,
        "dealer": r.dealer,
    }


def answer_settle(case: Mapping[str, Any]) -> dict[str, Any]:
    rules, _, _ = case_rules(case)
    score = _field(case, "score", (int, float))
    dealer = _field(case, "dealer", int)
    levels_raw = _field(case, "levels", list)
    if len(levels_raw) not in (2, 4):
        raise CaseError("levels: give [side0, side1] (or four seat levels with find-a-friend)")
    levels = [settle.parse_level(x) for x in levels_raw]
    defenders = case.get("defenders")
    kitty_j = bool(case.get("kitty_j", False))
    if "winner_play" in case and case.get("attackers_won_last", True):
        # the tournament J rule: the attackers took the kitty with a J
        kitty_j = kitty_j or any(
            f < 52 and f % 13 == settle.JACK for f in parse_faces(str(case["winner_play"]))
        )
    s = settle.settle(
        rules, int(score), dealer, levels, defenders=defenders, kitty_j=kitty_j
    )
    winner = s.winner
    return {
        "dealer": s.next_dealer,
        "levels": [settle.level_name(x) for x in s.levels],
        "winner": list(winner) if isinstance(winner, tuple) else winner,
    }


def answer_kitty(case: Mapping[str, Any]) -> dict[str, Any]:
    rules, level, trump = case_rules(case)
    lead = parse_faces(str(_field(case, "lead", str)))
    winner_play = parse_faces(str(_field(case, "winner_play", str)))
    kitty_cards = parse_faces(str(_field(case, "kitty", str)))
    order = Order(rules, Rank(level), None if trump is None else Suit(trump))
    d = decompose_faces(order, lead)
    if d is None:
        raise CaseError("lead: empty, or its cards span several effective suits")
    winner_is_trump = bool(winner_play) and all(order.is_trump_face[f] for f in winner_play)
    mult, bonus = kitty.bonus(
        kitty_cards,
        [u.shape for u in d.units],
        policy=rules.kitty_multiplier.value,
        requires_trump=rules.kitty_requires_trump,
        winner_is_trump=winner_is_trump,
    )
    return {"multiplier": mult, "bonus": bonus}


HANDLERS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "kitty": answer_kitty,
    "settle": answer_settle,
    "declare": answer_declare,
}

