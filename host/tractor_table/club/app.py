"""The club server's Starlette application: :func:`create_app` and :data:`ROUTES`.

Every route is listed in :data:`ROUTES` (the competition layer adds its own with
``create_app(extra_routes=...)``). The API (``/api/v1/...``) needs a host's
bearer token; a request without a valid one is refused (401) and logged in
``refused``. Pages are read-only and need no login. Every request body is
bounded (:data:`MAX_BODY`) and validated before anything is applied.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from psycopg_pool import AsyncConnectionPool
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from . import commands, ingest, pages, tokens
from .live import Hub

log = logging.getLogger("tractor_table.club")

HERE = Path(__file__).parent
#: the largest request body taken (a batch of 500 events is about 60 KiB)
MAX_BODY = 1 << 20


BadRequest = ingest.Refused


@dataclass
class Club:
    """What the handlers share: the pool, the live hub, settings."""

    url: str
    pool: AsyncConnectionPool
    hub: Hub
    settings: dict[str, Any] = field(default_factory=dict)


def club(request: Request) -> Club:
    c: Club = request.app.state.club
    return c


async def read_json(request: Request) -> Any:
    """The request's JSON body, bounded by :data:`MAX_BODY`."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise BadRequest(415, "send the body as application/json")
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
        raise BadRequest(413, f"the body is over {MAX_BODY} bytes: send fewer items per batch")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise BadRequest(413, f"the body is over {MAX_BODY} bytes: send fewer items per batch")
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadRequest(400, f"the body is not JSON: {exc}") from None


async def authorise(request: Request) -> int:
    """The token id of the request's bearer token, or 401 (and a row in ``refused``)."""
    header = request.headers.get("authorization", "")
    why = ""
    token_id = None
    if not header.startswith("Bearer "):
        why = "no bearer token"
    else:
        tok = header[7:].strip()
        if not tok or len(tok) > 200:
            why = "a malformed token"
        else:
            async with club(request).pool.connection() as conn:
                row = await (await conn.execute(
                    "SELECT token_id, revoked_at FROM tokens WHERE token_sha256 = %s",
                    (tokens.digest(tok),))).fetchone()
            if row is None:
                why = "an unknown token"
            elif row[1] is not None:
                why = "a revoked token"
            else:
                token_id = int(row[0])
    if token_id is None:
        remote = request.client.host if request.client else "?"
        log.warning("refused %s %s from %s: %s", request.method, request.url.path, remote, why)
        async with club(request).pool.connection() as conn:
            await conn.execute(
                "INSERT INTO refused (remote, method, path, why) VALUES (%s, %s, %s, %s)",
                (remote, request.method, request.url.path[:200], why))
        raise BadRequest(401, f"refused: {why}; give the token the club issued "
                              "(tractor-table club token add NAME) with --token or TT_CLUB_TOKEN")
    return token_id


def api(fn: Callable[[Request, int, Any], Any]) -> Callable[[Request], Any]:
    """An API handler: token checked, body read as JSON, errors as JSON."""

    async def handler(request: Request) -> Response:
        try:
            token_id = await authorise(request)
            body = await read_json(request) if request.method == "POST" else None
            out = await fn(request, token_id, body)
        except BadRequest as exc:
            return JSONResponse({"error": exc.message, **exc.extra}, status_code=exc.status)
        except ingest.Invalid as exc:
            return JSONResponse({"error": str(exc), "applied": 0}, status_code=400)
        if isinstance(out, Response):
            return out
        return JSONResponse(out)

    return handler


@api
async def hello(request: Request, token_id: int, body: Any) -> Any:
    return await ingest.hello(club(request).pool, token_id, body)


@api
async def batch(request: Request, token_id: int, body: Any) -> Any:
    status, out = await ingest.apply_batch(club(request).pool, token_id, body)
    if status == 200:  # what the server has for the host's tables (club/commands.py)
        out["commands"] = await commands.pending(club(request).pool, ingest._host(body),
                                                 maybe=out.pop("_commands"))
    return JSONResponse(out, status_code=status)


@api
async def heartbeat(request: Request, token_id: int, body: Any) -> Any:
    out = await ingest.heartbeat(club(request).pool, token_id, body)
    out["commands"] = await commands.pending(club(request).pool, ingest._host(body))
    return out


@api
async def command_done(request: Request, token_id: int, body: Any) -> Any:
    return await commands.done(club(request).pool, token_id, body)


@api
async def head(request: Request, token_id: int, body: Any) -> Any:
    return await ingest.table_head(club(request).pool, request.path_params["uid"])


async def healthz(request: Request) -> Response:
    async with club(request).pool.connection() as conn:
        await conn.execute("SELECT 1")
    return JSONResponse({"ok": True, "subscribers": club(request).hub.subscribers()})


#: every route of the club server, in one place
ROUTES: list[BaseRoute] = [
    Route("/", pages.room, methods=["GET"]),
    Route("/.json", pages.room_json, methods=["GET"]),
    Route("/t/{label}.json", pages.table_json, methods=["GET"]),  # before /t/{label}, which matches it too
    Route("/t/{label}", pages.table, methods=["GET"]),
    Route("/live/room", pages.room_stream, methods=["GET"]),
    Route("/live/t/{label}", pages.table_stream, methods=["GET"]),
    Route("/healthz", healthz, methods=["GET"]),
    Route("/api/v1/hello", hello, methods=["POST"]),
    Route("/api/v1/batch", batch, methods=["POST"]),
    Route("/api/v1/heartbeat", heartbeat, methods=["POST"]),
    Route("/api/v1/commands", command_done, methods=["POST"]),
    Route("/api/v1/tables/{uid}/head", head, methods=["GET"]),
    Mount("/static", app=StaticFiles(directory=HERE / "static"), name="static"),
]


def create_app(url: str, *, extra_routes: Sequence[BaseRoute] = (), pool_size: int = 12,
               settings: dict[str, Any] | None = None, offline_s: float = pages.OFFLINE_S) -> Starlette:
    """The club server on the PostgreSQL at ``url`` (migrated first: :func:`.db.migrate`);
    a table is shown offline after ``offline_s`` without its host's heartbeat."""
    from . import db

    pages.OFFLINE_S = offline_s
    with db.connect(url) as conn:
        db.migrate(conn)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        pool = AsyncConnectionPool(url, min_size=2, max_size=pool_size, open=False,
                                   kwargs={"autocommit": True})
        await pool.open(wait=True, timeout=30)
        hub = Hub(url, pool, pages.render_table, pages.room_tiles, pages.render_tiles)
        await hub.start()
        app.state.club = Club(url, pool, hub, dict(settings or {}))
        try:
            yield
        finally:
            await hub.stop()
            await pool.close()

    return Starlette(routes=[*extra_routes, *ROUTES], lifespan=lifespan)
