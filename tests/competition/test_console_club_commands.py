"""``tractor-table console --club URL`` takes the club's table commands as ``link`` and
``virtual`` do: the console's own wiring (commands/console.py ``club_commands`` and the
uploader ``_club.start`` makes) against a real club server process on a real PostgreSQL,
the real firmware on a virtual table behind the console (Textual, headless). The round's
start reaches the table as a new match, "call time" as time called; the table's display
says so and the console's message line says "club: call time done"."""

from __future__ import annotations

import argparse
import asyncio
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from shengji import Rules
from textual.pilot import Pilot
from tractor_table.club import db
from tractor_table.commands import _club
from tractor_table.commands.console import club_commands, make_verifier
from tractor_table.competition import store
from tractor_table.competition.scoring import FULL_LADDER, PRESETS
from tractor_table.console.app import ConsoleApp
from tractor_table.records.recorder import open_recorder
from tractor_table.sim.virtual.source import VirtualSource

pytestmark = pytest.mark.club

CSV = "entry,name\nEast,Li Wei\nEast,Wang Fang\nWest,Zhang San\nWest,Li Si\n"


def one(url: str, sql: str, *args: Any) -> Any:
    with db.connect(url) as c:
        row = c.execute(sql, args).fetchone()
    return None if row is None else row[0]


async def until(pilot: Pilot[int], what: str, pred: Any, timeout: float = 60.0) -> Any:
    end = time.monotonic() + timeout
    while True:
        got = await asyncio.to_thread(pred)
        if got:
            return got
        if time.monotonic() > end:
            raise AssertionError(f"not within {timeout:.0f} s: {what}")
        await pilot.pause(0.1)


def test_the_console_takes_the_club_s_new_match_and_call_time(
        club_server: Any, tmp_path: Path) -> None:
    server, token = club_server
    url = server.db
    with db.connect(url) as conn:
        comp = store.create(conn, "Club night", scoring=replace(PRESETS["club"], ladder=FULL_LADDER))
        store.import_players(conn, comp, CSV)
        store.draw_round(conn, comp, time_limit_min=50)
    rules = Rules(decks=1)
    source = VirtualSource(rules, readers="direct")
    recorder = open_recorder(tmp_path / "records.sqlite", False, port="virtual", source="console",
                             rules=rules)
    assert recorder is not None
    verifier = make_verifier(rules)
    cmds = club_commands(source, verifier)
    up = _club.start(argparse.Namespace(club=server.base, token=token), recorder, quiet=True,
                     commands=cmds)
    # the server offers a table its commands in the replies to its batches and
    # heartbeats: a heartbeat every 0.2 s instead of the uploader's 10 s (the
    # table is idle: no batch), as the other club tests' uploaders beat
    up.heartbeat_s = 0.2
    up.wake()
    source.start()
    app = ConsoleApp(source, verifier, recorder=recorder)

    async def scenario(pilot: Pilot[int]) -> None:
        label = await until(pilot, "the table heard by the server",
                            lambda: one(url, "SELECT label FROM tables"))

        def start_round() -> None:
            with db.connect(url) as conn:
                store.seat(conn, comp, 1, [label], "td")
                store.move(conn, comp, 1, "start")  # marks the table, sends it a new match

        await asyncio.to_thread(start_round)
        await until(pilot, "the new match done at the table", lambda: one(
            url, "SELECT ok FROM table_commands WHERE kind = 'new_match' AND done_at IS NOT NULL"))
        await until(pilot, "the console says so", lambda: "club: new match done" in app.messages)

        def call_time() -> str:
            with db.connect(url) as conn:
                return store.move(conn, comp, 1, "call_time")

        assert await asyncio.to_thread(call_time) == "time_called"
        await until(pilot, "time called at the table", lambda: one(
            url, "SELECT ok FROM table_commands WHERE kind = 'call_time' AND done_at IS NOT NULL"))
        await until(pilot, "the message line says so",
                    lambda: app.messages and app.messages[-1] == "club: call time done")
        assert cmds.sent == ["new_match", "call_time"]  # each once
        await until(pilot, "the table's display says so",
                    lambda: source.vt.lines[7] == "TIME: last deal", 10)
        await pilot.press("q")
        await until(pilot, "the console closed", lambda: source.closed, 10)

    async def main() -> None:
        async with app.run_test(size=(140, 45)) as pilot:
            await scenario(pilot)

    try:
        asyncio.run(main())
    finally:
        source.close()
        _club.stop(up)
        recorder.store.close()
