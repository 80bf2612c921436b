"""The club demo's competition: four simulated tables (competition.demo.Tables) and a
two-round Swiss event run from the director's pages of a real club server process, over
HTTP as a browser posts them: create, import the player list, draw, seat, start (the tables
get their new match), call time, close, publish; round 2 the same; results from the tables.
Then a round in the ``club demo --competition`` process, whose tables are real virtual
tables (``make club-demo COMPETITION=1``)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import directorform
import httpx
import pytest
from tractor_table.club.pg import free_port
from tractor_table.competition import demo

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.club


def test_a_two_round_event_from_the_director_pages(club_server: Any, tmp_path: Path) -> None:
    server, token = club_server
    password = demo.add_director(server.db)
    with demo.Tables(tmp_path, server.base, token, 4, pace_s=0.0, heartbeat_s=0.2) as tables, \
            httpx.Client(base_url=server.base, timeout=30) as d:
        r = d.post("/director/login", data={"name": demo.DIRECTOR, "password": password})
        assert r.status_code in (200, 303)

        def act(**form: str) -> str:
            return directorform.act(d, **form)

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


def test_make_club_demo_competition_runs_a_round_from_the_director_pages() -> None:
    r = subprocess.run(["make", "-n", "club-demo", "COMPETITION=1"], cwd=ROOT, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0 and re.search(r"tractor-table club demo\s+--competition\s*$", r.stdout, re.M), r.stdout
    port = free_port()
    tmp = Path(tempfile.mkdtemp(prefix="tt-comp-demo-"))  # reachable by PostgreSQL's user as root
    p = subprocess.Popen([sys.executable, "-m", "tractor_table.cli", "club", "demo", "--competition",
                          "--port", str(port), "--pace", "0.05", "--seconds", "180"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env={**os.environ, "TMPDIR": str(tmp)})
    try:
        assert p.stdout is not None
        line = p.stdout.readline()
        m = re.search(r"director (\S+), password (\S+) at .*import: (\S+)\. ", line)
        assert m is not None, line + (p.stderr.read() if p.poll() is not None else "")
        name, password, csv = m.group(1), m.group(2), Path(m.group(3))
        assert "open http://" in p.stdout.readline()
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as d:
            assert d.post("/director/login", data={"name": name, "password": password}).status_code in (200, 303)

            def act(**form: str) -> str:
                csrf = re.search(r'name="csrf" value="([^"]+)"', d.get("/director").text)
                assert csrf is not None
                files = {"file": ("p.csv", csv.read_bytes(), "text/csv")} if form.get("action") == "import" else None
                page = d.post("/director/action", data={"csrf": csrf.group(1), **form}, files=files,
                              follow_redirects=True).text
                assert 'id="err"' not in page, page[:2000]
                return page

            end = time.monotonic() + 60
            while len(d.get("/.json").json()["tables"]) < 4:
                assert time.monotonic() < end, "the demo's four tables never uploaded"
                time.sleep(0.1)
            act(action="create", name="Demo", preset="club", ladder="full")
            assert "16 players in 8 entries" in act(action="import")
            act(action="draw")
            labels = sorted(t["label"] for t in d.get("/.json").json()["tables"])
            act(action="seat", round="1", tables=" ".join(labels))
            act(action="start", round="1")
            # the demo's tables are virtual tables: their new match came over the link
            end = time.monotonic() + 120
            while d.get("/director").text.count("new match: done") < 4:
                assert time.monotonic() < end, "the round's new match did not reach four tables"
                time.sleep(0.2)
            act(action="call_time", round="1")  # the deal in progress is the last
            end = time.monotonic() + 180
            while not all(r["played"] == 1 for r in d.get("/standings.json").json()["standings"]):
                assert time.monotonic() < end, "round 1 was not played at the demo's tables"
                time.sleep(0.2)
            act(action="close", round="1")
            assert "version 1" in act(action="publish", round="1")
        p.send_signal(signal.SIGINT)
        p.wait(60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait(10)
        shutil.rmtree(tmp, ignore_errors=True)
