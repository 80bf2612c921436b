"""The club demo's competition: four simulated tables (competition.demo.Tables) and a
two-round Swiss event run from the director's pages of a real club server process, over
HTTP as a browser posts them: create, import the player list, draw, seat, start (the tables
get their new match), call time, close, publish; round 2 the same; results from the tables."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from tractor_table.competition import demo

pytestmark = pytest.mark.club


def test_a_two_round_event_from_the_director_pages(club_server: Any, tmp_path: Path) -> None:
    server, token = club_server
    password = demo.add_director(server.db)
    with demo.Tables(tmp_path, server.base, token, 4, pace_s=0.0, heartbeat_s=0.2) as tables, \
            httpx.Client(base_url=server.base, timeout=30) as d:
        r = d.post("/director/login", data={"name": demo.DIRECTOR, "password": password})
        assert r.status_code in (200, 303)

        def act(**form: str) -> str:
            page = d.get("/director").text
            csrf = re.search(r'name="csrf" value="([^"]+)"', page)
            assert csrf is not None
            files = {"file": ("players.csv", form.pop("_file").encode(), "text/csv")} if "_file" in form else None
            r = d.post("/director/action", data={"csrf": csrf.group(1), **form}, files=files,
                       follow_redirects=True)
            assert r.status_code == 200
            err = re.search(r'id="err">([^<]*)<', r.text)
            assert err is None, err.group(1)
            m = re.search(r'id="msg">([^<]*)<', r.text)
            return m.group(1) if m else ""

        def wait(what: str, pred: Any, timeout: float = 90) -> Any:
            end = time.monotonic() + timeout
            while time.monotonic() < end:
                got = pred()
                if got:
                    return got
                time.sleep(0.1)
            raise AssertionError(f"not within {timeout} s: {what}; {tables.errors}")

        labels = wait("four tables heard", lambda: (lambda ts: [t["label"] for t in ts] if len(ts) == 4 else None)(
            d.get("/.json").json()["tables"]))
        assert "created" in act(action="create", name="Demo night", preset="club", ladder="full",
                                movement="swiss")
        assert "16 players in 8 entries" in act(action="import", _file=demo.player_csv(8))
        for rnd in (1, 2):
            assert f"round {rnd} drawn" in act(action="draw", time_limit="50", deal_limit="1")
            assert "4 tables" in act(action="seat", round=str(rnd), tables=" ".join(sorted(labels)))
            assert "playing" in act(action="start", round=str(rnd))
            if rnd == 2:
                assert "time called" in act(action="call_time", round=str(rnd))

            def played(rnd: int = rnd) -> bool:
                rows = d.get("/standings.json").json()["standings"]
                return all(r["played"] == rnd for r in rows)

            wait(f"round {rnd} played at the tables", played)
            assert "closed" in act(action="close", round=str(rnd))
            assert "version 1" in act(action="publish", round=str(rnd))
        assert tables.errors == []
        out = d.get("/standings.json").json()
        assert out["provisional"] is False and len(out["standings"]) == 8
        sheet = d.get("/results/round/2.txt").text
        assert sheet.count("[Hand ") == 4 and sheet.count("[Result ") == 8
        # the time call reached every table of round 2 (the grid's words for each cell)
        wait("call time done at four tables",
             lambda: d.get("/director").text.count("call time: done") == 4)
        assert d.get("/director").text.count('class="finished"') >= 8
