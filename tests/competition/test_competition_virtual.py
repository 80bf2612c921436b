"""The club demo's competition on four real virtual tables (competition.demo.VirtualTables):
each a ``tractor-table virtual --bots --club-rounds`` process, the firmware on the
MicroPython unix port, its host recording in its own SQLite file and uploading to a real
club server process on a real PostgreSQL. A two-round Swiss event from the director's
pages, over HTTP as a browser posts them; each round's new match reaches the tables, then
"call time" (the deal in progress is played out, no new one starts: the bots would play
three). The results on the server equal what each
host's SQLite file says, read on its own; the standings count both rounds."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

import directorform
import httpx
import pytest
from tractor_table.club import db
from tractor_table.competition import demo, store
from tractor_table.competition.simevent import matches_in_file

pytestmark = pytest.mark.club


def test_two_rounds_on_four_virtual_tables_results_equal_the_hosts_files(
        club_server: Any, tmp_path: Path) -> None:
    server, token = club_server
    password = demo.add_director(server.db)
    # a heartbeat every 0.5 s (not the uploader's 10 s): each round's new match
    # reaches the waiting tables in the reply to their next one
    tables = demo.VirtualTables(tmp_path, server.base, token, 4, pace_s=0.05, hands=3, heartbeat_s=0.5)
    with tables, httpx.Client(base_url=server.base, timeout=30) as d:
        assert d.post("/director/login", data={"name": demo.DIRECTOR, "password": password}
                      ).status_code in (200, 303)

        def act(**form: str) -> str:
            return directorform.act(d, **form)

        def wait(what: str, pred: Any, timeout: float = 240) -> Any:
            end = time.monotonic() + timeout
            while time.monotonic() < end:
                got = pred()
                if got:
                    return got
                assert tables.errors == [], tables.errors
                time.sleep(0.2)
            raise AssertionError(f"not within {timeout} s: {what}")

        def new_matches_done(rnd: int) -> int:
            with db.connect(server.db) as c:
                row = c.execute(
                    "SELECT count(*) FROM table_commands c JOIN rounds r USING (round_id)"
                    " WHERE r.no = %s AND c.kind = 'new_match' AND c.ok", (rnd,)).fetchone()
            return int(row[0]) if row else 0

        labels = wait("four tables heard", lambda: (lambda ts: sorted(t["label"] for t in ts)
                                                     if len(ts) == 4 else None)(
            d.get("/.json").json()["tables"]))
        assert "created" in act(action="create", name="Virtual night", preset="club",
                                ladder="full", movement="swiss")
        assert "16 players in 8 entries" in act(action="import", _file=demo.player_csv(8))
        for rnd in (1, 2):
            assert f"round {rnd} drawn" in act(action="draw", time_limit="50")
            assert "4 tables" in act(action="seat", round=str(rnd), tables=" ".join(labels))
            assert "playing" in act(action="start", round=str(rnd))
            wait(f"round {rnd}'s new match at four tables", lambda rnd=rnd: new_matches_done(rnd) == 4)
            assert "time called" in act(action="call_time", round=str(rnd))
            wait(f"round {rnd} played at the tables", lambda rnd=rnd: all(
                r["played"] == rnd for r in d.get("/standings.json").json()["standings"]))
            assert "closed" in act(action="close", round=str(rnd))
            assert "version 1" in act(action="publish", round=str(rnd))
        assert tables.errors == []
        with db.connect(server.db) as conn:
            (comp,) = conn.execute("SELECT comp_id FROM competitions").fetchone()
            ev = store.load(conn, int(comp))
            by_uid = dict(conn.execute("SELECT uid, label FROM tables").fetchall())
    # every host flushed its uploads and closed its records (exit status 130: Ctrl-C)
    assert [p.returncode for p in tables.procs] == [130] * 4
    for k in range(1, 5):
        log = tables.log(k).read_text()
        assert "0 disagreement(s)" in log and "match 2 started" in log, log[-2000:]
    # each host's file, read on its own: its matches after the table's own at power-up
    for k in range(1, 5):
        path = tables.path(k)
        with sqlite3.connect(path) as lite:
            (uid,) = lite.execute("SELECT uid FROM tables").fetchone()
        label = by_uid[uid]
        played = matches_in_file(path)[1:]
        assert len(played) == 2, played
        for rnd, (levels, hands, passed) in enumerate(played, 1):
            (m,) = [x for x in ev.matches if x.round_no == rnd and x.table == label]
            assert ev.sources[m.match_id] == "table"
            assert (m.status, m.levels, m.deals) == ("finished", levels, hands)
            assert m.passed == (None if passed < 0 else passed)
        # time called in the first deal (or the second, if the first was over before the
        # call came): never the three the bots would have played
        assert all(1 <= h <= 2 for _, h, _ in played), played
    std = store.standings(ev)
    assert not std.pending and sum(r.played for r in std.rows) == 16


@pytest.mark.parametrize(("argv", "says"), [
    (["virtual", "--club-rounds"], "--club-rounds is for the bots at a club's table: add --bots and --club URL"),
    (["virtual", "--bots", "--club-rounds"], "--club-rounds is for the bots at a club's table"),
    (["virtual", "--pace", "1"], "--pace is for the bots: add --bots"),
    (["virtual", "--bots", "--pace", "-1"], "--pace must be seconds from 0 to 60, not -1"),
    (["club", "demo", "--virtual"], "--virtual is for the competition's tables: add --competition"),
    (["club", "demo", "--sim"], "--sim is for the competition's tables: add --competition"),
    (["club", "demo", "--competition", "--tables", "9"], "at most 8 virtual tables"),
])
def test_options_that_do_not_fit(argv: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    from tractor_table import cli

    assert cli.main(argv) == 1
    out, err = capsys.readouterr()
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert says in err, err


@pytest.mark.parametrize("beat", ["0", "fast", "nan", "601"])
def test_a_heartbeat_that_does_not_fit_is_refused(beat: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse

    from tractor_table.commands import _club
    from tractor_table.errors import CommandError

    monkeypatch.setenv("TT_CLUB_HEARTBEAT_S", beat)
    with pytest.raises(CommandError, match=rf"TT_CLUB_HEARTBEAT_S={beat}: give the seconds between the "
                                           r"uploader's heartbeats, 0\.1 to 600 \(default 10\)"):
        _club.start(argparse.Namespace(club="http://127.0.0.1:9", token="tt_x"), recorder=object())
