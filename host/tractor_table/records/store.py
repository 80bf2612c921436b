"""One records database (:class:`Store`): opening, reading, and its check."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..events import decode
from ..link import ttlink
from .common import RecordsError, damaged, load_event, now_utc
from .hands import HandFacts, derive_hands, stored_snapshots
from .schema import TABLES, check_file, prepare


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
        check_file(path)
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
            prepare(db, path)
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
                raise damaged(self.path, exc) from None
            try:
                yield self.db
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            try:
                self.db.execute("COMMIT")
            except sqlite3.DatabaseError as exc:
                self.db.execute("ROLLBACK")
                raise damaged(self.path, exc) from None

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self.lock:
            try:
                return self.db.execute(sql, params).fetchall()
            except sqlite3.DatabaseError as exc:
                raise damaged(self.path, exc) from None

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
            out.append({"id": eid, "index": idx, "hash": h,
                        "event": decode(load_event(text), index=idx, hash=h, lenient=True),
                        "received_at": at, "current": bool(current), "superseded": why,
                        "session": sid, "verdicts": verdicts})
        return out

    def session_rules(self, session_id: int) -> dict[str, Any] | None:
        for (text,) in self.query("SELECT rules FROM sessions WHERE id = ?", (session_id,)):
            return json.loads(text) if text else None
        return None

    def counts(self) -> dict[str, int]:
        return {t: self.query(f"SELECT COUNT(*) FROM {t}")[0][0] for t in TABLES}

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
                ev = load_event(text)
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
            (eid, i, load_event(t), at)
            for eid, i, t, at in self.query(
                "SELECT id, idx, event, received_at FROM events WHERE table_id = ? AND current = 1 "
                "ORDER BY idx",
                (table_id,),
            )
        ]
        with self.lock:
            snaps = stored_snapshots(self.db, table_id, 0)
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

