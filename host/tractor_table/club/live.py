"""Server-sent events from ONE ``LISTEN`` connection, fanned out.

:class:`Hub` holds a dedicated psycopg connection doing ``LISTEN tt_table,
tt_room`` (a connection waiting on ``notifies()`` can do nothing else, so it is
kept apart from the pool). ``ingest`` NOTIFYs at commit, so nothing rolled back
is ever announced. Per notified table the hub renders the table's fragment and
its room tile ONCE and hands the same bytes to every subscriber.

It renders only what someone watches: a table's page (its events folded, five
queries' worth) only while a browser holds that page open, else its cached
state is dropped and the next page view renders it; its room tile (one query)
only while a room page is open. A host's heartbeat (``tt_room``) changes at
most the tile: the tile is rendered, and the page only if the tile's words
changed. In a room of hundreds of tables with a projector and a few phones,
the server's rendering follows the watched pages, not the tables.

Each subscriber has one slot, not a queue: a message replaces the one it has
not taken yet (every message is the table's whole state, so the latest is all a
browser needs). A slow browser therefore costs one message of memory and never
holds up the others; a fast one gets every state. The message id is
``<table id>:<version>``; a browser reconnecting sends it as ``Last-Event-ID``
and gets the current state at once if it is behind.

When the LISTEN connection is lost (PostgreSQL restarted), the hub connects
again with backoff and renders every subscribed table afresh: notifications sent
while it was away are not lost to the pages.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool

log = logging.getLogger("tractor_table.club.live")

ROOM = 0  # the room's channel (tiles of every table)
RENDERERS = 4  # table pages rendered at once (each holds a pool connection while it renders)


@dataclass
class Message:
    id: str
    event: str
    data: str

    def encode(self) -> bytes:
        lines = [f"id: {self.id}", f"event: {self.event}"]
        lines += [f"data: {line}" for line in self.data.split("\n")]
        return ("\n".join(lines) + "\n\n").encode()


@dataclass(eq=False)
class Subscriber:
    channel: int
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    pending: dict[str, Message] = field(default_factory=dict)  # one per key (a room's tiles)
    dropped: int = 0

    def offer(self, key: str, msg: Message) -> None:
        if key in self.pending:
            self.dropped += 1
        self.pending[key] = msg
        self.wake.set()

    def take(self) -> list[Message]:
        out = list(self.pending.values())
        self.pending.clear()
        self.wake.clear()
        return out


#: render(pool, table_id) -> (version, table fragment html, tile html) or None
Renderer = Callable[[AsyncConnectionPool, int], Awaitable[tuple[str, str, str] | None]]
#: tiles(pool, table ids) -> {table id: (version, tile html)}, in one query
TileRenderer = Callable[[AsyncConnectionPool, list[int]], Awaitable[dict[int, tuple[str, str]]]]


class Hub:
    def __init__(self, url: str, pool: AsyncConnectionPool, render: Renderer,
                 tiles: Callable[[AsyncConnectionPool], Awaitable[list[dict[str, Any]]]],
                 tile: TileRenderer) -> None:
        self.url = url
        self.pool = pool
        self.render = render
        self.tiles = tiles
        self.tile = tile
        self.subs: dict[int, set[Subscriber]] = {}
        self.latest: dict[int, tuple[str, str, str]] = {}
        #: the tile html each table's room subscribers were last sent
        self.tile_sent: dict[int, str] = {}
        #: the tables marked since the last round, each with whether its events changed
        #: (else only what its tile says may have)
        self._queued: dict[int, bool] = {}
        self._ready = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self.listening = asyncio.Event()
        self.notifications = 0
        self.renders = 0
        self.tile_renders = 0

    def subscribers(self) -> int:
        return sum(len(s) for s in self.subs.values())

    async def start(self) -> None:
        self._tasks = [asyncio.create_task(self._listen()), asyncio.create_task(self._work()),
                       asyncio.create_task(self._tick())]

    async def stop(self) -> None:
        for t in self._tasks:
            t.cancel()
        for t in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t

    def subscribe(self, channel: int) -> Subscriber:
        s = Subscriber(channel)
        self.subs.setdefault(channel, set()).add(s)
        return s

    def unsubscribe(self, s: Subscriber) -> None:
        group = self.subs.get(s.channel)
        if group is not None:
            group.discard(s)
            if not group:
                del self.subs[s.channel]
                if s.channel == ROOM:
                    self.tile_sent.clear()  # no room page holds any tile now

    def mark(self, table_id: int, events: bool = True) -> None:
        """Queue ``table_id`` to be rendered: its events changed (``events``), or only
        what its tile says may have (a heartbeat, time passing)."""
        self._queued[table_id] = self._queued.get(table_id, False) or events
        self._ready.set()

    async def current(self, table_id: int) -> tuple[str, str, str] | None:
        got = self.latest.get(table_id)
        if got is None:
            got = await self.render(self.pool, table_id)
            if got is not None:
                self.latest[table_id] = got
        return got

    async def _listen(self) -> None:
        delay = 0.2
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(self.url, autocommit=True) as conn:
                    await conn.execute("LISTEN tt_table")
                    await conn.execute("LISTEN tt_room")
                    delay = 0.2
                    self.listening.set()
                    # anything announced while we were away: render afresh
                    for tid in list(self.latest) + [t for t in self.subs if t != ROOM]:
                        self.mark(tid)
                    async for n in conn.notifies():
                        self.notifications += 1
                        with contextlib.suppress(ValueError):
                            self.mark(int(n.payload), n.channel != "tt_room")
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # PostgreSQL went away: connect again
                self.listening.clear()
                log.warning("LISTEN connection lost (%s); again in %.1f s", exc, delay)
                await asyncio.sleep(delay * (0.5 + random.random()))
                delay = min(delay * 2, 5.0)

    async def _tick(self, every: float = 5.0) -> None:
        """A table falls silent without any notification: every few seconds the
        tiles' words are compared and the tables whose words changed rendered."""
        seen: dict[int, str] = {}
        while True:
            await asyncio.sleep(every)
            if not self.subs:
                seen.clear()  # no page open in this process: nothing to keep current
                continue
            try:
                for t in await self.tiles(self.pool):
                    tid, words = t["table_id"], t["status"] + t["words"]
                    if seen.get(tid) not in (None, words):
                        self.mark(tid, events=False)
                    seen[tid] = words
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("room not checked (%s)", exc)

    async def _work(self) -> None:
        """Rounds: every table marked since the last round is rendered in this one, so a
        table marked again meanwhile is rendered once, and a page never gets an older
        state after a newer one (one round at a time)."""
        while True:
            await self._ready.wait()
            self._ready.clear()
            marked, self._queued = self._queued, {}
            try:
                await self._round(marked)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("%d table(s) not rendered (%s); again shortly", len(marked), exc)
                await asyncio.sleep(0.5)
                for tid, events in marked.items():
                    self.mark(tid, events)

    async def _round(self, marked: dict[int, bool]) -> None:
        """Render what is watched of the ``marked`` tables and offer it: the tiles in one
        query (for an open room page, and to see whether a watched page's words changed);
        a page (if open) when its events or its tile's words changed, :data:`RENDERERS`
        at once."""
        room = bool(self.subs.get(ROOM))
        watched = {tid for tid in marked if self.subs.get(tid)}
        for tid in marked:
            if tid not in watched:
                self.latest.pop(tid, None)  # nobody holds the page: the next view renders it
        need_tile = [tid for tid, events in marked.items()
                     if room or (tid in watched and not events and tid in self.latest)]
        tiles = await self.tile(self.pool, need_tile) if need_tile else {}
        self.tile_renders += len(tiles)
        pages = []
        for tid, events in marked.items():
            if tid in watched:
                held = self.latest.get(tid)
                got_tile = tiles.get(tid)
                if events or held is None or got_tile is None or held[2] != got_tile[1]:
                    pages.append(tid)
            elif tid in tiles:
                self._offer_tile(tid, *tiles[tid])
        if not pages:
            return
        gate = asyncio.Semaphore(RENDERERS)

        async def one(tid: int) -> None:
            async with gate:
                got = await self.render(self.pool, tid)
            if got is None:
                return
            self.renders += 1
            self.latest[tid] = got
            version, frag, tile = got
            msg = Message(f"{tid}:{version}", "table", frag)
            for s in self.subs.get(tid, ()):
                s.offer("table", msg)
            self._offer_tile(tid, version, tile)

        await asyncio.gather(*(one(tid) for tid in pages))

    def _offer_tile(self, tid: int, version: str, tile: str) -> None:
        if not self.subs.get(ROOM) or tile == self.tile_sent.get(tid):
            return  # no room page open, or each holds this tile already
        self.tile_sent[tid] = tile
        tmsg = Message(f"{tid}:{version}", "tile", tile)
        for s in self.subs.get(ROOM, ()):
            s.offer(f"tile{tid}", tmsg)


async def stream(hub: Hub, sub: Subscriber, last_id: str | None,
                 first: list[Message], ping_s: float = 15.0) -> Any:
    """The bytes of one browser's event stream (an async generator for
    StreamingResponse); ``sub`` subscribed BEFORE ``first`` was rendered, so no
    change falls between them."""
    try:
        yield b"retry: 1000\n\n"
        for m in first:
            if m.id != last_id:
                yield m.encode()
        while True:
            try:
                await asyncio.wait_for(sub.wake.wait(), timeout=ping_s)
            except TimeoutError:
                yield b": ping\n\n"
                continue
            for m in sub.take():
                yield m.encode()
    finally:
        hub.unsubscribe(sub)
