"""A host's uploads, checked and applied (docs/club.md, "The upload").

A host (one records file, named by its ``host`` uuid) sends its journal in
order: ``POST /api/v1/batch {"host", "after", "items": [{"seq", "kind", ...}]}``.
``after`` is the journal seq the host believes the server holds; the server
keeps, per host, the seq it has applied through (``hosts.acked_seq``):

- items at or below it were applied before: skipped (a resend after a lost
  reply changes nothing);
- ``after`` above it means items are missing: 409 ``gap`` with ``acked``, and
  the uploader resends from there; nothing is applied;
- the rest are applied in ONE transaction, the host's row and each table's
  head locked (``FOR UPDATE``), and ``acked_seq`` moved to the last one.

An event is checked against its table's hash chain with the firmware's own
``ttlink.chain_hash`` and ``ttlink.canonical``: its hash must be
``chain_hash(h, event)`` for the hash ``h`` of an event stored at the index
before (any branch of the table's history), or of a snapshot the log restarts
from, or 0 at index 0. An event whose index follows a gap in the host's own
record (events that never reached the host) cannot be checked against the one
before, as ``tractor-table records check`` says too; it is kept. An event that
fails the check refuses the whole batch (422, nothing applied) and raises an
alert. A rollback or fork the host recorded comes as its ``supersede`` items
before the new event: the old rows are marked, never deleted. Two hosts whose
streams of one table disagree keep the first's as current and raise an alert.
Every change NOTIFYs ``tt_table`` with the table's id, delivered at commit.
A batch may carry the host's heartbeat (``beat``, as ``POST /api/v1/heartbeat``
takes it), applied in the same transaction.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import uuid
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool

from .. import events
from ..link import ttlink

MAX_ITEMS = 500
#: club/commands.py's ANY_SQL (that module imports this one)
ANY_COMMANDS_SQL = ("SELECT EXISTS (SELECT 1 FROM round_marks m JOIN rounds r USING (round_id)"
                    " WHERE m.table_id IS NULL AND r.state IN ('playing', 'time_called'))"
                    " OR EXISTS (SELECT 1 FROM table_commands c JOIN table_heads h USING (table_id)"
                    " WHERE c.done_at IS NULL AND h.host_id = %s)")
_UID = re.compile(r"^[0-9A-Za-z:._-]{1,80}$")
KINDS = ("session", "note", "snapshot", "event", "supersede", "restore", "verdict")
VERDICTS = ("agreed", "disagreed", "unchecked", "not verified")


class Invalid(ValueError):
    """A malformed request (400): the message names the item and the field."""


class Refused(Exception):
    """A request refused with an HTTP status (401, 403, 409, 413, 415...)."""

    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.message, self.extra = status, message, extra


class ChainError(Exception):
    def __init__(self, seq: int, table: str, message: str) -> None:
        super().__init__(message)
        self.seq, self.table = seq, table


# --- validation (nothing touches the database before the whole body passed)


def _f(item: dict[str, Any], name: str, typ: Any, where: str, *, null: bool = False,
       lo: int | None = None, hi: int | None = None, maxlen: int = 10000) -> Any:
    if name not in item:
        if null:
            return None
        raise Invalid(f"{where}: '{name}' is missing")
    v = item[name]
    if v is None and null:
        return None
    if typ is int:
        if not isinstance(v, int) or isinstance(v, bool):
            raise Invalid(f"{where}: '{name}' must be an integer, not {type(v).__name__}")
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            raise Invalid(f"{where}: '{name}' = {v} is out of range [{lo}, {hi}]")
    elif typ is str:
        if not isinstance(v, str):
            raise Invalid(f"{where}: '{name}' must be a string, not {type(v).__name__}")
        if len(v) > maxlen:
            raise Invalid(f"{where}: '{name}' is longer than {maxlen} characters")
    elif typ is bool:
        if not isinstance(v, bool):
            raise Invalid(f"{where}: '{name}' must be true or false")
    return v


def _host(body: Any) -> uuid.UUID:
    if not isinstance(body, dict):
        raise Invalid("the body must be a JSON object")
    h = body.get("host")
    if not isinstance(h, str):
        raise Invalid("'host' (the records file's uuid) is missing")
    try:
        return uuid.UUID(h)
    except ValueError:
        raise Invalid(f"'host' is not a uuid: {h[:60]!r}") from None


def _uid(item: dict[str, Any], where: str) -> str:
    t = _f(item, "table", str, where, maxlen=80)
    if not _UID.match(t):
        raise Invalid(f"{where}: 'table' {t!r} is no table identity (hex, or h:HOST:N)")
    return str(t)


I32 = 2**31 - 1
U32 = 2**32 - 1


def validate_batch(body: Any) -> tuple[uuid.UUID, int, list[dict[str, Any]]]:
    host = _host(body)
    after = _f(body, "after", int, "batch", lo=0, hi=2**62)
    items = body.get("items")
    if not isinstance(items, list):
        raise Invalid("batch: 'items' must be a list")
    if len(items) > MAX_ITEMS:
        raise Invalid(f"batch: {len(items)} items, at most {MAX_ITEMS} per batch")
    prev = after
    out: list[dict[str, Any]] = []
    for n, it in enumerate(items):
        where = f"item {n}"
        if not isinstance(it, dict):
            raise Invalid(f"{where}: must be an object")
        seq = _f(it, "seq", int, where, lo=1, hi=2**62)
        where = f"item {n} (seq {seq})"
        if seq <= prev:
            raise Invalid(f"{where}: seqs must increase and follow 'after' ({prev})")
        prev = seq
        kind = _f(it, "kind", str, where, maxlen=20)
        if kind not in KINDS:
            raise Invalid(f"{where}: unknown kind {kind!r} (one of {', '.join(KINDS)})")
        if kind == "session":
            _f(it, "id", int, where, lo=0, hi=2**62)
            _uid(it, where)
            _f(it, "boot_id", int, where, lo=0, hi=2**62)
            for s in ("fw_version", "rules_id", "source", "port", "host_version", "up_at"):
                _f(it, s, str, where, null=s != "up_at", maxlen=200)
            _f(it, "rules", str, where, null=True, maxlen=20000)
            for s in ("synced_at", "down_at", "down_reason"):
                _f(it, s, str, where, null=True, maxlen=500)
            _f(it, "table_count", int, where, lo=0, hi=I32)
            _f(it, "table_head", int, where, lo=0, hi=U32)
            _f(it, "agree", int, where, lo=-I32, hi=I32)
        elif kind == "note":
            _f(it, "id", int, where, lo=0, hi=2**62)
            _f(it, "session", int, where, null=True, lo=0, hi=2**62)
            _f(it, "at", str, where, maxlen=64)
            _f(it, "note", str, where, maxlen=40)
            _f(it, "detail", str, where, maxlen=20000)
        elif kind == "snapshot":
            _f(it, "id", int, where, lo=0, hi=2**62)
            _uid(it, where)
            _f(it, "session", int, where, null=True, lo=0, hi=2**62)
            _f(it, "count", int, where, lo=0, hi=I32)
            _f(it, "head", int, where, lo=0, hi=U32)
            d = _f(it, "data", str, where, null=True, maxlen=200000)
            if d is not None:
                try:
                    it["_data"] = bytes.fromhex(d)
                except ValueError:
                    raise Invalid(f"{where}: 'data' is not hex") from None
            _f(it, "pushed", bool, where)
            _f(it, "at", str, where, maxlen=64)
        elif kind == "event":
            _uid(it, where)
            _f(it, "idx", int, where, lo=0, hi=I32)
            _f(it, "hash", int, where, lo=0, hi=U32)
            text = _f(it, "event", str, where, maxlen=4000)
            try:
                ev = json.loads(text)
            except ValueError:
                raise Invalid(f"{where}: 'event' is not JSON") from None
            if not isinstance(ev, list) or not ev or not all(
                    isinstance(x, int) and not isinstance(x, bool) for x in ev):
                raise Invalid(f"{where}: 'event' must be a list of integers [kind, ...]")
            if ttlink.canonical(ev).decode() != text:
                raise Invalid(f"{where}: 'event' is not in the canonical form the link carries "
                              "(compact JSON, docs/protocol.md): the chain hashes those bytes")
            it["_ev"] = ev
            # its kind as the one decoder reads it (a kind this server does not
            # know is kept too: the chain is the table's, not ours)
            it["_kind"] = events.decode(ev, lenient=True).kind
            _f(it, "session", int, where, null=True, lo=0, hi=2**62)
            _f(it, "at", str, where, maxlen=64)
            _f(it, "current", bool, where)
            _f(it, "why", str, where, null=True, maxlen=40)
            _f(it, "superseded_at", str, where, null=True, maxlen=64)
        elif kind in ("supersede", "restore"):
            _uid(it, where)
            _f(it, "idx", int, where, lo=0, hi=I32)
            _f(it, "hash", int, where, lo=0, hi=U32)
            if kind == "supersede":
                _f(it, "why", str, where, null=True, maxlen=40)
                _f(it, "at", str, where, null=True, maxlen=64)
        elif kind == "verdict":
            _uid(it, where)
            _f(it, "idx", int, where, lo=0, hi=I32)
            _f(it, "hash", int, where, lo=0, hi=U32)
            _f(it, "session", int, where, lo=0, hi=2**62)
            v = _f(it, "verdict", str, where, maxlen=20)
            if v not in VERDICTS:
                raise Invalid(f"{where}: verdict {v!r} is not one of {', '.join(VERDICTS)}")
            for s in ("what", "host_event", "fields", "table_text", "host_text"):
                _f(it, s, str, where, null=True, maxlen=20000)
            for s in ("table_hash", "host_hash"):
                _f(it, s, int, where, null=True, lo=0, hi=U32)
        out.append(it)
    return host, int(after), out


# --- applying


class _Batch:
    """One batch's transaction: table ids and heads locked once, sessions by local id."""

    def __init__(self, conn: psycopg.AsyncConnection[Any], host: uuid.UUID) -> None:
        self.conn = conn
        self.host = host
        self.tables: dict[str, int] = {}
        self.touched: set[int] = set()
        self.sessions: dict[int, int] = {}

    async def table(self, uid: str) -> int:
        tid = self.tables.get(uid)
        if tid is not None:
            return tid
        c = self.conn
        # seen now, its id, and its head locked (the serialisation point: one writer
        # per table at a time), in one round trip (a new table is made below)
        row = await (await c.execute(
            "WITH t AS (UPDATE tables SET last_seen = now() WHERE uid = %s RETURNING table_id) "
            "SELECT h.table_id FROM table_heads h JOIN t USING (table_id) FOR UPDATE OF h",
            (uid,))).fetchone()
        if row is None:
            row = await (await c.execute(
                "INSERT INTO tables (table_id, uid, label) SELECT n, %s, 'T' || n "
                "FROM (SELECT nextval('tables_table_id_seq') AS n) s "
                "ON CONFLICT (uid) DO NOTHING RETURNING table_id", (uid,))).fetchone()
            if row is None:  # another batch made it meanwhile
                row = await (await c.execute("SELECT table_id FROM tables WHERE uid = %s",
                                             (uid,))).fetchone()
            assert row is not None
            await c.execute("INSERT INTO table_heads (table_id) VALUES (%s) ON CONFLICT DO NOTHING",
                            (row[0],))
            tid = int(row[0])
            # the serialisation point: one writer per table at a time
            await c.execute("SELECT 1 FROM table_heads WHERE table_id = %s FOR UPDATE", (tid,))
        self.tables[uid] = int(row[0])
        return int(row[0])

    async def session(self, local: int | None) -> int | None:
        if local is None:
            return None
        if local in self.sessions:
            return self.sessions[local]
        row = await (await self.conn.execute(
            "SELECT session_pk FROM sessions WHERE host_id = %s AND local_id = %s",
            (self.host, local))).fetchone()
        pk = int(row[0]) if row else None
        if pk is not None:
            self.sessions[local] = pk
        return pk

    async def apply(self, it: dict[str, Any]) -> None:
        kind = it["kind"]
        c = self.conn
        if kind == "session":
            tid = await self.table(it["table"])
            row = await (await c.execute(
                "INSERT INTO sessions (host_id, local_id, table_id, boot_id, fw_version, rules_id, "
                "source, port, host_version, rules, up_at, synced_at, down_at, down_reason, "
                "table_count, table_head, agree) VALUES "
                "(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (host_id, local_id) DO UPDATE SET "
                "synced_at = COALESCE(sessions.synced_at, EXCLUDED.synced_at), "
                "down_at = COALESCE(sessions.down_at, EXCLUDED.down_at), "
                "down_reason = COALESCE(sessions.down_reason, EXCLUDED.down_reason) "
                "RETURNING session_pk",
                (self.host, it["id"], tid, it["boot_id"], it.get("fw_version"), it.get("rules_id"),
                 it.get("source"), it.get("port"), it.get("host_version"), it.get("rules"),
                 it["up_at"], it.get("synced_at"), it.get("down_at"), it.get("down_reason"),
                 it["table_count"], it["table_head"], it["agree"]))).fetchone()
            assert row is not None
            self.sessions[it["id"]] = int(row[0])
            self.touched.add(tid)
        elif kind == "note":
            await c.execute(
                "INSERT INTO notes (host_id, local_id, session_pk, at, kind, detail) "
                "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                (self.host, it["id"], await self.session(it.get("session")), it["at"], it["note"],
                 it["detail"]))
        elif kind == "snapshot":
            tid = await self.table(it["table"])
            data = it.get("_data")
            await c.execute(
                "INSERT INTO snapshots (host_id, local_id, table_id, session_pk, count, head, data, "
                "pushed, received_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT DO NOTHING",
                (self.host, it["id"], tid, await self.session(it.get("session")), it["count"],
                 it["head"], data, it["pushed"], it["at"]))
        elif kind == "event":
            await self._event(it)
        elif kind == "supersede":
            tid = await self.table(it["table"])
            await c.execute(
                "UPDATE events SET current = false, superseded_at = %s, superseded_why = %s "
                "WHERE table_id = %s AND idx = %s AND hash = %s AND current",
                (it.get("at"), it.get("why"), tid, it["idx"], it["hash"]))
            self.touched.add(tid)
        elif kind == "restore":
            tid = await self.table(it["table"])
            await c.execute(
                "UPDATE events SET current = true, superseded_at = NULL, superseded_why = NULL "
                "WHERE table_id = %s AND idx = %s AND hash = %s AND NOT current AND NOT EXISTS "
                "(SELECT 1 FROM events o WHERE o.table_id = %s AND o.idx = %s AND o.current)",
                (tid, it["idx"], it["hash"], tid, it["idx"]))
            self.touched.add(tid)
        elif kind == "verdict":
            tid = await self.table(it["table"])
            row = await (await c.execute(
                "SELECT event_pk FROM events WHERE table_id = %s AND idx = %s AND hash = %s",
                (tid, it["idx"], it["hash"]))).fetchone()
            spk = await self.session(it["session"])
            if row is None or spk is None:
                return  # its event or session was never uploaded (refused earlier): nothing to hang it on
            await c.execute(
                "INSERT INTO verdicts (host_id, event_pk, session_pk, verdict, what, host_event, "
                "table_hash, host_hash, fields, table_text, host_text) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (event_pk, session_pk) DO UPDATE SET verdict = EXCLUDED.verdict, "
                "what = EXCLUDED.what, host_event = EXCLUDED.host_event, "
                "table_hash = EXCLUDED.table_hash, host_hash = EXCLUDED.host_hash, "
                "fields = EXCLUDED.fields, table_text = EXCLUDED.table_text, "
                "host_text = EXCLUDED.host_text",
                (self.host, row[0], spk, it["verdict"], it.get("what"), it.get("host_event"),
                 it.get("table_hash"), it.get("host_hash"), it.get("fields"), it.get("table_text"),
                 it.get("host_text")))
            if it["verdict"] == "disagreed":
                self.touched.add(tid)

    async def _event(self, it: dict[str, Any]) -> None:
        c = self.conn
        uid = it["table"]
        tid = await self.table(uid)
        idx, h, text, ev = it["idx"], it["hash"], it["event"], it["_ev"]
        # one round trip: the events at this index and the one before, and the
        # snapshots that end where this event starts
        rows = await (await c.execute(
            "SELECT idx, hash, current, event_pk, host_id FROM events "
            "WHERE table_id = %s AND idx IN (%s, %s) "
            "UNION ALL SELECT -1, head, false, NULL, NULL FROM snapshots "
            "WHERE table_id = %s AND count = %s",
            (tid, idx, idx - 1, tid, idx))).fetchall()
        if any(r[0] == idx and int(r[1]) == h for r in rows):
            return  # kept already (this host or another sent the same event)
        if idx == 0:
            heads = [0]
        else:
            heads = [int(r[1]) for r in rows if r[0] != idx]
        if heads and not any(ttlink.chain_hash(x, ev) == h for x in heads):
            raise ChainError(it["seq"], uid, (
                f"table {uid} event {idx}: state hash {h:08x} is not chain_hash of the hash before "
                f"it and the event: the chain is broken here (run 'tractor-table records check' on "
                f"the host's file)"))
        other = next(((r[3], r[4]) for r in rows if r[0] == idx and r[2]), None)
        current = bool(it["current"])
        why = it.get("why")
        replaces = None
        if current and other is not None:
            # a current event at this index that the host did not supersede:
            # another host's stream of this table disagrees; the first stays current
            current, why, replaces = False, "disagreement", int(other[0])
            await c.execute(
                "INSERT INTO alerts (table_id, host_id, kind, detail) VALUES (%s, %s, %s, %s)",
                (tid, self.host, "disagreement",
                 f"table {uid} event {idx}: host {self.host} sent {h:08x}, the server holds "
                 f"another event there (from host {other[1]}); both kept, the first current"))
        # its session looked up in the insert itself (no answer awaited: pipelined)
        local = it.get("session")
        await c.execute(
            "INSERT INTO events (table_id, idx, hash, canon, kind, host_id, session_pk, "
            "received_at, current, superseded_at, superseded_why, replaces) "
            "VALUES (%s, %s, %s, %s, %s, %s, "
            "COALESCE(%s, (SELECT session_pk FROM sessions WHERE host_id = %s AND local_id = %s)), "
            "%s, %s, %s, %s, %s)",
            (tid, idx, h, text, it["_kind"], self.host, self.sessions.get(local) if local is not None
             else None, self.host, local, it["at"],
             current, None if current else (it.get("superseded_at") or it["at"]),
             None if current else why, replaces))
        self.touched.add(tid)

    async def finish(self) -> dict[str, list[int]]:
        heads: dict[str, list[int]] = {}
        for uid, tid in self.tables.items():
            # the head from the newest current event (none: 0, 0), set and read back in one
            row = await (await self.conn.execute(
                "UPDATE table_heads h SET count = COALESCE(e.idx + 1, 0), head = COALESCE(e.hash, 0), "
                "updated_at = now(), host_id = %s FROM (SELECT %s::bigint AS tid) t "
                "LEFT JOIN LATERAL (SELECT idx, hash FROM events WHERE table_id = t.tid AND current "
                "ORDER BY idx DESC LIMIT 1) e ON true WHERE h.table_id = t.tid "
                "RETURNING h.count, h.head", (self.host, tid))).fetchone()
            assert row is not None
            heads[uid] = [int(row[0]), int(row[1])]
        # delivered at commit, one per table changed (not per event)
        for tid in sorted(self.touched):
            await self.conn.execute("SELECT pg_notify('tt_table', %s)", (str(tid),))
        return heads


async def _host_row(conn: psycopg.AsyncConnection[Any], host: uuid.UUID, token_id: int) -> int:
    """Lock the host's row (made on first sight) and return its acked seq; a
    host uploads with one token (another token for the same host is refused)."""
    await conn.execute(
        "INSERT INTO hosts (host_id, token_id) VALUES (%s, %s) ON CONFLICT DO NOTHING",
        (host, token_id))
    row = await (await conn.execute(
        "SELECT acked_seq, token_id FROM hosts WHERE host_id = %s FOR UPDATE", (host,))).fetchone()
    assert row is not None
    if int(row[1]) != token_id:
        raise Refused(403, f"host {host} uploads with another token: use that one, or give "
                              "this records file to the host that holds it")
    return int(row[0])


async def apply_batch(pool: AsyncConnectionPool, token_id: int, body: Any) -> tuple[int, dict[str, Any]]:
    host, after, items = validate_batch(body)
    beat = validate_beat(body["beat"], "batch: beat") if body.get("beat") is not None else None
    # pipeline mode: the statements whose answers are not awaited (BEGIN, the
    # inserts, the NOTIFYs, the host's update) go out without a round trip each
    async with pool.connection() as conn, conn.pipeline():
        try:
            async with conn.transaction():
                acked = await _host_row(conn, host, token_id)
                if after > acked:
                    return 409, {"error": f"gap: the server holds this host's journal through "
                                          f"{acked}, the batch starts after {after}; send from "
                                          f"{acked}", "acked": acked}
                b = _Batch(conn, host)
                last = acked
                applied = 0
                for it in items:
                    if it["seq"] <= acked:
                        continue  # applied before: a resend
                    await b.apply(it)
                    last = it["seq"]
                    applied += 1
                heads = await b.finish()
                await conn.execute(
                    "UPDATE hosts SET acked_seq = %s, last_seen = now() WHERE host_id = %s",
                    (last, host))
                if beat is not None:
                    await _beat(conn, host, beat)
                # whether the reply may carry table commands (club/commands.py), asked here
                # rather than on a connection of its own
                ask = await conn.execute(ANY_COMMANDS_SQL, (host,))
            row = await ask.fetchone()
            maybe = bool(row and row[0])
        except ChainError as exc:
            async with conn.transaction():
                row = await (await conn.execute("SELECT table_id FROM tables WHERE uid = %s",
                                                (exc.table,))).fetchone()
                await conn.execute(
                    "INSERT INTO alerts (table_id, host_id, kind, detail) VALUES (%s, %s, %s, %s)",
                    (row[0] if row else None, host, "chain", str(exc)))
                if row:
                    await conn.execute("SELECT pg_notify('tt_table', %s)", (str(row[0]),))
                acked_row = await (await conn.execute(
                    "SELECT acked_seq FROM hosts WHERE host_id = %s", (host,))).fetchone()
            return 422, {"error": f"refused, nothing of the batch applied: {exc}",
                         "seq": exc.seq, "acked": int(acked_row[0]) if acked_row else 0}
    return 200, {"acked": last, "applied": applied, "heads": heads, "_commands": maybe}


async def hello(pool: AsyncConnectionPool, token_id: int, body: Any) -> dict[str, Any]:
    host = _host(body)
    now_ms = _f(body, "now_ms", int, "hello", lo=0, hi=2**62)
    name = _f(body, "name", str, "hello", null=True, maxlen=100)
    sw = _f(body, "sw_version", str, "hello", null=True, maxlen=100)
    server = dt.datetime.now(dt.UTC)
    async with pool.connection() as conn, conn.transaction():
        acked = await _host_row(conn, host, token_id)
        await conn.execute(
            "UPDATE hosts SET name = COALESCE(%s, name), sw_version = %s, last_seen = now(), "
            "clock_skew_ms = %s WHERE host_id = %s",
            (name, sw, now_ms - int(server.timestamp() * 1000), host))
    return {"acked": acked, "server_time": server.isoformat(), "max_items": MAX_ITEMS}


Beat = tuple[int, list[tuple[str, int, int, str, int]]]


def validate_beat(body: Any, where: str = "heartbeat") -> Beat:
    """``{pending, tables: [{table, count, head, link, pending}]}``, checked."""
    if not isinstance(body, dict):
        raise Invalid(f"{where}: must be an object")
    pending = _f(body, "pending", int, where, lo=0, hi=2**40)
    tables = body.get("tables")
    if not isinstance(tables, list) or len(tables) > 64:
        raise Invalid(f"{where}: 'tables' must be a list of at most 64")
    rows = []
    for n, t in enumerate(tables):
        w = f"{where} table {n}"
        if not isinstance(t, dict):
            raise Invalid(f"{w}: must be an object")
        rows.append((_uid(t, w), _f(t, "count", int, w, lo=0, hi=I32), _f(t, "head", int, w, lo=0, hi=U32),
                     _f(t, "link", str, w, maxlen=20), _f(t, "pending", int, w, lo=0, hi=I32)))
    return pending, rows


async def _beat(conn: psycopg.AsyncConnection[Any], host: uuid.UUID, beat: Beat) -> None:
    """A heartbeat's updates (no answer awaited: pipelined), each table's tile told."""
    pending, rows = beat
    await conn.execute(
        "UPDATE hosts SET heartbeat_at = now(), pending = %s, last_seen = now() WHERE host_id = %s",
        (pending, host))
    for uid, count, hd, link, tpending in rows:
        # a table not uploaded yet updates nothing: the room shows it once its first batch lands
        await conn.execute(
            "UPDATE table_heads h SET host_count = %s, host_head = %s, link_state = %s, "
            "host_seen_at = now(), host_pending = %s FROM tables t "
            "WHERE t.uid = %s AND h.table_id = t.table_id "
            "RETURNING pg_notify('tt_room', h.table_id::text)",
            (count, hd, link, tpending, uid))


async def heartbeat(pool: AsyncConnectionPool, token_id: int, body: Any) -> dict[str, Any]:
    """``{host, pending, tables: [{table, count, head, link, pending}]}``: what the host
    holds (its record's count per table) and how much it has not yet uploaded. A
    batch may carry the same as its ``beat`` (:func:`apply_batch`): a host whose
    batches flow sends no separate heartbeat."""
    host = _host(body)
    beat = validate_beat(body)
    async with pool.connection() as conn, conn.pipeline(), conn.transaction():
        # what a heartbeat writes is the host's word of the moment, said again within
        # seconds: its commit need not wait for the disk (a crash loses at most the
        # last few, which the next ones replace); every batch's commit still waits
        await conn.execute("SET LOCAL synchronous_commit = off")
        await _host_row(conn, host, token_id)
        await _beat(conn, host, beat)
    return {"ok": True}


async def table_head(pool: AsyncConnectionPool, uid: str) -> dict[str, Any]:
    if not _UID.match(uid):
        raise Invalid(f"{uid[:80]!r} is no table identity")
    async with pool.connection() as conn:
        row = await (await conn.execute(
            "SELECT h.count, h.head FROM tables t JOIN table_heads h USING (table_id) WHERE t.uid = %s",
            (uid,))).fetchone()
    return {"table": uid, "count": row[0] if row else 0, "head": row[1] if row else 0}
