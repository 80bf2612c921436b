"""Link notes as ``HostLink`` gives them, for feeding a Recorder in tests.

The events are shaped like the table core's (firmware/events.py): a hand is
HAND_START, a BID, TRUMP, KITTY, plays and TRICKs, HAND_END; their state
hashes are chained with the link's own ``ttlink.chain_hash``.
"""

from __future__ import annotations

from typing import Any

from tractor_table.link import ttlink

FW, RULES_ID = "0.1.0", "rules-2026.1"


def hand_events(hand_no: int = 1, dealer: int = 0, tricks: int = 2, score: int = 85,
                card0: int = 10) -> list[list[Any]]:
    evs: list[list[Any]] = [
        [1, hand_no, dealer, 2, 0, 0, 1 if hand_no == 1 else 0],  # HAND_START
        [2, dealer, 1, 0, 0],  # BID 2S, accepted
        [3, 0, dealer, dealer],  # TRUMP S
        [5, dealer, 5, 3, 4, 5, 6, 7, 8],  # KITTY
    ]
    for t in range(tricks):
        for s in range(4):
            evs.append([6, t, (dealer + s) % 4, card0 + t * 4 + s])  # PLAY
        evs.append([10, t, 1, 10, 10 * (t + 1)])  # TRICK
    evs.append([12, score, 0, 1, 0, 1, 1, 0, -1])  # HAND_END
    return evs


def event_notes(events: list[list[Any]], start: int = 0, head: int = 0) -> list[list[Any]]:
    out = []
    h = head
    for k, ev in enumerate(events):
        h = ttlink.chain_hash(h, ev)
        out.append(["event", start + k, h, ev])
    return out


def up(boot: int, count: int = 0, head: int = 0, agree: int = 1) -> list[Any]:
    return ["up", [1, FW, RULES_ID, boot, 12345, count, head, agree]]


def head_of(notes: list[list[Any]], count: int) -> int:
    """The state hash after event count - 1 of these notes."""
    return 0 if count == 0 else int(next(n[2] for n in notes if n[1] == count - 1))
