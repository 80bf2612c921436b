"""The :class:`Recorder`: what the link reports, written into a :class:`~.store.Store`."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..events import Event
from ..link import ttlink
from ..link.notes import (
    App,
    Down,
    Note,
    Rollback,
    SnapshotDone,
    SnapshotIn,
    Synced,
    Up,
    detail_of,
    kind_of,
    typed,
)
from .common import RecordsError, default_path, rowid
from .hands import rederive
from .store import Store


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
        from .. import __version__

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
        #: called after each note is written (the club's uploader wakes on it)
        self.on_written: list[Callable[[], None]] = []

    # --- the link's notes

    def on_note(self, note: Note | list[Any]) -> None:
        """Record one note of the host link (``SerialLink(on_note=...)``;
        a HostLink list is taken too: :func:`tractor_table.link.notes.typed`)."""
        self._guard(self._note, typed(note), None)

    def follow(self, verifier: Any) -> Callable[[Note | list[Any]], None]:
        """A note callback that feeds ``verifier`` (a :class:`~tractor_table.link.verifier.Verifier`)
        and records each note with the verifier's verdict on it, in one transaction."""

        def on_note(raw: Note | list[Any]) -> None:
            note = typed(raw)
            before = (verifier.agreed, verifier.unchecked, len(verifier.disagreements))
            try:
                verifier.on_note(note)
            except Exception:
                self.on_note(note)
                raise
            taken = getattr(verifier, "rules", None)
            if isinstance(note, Up) and self.rules_json is None and taken is not None:
                # the verifier took the table's rules (link without --rules): kept with the session
                self.rules_json = json.dumps(taken.to_dict(), sort_keys=True)
            verdict: tuple[str, Any] | None = None
            if isinstance(note, Event):
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
            return
        for hook in self.on_written:
            hook()

    def _note(self, note: Note, verdict: tuple[str, Any] | None) -> None:
        if isinstance(note, App):
            return  # the table's replies and display lines: not game records
        kind = kind_of(note)
        with self.store.transaction() as db:
            at = self.store.clock()
            if isinstance(note, Up):
                self._up(db, note, at)
            elif isinstance(note, Event):
                if self.session_id is None or self.table_id is None:
                    return
                eid = self._event(db, note, at)
                if verdict is not None:
                    self._put_verdict(db, eid, note.hash, *verdict)
            elif isinstance(note, SnapshotIn):
                self._snapshot(db, note.count, note.head, note.data, 0, at)
                self._note_row(db, kind, [note.count, note.head], at)
            elif isinstance(note, SnapshotDone):
                p = self._pushes.pop(note.id, None)
                if p is not None and note.ok:
                    self._snapshot(db, p[1], p[2], p[0], 1, at)
                self._note_row(db, kind, [note.id, int(note.ok), note.reason], at)
            else:
                if isinstance(note, Down) and self.session_id is not None:
                    db.execute(
                        "UPDATE sessions SET down_at = ?, down_reason = ? WHERE id = ? AND down_at IS NULL",
                        (at, note.why, self.session_id),
                    )
                elif isinstance(note, Synced) and self.session_id is not None:
                    db.execute(
                        "UPDATE sessions SET synced_at = ? WHERE id = ? AND synced_at IS NULL",
                        (at, self.session_id),
                    )
                elif isinstance(note, Rollback):
                    self.rolled_back_to = note.device_count
                detail = [bytes(x).decode("utf-8", "replace") if isinstance(x, bytes | bytearray)
                          else x for x in detail_of(note)]
                self._note_row(db, kind, detail, at)

    def _note_row(self, db: sqlite3.Connection, kind: str, detail: Any, at: str) -> None:
        db.execute(
            "INSERT INTO link_notes (session_id, at, kind, detail) VALUES (?, ?, ?, ?)",
            (self.session_id, at, kind, json.dumps(detail, default=repr)),
        )

    def _up(self, db: sqlite3.Connection, up: Up, at: str) -> None:
        fw, rules_id, boot_id = up.fw_version, up.rules_id, up.boot_id
        count, head, agree = up.count, up.head, up.agree
        uid = up.table_uid or None
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

    def _event(self, db: sqlite3.Connection, ev: Event, at: str) -> int:
        table = self.table_id
        assert table is not None
        idx, h = ev.index, ev.hash
        text = ttlink.canonical(ev.raw()).decode()
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
            eid = rowid(db.execute(
                "INSERT INTO events (table_id, idx, hash, event, kind, session_id, received_at, "
                "replaces) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (table, idx, h, text, int(ev.kind),
                 self.session_id, at, replaces),
            ))
            self.new_events += 1
        rederive(db, table, idx)
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
                 json.dumps(d.host_event.raw()) if d.host_event is not None else None,
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

