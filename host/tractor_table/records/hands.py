"""The hands as the events say: :class:`HandFacts`, :func:`derive_hands`, and
:func:`rederive`, which keeps a file's ``hands`` rows equal to its current events."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..events import (
    Call,
    Event,
    Forfeit,
    HandEnd,
    HandStart,
    Partner,
    Redeal,
    Trick,
    Trump,
    decode,
    describe,
)
from ..vocab.enums import HAND_PHASES, PARTNER_UNKNOWN, TablePhase
from ..vocab.snapshot import Snapshot, SnapshotError
from .common import load_event

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
        f = self.facts
        match ev:
            case HandStart():
                f.update(hand_no=ev.hand_no, dealer=ev.dealer, decks=ev.decks, level0=ev.levels[0],
                         level1=ev.levels[1], first_hand=int(ev.first_hand))
                if len(ev.levels) == 4:  # partners = "called": levels per seat
                    f.update(level2=ev.levels[2], level3=ev.levels[3])
            case Call():
                f["called"] = ev.face
            case Partner():
                f["partner"] = ev.partner
            case Trump():
                f.update(trump=ev.trump, declarer=ev.declarer, dealer=ev.dealer)
            case Trick() if self.status == "playing":
                f["attackers_score"] = ev.attackers_score
            case Forfeit():
                f["forfeit_seat"] = ev.seat
            case Redeal() if self.status == "playing":
                self.status, self.ended_at = "redeal", at
                f["result"] = "redeal: nobody bid"
            case HandEnd() if self.status == "playing":
                f.update(attackers_score=ev.attackers_score, kitty_points=ev.kitty_points,
                         multiplier=ev.multiplier, bonus=ev.bonus, next_dealer=ev.next_dealer,
                         next_level0=ev.levels[0], next_level1=ev.levels[1], match_winner=ev.match_winner)
                if len(ev.levels) == 4:
                    f.update(next_level2=ev.levels[2], next_level3=ev.levels[3])
                self.status, self.ended_at = "done", at
                f["result"] = describe(ev)
            case _:
                pass

    def row(self) -> tuple[Any, ...]:
        return (self.start_idx, self.end_idx, self.partial, self.status, self.started_at,
                self.ended_at, *(self.facts.get(c) for c in self.COLUMNS))


def derive_hands(
    rows: Sequence[tuple[int, int, Event | Sequence[Any], str]], snapshots: Mapping[int, Any] | None = None
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
    for eid, idx, raw, at in rows:
        ev = decode(raw, index=idx, lenient=True)
        if cur is not None and idx != prev + 1:
            if cur.status == "playing":
                cur.status = "incomplete"
            cur = None
        if isinstance(ev, HandStart):
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
        h.facts["result"] = describe(end) if isinstance(end, list) and end else "over"


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

