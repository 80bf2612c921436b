"""A recorded hand exported: as an engine hand record, or as the table's events."""

from __future__ import annotations

import json
from typing import Any

from ..events import HandStart, describe
from .store import Store


class NotFaithful(Exception):
    """The table's events of a hand do not make an engine hand record faithfully."""


def engine_record(store: Store, hand: dict[str, Any]) -> str:
    """The hand as an engine hand record (docs/records.md format), or NotFaithful.

    The table's events are replayed through the full engine's replayer
    (``EngineReplayer``), which builds an engine ``Hand`` from them (without
    the deal, which the table never knows); the record is faithful when the
    engine agrees with every event the table sent and the record written from
    the engine's hand replays to the very same state."""
    from shengji import Rules
    from shengji import record as erecord

    from ..link.engine_replayer import EngineReplayer

    if hand["partial"]:
        raise NotFaithful(
            f"the records start inside this hand (at event {hand['start_idx']}): its beginning "
            "never reached the host"
        )
    events = branch(store, hand)
    rules_dict = store.session_rules(events[0]["session"]) if events else None
    if rules_dict is None:
        raise NotFaithful("the rules the table played by were not recorded with it")
    rules = Rules.from_dict(rules_dict)
    replayer = EngineReplayer(rules)
    replayer.reset(None)
    built = None
    prev = events[0]["index"] - 1
    for e in events:
        if e["index"] != prev + 1:
            raise NotFaithful(f"events {prev + 1}-{e['index'] - 1} of this hand never reached the host")
        prev = e["index"]
        ev = e["event"]
        mine = replayer.replay(e["index"], ev)
        if isinstance(ev, HandStart):
            mine = None  # the match's position is the table's (the replayer takes it)
        if replayer.lost:
            raise NotFaithful(f"the full engine cannot follow the table: {replayer.lost}")
        if mine is not None and mine != ev:
            raise NotFaithful(
                f"the full engine disagrees with the table at event {e['index']} "
                f"({describe(ev)} / engine: {describe(mine)})"
            )
        if replayer.hand is not None:
            built = replayer.hand
    if built is None:
        raise NotFaithful("the hand has no engine events (a redeal)")
    text = erecord.dumps(built)
    again = erecord.replay(text)
    if again.state_hash() != built.state_hash():
        raise NotFaithful(
            "the engine record does not replay to the state the engine followed (a forced throw "
            "whose cards the table chose otherwise)"
        )
    return text


def branch(store: Store, hand: dict[str, Any]) -> list[dict[str, Any]]:
    """The hand's events of its own branch (current ones; a rolled back hand's own)."""
    return [e for e in store.hand_events(hand) if e["current"] or hand["status"] == "rolled back"]


def events_record(store: Store, hand: dict[str, Any]) -> str:
    """The table's events of a hand as JSON lines (format ``tractor-table/table-events``)."""
    events = branch(store, hand)
    rules = store.session_rules(events[0]["session"]) if events else None
    head = {
        "format": "tractor-table/table-events",
        "version": 1,
        "table": hand["table_id"],
        "hand": hand["id"],
        "status": hand["status"],
        "rules": rules,
    }
    lines = [json.dumps(head, separators=(", ", ": "))]
    for e in events:
        lines.append(
            json.dumps({"index": e["index"], "hash": e["hash"], "event": e["event"].raw()},
                       separators=(", ", ": "))
        )
    return "\n".join(lines) + "\n"
