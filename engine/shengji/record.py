"""Hand records: JSON lines, one event per line, versioned (docs/records.md).

A record is the header line (format, version, rules, level, dealer, first hand,
strict), then one line per event of the hand in the order applied, each with
the state hash after it. Cards are written in docs/rules.md's notation with the copy
(deck) after a dot when it is not the first: ``AS`` is card id 12, ``AS.1`` is
card id 66 (the second deck's ace of spades). Replaying a record rebuilds the
identical hand (:func:`replay` checks every hash on the way); nothing depends
on the order of keys in a line.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from .cards import FACES, face_name, parse_face
from .hand import (
    Bid,
    Bury,
    Call,
    Challenge,
    Deal,
    EndDraw,
    Event,
    Hand,
    Play,
    Reveal,
    Scan,
)
from .rules import Rules
from .settle import level_name, parse_level

__all__ = [
    "FORMAT",
    "VERSION",
    "RecordError",
    "card_token",
    "dumps",
    "event_from_json",
    "event_to_json",
    "format_ids",
    "header",
    "parse_ids",
    "replay",
]

FORMAT = "tractor-table/hand"
VERSION = 1


class RecordError(ValueError):
    """A record line that cannot be read; the message names the line and the field."""


def card_token(card_id: int) -> str:
    """``AS`` for card id 12, ``AS.1`` for 66 (copy 1)."""
    face, copy = card_id % FACES, card_id // FACES
    return face_name(face) if copy == 0 else f"{face_name(face)}.{copy}"


def format_ids(ids: Iterable[int]) -> str:
    return " ".join(card_token(c) for c in ids)


def parse_ids(text: str) -> tuple[int, ...]:
    """The card ids of ``format_ids`` text."""
    out = []
    for token in text.split():
        name, _, copy = token.partition(".")
        if copy and not copy.isdigit():
            raise RecordError(f"{token!r}: the copy after the dot is a number")
        out.append(int(copy or 0) * FACES + parse_face(name))
    return tuple(out)


def event_to_json(e: Event) -> dict[str, Any]:
    if isinstance(e, Play):
        return {"event": "play", "seat": e.seat, "cards": format_ids(e.cards)}
    if isinstance(e, Deal):
        return {"event": "deal", "hands": [format_ids(h) for h in e.hands], "kitty": format_ids(e.kitty)}
    if isinstance(e, Bid):
        return {"event": "bid", "seat": e.seat, "cards": format_ids(e.cards)}
    if isinstance(e, EndDraw):
        out: dict[str, Any] = {"event": "end_draw"}
        if e.kitty:
            out["kitty"] = format_ids(e.kitty)
        return out
    if isinstance(e, Bury):
        return {"event": "bury", "cards": format_ids(e.cards)}
    if isinstance(e, Call):
        return {"event": "call", "card": face_name(e.face)}
    if isinstance(e, Challenge):
        return {"event": "challenge", "seat": e.seat, "cards": format_ids(e.cards)}
    if isinstance(e, Reveal):
        return {"event": "reveal", "cards": format_ids(e.cards)}
    if isinstance(e, Scan):
        return {"event": "scan", "hands": [format_ids(h) for h in e.hands], "buried": format_ids(e.buried)}
    raise RecordError(f"not a hand event: {e!r}")


def _get(d: dict[str, Any], key: str, kind: type) -> Any:
    if key not in d:
        raise RecordError(f"{d.get('event', '?')}: missing {key!r}")
    v = d[key]
    if not isinstance(v, kind) or (kind is int and isinstance(v, bool)):
        raise RecordError(f"{d.get('event', '?')}: {key!r} should be {kind.__name__}, not {v!r}")
    return v


def event_from_json(d: dict[str, Any]) -> Event:
    kind = d.get("event")
    if kind == "play":
        return Play(_get(d, "seat", int), parse_ids(_get(d, "cards", str)))
    if kind == "deal":
        hands = _get(d, "hands", list)
        return Deal(tuple(parse_ids(str(h)) for h in hands), parse_ids(_get(d, "kitty", str)))
    if kind == "bid":
        return Bid(_get(d, "seat", int), parse_ids(_get(d, "cards", str)))
    if kind == "end_draw":
        return EndDraw(parse_ids(d.get("kitty", "")))
    if kind == "bury":
        return Bury(parse_ids(_get(d, "cards", str)))
    if kind == "call":
        return Call(parse_face(_get(d, "card", str)))
    if kind == "challenge":
        return Challenge(_get(d, "seat", int), parse_ids(_get(d, "cards", str)))
    if kind == "scan":
        hands = _get(d, "hands", list)
        return Scan(tuple(parse_ids(str(h)) for h in hands), parse_ids(_get(d, "buried", str)))
    if kind == "reveal":
        return Reveal(parse_ids(_get(d, "cards", str)))
    raise RecordError(f"unknown event {kind!r}")


def header(hand: Hand) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "rules": hand.rules.to_dict(),
        "level": level_name(hand.level),
        "dealer": _initial_dealer(hand),
        "first_hand": hand.first_hand,
        "strict": hand.strict,
    }


def _initial_dealer(hand: Hand) -> int | None:
    return None if hand.first_hand else hand.dealer


def _line(d: dict[str, Any]) -> str:
    return json.dumps(d, ensure_ascii=False, separators=(", ", ": "))


def dumps(hand: Hand, *, hashes: bool = True) -> str:
    """The record of a hand (every event applied so far), as text.

    With ``hashes`` each event line carries the state hash after it (replaying
    the events one by one to compute them)."""
    lines = [_line(header(hand))]
    probe = Hand(
        hand.rules,
        level=hand.level,
        dealer=_initial_dealer(hand),
        first_hand=hand.first_hand,
        strict=hand.strict,
    )
    for e in hand.events:
        d = event_to_json(e)
        if hashes:
            probe.apply(e)
            d["hash"] = probe.state_hash()
        lines.append(_line(d))
    return "\n".join(lines) + "\n"


def replay(text: str | Iterable[str], *, check: bool = True) -> Hand:
    """Rebuild a hand from its record, checking each line's hash (when present)."""
    lines = text.splitlines() if isinstance(text, str) else list(text)
    lines = [ln for ln in lines if ln.strip()]
    if not lines:
        raise RecordError("empty record")
    try:
        head = json.loads(lines[0])
    except json.JSONDecodeError as exc:
        raise RecordError(f"line 1: not JSON ({exc.msg})") from None
    if not isinstance(head, dict) or head.get("format") != FORMAT:
        raise RecordError(f"line 1: not a hand record (format should be {FORMAT!r})")
    if head.get("version") != VERSION:
        raise RecordError(f"line 1: record version {head.get('version')!r}; this reader knows {VERSION}")
    try:
        rules = Rules.from_dict(_get(head, "rules", dict))
        hand = Hand(
            rules,
            level=parse_level(_get(head, "level", str)),
            dealer=head.get("dealer"),
            first_hand=bool(head.get("first_hand", head.get("dealer") is None)),
            strict=bool(head.get("strict", False)),
        )
    except ValueError as exc:  # bad rules, level or dealer: InvalidRulesError, SettleError, HandError
        raise RecordError(f"line 1: {str(exc).removeprefix('?: ')}") from None
    for n, raw in enumerate(lines[1:], start=2):
        try:
            d = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise RecordError(f"line {n}: not JSON ({exc.msg})") from None
        if not isinstance(d, dict):
            raise RecordError(f"line {n}: an event is a JSON object")
        try:
            hand.apply(event_from_json(d))
        except ValueError as exc:
            raise RecordError(f"line {n}: {exc}") from None
        if check and "hash" in d and d["hash"] != hand.state_hash():
            raise RecordError(f"line {n}: state hash {hand.state_hash()} differs from the record's {d['hash']}")
    return hand
