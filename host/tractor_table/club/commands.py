"""Commands for the tables, carried to their hosts in the upload's replies.

The club server has no link of its own to a table: its host has. A command
(``table_commands``: a new match when the director starts a round, ``call_time``
when time is called; docs/club.md, "Competitions") is offered to the host that
last uploaded the table's events, in the reply to each batch and heartbeat::

    "commands": [{"id": 7, "table": "<uid>", "command": "call_time"}]

The host sends it to the table over the link (docs/protocol.md, ``CMD_*``) and
reports the table's answer with ``POST /api/v1/commands {"host", "done": [{"id",
"ok", "reply"}]}``. A command is offered until it is reported done, so a reply
lost on the way is harmless; the host remembers what it sent and never sends a
command twice (a second new match would throw away the match in play).

A table that joins a round late is caught up here, each time its host asks:

- a seated table whose label no table answered to when the round started (its
  host came up later) is bound to the round when it is first heard: its mark is
  its chain's head then, and it is queued the round's new match (and the call
  time, if time was already called);
- a new match is no longer offered once the table's uploads show the round's
  match started (a new match at or after the mark): a host that took over the
  table, or restarted and forgot what it sent, never throws that match away.
"""

from __future__ import annotations

import json
from typing import Any

from psycopg_pool import AsyncConnectionPool

from .. import events as E
from ..vocab.enums import EventKind
from .ingest import Invalid, _f, _host, _host_row

#: a command's name on the wire, for each kind
KINDS = ("new_match", "call_time")


async def pending(pool: AsyncConnectionPool, host: Any) -> list[dict[str, Any]]:
    """The commands not yet done for the tables this host uploads."""
    async with pool.connection() as conn, conn.transaction():
        await _late_tables(conn, host)
        await _started_already(conn, host)
        rows = await (await conn.execute(
            "UPDATE table_commands c SET offered_at = coalesce(c.offered_at, now())"
            " FROM table_heads h, tables t WHERE c.done_at IS NULL AND h.table_id = c.table_id"
            " AND t.table_id = c.table_id AND h.host_id = %s"
            " RETURNING c.cmd_id, t.uid, c.kind", (host,))).fetchall()
    return [{"id": int(i), "table": uid, "command": kind} for i, uid, kind in sorted(rows)]


async def _late_tables(conn: Any, host: Any) -> None:
    """Bind this host's tables to the started rounds that seated their label before any
    table answered to it, and queue them the round's commands."""
    rows = await (await conn.execute(
        "UPDATE round_marks m SET table_id = t.table_id,"
        " start_idx = greatest(h.count, coalesce(h.host_count, 0)), marked_at = now()"
        " FROM tables t, table_heads h, rounds r"
        " WHERE m.table_id IS NULL AND t.label = m.table_label AND h.table_id = t.table_id"
        " AND h.host_id = %s AND r.round_id = m.round_id AND r.state IN ('playing', 'time_called')"
        " RETURNING m.comp_id, m.round_id, m.table_id, r.state", (host,))).fetchall()
    for comp_id, round_id, table_id, state in rows:
        kinds = ["new_match"] + (["call_time"] if state == "time_called" else [])
        for kind in kinds:  # in this order: the call time comes after the new match
            await conn.execute(
                "INSERT INTO table_commands (comp_id, round_id, table_id, kind) VALUES (%s,%s,%s,%s)"
                " ON CONFLICT (round_id, table_id, kind) DO NOTHING",
                (comp_id, round_id, table_id, kind))
        await conn.execute("SELECT pg_notify('tt_table', %s)", (str(table_id),))


async def _started_already(conn: Any, host: Any) -> None:
    """A new match still open for one of this host's tables whose uploads already show the
    round's match started (a new match at or after the round's mark) is done: sending it
    again would throw that match away."""
    rows = await (await conn.execute(
        "SELECT c.cmd_id, c.table_id, m.start_idx FROM table_commands c"
        " JOIN table_heads h ON h.table_id = c.table_id"
        " JOIN round_marks m ON m.round_id = c.round_id AND m.table_id = c.table_id"
        " WHERE c.done_at IS NULL AND c.kind = 'new_match' AND h.host_id = %s", (host,))).fetchall()
    for cmd_id, table_id, start in rows:
        evs = await (await conn.execute(
            "SELECT idx, canon FROM events WHERE table_id = %s AND current AND kind = %s"
            " AND idx >= %s ORDER BY idx", (table_id, int(EventKind.HAND_START), start))).fetchall()
        for idx, canon in evs:
            ev = E.decode(json.loads(canon), lenient=True)
            if isinstance(ev, E.HandStart) and ev.first_hand and ev.hand_no == 1:
                await conn.execute(
                    "UPDATE table_commands SET done_at = now(), ok = true, reply = %s"
                    " WHERE cmd_id = %s AND done_at IS NULL",
                    (f"the table had started the match already (event {idx})", cmd_id))
                await conn.execute("SELECT pg_notify('tt_table', %s)", (str(table_id),))
                break


async def done(pool: AsyncConnectionPool, token_id: int, body: Any) -> dict[str, Any]:
    host = _host(body)
    items = body.get("done")
    if not isinstance(items, list) or len(items) > 100:
        raise Invalid("commands: 'done' must be a list of at most 100")
    rows = []
    for n, it in enumerate(items):
        where = f"done {n}"
        if not isinstance(it, dict):
            raise Invalid(f"{where}: must be an object")
        rows.append((_f(it, "id", int, where, lo=1, hi=2**62), _f(it, "ok", bool, where),
                     _f(it, "reply", str, where, maxlen=200)))
    async with pool.connection() as conn, conn.transaction():
        await _host_row(conn, host, token_id)
        for cmd_id, ok, reply in rows:
            row = await (await conn.execute(
                "UPDATE table_commands c SET done_at = now(), ok = %s, reply = %s"
                " FROM table_heads h WHERE c.cmd_id = %s AND c.done_at IS NULL"
                " AND h.table_id = c.table_id AND h.host_id = %s RETURNING c.table_id",
                (ok, reply, cmd_id, host))).fetchone()
            if row is not None:
                await conn.execute("SELECT pg_notify('tt_table', %s)", (str(row[0]),))
                if not ok:
                    await conn.execute(
                        "INSERT INTO alerts (table_id, host_id, kind, detail) VALUES (%s,%s,%s,%s)",
                        (row[0], host, "command", f"the table refused command {cmd_id}: {reply}"))
    return {"ok": True}
