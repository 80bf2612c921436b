"""The hands as the events say: :class:`HandFacts`, :func:`derive_hands`, and
:func:`rederive`, which keeps a file's ``hands`` rows equal to its current events."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..vocab import HAND_PHASES, PARTNER_UNKNOWN, EventKind, Snapshot, SnapshotError, TablePhase
from .common import Event, load_event

# the firmware's event kinds the records read (firmware/events.py, through tractor_table.vocab)
HAND_START, TRUMP, REDEAL, TRICK = (int(k) for k in (EventKind.HAND_START, EventKind.TRUMP, EventKind.REDEAL,
                                                     EventKind.TRICK))
HAND_END, FORFEIT, CALL, PARTNER = (int(k) for k in (EventKind.HAND_END, EventKind.FORFEIT, EventKind.CALL,
                                                     EventKind.PARTNER))
#: the phases in which trump is known (after the draw, before the hand's end)
_TRUMP_KNOWN = frozenset((TablePhase.KITTY, TablePhase.PLAY, TablePhase.SCAN, TablePhase.CALL))


@dataclass
class HandFacts:
    """A hand as its events say (one row of ``hands``)."""

    start_event: int
    start_idx: int
    end_idx: int
    partial: int
    status: str
    started_at: str
    ended_at: str | None = None
    facts: dict[str, Any] = field(default_factory=dict)

    COLUMNS = (
        "hand_no", "dealer", "decks", "level0", "level1", "first_hand", "trump", "declarer",
        "attackers_score", "kitty_points", "multiplier", "bonus", "next_dealer",
        "next_level0", "next_level1", "match_winner", "forfeit_seat", "result",
        # find-a-friend (schema 4): seats 2 and 3's levels, the face called, the partner
        "level2", "level3", "next_level2", "next_level3", "called", "partner",
    )

    def feed(self, idx: int, ev: Event, at: str) -> None:
        self.end_idx = idx
        k = ev[0]
        f = self.facts
        if k == HAND_START and len(ev) >= 7:
            f.update(hand_no=ev[1], dealer=ev[2], decks=ev[3], level0=ev[4], level1=ev[5],
                     first_hand=ev[6])
            if len(ev) >= 9:  # partners = "called": levels per seat
                f.update(level2=ev[7], level3=ev[8])
        elif k == CALL and len(ev) >= 3:
            f["called"] = ev[2]
        elif k == PARTNER and len(ev) >= 3:
            f["partner"] = ev[2]
        elif k == TRUMP and len(ev) >= 4:
            f.update(trump=ev[1], declarer=ev[2], dealer=ev[3])
        elif k == TRICK and len(ev) >= 5 and self.status == "playing":
            f["attackers_score"] = ev[4]
        elif k == FORFEIT and len(ev) >= 3:
            f["forfeit_seat"] = ev[2]
        elif k == REDEAL and self.status == "playing":
            self.status, self.ended_at = "redeal", at
            f["result"] = "redeal: nobody bid"
        elif k == HAND_END and len(ev) >= 9 and self.status == "playing":
            f.update(attackers_score=ev[1], kitty_points=ev[2], multiplier=ev[3], bonus=ev[4],
                     next_dealer=ev[5], next_level0=ev[6], next_level1=ev[7], match_winner=ev[8])
            if len(ev) >= 11:
                f.update(next_level2=ev[9], next_level3=ev[10])
            self.status, self.ended_at = "done", at
            f["result"] = describe_event(ev)

    def row(self) -> tuple[Any, ...]:
        return (self.start_idx, self.end_idx, self.partial, self.status, self.started_at,
                self.ended_at, *(self.facts.get(c) for c in self.COLUMNS))


def derive_hands(
    rows: Sequence[tuple[int, int, Event, str]], snapshots: Mapping[int, Any] | None = None
) -> list[HandFacts]:
    """The hands of a run of current events ``(event id, index, event, received_at)``
    in index order: a HAND_START opens one (an open hand before it was
    abandoned); events before the first HAND_START open a partial hand (the
    records start inside it), whose dealer, levels and trump come from the
    table's snapshot the log restarted from, if there is one at that index
    (``snapshots``: count -> the snapshot, firmware/tablesnap.py layout); a
    gap in the indexes ends the hand as ``incomplete``. Events between a
    hand's end and the next HAND_START (taps refused as out of phase) belong
    to the hand before."""
    hands: list[HandFacts] = []
    cur: HandFacts | None = None
    prev = -2
    for eid, idx, ev, at in rows:
        if cur is not None and idx != prev + 1:
            if cur.status == "playing":
                cur.status = "incomplete"
            cur = None
        if ev and ev[0] == HAND_START:
            if cur is not None and cur.status == "playing":
                cur.status = "abandoned"
            cur = HandFacts(eid, idx, idx, 0, "playing", at)
            hands.append(cur)
        elif cur is None:
            cur = HandFacts(eid, idx, idx, 1, "playing", at)
            _from_snapshot(cur, (snapshots or {}).get(idx))
            hands.append(cur)
        cur.feed(idx, ev, at)
        prev = idx
    return hands


def _from_snapshot(h: HandFacts, data: Any) -> None:
    """A partial hand's facts from the table's snapshot at its first event
    (firmware/tablesnap.py's layout, read as :class:`tractor_table.vocab.Snapshot`)."""
    if data is None:
        return
    try:
        snap = Snapshot.parse(data)
    except (SnapshotError, TypeError, IndexError, KeyError):
        return
    phase = snap.phase
    h.facts.update(decks=snap.decks, hand_no=snap.hand_no, first_hand=snap.first_hand, dealer=snap.dealer,
                   level0=snap.levels[0], level1=snap.levels[1])
    friend = snap.friend
    if friend is not None:
        # partners = "called": the call, the partner, the levels of seats 2 and 3
        h.facts.update(level2=friend.levels[0], level3=friend.levels[1])
        if friend.call >= 0:
            h.facts["called"] = friend.call
        if friend.partner != PARTNER_UNKNOWN:
            h.facts["partner"] = friend.partner
    if phase in _TRUMP_KNOWN and snap.trump >= 0:
        h.facts.update(trump=snap.trump, declarer=snap.declarer)
    if phase == TablePhase.PLAY:
        h.facts["attackers_score"] = snap.score
    if phase not in HAND_PHASES:  # the hand was over before the records start
        h.status = "done"
        end = snap.result
        h.facts["result"] = describe_event(end) if isinstance(end, list) and end else "over"


def stored_snapshots(db: sqlite3.Connection, table_id: int, frm: int) -> dict[int, Any]:
    """The table's snapshots from index ``frm`` on, parsed (the last one per index)."""
    out: dict[int, Any] = {}
    for count, data in db.execute(
        "SELECT count, data FROM snapshots WHERE table_id = ? AND count >= ? AND data IS NOT NULL "
        "ORDER BY id",
        (table_id, frm),
    ):
        try:
            out[count] = json.loads(bytes(data).decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            continue
    return out


def describe_event(ev: Sequence[Any]) -> str:
    from ..virtual.events import describe

    try:
        return describe(ev)
    except (IndexError, KeyError, TypeError, ValueError):
        return f"event {list(ev)!r}"




def rederive(db: sqlite3.Connection, table_id: int, idx: int) -> None:
    """Derive again the hands of ``table_id`` from the one holding index ``idx`` on.

    Hands whose first event is no longer current are kept, marked ``rolled
    back``; derived rows that no longer start a hand (a partial hand whose
    beginning arrived) are removed."""
    live = "table_id = ? AND status != 'rolled back'"
    before = db.execute(
        f"SELECT MAX(start_idx) FROM hands WHERE {live} AND start_idx <= ?", (table_id, idx)
    ).fetchone()[0]
    across = db.execute(
        f"SELECT MIN(start_idx) FROM hands WHERE {live} AND end_idx >= ?", (table_id, idx)
    ).fetchone()[0]
    frm = min(v for v in (before, across, idx) if v is not None)
    rows = [
        (eid, i, load_event(text), at)
        for eid, i, text, at in db.execute(
            "SELECT id, idx, event, received_at FROM events WHERE table_id = ? AND current = 1 "
            "AND idx >= ? ORDER BY idx",
            (table_id, frm),
        )
    ]
    derived = derive_hands(rows, stored_snapshots(db, table_id, frm))
    keep = {h.start_event for h in derived}
    for hid, start_event, cur in db.execute(
        "SELECT h.id, h.start_event, e.current FROM hands h JOIN events e ON e.id = h.start_event "
        "WHERE h.table_id = ? AND h.start_idx >= ? AND h.status != 'rolled back'",
        (table_id, frm),
    ).fetchall():
        if start_event in keep:
            continue
        if cur:
            db.execute("DELETE FROM hands WHERE id = ?", (hid,))
        else:
            db.execute("UPDATE hands SET status = 'rolled back' WHERE id = ?", (hid,))
    # the columns the file has so far (a migration derives the hands before
    # the later versions add theirs: schema 4's find-a-friend columns)
    have = {r[1] for r in db.execute("PRAGMA table_info(hands)")}
    every = ("start_idx", "end_idx", "partial", "status", "started_at", "ended_at",
             *HandFacts.COLUMNS)
    keep_at = [i for i, c in enumerate(every) if c in have]
    cols = tuple(every[i] for i in keep_at)
    sets = ", ".join(f"{c} = ?" for c in cols)
    for h in derived:
        full = h.row()
        row = tuple(full[i] for i in keep_at)
        cur_row = db.execute("SELECT id FROM hands WHERE start_event = ?", (h.start_event,)).fetchone()
        if cur_row is not None:
            db.execute(f"UPDATE hands SET {sets} WHERE id = ?", (*row, cur_row[0]))
        else:
            db.execute(
                f"INSERT INTO hands (table_id, start_event, {', '.join(cols)}) "
                f"VALUES (?, ?, {', '.join('?' for _ in cols)})",
                (table_id, h.start_event, *row),
            )

