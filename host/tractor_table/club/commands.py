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
"""

from __future__ import annotations

from typing import Any

from psycopg_pool import AsyncConnectionPool

from .ingest import Invalid, _f, _host, _host_row

#: a command's name on the wire, for each kind
KINDS = ("new_match", "call_time")


async def pending(pool: AsyncConnectionPool, host: Any) -> list[dict[str, Any]]:
    """The commands not yet done for the tables this host uploads."""
    async with pool.connection() as conn, conn.transaction():
        rows = await (await conn.execute(
            "UPDATE table_commands c SET offered_at = coalesce(c.offered_at, now())"
            " FROM table_heads h, tables t WHERE c.done_at IS NULL AND h.table_id = c.table_id"
            " AND t.table_id = c.table_id AND h.host_id = %s"
            " RETURNING c.cmd_id, t.uid, c.kind", (host,))).fetchall()
    return [{"id": int(i), "table": uid, "command": kind} for i, uid, kind in sorted(rows)]


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
