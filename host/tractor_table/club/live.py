"""Server-sent events from ONE ``LISTEN`` connection, fanned out.

:class:`Hub` holds a dedicated psycopg connection doing ``LISTEN tt_table,
tt_room`` (a connection waiting on ``notifies()`` can do nothing else, so it is
kept apart from the pool). ``ingest`` NOTIFYs at commit, so nothing rolled back
is ever announced. Per notified table the hub renders the table's fragment and
its room tile ONCE and hands the same bytes to every subscriber.

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
RENDERERS = 4  # tables rendered at once (each holds a pool connection while it renders)


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


class Hub:
    def __init__(self, url: str, pool: AsyncConnectionPool, render: Renderer,
                 tiles: Callable[[AsyncConnectionPool], Awaitable[list[dict[str, Any]]]]) -> None:
        self.url = url
        self.pool = pool
        self.render = render
        self.tiles = tiles
        self.subs: dict[int, set[Subscriber]] = {}
        self.latest: dict[int, tuple[str, str, str]] = {}
        self._queue: asyncio.Queue[int] = asyncio.Queue()
        self._queued: set[int] = set()
        self._locks: dict[int, asyncio.Lock] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self.listening = asyncio.Event()
        self.notifications = 0
        self.renders = 0

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

    def mark(self, table_id: int) -> None:
        if table_id not in self._queued:
            self._queued.add(table_id)
            self._queue.put_nowait(table_id)

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
                            self.mark(int(n.payload))
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
            try:
                for t in await self.tiles(self.pool):
                    tid, words = t["table_id"], t["status"] + t["words"]
                    if seen.get(tid) not in (None, words):
                        self.mark(tid)
                    seen[tid] = words
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("room not checked (%s)", exc)

    async def _work(self) -> None:
        """:data:`RENDERERS` workers take the marked tables: several tables render at
        once (each render waits on the database), one table's renders one at a
        time and in order (its lock), so a page never gets an older state after
        a newer one; a table marked again while queued is rendered once."""
        workers = [asyncio.create_task(self._worker()) for _ in range(RENDERERS)]
        try:
            await asyncio.gather(*workers)
        finally:
            for w in workers:
                w.cancel()

    async def _worker(self) -> None:
        while True:
            tid = await self._queue.get()
            self._queued.discard(tid)
            async with self._locks.setdefault(tid, asyncio.Lock()):
                try:
                    got = await self.render(self.pool, tid)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    log.warning("table %s not rendered (%s); again shortly", tid, exc)
                    await asyncio.sleep(0.5)
                    self.mark(tid)
                    continue
            if got is None:
                continue
            self.renders += 1
            self.latest[tid] = got
            version, frag, tile = got
            msg = Message(f"{tid}:{version}", "table", frag)
            for s in self.subs.get(tid, ()):
                s.offer("table", msg)
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
