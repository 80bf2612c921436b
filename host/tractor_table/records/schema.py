"""The records' schema and its migrations, and the check that a file is ours
before anything is written to it (:func:`check_file`, :func:`prepare`)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from ..link import ttlink
from .common import RecordsError, damaged, load_event, rowid
from .hands import rederive

SCHEMA_VERSION = 5
#: "TTrc" in the SQLite header: this file is tractor-table's records.
APPLICATION_ID = 0x54547263
SQLITE_MAGIC = b"SQLite format 3\x00"

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
        rederive(db, table_id, 0)


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
            rederive(db, table_id, 0)
            for t in moved:
                rederive(db, t, 0)


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
                 if r[0] == idx and ttlink.chain_hash(h, load_event(r[2])) == r[1]),
                key=lambda e: (e not in own, -e),
            )
            if not cands:
                # an event the boot sent again, kept once with another boot's
                # (no verdict of its own on it): the chain shows it
                shared = [
                    r for r in db.execute(
                        "SELECT id, hash, event FROM events WHERE table_id = ? AND idx = ? ORDER BY id",
                        (table_id, idx))
                    if ttlink.chain_hash(h, load_event(r[2])) == r[1]
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
        h_next, ev_next = own[start][1], load_event(own[start][2])
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
            h_next, ev_next = row[0], load_event(row[1])
        # and on from the fork: the boot's own events, by the chain
        h = own[start][1]
        for idx in range(first + 1, max(v[0] for v in own.values()) + 1):
            nxt = max(
                (e for e, v in own.items() if v[0] == idx and ttlink.chain_hash(h, load_event(v[2])) == v[1]),
                default=None,
            )
            if nxt is None:
                break
            branch.append(nxt)
            h = own[nxt][1]
    b = db.execute("SELECT fw_version, rules_id, first_seen, last_seen FROM boots WHERE id = ?",
                   (boot,)).fetchone()
    new = rowid(db.execute(
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
        cid = rowid(db.execute(
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
        rederive(db, table_id, 0)


# --- schema 5: the club's outbox (docs/club.md, "The upload")

#: a local table's identity on the club server: the table's own (the Pico's
#: unique id), or for a table recorded before tables had one, this file's
_UID_OF = ("COALESCE((SELECT uid FROM tables WHERE id = {t}), "
           "'h:' || (SELECT host_uuid FROM club_host WHERE id = 1) || ':' || {t})")
_BOOL = "json(CASE WHEN {x} THEN 'true' ELSE 'false' END)"

#: journal kind -> (the table it follows, the payload's JSON from a row ``{r}``)
JOURNAL: dict[str, tuple[str, str]] = {
    "session": ("sessions", (
        "json_object('id', {r}.id, 'table', " + _UID_OF.format(t="{r}.table_id") + ", "
        "'boot_id', (SELECT boot_id FROM boots WHERE id = {r}.boot), "
        "'fw_version', (SELECT fw_version FROM boots WHERE id = {r}.boot), "
        "'rules_id', (SELECT rules_id FROM boots WHERE id = {r}.boot), "
        "'source', {r}.source, 'port', {r}.port, 'host_version', {r}.host_version, "
        "'rules', {r}.rules, 'up_at', {r}.up_at, 'synced_at', {r}.synced_at, "
        "'down_at', {r}.down_at, 'down_reason', {r}.down_reason, "
        "'table_count', {r}.table_count, 'table_head', {r}.table_head, 'agree', {r}.agree)")),
    "note": ("link_notes", (
        "json_object('id', {r}.id, 'session', {r}.session_id, 'at', {r}.at, 'note', {r}.kind, "
        "'detail', {r}.detail)")),
    "snapshot": ("snapshots", (
        "json_object('id', {r}.id, 'table', " + _UID_OF.format(t="{r}.table_id") + ", "
        "'session', {r}.session_id, 'count', {r}.count, 'head', {r}.head, "
        "'data', CASE WHEN {r}.data IS NULL THEN NULL ELSE lower(hex({r}.data)) END, "
        "'pushed', " + _BOOL.format(x="{r}.pushed") + ", 'at', {r}.received_at)")),
    "event": ("events", (
        "json_object('table', " + _UID_OF.format(t="{r}.table_id") + ", 'idx', {r}.idx, "
        "'hash', {r}.hash, 'event', {r}.event, 'session', {r}.session_id, "
        "'at', {r}.received_at, 'current', " + _BOOL.format(x="{r}.current") + ", "
        "'why', {r}.superseded_why, 'superseded_at', {r}.superseded_at)")),
    "supersede": ("events", (
        "json_object('table', " + _UID_OF.format(t="{r}.table_id") + ", 'idx', {r}.idx, "
        "'hash', {r}.hash, 'why', {r}.superseded_why, 'at', {r}.superseded_at)")),
    "restore": ("events", (
        "json_object('table', " + _UID_OF.format(t="{r}.table_id") + ", 'idx', {r}.idx, "
        "'hash', {r}.hash)")),
    "verdict": ("verdicts", (
        "(SELECT json_object('table', " + _UID_OF.format(t="e.table_id") + ", 'idx', e.idx, "
        "'hash', e.hash, 'session', {r}.session_id, 'verdict', {r}.verdict, 'what', {r}.what, "
        "'host_event', {r}.host_event, 'table_hash', {r}.table_hash, 'host_hash', {r}.host_hash, "
        "'fields', {r}.fields, 'table_text', {r}.table_text, 'host_text', {r}.host_text) "
        "FROM events e WHERE e.id = {r}.event_id)")),
}

_TRIGGERS = {
    "session": ["AFTER INSERT ON sessions", "AFTER UPDATE ON sessions"],
    "note": ["AFTER INSERT ON link_notes"],
    "snapshot": ["AFTER INSERT ON snapshots"],
    "event": ["AFTER INSERT ON events"],
    "supersede": ["AFTER UPDATE OF current ON events WHEN OLD.current = 1 AND NEW.current = 0"],
    "restore": ["AFTER UPDATE OF current ON events WHEN OLD.current = 0 AND NEW.current = 1"],
    "verdict": ["AFTER INSERT ON verdicts"],
}


def _migrate_5(db: sqlite3.Connection) -> None:
    """The club's outbox: ``journal`` (one row per thing recorded, written by
    triggers in the very transaction that records it), ``club_host`` (this
    file's uuid: the file is the host the server knows), ``upload_cursor``
    (how far each club server acknowledged). What the file held before is
    journalled first, in its order, so a carried file uploads whole."""
    import uuid

    # IF NOT EXISTS: a file whose user_version was set back (by hand) keeps its journal
    db.execute("CREATE TABLE IF NOT EXISTS club_host(id INTEGER PRIMARY KEY CHECK (id = 1), "
               "host_uuid TEXT NOT NULL)")
    db.execute("INSERT OR IGNORE INTO club_host VALUES (1, ?)", (str(uuid.uuid4()),))
    db.execute("CREATE TABLE IF NOT EXISTS journal(seq INTEGER PRIMARY KEY AUTOINCREMENT, "
               "kind TEXT NOT NULL, payload TEXT NOT NULL)")
    db.execute("CREATE TABLE IF NOT EXISTS upload_cursor(server_url TEXT PRIMARY KEY, "
               "acked_seq INTEGER NOT NULL, updated_at TEXT NOT NULL)")
    fresh = db.execute("SELECT 1 FROM journal LIMIT 1").fetchone() is None
    for kind in ("session", "snapshot", "note", "event", "verdict") if fresh else ():
        table, expr = JOURNAL[kind]
        order = "event_id, session_id" if table == "verdicts" else "id"
        db.execute(f"INSERT INTO journal (kind, payload) SELECT '{kind}', "
                   f"{expr.format(r='x')} FROM {table} x ORDER BY {order}")
    for kind, whens in _TRIGGERS.items():
        expr = JOURNAL[kind][1].format(r="NEW")
        for n, when in enumerate(whens):
            db.execute(f"CREATE TRIGGER IF NOT EXISTS journal_{kind}_{n} {when} BEGIN "
                       f"INSERT INTO journal (kind, payload) VALUES ('{kind}', {expr}); END")


def undo_5(db: sqlite3.Connection) -> None:
    """Schema 5 taken out again (tests make files as older versions wrote them)."""
    for kind, whens in _TRIGGERS.items():
        for n in range(len(whens)):
            db.execute(f"DROP TRIGGER IF EXISTS journal_{kind}_{n}")
    for t in ("journal", "club_host", "upload_cursor"):
        db.execute(f"DROP TABLE IF EXISTS {t}")


#: user_version N -> the step that brings a file from N-1 to N
MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {
    1: _migrate_1, 2: _migrate_2, 3: _migrate_3, 4: _migrate_4, 5: _migrate_5,
}

TABLES = ("tables", "boots", "sessions", "events", "snapshots", "link_notes", "hands", "verdicts",
          "journal")


def check_file(path: Path) -> None:
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



def prepare(db: sqlite3.Connection, path: Path) -> None:
    """Check that the file is ours (or new), then WAL, foreign keys, migrations."""
    try:
        app = db.execute("PRAGMA application_id").fetchone()[0]
        version = db.execute("PRAGMA user_version").fetchone()[0]
        names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    except sqlite3.DatabaseError as exc:
        raise damaged(path, exc) from None
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
        raise damaged(path, exc) from None
