"""The host's uploader: its records file's journal sent to the club server, in order.

The journal (records schema 5, ``journal``) is written by triggers in the very
SQLite transaction that records each thing, so it holds exactly what the file
holds. The uploader reads it through its own connection (WAL: recording never
waits for it), sends it in batches (``after`` = the seq the server holds), and
keeps the server's answer in ``upload_cursor``. On any network fault it retries
with exponential backoff and full jitter (0.5 s doubling to 30 s); the server
applies each batch once whatever is resent (docs/club.md, "The upload"). Each
batch carries a heartbeat (what the file holds per table and how much is not
yet uploaded, which the room page shows when the host goes quiet), and after
10 s without a batch one is sent on its own.

:class:`Uploader` runs as a thread beside a recorder (``wake()`` after each
record); :func:`upload_file` drains a file once (``tractor-table club upload``).
"""

from __future__ import annotations

import json
import random
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from .. import __version__

BATCH = 200
HEARTBEAT_S = 10.0  # after this long without a batch (each batch carries one)
BACKOFF_START, BACKOFF_CAP = 0.5, 30.0


class UploadError(RuntimeError):
    """The server refused for good (a bad token, a chain it does not accept)."""


class Uploader:
    def __init__(self, db_path: Path, url: str, token: str, *, batch: int = BATCH,
                 heartbeat_s: float = HEARTBEAT_S, name: str = "",
                 client: httpx.Client | None = None, on_status: Callable[[str], None] | None = None,
                 clock_ms: Callable[[], int] | None = None,
                 on_command: Callable[[dict[str, Any]], tuple[bool, str] | None] | None = None) -> None:
        self.db_path = Path(db_path)
        self.url = url.rstrip("/")
        self.token = token
        self.batch = batch
        self.heartbeat_s = heartbeat_s
        self.name = name
        self.client = client or httpx.Client(timeout=httpx.Timeout(10.0, connect=3.0))
        self.on_status = on_status
        self.clock_ms = clock_ms or (lambda: int(time.time() * 1000))
        #: the server's table commands are given to it (club/tablecommands.py); None: ignored
        self.on_command = on_command
        self.commands_done: dict[int, dict[str, Any]] = {}
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._db: sqlite3.Connection | None = None
        self.host = ""
        self.acked = 0
        self.sent = 0
        self.batches = 0
        self.failures = 0
        self.status = "starting"
        self.refused = ""
        self.heads: dict[str, list[int]] = {}
        self._last_beat = 0.0
        self._flush_by = 0.0
        self._rng = random.Random()

    # --- the file

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            db = sqlite3.connect(self.db_path, timeout=10, isolation_level=None,
                                 check_same_thread=False)
            db.execute("PRAGMA busy_timeout = 10000")
            row = db.execute("SELECT host_uuid FROM club_host WHERE id = 1").fetchone()
            if row is None:
                raise UploadError(f"{self.db_path}: no club_host row: open it once with this version")
            self.host = str(row[0])
            cur = db.execute("SELECT acked_seq FROM upload_cursor WHERE server_url = ?",
                             (self.url,)).fetchone()
            self.acked = int(cur[0]) if cur else 0
            self._db = db
        return self._db

    def _save_cursor(self) -> None:
        self._conn().execute(
            "INSERT INTO upload_cursor (server_url, acked_seq, updated_at) VALUES (?, ?, "
            "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) ON CONFLICT (server_url) DO UPDATE SET "
            "acked_seq = excluded.acked_seq, updated_at = excluded.updated_at",
            (self.url, self.acked))

    def pending(self) -> int:
        row = self._conn().execute("SELECT count(*) FROM journal WHERE seq > ?", (self.acked,)).fetchone()
        return int(row[0])

    def _items(self) -> list[dict[str, Any]]:
        rows = self._conn().execute(
            "SELECT seq, kind, payload FROM journal WHERE seq > ? ORDER BY seq LIMIT ?",
            (self.acked, self.batch)).fetchall()
        out = []
        for seq, kind, payload in rows:
            it = json.loads(payload)
            it["seq"], it["kind"] = int(seq), kind
            out.append(it)
        return out

    def _tables(self) -> list[dict[str, Any]]:
        db = self._conn()
        out = []
        for tid, uid, host in db.execute(
                "SELECT t.id, t.uid, c.host_uuid FROM tables t, club_host c ORDER BY t.id LIMIT 64"):
            ident = uid or f"h:{host}:{tid}"
            row = db.execute("SELECT idx, hash FROM events WHERE table_id = ? AND current = 1 "
                             "ORDER BY idx DESC LIMIT 1", (tid,)).fetchone()
            count, head = (int(row[0]) + 1, int(row[1])) if row else (0, 0)
            s = db.execute("SELECT down_at FROM sessions WHERE table_id = ? ORDER BY id DESC LIMIT 1",
                           (tid,)).fetchone()
            link = "up" if s is not None and s[0] is None else "down"
            known = self.heads.get(ident, [0, 0])[0]
            out.append({"table": ident, "count": count, "head": head, "link": link,
                        "pending": max(0, count - known)})
        return out

    def _linked(self) -> set[str]:
        """The identities of the tables whose link is up now (their last session not down)."""
        db = self._conn()
        out = set()
        for tid, uid, host in db.execute(
                "SELECT t.id, t.uid, c.host_uuid FROM tables t, club_host c WHERE (SELECT s.down_at "
                "FROM sessions s WHERE s.table_id = t.id ORDER BY s.id DESC LIMIT 1) IS NULL "
                "AND EXISTS (SELECT 1 FROM sessions s WHERE s.table_id = t.id)"):
            out.add(uid or f"h:{host}:{tid}")
        return out

    # --- the server

    def _post(self, path: str, body: dict[str, Any]) -> httpx.Response:
        return self.client.post(self.url + path, json=body,
                                headers={"Authorization": f"Bearer {self.token}"})

    def _refuse_for_good(self, r: httpx.Response) -> None:
        try:
            msg = str(r.json().get("error", r.text))
        except ValueError:
            msg = r.text[:300]
        self.refused = f"the club server refused ({r.status_code}): {msg}"
        self._status("refused")
        raise UploadError(self.refused)

    def hello(self) -> None:
        self._conn()
        r = self._post("/api/v1/hello", {"host": self.host, "now_ms": self.clock_ms(),
                                         "name": self.name or None, "sw_version": __version__})
        if r.status_code in (401, 403, 400):
            self._refuse_for_good(r)
        r.raise_for_status()
        # the server is the truth: it may hold more (a resend's reply was lost)
        # or less (its database restored from a backup) than the cursor says
        self.acked = int(r.json()["acked"])
        self._save_cursor()

    def step(self) -> int:
        """Send one batch (if any); the number of items the server applied or skipped."""
        items = self._items()
        if not items:
            return 0
        # the heartbeat rides with the batch: a host whose batches flow sends none apart
        # (as the host will stand once it is applied)
        tables = self._tables()
        sent: dict[str, int] = {}
        for it in items:
            if it["kind"] == "event":
                sent[it["table"]] = max(sent.get(it["table"], 0), int(it["idx"]) + 1)
        for t in tables:
            t["pending"] = max(0, min(t["pending"], t["count"] - sent.get(t["table"], 0)))
        beat = {"pending": max(0, self.pending() - len(items)), "tables": tables}
        r = self._post("/api/v1/batch", {"host": self.host, "after": self.acked, "items": items,
                                         "beat": beat})
        if r.status_code == 409:  # the server holds less than we thought: resend from there
            self.acked = int(r.json()["acked"])
            self._save_cursor()
            return 0
        if r.status_code in (400, 401, 403, 413, 422):
            self._refuse_for_good(r)
        r.raise_for_status()
        out = r.json()
        self.acked = int(out["acked"])
        self.heads.update(out.get("heads", {}))
        self._save_cursor()
        self.sent += len(items)
        self.batches += 1
        self._last_beat = time.monotonic()
        self._commands(out.get("commands") or [])
        return len(items)

    def beat(self) -> None:
        r = self._post("/api/v1/heartbeat", {"host": self.host, "pending": self.pending(),
                                             "tables": self._tables()})
        if r.status_code in (401, 403):
            self._refuse_for_good(r)
        r.raise_for_status()
        self._last_beat = time.monotonic()
        self._commands(r.json().get("commands") or [])

    def _commands(self, cmds: list[dict[str, Any]]) -> None:
        """The server's commands for this host's tables: each sent once to a table whose
        link is up, and its outcome reported (again, until the server stops offering it)."""
        if self.on_command is None or not cmds:
            return
        up = self._linked()
        report = []
        for c in cmds:
            cid = int(c["id"])
            if cid not in self.commands_done:
                if c.get("table") not in up:
                    continue  # that table is not at this host's link now
                got = self.on_command(c)
                if got is None:
                    continue  # not now: the server offers it again
                self.commands_done[cid] = {"id": cid, "ok": bool(got[0]), "reply": str(got[1])[:200]}
            report.append(self.commands_done[cid])
        if report:
            r = self._post("/api/v1/commands", {"host": self.host, "done": report})
            if r.status_code in (401, 403):
                self._refuse_for_good(r)

    def drain(self, deadline_s: float = 600.0) -> None:
        """Send everything the journal holds now (retrying faults until ``deadline_s``)."""
        end = time.monotonic() + deadline_s
        delay = BACKOFF_START
        hello_done = False
        while True:
            try:
                if not hello_done:
                    self.hello()
                    hello_done = True
                while self.step():
                    pass
                if self.pending() == 0:
                    self.beat()
                    return
            except (httpx.HTTPError, ValueError, KeyError) as exc:
                self.failures += 1
                if time.monotonic() > end:
                    raise UploadError(f"the club server at {self.url} cannot be reached: {exc}") from None
                time.sleep(self._rng.uniform(0, delay))
                delay = min(delay * 2, BACKOFF_CAP)

    # --- as a thread beside the recorder

    def start(self) -> Uploader:
        self._thread = threading.Thread(target=self._run, name="club-uploader", daemon=True)
        self._thread.start()
        return self

    def wake(self) -> None:
        self._wake.set()

    def stop(self, flush_s: float = 5.0) -> None:
        """Stop, after trying for ``flush_s`` to send what is left."""
        self._flush_by = time.monotonic() + flush_s
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(flush_s + 15)
        if self._db is not None:
            self._db.close()
            self._db = None

    def _status(self, s: str) -> None:
        if s != self.status:
            self.status = s
            if self.on_status is not None:
                self.on_status(s)

    def _run(self) -> None:
        delay = BACKOFF_START
        hello_done = False
        while True:
            stopping = self._stop.is_set()
            try:
                if not hello_done:
                    self.hello()
                    hello_done = True
                while self.step():
                    if self._stop.is_set() and time.monotonic() > self._flush_by:
                        break
                if time.monotonic() - self._last_beat >= self.heartbeat_s:
                    self.beat()
                self._status("up to date" if self.pending() == 0 else "uploading")
                delay = BACKOFF_START
                if stopping:
                    return
                self._wake.wait(self.heartbeat_s)
                self._wake.clear()
            except UploadError:
                return  # refused for good: the status says why; recording goes on
            except (httpx.HTTPError, ValueError, KeyError, sqlite3.Error):
                self.failures += 1
                hello_done = False  # the server may have restarted from a backup
                self._status("offline: retrying")
                if stopping and time.monotonic() > self._flush_by:
                    return
                self._wake.wait(self._rng.uniform(0, delay))  # full jitter
                self._wake.clear()
                delay = min(delay * 2, BACKOFF_CAP)


def upload_file(path: Path, url: str, token: str) -> tuple[int, int]:
    """Push a records file to the club (migrated first, so an older file gets its
    journal); (items sent, the seq the server holds)."""
    from ..records import RecordsError, Store

    try:
        Store.open(path, create=False).close()
    except RecordsError as exc:
        raise UploadError(str(exc)) from None
    up = Uploader(path, url, token)
    try:
        up.drain()
    finally:
        if up._db is not None:
            up._db.close()
    return up.sent, up.acked
