"""A competition round on the virtual table, through the club server: the round's start
sends the table a new match, "call time" reaches the table over the link (the host takes
it from the upload's replies), the deal in progress is played out, no new deal starts and
the display says so; the round's result is read from the events the table uploaded."""

from __future__ import annotations

import sqlite3
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from shengji import Rules
from tractor_table import events as E
from tractor_table.club import db
from tractor_table.club.tablecommands import LinkCommands
from tractor_table.club.uploader import Uploader
from tractor_table.competition import store
from tractor_table.competition.scoring import FULL_LADDER, PRESETS
from tractor_table.records import Recorder, Store
from tractor_table.sim.virtual.game import BotGame
from tractor_table.vocab.enums import Button
from vtable_rig import table_in

pytestmark = pytest.mark.club

CSV = "entry,name\nEast,Li Wei\nEast,Wang Fang\nWest,Zhang San\nWest,Li Si\n"


def until(what: str, pred: Any, timeout: float = 60.0) -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = pred()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"not within {timeout:.0f} s: {what}")


def one(url: str, sql: str, *args: Any) -> Any:
    with db.connect(url) as c:
        row = c.execute(sql, args).fetchone()
    return None if row is None else row[0]


def test_call_time_reaches_the_virtual_table_and_the_result_comes_from_its_events(
        compiled: Path, club_server: Any, tmp_path: Path) -> None:
    server, token = club_server
    url = server.db
    with db.connect(url) as conn:
        comp = store.create(conn, "Club night", scoring=replace(PRESETS["club"], ladder=FULL_LADDER))
        store.import_players(conn, comp, CSV)
        store.draw_round(conn, comp, time_limit_min=50)
    records = Store.open(tmp_path / "records.sqlite")
    recorder = Recorder(records, port="virtual", source="virtual")
    cmds = LinkCommands(reply_s=10)
    vt = table_in(compiled, "comp", 1)
    vt.note_hooks.append(recorder.on_note)
    vt.note_hooks.append(cmds.on_note)
    cmds.attach(lambda p: vt.link.send_app(p) if vt.link else None,
                lambda: vt.link is not None and vt.link.synced())
    up = Uploader(records.path, server.base, token, heartbeat_s=0.2, on_command=cmds)
    recorder.on_written.append(up.wake)
    try:
        with vt:
            up.start()
            boot = vt.next_event()  # the match the table started at power-up: not the round's
            assert isinstance(boot, E.HandStart)
            label = until("the table heard by the server", lambda: one(url, "SELECT label FROM tables"))
            with db.connect(url) as conn:
                store.seat(conn, comp, 1, [label], "td")
                store.move(conn, comp, 1, "start")  # marks the table, sends it a new match
            until("the new match done at the table", lambda: one(
                url, "SELECT ok FROM table_commands WHERE kind = 'new_match' AND done_at IS NOT NULL"))
            with db.connect(url) as conn:
                assert store.move(conn, comp, 1, "call_time") == "time_called"
            until("time called at the table", lambda: one(
                url, "SELECT ok FROM table_commands WHERE kind = 'call_time' AND done_at IS NOT NULL"))
            assert cmds.sent == ["new_match", "call_time"]  # each once
            assert vt.wait(lambda: vt.lines[7] == "TIME: last deal", 10)
            # the deal in progress (the new match's first, in its draw) is played out
            game = BotGame(vt, Rules(decks=1), seed=4, strength=1)
            game.play(1)
            assert game.disagreements == []
            assert vt.wait(lambda: vt.lines[2].endswith("time up"), 10), vt.lines
            vt.press(0, int(Button.OK))  # no new deal starts
            assert vt.wait(lambda: vt.lines[7] == "time up: no deal", 10), vt.lines
            until("everything uploaded", lambda: up.pending() == 0 and up.acked > 0)
    finally:
        up.stop()
        records.close()
    # the host's own file, read independently: the new match's hand end
    with sqlite3.connect(tmp_path / "records.sqlite") as lite:
        rows = lite.execute("SELECT idx, event FROM events WHERE current = 1 ORDER BY idx").fetchall()
    import json

    evs = [(i, E.decode(json.loads(t))) for i, t in rows]
    starts = [i for i, e in evs if isinstance(e, E.HandStart) and e.first_hand and e.hand_no == 1]
    assert len(starts) == 2  # the boot's match and the round's
    ends = [e for i, e in evs if isinstance(e, E.HandEnd) and i > starts[1]]
    assert len(ends) == 1 and not [e for i, e in evs if isinstance(e, E.HandStart) and i > starts[1]
                                   and not e.first_hand]
    with db.connect(url) as conn:
        ev = store.load(conn, comp)
        (m,) = [x for x in ev.matches if x.round_no == 1]
        assert (m.status, m.levels, m.deals) == ("finished", tuple(ends[0].levels), 1)
        assert ev.sources[m.match_id] == "table"
        std = store.standings(ev)
        assert not std.pending and sum(r.played for r in std.rows) == 2
