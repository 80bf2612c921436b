"""Answers to the rules conformance cases (docs/rules.md §13; the case format:
``tractor-table judge --help``).

:func:`answer` takes one case (a dict) and returns the answer dict with its
``id``; :func:`answer_line` does the same for one JSON line and never raises:
a malformed line or case gets ``{"id": ..., "error": "<why>"}``.

Kinds ``compare``, ``shape``, ``throw``, ``follow`` and ``trick`` (docs/rules.md
§1-§7) are answered here; ``kitty``, ``settle`` and ``declare`` come from
:mod:`shengji.conformance_hand` (``HANDLERS``) when that module exists.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Mapping
from typing import Any

from .cards import FACES, Rank, Suit, format_faces, parse_faces
from .caseerror import CaseError
from .order import Order
from .play import Lead, check_follow_counts, check_throw, counts, trick_winner_faces
from .rules import Rules
from .units import decompose_faces

__all__ = ["HANDLERS", "CaseError", "answer", "answer_line", "case_order"]

Handler = Callable[[dict[str, Any]], dict[str, Any]]


def case_order(case: Mapping[str, Any]) -> Order:
    """The card order of a case: its ``rules`` (options, ``level``, ``trump``)."""
    raw = case.get("rules", {})
    if not isinstance(raw, Mapping):
        raise CaseError("rules: must be an object of options")
    rules = Rules.from_dict(raw, ignore=("level", "trump"))
    level_raw = raw.get("level", "2")
    if not isinstance(level_raw, str):
        raise CaseError(f"rules.level: {level_raw!r} is not a level (2-9, T, J, Q, K, A)")
    level = Rank.parse(level_raw)
    trump_raw = raw.get("trump", "NT")
    if not isinstance(trump_raw, str):
        raise CaseError(f"rules.trump: {trump_raw!r} is not S, H, D, C or NT")
    trump = None if trump_raw.strip().upper() == "NT" else Suit.parse(trump_raw)
    return Order(rules, level, trump)


def _cards(case: Mapping[str, Any], name: str, decks: int, *, empty: bool = False) -> list[int]:
    if name not in case:
        raise CaseError(f"{name}: missing")
    value = case[name]
    if not isinstance(value, str):
        raise CaseError(f"{name}: must be a string of cards, not {value!r}")
    faces = parse_faces(value)
    if not faces and not empty:
        raise CaseError(f"{name}: no cards")
    cnt = counts(faces)
    for f in range(FACES):
        if cnt[f] > decks:
            raise CaseError(
                f"{name}: {format_faces([f])} appears {cnt[f]} times with {decks} deck(s)"
            )
    return faces


def _seat(case: Mapping[str, Any], name: str) -> int:
    value = case.get(name)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 3:
        raise CaseError(f"{name}: must be a seat 0-3, not {value!r}")
    return value


def answer_compare(case: dict[str, Any]) -> dict[str, Any]:
    order = case_order(case)
    a = _cards(case, "a", order.rules.decks)
    b = _cards(case, "b", order.rules.decks)
    if len(a) != 1 or len(b) != 1:
        raise CaseError("a, b: one card each")
    cmp = order.compare(a[0], b[0])
    return {"cmp": "none" if cmp is None else cmp}


def answer_shape(case: dict[str, Any]) -> dict[str, Any]:
    order = case_order(case)
    faces = _cards(case, "cards", order.rules.decks)
    d = decompose_faces(order, faces)
    if d is None:
        return {"suit": "mixed"}
    return {"suit": d.suit_name, "shape": d.codes}


def _hands(case: Mapping[str, Any], decks: int) -> list[list[int]]:
    raw = case.get("hands")
    if not isinstance(raw, list) or len(raw) != 4:
        raise CaseError("hands: must be a list of four hands")
    return [_cards({"hand": h}, "hand", decks, empty=True) for h in raw]


def answer_throw(case: dict[str, Any]) -> dict[str, Any]:
    order = case_order(case)
    decks = order.rules.decks
    leader = _seat(case, "leader")
    lead = _cards(case, "lead", decks)
    hands = _hands(case, decks)
    if decompose_faces(order, lead) is None:
        raise CaseError("lead: the cards span several effective suits (a lead is of one suit)")
    result = check_throw(order, leader, lead, [counts(h) for h in hands])
    return {"ok": result.ok, "play": format_faces(result.play)}


def answer_follow(case: dict[str, Any]) -> dict[str, Any]:
    order = case_order(case)
    decks = order.rules.decks
    lead_faces = _cards(case, "lead", decks)
    hand = _cards(case, "hand", decks)
    play = _cards(case, "play", decks)
    lead = Lead(order, lead_faces)
    hand_counts = counts(hand)
    for f, c in enumerate(counts(play)):
        if c > hand_counts[f]:
            raise CaseError(f"play: {format_faces([f])} is not in the hand")
    return {"legal": check_follow_counts(order, lead, hand_counts, play).legal}


def answer_trick(case: dict[str, Any]) -> dict[str, Any]:
    order = case_order(case)
    decks = order.rules.decks
    leader = _seat(case, "leader")
    raw = case.get("plays")
    if not isinstance(raw, list) or len(raw) != 4:
        raise CaseError("plays: must be a list of four plays")
    plays = [_cards({"play": p}, "play", decks) for p in raw]
    lead = Lead(order, plays[0])
    for i, p in enumerate(plays[1:], start=1):
        if len(p) != lead.size:
            raise CaseError(f"plays[{i}]: {len(p)} cards, the lead has {lead.size}")
    result = trick_winner_faces(order, lead, plays, leader)
    return {"winner": result.winner, "points": result.points}


#: kind -> handler (the hand kinds are merged in from shengji.conformance_hand).
HANDLERS: dict[str, Handler] = {
    "compare": answer_compare,
    "shape": answer_shape,
    "throw": answer_throw,
    "follow": answer_follow,
    "trick": answer_trick,
}


def _merge_hand_handlers() -> None:
    try:
        module = importlib.import_module("shengji.conformance_hand")
    except ModuleNotFoundError as exc:
        if exc.name == "shengji.conformance_hand":
            return  # shengji.conformance_hand not there: its kinds get an error answer
        raise
    extra = getattr(module, "HANDLERS", None)
    if isinstance(extra, dict):
        for kind, handler in extra.items():
            HANDLERS.setdefault(kind, handler)


_merge_hand_handlers()

#: Kinds of docs/rules.md §8 that shengji.conformance_hand answers; an error until it is there.
_LATER = ("kitty", "settle", "declare")


def answer(case: dict[str, Any]) -> dict[str, Any]:
    """The answer to one case, with its ``id``; errors become ``{"error": ...}``."""
    case_id = case.get("id")
    kind = case.get("kind")
    handler = HANDLERS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        if kind in _LATER:
            why = f"kind {kind!r} is not implemented by this engine yet"
        else:
            why = f"unknown kind {kind!r}; kinds are {', '.join(sorted(HANDLERS))}"
        return {"id": case_id, "error": why}
    try:
        result = handler(case)
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        return {"id": case_id, "error": f"{type(exc).__name__}: {exc}"}
    return {"id": case_id, **result}


def read_case(text: str) -> dict[str, Any] | str:
    """One input line parsed as a case, or (a string) the error answer line for
    a line that is not one: malformed JSON, JSON that Python cannot hold (nesting
    too deep, an integer over 4,300 digits) or not an object. Never raises."""
    try:
        case = json.loads(text)
    except json.JSONDecodeError as exc:
        return json.dumps({"id": None, "error": f"malformed JSON: {exc}"}, ensure_ascii=False)
    except (ValueError, RecursionError) as exc:  # a number too long to convert, nesting too deep
        why = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        return json.dumps({"id": None, "error": f"unreadable JSON: {why}"}, ensure_ascii=False)
    if not isinstance(case, dict):
        return json.dumps({"id": None, "error": "a case must be a JSON object"}, ensure_ascii=False)
    return case


def answer_line(line: str) -> str | None:
    """The answer to one JSON line, as a JSON line (no newline); ``None`` for a
    blank line. Never raises on bad input."""
    text = line.strip()
    if not text:
        return None
    case = read_case(text)
    if isinstance(case, str):
        return case
    try:
        result = answer(case)
    except Exception as exc:  # noqa: BLE001 - the runner must never crash on a case
        result = {"id": case.get("id"), "error": f"internal error: {type(exc).__name__}: {exc}"}
    return json.dumps(result, ensure_ascii=False)
