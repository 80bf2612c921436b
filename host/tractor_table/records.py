"""The host's records of the tables it followed, in SQLite.

One database file (by default ``records.sqlite`` in the user's data directory,
:func:`default_path`; ``--db FILE`` elsewhere) keeps, for every table the
host has followed over the link:

- the **tables** and their **boots** (boot id, firmware version, rules id),
- the link **sessions** (up, synced, down and why; where; the rules the host
  judged with) and the link's notes (reboots, rollbacks, conflicts, the
  table's own prints),
- every **game event** exactly as the link delivered it: index, state hash,
  canonical JSON. An event sent again (a replay after a reconnect, a new run
  of the host) is stored once; a different event at an index already held
  (the table rolled back and the game went on otherwise, or its history
  forked) is stored as well, and the old one is kept, marked superseded
  (``current = 0``, why, when) — never overwritten. At most one event per
  index is current (a unique index enforces it);
- the snapshots the table sent (the log then starts at the snapshot),
- the **hands** as the events say (start and end, dealer, trump, levels,
  score, result), derived from the current events in the same transaction,
- the verifier's **verdicts** on every event, per session, with both views
  of a disagreement.

API (small on purpose; the link and virtual commands and the console use it)::

    store = Store.open(path)            # RecordsError: a clear line naming the file
    rec = Recorder(store, port="/dev/ttyACM0", source="link", rules=rules)
    link = SerialLink(port, on_note=rec.follow(verifier))   # notes + verdicts
    # or, without a verifier: SerialLink(port, on_note=rec.on_note)
    # a verdict given by hand: rec.on_verdict(index, "agreed") / rec.on_disagreement(d)
    # a snapshot the operator pushes: verifier.push_host_state(rec.pushing(link.push_snapshot))
    store.close()

``on_note`` is safe to call from the link's thread. Every note is written in
one transaction (an event with its verdict and its hand), so a crash loses at
most the note in flight. A failure to write (a full disk) stops recording
with :attr:`Recorder.failed` set; it never stops the link.

Who is a table? The link carries no serial number: a boot seen before is its
table's; a new boot joins the table whose stored log holds the state hash the
table announces after its last event (it rebooted and kept its log);
otherwise it is a new table (a fresh table, or one that rebooted and played
on while no host recorded it).

The schema is versioned with ``PRAGMA user_version`` (:data:`SCHEMA_VERSION`)
and ``PRAGMA application_id`` (:data:`APPLICATION_ID`); older files are
migrated in place, in one transaction. A file that is not SQLite, an SQLite
file of another program, a file from a newer version or a damaged one is
refused with a :class:`RecordsError` and never written to.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .errors import CommandError
from .link import ttlink

SCHEMA_VERSION = 4
#: "TTrc" in the SQLite header: this file is tractor-table's records.
APPLICATION_ID = 0x54547263
DEFAULT_NAME = "records.sqlite"
SQLITE_MAGIC = b"SQLite format 3\x00"

# firmware/events.py kinds the records read (tests check them against the module)
HAND_START, TRUMP, REDEAL, TRICK, HAND_END, FORFEIT, CALL, PARTNER = 1, 3, 4, 10, 12, 15, 17, 18

Note = list[Any]
Event = list[Any]


class RecordsError(CommandError):
    """The records database cannot be used; the message names the file and what to do."""


def default_path() -> Path:
    """``records.sqlite`` in the user's data directory (platformdirs; on Linux
    ``$XDG_DATA_HOME/tractor-table``, by default ``~/.local/share/tractor-table``)."""
    import platformdirs

    return platformdirs.user_data_path("tractor-table", appauthor=False) / DEFAULT_NAME


def now_utc() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


# ---------------------------------------------------------------- schema

_V1 = """
CREATE TABLE tables(
    id INTEGER PRIMARY KEY,
    first_seen TEXT NOT NULL,
    last_seen TEXT NOT NULL,
    fw_version TEXT NOT NULL,
    rules_id TEXT NOT NULL
);
CREATE TABLE boots(
    id INTEGER PRIMARY KEY,
    table_id INTEGER NOT NULL REFERENCES tables(id),
    boot_id INTEGER NOT NULL,
    fw_version TEXT NOT NULL,
    rules_id TEXT NOT NULL,
    first_seen TEXT NOT NULL,
    last_seen TEXT NOT NULL,
    UNIQUE(table_id, boot_id)
);
CREATE TABLE sessions(
    id INTEGER PRIMARY KEY,
    table_id INTEGER NOT NULL REFERENCES tables(id),
    boot INTEGER NOT NULL REFERENCES boots(id),
    source TEXT NOT NULL,
    port TEXT NOT NULL,
    host_version TEXT NOT NULL,
    rules TEXT,
    up_at TEXT NOT NULL,
    synced_at TEXT,
    down_at TEXT,
    down_reason TEXT,
    table_count INTEGER NOT NULL,
    table_head INTEGER NOT NULL,
    agree INTEGER NOT NULL
);
CREATE TABLE events(
    id INTEGER PRIMARY KEY,
    table_id INTEGER NOT NULL REFERENCES tables(id),
    idx INTEGER NOT NULL CHECK (idx >= 0),
    hash INTEGER NOT NULL CHECK (hash BETWEEN 0 AND 4294967295),
    event TEXT NOT NULL,
    kind INTEGER NOT NULL,
    session_id INTEGER NOT NULL REFERENCES sessions(id),
    received_at TEXT NOT NULL,
    current INTEGER NOT NULL DEFAULT 1 CHECK (current IN (0, 1)),
    superseded_at TEXT,
    superseded_why TEXT,
    replaces INTEGER REFERENCES events(id),
    UNIQUE(table_id, idx, hash)
);
CREATE UNIQUE INDEX events_current ON events(table_id, idx) WHERE current = 1;
CREATE TABLE snapshots(
    id INTEGER PRIMARY KEY,
    table_id INTEGER NOT NULL REFERENCES tables(id),
    session_id INTEGER NOT NULL REFERENCES sessions(id),
    count INTEGER NOT NULL,
    head INTEGER NOT NULL,
    data BLOB,
    pushed INTEGER NOT NULL DEFAULT 0,
    received_at TEXT NOT NULL
);
CREATE INDEX snapshots_at ON snapshots(table_id, count);
CREATE TABLE link_notes(
    id INTEGER PRIMARY KEY,
    session_id INTEGER REFERENCES sessions(id),
    at TEXT NOT NULL,
    kind TEXT NOT NULL,
    detail TEXT NOT NULL
);
"""

_V2 = """
CREATE TABLE hands(
    id INTEGER PRIMARY KEY,
    table_id INTEGER NOT NULL REFERENCES tables(id),
    start_event INTEGER NOT NULL UNIQUE REFERENCES events(id),
    start_idx INTEGER NOT NULL,
    end_idx INTEGER NOT NULL,
    partial INTEGER NOT NULL,
    status TEXT NOT NULL,
    hand_no INTEGER, dealer INTEGER, decks INTEGER, level0 INTEGER, level1 INTEGER,
    first_hand INTEGER, trump INTEGER, declarer INTEGER, attackers_score INTEGER,
    kitty_points INTEGER, multiplier INTEGER, bonus INTEGER, next_dealer INTEGER,
    next_level0 INTEGER, next_level1 INTEGER, match_winner INTEGER, forfeit_seat INTEGER,
    result TEXT,
    started_at TEXT NOT NULL,
    ended_at TEXT
);
CREATE INDEX hands_at ON hands(table_id, start_idx);
CREATE TABLE verdicts(
    event_id INTEGER NOT NULL REFERENCES events(id),
    session_id INTEGER NOT NULL REFERENCES sessions(id),
    verdict TEXT NOT NULL CHECK (verdict IN ('agreed', 'disagreed', 'unchecked', 'not verified')),
    what TEXT,
    host_event TEXT,
    table_hash INTEGER,
    host_hash INTEGER,
    fields TEXT,
    table_text TEXT,
    host_text TEXT,
    PRIMARY KEY(event_id, session_id)
);
"""


def _migrate_1(db: sqlite3.Connection) -> None:
    for stmt in _V1.split(";"):
        if stmt.strip():
            db.execute(stmt)


def _migrate_2(db: sqlite3.Connection) -> None:
    """Hands and verdicts; the hands of the events already stored are derived."""
    for stmt in _V2.split(";"):
        if stmt.strip():
            db.execute(stmt)
    for (table_id,) in db.execute("SELECT id FROM tables").fetchall():
        _rederive(db, table_id, 0)


def _migrate_3(db: sqlite3.Connection) -> None:
    """The tables' identity (``uid``, the WELCOME's ninth field); the tables
    that version 2 merged by mistake are told apart (:func:`_split_forks`)."""
    db.execute("ALTER TABLE tables ADD COLUMN uid TEXT")
    db.execute("CREATE INDEX tables_uid ON tables(uid)")
    _split_forks(db)


def _split_forks(db: sqlite3.Connection) -> None:
    """Before tables had an identity, a fresh table whose first events were
    those of a table already recorded (two virtual tables dealt the same
    way) joined it: its events were stored once with the other's, or, where
    they differed, superseded the other's as a ``fork`` (hiding its hands).
    A later boot of a table is another table when it sent its log from the
    first event (a table that restarted from its flash sends its log from
    its snapshot on), or when its events replaced another boot's without a
    rollback the link noted. It moves to a table of its own with the events
    of its history (by the hash chain: its own, and copies of those it
    shared, as far as its sessions' events and verdicts show them), its
    sessions, snapshots and verdicts; what it superseded is current again."""
    for (table_id,) in db.execute("SELECT id FROM tables ORDER BY id").fetchall():
        boots = [r[0] for r in db.execute(
            "SELECT id FROM boots WHERE table_id = ? ORDER BY first_seen, id", (table_id,))]
        moved: list[int] = []
        for boot in boots[1:]:
            new = _split_boot(db, table_id, boot)
            if new is not None:
                moved.append(new)
        if moved:
            _rederive(db, table_id, 0)
            for t in moved:
                _rederive(db, t, 0)


def _split_boot(db: sqlite3.Connection, table_id: int, boot: int) -> int | None:
    sessions = [r[0] for r in db.execute("SELECT id FROM sessions WHERE boot = ? ORDER BY id", (boot,))]
    if not sessions:
        return None
    marks = ",".join("?" for _ in sessions)
    own = {r[0]: r[1:] for r in db.execute(
        f"SELECT id, idx, hash, event, replaces FROM events WHERE table_id = ? AND session_id IN ({marks})",
        (table_id, *sessions),
    )}
    seen = {r[0] for r in db.execute(
        f"SELECT DISTINCT v.event_id FROM verdicts v JOIN events e ON e.id = v.event_id "
        f"WHERE e.table_id = ? AND v.session_id IN ({marks})",
        (table_id, *sessions),
    )} | set(own)
    if not seen:
        return None
    rows = {r[0]: r[1:] for r in db.execute(
        f"SELECT id, idx, hash, event, kind, received_at, session_id FROM events "
        f"WHERE id IN ({','.join('?' for _ in seen)})", tuple(seen),
    )}
    rolled = db.execute(
        f"SELECT 1 FROM link_notes WHERE kind = 'rollback' AND session_id IN ({marks})", sessions
    ).fetchone() is not None
    others = {r[0] for r in db.execute(
        f"SELECT id FROM events WHERE table_id = ? AND session_id NOT IN ({marks})",
        (table_id, *sessions),
    )}
    forked = [v[0] for v in own.values() if v[3] is not None and v[3] in others]
    fresh = min(r[0] for r in rows.values()) == 0
    if not fresh and (rolled or not forked):
        return None
    # the boot's history by the hash chain
    branch: list[int] = []
    if fresh:
        h = 0
        for idx in range(max(r[0] for r in rows.values()) + 1):
            cands = sorted(
                (eid for eid, r in rows.items()
                 if r[0] == idx and ttlink.chain_hash(h, _load_event(r[2])) == r[1]),
                key=lambda e: (e not in own, -e),
            )
            if not cands:
                # an event the boot sent again, kept once with another boot's
                # (no verdict of its own on it): the chain shows it
                shared = [
                    r for r in db.execute(
                        "SELECT id, hash, event FROM events WHERE table_id = ? AND idx = ? ORDER BY id",
                        (table_id, idx))
                    if ttlink.chain_hash(h, _load_event(r[2])) == r[1]
                ]
                if not shared:
                    break
                rows[shared[0][0]] = (idx, shared[0][1], shared[0][2])
                cands = [shared[0][0]]
            branch.append(cands[0])
            h = rows[cands[0]][1]
    else:
        first = min(forked)
        start = next(eid for eid, v in own.items() if v[0] == first)
        branch = [start]
        h_next, ev_next = own[start][1], _load_event(own[start][2])
        for idx in range(first - 1, -1, -1):
            prev = next(
                (r[0] for r in db.execute(
                    "SELECT id, hash, event FROM events WHERE table_id = ? AND idx = ?", (table_id, idx))
                 if ttlink.chain_hash(r[1], ev_next) == h_next),
                None,
            )
            if prev is None:
                break
            branch.insert(0, prev)
            row = db.execute("SELECT hash, event FROM events WHERE id = ?", (prev,)).fetchone()
            h_next, ev_next = row[0], _load_event(row[1])
        # and on from the fork: the boot's own events, by the chain
        h = own[start][1]
        for idx in range(first + 1, max(v[0] for v in own.values()) + 1):
            nxt = max(
                (e for e, v in own.items() if v[0] == idx and ttlink.chain_hash(h, _load_event(v[2])) == v[1]),
                default=None,
            )
            if nxt is None:
                break
            branch.append(nxt)
            h = own[nxt][1]
    b = db.execute("SELECT fw_version, rules_id, first_seen, last_seen FROM boots WHERE id = ?",
                   (boot,)).fetchone()
    new = _rowid(db.execute(
        "INSERT INTO tables (first_seen, last_seen, fw_version, rules_id) VALUES (?, ?, ?, ?)",
        (b[2], b[3], b[0], b[1]),
    ))
    db.execute("UPDATE boots SET table_id = ? WHERE id = ?", (new, boot))
    db.execute(f"UPDATE sessions SET table_id = ? WHERE id IN ({marks})", (new, *sessions))
    db.execute(f"UPDATE snapshots SET table_id = ? WHERE session_id IN ({marks})", (new, *sessions))
    ids = list(own)
    if ids:
        db.execute(f"DELETE FROM hands WHERE start_event IN ({','.join('?' for _ in ids)})", ids)
        db.execute(
            f"UPDATE events SET table_id = ?, replaces = NULL, current = 0 WHERE id IN "
            f"({','.join('?' for _ in ids)})",
            (new, *ids),
        )
    for eid in branch:
        if eid in own:
            db.execute("UPDATE events SET current = 1, superseded_at = NULL, superseded_why = NULL "
                       "WHERE id = ?", (eid,))
            continue
        r = db.execute("SELECT idx, hash, event, kind, received_at FROM events WHERE id = ?",
                       (eid,)).fetchone()
        # a copy: received when this boot's first session came up, at the earliest
        cid = _rowid(db.execute(
            "INSERT INTO events (table_id, idx, hash, event, kind, session_id, received_at) "
            "VALUES (?, ?, ?, ?, ?, ?, MAX(?, (SELECT up_at FROM sessions WHERE id = ?)))",
            (new, r[0], r[1], r[2], r[3], sessions[0], r[4], sessions[0]),
        ))
        db.execute(
            f"UPDATE verdicts SET event_id = ? WHERE event_id = ? AND session_id IN ({marks})",
            (cid, eid, *sessions),
        )
    # what the boot superseded is current again where nothing else is
    for eid, idx in db.execute(
        "SELECT id, idx FROM events WHERE table_id = ? AND current = 0 AND superseded_why = 'fork' "
        "ORDER BY idx, id DESC",
        (table_id,),
    ).fetchall():
        if db.execute("SELECT 1 FROM events WHERE table_id = ? AND idx = ? AND current = 1",
                      (table_id, idx)).fetchone() is None:
            db.execute("UPDATE events SET current = 1, superseded_at = NULL, superseded_why = NULL "
                       "WHERE id = ?", (eid,))
    return new


def _migrate_4(db: sqlite3.Connection) -> None:
    """Find-a-friend (``partners = "called"``): the levels per seat (seats 2
    and 3 besides ``level0``/``level1``, before and after), the face called
    and the partner; the hands are derived again (NULL at fixed partners)."""
    have = {r[1] for r in db.execute("PRAGMA table_info(hands)")}
    for col in ("level2", "level3", "next_level2", "next_level3", "called", "partner"):
        if col not in have:
            db.execute(f"ALTER TABLE hands ADD COLUMN {col} INTEGER")
    for (table_id,) in db.execute("SELECT id FROM tables").fetchall():
        _rederive(db, table_id, 0)


#: user_version N -> the step that brings a file from N-1 to N
MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {
    1: _migrate_1, 2: _migrate_2, 3: _migrate_3, 4: _migrate_4,
}

_TABLES = ("tables", "boots", "sessions", "events", "snapshots", "link_notes", "hands", "verdicts")


# ---------------------------------------------------------------- hands from events


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
            f["result"] = _describe(ev)

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


#: firmware/table.py phases: the hand goes on in these (deal, kitty, play, scan, reveal)
_HAND_PHASES = (0, 1, 2, 5, 6)


def _from_snapshot(h: HandFacts, snap: Any) -> None:
    """A partial hand's facts from the table's snapshot at its first event."""
    if not isinstance(snap, list) or len(snap) < 20 or snap[0] != 2:
        return
    if not all(isinstance(x, int) for x in snap[1:13]):
        return
    phase = snap[2]
    h.facts.update(decks=snap[1], hand_no=snap[3], first_hand=snap[4], dealer=snap[5],
                   level0=snap[6], level1=snap[7])
    friend = snap[-1] if len(snap) > 22 else None
    if isinstance(friend, list) and len(friend) == 5 and friend[0] == 2:
        # partners = "called": [2, call, partner, level seat 2, level seat 3]
        h.facts.update(level2=friend[3], level3=friend[4])
        if friend[1] >= 0:
            h.facts["called"] = friend[1]
        if friend[2] != -2:
            h.facts["partner"] = friend[2]
    if phase in (1, 2, 5) and snap[8] >= 0:
        h.facts.update(trump=snap[8], declarer=snap[9])
    if phase == 2:
        h.facts["attackers_score"] = snap[10]
    if phase not in _HAND_PHASES:  # the hand was over before the records start
        h.status = "done"
        end = snap[19]
        h.facts["result"] = _describe(end) if isinstance(end, list) and end else "over"


def _snapshots(db: sqlite3.Connection, table_id: int, frm: int) -> dict[int, Any]:
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


def _describe(ev: Sequence[Any]) -> str:
    from .virtual.events import describe

    try:
        return describe(ev)
    except (IndexError, KeyError, TypeError, ValueError):
        return f"event {list(ev)!r}"


def _load_event(text: str) -> Event:
    ev = json.loads(text)
    if not isinstance(ev, list):
        raise ValueError("an event is a JSON array")
    return ev


def _rederive(db: sqlite3.Connection, table_id: int, idx: int) -> None:
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
        (eid, i, _load_event(text), at)
        for eid, i, text, at in db.execute(
            "SELECT id, idx, event, received_at FROM events WHERE table_id = ? AND current = 1 "
            "AND idx >= ? ORDER BY idx",
            (table_id, frm),
        )
    ]
    derived = derive_hands(rows, _snapshots(db, table_id, frm))
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


# ---------------------------------------------------------------- the store


class Store:
    """One records database. :meth:`open` checks, creates or migrates it."""

    def __init__(self, path: Path, db: sqlite3.Connection, clock: Callable[[], str]) -> None:
        self.path = path
        self.db = db
        self.clock = clock
        self.lock = threading.RLock()

    # --- opening

    @classmethod
    def open(
        cls, path: Path | str, *, create: bool = True, clock: Callable[[], str] = now_utc
    ) -> Store:
        """Open (or, with ``create``, create) the records at ``path``;
        RecordsError if it is not ours (then it is left untouched)."""
        path = Path(path)
        _check_file(path)
        if not create and not path.exists():
            raise RecordsError(
                f"records {path}: no records there yet ('tractor-table link' and 'tractor-table "
                "virtual' write them; --db names another file)"
            )
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise RecordsError(
                f"records {path}: cannot create {path.parent} ({exc.strerror or exc}); "
                "give another file with --db"
            ) from None
        try:
            db = sqlite3.connect(
                path, timeout=10.0, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise RecordsError(f"records {path}: cannot open it ({exc}); give another file with --db") from None
        try:
            _prepare(db, path)
        except BaseException:
            db.close()
            raise
        return cls(path, db, clock)

    def close(self) -> None:
        with self.lock:
            self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: all of it or nothing."""
        with self.lock:
            try:
                self.db.execute("BEGIN IMMEDIATE")
            except sqlite3.DatabaseError as exc:
                raise _damaged(self.path, exc) from None
            try:
                yield self.db
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            try:
                self.db.execute("COMMIT")
            except sqlite3.DatabaseError as exc:
                self.db.execute("ROLLBACK")
                raise _damaged(self.path, exc) from None

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self.lock:
            try:
                return self.db.execute(sql, params).fetchall()
            except sqlite3.DatabaseError as exc:
                raise _damaged(self.path, exc) from None

    # --- reading

    _HAND_SQL = (
        "SELECT h.*, "
        " (SELECT COUNT(*) FROM events e WHERE e.table_id = h.table_id AND e.current = 1"
        "   AND e.idx BETWEEN h.start_idx AND h.end_idx) AS events,"
        " (SELECT COUNT(DISTINCT v.event_id) FROM verdicts v JOIN events e ON e.id = v.event_id"
        "   WHERE e.table_id = h.table_id AND e.idx BETWEEN h.start_idx AND h.end_idx"
        "   AND v.verdict = 'disagreed') AS disagreements "
        "FROM hands h "
    )

    def hands(self, table: int | None = None) -> list[dict[str, Any]]:
        """Every hand (rolled back ones too), oldest first, with the number of
        its events and of those some session disagreed on."""
        rows = self.query(
            self._HAND_SQL + "WHERE ? IS NULL OR h.table_id = ? ORDER BY h.started_at, h.id",
            (table, table),
        )
        return [self._hand_dict(r) for r in rows]

    def hand(self, hand_id: int) -> dict[str, Any]:
        for h in self.query(self._HAND_SQL + "WHERE h.id = ?", (hand_id,)):
            return self._hand_dict(h)
        raise RecordsError(
            f"records {self.path}: no hand {hand_id}; 'tractor-table records list' shows the hands"
        )

    def _hand_dict(self, row: tuple[Any, ...]) -> dict[str, Any]:
        names = [d[1] for d in self.query("PRAGMA table_info(hands)")]
        d = dict(zip([*names, "events", "disagreements"], row, strict=True))
        return d

    def hand_events(self, hand: dict[str, Any]) -> list[dict[str, Any]]:
        """The events of a hand in index order (current ones; for a rolled-back
        hand, those of its branch), each with its verdicts."""
        if hand["status"] == "rolled back":
            sql = ("SELECT id, idx, hash, event, received_at, current, superseded_why, session_id "
                   "FROM events WHERE table_id = ? AND idx BETWEEN ? AND ? AND id >= ? "
                   "AND (current = 0 OR id = ?) ORDER BY idx, id")
            params: tuple[Any, ...] = (hand["table_id"], hand["start_idx"], hand["end_idx"],
                                       hand["start_event"], hand["start_event"])
        else:
            sql = ("SELECT id, idx, hash, event, received_at, current, superseded_why, session_id "
                   "FROM events WHERE table_id = ? AND idx BETWEEN ? AND ? ORDER BY idx, current DESC, id")
            params = (hand["table_id"], hand["start_idx"], hand["end_idx"])
        out = []
        seen: set[int] = set()
        for eid, idx, h, text, at, current, why, sid in self.query(sql, params):
            if hand["status"] == "rolled back" and idx in seen:
                continue
            seen.add(idx)
            verdicts = [
                dict(zip(("session", "verdict", "what", "host_event", "table_hash", "host_hash",
                          "fields", "table_text", "host_text"), v, strict=True))
                for v in self.query(
                    "SELECT session_id, verdict, what, host_event, table_hash, host_hash, fields, "
                    "table_text, host_text FROM verdicts WHERE event_id = ? ORDER BY session_id",
                    (eid,),
                )
            ]
            out.append({"id": eid, "index": idx, "hash": h, "event": _load_event(text),
                        "received_at": at, "current": bool(current), "superseded": why,
                        "session": sid, "verdicts": verdicts})
        return out

    def session_rules(self, session_id: int) -> dict[str, Any] | None:
        for (text,) in self.query("SELECT rules FROM sessions WHERE id = ?", (session_id,)):
            return json.loads(text) if text else None
        return None

    def counts(self) -> dict[str, int]:
        return {t: self.query(f"SELECT COUNT(*) FROM {t}")[0][0] for t in _TABLES}

    # --- integrity

    def check(self) -> tuple[list[str], list[str]]:
        """(problems, remarks): SQLite's own checks, the hash chain of every
        table's current events re-verified with ``ttlink.chain_hash``, every
        stored event's JSON canonical, the hands equal to what their events
        say. Remarks are facts that are no fault (gaps while no host listened,
        superseded events)."""
        problems: list[str] = []
        remarks: list[str] = []
        for (msg,) in self.query("PRAGMA integrity_check"):
            if msg != "ok":
                problems.append(f"sqlite: {msg}")
        for row in self.query("PRAGMA foreign_key_check"):
            problems.append(f"sqlite: a row of {row[0]} points to a missing row of {row[2]}")
        for (table_id,) in self.query("SELECT id FROM tables ORDER BY id"):
            p, r = self._check_table(table_id)
            problems += p
            remarks += r
        return problems, remarks

    def _check_table(self, table_id: int) -> tuple[list[str], list[str]]:
        problems: list[str] = []
        remarks: list[str] = []
        snaps: dict[int, set[int]] = {}
        for count, head in self.query("SELECT count, head FROM snapshots WHERE table_id = ?", (table_id,)):
            snaps.setdefault(count, set()).add(head)
        prev_idx, prev_hash = -1, 0
        rows = self.query(
            "SELECT id, idx, hash, event FROM events WHERE table_id = ? AND current = 1 ORDER BY idx",
            (table_id,),
        )
        checked = 0
        for _eid, idx, h, text in rows:
            try:
                ev = _load_event(text)
            except ValueError as exc:
                problems.append(f"table {table_id} event {idx}: not an event ({exc})")
                prev_idx = -2
                continue
            if ttlink.canonical(ev).decode() != text:
                problems.append(f"table {table_id} event {idx}: JSON not as the link carries it")
            if idx == prev_idx + 1:
                heads = {prev_hash} | snaps.get(idx, set())
            elif idx == 0:
                heads = {0}
            elif idx in snaps:
                heads = snaps[idx]
                remarks.append(
                    f"table {table_id}: events {prev_idx + 1}-{idx - 1} never reached the host "
                    f"(the log goes on from the table's snapshot at {idx})"
                    if prev_idx >= 0 else
                    f"table {table_id}: the records start at the table's snapshot at event {idx}"
                )
            else:
                heads = set()
                remarks.append(
                    f"table {table_id}: events {prev_idx + 1}-{idx - 1} never reached the host; "
                    f"event {idx}'s hash cannot be checked against the one before it"
                )
            if heads and not any(ttlink.chain_hash(x, ev) == h for x in heads):
                problems.append(
                    f"table {table_id} event {idx}: state hash {h:08x} is not chain_hash of the "
                    f"hash before it and the event: the chain is broken here"
                )
            checked += 1
            prev_idx, prev_hash = idx, h
        sup = self.query(
            "SELECT COUNT(*), GROUP_CONCAT(DISTINCT superseded_why) FROM events "
            "WHERE table_id = ? AND current = 0",
            (table_id,),
        )[0]
        if sup[0]:
            remarks.append(f"table {table_id}: {sup[0]} event(s) superseded ({sup[1]}), kept")
        # the hands must say what their events say
        with self.lock:
            stored = {
                r[0]: r[1:]
                for r in self.db.execute(
                    "SELECT start_event, start_idx, end_idx, partial, status, started_at, ended_at, "
                    f"{', '.join(HandFacts.COLUMNS)} FROM hands "
                    "WHERE table_id = ? AND status != 'rolled back'",
                    (table_id,),
                )
            }
        full = [
            (eid, i, _load_event(t), at)
            for eid, i, t, at in self.query(
                "SELECT id, idx, event, received_at FROM events WHERE table_id = ? AND current = 1 "
                "ORDER BY idx",
                (table_id,),
            )
        ]
        with self.lock:
            snaps = _snapshots(self.db, table_id, 0)
        derived = {h.start_event: h.row() for h in derive_hands(full, snaps)}
        if stored != derived:
            bad = sorted(set(stored) ^ set(derived)) + sorted(
                k for k in set(stored) & set(derived) if stored[k] != derived[k]
            )
            problems.append(
                f"table {table_id}: the hands stored differ from what the events say "
                f"(hands starting at event row(s) {', '.join(map(str, bad[:5]))})"
            )
        remarks.append(f"table {table_id}: {checked} event(s) in the chain checked")
        return problems, remarks


def _rowid(cur: sqlite3.Cursor) -> int:
    rid = cur.lastrowid
    assert rid is not None
    return rid


def _check_file(path: Path) -> None:
    """Refuse, before SQLite touches it, a path that is no records file."""
    if path.is_dir():
        raise RecordsError(f"records {path}: is a folder; give a file with --db")
    if not path.exists():
        parent = path.parent
        while not parent.exists():
            parent = parent.parent
        if not parent.is_dir():
            raise RecordsError(f"records {path}: {parent} is not a folder; give another file with --db")
        return
    try:
        with open(path, "rb") as f:
            head = f.read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise RecordsError(f"records {path}: cannot read it ({exc.strerror or exc})") from None
    if head and head != SQLITE_MAGIC:
        raise RecordsError(
            f"records {path}: not an SQLite database, so not tractor-table's records; it was left "
            "untouched: give another file with --db, or move this one away"
        )


def _damaged(path: Path, exc: sqlite3.Error) -> RecordsError:
    if isinstance(exc, sqlite3.OperationalError):
        # not the file's content: permissions, a full disk, a lock held too long
        return RecordsError(
            f"records {path}: cannot use it ({exc}); check the folder's permissions and free "
            "space, or give another file with --db"
        )
    return RecordsError(
        f"records {path}: the database is damaged ({exc}); it was left as it is: keep a copy, "
        "try 'sqlite3 FILE .recover', or move it away and start new records (--db another file)"
    )


def _prepare(db: sqlite3.Connection, path: Path) -> None:
    """Check that the file is ours (or new), then WAL, foreign keys, migrations."""
    try:
        app = db.execute("PRAGMA application_id").fetchone()[0]
        version = db.execute("PRAGMA user_version").fetchone()[0]
        names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    except sqlite3.DatabaseError as exc:
        raise _damaged(path, exc) from None
    if app != APPLICATION_ID and (app != 0 or names or version != 0):
        raise RecordsError(
            f"records {path}: an SQLite database of another program (application id {app:#x}, "
            f"{len(names)} table(s)); it was left untouched: give another file with --db"
        )
    if version > SCHEMA_VERSION:
        raise RecordsError(
            f"records {path}: written by a newer tractor-table (schema {version}, this one "
            f"knows up to {SCHEMA_VERSION}); it was left untouched: update tractor-table, or "
            "give another file with --db"
        )
    try:
        db.execute("PRAGMA busy_timeout = 10000")
        db.execute("PRAGMA foreign_keys = ON")
        if db.execute("PRAGMA journal_mode = WAL").fetchone()[0].lower() != "wal":
            raise RecordsError(f"records {path}: SQLite cannot keep a write-ahead log there; give a file on a local disk with --db")
        # a commit is on disk before the next note is taken: a crash (or a
        # power cut) loses at most the note in flight
        db.execute("PRAGMA synchronous = FULL")
        if version < SCHEMA_VERSION:
            db.execute("BEGIN IMMEDIATE")
            try:
                version = db.execute("PRAGMA user_version").fetchone()[0]  # another process?
                for v in range(version + 1, SCHEMA_VERSION + 1):
                    MIGRATIONS[v](db)
                db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
    except sqlite3.DatabaseError as exc:
        raise _damaged(path, exc) from None


# ---------------------------------------------------------------- the recorder


class Recorder:
    """Writes what the link reports into a :class:`Store` (see the module docs).

    ``port`` and ``source`` (``link``, ``virtual``, ...) say where the notes
    come from; ``rules`` (a ``shengji.Rules``, or its ``to_dict()``) are the
    rules the host judges with, kept with each session (an engine record of a
    hand needs them)."""

    def __init__(
        self,
        store: Store,
        *,
        port: str = "",
        source: str = "link",
        rules: Any = None,
        host_version: str | None = None,
    ) -> None:
        from . import __version__

        self.store = store
        self.port = port
        self.source = source
        if rules is not None and not isinstance(rules, dict):
            rules = rules.to_dict()
        self.rules_json = json.dumps(rules, sort_keys=True) if rules is not None else None
        self.host_version = host_version or __version__
        self.table_id: int | None = None
        self.session_id: int | None = None
        self.rolled_back_to: int | None = None  # the table's count after a rollback note
        self.failed = ""
        self.new_events = 0
        self.replayed = 0  # events already stored
        self.conflicts = 0  # events stored beside another at the same index
        self.verdicts = 0
        self.hands_seen: set[int] = set()
        self._pushes: dict[int, tuple[bytes, int, int]] = {}

    # --- the link's notes

    def on_note(self, note: Note) -> None:
        """Record one note of the host link (``SerialLink(on_note=...)``)."""
        self._guard(self._note, note, None)

    def follow(self, verifier: Any) -> Callable[[Note], None]:
        """A note callback that feeds ``verifier`` (a :class:`~tractor_table.link.verifier.Verifier`)
        and records each note with the verifier's verdict on it, in one transaction."""

        def on_note(note: Note) -> None:
            before = (verifier.agreed, verifier.unchecked, len(verifier.disagreements))
            try:
                verifier.on_note(note)
            except Exception:
                self.on_note(note)
                raise
            verdict: tuple[str, Any] | None = None
            if note[0] == "event":
                if len(verifier.disagreements) > before[2]:
                    verdict = ("disagreed", verifier.disagreements[-1])
                elif verifier.refused:
                    verdict = ("not verified", None)
                elif verifier.agreed > before[0]:
                    verdict = ("agreed", None)
                elif verifier.unchecked > before[1]:
                    verdict = ("unchecked", None)
            self._guard(self._note, note, verdict)

        return on_note

    def on_verdict(self, index: int, verdict: str, disagreement: Any = None) -> None:
        """The verifier's verdict on the current table's event ``index``:
        ``agreed``, ``disagreed`` (give the Disagreement), ``unchecked`` or
        ``not verified``."""
        self._guard(self._verdict_only, index, (verdict, disagreement))

    def on_disagreement(self, d: Any) -> None:
        """A verifier Disagreement (both views kept)."""
        self.on_verdict(d.index, "disagreed", d)

    def pushing(self, push: Callable[[bytes, int, int], int]) -> Callable[[bytes, int, int], int]:
        """Wrap ``SerialLink.push_snapshot``: a snapshot the table takes is kept
        (the log goes on from it)."""

        def wrapped(data: bytes, count: int, head: int) -> int:
            sid = push(data, count, head)
            self._pushes[sid] = (bytes(data), count, head)
            return sid

        return wrapped

    # --- inside

    def _guard(self, fn: Callable[..., None], *args: Any) -> None:
        if self.failed:
            return
        try:
            fn(*args)
        except (RecordsError, sqlite3.Error, OSError, ValueError, TypeError) as exc:
            self.failed = f"recording stopped: {exc}"

    def _note(self, note: Note, verdict: tuple[str, Any] | None) -> None:
        kind = note[0]
        if kind == "app":
            return  # the table's replies and display lines: not game records
        with self.store.transaction() as db:
            at = self.store.clock()
            if kind == "up":
                self._up(db, note[1], at)
            elif kind == "event":
                if self.session_id is None or self.table_id is None:
                    return
                eid = self._event(db, note[1], note[2], note[3], at)
                if verdict is not None:
                    self._put_verdict(db, eid, note[2], *verdict)
            elif kind == "snapshot":
                self._snapshot(db, note[1], note[2], note[3] if len(note) > 3 else None, 0, at)
                self._note_row(db, kind, [note[1], note[2]], at)
            elif kind == "snapshot_done":
                p = self._pushes.pop(note[1], None)
                if p is not None and note[2]:
                    self._snapshot(db, p[1], p[2], p[0], 1, at)
                self._note_row(db, kind, note[1:], at)
            else:
                if kind == "down" and self.session_id is not None:
                    db.execute(
                        "UPDATE sessions SET down_at = ?, down_reason = ? WHERE id = ? AND down_at IS NULL",
                        (at, str(note[1]) if len(note) > 1 else "", self.session_id),
                    )
                elif kind == "synced" and self.session_id is not None:
                    db.execute(
                        "UPDATE sessions SET synced_at = ? WHERE id = ? AND synced_at IS NULL",
                        (at, self.session_id),
                    )
                elif kind == "rollback":
                    self.rolled_back_to = int(note[1])
                detail = [bytes(x).decode("utf-8", "replace") if isinstance(x, bytes | bytearray)
                          else x for x in note[1:]]
                self._note_row(db, kind, detail, at)

    def _note_row(self, db: sqlite3.Connection, kind: str, detail: Any, at: str) -> None:
        db.execute(
            "INSERT INTO link_notes (session_id, at, kind, detail) VALUES (?, ?, ?, ?)",
            (self.session_id, at, kind, json.dumps(detail, default=repr)),
        )

    def _up(self, db: sqlite3.Connection, p: list[Any], at: str) -> None:
        fw, rules_id, boot_id = str(p[1]), str(p[2]), int(p[3])
        count, head, agree = int(p[5]), int(p[6]), int(p[7])
        uid = str(p[8]) if len(p) > 8 and isinstance(p[8], str) and p[8] else None
        if self.session_id is not None:
            db.execute(
                "UPDATE sessions SET down_at = ?, down_reason = 'a new session' "
                "WHERE id = ? AND down_at IS NULL",
                (at, self.session_id),
            )
        if uid is not None:
            # the table says who it is: its own records, whatever its log holds
            row = db.execute("SELECT id FROM tables WHERE uid = ? ORDER BY id LIMIT 1", (uid,)).fetchone()
            table = int(row[0]) if row is not None else None
        else:
            table = self._which_table(db, boot_id, fw, rules_id, count, head)
        if table is None:
            table = db.execute(
                "INSERT INTO tables (first_seen, last_seen, fw_version, rules_id, uid) "
                "VALUES (?, ?, ?, ?, ?)",
                (at, at, fw, rules_id, uid),
            ).lastrowid
        db.execute(
            "UPDATE tables SET last_seen = ?, fw_version = ?, rules_id = ? WHERE id = ?",
            (at, fw, rules_id, table),
        )
        boot = db.execute(
            "SELECT id FROM boots WHERE table_id = ? AND boot_id = ?", (table, boot_id)
        ).fetchone()
        if boot is None:
            boot_row = db.execute(
                "INSERT INTO boots (table_id, boot_id, fw_version, rules_id, first_seen, last_seen) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (table, boot_id, fw, rules_id, at, at),
            ).lastrowid
        else:
            boot_row = boot[0]
            db.execute("UPDATE boots SET last_seen = ? WHERE id = ?", (at, boot_row))
        self.table_id = table
        self.rolled_back_to = None
        self.session_id = db.execute(
            "INSERT INTO sessions (table_id, boot, source, port, host_version, rules, up_at, "
            "table_count, table_head, agree) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (table, boot_row, self.source, self.port, self.host_version, self.rules_json, at,
             count, head, agree),
        ).lastrowid

    def _which_table(
        self, db: sqlite3.Connection, boot_id: int, fw: str, rules_id: str, count: int, head: int
    ) -> int | None:
        row = db.execute(
            "SELECT b.table_id FROM boots b JOIN tables t ON t.id = b.table_id "
            "WHERE b.boot_id = ? AND b.fw_version = ? AND b.rules_id = ? AND t.uid IS NULL "
            "ORDER BY b.last_seen DESC LIMIT 1",
            (boot_id, fw, rules_id),
        ).fetchone()
        if row is not None:
            return int(row[0])
        if count == 0:
            return None
        rows = db.execute(
            "SELECT e.table_id FROM events e JOIN tables t ON t.id = e.table_id "
            "WHERE e.idx = ? AND e.hash = ? AND e.current = 1 AND t.uid IS NULL "
            "UNION SELECT s.table_id FROM snapshots s JOIN tables t ON t.id = s.table_id "
            "WHERE s.count = ? AND s.head = ? AND t.uid IS NULL",
            (count - 1, head, count, head),
        ).fetchall()
        found = {int(r[0]) for r in rows}
        if self.table_id in found:
            return self.table_id
        if not found:
            return None
        return int(
            db.execute(
                f"SELECT id FROM tables WHERE id IN ({','.join('?' for _ in found)}) "
                "ORDER BY last_seen DESC LIMIT 1",
                tuple(found),
            ).fetchone()[0]
        )

    def _event(self, db: sqlite3.Connection, idx: int, h: int, ev: Event, at: str) -> int:
        table = self.table_id
        assert table is not None
        text = ttlink.canonical(ev).decode()
        same = db.execute(
            "SELECT id, current FROM events WHERE table_id = ? AND idx = ? AND hash = ?",
            (table, idx, h),
        ).fetchone()
        if same is not None and same[1]:
            self.replayed += 1
            return int(same[0])
        other = db.execute(
            "SELECT id FROM events WHERE table_id = ? AND idx = ? AND current = 1", (table, idx)
        ).fetchone()
        replaces = None
        if other is not None:
            # the table's history differs from what is stored from here on:
            # the stored events stay, marked superseded
            why = "rollback" if self.rolled_back_to is not None and self.rolled_back_to <= idx else "fork"
            db.execute(
                "UPDATE events SET current = 0, superseded_at = ?, superseded_why = ? "
                "WHERE table_id = ? AND idx >= ? AND current = 1",
                (at, why, table, idx),
            )
            replaces = int(other[0])
            self.conflicts += 1
        if same is not None:  # an event of a superseded branch comes back
            db.execute(
                "UPDATE events SET current = 1, superseded_at = NULL, superseded_why = NULL "
                "WHERE id = ?",
                (same[0],),
            )
            eid = int(same[0])
        else:
            eid = _rowid(db.execute(
                "INSERT INTO events (table_id, idx, hash, event, kind, session_id, received_at, "
                "replaces) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (table, idx, h, text, int(ev[0]) if ev and isinstance(ev[0], int) else -1,
                 self.session_id, at, replaces),
            ))
            self.new_events += 1
        _rederive(db, table, idx)
        for (hid,) in db.execute(
            "SELECT id FROM hands WHERE table_id = ? AND start_idx <= ? AND end_idx >= ? "
            "AND status != 'rolled back'",
            (table, idx, idx),
        ):
            self.hands_seen.add(int(hid))
        return eid

    def _snapshot(
        self, db: sqlite3.Connection, count: int, head: int, data: Any, pushed: int, at: str
    ) -> None:
        if self.session_id is None or self.table_id is None:
            return
        db.execute(
            "INSERT INTO snapshots (table_id, session_id, count, head, data, pushed, received_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (self.table_id, self.session_id, count, head,
             bytes(data) if data is not None else None, pushed, at),
        )

    def _verdict_only(self, index: int, verdict: tuple[str, Any]) -> None:
        with self.store.transaction() as db:
            row = db.execute(
                "SELECT id, hash FROM events WHERE table_id = ? AND idx = ? AND current = 1",
                (self.table_id, index),
            ).fetchone()
            if row is None:
                return  # an event this recorder did not see: nothing to attach it to
            self._put_verdict(db, row[0], row[1], *verdict)

    def _put_verdict(self, db: sqlite3.Connection, eid: int, h: int, verdict: str, d: Any) -> None:
        if self.session_id is None:
            return
        if d is None:
            db.execute(
                "INSERT OR REPLACE INTO verdicts (event_id, session_id, verdict, table_hash) "
                "VALUES (?, ?, ?, ?)",
                (eid, self.session_id, verdict, h),
            )
        else:
            db.execute(
                "INSERT OR REPLACE INTO verdicts (event_id, session_id, verdict, what, host_event, "
                "table_hash, host_hash, fields, table_text, host_text) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (eid, self.session_id, verdict, d.what,
                 json.dumps(d.host_event) if d.host_event is not None else None,
                 d.device_hash, d.host_hash, json.dumps(list(d.fields)), d.device_text, d.host_text),
            )
        self.verdicts += 1

    def summary(self) -> str:
        if self.failed:
            return f"records {self.store.path}: {self.failed}"
        return (
            f"records {self.store.path}: {self.new_events} new event(s), {self.replayed} already "
            f"kept, {self.conflicts} conflict(s); {len(self.hands_seen)} hand(s) "
            f"('tractor-table records list --db {self.store.path}')"
        )


def open_recorder(
    db: Path | None, no_record: bool, *, port: str, source: str, rules: Any
) -> Recorder | None:
    """The recorder a command asked for (None with ``--no-record``)."""
    if no_record:
        return None
    try:
        store = Store.open(db if db is not None else default_path())
    except RecordsError as exc:
        raise RecordsError(f"{exc} (or --no-record: follow the table without recording)") from None
    return Recorder(store, port=port, source=source, rules=rules)


# ---------------------------------------------------------------- export


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

    from .link.engine_replayer import EngineReplayer

    if hand["partial"]:
        raise NotFaithful(
            f"the records start inside this hand (at event {hand['start_idx']}): its beginning "
            "never reached the host"
        )
    events = _branch(store, hand)
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
        if ev[0] == HAND_START:
            mine = None  # the match's position is the table's (the replayer takes it)
        if replayer.lost:
            raise NotFaithful(f"the full engine cannot follow the table: {replayer.lost}")
        if mine is not None and mine != ev:
            raise NotFaithful(
                f"the full engine disagrees with the table at event {e['index']} "
                f"({_describe(ev)} / engine: {_describe(mine)})"
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


def _branch(store: Store, hand: dict[str, Any]) -> list[dict[str, Any]]:
    """The hand's events of its own branch (current ones; a rolled back hand's own)."""
    return [e for e in store.hand_events(hand) if e["current"] or hand["status"] == "rolled back"]


def events_record(store: Store, hand: dict[str, Any]) -> str:
    """The table's events of a hand as JSON lines (format ``tractor-table/table-events``)."""
    events = _branch(store, hand)
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
            json.dumps({"index": e["index"], "hash": e["hash"], "event": e["event"]},
                       separators=(", ", ": "))
        )
    return "\n".join(lines) + "\n"


__all__ = [
    "APPLICATION_ID",
    "SCHEMA_VERSION",
    "HandFacts",
    "NotFaithful",
    "Recorder",
    "RecordsError",
    "Store",
    "default_path",
    "derive_hands",
    "engine_record",
    "events_record",
    "open_recorder",
]
