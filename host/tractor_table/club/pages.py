"""The live pages: the room (``/``) and a table (``/t/LABEL``), each also as
JSON (``.json``, the very dict the page is drawn from), and their event streams
(``/live/room``, ``/live/t/LABEL``). Server-rendered with Jinja2; the browser's
only script is ``static/club.js`` (ours, a few lines on ``EventSource``).
"""

from __future__ import annotations

import datetime as dt
import json
import zlib
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from psycopg_pool import AsyncConnectionPool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse

from ..events import EV, describe
from . import tableview
from .live import ROOM, Message, stream

HERE = Path(__file__).parent
ENV = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(),
                  trim_blocks=True, lstrip_blocks=True)

#: a table is offline when its host has not been heard for this long
OFFLINE_S = 30.0
#: the room's tiles are re-checked this often (a table falls silent without any change)
TICK_S = 5.0


def _hhmm(t: dt.datetime | None) -> str:
    return t.astimezone().strftime("%H:%M") if t is not None else "?"


_STATUS_SQL = """
SELECT t.table_id, t.label, t.uid, h.count, h.updated_at, h.host_count, h.host_seen_at,
       h.link_state, h.host_pending, now(),
       (SELECT count(*) FROM alerts a WHERE a.table_id = t.table_id AND a.cleared_at IS NULL),
       (SELECT max(ingested_at) FROM events e WHERE e.table_id = t.table_id AND e.idx = h.count - 1
          AND e.current)
FROM tables t JOIN table_heads h USING (table_id)
"""


def tile_of(row: tuple[Any, ...]) -> dict[str, Any]:
    """A room tile: live / behind / offline / disagreement, in words."""
    tid, label, uid, count, _updated, host_count, seen, link, pending, now, alerts, last_at = row
    behind = max(0, (host_count or 0) - count)
    if alerts:
        status = "disagreement"
        words = f"{alerts} alert(s): see the table"
    elif seen is None or (now - seen).total_seconds() > OFFLINE_S:
        status = "offline"
        since = seen or last_at
        words = f"offline since {_hhmm(since)}"
        if behind:
            words += f", {behind} events not yet uploaded"
    elif behind:
        status = "behind"
        words = f"host is {behind} events ahead of the server"
    elif link is not None and link != "up":
        status = "behind"
        words = f"the table's link is {link}"
    else:
        status = "live"
        words = f"live, {count} events"
    return {"table_id": tid, "label": label, "uid": uid, "count": count, "status": status,
            "words": words, "behind": behind, "host_seen_at": seen.isoformat() if seen else None,
            "pending": pending}


async def _events(conn: Any, tid: int) -> list[tuple[int, list[int]]]:
    row = await (await conn.execute(
        "SELECT max(idx) FROM events WHERE table_id = %s AND current AND kind = %s",
        (tid, int(EV.HAND_START)))).fetchone()
    start = row[0] if row and row[0] is not None else 0
    return [(int(i), json.loads(c)) for i, c in await (await conn.execute(
        "SELECT idx, canon FROM events WHERE table_id = %s AND current AND idx >= %s ORDER BY idx",
        (tid, start))).fetchall()]


async def table_state(pool: AsyncConnectionPool, tid: int) -> dict[str, Any] | None:
    async with pool.connection() as conn:
        row = await (await conn.execute(_STATUS_SQL + " WHERE t.table_id = %s", (tid,))).fetchone()
        if row is None:
            return None
        tile = tile_of(row)
        evs = await _events(conn, tid)
        ends = await (await conn.execute(
            "SELECT idx, canon FROM events WHERE table_id = %s AND current AND kind IN (%s, %s) "
            "ORDER BY idx DESC LIMIT 30",
            (tid, int(EV.HAND_END), int(EV.REDEAL)))).fetchall()
        alerts = await (await conn.execute(
            "SELECT at, kind, detail FROM alerts WHERE table_id = %s AND cleared_at IS NULL "
            "ORDER BY alert_id DESC LIMIT 10", (tid,))).fetchall()
    view = tableview.fold(evs)
    view["results"] = [{"idx": i, "text": describe(json.loads(c))} for i, c in ends]
    view["alerts"] = [{"at": a.isoformat(), "kind": k, "detail": d} for a, k, d in alerts]
    view["tile"] = tile
    view["label"] = tile["label"]
    return view


async def render_table(pool: AsyncConnectionPool, tid: int) -> tuple[str, str, str] | None:
    """(version, the table page's live part, the room tile), rendered once for every subscriber."""
    view = await table_state(pool, tid)
    if view is None:
        return None
    frag = ENV.get_template("table_body.html").render(v=view)
    tile = ENV.get_template("tile.html").render(t=view["tile"])
    version = f"{view['tile']['count']}.{zlib.crc32((frag + tile).encode()) & 0xFFFFFF:06x}"
    return version, frag, tile


def _tile_html(tile: dict[str, Any]) -> tuple[str, str]:
    html = ENV.get_template("tile.html").render(t=tile)
    return f"{tile['count']}.{zlib.crc32(html.encode()) & 0xFFFFFF:06x}", html


async def render_tiles(pool: AsyncConnectionPool, tids: list[int]) -> dict[int, tuple[str, str]]:
    """{table id: (version, its room tile)}, in one query, for the tables a round marked."""
    async with pool.connection() as conn:
        rows = await (await conn.execute(_STATUS_SQL + " WHERE t.table_id = ANY(%s)",
                                         (tids,))).fetchall()
    return {int(r[0]): _tile_html(tile_of(r)) for r in rows}


async def room_tiles(pool: AsyncConnectionPool) -> list[dict[str, Any]]:
    async with pool.connection() as conn:
        rows = await (await conn.execute(_STATUS_SQL + " ORDER BY t.table_id")).fetchall()
    return [tile_of(r) for r in rows]


async def _table_id(request: Request, label: str) -> int | None:
    if len(label) > 40:
        return None
    async with request.app.state.club.pool.connection() as conn:
        row = await (await conn.execute("SELECT table_id FROM tables WHERE label = %s",
                                        (label,))).fetchone()
    return int(row[0]) if row else None


def _not_found(label: str) -> Response:
    return HTMLResponse(ENV.get_template("missing.html").render(label=label), status_code=404)


async def room(request: Request) -> Response:
    tiles = await room_tiles(request.app.state.club.pool)
    return HTMLResponse(ENV.get_template("room.html").render(tiles=tiles))


async def room_json(request: Request) -> Response:
    return JSONResponse({"tables": await room_tiles(request.app.state.club.pool)})


async def table(request: Request) -> Response:
    label = request.path_params["label"]
    tid = await _table_id(request, label)
    if tid is None:
        return _not_found(label)
    got = await request.app.state.club.hub.current(tid)
    view = await table_state(request.app.state.club.pool, tid)
    if got is None or view is None:
        return _not_found(label)
    return HTMLResponse(ENV.get_template("table.html").render(
        v=view, body=got[1], version=f"{tid}:{got[0]}"))


async def table_json(request: Request) -> Response:
    label = request.path_params["label"]
    tid = await _table_id(request, label)
    view = await table_state(request.app.state.club.pool, tid) if tid is not None else None
    if view is None:
        return JSONResponse({"error": f"no table {label[:40]!r}"}, status_code=404)
    return JSONResponse(view)


def _sse(gen: Any) -> Response:
    return StreamingResponse(gen, media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


async def table_stream(request: Request) -> Response:
    label = request.path_params["label"]
    tid = await _table_id(request, label)
    if tid is None:
        return _not_found(label)
    hub = request.app.state.club.hub
    sub = hub.subscribe(tid)
    got = await hub.current(tid)
    first = [Message(f"{tid}:{got[0]}", "table", got[1])] if got else []
    return _sse(stream(hub, sub, request.headers.get("last-event-id"), first))


async def room_stream(request: Request) -> Response:
    hub = request.app.state.club.hub
    sub = hub.subscribe(ROOM)
    first = []
    for t in await room_tiles(request.app.state.club.pool):  # one query, not a render per table
        version, html = _tile_html(t)
        hub.tile_sent.setdefault(t["table_id"], html)  # a newer one pushed meanwhile stays
        first.append(Message(f"{t['table_id']}:{version}", "tile", html))
    return _sse(stream(hub, sub, None, first))
